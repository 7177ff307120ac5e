//! The SQL guard: a registry statement must be one read-only query over allowed schemas, with
//! typed placeholders, checked on the parsed syntax tree (sqlparser, PostgreSQL dialect).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use sqlparser::ast::{
    DataType, Expr, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem, SetExpr,
    Statement, TableFactor, Visit, Visitor,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::value::{ParamKind, ValueShape};

/// One reason the guard rejects a statement.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GuardViolation {
    /// The 1-based line and column inside the SQL text, when known.
    pub location: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// The deepest nesting the parser accepts, well above any honest registry query.
const RECURSION_LIMIT: usize = 64;

/// Schemas no registry may name or allow, whatever its settings say.
const FORBIDDEN_SCHEMAS: [&str; 4] = ["eeo", "pg_catalog", "information_schema", "pg_toast"];

/// The built-in functions a registry query may call, unqualified, in lower case: aggregates,
/// window functions, and side-effect-free scalar functions over numbers, text, dates and arrays.
/// Anything else is rejected with its location (an allow-list: a function PostgreSQL adds, or
/// an escape hatch nobody listed, is refused until someone decides it is safe). A schema-qualified
/// function must live in one of the plane's schemas (the owner's own functions, such as
/// `bench.compartment_bits`). Sorted, for the binary search.
const ALLOWED_FUNCTIONS: [&str; 71] = [
    "abs",
    "array_agg",
    "array_length",
    "array_position",
    "array_to_string",
    "avg",
    "bit_and",
    "bit_or",
    "bool_and",
    "bool_or",
    "btrim",
    "cardinality",
    "ceil",
    "ceiling",
    "char_length",
    "coalesce",
    "concat",
    "concat_ws",
    "count",
    "cume_dist",
    "current_date",
    "current_timestamp",
    "date_part",
    "date_trunc",
    "dense_rank",
    "every",
    "first_value",
    "floor",
    "generate_series",
    "greatest",
    "initcap",
    "lag",
    "last_value",
    "lead",
    "least",
    "left",
    "length",
    "lower",
    "lpad",
    "ltrim",
    "make_date",
    "make_interval",
    "max",
    "min",
    "mode",
    "nth_value",
    "ntile",
    "nullif",
    "percent_rank",
    "percentile_cont",
    "percentile_disc",
    "rank",
    "replace",
    "right",
    "round",
    "row_number",
    "rpad",
    "rtrim",
    "sign",
    "split_part",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "string_agg",
    "strpos",
    "sum",
    "to_char",
    "trunc",
    "unnest",
    "upper",
    "variance",
];

/// Object-identifier and internal types no query may cast to.
const DENIED_TYPE_PREFIXES: [&str; 2] = ["reg", "pg_"];
const DENIED_TYPES: [&str; 5] = ["oid", "xid", "xid8", "cid", "tid"];

/// Whether a schema can never be allowed: `eeo`, the catalogs, and anything named `pg_*`.
pub(crate) fn is_forbidden_schema(schema: &str) -> bool {
    let lower = schema.to_ascii_lowercase();
    FORBIDDEN_SCHEMAS.contains(&lower.as_str()) || lower.starts_with("pg_")
}

