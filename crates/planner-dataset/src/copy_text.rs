//! Rows in PostgreSQL's COPY text format. Generated values never contain tabs, newlines or
//! backslashes, so no escaping is needed; `\N` is NULL.

use chrono::NaiveDate;

/// The COPY text spelling of NULL.
pub(crate) const NULL: &str = "\\N";

/// Appends one tab-separated row.
pub(crate) fn push_row(out: &mut String, fields: &[&str]) {
    for (index, field) in fields.iter().enumerate() {
        if index > 0 {
            out.push('\t');
        }
        out.push_str(field);
    }
    out.push('\n');
}

/// Cents as a `numeric` literal.
pub(crate) fn cents(value: i64) -> String {
    format!("{}.{:02}", value / 100, value % 100)
}

/// An ISO date.
pub(crate) fn date(day: NaiveDate) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// A `text[]` literal of plain words.
pub(crate) fn text_array(items: &[&str]) -> String {
    let mut out = String::from("{");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(item);
        out.push('"');
    }
    out.push('}');
    out
}
