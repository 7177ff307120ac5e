//! Checkpoints, the checkpointer trait and the in-memory checkpointer.

use std::{
    collections::BTreeMap,
    fmt,
    sync::{Mutex, PoisonError},
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{error::Result, node::BoxFuture};

/// One saved step of a thread: where the run stands, never how it got there.
///
/// A checkpoint holds the state and the node to run next; routes and other transient values are
/// never part of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The thread.
    pub thread_id: String,
    /// Number of this checkpoint in its thread, from 0, in the order saved.
    pub id: u64,
    /// The checkpoint this one follows; `None` for the first of a run started from input.
    /// Resuming from an earlier checkpoint forks the thread: two checkpoints share a parent.
    pub parent: Option<u64>,
    /// Steps (node executions) taken in the thread so far.
    pub step: u64,
    /// The node to run next; `None` once the run reached END.
    pub next: Option<String>,
    /// The interrupt payload when the run waits at `next` for the caller's answer.
    pub interrupt: Option<Value>,
    /// [`GraphState::VERSION`](crate::GraphState::VERSION) of `state`.
    pub state_version: u32,
    /// The state, serialized as JSON text.
    pub state: String,
}

/// When checkpoints are written, and when they are durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Every step is saved and each save is durable before the next step runs.
    Sync,
    /// Every step is saved; saves are pipelined behind the run and all are durable before
    /// `invoke` (or `resume`) returns.
    #[default]
    Async,
    /// Only the checkpoints at interrupts and at the end are saved, durable before return.
    Exit,
    /// Only the checkpoints at interrupts, and the end of a run resumed from one, are saved,
    /// durable before return: a run that finishes without pausing neither reads nor writes the
    /// store. For threads that are only ever resumed from an interrupt, never forked or
    /// inspected after they finish.
    Interrupts,
}

/// A store of checkpoints, possibly shared by several processes.
pub trait Checkpointer: Send + Sync + fmt::Debug {
    /// Queues a checkpoint for saving without waiting; [`Checkpointer::flush`] makes it durable.
    ///
    /// # Errors
    /// The store has failed or stopped.
    fn save(&self, checkpoint: Checkpoint) -> Result<()>;

    /// Completes once every checkpoint queued before the call is durable.
    fn flush(&self) -> BoxFuture<'_, Result<()>>;

    /// Checkpoint `id` of `thread_id`, or its latest one (the highest id) when `id` is `None`.
    fn load<'a>(
        &'a self,
        thread_id: &'a str,
        id: Option<u64>,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>>;

    /// Every checkpoint of `thread_id`, by id.
    fn history<'a>(&'a self, thread_id: &'a str) -> BoxFuture<'a, Result<Vec<Checkpoint>>>;
}

/// Keeps checkpoints in this process's memory.
///
/// For tests and single-process use; `PgCheckpointer` (feature `postgres`) shares threads
/// between processes.
///
/// ```
/// use std::sync::Arc;
///
/// use planner_graph::{Command, Durability, GraphBuilder, GraphState, MemoryCheckpointer, RunConfig, node_ids};
/// use serde::{Deserialize, Serialize};
///
/// node_ids! { enum Step { One => "one", Two => "two" } }
///
/// #[derive(Debug, Default, Serialize, Deserialize)]
/// struct Steps { done: u32 }
///
/// impl GraphState for Steps {
///     type Update = u32;
///     fn apply(&mut self, update: u32) { self.done += update }
/// }
///
/// let mut builder = GraphBuilder::<Step, Steps, ()>::new();
/// builder.start(Step::One);
/// builder.add_fn(Step::One, |_: &(), _: &Steps, _| Ok(Command::goto(1, ()))).goto(Step::Two);
/// builder.add_fn(Step::Two, |_: &(), _: &Steps, _| Ok(Command::goto(1, ()))).goto_end();
/// let store = Arc::new(MemoryCheckpointer::new());
/// let graph = builder.compile().unwrap().with_checkpointer(store, Durability::Sync);
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// graph.invoke(&(), Steps::default(), &RunConfig::thread("t")).await.unwrap();
/// // With `Durability::Sync`: the input, then one checkpoint per step; the last has no next node.
/// let history = graph.history("t").await.unwrap();
/// assert_eq!(history.iter().map(|it| it.step).collect::<Vec<_>>(), [0, 1, 2]);
/// assert_eq!(history.last().unwrap().next, None);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct MemoryCheckpointer {
    threads: Mutex<BTreeMap<String, Vec<Checkpoint>>>,
}

impl MemoryCheckpointer {
    /// An empty store.
    pub fn new() -> Self {
        MemoryCheckpointer::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut BTreeMap<String, Vec<Checkpoint>>) -> T) -> T {
        f(&mut self.threads.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Checkpointer for MemoryCheckpointer {
    fn save(&self, checkpoint: Checkpoint) -> Result<()> {
        self.with(|threads| match threads.get_mut(&checkpoint.thread_id) {
            Some(list) => list.push(checkpoint),
            None => {
                threads.insert(checkpoint.thread_id.clone(), vec![checkpoint]);
            }
        });
        Ok(())
    }

    fn flush(&self) -> BoxFuture<'_, Result<()>> {
        Box::pin(std::future::ready(Ok(())))
    }

    fn load<'a>(
        &'a self,
        thread_id: &'a str,
        id: Option<u64>,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        let found = self.with(|threads| {
            let list = threads.get(thread_id)?;
            match id {
                Some(id) => list.iter().find(|it| it.id == id).cloned(),
                None => list.iter().max_by_key(|it| it.id).cloned(),
            }
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn history<'a>(&'a self, thread_id: &'a str) -> BoxFuture<'a, Result<Vec<Checkpoint>>> {
        let mut list = self.with(|threads| threads.get(thread_id).cloned().unwrap_or_default());
        list.sort_by_key(|it| it.id);
        Box::pin(std::future::ready(Ok(list)))
    }
}
