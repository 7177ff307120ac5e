//! Run events, in the order they happened; [`crate::EventStream`] carries them out of a spawned
//! run.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// Something that happened during a run, in the order it happened.
///
/// Equality ignores [`Event::NodeFinished::duration`]: the same input gives equal sequences.
#[derive(Debug, Clone, Serialize)]
pub enum Event {
    /// A node is about to run.
    NodeStarted {
        /// Its step number.
        step: u64,
        /// The node.
        node: &'static str,
    },
    /// A node returned.
    NodeFinished {
        /// Its step number.
        step: u64,
        /// The node.
        node: &'static str,
        /// Wall time of the node, retries included.
        duration: Duration,
    },
    /// The route a node took and where it leads.
    RouteTaken {
        /// The node's step number.
        step: u64,
        /// The node.
        node: &'static str,
        /// The route label (empty for a fixed edge).
        route: &'static str,
        /// Where it leads: node names, or `END`.
        to: Vec<&'static str>,
    },
    /// A node's update was merged into the state.
    UpdateApplied {
        /// The node's step number.
        step: u64,
        /// The node.
        node: &'static str,
    },
    /// A checkpoint was queued for saving.
    CheckpointSaved {
        /// Its id in the thread.
        checkpoint: u64,
        /// Steps taken so far.
        step: u64,
    },
    /// The run stopped at an interrupt.
    Interrupted {
        /// The thread to resume.
        thread_id: Option<String>,
        /// The interrupting node.
        node: &'static str,
        /// What it asked.
        payload: Value,
    },
    /// The run reached END.
    Finished {
        /// Steps taken in the thread.
        steps: u64,
    },
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        use Event::*;
        match (self, other) {
            (NodeStarted { step: a, node: b }, NodeStarted { step: c, node: d }) => {
                (a, b) == (c, d)
            }
            (NodeFinished { step: a, node: b, .. }, NodeFinished { step: c, node: d, .. }) => {
                (a, b) == (c, d)
            }
            (
                RouteTaken { step: a, node: b, route: c, to: d },
                RouteTaken { step: e, node: f, route: g, to: h },
            ) => (a, b, c, d) == (e, f, g, h),
            (UpdateApplied { step: a, node: b }, UpdateApplied { step: c, node: d }) => {
                (a, b) == (c, d)
            }
            (
                CheckpointSaved { checkpoint: a, step: b },
                CheckpointSaved { checkpoint: c, step: d },
            ) => (a, b) == (c, d),
            (
                Interrupted { thread_id: a, node: b, payload: c },
                Interrupted { thread_id: d, node: e, payload: f },
            ) => (a, b, c) == (d, e, f),
            (Finished { steps: a }, Finished { steps: b }) => a == b,
            _ => false,
        }
    }
}
