//! Plans: nodes with bound arguments, typed edges, and the proposals that were dropped.

use planner_registry::{IntentId, ParamId, ParamKind, Value};

/// A validated plan: nodes in registry order and the edges between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The nodes, in registry order (each intent at most once).
    pub nodes: Vec<PlanNode>,
    /// The dependency edges, ordered by receiving node then param.
    pub edges: Vec<Edge>,
}

/// One node of a plan: an intent and its bound arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanNode {
    /// The intent to run (always a query intent: composites are expanded).
    pub intent: IntentId,
    /// The arguments, one per intent param, in the intent's param (placeholder) order.
    pub args: Vec<BoundArg>,
    /// Why the node is in the plan.
    pub origin: NodeOrigin,
}

/// Why a node is in a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeOrigin {
    /// The proposal named it.
    Proposed,
    /// A proposed composite has it as a member (the composite's id).
    Composite(IntentId),
    /// The validator added it: the only registry intent that could provide a param another
    /// node lacked, bound from the available params.
    Provider,
}

/// One bound argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundArg {
    /// The declared param.
    pub param: ParamId,
    /// Its kind.
    pub kind: ParamKind,
    /// Where its value comes from.
    pub source: ArgSource,
}

/// Where an argument's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSource {
    /// An available (extracted) param, clamped into the intent's range when it has one.
    Available(Value),
    /// The intent's default for an optional param that was not available.
    Default(Value),
    /// An upstream node's output column, through `plan.edges[index]`; known at run time.
    Upstream(usize),
}

/// A typed dependency edge: the `from` node's output `column` binds the `to` node's `param`.
/// The column's declared `provides` is `param`, so the kinds match by construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// The providing node (index into `plan.nodes`).
    pub from: usize,
    /// The index of the providing column in the `from` intent's columns.
    pub column: usize,
    /// The receiving node (index into `plan.nodes`).
    pub to: usize,
    /// The bound param.
    pub param: ParamId,
}

/// The outcome of validating one proposal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    /// The plan that survived.
    pub plan: Plan,
    /// Every proposal that did not make it, ordered by name then reason.
    pub dropped: Vec<Dropped>,
}

/// A proposed name that is not in the plan, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dropped {
    /// The name as proposed (for an unknown name, the raw text).
    pub name: String,
    /// The intent, when the name is in the registry.
    pub intent: Option<IntentId>,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// Why a proposal was dropped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropReason {
    /// The name is not in the registry.
    Unknown,
    /// The proposal named the intent more than once; the extra mention was merged.
    Duplicate,
    /// The caller lacks a scope the intent needs.
    Forbidden {
        /// The missing scopes, sorted.
        scopes: Vec<String>,
    },
    /// A required param is neither available nor provided by an edge.
    Unbindable {
        /// The params that could not be bound, in the intent's order.
        missing: Vec<ParamId>,
    },
    /// The plan was full.
    OverCap,
}

impl ArgSource {
    /// The value, when it is known before running (not through an edge).
    pub fn value(&self) -> Option<&Value> {
        match self {
            ArgSource::Available(value) | ArgSource::Default(value) => Some(value),
            ArgSource::Upstream(_) => None,
        }
    }
}

impl Plan {
    /// Whether the plan has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node running `intent`, if any.
    pub fn node_of(&self, intent: IntentId) -> Option<usize> {
        self.nodes.iter().position(|node| node.intent == intent)
    }

    /// The edges into node `to`.
    pub fn edges_into(&self, to: usize) -> impl Iterator<Item = &Edge> + '_ {
        self.edges.iter().filter(move |edge| edge.to == to)
    }

    /// The node indexes in an order where every edge points forward (upstream first), ties
    /// kept in registry order.
    pub fn run_order(&self) -> Vec<usize> {
        let mut depth = vec![0usize; self.nodes.len()];
        // Edges point from bound nodes only and the depth is at most 2: a few passes settle it.
        for _ in 0..self.nodes.len() {
            for edge in &self.edges {
                if let (Some(&from), Some(to)) = (depth.get(edge.from), depth.get(edge.to).copied())
                    && to <= from
                {
                    depth[edge.to] = from + 1;
                }
            }
        }
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by_key(|&index| (depth[index], index));
        order
    }
}

impl DropReason {
    /// The reason's short name: `unknown`, `duplicate`, `forbidden`, `unbindable`, `over_cap`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            DropReason::Unknown => "unknown",
            DropReason::Duplicate => "duplicate",
            DropReason::Forbidden { .. } => "forbidden",
            DropReason::Unbindable { .. } => "unbindable",
            DropReason::OverCap => "over_cap",
        }
    }
}
