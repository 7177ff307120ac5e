//! One step of a run's trace: the leaf type that runs, their results and their errors share.

use serde::Serialize;

/// One executed node, as kept in a [`Run`](crate::Run)'s trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TraceStep {
    /// Step number, counted from 0 over the whole thread.
    pub step: u64,
    /// The node.
    pub node: &'static str,
    /// The route it took (empty for a fixed edge).
    pub route: &'static str,
}