/// Checks one registry statement. `allowed_schemas` are the schemas tables may come from
/// (lower case); `params` are the kinds of `$1..$n`, in order. Returns every violation found;
/// an empty list means the statement is accepted.
///
/// The rules are those of the crate documentation: exactly one `SELECT`/`WITH` query, nothing
/// that writes or locks, only allow-listed built-in functions (or functions of the allowed
/// schemas, schema-qualified), no object-identifier cast, no `U&` escape, no `eeo` anywhere,
/// every table schema-qualified with an allowed schema (CTE names excepted), and placeholders
/// `$1..$n` each used and each occurrence cast to its kind's SQL type.
pub fn check_sql(
    sql: &str,
    allowed_schemas: &[String],
    params: &[ParamKind],
) -> Vec<GuardViolation> {
    let mut violations = Vec::new();
    let dialect = PostgreSqlDialect {};

    // Token pass: `eeo` may not appear as an identifier anywhere, quoted or not, in any case.
    match Tokenizer::new(&dialect, sql).tokenize_with_location() {
        Ok(tokens) => {
            for (index, token) in tokens.iter().enumerate() {
                let start = token.span.start;
                let location = Some((start.line, start.column));
                match &token.token {
                    Token::Word(word) if word.value.eq_ignore_ascii_case("eeo") => {
                        violations.push(at(
                            location,
                            "names the `eeo` schema, which is never reachable".to_owned(),
                        ));
                    }
                    // `U&"..."` and `U&'...'`: PostgreSQL reads Unicode escapes there, which
                    // the parser does not (it sees `U & "..."`), so a name could hide behind them.
                    Token::Word(word)
                        if word.quote_style.is_none()
                            && word.value.eq_ignore_ascii_case("u")
                            && tokens.get(index + 1).is_some_and(|next| {
                                next.token == Token::Ampersand && next.span.start == token.span.end
                            }) =>
                    {
                        violations.push(at(
                            location,
                            "uses a Unicode escape (`U&`), which the guard does not read: write \
                             the name or text plainly"
                                .to_owned(),
                        ));
                    }
                    Token::UnicodeStringLiteral(_) => violations.push(at(
                        location,
                        "uses a Unicode escape string (`U&'...'`), which the guard does not read: \
                         write the text plainly"
                            .to_owned(),
                    )),
                    _ => {}
                }
            }
        }
        Err(err) => {
            let location = Some((err.location.line, err.location.column));
            violations.push(at(location, format!("cannot tokenize: {}", err.message)));
            return violations;
        }
    }

    let statements = match Parser::new(&dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(sql)
        .and_then(|mut parser| parser.parse_statements())
    {
        Ok(statements) => statements,
        Err(err) => {
            violations.push(at(None, format!("cannot parse: {err}")));
            return violations;
        }
    };
    let [statement] = statements.as_slice() else {
        violations
            .push(at(None, format!("expected exactly one statement, found {}", statements.len())));
        return violations;
    };
    let Statement::Query(_) = statement else {
        violations.push(at(None, "only a SELECT or WITH query is allowed".to_owned()));
        return violations;
    };

    let mut check = Check {
        allowed_schemas,
        violations: Vec::new(),
        statements: 0,
        cte_scopes: Vec::new(),
        table_function: false,
        placeholders: BTreeMap::new(),
        casts: BTreeMap::new(),
        params,
    };
    // The checker never breaks: it collects every violation.
    let _ = statement.visit(&mut check);
    violations.append(&mut check.violations);
    check_placeholders(params, &check.placeholders, &check.casts, &mut violations);
    violations.sort();
    violations.dedup();
    violations
}

/// Whether a query that passed [`check_sql`] returns its rows ordered or cut to a top N (an
/// `ORDER BY`, `LIMIT` or `FETCH` on the outer query), or ranks them with a window function
/// (`rank`, `dense_rank`, `row_number`, `ntile`, `percent_rank`, `cume_dist`) anywhere: what a
/// ranking of the rows it returns needs.
pub fn ranks_rows(sql: &str) -> bool {
    let parsed = Parser::new(&PostgreSqlDialect {})
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(sql)
        .and_then(|mut parser| parser.parse_statements());
    let Ok(statements) = parsed else { return false };
    let Some(statement @ Statement::Query(query)) = statements.first() else { return false };
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return true;
    }
    let mut ranking = false;
    let _ = sqlparser::ast::visit_expressions(statement, |expr| {
        if let Expr::Function(function) = expr {
            let name = function.name.to_string().to_ascii_lowercase();
            let name = name.rsplit('.').next().unwrap_or("");
            ranking |= matches!(
                name,
                "rank" | "dense_rank" | "row_number" | "ntile" | "percent_rank" | "cume_dist"
            );
        }
        ControlFlow::<()>::Continue(())
    });
    ranking
}

