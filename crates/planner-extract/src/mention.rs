//! The leaf types every matcher returns: byte spans, mentions and diagnostics.
//!
//! Imports nothing from the crate, so every other module may read it.

use std::fmt;

use planner_registry::{ParamKind, Role, Value};

/// A byte range `[start, end)` into the question; both ends are char boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The spanned text of `question`, or `""` when the span does not fit it.
    pub fn text(self, question: &str) -> &str {
        question.get(self.start..self.end).unwrap_or("")
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// One param found in the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Which kind of param.
    pub kind: ParamKind,
    /// Its canonical value.
    pub value: Value,
    /// Where it was written.
    pub span: Span,
    /// The end of a directed pair the question's words make it ("from X", "to Y"; see the
    /// `roles` module), or `None`.
    pub role: Option<Role>,
}

/// Something the extractors noticed that the caller may want to tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where.
    pub span: Span,
    /// What.
    pub problem: Problem,
}

/// The closed set of diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A well-formed NAICS code that is not in the 2022 list (an older vintage, or a typo). The
    /// code is still extracted.
    NaicsNotIn2022 {
        /// The code as extracted.
        code: String,
    },
    /// Six digits after a NAICS cue whose first two digits are not a NAICS sector. Not extracted.
    NaicsInvalidSector {
        /// The digits as written.
        code: String,
    },
    /// Digits after a NAICS cue that are not six long. Not extracted.
    NaicsNotSixDigits {
        /// The digits as written.
        digits: String,
    },
    /// An SCI control system outside the supported set (`RSV`, `BUR`, `MVL`). Left out of the
    /// compartment list.
    UnsupportedCompartment {
        /// The code, upper-case.
        code: String,
    },
    /// A month window too large to represent. Not extracted.
    WindowTooLarge,
    /// A code of a declared `code` kind, after its cue word, that is not in the kind's list.
    /// The code is still extracted.
    NotInList {
        /// The kind.
        kind: ParamKind,
        /// The code as extracted.
        code: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NaicsNotIn2022 { code } => {
                write!(f, "NAICS code {code} is not in the 2022 list; kept as written")
            }
            Problem::NaicsInvalidSector { code } => {
                write!(f, "{code} does not start with a NAICS sector")
            }
            Problem::NaicsNotSixDigits { digits } => {
                write!(f, "NAICS codes have six digits, found {digits}")
            }
            Problem::UnsupportedCompartment { code } => {
                write!(f, "compartment {code} is not one of SI, TK, G, HCS, KLM")
            }
            Problem::WindowTooLarge => f.write_str("time window too large"),
            Problem::NotInList { kind, code } => {
                write!(f, "{code} is not in the list of {kind} codes; kept as written")
            }
        }
    }
}
