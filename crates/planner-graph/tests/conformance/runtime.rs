//! Runtime behaviour: step limit, timeout, retry, cancellation, fan-out, durability, forks.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::Duration,
};

use planner_graph::{
    CancellationToken, Checkpoint, Checkpointer, Command, Durability, Error, Event, GraphBuilder,
    GraphState, MemoryCheckpointer, Node, NodeError, Policy, RunConfig, Start, Status, node_ids,
    reduce, routes,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

node_ids! {
    enum Id { Router => "router", Left => "left", Middle => "middle", Right => "right", Join => "join" }
}
routes! { enum Again { Again => "again", Done => "done" } }
routes! { enum Spread { Wide => "wide", Narrow => "narrow" } }

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Log {
    entries: Vec<String>,
}

impl GraphState for Log {
    type Update = Vec<String>;

    fn apply(&mut self, update: Vec<String>) {
        reduce::append(&mut self.entries, update);
    }
}

#[derive(Default)]
struct Ctx {
    calls: AtomicU32,
    cancel: CancellationToken,
}

type Out<R> = Result<Command<Vec<String>, R>, NodeError>;

fn entry(text: &str) -> Vec<String> {
    vec![text.to_owned()]
}

#[tokio::test]
async fn step_limit_stops_a_cycle_and_shows_the_last_steps() {
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |_: &(), _: &Log, _| -> Out<Again> {
        Ok(Command::goto(vec![], Again::Again))
    })
    .route(Again::Again, Id::Right)
    .route_end(Again::Done);
    b.add_fn(Id::Right, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(vec![], ())) })
        .goto(Id::Left);
    let graph = b.compile().unwrap();
    let config = RunConfig::default().step_limit(20);
    let err = graph.invoke(&(), Log::default(), &config).await.unwrap_err();
    let Error::StepLimit { limit, last_steps } = &err else { panic!("{err}") };
    assert_eq!(*limit, 20);
    assert_eq!(last_steps.len(), 12);
    assert_eq!(last_steps.last().map(|it| it.step), Some(19));
    insta::assert_snapshot!(err.to_string());
}

/// Sleeps far longer than any timeout used here.
struct Slow;

impl Node<Log, Ctx> for Slow {
    type Route = ();

    async fn run(&self, ctx: &Ctx, _: &Log, _: Option<&Value>) -> Out<()> {
        let call = ctx.calls.fetch_add(1, Ordering::SeqCst);
        if call == 0 {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Ok(Command::goto(entry("slow"), ()))
    }
}

fn slow_graph(policy: Policy) -> planner_graph::Graph<Id, Log, Ctx> {
    let mut b = GraphBuilder::<Id, Log, Ctx>::new();
    b.start(Id::Left);
    b.add_node(Id::Left, Slow).goto_end().policy(policy);
    b.compile().unwrap()
}

#[tokio::test]
async fn timeout_fails_the_node() {
    let policy = Policy { timeout: Some(Duration::from_millis(20)), ..Policy::NONE };
    let err =
        slow_graph(policy).invoke(&Ctx::default(), Log::default(), &RunConfig::default()).await;
    assert!(matches!(err, Err(Error::Timeout { node: "left", step: 0, .. })), "{err:?}");
}

#[tokio::test]
async fn a_timed_out_attempt_is_retried() {
    let policy = Policy {
        timeout: Some(Duration::from_millis(20)),
        max_attempts: 2,
        initial_backoff: Duration::from_millis(1),
        backoff_factor: 2,
        max_backoff: Duration::from_millis(10),
    };
    let ctx = Ctx::default();
    let run = slow_graph(policy).invoke(&ctx, Log::default(), &RunConfig::default()).await.unwrap();
    assert_eq!(run.state.entries, ["slow"]);
    assert_eq!(ctx.calls.load(Ordering::SeqCst), 2);
}

/// Fails with a retryable error on its first two calls.
struct Flaky;

impl Node<Log, Ctx> for Flaky {
    type Route = ();

