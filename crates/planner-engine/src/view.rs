//! An evidence table as a reader sees it: its cells written the way the answer's text writes
//! them (money in dollars, numbers with thousands separators, through the narration's one
//! formatter, [`planner_infer::cell_text`]), and, when its rows are periods, the series a chart
//! draws. The server's page shows both; nothing here changes the answer's own JSON.
//!
//! **When a table is a time series.** Its first column is the period each row stands for: a
//! `date` or `timestamp` column, or a `text` column whose every value is a period label
//! ([`planner_registry::period_label`]: a year, a quarter such as `FY2025 Q1`, a month
//! `2025-03`, a day), all of one length and all fiscal or none; the periods run strictly one
//! way (earliest first, or latest first, which the series turns round); there are at least two
//! rows; and at least one `int` or `decimal` column has a value. Each such column is a line, up
//! to [`MAX_SERIES`], in the table's order. A table with a period repeated (a fan-out's rows of
//! several upstream values, say) is no series.

use planner_infer::{Cell, cell_text};
use planner_registry::{Column, ColumnType, Registry, Unit, period_label};

use crate::answer::EvidenceTable;

/// The most numeric columns drawn as lines of one table's chart.
pub const MAX_SERIES: usize = 4;

/// An evidence table as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableView {
    /// The intent.
    pub intent: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows of cells as the answer's text writes them (`$4,160,091,428.60`, `1,000`; a null
    /// cell is empty, a withheld count reads as in the evidence).
    pub rows: Vec<Vec<String>>,
    /// The lines of its chart, when its rows are periods.
    pub series: Option<Series>,
}

/// A table whose rows are periods, as a chart draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The period column's name.
    pub period: String,
    /// The periods' labels, earliest first.
    pub periods: Vec<String>,
    /// One line per numeric column, at most [`MAX_SERIES`].
    pub lines: Vec<Line>,
}

/// One numeric column of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The column's name.
    pub column: String,
    /// Whether its values are US dollars.
    pub money: bool,
    /// One value per period, in the order of [`Series::periods`]; `None` where the cell is null
    /// or withheld.
    pub values: Vec<Option<f64>>,
}

impl Line {
    /// `plain` (a number in plain notation, `-1234.5`) written as a cell of this column is
    /// (an axis label of its chart, say).
    pub fn show(&self, plain: &str) -> String {
        let ty = ColumnType::Decimal;
        shown(plain, Some(ty), self.money, &self.column)
    }
}

/// Whether `text` is a number in plain notation: an optional minus, digits, and an optional
/// fraction of digits.
fn is_plain_number(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// A rendered cell of a column of type `ty` (unknown: `None`) as the text writes it.
fn shown(raw: &str, ty: Option<ColumnType>, money: bool, column: &str) -> String {
    let cell = match ty {
        _ if raw.is_empty() => return String::new(),
        Some(ColumnType::Int | ColumnType::Decimal) if money && is_plain_number(raw) => {
            Cell::Money(raw.to_owned())
        }
        Some(ColumnType::Int) => match raw.parse::<i64>() {
            Ok(n) => Cell::Int(n),
            Err(_) => Cell::Text(raw.to_owned()),
        },
        Some(ColumnType::Decimal) if is_plain_number(raw) => Cell::Decimal(raw.to_owned()),
        Some(ColumnType::Bool) if raw == "true" || raw == "false" => Cell::Bool(raw == "true"),
        _ => Cell::Text(raw.to_owned()),
    };
    cell_text(&cell, column)
}

impl TableView {
    /// `table` as the page shows it; `registry` says its columns' types and units (a column the
    /// registry does not declare is shown as it is).
    pub fn new(registry: &Registry, table: &EvidenceTable) -> TableView {
        let declared: &[Column] = registry
            .intent_id(&table.intent)
            .and_then(|id| registry.intent(id).query())
            .map_or(&[], |query| query.columns.as_slice());
        let columns: Vec<Option<&Column>> = table
            .columns
            .iter()
            .map(|name| declared.iter().find(|column| &column.name == name))
            .collect();
        let rows = table
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(at, raw)| {
                        let column = columns.get(at).copied().flatten();
                        shown(
                            raw,
                            column.map(|it| it.ty),
                            column.is_some_and(|it| it.unit == Some(Unit::Usd)),
                            table.columns.get(at).map_or("", String::as_str),
                        )
                    })
                    .collect()
            })
            .collect();
        TableView {
            intent: table.intent.clone(),
            columns: table.columns.clone(),
            rows,
            series: series_of(table, &columns),
        }
    }
}

