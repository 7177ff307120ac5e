//! The wire view of a plan, as `planner plan --json` prints it (spec/cli-contract.md): built
//! by hand from the domain types, which stay free of serialization concerns.

use std::collections::BTreeMap;

use planner_registry::{Registry, Value};

use crate::plan::{DropReason, Dropped, Plan};

/// The `plan` object: nodes with their intent and known args, and the edges.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlanView {
    /// The nodes, in plan order.
    pub nodes: Vec<NodeView>,
    /// The edges, by receiving node then param.
    pub edges: Vec<EdgeView>,
}

/// One node: `{"intent": "...", "args": {"param": value}}`. Args bound through an edge are
/// not listed (their value is known at run time); the edge says where they come from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodeView {
    /// The intent name.
    pub intent: String,
    /// The args known before running, by param name.
    #[cfg_attr(
        feature = "openapi",
        schema(value_type = BTreeMap<String, planner_registry::ParamValue>)
    )]
    pub args: BTreeMap<String, Value>,
}

/// One edge: `{"from": "...", "column": "...", "to": "...", "param": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EdgeView {
    /// The providing intent.
    pub from: String,
    /// The providing column.
    pub column: String,
    /// The receiving intent.
    pub to: String,
    /// The bound param.
    pub param: String,
}

/// One entry of `dropped`: `{"intent": "...", "reason": "unbindable: uei"}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DroppedView {
    /// The name as proposed.
    pub intent: String,
    /// `unknown`, `duplicate`, `forbidden: your key lacks the <scope> scope`,
    /// `unbindable: <params>` or `over cap`.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::schema::view_reason))]
    pub reason: String,
}

/// The wire view of a plan.
pub fn plan_view(registry: &Registry, plan: &Plan) -> PlanView {
    let name = |index: usize| {
        plan.nodes
            .get(index)
            .map(|node| registry.intent(node.intent).name.clone())
            .unwrap_or_default()
    };
    PlanView {
        nodes: plan
            .nodes
            .iter()
            .map(|node| NodeView {
                intent: registry.intent(node.intent).name.clone(),
                args: node
                    .args
                    .iter()
                    .filter_map(|arg| {
                        Some((registry.param(arg.param).name.clone(), arg.source.value()?.clone()))
                    })
                    .collect(),
            })
            .collect(),
        edges: plan
            .edges
            .iter()
            .map(|edge| EdgeView {
                from: name(edge.from),
                column: plan
                    .nodes
                    .get(edge.from)
                    .and_then(|node| registry.intent(node.intent).columns().get(edge.column))
                    .map(|column| column.name.clone())
                    .unwrap_or_default(),
                to: name(edge.to),
                param: registry.param(edge.param).name.clone(),
            })
            .collect(),
    }
}

/// The wire view of the dropped proposals.
pub fn dropped_view(registry: &Registry, dropped: &[Dropped]) -> Vec<DroppedView> {
    dropped
        .iter()
        .map(|dropped| DroppedView {
            intent: dropped.name.clone(),
            reason: match &dropped.reason {
                DropReason::Unknown => "unknown".to_owned(),
                DropReason::Duplicate => "duplicate".to_owned(),
                DropReason::OverCap => "over cap".to_owned(),
                DropReason::Forbidden { scopes } => format!("forbidden: {}", lacks_scopes(scopes)),
                DropReason::Unbindable { missing } => {
                    let names: Vec<&str> =
                        missing.iter().map(|&param| registry.param(param).name.as_str()).collect();
                    format!("unbindable: {}", names.join(", "))
                }
            },
        })
        .collect()
}

/// "your key lacks the bench scope" (or "the a and b scopes"): what a node dropped for missing
/// scopes tells the caller.
pub fn lacks_scopes(scopes: &[String]) -> String {
    match scopes {
        [one] => format!("your key lacks the {one} scope"),
        [rest @ .., last] => format!("your key lacks the {} and {last} scopes", rest.join(", ")),
        [] => "your key lacks a scope".to_owned(),
    }
}