    async fn run(&self, ctx: &Ctx, _: &Log, _: Option<&Value>) -> Out<()> {
        match ctx.calls.fetch_add(1, Ordering::SeqCst) {
            0 | 1 => Err(NodeError::retryable("service unavailable")),
            _ => Ok(Command::goto(entry("flaky"), ())),
        }
    }
}

fn flaky_graph(max_attempts: u32) -> planner_graph::Graph<Id, Log, Ctx> {
    let policy = Policy {
        max_attempts,
        initial_backoff: Duration::from_millis(1),
        backoff_factor: 2,
        max_backoff: Duration::from_millis(4),
        ..Policy::NONE
    };
    let mut b = GraphBuilder::<Id, Log, Ctx>::new();
    b.start(Id::Left);
    b.add_node(Id::Left, Flaky).goto_end().policy(policy);
    b.compile().unwrap()
}

#[tokio::test]
async fn retries_with_backoff_until_success() {
    let ctx = Ctx::default();
    let run = flaky_graph(3).invoke(&ctx, Log::default(), &RunConfig::default()).await.unwrap();
    assert_eq!(run.state.entries, ["flaky"]);
    assert_eq!(ctx.calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn gives_up_after_the_last_attempt() {
    let ctx = Ctx::default();
    let err = flaky_graph(2).invoke(&ctx, Log::default(), &RunConfig::default()).await.unwrap_err();
    assert!(matches!(err, Error::Node { node: "left", attempts: 2, .. }), "{err}");
    assert_eq!(err.to_string(), "node left failed at step 0 after 2 attempt(s)");
    assert_eq!(ctx.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn permanent_errors_are_not_retried() {
    let mut b = GraphBuilder::<Id, Log, Ctx>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |ctx: &Ctx, _: &Log, _| -> Out<()> {
        ctx.calls.fetch_add(1, Ordering::SeqCst);
        Err(NodeError::new("bad input"))
    })
    .goto_end()
    .policy(Policy { max_attempts: 5, ..Policy::NONE });
    let ctx = Ctx::default();
    let err = b.compile().unwrap().invoke(&ctx, Log::default(), &RunConfig::default()).await;
    assert!(matches!(err, Err(Error::Node { attempts: 1, .. })), "{err:?}");
    assert_eq!(ctx.calls.load(Ordering::SeqCst), 1);
}

/// Cancels the run, then waits forever.
struct CancelsItself;

impl Node<Log, Ctx> for CancelsItself {
    type Route = ();

    async fn run(&self, ctx: &Ctx, _: &Log, _: Option<&Value>) -> Out<()> {
        ctx.cancel.cancel();
        std::future::pending::<()>().await;
        Ok(Command::goto(vec![], ()))
    }
}

#[tokio::test]
async fn cancellation_stops_a_running_node_and_a_pending_run() {
    let mut b = GraphBuilder::<Id, Log, Ctx>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |_: &Ctx, _: &Log, _| -> Out<()> { Ok(Command::goto(entry("left"), ())) })
        .goto(Id::Right);
    b.add_node(Id::Right, CancelsItself).goto_end();
    let graph = b.compile().unwrap();
    let ctx = Ctx::default();
    let config = RunConfig::default().cancel(ctx.cancel.clone());
    let err = graph.invoke(&ctx, Log::default(), &config).await.unwrap_err();
    assert!(matches!(err, Error::Cancelled { step: 1 }), "{err}");
    // The token stays cancelled: a new run stops before its first step.
    let err = graph.invoke(&ctx, Log::default(), &config).await.unwrap_err();
    assert!(matches!(err, Error::Cancelled { step: 0 }), "{err}");
}

/// A branch that sleeps, so branches finish in another order than declared.
struct Branch {
    name: &'static str,
    millis: u64,
}

impl Node<Log, ()> for Branch {
    type Route = ();

    async fn run(&self, _: &(), state: &Log, _: Option<&Value>) -> Out<()> {
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        Ok(Command::goto(vec![format!("{} saw {}", self.name, state.entries.len())], ()))
    }
}

fn fan_graph() -> planner_graph::Graph<Id, Log, ()> {
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Router);
    b.add_fn(Id::Router, |_: &(), state: &Log, _| -> Out<Spread> {
        let route = if state.entries.is_empty() { Spread::Wide } else { Spread::Narrow };
        Ok(Command::goto(entry("router"), route))
    })
    .fan_out(Spread::Wide, [Id::Left, Id::Middle, Id::Right], Id::Join)
    .route(Spread::Narrow, Id::Join);
    b.add_node(Id::Left, Branch { name: "left", millis: 30 }).goto(Id::Join);
    b.add_node(Id::Middle, Branch { name: "middle", millis: 1 }).goto(Id::Join);
    b.add_node(Id::Right, Branch { name: "right", millis: 15 }).goto(Id::Join);
    b.add_fn(Id::Join, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(entry("join"), ())) })
        .goto_end();
    b.compile().unwrap()
}

