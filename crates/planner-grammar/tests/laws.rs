//! The laws of validation, as property tests over the test reference registry: idempotence,
//! order independence, only registry names, the cap, kind-correct edges, bounded depth,
//! values only from the question or defaults, the majority law, and a trace without values.

use std::collections::BTreeMap;

use planner_grammar::{
    ArgSource, Inputs, MAX_DEPTH, Plan, PlanTrace, Validation, clamp, proposal_names, stabilize,
    validate,
};
use planner_registry::{ParamKind, Registry, Requirement, Value};
use proptest::prelude::*;

const REFERENCE: &str = include_str!("../../../fixtures/registry/test-reference.toml");

fn registry() -> Registry {
    match Registry::from_toml(REFERENCE, "test-reference.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

/// Registry names, plus a few names a model might invent.
fn name() -> impl Strategy<Value = String> {
    let registry = registry();
    let mut names: Vec<String> = registry.intents().iter().map(|i| i.name.clone()).collect();
    names.extend(
        ["rank_candidates", "vendor", "", "TOP_INCUMBENTS", "drop table"].map(String::from),
    );
    prop::sample::select(names)
}

fn proposal() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 0..9)
}

/// Available params with values no registry name, kind or count could contain.
fn available() -> impl Strategy<Value = BTreeMap<ParamKind, Value>> {
    (
        prop::option::of("Agency [A-Z]{6}"),
        prop::option::of(prop::sample::select(vec!["541512", "541330", "336411"])),
        prop::option::of("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
        prop::option::of(prop::sample::select(vec![
            "confidential",
            "secret",
            "top_secret",
            "ts_sci",
        ])),
        prop::option::of(prop::sample::subsequence(vec!["G", "HCS", "KLM", "SI", "TK"], 1..=5)),
        prop::option::of("[A-HJ-NP-Z1-9][A-HJ-NP-Z0-9]{11}"),
        prop::option::of(-5i64..400),
    )
        .prop_map(|(agency, naics, uuid, clearance, compartments, uei, months)| {
            let mut map = BTreeMap::new();
            let mut put = |kind, value: Option<Value>| {
                if let Some(value) = value {
                    map.insert(kind, value);
                }
            };
            put(ParamKind::Agency, agency.map(Value::Text));
            put(ParamKind::Naics, naics.map(|n| Value::Text(n.to_owned())));
            put(ParamKind::Uuid, uuid.map(Value::Text));
            put(ParamKind::Clearance, clearance.map(|c| Value::Text(c.to_owned())));
            put(
                ParamKind::Compartments,
                compartments.map(|list| Value::List(list.into_iter().map(String::from).collect())),
            );
            put(ParamKind::Uei, uei.map(Value::Text));
            put(ParamKind::Months, months.map(Value::Int));
            map
        })
}

fn scopes() -> impl Strategy<Value = Vec<String>> {
    prop::sample::select(vec![Vec::new(), vec!["bench".to_owned()]])
}

fn depths(plan: &Plan) -> Vec<usize> {
    let mut depth = vec![0usize; plan.nodes.len()];
    for _ in 0..=plan.nodes.len() {
        for edge in &plan.edges {
            depth[edge.to] = depth[edge.to].max(depth[edge.from] + 1);
        }
    }
    depth
}

fn check_plan(registry: &Registry, available: &BTreeMap<ParamKind, Value>, plan: &Plan) {
    // Only registry query intents, each once, in registry order, within the cap.
    assert!(plan.nodes.len() <= registry.node_cap());
    for pair in plan.nodes.windows(2) {
        assert!(pair[0].intent < pair[1].intent);
    }
    for node in &plan.nodes {
        let intent = registry.intent(node.intent);
        assert_eq!(registry.intent_id(&intent.name), Some(node.intent));
        assert!(!intent.is_composite());
        assert_eq!(node.args.len(), intent.params.len());
        for (arg, param) in node.args.iter().zip(&intent.params) {
            assert_eq!((arg.param, arg.kind), (param.param, param.kind));
            match (&arg.source, &param.requirement) {
                (ArgSource::Available(value), Requirement::Optional { range, .. }) => {
                    assert_eq!(
                        Some(value),
                        available.get(&arg.kind).map(|v| clamp(v, *range)).as_ref()
                    );
                }
                (ArgSource::Available(value), Requirement::Required) => {
                    assert_eq!(Some(value), available.get(&arg.kind));
                }
                (ArgSource::Default(value), Requirement::Optional { default, .. }) => {
                    assert_eq!(value, default);
                }
                (ArgSource::Default(_), Requirement::Required) => {
                    panic!("a default for a required param")
                }
                (ArgSource::Upstream(index), _) => {
                    let edge = plan.edges[*index];
                    assert_eq!(
                        (edge.to, edge.param),
                        (plan.node_of(node.intent).unwrap_or(usize::MAX), arg.param)
                    );
                }
            }
        }
    }
    // Every edge is kind-correct, and the depth is bounded (so there is no cycle either).
    for edge in &plan.edges {
        assert_ne!(edge.from, edge.to);
        let from = registry.intent(plan.nodes[edge.from].intent);
        let to = registry.intent(plan.nodes[edge.to].intent);
        let column = &from.columns()[edge.column];
        assert_eq!(column.provides, Some(edge.param));
        let kind = registry.param(edge.param).kind;
        assert!(column.ty.can_provide(kind));
        assert_eq!(to.param(edge.param).map(|p| p.kind), Some(kind));
        assert!(matches!(
            plan.nodes[edge.to].args.iter().find(|a| a.param == edge.param).map(|a| &a.source),
            Some(ArgSource::Upstream(_))
        ));
    }
    assert!(depths(plan).into_iter().all(|d| d <= usize::from(MAX_DEPTH)));
}

fn run(
    registry: &Registry,
    available: &BTreeMap<ParamKind, Value>,
    scopes: &[String],
    proposal: &[String],
) -> Validation {
    validate(
        registry,
        &Inputs { available, roles: planner_grammar::NO_ROLES, scopes, refers: false },
        proposal,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn plans_are_well_formed(proposal in proposal(), available in available(), scopes in scopes()) {
        let registry = registry();
        let validation = run(&registry, &available, &scopes, &proposal);
        check_plan(&registry, &available, &validation.plan);
    }

    #[test]
    fn validation_is_idempotent(proposal in proposal(), available in available(), scopes in scopes()) {
        let registry = registry();
        let first = run(&registry, &available, &scopes, &proposal);
        let again = run(&registry, &available, &scopes, &proposal_names(&registry, &first.plan));
        prop_assert_eq!(&again.plan, &first.plan);
    }

    #[test]
    fn validation_ignores_proposal_order(
        (proposal, shuffled) in proposal().prop_flat_map(|p| (Just(p.clone()), Just(p).prop_shuffle())),
        available in available(),
        scopes in scopes(),
    ) {
        let registry = registry();
        prop_assert_eq!(
            run(&registry, &available, &scopes, &proposal),
            run(&registry, &available, &scopes, &shuffled)
        );
    }

    #[test]
    fn every_proposal_is_kept_or_dropped(proposal in proposal(), available in available(), scopes in scopes()) {
        let registry = registry();
        let validation = run(&registry, &available, &scopes, &proposal);
        for name in &proposal {
            let kept = validation.plan.nodes.iter().any(|n| {
                registry.intent(n.intent).name == *name
                    || matches!(n.origin, planner_grammar::NodeOrigin::Composite(c) if registry.intent(c).name == *name)
            });
            let dropped = validation.dropped.iter().any(|d| d.name == *name);
            let members_dropped = registry.intent_id(name).is_some_and(|id| registry.intent(id).is_composite());
            prop_assert!(kept || dropped || members_dropped, "{} vanished", name);
        }
    }

    #[test]
    fn the_majority_law_holds(
        proposals in prop::collection::vec(proposal(), 0..6),
        available in available(),
        scopes in scopes(),
    ) {
        let registry = registry();
        let inputs = Inputs { available: &available, roles: planner_grammar::NO_ROLES, scopes: &scopes, refers: false };
        let consensus = stabilize(&registry, &inputs, &proposals);
        let mut votes: BTreeMap<String, usize> = BTreeMap::new();
        for proposal in &proposals {
            for name in proposal_names(&registry, &validate(&registry, &inputs, proposal).plan) {
                *votes.entry(name).or_default() += 1;
            }
        }
        let majority: Vec<String> = votes
            .iter()
            .filter(|&(_, &count)| 2 * count > proposals.len())
            .map(|(name, _)| name.clone())
            .collect();
        // Exactly the majority names, validated again (which reproduces each of them).
        prop_assert_eq!(consensus.outcome.kept, majority.len());
        let expected = validate(&registry, &inputs, &majority);
        prop_assert_eq!(&consensus.validation.plan, &expected.plan);
        if majority.is_empty() {
            prop_assert!(consensus.validation.plan.is_empty());
        }
        check_plan(&registry, &available, &consensus.validation.plan);
    }

    #[test]
    fn a_serialized_trace_never_contains_an_arg_value(
        proposals in prop::collection::vec(proposal(), 1..4),
        available in available(),
        scopes in scopes(),
    ) {
        let registry = registry();
        let inputs = Inputs { available: &available, roles: planner_grammar::NO_ROLES, scopes: &scopes, refers: false };
        let consensus = stabilize(&registry, &inputs, &proposals);
        let trace = PlanTrace::new(&registry, &consensus.validation, Some(&consensus.outcome));
        let json = serde_json::to_value(&trace).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = json.to_string();
        let mut values: Vec<Value> = available.values().cloned().collect();
        for node in &consensus.validation.plan.nodes {
            values.extend(node.args.iter().filter_map(|a| a.source.value().cloned()));
        }
        for value in &values {
            match value {
                Value::Text(text_value) => prop_assert!(!text.contains(text_value.as_str()), "{} in {}", text_value, text),
                Value::List(items) => {
                    for item in items {
                        prop_assert!(!text.contains(item.as_str()), "{} in {}", item, text);
                    }
                }
                Value::Int(_) => {}
            }
        }
        // Numbers appear only as counts, under these keys.
        const COUNTS: [&str; 9] = ["node_count", "edge_count", "dropped_count", "unknown_count",
            "provider_count", "samples", "kept", "discarded", "unknown"];
        fn numbers_only_under_counts(value: &serde_json::Value, key: Option<&str>) -> bool {
            match value {
                serde_json::Value::Number(_) => key.is_some_and(|k| COUNTS.contains(&k)),
                serde_json::Value::Array(items) => items.iter().all(|v| numbers_only_under_counts(v, key)),
                serde_json::Value::Object(map) => map.iter().all(|(k, v)| numbers_only_under_counts(v, Some(k))),
                _ => true,
            }
        }
        prop_assert!(numbers_only_under_counts(&json, None), "{}", text);
    }
}
