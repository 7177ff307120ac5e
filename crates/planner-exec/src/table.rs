//! The typed result of an intent: named, typed columns and rows of cells.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

/// The type of a result column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ColumnType {
    /// `text`, `varchar`, `char`, `name`.
    Text,
    /// `smallint`, `integer`, `bigint`.
    Int,
    /// `numeric`.
    Decimal,
    /// `date`.
    Date,
    /// `timestamptz` (and `timestamp`, read as UTC).
    Timestamp,
    /// `boolean`.
    Bool,
    /// `uuid`.
    Uuid,
    /// `text[]`.
    TextList,
}

impl ColumnType {
    /// The type's name as registry files write it.
    pub const fn as_str(self) -> &'static str {
        match self {
            ColumnType::Text => "text",
            ColumnType::Int => "int",
            ColumnType::Decimal => "decimal",
            ColumnType::Date => "date",
            ColumnType::Timestamp => "timestamp",
            ColumnType::Bool => "bool",
            ColumnType::Uuid => "uuid",
            ColumnType::TextList => "text_list",
        }
    }

    /// Numbers are right-aligned when rendered.
    pub(crate) const fn is_numeric(self) -> bool {
        matches!(self, ColumnType::Int | ColumnType::Decimal)
    }
}

/// A result column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's name, as the query's `SELECT` list names it.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
}

/// One cell of a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// SQL `NULL`.
    Null,
    /// Text.
    Text(String),
    /// An integer.
    Int(i64),
    /// An exact decimal (money, shares, ratios).
    Decimal(Decimal),
    /// A calendar date.
    Date(NaiveDate),
    /// An instant (a `timestamptz` column), printed in UTC with its `Z`.
    Timestamp(DateTime<Utc>),
    /// A wall-clock time with no zone (a `timestamp` column), printed without one: the data
    /// says no zone, so the answer claims none.
    LocalTimestamp(NaiveDateTime),
    /// A boolean.
    Bool(bool),
    /// A UUID.
    Uuid(Uuid),
    /// A list of text values.
    TextList(Vec<String>),
    /// A count from 1 to k-1 (primary suppression): shown as "fewer than k".
    Suppressed {
        /// The suppression threshold.
        k: u32,
    },
    /// A count hidden so that no suppressed count can be derived from the others
    /// (complementary suppression).
    Withheld,
}

/// A typed result table. Rows are in the order the query returned them, plus, for count
/// results, the total row the suppressing executor appends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResultTable {
    /// The columns, in `SELECT` order.
    pub columns: Vec<Column>,
    /// The rows; every row has one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl ResultTable {
    /// The number of suppressed and withheld cells, for the audit row.
    pub fn suppressed_cells(&self) -> usize {
        self.rows
            .iter()
            .flatten()
            .filter(|cell| matches!(cell, Cell::Suppressed { .. } | Cell::Withheld))
            .count()
    }

    /// The index of the column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|column| column.name == name)
    }

    /// The distinct non-null cells of the column named `name`, in first-seen order: what a
    /// dependency edge reads from an upstream result.
    pub fn distinct_values(&self, name: &str) -> Vec<&Cell> {
        let Some(index) = self.column_index(name) else { return Vec::new() };
        let mut seen: Vec<&Cell> = Vec::new();
        for row in &self.rows {
            let cell = &row[index];
            if !matches!(cell, Cell::Null) && !seen.contains(&cell) {
                seen.push(cell);
            }
        }
        seen
    }
}
