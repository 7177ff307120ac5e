//! Narrators: turn evidence into prose. The template narrator is deterministic and is also the
//! rendering that ships when a narration fails the gate; the model narrator asks a model.

use std::fmt::Write as _;

use planner_registry::{DurationUnit, WindowDirection};

use crate::evidence::{Cell, Evidence, EvidenceTable, Window};
use crate::openai::{ChatReply, Constraint, ModelClient};
use crate::{BoxFuture, Error, Result};

/// Something that writes an answer from evidence. Object-safe, like [`crate::Proposer`].
pub trait Narrator: Send + Sync + std::fmt::Debug {
    /// Writes the answer to `question` from `evidence`.
    fn narrate<'a>(
        &'a self,
        question: &'a str,
        evidence: &'a Evidence,
    ) -> BoxFuture<'a, Result<String>>;
}

/// The deterministic narrator. For each table: a sentence naming it, the values that scoped it
/// ("for region west, period 2025-01-01 to 2025-03-31"), the window of months its rows
/// cover and its row count; a sentence naming every cell withheld by small-cell suppression;
/// then its first rows as sentences, each led by its label (the value of the table's first text
/// column that is not an identifier: not a column of UEIs, SKUs or codes), then its other text cells with their
/// columns, then its figures (money with the currency sign and thousands separators, other
/// numbers with thousands separators as the table writes them, dates as dates), the rest left
/// to the table. Then a sentence for each plan node that did not contribute, with its reason.
/// Every value is copied from the evidence, nothing is computed, and no dash punctuation is
/// written: its output always passes the gate.
#[derive(Debug, Clone, Copy, Default)]
pub struct TemplateNarrator;

/// The rows of a table stated in sentences; the table shows the rest.
const ROWS_STATED: usize = 5;

impl TemplateNarrator {
    /// Renders `evidence` (the same text [`Narrator::narrate`] returns).
    pub fn render(evidence: &Evidence) -> String {
        render_rows(evidence, ROWS_STATED)
    }

    /// The sentences naming the plan nodes that did not contribute, and why (empty when none
    /// was dropped). [`TemplateNarrator::render`] ends with them; the engine appends them to a
    /// model narration that passed the gate.
    pub fn render_dropped(evidence: &Evidence) -> String {
        let mut out = String::new();
        for dropped in &evidence.dropped {
            let _ = writeln!(out, "{} was not answered: {}.", dropped.intent, dropped.reason);
        }
        out
    }
}

/// The template narration stating up to `rows` rows of each table.
fn render_rows(evidence: &Evidence, rows: usize) -> String {
    let mut paragraphs: Vec<String> =
        evidence.tables.iter().map(|table| table_paragraph(table, rows)).collect();
    let notes = TemplateNarrator::render_dropped(evidence);
    if !notes.is_empty() {
        paragraphs.push(notes);
    }
    if paragraphs.is_empty() {
        return "No evidence was returned.\n".to_owned();
    }
    // Each paragraph ends its last line; a blank line divides them.
    paragraphs.join("\n")
}

