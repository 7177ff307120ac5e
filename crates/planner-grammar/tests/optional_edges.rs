//! An optional param the question leaves to its default binds through an edge from a planned
//! node that provides it when the question refers back ("how reliable were they"), and keeps
//! its default otherwise.

use std::collections::BTreeMap;

use planner_grammar::{ArgSource, Inputs, validate};
use planner_registry::{ParamKind, Registry, Value};

const REGISTRY: &str = r#"
[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["freight"]

[planes]
freight = { tenant = false, schemas = ["freight"] }

[kinds.carrier]
type = "dictionary"
values = [{ value = "all_carriers" }, { value = "C1" }]

[kinds.top_n]
type = "integer"
cues = ["top"]

[params]
carrier = { kind = "carrier" }
top_n = { kind = "top_n" }

[[intent]]
name = "top_carriers"
description = "The carriers paid the most."
plane = "freight"
params = [{ name = "top_n", default = 5, min = 1, max = 50 }]
sql = "SELECT i.carrier FROM freight.invoices AS i GROUP BY i.carrier ORDER BY sum(i.amount) DESC LIMIT $1::int"
columns = [{ name = "carrier", type = "text", provides = "carrier" }]

[[intent]]
name = "reliability"
description = "On-time share for one carrier or all carriers."
plane = "freight"
params = [{ name = "carrier", default = "all_carriers" }]
sql = "SELECT s.carrier, count(*) AS shipments FROM freight.shipments AS s WHERE ($1::text = 'all_carriers' OR s.carrier = $1::text) GROUP BY s.carrier"
columns = [{ name = "carrier", type = "text" }, { name = "shipments", type = "int" }]
"#;

#[test]
fn an_optional_param_binds_through_an_edge_only_when_the_question_refers_back() {
    let registry = Registry::from_toml(REGISTRY, "freight.toml").unwrap();
    let top_n = registry.kind_named("top_n").unwrap();
    let available: BTreeMap<ParamKind, Value> = [(top_n, Value::Int(3))].into_iter().collect();
    let proposal = vec!["top_carriers".to_owned(), "reliability".to_owned()];
    let plan = |refers: bool| {
        validate(
            &registry,
            &Inputs {
                available: &available,
                roles: planner_grammar::NO_ROLES,
                scopes: &[],
                refers,
            },
            &proposal,
        )
        .plan
    };

    let referring = plan(true);
    assert_eq!(referring.nodes.len(), 2);
    assert_eq!(referring.edges.len(), 1);
    let edge = referring.edges[0];
    assert_eq!((edge.from, edge.to), (0, 1));
    assert_eq!(registry.param(edge.param).name, "carrier");
    assert_eq!(referring.nodes[1].args[0].source, ArgSource::Upstream(0));
    assert_eq!(referring.run_order(), [0, 1]);

    let plain = plan(false);
    assert!(plain.edges.is_empty());
    assert_eq!(
        plain.nodes[1].args[0].source,
        ArgSource::Default(Value::Text("all_carriers".to_owned()))
    );

    // A value the question gives is never replaced by an edge.
    let carrier = registry.kind_named("carrier").unwrap();
    let mut given = available.clone();
    given.insert(carrier, Value::Text("C1".to_owned()));
    let with_value = validate(
        &registry,
        &Inputs { available: &given, roles: planner_grammar::NO_ROLES, scopes: &[], refers: true },
        &proposal,
    )
    .plan;
    assert!(with_value.edges.is_empty());
    assert_eq!(
        with_value.nodes[1].args[0].source,
        ArgSource::Available(Value::Text("C1".to_owned()))
    );
}