/// The series of `table` (module docs), if it is one.
fn series_of(table: &EvidenceTable, columns: &[Option<&Column>]) -> Option<Series> {
    if table.rows.len() < 2 {
        return None;
    }
    let period = columns.first().copied().flatten()?;
    if !matches!(period.ty, ColumnType::Date | ColumnType::Timestamp | ColumnType::Text) {
        return None;
    }
    let labels = table
        .rows
        .iter()
        .map(|row| row.first().and_then(|cell| period_label(cell)))
        .collect::<Option<Vec<_>>>()?;
    let first = labels.first()?;
    if labels.iter().any(|it| it.length != first.length || it.fiscal != first.fiscal) {
        return None;
    }
    let rising = labels.windows(2).all(|pair| pair[0].start < pair[1].start);
    let falling = labels.windows(2).all(|pair| pair[0].start > pair[1].start);
    if !rising && !falling {
        return None;
    }
    let mut order: Vec<usize> = (0..table.rows.len()).collect();
    if falling {
        order.reverse();
    }
    let lines: Vec<Line> = columns
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(at, column)| {
            let column = (*column)?;
            if !matches!(column.ty, ColumnType::Int | ColumnType::Decimal) {
                return None;
            }
            let values: Vec<Option<f64>> = order
                .iter()
                .map(|&row| {
                    let raw = table.rows[row].get(at)?;
                    if !is_plain_number(raw) {
                        return None;
                    }
                    raw.parse::<f64>().ok().filter(|value| value.is_finite())
                })
                .collect();
            values.iter().any(Option::is_some).then(|| Line {
                column: column.name.clone(),
                money: column.unit == Some(Unit::Usd),
                values,
            })
        })
        .take(MAX_SERIES)
        .collect();
    if lines.is_empty() {
        return None;
    }
    Some(Series {
        period: period.name.clone(),
        periods: order.iter().map(|&row| table.rows[row][0].clone()).collect(),
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registry of one intent with the given `(name, type, unit)` columns.
    fn registry(columns_of: &[(&str, &str, Option<&str>)]) -> Registry {
        let columns: Vec<String> = columns_of
            .iter()
            .map(|(name, ty, unit)| match unit {
                Some(unit) => {
                    format!("{{ name = \"{name}\", type = \"{ty}\", unit = \"{unit}\" }}")
                }
                None => format!("{{ name = \"{name}\", type = \"{ty}\" }}"),
            })
            .collect();
        let selected: Vec<String> =
            columns_of.iter().map(|(name, _, _)| format!("s.{name}")).collect();
        let toml = format!(
            "[registry]\nnode_cap = 6\ndefault_k = 11\nscopes = []\nallowed_schemas = [\"shop\"]\n\n[planes]\nshop = {{ tenant = \
             false, schemas = [\"shop\"] }}\n\n[params]\n\n[[intent]]\nname = \"sales\"\ndescription = \
             \"Sales.\"\nkeywords = [\"sales\"]\nplane = \"shop\"\nparams = []\nsql = \"SELECT \
             {} FROM shop.sales AS s\"\ncolumns = [{}]\n",
            selected.join(", "),
            columns.join(", ")
        );
        Registry::from_toml(&toml, "view.toml").unwrap_or_else(|err| panic!("{err}\n{toml}"))
    }

    fn table(columns: &[&str], rows: &[&[&str]]) -> EvidenceTable {
        EvidenceTable {
            intent: "sales".to_owned(),
            columns: columns.iter().map(|it| (*it).to_owned()).collect(),
            rows: rows.iter().map(|row| row.iter().map(|it| (*it).to_owned()).collect()).collect(),
            suppressed_cells: 0,
            text: String::new(),
        }
    }

    #[test]
    fn money_and_numbers_are_written_as_the_text_writes_them() {
        let registry = registry(&[
            ("region", "text", None),
            ("orders", "int", None),
            ("fiscal_year", "int", None),
            ("share", "decimal", None),
            ("revenue", "decimal", Some("usd")),
            ("is_open", "bool", None),
        ]);
        let table = table(
            &["region", "orders", "fiscal_year", "share", "revenue", "is_open"],
            &[
                &["West", "12345", "2025", "96232.20", "4160091428.60", "true"],
                &["East", "fewer than 11", "2024", "-0.5", "-5", ""],
                &["North", "withheld", "2023", "7", "12.5", "false"],
            ],
        );
        let view = TableView::new(&registry, &table);
        assert_eq!(
            view.rows[0],
            ["West", "12,345", "2025", "96,232.20", "$4,160,091,428.60", "yes"]
        );
        assert_eq!(view.rows[1], ["East", "fewer than 11", "2024", "-0.5", "-$5.00", ""]);
        assert_eq!(view.rows[2], ["North", "withheld", "2023", "7", "$12.50", "no"]);
        assert_eq!(view.series, None, "a table of regions is no series");
    }

    #[test]
    fn a_table_of_months_is_a_series_of_its_numeric_columns() {
        let registry = registry(&[
            ("month", "text", None),
            ("title", "text", None),
            ("orders", "int", None),
            ("revenue", "decimal", Some("usd")),
        ]);
        // Latest first: the series turns it round.
        let table = table(
            &["month", "title", "orders", "revenue"],
            &[
                &["2025-03", "Mug", "5", "50.00"],
                &["2025-02", "Mug", "withheld", "20.00"],
                &["2025-01", "Mug", "2", "-10.00"],
            ],
        );
        let series = TableView::new(&registry, &table).series.unwrap();
        assert_eq!(series.period, "month");
        assert_eq!(series.periods, ["2025-01", "2025-02", "2025-03"]);
        let lines: Vec<(&str, bool)> =
            series.lines.iter().map(|it| (it.column.as_str(), it.money)).collect();
        assert_eq!(lines, [("orders", false), ("revenue", true)]);
        assert_eq!(series.lines[0].values, [Some(2.0), None, Some(5.0)]);
        assert_eq!(series.lines[1].values, [Some(-10.0), Some(20.0), Some(50.0)]);
        assert_eq!(series.lines[1].show("1500000"), "$1,500,000.00");
        assert_eq!(series.lines[0].show("-2500.5"), "-2,500.5");
    }

    #[test]
    fn what_is_not_a_series() {
        let registry = registry(&[("month", "text", None), ("orders", "int", None)]);
        let cases: &[&[&[&str]]] = &[
            // One row.
            &[&["2025-01", "3"]],
            // No rows.
            &[],
            // A period repeated (two upstream values' rows).
            &[&["2025-01", "3"], &["2025-01", "4"]],
            // Out of order.
            &[&["2025-01", "3"], &["2025-03", "4"], &["2025-02", "4"]],
            // Months and quarters mixed.
            &[&["2025-01", "3"], &["2025 Q2", "4"]],
            // Labels that are not periods.
            &[&["West", "3"], &["East", "4"]],
            // No figure at all.
            &[&["2025-01", "withheld"], &["2025-02", ""]],
        ];
        for rows in cases {
            let view = TableView::new(&registry, &table(&["month", "orders"], rows));
            assert_eq!(view.series, None, "{rows:?}");
        }
        // A series needs a numeric column besides the period.
        let registry = registry_of_text();
        let view = TableView::new(
            &registry,
            &table(&["month", "note"], &[&["2025-01", "a"], &["2025-02", "b"]]),
        );
        assert_eq!(view.series, None);
    }

    fn registry_of_text() -> Registry {
        registry(&[("month", "text", None), ("note", "text", None)])
    }

    #[test]
    fn dates_and_quarters_are_periods_and_lines_are_capped() {
        let registry = registry(&[
            ("sold_on", "date", None),
            ("a", "int", None),
            ("b", "int", None),
            ("c", "int", None),
            ("d", "int", None),
            ("e", "int", None),
        ]);
        let view = TableView::new(
            &registry,
            &table(
                &["sold_on", "a", "b", "c", "d", "e"],
                &[
                    &["2025-01-30", "1", "2", "3", "4", "5"],
                    &["2025-01-31", "1", "2", "3", "4", "5"],
                ],
            ),
        );
        assert_eq!(view.series.unwrap().lines.len(), MAX_SERIES);
        let registry = registry_quarters();
        let view = TableView::new(
            &registry,
            &table(&["fiscal_quarter", "awards"], &[&["FY2024 Q4", "56"], &["FY2025 Q1", "51"]]),
        );
        assert_eq!(view.series.unwrap().periods, ["FY2024 Q4", "FY2025 Q1"]);
    }

    fn registry_quarters() -> Registry {
        registry(&[("fiscal_quarter", "text", None), ("awards", "int", None)])
    }
}
