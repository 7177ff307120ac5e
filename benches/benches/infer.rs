//! Inference-plane benchmarks: the lexical proposer per question of the development corpus, and
//! the faithfulness gate on a 1 KB narration over 10 evidence tables.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use planner_benches::inputs::{gate_input, lexical_proposer, pick_inputs};
use planner_infer::{GateConfig, check_faithfulness};

fn lexical(c: &mut Criterion) {
    let proposer = lexical_proposer();
    let questions = pick_inputs();
    let mut next = 0;
    c.bench_function("infer/lexical_pick_per_question", |b| {
        b.iter(|| {
            let input = &questions[next % questions.len()];
            next += 1;
            black_box(proposer.pick(black_box(&input.question), &input.kinds, &input.spans))
        })
    });
}

fn gate(c: &mut Criterion) {
    let (evidence, narration) = gate_input();
    let config = GateConfig::reference();
    assert!(check_faithfulness(&narration, &evidence, &config).passed());
    c.bench_function("infer/gate_1kb_10_tables", |b| {
        b.iter(|| black_box(check_faithfulness(black_box(&narration), &evidence, &config)))
    });
}

criterion_group!(benches, lexical, gate);
criterion_main!(benches);