/// The names PostgreSQL gives the columns of `sql`'s result, in order, as far as the text tells
/// them: an alias, a column's own name, a function's name (`count(*)` is `count`), a cast's
/// operand's name; `None` for an expression PostgreSQL names otherwise. `None` for the whole
/// when the statement does not parse or selects `*` (its columns are the tables').
pub fn output_names(sql: &str) -> Option<Vec<Option<String>>> {
    let dialect = PostgreSqlDialect {};
    let statements = Parser::new(&dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(sql)
        .and_then(|mut parser| parser.parse_statements())
        .ok()?;
    let [Statement::Query(query)] = statements.as_slice() else { return None };
    let mut body = query.body.as_ref();
    // A set operation's columns are named by its first operand.
    let select = loop {
        match body {
            SetExpr::Select(select) => break select,
            SetExpr::Query(query) => body = query.body.as_ref(),
            SetExpr::SetOperation { left, .. } => body = left.as_ref(),
            _ => return None,
        }
    };
    let folded = |ident: &Ident| {
        if ident.quote_style.is_some() { ident.value.clone() } else { ident.value.to_lowercase() }
    };
    let mut names = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        names.push(match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(folded(alias)),
            SelectItem::UnnamedExpr(expr) => expression_name(expr).map(folded),
            _ => return None,
        });
    }
    Some(names)
}

/// The identifier PostgreSQL names an unaliased result column after, when there is one.
fn expression_name(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Identifier(ident) => Some(ident),
        Expr::CompoundIdentifier(parts) => parts.last(),
        Expr::Function(function) => match function.name.0.last()? {
            ObjectNamePart::Identifier(ident) => Some(ident),
            ObjectNamePart::Function(_) => None,
        },
        Expr::Cast { expr, .. } | Expr::Nested(expr) => expression_name(expr),
        _ => None,
    }
}

fn at(location: Option<(u64, u64)>, message: String) -> GuardViolation {
    let location = location.filter(|&(line, _)| line > 0).map(|(line, column)| {
        (usize::try_from(line).unwrap_or(usize::MAX), usize::try_from(column).unwrap_or(usize::MAX))
    });
    GuardViolation { location, message }
}

fn ident_at(ident: &Ident) -> Option<(u64, u64)> {
    Some((ident.span.start.line, ident.span.start.column))
}

struct Check<'a> {
    allowed_schemas: &'a [String],
    violations: Vec<GuardViolation>,
    statements: usize,
    /// CTE names visible in each enclosing query, innermost last.
    cte_scopes: Vec<BTreeSet<String>>,
    /// Set by a table factor that is a function call, so the next relation is checked as one.
    table_function: bool,
    /// Placeholder number to occurrences.
    placeholders: BTreeMap<u32, usize>,
    /// Placeholder number to occurrences under a cast, with the cast types seen.
    casts: BTreeMap<u32, Vec<String>>,
    params: &'a [ParamKind],
}

