//! Binding an intent's arguments from the available params and its defaults.

use std::collections::BTreeMap;

use planner_registry::{
    IntentId, IntentParam, ParamId, ParamKind, Registry, Requirement, Role, Value, ValueShape,
};

use crate::plan::{ArgSource, BoundArg};

/// What the caller brings besides the proposal.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The available params (the extractors' output, ambiguous ones left out), by kind.
    pub available: &'a BTreeMap<ParamKind, Value>,
    /// The values the question tells apart by role ("from Seattle to Denver"), by kind and
    /// role: what params with a role bind. Empty for a registry without roles.
    pub roles: &'a BTreeMap<(ParamKind, Role), Value>,
    /// The caller's scopes (for example `bench`).
    pub scopes: &'a [String],
    /// The question refers back to what another ask names ("how reliable were they", "those
    /// lanes", "each of them"): an optional param the question leaves to its default binds
    /// through an edge from a planned node that provides it, instead of the default.
    pub refers: bool,
}

/// No value told apart by role: the `roles` of [`Inputs`] for a caller without roles.
pub const NO_ROLES: &BTreeMap<(ParamKind, Role), Value> = &BTreeMap::new();

/// Binds every param of `intent` from the question's values (`inputs.available` looked up by
/// kind, `inputs.roles` by kind and role), clamping integers into the intent's range, or from
/// its defaults. Returns the params that are required and not given, in the intent's order,
/// when any is missing. Edges are the validator's business: this binds from the question
/// alone.
pub fn bind(
    registry: &Registry,
    intent: IntentId,
    inputs: &Inputs<'_>,
) -> Result<Vec<BoundArg>, Vec<ParamId>> {
    let params = &registry.intent(intent).params;
    let mut args = Vec::with_capacity(params.len());
    let mut missing = Vec::new();
    for param in params {
        match bind_one(registry, params, param, inputs) {
            Some(source) => args.push(BoundArg { param: param.param, kind: param.kind, source }),
            None => missing.push(param.param),
        }
    }
    if missing.is_empty() { Ok(args) } else { Err(missing) }
}

/// Binds one param of an intent whose params are `params` from the question's values or its
/// default; `None` when it is required and not given.
pub(crate) fn bind_one(
    registry: &Registry,
    params: &[IntentParam],
    param: &IntentParam,
    inputs: &Inputs<'_>,
) -> Option<ArgSource> {
    let given = given(params, param, inputs).filter(|value| fits(registry, param, value));
    match (&param.requirement, given) {
        (Requirement::Optional { range, .. }, Some(value)) => {
            Some(ArgSource::Available(clamp(value, *range)))
        }
        (Requirement::Required, Some(value)) => Some(ArgSource::Available(value.clone())),
        (Requirement::Optional { default, .. }, None) => Some(ArgSource::Default(default.clone())),
        (Requirement::Required, None) => None,
    }
}

/// The question's value for one param. A param without a role reads its kind's one value (a
/// kind written with two values gives it none). A param with a role reads the value the
/// question gives that end (`from Seattle`); an intent's only param of its kind also reads its
/// kind's one unmarked value ("Seattle departures"), unless the question makes that value the
/// other end.
fn given<'v>(
    params: &[IntentParam],
    param: &IntentParam,
    inputs: &'v Inputs<'_>,
) -> Option<&'v Value> {
    let Some(role) = param.role else { return inputs.available.get(&param.kind) };
    if let Some(value) = inputs.roles.get(&(param.kind, role)) {
        return Some(value);
    }
    let lone = params.iter().filter(|p| p.kind == param.kind).count() == 1;
    let value = inputs.available.get(&param.kind).filter(|_| lone)?;
    (inputs.roles.get(&(param.kind, role.other())) != Some(value)).then_some(value)
}

/// Clamps an integer value into an inclusive range; other values pass unchanged.
pub fn clamp(value: &Value, range: Option<(i64, i64)>) -> Value {
    match (value, range) {
        (Value::Int(n), Some((min, max))) => Value::Int((*n).clamp(min, max.max(min))),
        _ => value.clone(),
    }
}

/// Whether a value has the shape of its kind (and, for enum kinds, is among the values).
fn fits(registry: &Registry, param: &IntentParam, value: &Value) -> bool {
    accepts(registry, param.param, param.kind, value)
}

/// Whether `value` may bind `param` of `kind`: it has the kind's shape and, for a param that
/// lists its values, is among them. The check every value passes, from the question or, one
/// by one, from an upstream column (a fan-out binds each value through it).
pub fn accepts(registry: &Registry, param: ParamId, kind: ParamKind, value: &Value) -> bool {
    let allowed = &registry.param(param).values;
    let listed = |text: &String| allowed.is_empty() || allowed.contains(text);
    match (kind.shape(), value) {
        (ValueShape::Int, Value::Int(_)) => true,
        (ValueShape::List, Value::List(items)) => !items.is_empty() && items.iter().all(listed),
        (ValueShape::Text | ValueShape::Uuid | ValueShape::Date, Value::Text(text)) => {
            !text.is_empty() && listed(text)
        }
        (_, _) => false,
    }
}