/// A column or intent name as words: `_` as spaces, and the codes the reference domain writes as
/// acronyms in capitals (`naics`, `uei`, `piid`).
fn words(name: &str) -> String {
    name.split('_')
        .map(|word| match word {
            "naics" | "uei" | "piid" => word.to_ascii_uppercase(),
            _ => word.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The name of an intent as a sentence opens with it: `top_incumbents` is "Top incumbents".
fn title(intent: &str) -> String {
    let words = words(intent);
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "The result".to_owned(),
    }
}

fn window_phrase(window: &Window) -> String {
    let length = window.length;
    let unit = match (window.unit, length) {
        (DurationUnit::Month, 1) => "month",
        (DurationUnit::Month, _) => "months",
        (DurationUnit::Day, 1) => "day",
        (DurationUnit::Day, _) => "days",
    };
    match (&window.as_of, window.direction) {
        (Some(date), WindowDirection::Past) => format!(" over the {length} {unit} to {date}"),
        (Some(date), WindowDirection::Ahead) => format!(" in the {length} {unit} from {date}"),
        (None, WindowDirection::Past) => format!(" over the last {length} {unit}"),
        (None, WindowDirection::Ahead) => format!(" in the next {length} {unit}"),
    }
}

/// Ends `sentence` with a full stop unless it already ends with one.
fn end_sentence(out: &mut String) {
    if !out.ends_with('.') {
        out.push('.');
    }
    out.push('\n');
}

/// Whether `text` is one word that names no period (`TTP4GAUL56CU`, `CF-1001`, `now`; not
/// `within 1 month`, `2025-03` nor `FY2025 Q1`): the shape of a code.
fn is_one_word(text: &str) -> bool {
    !text.is_empty()
        && !text.chars().any(char::is_whitespace)
        && planner_registry::period_label(text).is_none()
}

/// The column whose value leads each row of `table`: the first text column (every cell that is
/// neither null nor withheld is text, and one is) that is not an identifier column. An identifier column is
/// named `id` or `..._id`, or holds codes: each of its cells is one word naming no period, and
/// one of them holds a digit (UEIs, PIIDs, SKUs, NAICS codes, UUIDs; a column of words such as
/// `now` or `secret` is labels). `None` when no column qualifies.
pub(crate) fn label_column(table: &EvidenceTable) -> Option<usize> {
    (0..table.columns.len()).find(|&position| {
        let name = table.columns[position].as_str();
        let cells = || table.rows.iter().filter_map(|row| row.get(position));
        let texts = || {
            cells().filter_map(|cell| match cell {
                Cell::Text(text) => Some(text.as_str()),
                _ => None,
            })
        };
        // A withheld cell says nothing of what its column holds.
        let text = texts().next().is_some()
            && cells()
                .all(|cell| matches!(cell, Cell::Null | Cell::Text(_) | Cell::Suppressed { .. }));
        let identifier = name == "id"
            || name.ends_with("_id")
            || (texts().all(is_one_word)
                && texts().any(|text| text.bytes().any(|byte| byte.is_ascii_digit())));
        text && !identifier
    })
}

/// The values that scoped a table, as words after its name: " for region west, period
/// 2025-01-01 to 2025-03-31" (empty when there are none). Each value follows its param's name
/// and a comma divides them, never "and": the gate reads capitalised words joined by "and" as
/// one name ("Department of the Army and NAICS").
fn scope_phrase(table: &EvidenceTable) -> String {
    let bounds: Vec<String> = table
        .scope
        .iter()
        .map(|bound| format!("{} {}", words(&bound.param), bound.value))
        .collect();
    if bounds.is_empty() { String::new() } else { format!(" for {}", bounds.join(", ")) }
}

fn table_paragraph(table: &EvidenceTable, stated: usize) -> String {
    let column = |position: usize| {
        table.columns.get(position).map_or_else(|| "value".to_owned(), |it| words(it))
    };
    let mut out = title(&table.intent);
    out.push_str(&scope_phrase(table));
    if let Some(window) = &table.window {
        out.push_str(&window_phrase(window));
    }
    match table.rows.len() {
        0 => out.push_str(": no rows"),
        1 => out.push_str(": 1 row"),
        rows => {
            let _ = write!(out, ": {rows} rows");
        }
    }
    end_sentence(&mut out);
    // Every suppressed cell, by its column and its row's label; by all its row's text cells
    // where another row has the same label ("role is busser, employment is part_time").
    let labels: Vec<Option<(String, String)>> =
        table.rows.iter().map(|row| row_label(table, row)).collect();
    let withheld: Vec<String> = table
        .rows
        .iter()
        .zip(&labels)
        .flat_map(|(row, label)| {
            let shared = label.is_some() && labels.iter().filter(|it| *it == label).count() > 1;
            let label = if shared { row_labels(table, row) } else { label.clone() };
            row.iter().enumerate().filter_map(move |(position, cell)| match cell {
                Cell::Suppressed { k } => Some(match &label {
                    Some((label_column, label)) => format!(
                        "{} where {label_column} is {label} (fewer than {k})",
                        column(position)
                    ),
                    None => format!("{} (fewer than {k})", column(position)),
                }),
                _ => None,
            })
        })
        .collect();
    if !withheld.is_empty() {
        // No count of them beside the list: a figure in the words before the colon would sit in
        // the same part of the sentence as any column whose name is one of those words (`count`,
        // `is`), which the gate reads as a claim about the withheld cell.
        let _ = write!(out, "Withheld by small cell suppression: {}", withheld.join("; "));
        end_sentence(&mut out);
    }
    // Where a withheld cell's row has no label, the gate reads any figure stated beside its
    // column's name as a claim about it: each figure is then set apart from its name.
    let apart = table.rows.iter().any(|row| {
        row.iter().any(|cell| matches!(cell, Cell::Suppressed { .. }))
            && !row.iter().any(|cell| matches!(cell, Cell::Text(_)))
    });
    // A row whose every figure is withheld was named above.
    let named = |row: &&Vec<Cell>| {
        let mut figures = row.iter().filter(|cell| !matches!(cell, Cell::Text(_)));
        let first = figures.next();
        matches!(first, Some(Cell::Suppressed { .. }))
            && figures.all(|cell| matches!(cell, Cell::Suppressed { .. }))
    };
    let label = label_column(table);
    for row in table.rows.iter().filter(|row| !named(row)).take(stated) {
        out.push_str(&row_sentence(table, row, label, apart));
        end_sentence(&mut out);
    }
    if table.rows.iter().filter(|row| !named(row)).count() > stated {
        out.push_str("The table below lists every row.\n");
    }
    out
}

/// The first text cell of a row, as `(column, value)`: how a withheld cell is named.
fn row_label(table: &EvidenceTable, row: &[Cell]) -> Option<(String, String)> {
    row.iter().enumerate().find_map(|(position, cell)| match cell {
        Cell::Text(text) => {
            Some((words(table.columns.get(position).map_or("label", String::as_str)), text.clone()))
        }
        _ => None,
    })
}

/// [`row_label`] of every text cell of `row`: the first column's name, then its value and the
/// other text cells, each with its column ("role", "busser, employment is part_time").
fn row_labels(table: &EvidenceTable, row: &[Cell]) -> Option<(String, String)> {
    let mut texts = row.iter().enumerate().filter_map(|(position, cell)| match cell {
        Cell::Text(text) => {
            Some((words(table.columns.get(position).map_or("label", String::as_str)), text))
        }
        _ => None,
    });
    let (first_column, first) = texts.next()?;
    let mut value = first.clone();
    for (column, text) in texts {
        let _ = write!(value, ", {column} is {text}");
    }
    Some((first_column, value))
}

/// One row: its subject (the value of the label column, `label`; else its text cells with their
/// columns), then every other cell with its column. Cells are divided by semicolons, so that a
/// clause naming a withheld cell holds no other figure (the gate's suppression rule reads such
/// parts); `apart` sets each figure apart from its column's name with a colon.
fn row_sentence(table: &EvidenceTable, row: &[Cell], label: Option<usize>, apart: bool) -> String {
    let column = |position: usize| {
        table.columns.get(position).map_or_else(|| "value".to_owned(), |it| words(it))
    };
    let subject = label.filter(|&position| matches!(row.get(position), Some(Cell::Text(_))));
    let mut out = String::new();
    let mut labels = Vec::new();
    let mut figures = Vec::new();
    for (position, cell) in row.iter().enumerate() {
        if Some(position) == subject {
            continue;
        }
        let value = cell_text(cell, table.columns.get(position).map_or("", String::as_str));
        // A column written in capitals (`UEI`) before a capitalised value would read as one
        // name with it ("UEI Acme Corp"): a colon sets them apart.
        let joins_name = matches!(cell, Cell::Text(_))
            && column(position).chars().any(|c| c.is_ascii_uppercase())
            && {
                let mut letters = value.chars();
                letters.next().is_some_and(char::is_uppercase)
                    && letters.next().is_some_and(char::is_lowercase)
            };
        let pair = if (apart && !matches!(cell, Cell::Text(_))) || joins_name {
            format!("{}: {value}", column(position))
        } else {
            format!("{} {value}", column(position))
        };
        if matches!(cell, Cell::Text(_)) { labels.push(pair) } else { figures.push(pair) }
    }
    match subject.and_then(|position| row.get(position)) {
        Some(Cell::Text(name)) => {
            out.push_str(name);
            if !labels.is_empty() {
                let _ = write!(out, " ({})", labels.join("; "));
            }
        }
        _ => out.push_str(&labels.join("; ")),
    }
    if !figures.is_empty() {
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&figures.join("; "));
    }
    if out.is_empty() {
        out.push_str("an empty row");
    }
    out
}

/// A cell of `column` as the answer shows it to a reader: numbers with thousands separators, as
/// the table writes them (`96,232.2`), but a year as a year (`fiscal_year 2025`), money in
/// dollars (`$4,160,091,428.60`), a withheld count as withheld. The one formatter of figures:
/// the template narration states cells with it, and the server's page shows its tables' cells
/// and its charts' axes with it (through `planner_engine::TableView`).
pub fn cell_text(cell: &Cell, column: &str) -> String {
    match cell {
        Cell::Null => "none".to_owned(),
        Cell::Bool(value) => if *value { "yes" } else { "no" }.to_owned(),
        Cell::Int(value) if column == "year" || column.ends_with("_year") => value.to_string(),
        Cell::Int(value) => grouped(&value.to_string()),
        Cell::Money(amount) => money(amount),
        Cell::Decimal(text) => grouped(text),
        Cell::Date(text) | Cell::Text(text) => text.clone(),
        Cell::Suppressed { k } => format!("withheld (fewer than {k})"),
    }
}

/// A number in plain notation with its whole part in groups of three (`-1234567.5` is
/// `-1,234,567.5`); text that is not a plain decimal is returned as it is.
fn grouped(number: &str) -> String {
    let (sign, digits) = match number.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", number),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    if whole.is_empty()
        || !whole.bytes().all(|byte| byte.is_ascii_digit())
        || !fraction.unwrap_or("").bytes().all(|byte| byte.is_ascii_digit())
    {
        return number.to_owned();
    }
    let mut out = String::with_capacity(number.len() + whole.len() / 3);
    out.push_str(sign);
    for (position, digit) in whole.chars().enumerate() {
        if position > 0 && (whole.len() - position) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

/// An amount of US dollars in plain notation as `$1,234,567.80` (at least two decimal places,
/// more when the amount has them; `-$5.00` below zero). Text that is not a plain decimal is
/// returned as it is.
pub(crate) fn money(amount: &str) -> String {
    let (negative, digits) = match amount.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, amount),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || !whole.bytes().all(|byte| byte.is_ascii_digit())
        || !fraction.bytes().all(|byte| byte.is_ascii_digit())
    {
        return amount.to_owned();
    }
    let mut out = String::with_capacity(amount.len() + whole.len() / 3 + 4);
    if negative {
        out.push('-');
    }
    out.push('$');
    for (position, digit) in whole.chars().enumerate() {
        if position > 0 && (whole.len() - position) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out.push('.');
    out.push_str(fraction);
    for _ in fraction.len()..2 {
        out.push('0');
    }
    out
}

impl Narrator for TemplateNarrator {
    fn narrate<'a>(
        &'a self,
        _question: &'a str,
        evidence: &'a Evidence,
    ) -> BoxFuture<'a, Result<String>> {
        Box::pin(std::future::ready(Ok(TemplateNarrator::render(evidence))))
    }
}

/// The instructions every model narration is written under.
pub(crate) const NARRATOR_RULES: &str = "You answer a question about federal contracting using \
    only the evidence given. State only facts, numbers, dates and names that appear in the \
    evidence, copied exactly; money may be written with its dollar sign and thousands \
    separators. Say which window of months each figure covers when the evidence gives one. A \
    count shown as withheld must be reported as withheld: never guess or estimate it. Never \
    score, rank or compare individual people or candidates. Write plain sentences: no dash \
    punctuation (no em dash, no en dash, no hyphen between spaces, no bullets), no markdown. \
    Be brief: at most five sentences.";

/// Asks a model to write the answer from the evidence. Its output must still pass the gate.
#[derive(Debug)]
pub struct ModelNarrator {
    client: ModelClient,
}

impl ModelNarrator {
    /// A narrator calling through `client` (temperature 0).
    pub fn new(client: ModelClient) -> ModelNarrator {
        ModelNarrator { client }
    }
}

impl Narrator for ModelNarrator {
    fn narrate<'a>(
        &'a self,
        question: &'a str,
        evidence: &'a Evidence,
    ) -> BoxFuture<'a, Result<String>> {
        Box::pin(async move {
            // Every row, so that the model may pick what answers the question.
            let user =
                format!("Question: {question}\n\nEvidence:\n{}", render_rows(evidence, usize::MAX));
            match self
                .client
                .chat(&[("system", NARRATOR_RULES), ("user", &user)], Constraint::None, 0.0)
                .await?
            {
                ChatReply::Contents(contents) => {
                    let text = contents.into_iter().next().unwrap_or_default();
                    if text.trim().is_empty() {
                        return Err(Error::UnusableReply("empty narration".to_owned()));
                    }
                    Ok(text.trim().to_owned())
                }
                ChatReply::Unusable(reason) => Err(Error::UnusableReply(reason)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_told_in_its_own_unit() {
        let window = |length, unit, direction, as_of: Option<&str>| Window {
            length,
            unit,
            direction,
            as_of: as_of.map(str::to_owned),
        };
        let cases = [
            (
                window(36, DurationUnit::Month, WindowDirection::Past, Some("2026-07-01")),
                " over the 36 months to 2026-07-01",
            ),
            (window(1, DurationUnit::Month, WindowDirection::Ahead, None), " in the next 1 month"),
            (
                window(14, DurationUnit::Day, WindowDirection::Past, Some("2025-12-31")),
                " over the 14 days to 2025-12-31",
            ),
            (window(1, DurationUnit::Day, WindowDirection::Past, None), " over the last 1 day"),
        ];
        for (window, phrase) in cases {
            assert_eq!(window_phrase(&window), phrase);
        }
    }

    fn text(value: &str) -> Cell {
        Cell::Text(value.to_owned())
    }

    fn table(columns: &[&str], rows: Vec<Vec<Cell>>) -> EvidenceTable {
        EvidenceTable {
            intent: "spend_by_quarter".to_owned(),
            columns: columns.iter().map(|it| (*it).to_owned()).collect(),
            rows,
            ..EvidenceTable::default()
        }
    }

    #[test]
    fn a_withheld_cell_names_its_row_by_every_text_cell_where_its_label_repeats() {
        let staff = table(
            &["role", "employment", "employees"],
            vec![
                vec![text("busser"), text("full_time"), Cell::Suppressed { k: 5 }],
                vec![text("busser"), text("part_time"), Cell::Suppressed { k: 5 }],
                vec![text("server"), text("full_time"), Cell::Int(12)],
            ],
        );
        let paragraph = table_paragraph(&staff, 5);
        for said in [
            "employees where role is busser, employment is full_time (fewer than 5)",
            "employees where role is busser, employment is part_time (fewer than 5)",
        ] {
            assert!(paragraph.contains(said), "{paragraph}");
        }
    }

    #[test]
    fn rows_are_led_by_the_first_text_column_that_is_not_an_identifier() {
        // A code, then a label: the label leads, the code follows in brackets.
        let products = table(
            &["sku", "title", "units"],
            vec![
                vec![text("CF-1001"), text("House blend"), Cell::Int(1200)],
                vec![text("CF-1002"), text("Decaf"), Cell::Int(80)],
            ],
        );
        assert_eq!(label_column(&products), Some(1));
        let paragraph = table_paragraph(&products, 5);
        assert!(paragraph.contains("\nHouse blend (sku CF-1001): units 1,200.\n"), "{paragraph}");
        // A period leads its row by itself, not after its column's name.
        let quarters = table(
            &["fiscal_quarter", "awards"],
            vec![vec![text("FY2025 Q1"), Cell::Int(51)], vec![text("FY2025 Q2"), Cell::Int(55)]],
        );
        assert_eq!(label_column(&quarters), Some(0));
        assert!(table_paragraph(&quarters, 5).contains("\nFY2025 Q1: awards 51.\n"));
        let months = table(&["month", "orders"], vec![vec![text("2025-03"), Cell::Int(5)]]);
        assert_eq!(label_column(&months), Some(0));
        // A column of codes is one of identifiers even where a code has no digit; a column of
        // one-word labels without digits is labels.
        let vendors = table(
            &["uei", "name", "clearance"],
            vec![
                vec![text("ABCDEFGHJKLM"), text("Apex LLC"), text("secret")],
                vec![text("TTP4GAUL56CU"), text("Juniper Inc."), text("top_secret")],
            ],
        );
        assert_eq!(label_column(&vendors), Some(1));
        let levels = table(&["clearance", "n"], vec![vec![text("secret"), Cell::Int(5)]]);
        assert_eq!(label_column(&levels), Some(0));
        // Identifiers by name or by their values lead nothing; numbers are not text.
        let ids = table(
            &["order_id", "uei", "naics", "amount"],
            vec![vec![text("ORDER 7"), text("TTP4GAUL56CU"), text("541512"), Cell::Int(3)]],
        );
        assert_eq!(label_column(&ids), None);
        let paragraph = table_paragraph(&ids, 5);
        assert!(
            paragraph.contains("\norder id ORDER 7; UEI TTP4GAUL56CU; NAICS 541512: amount 3.\n"),
            "{paragraph}"
        );
        // A column of nulls and text is text; a column with a figure is not.
        let sparse = table(
            &["note", "name"],
            vec![vec![Cell::Int(1), text("Ann Co")], vec![Cell::Null, text("Bo Co")]],
        );
        assert_eq!(label_column(&sparse), Some(1));
        assert_eq!(label_column(&table(&["name"], Vec::new())), None);
    }

    #[test]
    fn a_table_says_the_values_that_scoped_it() {
        let bound = |param: &str, value: &str| crate::evidence::Bound {
            param: param.to_owned(),
            value: value.to_owned(),
        };
        let mut spend = table(&["quarter", "spend"], vec![vec![text("2025 Q1"), Cell::Int(1)]]);
        assert!(table_paragraph(&spend, 5).starts_with("Spend by quarter: 1 row.\n"));
        spend.scope = vec![bound("hub", "ORD")];
        assert!(table_paragraph(&spend, 5).starts_with("Spend by quarter for hub ORD: 1 row.\n"));
        spend.scope = vec![bound("agency", "Department of the Army"), bound("naics", "541512")];
        let evidence = Evidence { tables: vec![spend.clone()], ..Evidence::default() };
        let text = TemplateNarrator::render(&evidence);
        assert!(
            text.starts_with("Spend by quarter for agency Department of the Army, NAICS 541512: ")
        );
        let verdict = crate::check_faithfulness(&text, &evidence, &crate::GateConfig::reference());
        assert!(verdict.passed(), "{text}\n{:?}", verdict.misses);
        spend.scope = vec![
            bound("hub", "ORD"),
            bound("naics", "541512"),
            bound("period", "2025-01-01 to 2025-03-31"),
        ];
        spend.window = Some(Window {
            length: 3,
            unit: DurationUnit::Month,
            direction: WindowDirection::Past,
            as_of: Some("2025-03-31".to_owned()),
        });
        let paragraph = table_paragraph(&spend, 5);
        assert!(
            paragraph.starts_with(
                "Spend by quarter for hub ORD, NAICS 541512, period 2025-01-01 to 2025-03-31 \
                 over the 3 months to 2025-03-31: 1 row.\n"
            ),
            "{paragraph}"
        );
        // The gate finds every value of the scope in the evidence.
        let evidence = Evidence { tables: vec![spend], ..Evidence::default() };
        let text = TemplateNarrator::render(&evidence);
        let verdict = crate::check_faithfulness(&text, &evidence, &crate::GateConfig::reference());
        assert!(verdict.passed(), "{text}\n{:?}", verdict.misses);
    }

    #[test]
    fn numbers_are_grouped_as_the_table_writes_them_but_years_are_not() {
        let cases = [
            (Cell::Decimal("96232.2".into()), "volume", "96,232.2"),
            (Cell::Decimal("-1234567.50".into()), "delta", "-1,234,567.50"),
            (Cell::Decimal("0.25".into()), "share", "0.25"),
            (Cell::Int(1_000), "shipments", "1,000"),
            (Cell::Int(-999), "change", "-999"),
            (Cell::Int(2025), "fiscal_year", "2025"),
            (Cell::Int(2025), "year", "2025"),
            (Cell::Decimal("NaN".into()), "x", "NaN"),
        ];
        for (cell, column, text) in cases {
            assert_eq!(cell_text(&cell, column), text, "{cell:?}");
        }
    }
}
