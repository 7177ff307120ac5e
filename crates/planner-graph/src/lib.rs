//! A typed, checkpointed state-graph runtime.
//!
//! The crate's README (durability modes) and its `examples/` (fan-out, interrupt and resume,
//! the PostgreSQL checkpointer, streaming events; each run as a test) show it in use.
//!
//! A graph is a set of single-responsibility nodes over a typed state. Each node returns its
//! state update and its route as typed values ([`Command`]); the route picks the next node and is
//! never stored. The builder checks the whole graph at once ([`GraphBuilder::compile`] lists every
//! [`Problem`], each naming its node) and yields an immutable [`Graph`], cheap to clone and share
//! across threads. Runs are deterministic: the same input gives the same [`Event`] sequence.
//!
//! - **Nodes** are synchronous functions ([`GraphBuilder::add_fn`], called without any future or
//!   allocation) or asynchronous [`Node`]s (SQL, HTTP), all handed the same context `&C`.
//! - **Fan-out**: a route may lead to several branches at once ([`Target::FanOut`]); they run
//!   concurrently and their updates are merged in declared order before the join node.
//! - **Interrupts**: a node returns [`Command::Interrupt`] with a payload; the run ends as
//!   [`Status::Interrupted`] and [`Graph::resume`] hands the answer to that node, in this process
//!   or another one sharing the [`Checkpointer`].
//! - **Checkpoints**: [`MemoryCheckpointer`], and `PgCheckpointer` with `MIGRATOR` behind the
//!   `postgres` feature; [`Durability`] says when saves happen and when they are durable.
//! - **Limits**: a step limit ([`RunConfig::step_limit`]), per-node [`Policy`] (timeout, retry
//!   with backoff), cancellation (tokio-util's [`CancellationToken`], re-exported, through
//!   [`RunConfig::cancel`]).
//! - **Observability**: a `graph_run` span per run and a `node` span per node (node, step,
//!   route); [`Graph::to_mermaid`] and [`Graph::to_dot`] draw the graph.
//!
//! **Architecture invariant:** this crate knows nothing of SQL, HTTP or intents: nodes are
//! supplied by the caller. Its only storage code is the optional PostgreSQL checkpointer.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//!
//! use planner_graph::{
//!     Command, Durability, GraphBuilder, GraphState, MemoryCheckpointer, Node, NodeError,
//!     RunConfig, Status, node_ids, reduce, routes,
//! };
//! use serde::{Deserialize, Serialize};
//! use serde_json::{Value, json};
//!
//! node_ids! { enum Step { Ask => "ask", Answer => "answer" } }
//! routes! { enum Known { Yes => "yes", No => "no" } }
//!
//! #[derive(Debug, Default, Serialize, Deserialize)]
//! struct State { region: Option<String>, answer: Vec<String> }
//!
//! #[derive(Default)]
//! struct Update { region: Option<String>, answer: Vec<String> }
//!
//! impl GraphState for State {
//!     type Update = Update;
//!     fn apply(&mut self, update: Update) {
//!         reduce::replace(&mut self.region, update.region.map(Some));
//!         reduce::append(&mut self.answer, update.answer);
//!     }
//! }
//!
//! /// Shared by every node of every run (database pools, HTTP clients, ...).
//! struct Ctx { greeting: String }
//!
//! /// Asks for the region unless it is known; on resume, takes the user's answer.
//! struct Ask;
//!
//! impl Node<State, Arc<Ctx>> for Ask {
//!     type Route = Known;
//!     async fn run(&self, _: &Arc<Ctx>, state: &State, resume: Option<&Value>)
//!         -> Result<Command<Update, Known>, NodeError> {
//!         if let Some(answer) = resume {
//!             let region = answer.as_str().ok_or_else(|| NodeError::new("not a region"))?;
//!             return Ok(Command::goto(Update { region: Some(region.into()), ..Update::default() }, Known::Yes));
//!         }
//!         Ok(match state.region {
//!             Some(_) => Command::goto(Update::default(), Known::Yes),
//!             None => Command::Interrupt(json!({ "question": "which region?" })),
//!         })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), planner_graph::Error> {
//! let mut builder = GraphBuilder::<Step, State, Arc<Ctx>>::new();
//! builder.start(Step::Ask);
//! builder.add_node(Step::Ask, Ask).route(Known::Yes, Step::Answer).route(Known::No, Step::Ask);
//! builder
//!     .add_fn(Step::Answer, |ctx: &Arc<Ctx>, state: &State, _| {
//!         let text = format!("{} {}", ctx.greeting, state.region.as_deref().unwrap_or("?"));
//!         Ok(Command::goto(Update { answer: vec![text], ..Update::default() }, ()))
//!     })
//!     .goto_end();
//! let graph = builder.compile()?;
//! let graph = graph.with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
//!
//! let ctx = Arc::new(Ctx { greeting: "hello".into() });
//! let config = RunConfig::thread("thread-1");
//! let run = graph.invoke(&ctx, State::default(), &config).await?;
//! let Status::Interrupted(interrupt) = run.status else { panic!("expected a question") };
//! assert_eq!(interrupt.payload, json!({ "question": "which region?" }));
//!
//! let run = graph.resume(&ctx, "thread-1", json!("emea"), &config).await?;
//! assert_eq!(run.status, Status::Finished);
//! assert_eq!(run.state.answer, ["hello emea"]);
//! assert!(graph.to_mermaid().contains("ask -->|yes| answer"));
//! # Ok(())
//! # }
//! ```

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod builder;
mod checkpoint;
mod draw;
mod error;
mod event;
mod graph;
mod node;
#[cfg(feature = "postgres")]
mod postgres;
mod run;
mod state;
mod trace;

pub use crate::{
    builder::{GraphBuilder, NodeBuilder, Target},
    checkpoint::{Checkpoint, Checkpointer, Durability, MemoryCheckpointer},
    error::{Error, Problem, Result},
    event::Event,
    graph::{Graph, Interrupt, Run, RunConfig, Start, Status},
    node::{Command, Node, NodeError, NodeId, Policy, Route},
    run::EventStream,
    state::{GraphState, reduce},
    trace::TraceStep,
};

/// The token [`RunConfig::cancel`] takes: tokio-util's, so a caller's own tokens (and their
/// child tokens) cancel runs directly.
pub use tokio_util::sync::CancellationToken;

#[cfg(feature = "postgres")]
pub use crate::postgres::{MIGRATOR, PgCheckpointer};
