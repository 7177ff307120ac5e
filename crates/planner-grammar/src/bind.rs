//! Binding an intent's arguments from the available params and its defaults.

use std::collections::BTreeMap;

use planner_registry::{
    IntentId, IntentParam, ParamId, ParamKind, Registry, Requirement, Value, ValueShape,
};

use crate::plan::{ArgSource, BoundArg};

/// Binds every param of `intent` from `available` (looked up by kind), clamping integers into
/// the intent's range, or from its defaults. Returns the params that are required and not
/// available, in the intent's order, when any is missing. Edges are the validator's business:
/// this binds from the question alone.
pub fn bind(
    registry: &Registry,
    intent: IntentId,
    available: &BTreeMap<ParamKind, Value>,
) -> Result<Vec<BoundArg>, Vec<ParamId>> {
    let mut args = Vec::with_capacity(registry.intent(intent).params.len());
    let mut missing = Vec::new();
    for param in &registry.intent(intent).params {
        match bind_one(registry, param, available) {
            Some(source) => args.push(BoundArg { param: param.param, kind: param.kind, source }),
            None => missing.push(param.param),
        }
    }
    if missing.is_empty() { Ok(args) } else { Err(missing) }
}

/// Binds one param from the available params or its default; `None` when it is required and
/// not available.
pub(crate) fn bind_one(
    registry: &Registry,
    param: &IntentParam,
    available: &BTreeMap<ParamKind, Value>,
) -> Option<ArgSource> {
    let given = available.get(&param.kind).filter(|value| fits(registry, param, value));
    match (&param.requirement, given) {
        (Requirement::Optional { range, .. }, Some(value)) => {
            Some(ArgSource::Available(clamp(value, *range)))
        }
        (Requirement::Required, Some(value)) => Some(ArgSource::Available(value.clone())),
        (Requirement::Optional { default, .. }, None) => Some(ArgSource::Default(default.clone())),
        (Requirement::Required, None) => None,
    }
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
