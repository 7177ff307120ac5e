//! Evidence kept in the graph state: each node's result as the answer shows it and as the
//! faithfulness gate reads it (money columns marked from the registry's units, the window of
//! months the rows cover and the data's date it is anchored on, the values the question bound
//! that scoped it), both serialisable so that a checkpoint can hold them.

use planner_exec::{Cell, ResultTable};
use planner_grammar::{ArgSource, PlanNode};
use planner_infer::{Bound, Cell as GateCell, EvidenceTable as GateTable, Window};
use planner_registry::{DurationUnit, QueryIntent, Registry, Unit, Value, WindowDirection};
use serde::{Deserialize, Serialize};

use crate::answer::EvidenceTable;

/// One node's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredTable {
    pub(crate) evidence: EvidenceTable,
    cells: Vec<Vec<StoredCell>>,
    k: u32,
    /// The window of months the rows cover, for an intent that declares one.
    #[serde(default)]
    window: Option<StoredWindow>,
    /// The values that scoped the rows (`scope_of`), as `(param, value)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    scope: Vec<(String, String)>,
}

/// A window as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredWindow {
    /// Its length, in months unless `days`; named as checkpoints written before day windows
    /// name it.
    #[serde(rename = "months")]
    length: i64,
    /// Whether the length is in days (a `duration` kind of unit day).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    days: bool,
    ahead: bool,
    as_of: Option<String>,
}

/// A typed cell, as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum StoredCell {
    Null,
    Bool(bool),
    Int(i64),
    Decimal(String),
    Money(String),
    Date(String),
    Text(String),
    Suppressed,
}

/// The values that scoped `node`'s rows, as `(param, value)` in the intent's param order: each
/// text, list or period value the question (or an answer to a clarifying question) bound. A
/// period is stated as its days ("2025-01-01 to 2025-03-31", "from 2025-01-01"; all time is no
/// scope), a relative one resolved against `as_of` as the node ran it; a list as its values
/// joined by `/`. Integers (windows, counts) are not scope: a window is stated as the window.
/// Defaults and upstream values are not named: a default is the intent's own reading, and an
/// upstream value is a row of the answer already; but a default period relative to the data's
/// date (the 30 days up to it) is named as its days, which no reader could know otherwise.
pub(crate) fn scope_of(
    registry: &Registry,
    node: &PlanNode,
    as_of: Option<&str>,
) -> Vec<(String, String)> {
    node.args
        .iter()
        .filter_map(|arg| {
            let value = match &arg.source {
                ArgSource::Available(value) => value,
                ArgSource::Default(value)
                    if arg.kind.is_period() && planner_registry::is_relative(value) =>
                {
                    value
                }
                _ => return None,
            };
            let shown = match value {
                Value::Int(_) => return None,
                Value::Text(text) => text.clone(),
                Value::List(_) if arg.kind.is_period() => {
                    let value = match as_of {
                        Some(date) => planner_registry::resolve_period(value, date)?,
                        None if planner_registry::is_relative(value) => return None,
                        None => value.clone(),
                    };
                    let Value::List(bounds) = value else { return None };
                    period_words(&bounds)?
                }
                Value::List(items) => items.join("/"),
            };
            Some((registry.param(arg.param).name.clone(), shown))
        })
        .collect()
}

/// A range `[start, end)` of ISO days (`-infinity`, `infinity` open) as its first and last
/// days; `None` for all time or a malformed range.
fn period_words(bounds: &[String]) -> Option<String> {
    let [start, end] = bounds else { return None };
    let last = match end.as_str() {
        "infinity" => None,
        // The range is [start, end): its last day is the day before `end`.
        day => Some(planner_registry::resolve_bound("@D-1d", day)?),
    };
    match (start.as_str(), last) {
        ("-infinity", None) => None,
        ("-infinity", Some(last)) => Some(format!("to {last}")),
        (start, None) => Some(format!("from {start}")),
        (start, Some(last)) => Some(format!("{start} to {last}")),
    }
}

