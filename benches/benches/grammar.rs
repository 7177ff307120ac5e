//! Plan grammar benchmarks: validate and bind a 6-node plan on the 16-intent test reference
//! registry and on a generated 1,000-intent registry (to show how cost grows), plus loading the
//! reference registry (parse, validate, SQL guard).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use planner_benches::inputs::{TEST_REFERENCE_REGISTRY, ValidateCase, load};
use planner_grammar::validate;

fn bench_grammar(c: &mut Criterion) {
    let reference = ValidateCase::reference_16();
    let validation = validate(&reference.registry, &reference.inputs(), &reference.proposal);
    assert_eq!(validation.plan.nodes.len(), 6, "{validation:?}");
    c.bench_function("grammar/validate_6_nodes_16_intents", |b| {
        let inputs = reference.inputs();
        b.iter(|| validate(&reference.registry, black_box(&inputs), black_box(&reference.proposal)))
    });

    let large = ValidateCase::generated_1000();
    let validation = validate(&large.registry, &large.inputs(), &large.proposal);
    assert_eq!(validation.plan.nodes.len(), 6, "{validation:?}");
    assert_eq!(validation.plan.edges.len(), 1, "{validation:?}");
    c.bench_function("grammar/validate_6_nodes_1000_intents", |b| {
        let inputs = large.inputs();
        b.iter(|| validate(&large.registry, black_box(&inputs), black_box(&large.proposal)))
    });

    c.bench_function("grammar/load_reference_registry", |b| {
        b.iter(|| load(black_box(TEST_REFERENCE_REGISTRY), "test-reference.toml"))
    });
}

criterion_group!(benches, bench_grammar);
criterion_main!(benches);
