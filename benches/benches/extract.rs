//! Extractor benchmarks: every built-in extractor over a 300-byte question (target: median at
//! most 5 µs), over a 1 MiB text built from the question corpus (target: at least 100 MB/s),
//! the declared kinds of the retail registry over a 300-byte question, and the reference
//! registry's extractor (its seven kinds declared in `capture.toml`) over the same 300-byte
//! question as the first (targets: at most 5 µs).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use planner_benches::inputs::{
    RETAIL_300, corpus_1mib, question_300, reference_registry, retail_registry,
};

fn bench(c: &mut Criterion) {
    let question = question_300();
    let mut group = c.benchmark_group("extract");
    group.throughput(Throughput::Bytes(question.len() as u64));
    group.bench_function("question_300b", |b| {
        b.iter(|| planner_extract::extract(black_box(&question)));
    });
    let text = corpus_1mib();
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("corpus_1mib", |b| b.iter(|| planner_extract::extract(black_box(&text))));
    let prose =
        "the quick brown fox jumps over a lazy dog while nobody watches it. ".repeat(16_000);
    group.throughput(Throughput::Bytes(prose.len() as u64));
    group.bench_function("prose_1mib", |b| b.iter(|| planner_extract::extract(black_box(&prose))));
    // The kinds a registry file declares (the retail domain), over a 300-byte question.
    let extractor = planner_extract::Extractor::new(&retail_registry());
    let found = extractor.extract(RETAIL_300);
    assert!(found.params.len() >= 9, "every declared kind is found: {:?}", found.params);
    group.throughput(Throughput::Bytes(RETAIL_300.len() as u64));
    group.sample_size(100);
    group.bench_function("declared_300b", |b| {
        b.iter(|| extractor.extract(black_box(RETAIL_300)));
    });
    // The reference registry's own extractor, what an answer runs: the kinds it declares.
    let reference = planner_extract::Extractor::new(&reference_registry());
    assert_eq!(reference.extract(&question), planner_extract::extract(&question));
    group.throughput(Throughput::Bytes(question.len() as u64));
    group.bench_function("reference_300b", |b| {
        b.iter(|| reference.extract(black_box(&question)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