#[tokio::test]
async fn fan_out_merges_in_declared_order() {
    let graph = fan_graph();
    let mut events = Vec::new();
    let mut push = |event: Event| events.push(event);
    let run = graph
        .run(&(), Start::Input(Log::default()), &RunConfig::default(), Some(&mut push))
        .await
        .unwrap();
    assert_eq!(run.state.entries, ["router", "left saw 1", "middle saw 1", "right saw 1", "join"]);
    let steps: Vec<_> = run.trace.iter().map(|it| (it.step, it.node)).collect();
    assert_eq!(steps, [(0, "router"), (1, "left"), (2, "middle"), (3, "right"), (4, "join")]);
    let finished: Vec<_> = events
        .iter()
        .filter_map(|it| match it {
            Event::NodeFinished { node, .. } => Some(*node),
            _ => None,
        })
        .collect();
    assert_eq!(finished, ["router", "left", "middle", "right", "join"]);
    insta::assert_snapshot!(graph.to_mermaid());
}

#[test]
fn a_fan_out_branch_must_lead_to_its_join() {
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Router);
    b.add_fn(Id::Router, |_: &(), _: &Log, _| -> Out<Spread> {
        Ok(Command::goto(vec![], Spread::Wide))
    })
    .fan_out(Spread::Wide, [Id::Left], Id::Join)
    .route(Spread::Narrow, Id::Join);
    b.add_fn(Id::Left, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(vec![], ())) })
        .goto_end();
    b.add_fn(Id::Join, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(vec![], ())) })
        .goto_end();
    let err = b.compile().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid graph: branch left of a fan-out from router may route elsewhere than its join join"
    );
}

/// Asks once, then records the answer.
fn asking_graph() -> planner_graph::Graph<Id, Log, ()> {
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(entry("left"), ())) })
        .goto(Id::Middle);
    b.add_fn(Id::Middle, |_: &(), _: &Log, resume: Option<&Value>| -> Out<()> {
        match resume {
            None => Ok(Command::Interrupt(json!("which?"))),
            Some(answer) => Ok(Command::goto(vec![format!("answer {answer}")], ())),
        }
    })
    .goto(Id::Right);
    b.add_fn(Id::Right, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(entry("right"), ())) })
        .goto_end();
    b.compile().unwrap()
}

#[tokio::test]
async fn exit_durability_saves_only_interrupts_and_the_end() {
    let store = Arc::new(MemoryCheckpointer::new());
    let graph = asking_graph().with_checkpointer(store, Durability::Exit);
    let config = RunConfig::thread("t");
    let run = graph.invoke(&(), Log::default(), &config).await.unwrap();
    assert!(matches!(run.status, Status::Interrupted(_)));
    let run = graph.resume(&(), "t", json!(7), &config).await.unwrap();
    assert_eq!(run.state.entries, ["left", "answer 7", "right"]);
    let history = graph.history("t").await.unwrap();
    let shape: Vec<_> = history
        .iter()
        .map(|it| (it.id, it.parent, it.step, it.next.clone(), it.interrupt.clone()))
        .collect();
    assert_eq!(
        shape,
        [
            (0, None, 1, Some("middle".to_owned()), Some(json!("which?"))),
            (1, Some(0), 3, None, None)
        ]
    );
}

/// A store that counts every call, so a test sees which runs touched it.
#[derive(Debug, Default)]
struct Counting {
    inner: MemoryCheckpointer,
    calls: AtomicU32,
}

type Boxed<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

impl Checkpointer for Counting {
    fn save(&self, checkpoint: Checkpoint) -> planner_graph::Result<()> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.save(checkpoint)
    }

    fn flush(&self) -> Boxed<'_, planner_graph::Result<()>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.flush()
    }

    fn load<'a>(
        &'a self,
        thread_id: &'a str,
        id: Option<u64>,
    ) -> Boxed<'a, planner_graph::Result<Option<Checkpoint>>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.load(thread_id, id)
    }

    fn history<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> Boxed<'a, planner_graph::Result<Vec<Checkpoint>>> {
        self.inner.history(thread_id)
    }
}

