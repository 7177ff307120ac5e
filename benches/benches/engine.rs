//! The planning path (screen, extract, lexical proposal, validation, binding) per question over
//! the development corpus: the work `planner plan` and every answer do before any SQL runs.
//!
//! `cargo bench -p planner-benches --bench engine`

use criterion::{Criterion, criterion_group, criterion_main};
use planner_engine::{Planner, parse_corpus, plan_report};
use planner_registry::Registry;

const REGISTRY: &str = include_str!("../../fixtures/registry/capture.toml");
const CORPUS: &str = include_str!("../../fixtures/eval/dev.jsonl");

fn planning(c: &mut Criterion) {
    let planner = Planner::new(Registry::from_toml(REGISTRY, "capture.toml").unwrap(), None, 1);
    let items = parse_corpus(CORPUS).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let scopes = vec!["bench".to_owned()];
    let mut group = c.benchmark_group("engine");
    // One iteration plans every corpus question; the report divides by the corpus size.
    group.bench_function(format!("plan_dev_corpus_{}_questions", items.len()), |b| {
        b.iter(|| {
            runtime.block_on(async {
                for item in &items {
                    std::hint::black_box(plan_report(&planner, &item.question, &scopes).await.ok());
                }
            });
        });
    });
    let compound = "For the 'Department of the Army' recompete under NAICS 541512, who are the \
                    incumbents and how many of our bench hold TS/SCI with SI/TK?";
    group.bench_function("plan_compound_question", |b| {
        b.iter(|| {
            runtime.block_on(plan_report(&planner, std::hint::black_box(compound), &scopes)).ok()
        });
    });
    group.finish();
}

criterion_group!(benches, planning);
criterion_main!(benches);
