//! The evidence a narration is checked against: the tables the plan's intents returned (with
//! suppressed cells marked) and the entity strings the question bound.

/// One cell of an evidence table, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// No value.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// An exact decimal, written in plain notation (`1234567.89`, `-0.5`).
    Decimal(String),
    /// A calendar date, `YYYY-MM-DD`.
    Date(String),
    /// Text: names, identifiers, labels.
    Text(String),
    /// A count withheld by small-cell suppression: the true value is hidden; it is below `k`.
    Suppressed {
        /// The suppression threshold: the hidden count lies in `1..k`.
        k: u32,
    },
}

/// One intent's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceTable {
    /// The intent that produced it.
    pub intent: String,
    /// The column names.
    pub columns: Vec<String>,
    /// The rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
}

/// Everything a narration may draw on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Evidence {
    /// The tables, in plan order.
    pub tables: Vec<EvidenceTable>,
    /// Entity strings bound into the plan (agency names, NAICS codes, UEIs, ...).
    pub entities: Vec<String>,
}
