//! Errors of loading a registry: every problem found, each with its place in the file.

use std::fmt;

/// Everything that can go wrong while loading a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The file is not a valid registry; every problem found is listed.
    #[error("{origin}: invalid registry ({count} problem(s)):\n{list}", count = problems.len(), list = ProblemList(problems))]
    Invalid {
        /// The file name the problems refer to, as the caller gave it.
        origin: String,
        /// Every problem, in file order.
        problems: Vec<Problem>,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One problem in a registry file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The 1-based column (in characters), when known.
    pub column: Option<usize>,
    /// What is wrong, in a sentence without a final period.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "{line}:{column}: {}", self.message),
            (Some(line), None) => write!(f, "{line}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

struct ProblemList<'a>(&'a [Problem]);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "  {problem}")?;
        }
        Ok(())
    }
}

impl Error {
    /// The problems, with the origin prefixed: `file:line:column: message`.
    pub fn located(&self) -> Vec<String> {
        match self {
            Error::Invalid { origin, problems } => {
                problems.iter().map(|problem| format!("{origin}:{problem}")).collect()
            }
        }
    }

    /// The problems.
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::Invalid { problems, .. } => problems,
        }
    }
}