/// The window of `node`'s rows: its intent's direction and the length it was bound with (a
/// param of kind months, or of a `duration` kind in its unit), anchored on `as_of` (the data's
/// date, when it was read).
pub(crate) fn window_of(
    registry: &Registry,
    query: &QueryIntent,
    node: &PlanNode,
    as_of: Option<&str>,
) -> Option<StoredWindow> {
    let direction = query.window?;
    let (length, unit) = node.args.iter().find_map(|arg| {
        let (ArgSource::Available(Value::Int(n)) | ArgSource::Default(Value::Int(n))) = &arg.source
        else {
            return None;
        };
        Some((*n, registry.duration_unit(arg.kind)?))
    })?;
    Some(StoredWindow {
        length,
        days: unit == DurationUnit::Day,
        ahead: direction == WindowDirection::Ahead,
        as_of: as_of.map(str::to_owned),
    })
}

impl StoredTable {
    /// `table` as `intent` (whose columns give the units) returned it, covering `window`.
    pub(crate) fn new(
        name: &str,
        query: &QueryIntent,
        table: &ResultTable,
        window: Option<StoredWindow>,
        scope: Vec<(String, String)>,
    ) -> StoredTable {
        let money: Vec<bool> = table
            .columns
            .iter()
            .map(|column| {
                query.columns.iter().any(|it| it.name == column.name && it.unit == Some(Unit::Usd))
            })
            .collect();
        let mut k = 11;
        let cells = table
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(position, cell)| match cell {
                        Cell::Null => StoredCell::Null,
                        Cell::Bool(b) => StoredCell::Bool(*b),
                        Cell::Int(n) if money.get(position) == Some(&true) => {
                            StoredCell::Money(n.to_string())
                        }
                        Cell::Int(n) => StoredCell::Int(*n),
                        Cell::Decimal(d) if money.get(position) == Some(&true) => {
                            StoredCell::Money(d.normalize().to_string())
                        }
                        Cell::Decimal(d) => StoredCell::Decimal(d.normalize().to_string()),
                        Cell::Date(d) => StoredCell::Date(d.format("%Y-%m-%d").to_string()),
                        Cell::Timestamp(t) => StoredCell::Date(t.format("%Y-%m-%d").to_string()),
                        Cell::LocalTimestamp(t) => {
                            StoredCell::Date(t.format("%Y-%m-%d").to_string())
                        }
                        Cell::Text(text) => StoredCell::Text(text.clone()),
                        Cell::Uuid(u) => StoredCell::Text(u.to_string()),
                        Cell::TextList(items) => StoredCell::Text(items.join(", ")),
                        Cell::Suppressed { k: threshold } => {
                            k = *threshold;
                            StoredCell::Suppressed
                        }
                        Cell::Withheld => StoredCell::Suppressed,
                    })
                    .collect()
            })
            .collect();
        StoredTable { evidence: EvidenceTable::new(name, table), cells, k, window, scope }
    }

    pub(crate) fn gate_table(&self) -> GateTable {
        GateTable {
            intent: self.evidence.intent.clone(),
            columns: self.evidence.columns.clone(),
            rows: self
                .cells
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|cell| match cell {
                            StoredCell::Null => GateCell::Null,
                            StoredCell::Bool(b) => GateCell::Bool(*b),
                            StoredCell::Int(n) => GateCell::Int(*n),
                            StoredCell::Decimal(d) => GateCell::Decimal(d.clone()),
                            StoredCell::Money(d) => GateCell::Money(d.clone()),
                            StoredCell::Date(d) => GateCell::Date(d.clone()),
                            StoredCell::Text(t) => GateCell::Text(t.clone()),
                            StoredCell::Suppressed => GateCell::Suppressed { k: self.k },
                        })
                        .collect()
                })
                .collect(),
            window: self.window.as_ref().map(|window| Window {
                length: window.length,
                unit: if window.days { DurationUnit::Day } else { DurationUnit::Month },
                direction: if window.ahead {
                    WindowDirection::Ahead
                } else {
                    WindowDirection::Past
                },
                as_of: window.as_of.clone(),
            }),
            scope: self
                .scope
                .iter()
                .map(|(param, value)| Bound { param: param.clone(), value: value.clone() })
                .collect(),
        }
    }
}
