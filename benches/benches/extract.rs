//! Extractor benchmarks: every extractor over a 300-byte question (target: median at most
//! 5 µs) and over a 1 MiB text built from the question corpus (target: at least 100 MB/s).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const CORPUS: &str = include_str!("../../fixtures/extract/questions.txt");

fn questions() -> impl Iterator<Item = &'static str> {
    CORPUS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The corpus questions joined by spaces, cut at the last space before byte 300.
fn question_300() -> String {
    let mut text = String::new();
    for q in questions() {
        if text.len() >= 300 {
            break;
        }
        text.push_str(q);
        text.push(' ');
    }
    let cut = text[..300.min(text.len())].rfind(' ').unwrap_or(text.len());
    text.truncate(cut);
    text
}

/// The corpus repeated, one question a line, to at least 1 MiB.
fn long_text() -> String {
    let mut text = String::new();
    while text.len() < 1 << 20 {
        for q in questions() {
            text.push_str(q);
            text.push('\n');
        }
    }
    text
}

fn bench(c: &mut Criterion) {
    let question = question_300();
    let mut group = c.benchmark_group("extract");
    group.throughput(Throughput::Bytes(question.len() as u64));
    group.bench_function("question_300b", |b| {
        b.iter(|| planner_extract::extract(black_box(&question)));
    });
    let text = long_text();
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("corpus_1mib", |b| b.iter(|| planner_extract::extract(black_box(&text))));
    let prose =
        "the quick brown fox jumps over a lazy dog while nobody watches it. ".repeat(16_000);
    group.throughput(Throughput::Bytes(prose.len() as u64));
    group.bench_function("prose_1mib", |b| b.iter(|| planner_extract::extract(black_box(&prose))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
