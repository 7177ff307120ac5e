//! The plan trace for audit: intent names, param kinds and counts, never a value.
//!
//! This is a serialized audit format on purpose: it is written to the append-only audit log.
//! It holds no argument value, no question text and no unknown proposed name (a model's free
//! text could carry a value): unknown names are counted only.

use planner_registry::Registry;

use crate::consensus::ConsensusOutcome;
use crate::plan::{ArgSource, DropReason, NodeOrigin, Validation};

/// The audit view of a validated plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlanTrace {
    /// The nodes, in plan order.
    pub nodes: Vec<NodeTrace>,
    /// The known intents that were dropped, with their reasons.
    pub dropped: Vec<DroppedTrace>,
    /// The number of nodes.
    pub node_count: usize,
    /// The number of edges.
    pub edge_count: usize,
    /// The number of dropped proposals, unknown names included.
    pub dropped_count: usize,
    /// The number of unknown names proposed.
    pub unknown_count: usize,
    /// The number of provider nodes the validator added.
    pub provider_count: usize,
    /// The self-consistency outcome, when the plan came from several samples.
    pub self_consistency: Option<ConsensusTrace>,
}

/// One node of the trace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodeTrace {
    /// The intent's registry name.
    pub intent: String,
    /// `proposed`, `composite` or `provider`.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::origin))]
    pub origin: &'static str,
    /// The kinds of the params bound from the question or a default, in the intent's order.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::kinds))]
    pub param_kinds: Vec<&'static str>,
    /// The kinds of the params bound through an edge, in the intent's order.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::kinds))]
    pub edge_kinds: Vec<&'static str>,
}

/// A dropped known intent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DroppedTrace {
    /// The intent's registry name.
    pub intent: String,
    /// `duplicate`, `forbidden`, `unbindable` or `over_cap`.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::trace_reason))]
    pub reason: &'static str,
    /// For `unbindable`, the kinds of the missing params.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::kinds))]
    pub missing_kinds: Vec<&'static str>,
}

/// The self-consistency outcome, counts only.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConsensusTrace {
    /// K.
    pub samples: usize,
    /// `no_proposal`, `single`, `unanimous`, `majority` or `no_majority`.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::agreement))]
    pub agreement: &'static str,
    /// Names kept.
    pub kept: usize,
    /// Names discarded for lack of a majority.
    pub discarded: usize,
    /// Unknown names across the samples.
    pub unknown: usize,
}

impl PlanTrace {
    /// The trace of a validation, with the self-consistency outcome when there was one.
    pub fn new(
        registry: &Registry,
        validation: &Validation,
        consensus: Option<&ConsensusOutcome>,
    ) -> PlanTrace {
        let plan = &validation.plan;
        let nodes = plan
            .nodes
            .iter()
            .map(|node| {
                let kinds = |upstream: bool| {
                    node.args
                        .iter()
                        .filter(|arg| matches!(arg.source, ArgSource::Upstream(_)) == upstream)
                        .map(|arg| arg.kind.as_str())
                        .collect()
                };
                NodeTrace {
                    intent: registry.intent(node.intent).name.clone(),
                    origin: match node.origin {
                        NodeOrigin::Proposed => "proposed",
                        NodeOrigin::Composite(_) => "composite",
                        NodeOrigin::Provider => "provider",
                    },
                    param_kinds: kinds(false),
                    edge_kinds: kinds(true),
                }
            })
            .collect();
        let dropped = validation
            .dropped
            .iter()
            .filter_map(|dropped| {
                let intent = dropped.intent?;
                let missing_kinds = match &dropped.reason {
                    DropReason::Unbindable { missing } => {
                        missing.iter().map(|&param| registry.param(param).kind.as_str()).collect()
                    }
                    _ => Vec::new(),
                };
                Some(DroppedTrace {
                    intent: registry.intent(intent).name.clone(),
                    reason: dropped.reason.as_str(),
                    missing_kinds,
                })
            })
            .collect();
        PlanTrace {
            nodes,
            dropped,
            node_count: plan.nodes.len(),
            edge_count: plan.edges.len(),
            dropped_count: validation.dropped.len(),
            unknown_count: validation
                .dropped
                .iter()
                .filter(|d| d.reason == DropReason::Unknown)
                .count(),
            provider_count: plan.nodes.iter().filter(|n| n.origin == NodeOrigin::Provider).count(),
            self_consistency: consensus.map(|outcome| ConsensusTrace {
                samples: outcome.samples,
                agreement: outcome.agreement.as_str(),
                kept: outcome.kept,
                discarded: outcome.discarded,
                unknown: outcome.unknown,
            }),
        }
    }
}
