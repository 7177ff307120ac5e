//! planner-acquire: a whole demo run of the coffee-shop profile with the offline decider and
//! the in-memory corpus (12 decisions, 5 questions answered through interrupts), with the
//! in-memory checkpointer and with PostgreSQL (only when `DATABASE_URL` is set). Throughput is
//! per graph step, so the figures read beside the runtime's own per-step costs.

use std::{
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use criterion::{Criterion, Throughput};
use planner_acquire::{
    AcqState, Checkpointer, Corpus, Ctx, Decider, Durability, Graph, Idea, MemoryCheckpointer,
    PgCheckpointer, Profile, Step, load_documents,
};
use planner_graph::{RunConfig, Status};
use serde_json::Value;
use sqlx::PgPool;
use tokio::runtime::Runtime;

/// The user's answers, in the order the run asks.
const ANSWERS: &[&str] = &["Berlin, Germany", "EUR", "26", "3", "EUR 11,400"];

fn fixtures() -> (Profile, Vec<planner_acquire::Document>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let profile = Profile::load(&root.join("fixtures/acquire/coffee_shop.toml")).expect("profile");
    let documents = load_documents(&root.join("fixtures/acquire/corpus.toml")).expect("corpus");
    (profile, documents)
}

/// One whole run: start, then answer every question; the steps taken.
fn run(rt: &Runtime, graph: &Graph<Step, AcqState, Ctx>, ctx: &Ctx, thread: &str) -> u64 {
    rt.block_on(async {
        let config = RunConfig::thread(thread);
        let idea = Idea {
            text: "A specialty coffee shop in Berlin".into(),
            location: None,
            currency: None,
        };
        let mut run =
            graph.invoke(ctx, AcqState::new(&ctx.profile, idea), &config).await.expect("run");
        let mut steps = run.trace.len() as u64;
        for answer in ANSWERS {
            assert!(matches!(run.status, Status::Interrupted(_)), "a question");
            run = graph.resume(ctx, thread, Value::from(*answer), &config).await.expect("resume");
            steps += run.trace.len() as u64;
        }
        assert_eq!(run.status, Status::Finished);
        steps
    })
}

async fn bench_pool(url: &str) -> Result<PgPool, Box<dyn std::error::Error>> {
    let pool = planner_benches::own_database(url, "planner_acquire_bench", 4).await?;
    planner_acquire::migrate(&pool).await?;
    sqlx::query("TRUNCATE planner_graph_checkpoints").execute(&pool).await?;
    Ok(pool)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let (profile, documents) = fixtures();
    let ctx = Ctx {
        profile: Arc::new(profile),
        decider: Decider::Offline,
        corpus: Corpus::Memory(documents),
    };
    let graph = planner_acquire::graph();
    let memory = |store: Arc<dyn Checkpointer>| graph.with_checkpointer(store, Durability::Async);
    let steps = run(&rt, &memory(Arc::new(MemoryCheckpointer::new())), &ctx, "warm");
    assert_eq!(steps, 129, "benches/targets.toml divides a run by its 129 steps");

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args();
    let mut group = c.benchmark_group("acquire/coffee_shop_run");
    group.throughput(Throughput::Elements(steps));
    group.bench_function("memory", |b| {
        b.iter(|| run(&rt, &memory(Arc::new(MemoryCheckpointer::new())), &ctx, "bench"));
    });
    let pool = planner_benches::opened_or_skip(
        "acquire/coffee_shop_run/postgres",
        planner_benches::database_url().map(|url| rt.block_on(bench_pool(&url))),
    );
    if let Some(pool) = pool {
        let store: Arc<dyn Checkpointer> =
            rt.block_on(async { Arc::new(PgCheckpointer::new(pool)) });
        let saved = graph.with_checkpointer(store, Durability::Async);
        let thread = AtomicU64::new(0);
        group.sample_size(10).measurement_time(Duration::from_secs(10));
        group.bench_function("postgres", |b| {
            b.iter(|| {
                let id = format!("bench-{}", thread.fetch_add(1, Ordering::Relaxed));
                run(&rt, &saved, &ctx, &id)
            });
        });
    }
    group.finish();
    c.final_summary();
}
