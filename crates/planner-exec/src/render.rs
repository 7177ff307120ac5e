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
    let header: Vec<&str> = table.columns.iter().map(|column| column.name.as_str()).collect();
    let body: Vec<Vec<String>> =
        table.rows.iter().map(|row| row.iter().map(format_cell).collect()).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|index| {
            body.iter()
                .map(|row| width(&row[index]))
                .chain([width(header[index])])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let right: Vec<bool> = table.columns.iter().map(|column| column.ty.is_numeric()).collect();

    // Each line is written in place: the cells padded to their widths, two spaces between
    // them, and the line's trailing whitespace trimmed.
    let line_width = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1) + 1;
    let mut out = String::with_capacity(line_width * (body.len().max(1) + 2));
    push_line(&mut out, header.iter().copied(), &widths, &right);
    // The rule: each column's width in dashes (nothing to pad).
    let start = out.len();
    for (index, &w) in widths.iter().enumerate() {
        if index > 0 {
            out.push_str("  ");
        }
        out.extend(std::iter::repeat_n('-', w));
    }
    end_line(&mut out, start);
    for row in &body {
        push_line(&mut out, row.iter().map(String::as_str), &widths, &right);
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

fn push_line<'a>(
    out: &mut String,
    cells: impl Iterator<Item = &'a str>,
    widths: &[usize],
    right: &[bool],
) {
    let start = out.len();
    for (index, cell) in cells.enumerate() {
        if index > 0 {
            out.push_str("  ");
        }
        let pad = widths[index].saturating_sub(width(cell));
        if right[index] {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(cell);
        } else {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', pad));
        }
    }
    end_line(out, start);
}

/// Ends the line that begins at byte `start` of `out`: its trailing whitespace goes, a newline
/// follows.
fn end_line(out: &mut String, start: usize) {
    let kept = out[start..].trim_end().len();
    out.truncate(start + kept);
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
        Cell::LocalTimestamp(at) => at.format("%Y-%m-%dT%H:%M:%S").to_string(),
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
