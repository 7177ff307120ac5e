//! The plan report: what `planner plan --json` prints and `POST /v1/plan` returns, exactly the
//! format of the CLI contract (spec/cli-contract.md).

use planner_grammar::{DroppedView, PlanView, dropped_view, plan_view};
use planner_registry::{ParamKind, Registry, Value};
use serde::Serialize;

use crate::planning::{Planning, Route};

/// The plan report of one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlanReport {
    /// `single`, `plan`, `clarify`, `refused` or `unplannable`.
    pub route: Route,
    /// The params found in the question, in order of position.
    pub params: Vec<ParamReport>,
    /// Param names with two different values in the question.
    pub ambiguous: Vec<String>,
    /// The proposals (raw names), one list per sample.
    pub proposals: Vec<Vec<String>>,
    /// The validated plan.
    pub plan: PlanView,
    /// Proposed names dropped, with their reasons.
    pub dropped: Vec<DroppedView>,
    /// Route `clarify` only: the params the user is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// Route `clarify` only: the question for the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_to_user: Option<String>,
    /// Routes `single` and `plan`: qualifiers the question asks for that the registry cannot
    /// apply, each named with what the plan does instead (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unapplied: Vec<String>,
    /// Routes `single` and `plan`: the asks of the question no planned intent answers, as the
    /// question words them (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
}

/// One param found in the question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ParamReport {
    /// The registry's param name (the kind's name when the registry has no param of it).
    pub param: String,
    /// The canonical value.
    #[cfg_attr(feature = "openapi", schema(value_type = planner_registry::ParamValue))]
    pub value: Value,
    /// Byte range `[start, end)` in the question.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<usize>, min_items = 2, max_items = 2))]
    pub span: [usize; 2],
}

/// The param of `kind` a node of `plan` binds `value` to, the first such.
fn bound_param(
    registry: &Registry,
    plan: &planner_grammar::Plan,
    kind: ParamKind,
    value: &Value,
) -> Option<planner_registry::ParamId> {
    plan.nodes.iter().flat_map(|node| &node.args).find_map(|arg| {
        (registry.param(arg.param).kind == kind && arg.source.value() == Some(value))
            .then_some(arg.param)
    })
}

/// The registry's name for a kind's param (its param without a role).
pub(crate) fn param_name(registry: &Registry, kind: ParamKind) -> String {
    registry
        .param_of_kind(kind)
        .map_or_else(|| kind.as_str().to_owned(), |id| registry.param(id).name.clone())
}

impl PlanReport {
    /// The report of a planning outcome.
    pub fn new(
        registry: &Registry,
        planning: &Planning,
        question_to_user: Option<String>,
    ) -> PlanReport {
        let clarify = planning.route == Route::Clarify;
        PlanReport {
            route: planning.route,
            params: planning
                .params
                .mentions
                .iter()
                .map(|it| ParamReport {
                    // The param a planned node binds the value to, else the param its role
                    // words name, else the kind's own: "couriers out of Leeds" binds `depot`,
                    // though "out of" marks an origin.
                    param: bound_param(registry, &planning.validation.plan, it.kind, &it.value)
                        .or_else(|| {
                            it.role.and_then(|role| registry.param_of_role(it.kind, Some(role)))
                        })
                        .map_or_else(
                            || param_name(registry, it.kind),
                            |id| registry.param(id).name.clone(),
                        ),
                    value: it.value.clone(),
                    span: [it.span.0, it.span.1],
                })
                .collect(),
            ambiguous: planning
                .params
                .ambiguous
                .iter()
                .map(|&kind| param_name(registry, kind))
                .collect(),
            proposals: planning.proposed.samples.clone(),
            plan: plan_view(registry, &planning.validation.plan),
            dropped: dropped_view(registry, &planning.validation.dropped),
            missing: clarify.then(|| {
                planning.missing.iter().map(|&param| registry.param(param).name.clone()).collect()
            }),
            question_to_user: if clarify { question_to_user } else { None },
            unapplied: Vec::new(),
            unanswered: Vec::new(),
        }
    }
}
