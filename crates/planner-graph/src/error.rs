//! Errors of building, running and checkpointing a graph.

use std::{fmt, time::Duration};

use crate::{node::NodeError, trace::TraceStep};

/// Everything that can go wrong with a graph.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The builder found problems; all of them are listed.
    #[error("invalid graph: {}", Problems(.problems))]
    Invalid {
        /// Every problem found, in a stable order.
        problems: Vec<Problem>,
    },
    /// The run took more steps than allowed: probably a runaway cycle.
    #[error("step limit of {limit} reached; last steps: {}", Steps(.last_steps))]
    StepLimit {
        /// The limit in force.
        limit: u64,
        /// The last steps taken, oldest first.
        last_steps: Vec<TraceStep>,
    },
    /// A node failed (after its retries, if any).
    #[error("node {node} failed at step {step} after {attempts} attempt(s)")]
    Node {
        /// The failing node.
        node: &'static str,
        /// Its step number.
        step: u64,
        /// Attempts made.
        attempts: u32,
        /// The node's own error.
        #[source]
        source: NodeError,
    },
    /// An attempt of a node outlived its timeout (after its retries, if any).
    #[error("node {node} timed out after {after:?} at step {step}")]
    Timeout {
        /// The node.
        node: &'static str,
        /// Its step number.
        step: u64,
        /// The timeout in force.
        after: Duration,
    },
    /// The run was cancelled through its [`CancellationToken`](crate::CancellationToken).
    #[error("run cancelled at step {step}")]
    Cancelled {
        /// The step that was about to run or running.
        step: u64,
    },
    /// A branch of a fan-out routed somewhere else than the join node.
    #[error("fan-out branch {node} routed to {to} instead of its join node {join}")]
    FanOutEscape {
        /// The branch.
        node: &'static str,
        /// Where it routed.
        to: &'static str,
        /// The join node.
        join: &'static str,
    },
    /// A branch of a fan-out asked to interrupt, which is not supported.
    #[error("fan-out branch {node} cannot interrupt")]
    InterruptInFanOut {
        /// The branch.
        node: &'static str,
    },
    /// A checkpointer is attached, so a run needs a thread id.
    #[error("a thread id is needed to run with a checkpointer")]
    MissingThreadId,
    /// Resuming or listing needs a checkpointer.
    #[error("no checkpointer attached to this graph")]
    NoCheckpointer,
    /// No checkpoint for this thread (or this checkpoint id).
    #[error("no checkpoint{} for thread {thread_id:?}", At(.checkpoint))]
    CheckpointNotFound {
        /// The thread.
        thread_id: String,
        /// The checkpoint asked for, if one.
        checkpoint: Option<u64>,
    },
    /// `resume` was called on a thread that is not waiting at an interrupt.
    #[error("thread {thread_id:?} is not interrupted")]
    NotInterrupted {
        /// The thread.
        thread_id: String,
    },
    /// The checkpoint is past the end of its run.
    #[error("thread {thread_id:?} already finished at checkpoint {checkpoint}")]
    AlreadyFinished {
        /// The thread.
        thread_id: String,
        /// The final checkpoint.
        checkpoint: u64,
    },
    /// A checkpoint names a node this graph does not have.
    #[error("checkpoint names node {node:?}, which this graph does not have")]
    UnknownCheckpointNode {
        /// The stored name.
        node: String,
    },
    /// A checkpoint was saved with another version of the state.
    #[error("checkpoint state has version {found}, this graph expects {expected}")]
    StateVersion {
        /// Version in the checkpoint.
        found: u32,
        /// [`GraphState::VERSION`](crate::GraphState::VERSION).
        expected: u32,
    },
    /// The state could not be serialized or deserialized.
    #[error("state (de)serialization failed")]
    State(#[source] serde_json::Error),
    /// The checkpoint store failed or is unreachable.
    #[error("checkpoint store failed: {0}")]
    Store(String),
    /// The task running a streamed run stopped before finishing (it panicked or was aborted).
    #[error("streamed run stopped: {0}")]
    Stream(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One defect found by the builder, naming the node concerned.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Problem {
    /// No start node was set.
    NoStart,
    /// Two nodes were added with the same id.
    DuplicateNode {
        /// Its name.
        node: &'static str,
    },
    /// Two different nodes share one name.
    DuplicateName {
        /// The shared name.
        name: &'static str,
    },
    /// An edge points at a node that was never added (`from` is `START` for the start edge).
    UnknownNode {
        /// Where the edge starts.
        from: &'static str,
        /// The missing node.
        to: &'static str,
    },
    /// A route value of the node has no target.
    MissingTarget {
        /// The node.
        node: &'static str,
        /// The route without a target.
        route: &'static str,
    },
    /// The node has no outgoing edge at all.
    NoOutgoingEdges {
        /// The node.
        node: &'static str,
    },
    /// The node cannot be reached from START.
    Unreachable {
        /// The node.
        node: &'static str,
    },
    /// END cannot be reached from the node.
    CannotReachEnd {
        /// The node.
        node: &'static str,
    },
    /// The node's route type lists a value twice, repeats a label, or numbers its values
    /// otherwise than their order in [`Route::ALL`](crate::Route::ALL).
    BadRouteTable {
        /// The node.
        node: &'static str,
    },
    /// A fan-out lists no branch.
    EmptyFanOut {
        /// The router.
        node: &'static str,
        /// Its route.
        route: &'static str,
    },
    /// A branch of a fan-out may route somewhere else than the join node.
    FanBranchEscapes {
        /// The router.
        node: &'static str,
        /// The branch.
        branch: &'static str,
        /// The join node.
        join: &'static str,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NoStart => f.write_str("no start node"),
            Problem::DuplicateNode { node } => write!(f, "node {node} added twice"),
            Problem::DuplicateName { name } => write!(f, "two nodes are named {name}"),
            Problem::UnknownNode { from, to } => {
                write!(f, "{from} has an edge to unknown node {to}")
            }
            Problem::MissingTarget { node, route } => {
                write!(f, "route {route} of node {node} has no target")
            }
            Problem::NoOutgoingEdges { node } => write!(f, "node {node} has no outgoing edges"),
            Problem::Unreachable { node } => write!(f, "node {node} is unreachable from START"),
            Problem::CannotReachEnd { node } => write!(f, "END is unreachable from node {node}"),
            Problem::BadRouteTable { node } => {
                write!(f, "the routes of node {node} repeat a value or label, or misnumber them")
            }
            Problem::EmptyFanOut { node, route } => {
                write!(f, "route {route} of node {node} fans out to no branch")
            }
            Problem::FanBranchEscapes { node, branch, join } => write!(
                f,
                "branch {branch} of a fan-out from {node} may route elsewhere than its join {join}"
            ),
        }
    }
}

struct Problems<'a>(&'a [Problem]);

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

struct At<'a>(&'a Option<u64>);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(id) => write!(f, " {id}"),
            None => Ok(()),
        }
    }
}

struct Steps<'a>(&'a [TraceStep]);

impl fmt::Display for Steps<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" -> ")?;
            }
            write!(f, "#{} {}", step.step, step.node)?;
            if !step.route.is_empty() {
                write!(f, " [{}]", step.route)?;
            }
        }
        Ok(())
    }
}