impl Check<'_> {
    fn reject(&mut self, location: Option<(u64, u64)>, message: String) {
        self.violations.push(at(location, message));
    }

    fn check_function(&mut self, name: &ObjectName) {
        let parts = name_parts(name);
        if parts.len() != name.0.len() {
            self.reject(None, format!("function name `{name}` is not a plain identifier"));
            return;
        }
        match parts.as_slice() {
            [] => self.reject(None, "a function name that is not a plain identifier".to_owned()),
            [function] => {
                let lower = function.value.to_ascii_lowercase();
                if ALLOWED_FUNCTIONS.binary_search(&lower.as_str()).is_err() {
                    self.reject(
                        ident_at(function),
                        format!(
                            "calls function `{}`, which is not on the guard's allow-list \
                             (write a function of the plane's own schemas as schema.function)",
                            function.value
                        ),
                    );
                }
            }
            [schema, _function] => self.check_schema(schema, "function"),
            [.., last] => {
                self.reject(ident_at(last), format!("function name `{name}` has too many parts"));
            }
        }
    }

    fn check_schema(&mut self, schema: &Ident, what: &str) {
        let lower = schema.value.to_ascii_lowercase();
        if is_forbidden_schema(&lower) || !self.allowed_schemas.contains(&lower) {
            self.reject(
                ident_at(schema),
                format!(
                    "{what} in schema `{}`, which the intent's plane may not read (its schemas: \
                     {})",
                    schema.value,
                    self.allowed_schemas.join(", ")
                ),
            );
        }
    }

    fn check_type(&mut self, data_type: &DataType, location: Option<(u64, u64)>) {
        let text = data_type.to_string().to_ascii_lowercase();
        let base = text.trim_end_matches("[]").rsplit('.').next().unwrap_or("").to_owned();
        if matches!(data_type, DataType::Regclass)
            || DENIED_TYPES.contains(&base.as_str())
            || DENIED_TYPE_PREFIXES.iter().any(|p| base.starts_with(p))
        {
            self.reject(location, format!("casts to object-identifier type `{text}`"));
        }
    }
}

fn name_parts(name: &ObjectName) -> Vec<&Ident> {
    name.0.iter().filter_map(|part| part.as_ident()).collect()
}

fn placeholder_number(text: &str) -> Option<u32> {
    let digits = text.strip_prefix('$')?;
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn placeholder_in(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Value(value) => match &value.value {
            sqlparser::ast::Value::Placeholder(text) => Some(text),
            _ => None,
        },
        Expr::Nested(inner) => placeholder_in(inner),
        _ => None,
    }
}

/// The cast types accepted for each kind, in lower case as sqlparser prints them.
fn accepted_casts(kind: ParamKind) -> &'static [&'static str] {
    match kind.shape() {
        ValueShape::Text => &["text", "varchar"],
        ValueShape::Uuid => &["uuid"],
        ValueShape::Date => &["date", "text"],
        ValueShape::Int => &["int", "integer", "int4", "bigint", "int8"],
        ValueShape::List => &["text[]", "varchar[]"],
    }
}

fn check_placeholders(
    params: &[ParamKind],
    placeholders: &BTreeMap<u32, usize>,
    casts: &BTreeMap<u32, Vec<String>>,
    violations: &mut Vec<GuardViolation>,
) {
    for (&number, &count) in placeholders {
        let Some(kind) = usize::try_from(number).ok().and_then(|n| params.get(n.wrapping_sub(1)))
        else {
            violations.push(at(
                None,
                format!(
                    "placeholder ${number} has no param: the intent declares {} param(s)",
                    params.len()
                ),
            ));
            continue;
        };
        let cast = casts.get(&number).map_or(&[][..], Vec::as_slice);
        if cast.len() < count {
            violations.push(at(
                None,
                format!(
                    "placeholder ${number} ({kind}) is used without a cast: write ${number}::{}",
                    accepted_casts(*kind)[0]
                ),
            ));
        }
        for ty in cast {
            if !accepted_casts(*kind).contains(&ty.as_str()) {
                violations.push(at(
                    None,
                    format!(
                        "placeholder ${number} is cast to `{ty}` but its param is of kind {kind} (expected {})",
                        accepted_casts(*kind).join(" or ")
                    ),
                ));
            }
        }
    }
    for (index, kind) in params.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        if !placeholders.contains_key(&number) {
            violations.push(at(
                None,
                format!("param {} ({kind}) has no placeholder ${number}", index + 1),
            ));
        }
    }
}

