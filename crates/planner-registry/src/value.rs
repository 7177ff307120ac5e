//! Parameter kinds and canonical parameter values.

use std::fmt;
use std::str::FromStr;

/// The closed set of parameter kinds. Each kind has exactly one deterministic extractor
/// (`planner-extract`) and one SQL bind type.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A government agency, canonicalised through a dictionary (`Department of the Army`).
    Agency,
    /// A six-digit NAICS code with a valid sector prefix (`541512`).
    Naics,
    /// A lower-case hyphenated UUID.
    Uuid,
    /// A clearance level: `confidential`, `secret`, `top_secret`, `ts_sci`.
    Clearance,
    /// A sorted, deduplicated set of SCI compartment codes (`SI`, `TK`, `G`, `HCS`, `KLM`).
    Compartments,
    /// A SAM.gov Unique Entity ID: 12 upper-case characters.
    Uei,
    /// A window in months.
    Months,
}

impl ParamKind {
    /// Every kind, in declaration order.
    pub const ALL: [ParamKind; 7] = [
        ParamKind::Agency,
        ParamKind::Naics,
        ParamKind::Uuid,
        ParamKind::Clearance,
        ParamKind::Compartments,
        ParamKind::Uei,
        ParamKind::Months,
    ];

    /// The kind's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            ParamKind::Agency => "agency",
            ParamKind::Naics => "naics",
            ParamKind::Uuid => "uuid",
            ParamKind::Clearance => "clearance",
            ParamKind::Compartments => "compartments",
            ParamKind::Uei => "uei",
            ParamKind::Months => "months",
        }
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown kind name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown parameter kind `{}`", self.0)
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for ParamKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ParamKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

/// A canonical parameter value. Serialises as plain JSON: text as a string, ints as numbers,
/// lists as arrays.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Value {
    /// An integer (months).
    Int(i64),
    /// Text: agency names, NAICS codes, UUIDs, UEIs, enum values.
    Text(String),
    /// A sorted, deduplicated list of enum values (compartments).
    List(Vec<String>),
}

/// [`Value`] under a name that schema derives do not take for `serde_json::Value` (utoipa reads
/// a type named `Value` as any JSON): wire types name it in `value_type`.
pub type ParamValue = Value;

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(s) => f.write_str(s),
            Value::List(items) => f.write_str(&items.join(", ")),
        }
    }
}
