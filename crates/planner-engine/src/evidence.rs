//! Evidence kept in the graph state: each node's result as the answer shows it and as the
//! faithfulness gate reads it, both serialisable so that a checkpoint can hold them.

use planner_exec::{Cell, ResultTable};
use planner_infer::{Cell as GateCell, Evidence, EvidenceTable as GateTable};
use planner_registry::Value;
use serde::{Deserialize, Serialize};

use crate::answer::EvidenceTable;
use crate::graph::State;

/// One node's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredTable {
    pub(crate) evidence: EvidenceTable,
    cells: Vec<Vec<StoredCell>>,
    k: u32,
}

/// A typed cell, as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum StoredCell {
    Null,
    Bool(bool),
    Int(i64),
    Decimal(String),
    Date(String),
    Text(String),
    Suppressed,
}

impl StoredTable {
    pub(crate) fn new(intent: &str, table: &ResultTable) -> StoredTable {
        let mut k = 11;
        let cells = table
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| match cell {
                        Cell::Null => StoredCell::Null,
                        Cell::Bool(b) => StoredCell::Bool(*b),
                        Cell::Int(n) => StoredCell::Int(*n),
                        Cell::Decimal(d) => StoredCell::Decimal(d.normalize().to_string()),
                        Cell::Date(d) => StoredCell::Date(d.format("%Y-%m-%d").to_string()),
                        Cell::Timestamp(t) => StoredCell::Date(t.format("%Y-%m-%d").to_string()),
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
        StoredTable { evidence: EvidenceTable::new(intent, table), cells, k }
    }

    fn gate_table(&self) -> GateTable {
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
                            StoredCell::Date(d) => GateCell::Date(d.clone()),
                            StoredCell::Text(t) => GateCell::Text(t.clone()),
                            StoredCell::Suppressed => GateCell::Suppressed { k: self.k },
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

/// The union of a state's evidence: every table, and the entity values the question bound.
pub(crate) fn evidence_of(state: &State) -> Evidence {
    let mut entities: Vec<String> = state
        .params
        .available
        .values()
        .filter_map(|value| match value {
            Value::Text(text) => Some(text.clone()),
            Value::List(items) => Some(items.join("/")),
            Value::Int(_) => None,
        })
        .collect();
    entities.sort();
    entities.dedup();
    Evidence { tables: state.tables.iter().map(StoredTable::gate_table).collect(), entities }
}
