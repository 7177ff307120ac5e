//! The field-acquisition agent: collects the inputs a deterministic calculator needs to evaluate
//! a business idea, by asking the user, searching documents, deriving values from recipes and
//! running the calculator, until the calculation succeeds or a cap says stop.
//!
//! - [`Profile`]: the fields (type, source, label, question), recipes, decompositions, the
//!   calculator and the caps, from TOML, validated at load with located errors.
//! - [`graph()`]: the 17 single-responsibility nodes of the refactor proposal on
//!   `planner-graph` (guards, transforms, one decision node, routers); routes are typed and never
//!   stored, and a decision failure is a route to `finish`.
//! - [`Corpus`]: documents searched with PostgreSQL full-text search (a `tsvector` index ranked
//!   by `ts_rank_cd`), or in memory; values are extracted by type (money with currency,
//!   percent, counts, durations).
//! - [`Decider`]: the offline deterministic default, or an OpenAI-compatible model constrained
//!   by a JSON schema (through `planner-infer`'s client) whose reply is checked again here.
//! - [`Acquirer`]: runs a thread with a checkpointer; questions are graph interrupts, resumable
//!   from any process sharing the store.
//!
//! **Infrastructure:** this crate owns the documents store, so it depends on sqlx directly (its
//! migration, [`MIGRATOR`], and the search query); the checkpoints stay `planner-graph`'s.

mod corpus;
mod decide;
mod formula;
mod graph;
mod logic;
pub mod nodes;
mod profile;
mod state;
mod value;

pub use crate::{
    corpus::{
        Corpus, CorpusError, Document, HIT_LIMIT, MIGRATOR, load_documents, parse_documents,
        store_documents,
    },
    decide::{DECISION_MAX_TOKENS, Decider, decision_schema, offline, parse_decision},
    formula::{EvalError, Formula, ParseError},
    graph::{
        Acquirer, Ctx, Progress, Question, Report, ReportField, ReportOutput, Step, graph, mermaid,
    },
    logic::{currency_suggestions_for, run_calculator},
    profile::{
        CURRENCY, Calculator, Caps, ComponentSpec, Decomposition, FieldSpec, Output, Problem,
        Profile, ProfileError, REGION, Recipe, Source,
    },
    state::{
        AcqState, Action, Attempt, CalcStatus, Calculation, Decision, Filled, Hit, Idea,
        Provenance, RunStatus, Schema, Update, component_key,
    },
    value::{AnswerError, Kind, Value, currency_code, extract, parse_answer},
};

/// The runtime types an [`Acquirer`] and its graph are built with.
pub use planner_graph::{Checkpointer, Durability, Graph, MemoryCheckpointer, PgCheckpointer};

/// Applies the checkpoint migration of `planner-graph` and the documents migration of this
/// crate to `pool`'s database.
///
/// # Errors
/// A migration failure.
pub async fn migrate(pool: &sqlx::PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    planner_graph::MIGRATOR.run(pool).await?;
    MIGRATOR.run(pool).await
}
