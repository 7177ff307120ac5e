//! The planner engine: the planner graph end to end, and the API boundary of the server and
//! the CLI.
//!
//! A question is screened ([`screen`]), its params extracted, routed (single or proposed),
//! proposed K times and stabilized, validated and bound, clarified when a relevant intent lacks
//! a value (an interrupt resumed through the PostgreSQL checkpointer, the answer run through the
//! same extractors), run through the guarded executors in dependency waves (each windowed table
//! anchored on the data's date, read by the registry's `as_of` query beside the plan), narrated
//! behind the faithfulness gate (falling back to the template narrator's deterministic text,
//! which also names what was withheld and what did not run), and audited before the answer is
//! returned. [`Engine`] does all of it on a database; [`Planner`] and [`plan_report`] plan
//! without one (`planner plan`, `planner eval`); [`fit`] proposes registry additions from a
//! labelled corpus (`planner fit`). Each table's narration names the values the
//! question bound that scoped its node (a relative period as its resolved days). [`TableView`]
//! is an evidence table as a page shows it: its cells written by the narration's formatter, and
//! its [`Series`] when its rows are periods.
//!
//! Each [`Engine::ask`] or [`Engine::resume`] run chooses its audit id up front (data in the graph
//! state); the `audit` node records the id as begun before it writes. A run that ends without
//! returning its outcome after that (an error, or its future dropped by a caller's timeout)
//! withdraws the id: the engine's background withdrawer writes it to `audit.withdrawn`,
//! retrying while the database is away ([`Engine::pending_withdrawals`],
//! [`Engine::withdrawn_total`]), so that `audit.answers_given` counts exactly the answers
//! returned.
//!
//! **Architecture invariants:** the model's output is only ever a list of names filtered by the
//! closed registry; every argument comes from the extractors (question or clarification answer),
//! a registry default, or an upstream column through a kind-checked edge. No answer is returned
//! without its audit row, and no audit row stands for an answer not returned once its withdrawal
//! is written. Answers carry no clock value except `timings`.

mod answer;
mod audit;
mod database;
mod engine;
mod error;
mod eval;
mod evidence;
mod fit;
mod graph;
mod planning;
mod report;
mod run;
mod screen;
mod view;

pub use crate::{
    answer::{
        Answer, DroppedNode, EvidenceTable, GateReport, NeedsInput, Outcome, TextSource, Timing,
    },
    engine::{
        Ask, Caller, DEFAULT_THREAD_RETENTION, DatabaseStats, Engine, EngineConfig, ReplicaStats,
        migrate, plan_report,
    },
    error::{Error, Result},
    eval::{
        EvalItem, EvalReport, Expect, Failure, Got, IntentScore, evaluate, evaluate_as_of,
        parse_corpus,
    },
    fit::{Addition, FitOptions, FitReport, PartScores, fit, held_out},
    planning::{
        ParamMention, Params, Planner, Planning, Proposed, ProposerFailure, Route, intent_set,
    },
    report::{ParamReport, PlanReport},
    run::{RunLimits, node_binds, waves},
    screen::{
        InputError, MAX_QUESTION_CHARS, Refusal, Screen, check_input, screen, unapplied_qualifiers,
        workforce_warnings,
    },
    view::{Line, MAX_SERIES, Series, TableView},
};
