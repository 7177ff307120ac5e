//! The planning path (screen, extract, lexical proposal, validation, binding) per question over
//! the development corpus: the work `planner plan` and every answer do before any SQL runs; the
//! screen alone over the same questions (`engine/screen_dev_corpus_*`, extraction done before);
//! parsing the knowledge file the screen reads (`engine/knowledge_load`, paid once at start-up);
//! and,
//! when DATABASE_URL is set, whole answers in process (`engine/answer_*`: plan, guarded SQL,
//! narration, gate, checkpoint and audit) on the demo dataset at scale 1, in a database of its
//! own (`planner_bench_answers`, created, migrated and seeded on first use).
//!
//! `cargo bench -p planner-benches --bench engine`

use criterion::{Criterion, criterion_group, criterion_main};
use planner_benches::inputs::{CAPTURE_REGISTRY, COMPOUND_QUESTION, dev_corpus, load, planner};
use planner_engine::{Ask, Engine, EngineConfig, Outcome, plan_report};
use sqlx::PgPool;

fn planning(c: &mut Criterion) {
    let planner = planner();
    let items = dev_corpus();
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
    let compound = COMPOUND_QUESTION;
    group.bench_function("plan_compound_question", |b| {
        b.iter(|| {
            runtime.block_on(plan_report(&planner, std::hint::black_box(compound), &scopes)).ok()
        });
    });
    // The screen alone: the extraction it reads is made before timing.
    let extracted: Vec<_> = items
        .iter()
        .map(|item| (item.question.as_str(), planner.extractor().extract(&item.question)))
        .collect();
    group.bench_function(format!("screen_dev_corpus_{}_questions", items.len()), |b| {
        b.iter(|| {
            for (question, extraction) in &extracted {
                std::hint::black_box(planner.screen().check(question, extraction));
            }
        });
    });
    group.bench_function("knowledge_load", |b| {
        b.iter(|| std::hint::black_box(planner_knowledge::Knowledge::load().len()));
    });
    group.finish();
}

/// A database of the bench's own with the demo dataset at scale 1.
async fn answers_pool(url: &str) -> Result<PgPool, Box<dyn std::error::Error>> {
    let pool = planner_benches::own_database(url, "planner_bench_answers", 8).await?;
    planner_engine::migrate(&pool).await?;
    match planner_dataset::seed(&pool, &planner_dataset::SeedOptions::demo(1.0)).await {
        Ok(_) | Err(planner_dataset::Error::AlreadySeeded) => Ok(pool),
        Err(err) => Err(err.into()),
    }
}

#[expect(clippy::print_stderr, reason = "the bench says why it skips")]
fn answers(c: &mut Criterion) {
    let Ok(url) = std::env::var("DATABASE_URL") else {
        eprintln!("engine/answer_*: skipped, DATABASE_URL is not set");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let pool = match runtime.block_on(answers_pool(&url)) {
        Ok(pool) => pool,
        Err(err) => {
            eprintln!("engine/answer_*: skipped, database unavailable: {err}");
            return;
        }
    };
    let registry = load(CAPTURE_REGISTRY, "capture.toml");
    // The engine spawns its background writers on the runtime it is made in.
    let engine = {
        let _entered = runtime.enter();
        Engine::new(EngineConfig::new(registry), pool)
    };
    let ask = |question: &str| Ask {
        question: question.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
        key: None,
    };
    let requirement = planner_dataset::DEMO_REQUIREMENTS[0].id;
    let questions = [
        (
            "answer_single",
            "How much did the Army obligate under NAICS 541512 over the last 18 months?".to_owned(),
            1,
        ),
        // A demo requirement of the asking tenant: every node returns rows.
        ("answer_4_nodes", format!("capture picture {requirement}"), 4),
    ];
    let mut group = c.benchmark_group("engine");
    for (id, question, nodes) in &questions {
        // The answer must be what the benchmark says it is: every planned node ran and returned
        // rows, none was dropped.
        match runtime.block_on(engine.ask(ask(question))) {
            Ok(Outcome::Answered(answer)) => {
                assert_eq!(answer.evidence.len(), *nodes, "{id}: {:?}", answer.dropped);
                assert!(answer.dropped.is_empty(), "{id}: {:?}", answer.dropped);
                for table in &answer.evidence {
                    assert!(!table.rows.is_empty(), "{id}: {} returned no row", table.intent);
                }
            }
            other => panic!("{id}: {other:?}"),
        }
        group.bench_function(*id, |b| {
            b.iter(|| runtime.block_on(engine.ask(ask(question))).unwrap());
        });
    }
    group.finish();
}

criterion_group!(benches, planning, answers);
criterion_main!(benches);
