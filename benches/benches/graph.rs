//! planner-graph: the reference topology with trivial nodes.
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
use planner_graph::{
    Command, Durability, Graph, GraphBuilder, GraphState, MemoryCheckpointer, NodeError,
    PgCheckpointer, Route, RunConfig, Status, node_ids, routes,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::PgPool;
use tokio::runtime::Runtime;

node_ids! {
    enum Ref {
        CheckTermination => "check_termination",
        CheckRegionCurrency => "check_region_currency",
        ComposeSchema => "compose_schema",
        CheckCalculator => "check_calculator",
        AcquisitionRouting => "acquisition_routing",
        CheckCompletion => "check_completion",
        LlmDecide => "llm_decide",
        PostProcess => "post_process",
        EnforceCaps => "enforce_caps",
        RouteDecision => "route_decision",
        Search => "search",
        Observe => "observe",
        Calculate => "calculate",
        Reflect => "reflect",
        AskUser => "ask_user",
        ObserveUser => "observe_user",
        Finish => "finish",
    }
}

routes! { enum Termination { Finish => "finish", Continue => "continue" } }
routes! { enum RegionCurrency { AskRegion => "ask_region", AskCurrency => "ask_currency", Ready => "ready" } }
routes! { enum Calculator { Finish => "finish", Blocked => "blocked", Pending => "pending", NoCalc => "no_calc" } }
routes! { enum Acquisition { HasTask => "has_task", NoTask => "no_task" } }
routes! { enum Completion { Finish => "finish", HasTask => "has_task", Continue => "continue" } }
routes! { enum Decide { Finish => "finish", PostProcess => "post_process" } }
routes! { enum Caps { Finish => "finish", AskUser => "ask_user", Ok => "ok" } }
routes! {
    enum Decision {
        Search => "search", Reflect => "reflect", AskUser => "ask_user", Calculate => "calculate",
        Finish => "finish",
    }
}
routes! { enum SearchNext { Observe => "observe", Plan => "plan" } }

/// Loop `n` times through the main loop, then finish.
#[derive(Debug, Default, Serialize, Deserialize)]
struct LoopState {
    iteration: u64,
    n: u64,
}

impl GraphState for LoopState {
    /// Iterations completed by this step.
    type Update = u64;

    fn apply(&mut self, update: u64) {
        self.iteration += update;
    }
}

type Out<R> = Result<Command<u64, R>, NodeError>;

/// A trivial node always taking `route`.
fn always<R: Route>(route: R) -> impl Fn(&(), &LoopState, Option<&Value>) -> Out<R> {
    move |_, _, _| Ok(Command::goto(0, route))
}

fn build() -> Graph<Ref, LoopState, ()> {
    use Ref::*;
    let mut b = GraphBuilder::<Ref, LoopState, ()>::new();
    b.start(CheckTermination);
    b.add_fn(CheckTermination, |_: &(), state: &LoopState, _| -> Out<Termination> {
        let route =
            if state.iteration >= state.n { Termination::Finish } else { Termination::Continue };
        Ok(Command::goto(0, route))
    })
    .route(Termination::Finish, Finish)
    .route(Termination::Continue, CheckRegionCurrency);
    b.add_fn(CheckRegionCurrency, always(RegionCurrency::Ready))
        .route(RegionCurrency::AskRegion, AskUser)
        .route(RegionCurrency::AskCurrency, AskUser)
        .route(RegionCurrency::Ready, ComposeSchema);
    b.add_fn(ComposeSchema, always(())).goto(CheckCalculator);
    b.add_fn(CheckCalculator, always(Calculator::Pending))
        .route(Calculator::Finish, Finish)
        .route(Calculator::Blocked, AcquisitionRouting)
        .route(Calculator::Pending, AcquisitionRouting)
        .route(Calculator::NoCalc, AcquisitionRouting);
    b.add_fn(AcquisitionRouting, always(Acquisition::NoTask))
        .route(Acquisition::HasTask, EnforceCaps)
        .route(Acquisition::NoTask, CheckCompletion);
    b.add_fn(CheckCompletion, always(Completion::Continue))
        .route(Completion::Finish, Finish)
        .route(Completion::HasTask, EnforceCaps)
        .route(Completion::Continue, LlmDecide);
    b.add_fn(LlmDecide, always(Decide::PostProcess))
        .route(Decide::Finish, Finish)
        .route(Decide::PostProcess, PostProcess);
    b.add_fn(PostProcess, always(())).goto(EnforceCaps);
    b.add_fn(EnforceCaps, always(Caps::Ok))
        .route(Caps::Finish, Finish)
        .route(Caps::AskUser, AskUser)
        .route(Caps::Ok, RouteDecision);
    b.add_fn(RouteDecision, always(Decision::Search))
        .route(Decision::Search, Search)
        .route(Decision::Reflect, Reflect)
        .route(Decision::AskUser, AskUser)
        .route(Decision::Calculate, Calculate)
        .route(Decision::Finish, Finish);
    b.add_fn(Search, always(SearchNext::Observe))
        .route(SearchNext::Observe, Observe)
        .route(SearchNext::Plan, CheckTermination);
    b.add_fn(Observe, |_: &(), _: &LoopState, _| -> Out<()> { Ok(Command::goto(1, ())) })
        .goto(CheckTermination);
    b.add_fn(Calculate, always(())).goto(CheckTermination);
    b.add_fn(Reflect, always(())).goto(CheckTermination);
    b.add_fn(AskUser, |_: &(), _: &LoopState, resume: Option<&Value>| -> Out<()> {
        match resume {
            None => Ok(Command::Interrupt(Value::Null)),
            Some(_) => Ok(Command::goto(0, ())),
        }
    })
    .goto(ObserveUser);
    b.add_fn(ObserveUser, always(())).goto(CheckRegionCurrency);
    b.add_fn(Finish, always(())).goto_end();
    b.compile().expect("the reference topology is well formed")
}

/// Steps of the N-iteration loop: 12 per iteration, then check_termination and finish.
fn steps(n: u64) -> u64 {
    12 * n + 2
}

fn run(rt: &Runtime, graph: &Graph<Ref, LoopState, ()>, n: u64, config: &RunConfig) {
    let run = rt.block_on(graph.invoke(&(), LoopState { iteration: 0, n }, config));
    let run = run.expect("the loop runs");
    assert!(run.status == Status::Finished && run.trace.len() as u64 == steps(n));
    black_box(run);
}

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
