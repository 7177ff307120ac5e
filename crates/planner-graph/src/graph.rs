//! The compiled graph and the types of a run (its config, start, result); the ways to run it
//! are in `run.rs`.

use std::{collections::BTreeMap, fmt, sync::Arc};

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::trace::TraceStep;
use crate::{
    checkpoint::{Checkpoint, Checkpointer, Durability},
    error::{Error, Result},
    node::{Handler, NodeId, Policy},
    state::GraphState,
};

/// A validated graph: immutable, `Send + Sync`, and cheap to clone (one `Arc`).
pub struct Graph<N, S: GraphState, C> {
    pub(crate) inner: Arc<Inner<S, C>>,
    pub(crate) saver: Option<Saver>,
    node: std::marker::PhantomData<fn() -> N>,
}

#[derive(Clone)]
pub(crate) struct Saver {
    pub(crate) store: Arc<dyn Checkpointer>,
    pub(crate) durability: Durability,
}

pub(crate) struct Inner<S: GraphState, C> {
    pub(crate) start: usize,
    pub(crate) slots: Box<[Slot<S, C>]>,
    pub(crate) by_name: BTreeMap<&'static str, usize>,
}

pub(crate) struct Slot<S: GraphState, C> {
    pub(crate) name: &'static str,
    pub(crate) handler: Handler<S, C>,
    pub(crate) labels: Box<[&'static str]>,
    pub(crate) hops: Box<[Hop]>,
    pub(crate) policy: Policy,
}

/// A compiled edge: indexes into the slot table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hop {
    Node(usize),
    End,
    FanOut { branches: Box<[usize]>, join: usize },
}

/// Options of one run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The thread the run belongs to; needed with a checkpointer.
    pub thread_id: Option<String>,
    /// Most node executions allowed in the thread, resumed parts included.
    pub step_limit: u64,
    /// Cancels the run from elsewhere.
    pub cancel: Option<CancellationToken>,
}

impl RunConfig {
    /// The default step limit: generous, but stops a runaway cycle.
    pub const DEFAULT_STEP_LIMIT: u64 = 100_000;

    /// A run of thread `thread_id` with the default step limit.
    pub fn thread(thread_id: impl Into<String>) -> Self {
        RunConfig { thread_id: Some(thread_id.into()), ..RunConfig::default() }
    }

    /// Replaces the step limit.
    #[must_use]
    pub fn step_limit(mut self, limit: u64) -> Self {
        self.step_limit = limit;
        self
    }

    /// Lets `token` cancel the run: the running node is dropped at its next await and the run
    /// fails with [`Error::Cancelled`]. A child token
    /// ([`CancellationToken::child_token`]) cancels one run without touching its siblings.
    ///
    /// ```
    /// use planner_graph::{CancellationToken, RunConfig};
    ///
    /// let token = CancellationToken::new();
    /// let config = RunConfig::thread("t-1").step_limit(50).cancel(token.child_token());
    /// assert_eq!(config.step_limit, 50);
    /// token.cancel(); // from another task: every run holding a child stops
    /// assert!(config.cancel.as_ref().is_some_and(CancellationToken::is_cancelled));
    /// ```
    #[must_use]
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { thread_id: None, step_limit: Self::DEFAULT_STEP_LIMIT, cancel: None }
    }
}

/// Where a run begins.
#[derive(Debug)]
pub enum Start<S> {
    /// A fresh run from START with this input state.
    Input(S),
    /// Continue the thread waiting at an interrupt, handing `value` to the interrupted node.
    Resume {
        /// The thread.
        thread_id: String,
        /// The answer to the interrupt.
        value: Value,
    },
    /// Continue from an earlier checkpoint of the thread: the new checkpoints branch off it.
    Fork {
        /// The thread.
        thread_id: String,
        /// The checkpoint to continue from.
        checkpoint: u64,
        /// Handed to the node that runs first, as on a resume.
        value: Option<Value>,
    },
}

/// The result of a run that did not fail.
#[derive(Debug, Clone, PartialEq)]
pub struct Run<S> {
    /// The final state (at an interrupt: the state before the interrupting node).
    pub state: S,
    /// The steps taken by this run, in order.
    pub trace: Vec<TraceStep>,
    /// Whether the run reached END or stopped at an interrupt.
    pub status: Status,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The run reached END.
    Finished,
    /// A node asked the caller something; resume the thread with the answer.
    Interrupted(Interrupt),
}

/// A run stopped at a node that asked the caller something.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interrupt {
    /// The thread to resume (`None` when the run had no thread id).
    pub thread_id: Option<String>,
    /// The interrupting node; it runs again on resume.
    pub node: &'static str,
    /// What the node asked.
    pub payload: Value,
}

impl<N: NodeId, S: GraphState, C: Send + Sync + 'static> Graph<N, S, C> {
    pub(crate) fn from_inner(inner: Arc<Inner<S, C>>) -> Self {
        Graph { inner, saver: None, node: std::marker::PhantomData }
    }

    /// The same graph saving checkpoints to `store` with the given durability.
    #[must_use]
    pub fn with_checkpointer(&self, store: Arc<dyn Checkpointer>, durability: Durability) -> Self {
        Graph {
            inner: Arc::clone(&self.inner),
            saver: Some(Saver { store, durability }),
            node: std::marker::PhantomData,
        }
    }

    /// Every checkpoint of `thread_id`, oldest first.
    ///
    /// # Errors
    /// [`Error::NoCheckpointer`] or a store failure.
    pub async fn history(&self, thread_id: &str) -> Result<Vec<Checkpoint>> {
        let saver = self.saver.as_ref().ok_or(Error::NoCheckpointer)?;
        saver.store.history(thread_id).await
    }

    /// The node names, in the order they were added.
    pub fn node_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.inner.slots.iter().map(|it| it.name)
    }
}

impl<N, S: GraphState, C> Clone for Graph<N, S, C> {
    fn clone(&self) -> Self {
        Graph {
            inner: Arc::clone(&self.inner),
            saver: self.saver.clone(),
            node: std::marker::PhantomData,
        }
    }
}

impl<N, S: GraphState, C> fmt::Debug for Graph<N, S, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph")
            .field("nodes", &self.inner.slots.iter().map(|it| it.name).collect::<Vec<_>>())
            .field("checkpointer", &self.saver.as_ref().map(|it| &it.store))
            .finish()
    }
}
