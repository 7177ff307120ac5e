//! Dependency depth and cycles on a registry built for them: a chain of providers longer than
//! the depth limit, and two intents that could only feed each other.

use std::collections::BTreeMap;

use planner_grammar::{Inputs, dropped_view, plan_view, validate};
use planner_registry::{ParamKind, Registry, Value};
use serde_json::json;

const CHAIN: &str = r#"
[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["s"]

[planes]
p = { tenant = false, schemas = ["s"] }

[params]
agency = { kind = "agency" }
naics = { kind = "naics" }
requirement_id = { kind = "uuid" }
uei = { kind = "uei" }
clearance = { kind = "clearance", values = ["secret"] }

[[intent]]
name = "a"
description = "Requirement to agency."
plane = "p"
params = [{ name = "requirement_id" }]
sql = "SELECT t.agency FROM s.t AS t WHERE t.id = $1::uuid"
columns = [{ name = "agency", type = "text", provides = "agency" }]

[[intent]]
name = "b"
description = "Agency to NAICS."
plane = "p"
params = [{ name = "agency" }]
sql = "SELECT t.naics FROM s.t AS t WHERE t.agency = $1::text"
columns = [{ name = "naics", type = "text", provides = "naics" }]

[[intent]]
name = "c"
description = "NAICS to UEI."
plane = "p"
params = [{ name = "naics" }]
sql = "SELECT t.uei FROM s.t AS t WHERE t.naics = $1::text"
columns = [{ name = "uei", type = "text", provides = "uei" }]

[[intent]]
name = "d"
description = "UEI to a name."
plane = "p"
params = [{ name = "uei" }]
sql = "SELECT t.name FROM s.t AS t WHERE t.uei = $1::text"
columns = [{ name = "name", type = "text" }]

[[intent]]
name = "e"
description = "Clearance to UEI, given an agency."
plane = "p"
params = [{ name = "clearance" }, { name = "agency" }]
sql = "SELECT t.uei FROM s.t AS t WHERE t.clearance = $1::text AND t.agency = $2::text"
columns = [{ name = "uei", type = "text", provides = "uei" }]
"#;

fn check(proposal: &[&str], available: &[(ParamKind, Value)], expected: serde_json::Value) {
    let registry = match Registry::from_toml(CHAIN, "chain.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    };
    let available: BTreeMap<ParamKind, Value> = available.iter().cloned().collect();
    let proposal: Vec<String> = proposal.iter().map(|s| (*s).to_owned()).collect();
    let validation = validate(
        &registry,
        &Inputs {
            available: &available,
            roles: planner_grammar::NO_ROLES,
            scopes: &[],
            refers: false,
        },
        &proposal,
    );
    let got = json!({
        "plan": plan_view(&registry, &validation.plan),
        "dropped": dropped_view(&registry, &validation.dropped),
    });
    assert_eq!(got, expected, "\n{}", serde_json::to_string_pretty(&got).unwrap_or_default());
}

#[test]
fn a_chain_stops_at_depth_two() {
    let id = Value::Text("0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90".to_owned());
    check(
        &["d", "c", "b", "a"],
        &[(ParamKind::Uuid, id.clone())],
        json!({
            "plan": {
                "nodes": [
                    {"intent": "a", "args": {"requirement_id": id}},
                    {"intent": "b", "args": {}},
                    {"intent": "c", "args": {}},
                ],
                "edges": [
                    {"from": "a", "column": "agency", "to": "b", "param": "agency"},
                    {"from": "b", "column": "naics", "to": "c", "param": "naics"},
                ],
            },
            "dropped": [{"intent": "d", "reason": "unbindable: uei"}],
        }),
    );
}

#[test]
fn providers_are_added_one_level_at_a_time_within_the_depth() {
    let id = Value::Text("0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90".to_owned());
    // `b` lacks agency: only `a` can provide it from the question, so `a` is added.
    check(
        &["b"],
        &[(ParamKind::Uuid, id.clone())],
        json!({
            "plan": {
                "nodes": [{"intent": "a", "args": {"requirement_id": id}}, {"intent": "b", "args": {}}],
                "edges": [{"from": "a", "column": "agency", "to": "b", "param": "agency"}],
            },
            "dropped": [],
        }),
    );
}

#[test]
fn intents_that_could_only_feed_a_loop_stay_unbound() {
    // `e` needs an agency and `d` needs a UEI that only `e` or `c` provide: nothing is
    // available, so nothing binds and no edge can form a cycle.
    check(
        &["d", "e", "b"],
        &[(ParamKind::Clearance, Value::Text("secret".to_owned()))],
        json!({
            "plan": {"nodes": [], "edges": []},
            "dropped": [
                {"intent": "b", "reason": "unbindable: agency"},
                {"intent": "d", "reason": "unbindable: uei"},
                {"intent": "e", "reason": "unbindable: agency"},
            ],
        }),
    );
}
