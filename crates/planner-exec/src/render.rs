//! Deterministic rendering of a result as plain text or a Markdown table.
//!
//! Byte-stable: the same table always renders to the same bytes. Numbers get thousands
//! separators (decimals keep their scale, so money shows cents), dates are ISO 8601, a suppressed
//! count reads "fewer than k" and a complementary-suppressed one "withheld".

use std::fmt::Write as _;

use rust_decimal::Decimal;

use crate::table::{Cell, ResultTable};

/// What an empty result renders as, below its header.
const NO_ROWS: &str = "(no rows)";

/// Renders `table` as aligned plain text: a header, a rule, then one line per row. Numbers are
/// right-aligned.
pub fn render_text(table: &ResultTable) -> String {
    let header: Vec<String> = table.columns.iter().map(|column| column.name.clone()).collect();
    let body: Vec<Vec<String>> =
        table.rows.iter().map(|row| row.iter().map(format_cell).collect()).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|index| {
            body.iter()
                .map(|row| width(&row[index]))
                .chain([width(&header[index])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let right: Vec<bool> = table.columns.iter().map(|column| column.ty.is_numeric()).collect();

    let mut out = String::new();
    push_line(&mut out, &header, &widths, &right);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    push_line(&mut out, &rule, &widths, &right);
    for row in &body {
        push_line(&mut out, row, &widths, &right);
    }
    if body.is_empty() {
        out.push_str(NO_ROWS);
        out.push('\n');
    }
    out
}

/// Renders `table` as a Markdown (GFM) table; numeric columns are right-aligned.
pub fn render_markdown(table: &ResultTable) -> String {
    let mut out = String::new();
    out.push('|');
    for column in &table.columns {
        let _ = write!(out, " {} |", escape_markdown(&column.name));
    }
    out.push_str("\n|");
    for column in &table.columns {
        out.push_str(if column.ty.is_numeric() { " ---: |" } else { " --- |" });
    }
    out.push('\n');
    for row in &table.rows {
        out.push('|');
        for cell in row {
            let _ = write!(out, " {} |", escape_markdown(&format_cell(cell)));
        }
        out.push('\n');
    }
    if table.rows.is_empty() {
        out.push('\n');
        out.push_str(NO_ROWS);
        out.push('\n');
    }
    out
}

fn push_line(out: &mut String, cells: &[String], widths: &[usize], right: &[bool]) {
    let mut line = String::new();
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            line.push_str("  ");
        }
        let pad = " ".repeat(widths[index].saturating_sub(width(cell)));
        if right[index] {
            line.push_str(&pad);
            line.push_str(cell);
        } else {
            line.push_str(cell);
            line.push_str(&pad);
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

fn width(text: &str) -> usize {
    text.chars().count()
}

fn escape_markdown(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// One cell as text.
pub(crate) fn format_cell(cell: &Cell) -> String {
    match cell {
        Cell::Null => "-".to_owned(),
        Cell::Text(text) => text.clone(),
        Cell::Int(value) => group_thousands(&value.to_string()),
        Cell::Decimal(value) => format_decimal(*value),
        Cell::Date(date) => date.format("%Y-%m-%d").to_string(),
        Cell::Timestamp(at) => at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Cell::Bool(value) => if *value { "yes" } else { "no" }.to_owned(),
        Cell::Uuid(id) => id.hyphenated().to_string(),
        Cell::TextList(items) => items.join(", "),
        Cell::Suppressed { k } => format!("fewer than {k}"),
        Cell::Withheld => "withheld".to_owned(),
    }
}

fn format_decimal(value: Decimal) -> String {
    let text = value.to_string();
    match text.split_once('.') {
        Some((whole, fraction)) => format!("{}.{fraction}", group_thousands(whole)),
        None => group_thousands(&text),
    }
}

/// `-1234567` → `-1,234,567`.
fn group_thousands(digits: &str) -> String {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits),
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    out.push_str(sign);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests;
