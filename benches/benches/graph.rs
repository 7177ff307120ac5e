//! planner-graph: the reference topology with trivial nodes (`planner_benches::topology`).
//!
//! Per-step cost on the N=1000 main loop (12 steps per iteration, 12,002 steps in all) without a
//! checkpointer, with the in-memory one and with PostgreSQL (only when `DATABASE_URL` is set);
//! one N=1 invoke; building and compiling the graph; the process's peak memory (VmHWM).

use std::{
    hint::black_box,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use criterion::{Criterion, Throughput};
use planner_benches::topology::{build, run, steps};
use planner_graph::{Durability, MemoryCheckpointer, PgCheckpointer, RunConfig};
use sqlx::PgPool;

/// Peak resident memory of this process so far, in KiB.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|it| it.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[expect(clippy::print_stdout, reason = "the bench reports figures criterion does not measure")]
fn report(what: &str) {
    match peak_kib() {
        Some(kib) => {
            println!("graph/peak_memory {what}: VmHWM {kib} KiB ({:.1} MiB)", kib as f64 / 1024.0)
        }
        None => println!("graph/peak_memory {what}: VmHWM unavailable"),
    }
}

/// A database of its own for the bench, migrated and emptied.
async fn bench_pool(url: &str) -> Result<PgPool, Box<dyn std::error::Error>> {
    let pool = planner_benches::own_database(url, "planner_graph_bench", 4).await?;
    planner_graph::MIGRATOR.run(&pool).await?;
    sqlx::query("TRUNCATE planner_graph_checkpoints").execute(&pool).await?;
    Ok(pool)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let graph = build();
    // The runtime's own footprint: build, run the loop without and with the memory checkpointer.
    run(&rt, &graph, 1000, &RunConfig::default());
    let saved = graph.with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
    run(&rt, &saved, 1000, &RunConfig::thread("warm"));
    drop(saved);
    report("after N=1000 runs, before criterion");

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args();

    c.bench_function("graph/compile", |b| b.iter(|| black_box(build())));
    c.bench_function("graph/invoke_n1", |b| b.iter(|| run(&rt, &graph, 1, &RunConfig::default())));

    let mut group = c.benchmark_group("graph/loop_n1000");
    group.throughput(Throughput::Elements(steps(1000)));
    group.bench_function("no_checkpointer", |b| {
        b.iter(|| run(&rt, &graph, 1000, &RunConfig::default()))
    });
    group.bench_function("memory", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let saved =
                    graph.with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
                let start = Instant::now();
                run(&rt, &saved, 1000, &RunConfig::thread("bench"));
                total += start.elapsed();
            }
            total
        });
    });
    let store = planner_benches::opened_or_skip(
        "graph/loop_n1000/postgres",
        planner_benches::database_url().map(|url| rt.block_on(bench_pool(&url))),
    )
    .map(|pool| rt.block_on(async { Arc::new(PgCheckpointer::new(pool)) }));
    let thread = AtomicU64::new(0);
    let next_thread = || format!("bench-{}", thread.fetch_add(1, Ordering::Relaxed));
    if let Some(store) = &store {
        let saved = graph.with_checkpointer(store.clone(), Durability::Async);
        group.sample_size(10).measurement_time(Duration::from_secs(10));
        group.bench_function("postgres", |b| {
            b.iter(|| run(&rt, &saved, 1000, &RunConfig::thread(next_thread())));
        });
    }
    group.finish();
    if let Some(store) = store {
        // Durability::Sync waits for each step's write: one round trip per step.
        let mut group = c.benchmark_group("graph/loop_n10");
        group.throughput(Throughput::Elements(steps(10)));
        group.sample_size(10).measurement_time(Duration::from_secs(5));
        let synced = graph.with_checkpointer(store, Durability::Sync);
        group.bench_function("postgres_sync", |b| {
            b.iter(|| run(&rt, &synced, 10, &RunConfig::thread(next_thread())));
        });
        group.finish();
    }
    c.final_summary();
    report("at exit");
}