impl Visitor for Check<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<()> {
        self.statements += 1;
        if self.statements > 1 {
            self.reject(
                None,
                "contains a nested statement (a data-modifying CTE or subquery)".to_owned(),
            );
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        let mut names = BTreeSet::new();
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                names.insert(cte.alias.name.value.to_ascii_lowercase());
            }
        }
        self.cte_scopes.push(names);
        if !query.locks.is_empty() {
            self.reject(None, "locks rows (FOR UPDATE/SHARE)".to_owned());
        }
        if query.for_clause.is_some() || query.settings.is_some() || query.format_clause.is_some() {
            self.reject(None, "uses a clause of another dialect".to_owned());
        }
        if !query.pipe_operators.is_empty() {
            self.reject(None, "uses pipe operators".to_owned());
        }
        check_set_expr(self, &query.body);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &Query) -> ControlFlow<()> {
        self.cte_scopes.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if select.into.is_some() {
            self.reject(None, "SELECT INTO creates a table".to_owned());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table { args: Some(_), .. } => self.table_function = true,
            TableFactor::Function { name, .. } => self.check_function(name),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        if std::mem::take(&mut self.table_function) {
            self.check_function(relation);
            return ControlFlow::Continue(());
        }
        let parts = name_parts(relation);
        if parts.len() != relation.0.len() || parts.is_empty() {
            self.reject(None, format!("relation `{relation}` is not a plain name"));
            return ControlFlow::Continue(());
        }
        match parts.as_slice() {
            [table] => {
                let lower = table.value.to_ascii_lowercase();
                let is_cte = self.cte_scopes.iter().any(|scope| scope.contains(&lower));
                if !is_cte || lower.starts_with("pg_") {
                    self.reject(
                        ident_at(table),
                        format!("table `{}` is not schema-qualified (write schema.table with an allowed schema)", table.value),
                    );
                }
            }
            [schema, _table] => self.check_schema(schema, "table"),
            _ => self.reject(
                ident_at(parts[0]),
                format!("relation `{relation}` names another database"),
            ),
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(function) => self.check_function(&function.name),
            Expr::Cast { expr: inner, data_type, .. } => {
                self.check_type(data_type, None);
                if let Some(number) = placeholder_in(inner).and_then(placeholder_number) {
                    let ty = data_type.to_string().to_ascii_lowercase();
                    self.casts.entry(number).or_default().push(ty);
                }
            }
            Expr::TypedString(typed) => self.check_type(&typed.data_type, None),
            Expr::CompoundIdentifier(parts) if parts.len() >= 3 => {
                let schema = &parts[parts.len() - 3];
                self.check_schema(schema, "column");
                if parts.len() > 3 {
                    self.reject(
                        ident_at(&parts[0]),
                        "a column name with more than three parts".to_owned(),
                    );
                }
            }
            Expr::Value(value) => {
                if let sqlparser::ast::Value::Placeholder(text) = &value.value {
                    let location = Some((value.span.start.line, value.span.start.column));
                    match placeholder_number(text) {
                        Some(number) => *self.placeholders.entry(number).or_default() += 1,
                        None => self.reject(
                            location,
                            format!(
                                "placeholder `{text}` is not of the form $1..${}",
                                self.params.len().max(1)
                            ),
                        ),
                    }
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn check_set_expr(check: &mut Check<'_>, body: &SetExpr) {
    match body {
        SetExpr::Select(_) | SetExpr::Query(_) | SetExpr::Values(_) => {}
        SetExpr::SetOperation { left, right, .. } => {
            check_set_expr(check, left);
            check_set_expr(check, right);
        }
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
            check.reject(None, "modifies data".to_owned());
        }
        SetExpr::Table(_) => {
            check.reject(None, "TABLE statements are not allowed: select columns".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_is_sorted_for_its_binary_search() {
        assert!(ALLOWED_FUNCTIONS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn the_file_formats_docs_list_every_allowed_function() {
        let docs = include_str!("lib.rs");
        for name in ALLOWED_FUNCTIONS {
            assert!(docs.contains(&format!("`{name}`")), "{name} is not in the registry docs");
        }
    }
}