#[tokio::test]
async fn interrupts_durability_saves_only_interrupts_and_leaves_finished_runs_alone() {
    let store = Arc::new(Counting::default());
    let graph = asking_graph().with_checkpointer(store.clone(), Durability::Interrupts);

    // A run that finishes without pausing never touches the store.
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |_: &(), _: &Log, _| -> Out<()> { Ok(Command::goto(entry("left"), ())) })
        .goto_end();
    let straight = b.compile().unwrap().with_checkpointer(store.clone(), Durability::Interrupts);
    let run = straight.invoke(&(), Log::default(), &RunConfig::thread("s")).await.unwrap();
    assert_eq!(run.state.entries, ["left"]);
    assert_eq!(store.calls.load(Ordering::SeqCst), 0);
    assert!(straight.history("s").await.unwrap().is_empty());

    // A run that pauses saves the interrupt, and its resumed run saves its end.
    let config = RunConfig::thread("t");
    let run = graph.invoke(&(), Log::default(), &config).await.unwrap();
    assert!(matches!(run.status, Status::Interrupted(_)));
    let run = graph.resume(&(), "t", json!(7), &config).await.unwrap();
    assert_eq!(run.state.entries, ["left", "answer 7", "right"]);
    let history = graph.history("t").await.unwrap();
    let shape: Vec<_> =
        history.iter().map(|it| (it.id, it.step, it.next.clone(), it.interrupt.clone())).collect();
    assert_eq!(
        shape,
        [(0, 1, Some("middle".to_owned()), Some(json!("which?"))), (1, 3, None, None)]
    );

    // The interrupt is answered once: the thread is not waiting any more.
    let again = graph.resume(&(), "t", json!(8), &config).await;
    assert!(again.is_err(), "{again:?}");
}

#[tokio::test]
async fn resuming_an_earlier_checkpoint_forks_the_thread() {
    for durability in [Durability::Sync, Durability::Async] {
        let store = Arc::new(MemoryCheckpointer::new());
        let graph = asking_graph().with_checkpointer(store, durability);
        let config = RunConfig::thread("t");
        graph.invoke(&(), Log::default(), &config).await.unwrap();
        let run = graph.resume(&(), "t", json!(1), &config).await.unwrap();
        assert_eq!(run.state.entries, ["left", "answer 1", "right"]);
        // Checkpoints: 0 input, 1 after left, 2 interrupt at middle, 3 after middle, 4 end.
        let start = Start::Fork { thread_id: "t".into(), checkpoint: 1, value: Some(json!(2)) };
        let fork = graph.run(&(), start, &config, None).await.unwrap();
        assert_eq!(fork.state.entries, ["left", "answer 2", "right"]);
        let history = graph.history("t").await.unwrap();
        let links: Vec<_> = history.iter().map(|it| (it.id, it.parent)).collect();
        assert_eq!(
            links,
            [
                (0, None),
                (1, Some(0)),
                (2, Some(1)),
                (3, Some(2)),
                (4, Some(3)),
                (5, Some(1)),
                (6, Some(5))
            ]
        );
        let err = graph.resume(&(), "t", json!(3), &config).await.unwrap_err();
        assert!(matches!(err, Error::AlreadyFinished { checkpoint: 6, .. }), "{err}");
    }
}

#[tokio::test]
async fn misuse_is_reported() {
    let graph = asking_graph();
    let err = graph.resume(&(), "t", json!(1), &RunConfig::default()).await.unwrap_err();
    assert!(matches!(err, Error::NoCheckpointer));
    let saved = graph.with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
    let err = saved.invoke(&(), Log::default(), &RunConfig::default()).await.unwrap_err();
    assert!(matches!(err, Error::MissingThreadId));
    let err = saved.resume(&(), "nobody", json!(1), &RunConfig::default()).await.unwrap_err();
    assert!(matches!(err, Error::CheckpointNotFound { checkpoint: None, .. }), "{err}");
    // Without a checkpointer an interrupt still ends the run, with no thread to resume.
    let run = graph.invoke(&(), Log::default(), &RunConfig::default()).await.unwrap();
    let Status::Interrupted(interrupt) = run.status else { panic!("expected an interrupt") };
    assert_eq!((interrupt.thread_id, interrupt.node), (None, "middle"));
}

#[test]
fn a_compiled_graph_is_shareable() {
    fn shareable<T: Send + Sync + Clone + 'static>(_: &T) {}
    shareable(&asking_graph());
}

/// A hand-written route type whose `ALL` repeats a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Twice {
    Only,
}

impl planner_graph::Route for Twice {
    const ALL: &'static [Self] = &[Twice::Only, Twice::Only];

    fn label(self) -> &'static str {
        "only"
    }
}

#[test]
fn a_route_table_must_list_each_value_once() {
    let mut b = GraphBuilder::<Id, Log, ()>::new();
    b.start(Id::Left);
    b.add_fn(Id::Left, |_: &(), _: &Log, _| -> Out<Twice> {
        Ok(Command::goto(vec![], Twice::Only))
    })
    .route_end(Twice::Only);
    let err = b.compile().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid graph: route only of node left has no target; \
         the routes of node left repeat a value or label, or misnumber them"
    );
}
