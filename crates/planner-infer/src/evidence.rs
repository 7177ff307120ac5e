//! The evidence a narration is checked against: the tables the plan's intents returned (with
//! suppressed cells marked, money marked as money, the window each table covers and the values
//! that scoped it), the entity strings the question bound, and the plan nodes that did not
//! contribute.

use planner_registry::{DurationUnit, WindowDirection};

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
    /// An amount of money in US dollars, an exact decimal in plain notation like
    /// [`Cell::Decimal`]; narrated with the currency sign and thousands separators
    /// (`$4,160,091,428.60`).
    Money(String),
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

/// The window of time a table's rows cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Its length in `unit`s, as bound.
    pub length: i64,
    /// The unit of `length`: months for the built-in `months` kind, a `duration` kind's own
    /// unit otherwise.
    pub unit: DurationUnit,
    /// Which way it runs: up to the anchor ("over the 36 months to 2026-09-30") or from it on
    /// ("in the 18 months from 2026-09-30").
    pub direction: WindowDirection,
    /// The date it is anchored on (`YYYY-MM-DD`), the data's own "today", when known.
    pub as_of: Option<String>,
}

/// One intent's result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EvidenceTable {
    /// The intent that produced it.
    pub intent: String,
    /// The column names.
    pub columns: Vec<String>,
    /// The rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
    /// The window of time the rows cover, for an intent that has one.
    pub window: Option<Window>,
    /// The values that scoped the rows, in the intent's param order: what the question (or an
    /// answer to a clarifying question) bound, a relative period as the dates it was resolved
    /// to. Empty when the intent ran on its defaults and upstream values alone.
    pub scope: Vec<Bound>,
}

/// A value that scoped a table's rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The param's name (`region`, `period`).
    pub param: String,
    /// The value as the answer states it (`west`, `2025-01-01 to 2025-03-31`).
    pub value: String,
}

/// A plan node that did not contribute to the answer, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedIntent {
    /// The intent's name.
    pub intent: String,
    /// Why it did not contribute, in words.
    pub reason: String,
}

/// Everything a narration may draw on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Evidence {
    /// The tables, in plan order.
    pub tables: Vec<EvidenceTable>,
    /// Entity strings bound into the plan (agency names, NAICS codes, UEIs, ...).
    pub entities: Vec<String>,
    /// Registry intents of the plan that did not contribute, with their reasons.
    pub dropped: Vec<DroppedIntent>,
}
