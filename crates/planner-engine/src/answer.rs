//! The answer: what the engine returns for a question, serialisable for `--json` and HTTP.
//! Everything but `timings` is byte-stable for the same question over the same data.

use planner_exec::{Cell, ResultTable};
use planner_grammar::{PlanTrace, PlanView};
use serde::{Deserialize, Serialize};

use crate::planning::{ProposerFailure, Route};

/// The outcome of asking or resuming.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Outcome {
    /// A final answer (including refusals and unplannable questions).
    Answered(Box<Answer>),
    /// The planner needs a value from the user: resume the thread with the answer.
    NeedsInput(NeedsInput),
}

/// A question for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NeedsInput {
    /// The thread to resume.
    pub thread_id: String,
    /// The question for the user.
    pub question: String,
    /// The params asked for.
    pub missing: Vec<String>,
    /// Values the user may pick (the candidates of an ambiguous param).
    pub suggestions: Vec<String>,
}

/// Whether the answer's text is a checked narration or the deterministic rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TextSource {
    /// A narration that passed the faithfulness gate.
    Narrated,
    /// The deterministic rendering of the evidence (also for refusals and unplannable
    /// questions).
    Deterministic,
}

/// A final answer.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Answer {
    /// The route.
    pub route: Route,
    /// The answer's text.
    pub text: String,
    /// Where the text comes from.
    pub text_source: TextSource,
    /// Routes `single` and `plan`: qualifiers the question asks for that the registry cannot
    /// apply, each named with what the plan does instead (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unapplied: Vec<String>,
    /// Routes `single` and `plan`: the asks of the question no planned intent answers, as the
    /// question words them (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
    /// The plan that ran.
    pub plan: PlanView,
    /// One evidence table per node that ran, in plan order.
    pub evidence: Vec<EvidenceTable>,
    /// Cells hidden by small-cell suppression, over all tables.
    pub suppressed_cells: usize,
    /// Nodes dropped at planning or at run time, with reasons.
    pub dropped: Vec<DroppedNode>,
    /// The faithfulness verdict of a narration (absent when nothing was narrated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateReport>,
    /// The configured model proposer failed, hung or replied garbage, and the deterministic
    /// lexical proposer planned instead.
    pub proposer_fallback: bool,
    /// How the model proposer failed when `proposer_fallback` is set (`timeout`,
    /// `unavailable`, `garbage`, `config`, or `no_majority` when K samples shared no majority).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposer_error: Option<ProposerFailure>,
    /// The counts-only plan trace (what the audit row records).
    pub trace: PlanTrace,
    /// Wall-clock time per graph node, in microseconds. The only field that varies between
    /// runs.
    pub timings: Vec<Timing>,
}

/// One node's evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EvidenceTable {
    /// The intent.
    pub intent: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows of rendered cells (a suppressed count reads "fewer than 11").
    pub rows: Vec<Vec<String>>,
    /// Suppressed or withheld cells in this table.
    pub suppressed_cells: usize,
    /// The deterministic plain-text rendering.
    pub text: String,
}

/// A node that did not contribute to the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DroppedNode {
    /// The intent (as proposed).
    pub intent: String,
    /// Why.
    pub reason: String,
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GateReport {
    /// Whether the narration shipped.
    pub passed: bool,
    /// What failed.
    pub misses: Vec<String>,
}

/// Time spent in one node of the planner graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timing {
    /// The graph node.
    pub node: String,
    /// Microseconds.
    pub micros: u64,
}

/// A cell as the answer shows it.
pub(crate) fn render_cell(cell: &Cell) -> String {
    match cell {
        Cell::Null => String::new(),
        Cell::Text(text) => text.clone(),
        Cell::Int(n) => n.to_string(),
        Cell::Decimal(d) => d.to_string(),
        Cell::Date(d) => d.format("%Y-%m-%d").to_string(),
        Cell::Timestamp(t) => t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Cell::LocalTimestamp(t) => t.format("%Y-%m-%dT%H:%M:%S").to_string(),
        Cell::Bool(b) => b.to_string(),
        Cell::Uuid(u) => u.to_string(),
        Cell::TextList(items) => items.join(", "),
        Cell::Suppressed { k } => format!("fewer than {k}"),
        Cell::Withheld => "withheld".to_owned(),
    }
}

impl EvidenceTable {
    pub(crate) fn new(intent: &str, table: &ResultTable) -> EvidenceTable {
        EvidenceTable {
            intent: intent.to_owned(),
            columns: table.columns.iter().map(|it| it.name.clone()).collect(),
            rows: table.rows.iter().map(|row| row.iter().map(render_cell).collect()).collect(),
            suppressed_cells: table.suppressed_cells(),
            text: planner_exec::render_text(table),
        }
    }
}
