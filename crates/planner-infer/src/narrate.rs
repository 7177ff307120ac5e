//! Narrators: turn evidence into prose. The template narrator is deterministic and is also the
//! rendering that ships when a narration fails the gate; the model narrator asks a model.

use std::fmt::Write as _;

use crate::evidence::{Cell, Evidence};
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

/// The deterministic narrator: one line per table and one per row, every value copied from the
/// evidence as is, suppressed counts written as withheld. Its output always passes the gate.
#[derive(Debug, Clone, Copy, Default)]
pub struct TemplateNarrator;

impl TemplateNarrator {
    /// Renders `evidence` (the same text [`Narrator::narrate`] returns).
    pub fn render(evidence: &Evidence) -> String {
        let mut out = String::new();
        for table in &evidence.tables {
            let rows = table.rows.len();
            let _ = writeln!(
                out,
                "{} ({rows} {}):",
                table.intent.replace('_', " "),
                if rows == 1 { "row" } else { "rows" }
            );
            if rows == 0 {
                let _ = writeln!(out, "- no rows");
            }
            for row in &table.rows {
                out.push_str("- ");
                for (position, cell) in row.iter().enumerate() {
                    if position > 0 {
                        out.push_str("; ");
                    }
                    let column = table.columns.get(position).map_or("value", String::as_str);
                    out.push_str(&column.replace('_', " "));
                    out.push_str(": ");
                    match cell {
                        Cell::Null => out.push_str("none"),
                        Cell::Bool(value) => out.push_str(if *value { "yes" } else { "no" }),
                        Cell::Int(value) => {
                            let _ = write!(out, "{value}");
                        }
                        Cell::Decimal(text) | Cell::Date(text) | Cell::Text(text) => {
                            out.push_str(text)
                        }
                        Cell::Suppressed { k } => {
                            let _ = write!(out, "withheld (fewer than {k})");
                        }
                    }
                }
                out.push('\n');
            }
        }
        if evidence.tables.is_empty() {
            out.push_str("no evidence\n");
        }
        out
    }
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
const NARRATOR_RULES: &str = "You answer a question about federal contracting using only the \
    evidence given. State only facts, numbers, dates and names that appear in the evidence, \
    copied exactly. A count shown as withheld must be reported as withheld: never guess or \
    estimate it. Never score, rank or compare individual people or candidates. Be brief: at \
    most five sentences, plain text.";

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
            let user = format!(
                "Question: {question}\n\nEvidence:\n{}",
                TemplateNarrator::render(evidence)
            );
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
