//! Arithmetic formulas over named values: `a * (1 - b) / c`.
//!
//! The grammar is numbers, names (`[a-z_][a-z0-9_]*`), `+ - * /`, unary minus and parentheses.
//! Formulas are parsed once at profile load; evaluation never panics.

use std::fmt;

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    text: String,
    expr: Expr,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Num(f64),
    Var(String),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// Why a formula does not parse: the message and the byte offset in the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Byte offset in the formula text.
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.message, self.offset)
    }
}

/// Why a formula could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// A name has no value.
    Missing(String),
    /// Division by zero.
    DivisionByZero,
    /// The result is not a finite number.
    NotFinite,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Missing(name) => write!(f, "missing input: {name}"),
            EvalError::DivisionByZero => f.write_str("division by zero"),
            EvalError::NotFinite => f.write_str("result is not a finite number"),
        }
    }
}

impl Formula {
    /// Parses `text`.
    ///
    /// # Errors
    /// The first syntax error, with its offset.
    pub fn parse(text: &str) -> Result<Formula, ParseError> {
        let mut parser = Parser { bytes: text.as_bytes(), at: 0, depth: 0 };
        let expr = parser.sum()?;
        parser.skip_space();
        if parser.at < parser.bytes.len() {
            return Err(parser.error("unexpected character"));
        }
        Ok(Formula { text: text.trim().to_owned(), expr })
    }

    /// The formula as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names the formula reads, in first-use order, each once.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        collect(&self.expr, &mut out);
        out
    }

    /// Evaluates the formula, looking names up with `value`.
    ///
    /// # Errors
    /// A name without a value, a division by zero or a non-finite result.
    pub fn eval(&self, value: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
        let out = eval(&self.expr, value)?;
        if out.is_finite() { Ok(out) } else { Err(EvalError::NotFinite) }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn collect<'a>(expr: &'a Expr, out: &mut Vec<&'a str>) {
    match expr {
        Expr::Num(_) => {}
        Expr::Var(name) => {
            if !out.contains(&name.as_str()) {
                out.push(name);
            }
        }
        Expr::Neg(inner) => collect(inner, out),
        Expr::Bin(_, left, right) => {
            collect(left, out);
            collect(right, out);
        }
    }
}

fn eval(expr: &Expr, value: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
    Ok(match expr {
        Expr::Num(n) => *n,
        Expr::Var(name) => value(name).ok_or_else(|| EvalError::Missing(name.clone()))?,
        Expr::Neg(inner) => -eval(inner, value)?,
        Expr::Bin(op, left, right) => {
            let (l, r) = (eval(left, value)?, eval(right, value)?);
            match op {
                Op::Add => l + r,
                Op::Sub => l - r,
                Op::Mul => l * r,
                Op::Div if r == 0.0 => return Err(EvalError::DivisionByZero),
                Op::Div => l / r,
            }
        }
    })
}

/// Deepest nesting accepted, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        ParseError { message: message.to_owned(), offset: self.at }
    }

    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes.get(self.at).copied()
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let op = if c == b'+' { Op::Add } else { Op::Sub };
            left = Expr::Bin(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.at += 1;
            let op = if c == b'*' { Op::Mul } else { Op::Div };
            left = Expr::Bin(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.peek() == Some(b'-') {
            self.at += 1;
            return self.nested(|p| Ok(Expr::Neg(Box::new(p.unary()?))));
        }
        self.atom()
    }

    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("formula nested too deeply"));
        }
        let out = f(self);
        self.depth -= 1;
        out
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let inner = self.nested(Parser::sum)?;
                if self.peek() != Some(b')') {
                    return Err(self.error("expected `)`"));
                }
                self.at += 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let start = self.at;
                while self.bytes.get(self.at).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
                text.parse()
                    .map(Expr::Num)
                    .map_err(|_| ParseError { message: "bad number".into(), offset: start })
            }
            Some(c) if c.is_ascii_lowercase() || c == b'_' => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
                {
                    self.at += 1;
                }
                let name = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
                Ok(Expr::Var(name.to_owned()))
            }
            Some(_) => Err(self.error("expected a number, a name or `(`")),
            None => Err(self.error("unexpected end of formula")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_with(text: &str, vars: &[(&str, f64)]) -> Result<f64, EvalError> {
        let formula = Formula::parse(text).unwrap();
        formula.eval(&|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
    }

    #[test]
    fn precedence_parentheses_and_unary_minus() {
        assert_eq!(eval_with("a + b * c", &[("a", 1.0), ("b", 2.0), ("c", 3.0)]), Ok(7.0));
        assert_eq!(eval_with("(a + b) * c", &[("a", 1.0), ("b", 2.0), ("c", 3.0)]), Ok(9.0));
        assert_eq!(eval_with("-a - -2", &[("a", 5.0)]), Ok(-3.0));
        assert_eq!(eval_with("x * (1 - y)", &[("x", 100.0), ("y", 0.25)]), Ok(75.0));
    }

    #[test]
    fn evaluation_errors_are_values() {
        assert_eq!(eval_with("a / b", &[("a", 1.0), ("b", 0.0)]), Err(EvalError::DivisionByZero));
        assert_eq!(eval_with("a + q", &[("a", 1.0)]), Err(EvalError::Missing("q".into())));
    }

    #[test]
    fn names_in_first_use_order() {
        let formula = Formula::parse("b * a + b / c").unwrap();
        assert_eq!(formula.names(), ["b", "a", "c"]);
    }

    #[test]
    fn syntax_errors_carry_offsets() {
        assert_eq!(Formula::parse("a +").unwrap_err().offset, 3);
        assert_eq!(Formula::parse("a $ b").unwrap_err().offset, 2);
        assert_eq!(Formula::parse("(a").unwrap_err().message, "expected `)`");
        let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        assert!(Formula::parse(&deep).is_err());
        assert!(Formula::parse("Rent").is_err());
    }
}
