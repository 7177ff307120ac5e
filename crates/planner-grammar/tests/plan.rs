//! Validation of proposals on the test reference registry, checked through the wire view the
//! CLI prints: binding, defaults and clamping, composites, edges, providers, scopes, the cap,
//! self-consistency and the trace.

use std::collections::BTreeMap;

use planner_grammar::{
    Agreement, Inputs, NodeOrigin, PlanTrace, Validation, dropped_view, plan_view, stabilize,
    validate,
};
use planner_registry::{ParamKind, Registry, Value};
use serde_json::json;

const REFERENCE: &str = include_str!("../../../fixtures/registry/test-reference.toml");
const REQUIREMENT: &str = "0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90";

fn registry() -> Registry {
    match Registry::from_toml(REFERENCE, "test-reference.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

fn text(value: &str) -> Value {
    Value::Text(value.to_owned())
}

fn names(proposal: &[&str]) -> Vec<String> {
    proposal.iter().map(|name| (*name).to_owned()).collect()
}

fn run(
    registry: &Registry,
    proposal: &[&str],
    available: &[(ParamKind, Value)],
    scopes: &[&str],
) -> Validation {
    let available: BTreeMap<ParamKind, Value> = available.iter().cloned().collect();
    let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_owned()).collect();
    validate(
        registry,
        &Inputs {
            available: &available,
            roles: planner_grammar::NO_ROLES,
            scopes: &scopes,
            refers: false,
        },
        &names(proposal),
    )
}

/// Validates and compares the CLI's view of the result: `{"plan": ..., "dropped": ...}`.
#[track_caller]
fn check(
    proposal: &[&str],
    available: &[(ParamKind, Value)],
    scopes: &[&str],
    expected: serde_json::Value,
) {
    let registry = registry();
    let validation = run(&registry, proposal, available, scopes);
    let got = json!({
        "plan": plan_view(&registry, &validation.plan),
        "dropped": dropped_view(&registry, &validation.dropped),
    });
    assert_eq!(got, expected, "\n{}", serde_json::to_string_pretty(&got).unwrap_or_default());
}

fn army_541512() -> Vec<(ParamKind, Value)> {
    vec![(ParamKind::Agency, text("Department of the Army")), (ParamKind::Naics, text("541512"))]
}

#[test]
fn single_intent_binds_with_its_default() {
    check(
        &["top_incumbents"],
        &army_541512(),
        &[],
        json!({
            "plan": {"nodes": [{"intent": "top_incumbents", "args": {
                "agency": "Department of the Army", "naics": "541512", "window_months": 36}}],
                "edges": []},
            "dropped": [],
        }),
    );
}

#[test]
fn months_are_clamped_into_the_intent_range() {
    let mut available = army_541512();
    available.push((ParamKind::Months, Value::Int(500)));
    check(
        &["upcoming_recompetes", "top_incumbents"],
        &available,
        &[],
        json!({
            "plan": {"nodes": [
                {"intent": "top_incumbents", "args": {
                    "agency": "Department of the Army", "naics": "541512", "window_months": 120}},
                {"intent": "upcoming_recompetes", "args": {
                    "agency": "Department of the Army", "naics": "541512", "window_months": 60}},
            ], "edges": []},
            "dropped": [],
        }),
    );
}

#[test]
fn unknown_names_are_dropped_and_duplicates_merged() {
    check(
        &["top_incumbents", "DROP TABLE awards", "top_incumbents", "rank_people"],
        &army_541512(),
        &[],
        json!({
            "plan": {"nodes": [{"intent": "top_incumbents", "args": {
                "agency": "Department of the Army", "naics": "541512", "window_months": 36}}],
                "edges": []},
            "dropped": [
                {"intent": "DROP TABLE awards", "reason": "unknown"},
                {"intent": "rank_people", "reason": "unknown"},
                {"intent": "top_incumbents", "reason": "duplicate"},
            ],
        }),
    );
}

#[test]
fn a_missing_required_param_makes_the_node_unbindable() {
    check(
        &["vendor_profile", "agency_naics_spend"],
        &[(ParamKind::Agency, text("Department of the Army"))],
        &[],
        json!({
            "plan": {"nodes": [], "edges": []},
            "dropped": [
                {"intent": "agency_naics_spend", "reason": "unbindable: naics"},
                {"intent": "vendor_profile", "reason": "unbindable: uei"},
            ],
        }),
    );
}

#[test]
fn an_edge_binds_a_param_another_node_provides() {
    check(
        &["vendor_profile", "requirement_incumbent"],
        &[(ParamKind::Uuid, text(REQUIREMENT))],
        &[],
        json!({
            "plan": {
                "nodes": [
                    {"intent": "vendor_profile", "args": {}},
                    {"intent": "requirement_incumbent", "args": {"requirement_id": REQUIREMENT}},
                ],
                "edges": [{"from": "requirement_incumbent", "column": "incumbent_uei",
                           "to": "vendor_profile", "param": "uei"}],
            },
            "dropped": [],
        }),
    );
}

#[test]
fn the_one_possible_provider_is_added_and_flagged() {
    let registry = registry();
    let validation =
        run(&registry, &["vendor_profile"], &[(ParamKind::Uuid, text(REQUIREMENT))], &[]);
    let nodes: Vec<(&str, NodeOrigin)> = validation
        .plan
        .nodes
        .iter()
        .map(|node| (registry.intent(node.intent).name.as_str(), node.origin))
        .collect();
    assert_eq!(
        nodes,
        [("vendor_profile", NodeOrigin::Proposed), ("requirement_incumbent", NodeOrigin::Provider)]
    );
    assert_eq!(validation.plan.edges.len(), 1);
    assert_eq!(validation.plan.run_order(), [1, 0]);
    let trace = PlanTrace::new(&registry, &validation, None);
    assert_eq!(trace.provider_count, 1);
}

#[test]
fn two_possible_providers_add_none() {
    let mut available = army_541512();
    available.push((ParamKind::Uuid, text(REQUIREMENT)));
    check(
        &["vendor_profile"],
        &available,
        &[],
        json!({
            "plan": {"nodes": [], "edges": []},
            "dropped": [{"intent": "vendor_profile", "reason": "unbindable: uei"}],
        }),
    );
}

#[test]
fn a_composite_expands_with_its_edges() {
    check(
        &["capture_picture"],
        &[(ParamKind::Uuid, text(REQUIREMENT))],
        &["bench"],
        json!({
            "plan": {
                "nodes": [
                    {"intent": "top_incumbents", "args": {"window_months": 36}},
                    {"intent": "requirement_summary", "args": {"requirement_id": REQUIREMENT}},
                    {"intent": "requirement_incumbent", "args": {"requirement_id": REQUIREMENT}},
                    {"intent": "bench_requirement_fit", "args": {"requirement_id": REQUIREMENT}},
                ],
                "edges": [
                    {"from": "requirement_summary", "column": "agency", "to": "top_incumbents", "param": "agency"},
                    {"from": "requirement_summary", "column": "naics", "to": "top_incumbents", "param": "naics"},
                ],
            },
            "dropped": [],
        }),
    );
}

#[test]
fn a_composite_member_needing_a_missing_scope_is_forbidden() {
    check(
        &["capture_picture", "bench_availability"],
        &[(ParamKind::Uuid, text(REQUIREMENT))],
        &[],
        json!({
            "plan": {
                "nodes": [
                    {"intent": "top_incumbents", "args": {"window_months": 36}},
                    {"intent": "requirement_summary", "args": {"requirement_id": REQUIREMENT}},
                    {"intent": "requirement_incumbent", "args": {"requirement_id": REQUIREMENT}},
                ],
                "edges": [
                    {"from": "requirement_summary", "column": "agency", "to": "top_incumbents", "param": "agency"},
                    {"from": "requirement_summary", "column": "naics", "to": "top_incumbents", "param": "naics"},
                ],
            },
            "dropped": [
                {"intent": "bench_availability", "reason": "forbidden: your key lacks the bench scope"},
                {"intent": "bench_requirement_fit", "reason": "forbidden: your key lacks the bench scope"},
            ],
        }),
    );
}

#[test]
fn the_node_cap_keeps_the_first_nodes_in_registry_order() {
    let mut available = army_541512();
    available.push((ParamKind::Uei, text("J7M9KLPQ2R45")));
    available.push((ParamKind::Clearance, text("ts_sci")));
    let proposal = [
        "bench_clearance_counts",
        "partner_competitor_ratio",
        "vendor_teaming_partners",
        "vendor_competitors",
        "naics_market_share",
        "vendor_profile",
        "vendor_awards",
        "upcoming_recompetes",
        "top_incumbents",
        "agency_naics_spend",
    ];
    let registry = registry();
    let validation = run(&registry, &proposal, &available, &["bench"]);
    let kept: Vec<&str> =
        validation.plan.nodes.iter().map(|n| registry.intent(n.intent).name.as_str()).collect();
    assert_eq!(
        kept,
        [
            "agency_naics_spend",
            "top_incumbents",
            "upcoming_recompetes",
            "vendor_awards",
            "vendor_profile",
            "naics_market_share"
        ]
    );
    let dropped = dropped_view(&registry, &validation.dropped);
    let reasons: Vec<(&str, &str)> =
        dropped.iter().map(|d| (d.intent.as_str(), d.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            ("bench_clearance_counts", "over cap"),
            ("partner_competitor_ratio", "over cap"),
            ("vendor_competitors", "over cap"),
            ("vendor_teaming_partners", "over cap"),
        ]
    );
}

#[test]
fn a_strict_majority_of_samples_is_kept() {
    let registry = registry();
    let available: BTreeMap<ParamKind, Value> = army_541512().into_iter().collect();
    let inputs = Inputs {
        available: &available,
        roles: planner_grammar::NO_ROLES,
        scopes: &[],
        refers: false,
    };
    let proposals = vec![
        names(&["top_incumbents", "agency_naics_spend"]),
        names(&["top_incumbents"]),
        names(&["top_incumbents", "upcoming_recompetes", "made_up"]),
    ];
    let consensus = stabilize(&registry, &inputs, &proposals);
    let kept: Vec<&str> = consensus
        .validation
        .plan
        .nodes
        .iter()
        .map(|n| registry.intent(n.intent).name.as_str())
        .collect();
    assert_eq!(kept, ["top_incumbents"]);
    assert_eq!(consensus.outcome.agreement, Agreement::Majority);
    assert_eq!((consensus.outcome.kept, consensus.outcome.discarded), (1, 2));
    assert_eq!(consensus.outcome.unknown, 1);
}

#[test]
fn no_majority_gives_an_empty_plan() {
    let registry = registry();
    let available: BTreeMap<ParamKind, Value> = army_541512().into_iter().collect();
    let inputs = Inputs {
        available: &available,
        roles: planner_grammar::NO_ROLES,
        scopes: &[],
        refers: false,
    };
    let proposals = vec![names(&["top_incumbents"]), names(&["agency_naics_spend"])];
    let consensus = stabilize(&registry, &inputs, &proposals);
    assert!(consensus.validation.plan.is_empty());
    assert_eq!(consensus.outcome.agreement, Agreement::NoMajority);
    let none = stabilize(&registry, &inputs, &[]);
    assert!(none.validation.plan.is_empty());
    assert_eq!(none.outcome.agreement, Agreement::NoProposal);
}

#[test]
fn the_trace_holds_names_kinds_and_counts() {
    let registry = registry();
    let available: BTreeMap<ParamKind, Value> =
        [(ParamKind::Uuid, text(REQUIREMENT))].into_iter().collect();
    let inputs = Inputs {
        available: &available,
        roles: planner_grammar::NO_ROLES,
        scopes: &[],
        refers: false,
    };
    let proposals = vec![
        names(&["capture_picture", "vendor_profile", "bogus"]),
        names(&["capture_picture", "vendor_profile"]),
    ];
    let consensus = stabilize(&registry, &inputs, &proposals);
    let trace = PlanTrace::new(&registry, &consensus.validation, Some(&consensus.outcome));
    let got = serde_json::to_value(&trace).unwrap_or_default();
    assert_eq!(
        got,
        json!({
            "nodes": [
                {"intent": "top_incumbents", "origin": "composite",
                 "param_kinds": ["months"], "edge_kinds": ["agency", "naics"]},
                {"intent": "vendor_profile", "origin": "proposed",
                 "param_kinds": [], "edge_kinds": ["uei"]},
                {"intent": "requirement_summary", "origin": "composite",
                 "param_kinds": ["uuid"], "edge_kinds": []},
                {"intent": "requirement_incumbent", "origin": "composite",
                 "param_kinds": ["uuid"], "edge_kinds": []},
            ],
            "dropped": [{"intent": "bench_requirement_fit", "reason": "forbidden", "missing_kinds": []}],
            "node_count": 4,
            "edge_count": 3,
            "dropped_count": 1,
            "unknown_count": 0,
            "provider_count": 0,
            "self_consistency": {"samples": 2, "agreement": "unanimous", "kept": 2,
                                 "discarded": 0, "unknown": 1},
        })
    );
}

#[test]
fn args_print_as_the_cli_contract_says() {
    let compartments = Value::List(vec!["SI".to_owned(), "TK".to_owned()]);
    check(
        &["bench_compartment_counts", "bench_availability"],
        &[
            (ParamKind::Clearance, text("ts_sci")),
            (ParamKind::Compartments, compartments),
            (ParamKind::Months, Value::Int(6)),
        ],
        &["bench"],
        json!({
            "plan": {"nodes": [
                {"intent": "bench_compartment_counts",
                 "args": {"clearance": "ts_sci", "compartments": ["SI", "TK"]}},
                {"intent": "bench_availability", "args": {"window_months": 6}},
            ], "edges": []},
            "dropped": [],
        }),
    );
}

#[test]
fn values_outside_a_param_enum_are_not_bound() {
    check(
        &["bench_clearance_counts"],
        &[(ParamKind::Clearance, text("cosmic"))],
        &["bench"],
        json!({
            "plan": {"nodes": [], "edges": []},
            "dropped": [{"intent": "bench_clearance_counts", "reason": "unbindable: clearance"}],
        }),
    );
}

/// A registry where the only provider of `uei` takes nothing but a defaulted window.
const DEFAULTS_ONLY: &str = r#"
[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["market"]
scopes = []

[planes]
market = { tenant = false, schemas = ["market"] }

[params]
uei = { kind = "uei" }
naics = { kind = "naics" }
window_months = { kind = "months" }

[[intent]]
name = "top_vendors"
description = "Top vendors by obligations over the last months."
keywords = ["top vendors"]
plane = "market"
params = [{ name = "window_months", default = 12, min = 1, max = 60 }]
sql = """
SELECT a.vendor_uei AS uei, sum(a.obligated) AS obligations
FROM market.awards AS a
WHERE a.signed_on >= current_date - make_interval(months => $1::int)
GROUP BY a.vendor_uei
ORDER BY obligations DESC, a.vendor_uei
LIMIT 10
"""
columns = [
  { name = "uei", type = "text", provides = "uei" },
  { name = "obligations", type = "decimal" },
]

[[intent]]
name = "naics_vendors"
description = "Top vendors by obligations in one NAICS code."
keywords = ["naics vendors"]
plane = "market"
params = [{ name = "naics" }]
sql = """
SELECT a.vendor_uei AS uei, sum(a.obligated) AS obligations
FROM market.awards AS a
WHERE a.naics = $1::text
GROUP BY a.vendor_uei
ORDER BY obligations DESC, a.vendor_uei
LIMIT 10
"""
columns = [
  { name = "uei", type = "text", provides = "uei" },
  { name = "obligations", type = "decimal" },
]

[[intent]]
name = "vendor_awards"
description = "Awards of one vendor."
keywords = ["awards"]
plane = "market"
params = [{ name = "uei" }]
sql = """
SELECT a.piid, a.obligated FROM market.awards AS a WHERE a.vendor_uei = $1::text ORDER BY a.piid
"""
columns = [
  { name = "piid", type = "text" },
  { name = "obligated", type = "decimal" },
]
"#;

#[test]
fn a_provider_joins_on_its_own_only_with_a_value_the_question_gives() {
    let registry = match Registry::from_toml(DEFAULTS_ONLY, "defaults-only.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    };
    // Nothing in the question: `top_vendors` could run on its defaults, but it would pick
    // vendors the question never asked about, so nothing is added and the uei stays missing.
    let alone = run(&registry, &["vendor_awards"], &[], &[]);
    assert!(alone.plan.nodes.is_empty(), "{:?}", alone.plan);
    assert_eq!(
        json!(dropped_view(&registry, &alone.dropped)),
        json!([{"intent": "vendor_awards", "reason": "unbindable: uei"}])
    );
    // A NAICS code in the question: `naics_vendors` needs it, and is the one bindable provider.
    let with_naics = run(&registry, &["vendor_awards"], &[(ParamKind::Naics, text("541512"))], &[]);
    let nodes: Vec<(&str, NodeOrigin)> = with_naics
        .plan
        .nodes
        .iter()
        .map(|node| (registry.intent(node.intent).name.as_str(), node.origin))
        .collect();
    assert_eq!(
        nodes,
        [("naics_vendors", NodeOrigin::Provider), ("vendor_awards", NodeOrigin::Proposed)]
    );
}
