//! Plan grammar benchmarks: validate and bind a 6-node plan on the 16-intent test reference
//! registry and on a generated 1,000-intent registry (to show how cost grows), plus loading the
//! reference registry (parse, validate, SQL guard).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use planner_grammar::{Inputs, validate};
use planner_registry::{ParamKind, Registry, Value};

const REFERENCE: &str = include_str!("../../fixtures/registry/test-reference.toml");

fn load(text: &str, origin: &str) -> Registry {
    match Registry::from_toml(text, origin) {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

/// A registry of `count` intents over the seven reference params: each query intent takes one
/// or two params; every tenth provides a UEI, every tenth (offset) needs one; every fiftieth is a
/// composite of the two intents before it.
fn generated(count: usize) -> String {
    let mut text = String::from(
        r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["market"]
scopes = ["bench"]

[planes]
market = { tenant = false, schemas = ["market"] }

[params]
agency = { kind = "agency" }
naics = { kind = "naics" }
requirement_id = { kind = "uuid" }
uei = { kind = "uei" }
window_months = { kind = "months" }
"#,
    );
    for index in 0..count {
        let name = format!("intent_{index:04}");
        if index % 50 == 49 {
            let _ = write!(
                text,
                "\n[[intent]]\nname = \"{name}\"\ndescription = \"Composite {index}.\"\n\
                 members = [\"intent_{:04}\", \"intent_{:04}\"]\n",
                index - 2,
                index - 1
            );
            continue;
        }
        let (params, sql_where) = match index % 10 {
            3 => ("{ name = \"uei\" }", "t.uei = $1::text"),
            5 => ("{ name = \"requirement_id\" }", "t.id = $1::uuid"),
            7 => (
                "{ name = \"naics\" }, { name = \"window_months\", default = 12, min = 1, max = 60 }",
                "t.naics = $1::text AND t.months <= $2::int",
            ),
            _ => (
                "{ name = \"agency\" }, { name = \"naics\" }",
                "t.agency = $1::text AND t.naics = $2::text",
            ),
        };
        let provides = if index % 10 == 5 { ", provides = \"uei\"" } else { "" };
        let _ = write!(
            text,
            "\n[[intent]]\nname = \"{name}\"\ndescription = \"Intent {index}.\"\nplane = \"market\"\n\
             params = [{params}]\nsql = \"SELECT t.uei FROM market.t{index} AS t WHERE {sql_where}\"\n\
             columns = [{{ name = \"uei\", type = \"text\"{provides} }}]\n"
        );
    }
    text
}

fn available() -> BTreeMap<ParamKind, Value> {
    [
        (ParamKind::Agency, Value::Text("Department of the Army".to_owned())),
        (ParamKind::Naics, Value::Text("541512".to_owned())),
        (ParamKind::Uuid, Value::Text("0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90".to_owned())),
        (ParamKind::Months, Value::Int(18)),
    ]
    .into_iter()
    .collect()
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn bench_grammar(c: &mut Criterion) {
    let available = available();
    let scopes = vec!["bench".to_owned()];
    let inputs = Inputs { available: &available, scopes: &scopes };

    // 16 intents: a composite of four (two edges), an edge-bound node and one more: 6 nodes.
    let reference = load(REFERENCE, "test-reference.toml");
    let proposal = names(&["bench_availability", "vendor_profile", "capture_picture"]);
    let validation = validate(&reference, &inputs, &proposal);
    assert_eq!(validation.plan.nodes.len(), 6, "{validation:?}");
    c.bench_function("grammar/validate_6_nodes_16_intents", |b| {
        b.iter(|| validate(&reference, black_box(&inputs), black_box(&proposal)))
    });

    // 1,000 intents: a composite of two, two plain nodes, an edge-bound node and its provider.
    let large = load(&generated(1_000), "generated.toml");
    let proposal =
        names(&["intent_0999", "intent_0512", "intent_0020", "intent_0993", "intent_0995"]);
    let validation = validate(&large, &inputs, &proposal);
    assert_eq!(validation.plan.nodes.len(), 6, "{validation:?}");
    assert_eq!(validation.plan.edges.len(), 1, "{validation:?}");
    c.bench_function("grammar/validate_6_nodes_1000_intents", |b| {
        b.iter(|| validate(&large, black_box(&inputs), black_box(&proposal)))
    });

    c.bench_function("grammar/load_reference_registry", |b| {
        b.iter(|| load(black_box(REFERENCE), "test-reference.toml"))
    });
}

criterion_group!(benches, bench_grammar);
criterion_main!(benches);
