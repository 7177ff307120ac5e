//! Binding params with a role: each end binds the value the question gives it, a param without
//! a role binds as before (a kind written twice stays ambiguous for it), and edges bind a role
//! param by name.

use std::collections::BTreeMap;

use planner_grammar::{ArgSource, DropReason, Inputs, NO_ROLES, bind, validate};
use planner_registry::{ParamKind, Registry, Role, Value};

fn lanes() -> Registry {
    Registry::from_toml(include_str!("../../../fixtures/registry/lanes.toml"), "lanes.toml")
        .unwrap()
}

fn text(value: &str) -> Value {
    Value::Text(value.to_owned())
}

/// The args of `intent` bound from `available` and `roles`, as `name=value`, or the missing
/// params' names.
fn bound(
    registry: &Registry,
    intent: &str,
    available: &[(&str, &str)],
    roles: &[(Role, &str)],
) -> Result<Vec<String>, Vec<String>> {
    let hub = registry.kind_named("hub").unwrap();
    let available: BTreeMap<ParamKind, Value> = available
        .iter()
        .map(|&(kind, value)| (registry.kind_named(kind).unwrap(), text(value)))
        .collect();
    let roles: BTreeMap<(ParamKind, Role), Value> =
        roles.iter().map(|&(role, value)| ((hub, role), text(value))).collect();
    let inputs = Inputs { available: &available, roles: &roles, scopes: &[], refers: false };
    let name = |param| registry.param(param).name.clone();
    bind(registry, registry.intent_id(intent).unwrap(), &inputs)
        .map(|args| {
            args.iter()
                .map(|arg| match &arg.source {
                    ArgSource::Available(value) => format!("{}={value}", name(arg.param)),
                    ArgSource::Default(value) => format!("{}={value} (default)", name(arg.param)),
                    ArgSource::Upstream(edge) => format!("{}=edge {edge}", name(arg.param)),
                })
                .collect()
        })
        .map_err(|missing| missing.into_iter().map(name).collect())
}

#[test]
fn each_end_binds_the_value_the_question_gives_it() {
    let registry = lanes();
    assert_eq!(
        bound(&registry, "lane_volume", &[], &[(Role::From, "Seattle"), (Role::To, "Denver")]),
        Ok(vec![
            "origin=Seattle".to_owned(),
            "destination=Denver".to_owned(),
            "grain=month (default)".to_owned()
        ])
    );
    assert_eq!(
        bound(
            &registry,
            "lane_volume",
            &[("grain", "week")],
            &[(Role::To, "Seattle"), (Role::From, "Denver")]
        ),
        Ok(vec![
            "origin=Denver".to_owned(),
            "destination=Seattle".to_owned(),
            "grain=week".to_owned()
        ])
    );
}

#[test]
fn ends_not_told_apart_are_missing() {
    let registry = lanes();
    // Two hubs with no role: the kind is ambiguous, so nothing is available and no end told.
    assert_eq!(
        bound(&registry, "lane_volume", &[], &[]),
        Err(vec!["origin".to_owned(), "destination".to_owned()])
    );
    // One hub with no role does not say which end it is, when the intent needs both.
    assert_eq!(
        bound(&registry, "lane_volume", &[("hub", "Seattle")], &[]),
        Err(vec!["origin".to_owned(), "destination".to_owned()])
    );
    assert_eq!(
        bound(&registry, "lane_volume", &[("hub", "Seattle")], &[(Role::From, "Seattle")]),
        Err(vec!["destination".to_owned()])
    );
}

#[test]
fn an_intents_only_param_of_a_kind_reads_an_unmarked_value() {
    let registry = lanes();
    assert_eq!(
        bound(&registry, "top_destinations", &[("hub", "Reno")], &[]),
        Ok(vec!["origin=Reno".to_owned()])
    );
    // ...but not one the question makes the other end.
    assert_eq!(
        bound(&registry, "top_destinations", &[("hub", "Reno")], &[(Role::To, "Reno")]),
        Err(vec!["origin".to_owned()])
    );
}

#[test]
fn a_param_without_a_role_binds_as_before() {
    let registry = lanes();
    assert_eq!(
        bound(&registry, "hub_dwell", &[("hub", "Boise")], &[(Role::From, "Boise")]),
        Ok(vec!["hub=Boise".to_owned(), "carrier=Northline (default)".to_owned()])
    );
    // Two hubs told apart by role are still two hubs for a param that wants one.
    assert_eq!(
        bound(&registry, "hub_dwell", &[], &[(Role::From, "Seattle"), (Role::To, "Denver")]),
        Err(vec!["hub".to_owned()])
    );
}

#[test]
fn an_edge_binds_a_role_param_by_name() {
    let registry = lanes();
    let hub = registry.kind_named("hub").unwrap();
    let roles: BTreeMap<(ParamKind, Role), Value> = [((hub, Role::From), text("Seattle"))].into();
    let available = BTreeMap::new();
    let inputs = Inputs { available: &available, roles: &roles, scopes: &[], refers: false };
    let proposal = ["lane_volume".to_owned(), "top_destinations".to_owned()];
    let validation = validate(&registry, &inputs, &proposal);
    assert!(validation.dropped.is_empty(), "{:?}", validation.dropped);
    let plan = &validation.plan;
    let names: Vec<&str> =
        plan.nodes.iter().map(|n| registry.intent(n.intent).name.as_str()).collect();
    assert_eq!(names, ["lane_volume", "top_destinations"]);
    let [edge] = plan.edges.as_slice() else { panic!("{:?}", plan.edges) };
    assert_eq!((edge.from, edge.to), (1, 0));
    assert_eq!(registry.param(edge.param).name, "destination");
    assert_eq!(plan.nodes[0].args[0].source, ArgSource::Available(text("Seattle")));
    assert_eq!(plan.nodes[0].args[1].source, ArgSource::Upstream(0));
    assert_eq!(plan.nodes[1].args[0].source, ArgSource::Available(text("Seattle")));

    // Without roles, the validator says what is missing.
    let inputs = Inputs { available: &available, roles: NO_ROLES, scopes: &[], refers: false };
    let validation = validate(&registry, &inputs, &["lane_volume".to_owned()]);
    let [dropped] = validation.dropped.as_slice() else { panic!("{:?}", validation.dropped) };
    let DropReason::Unbindable { missing } = &dropped.reason else { panic!("{dropped:?}") };
    let missing: Vec<&str> = missing.iter().map(|&p| registry.param(p).name.as_str()).collect();
    assert_eq!(missing, ["origin", "destination"]);
}
