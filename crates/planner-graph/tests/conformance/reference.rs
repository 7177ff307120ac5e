//! The reference topology of a field-acquisition planner, driven by scripted routes.

use std::{collections::BTreeSet, sync::Arc};

use planner_graph::{
    Command, Durability, Event, Graph, GraphBuilder, GraphState, MemoryCheckpointer, NodeError,
    Route, RunConfig, Start, Status, TraceStep, node_ids, routes,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

node_ids! {
    /// The nodes of the reference topology.
    pub enum Ref {
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

routes! { pub enum Termination { Finish => "finish", Continue => "continue" } }
routes! {
    pub enum RegionCurrency { AskRegion => "ask_region", AskCurrency => "ask_currency", Ready => "ready" }
}
routes! {
    pub enum Calculator { Finish => "finish", Blocked => "blocked", Pending => "pending", NoCalc => "no_calc" }
}
routes! { pub enum Acquisition { HasTask => "has_task", NoTask => "no_task" } }
routes! { pub enum Completion { Finish => "finish", HasTask => "has_task", Continue => "continue" } }
routes! { pub enum Decide { Finish => "finish", PostProcess => "post_process" } }
routes! { pub enum Caps { Finish => "finish", AskUser => "ask_user", Ok => "ok" } }
routes! {
    pub enum Decision {
        Search => "search", Reflect => "reflect", AskUser => "ask_user", Calculate => "calculate",
        Finish => "finish",
    }
}
routes! { pub enum SearchNext { Observe => "observe", Plan => "plan" } }

/// The state: a script of route labels consumed by the routers, and what happened.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefState {
    pub script: Vec<String>,
    pub cursor: usize,
    pub visited: Vec<String>,
    pub answers: Vec<String>,
}

/// One node's contribution.
#[derive(Debug)]
pub struct RefUpdate {
    visited: &'static str,
    advance: bool,
    answer: Option<String>,
}

impl GraphState for RefState {
    type Update = RefUpdate;

    fn apply(&mut self, update: RefUpdate) {
        self.visited.push(update.visited.to_owned());
        self.cursor += usize::from(update.advance);
        self.answers.extend(update.answer);
    }
}

type Out<R> = Result<Command<RefUpdate, R>, NodeError>;

/// A router: takes the next label of the script.
fn scripted<R: Route>(node: Ref) -> impl Fn(&(), &RefState, Option<&Value>) -> Out<R> {
    use planner_graph::NodeId;
    move |_, state, _| {
        let label = state
            .script
            .get(state.cursor)
            .ok_or_else(|| NodeError::new(format!("{}: script exhausted", node.name())))?;
        let route = R::ALL
            .iter()
            .copied()
            .find(|it| it.label() == label)
            .ok_or_else(|| NodeError::new(format!("{}: no route {label}", node.name())))?;
        Ok(Command::goto(RefUpdate { visited: node.name(), advance: true, answer: None }, route))
    }
}

/// A node with one fixed successor.
fn fixed(node: Ref) -> impl Fn(&(), &RefState, Option<&Value>) -> Out<()> {
    use planner_graph::NodeId;
    move |_, _, _| {
        Ok(Command::goto(RefUpdate { visited: node.name(), advance: false, answer: None }, ()))
    }
}

/// Builds the reference topology.
pub fn graph() -> Graph<Ref, RefState, ()> {
    use Ref::*;
    let mut b = GraphBuilder::<Ref, RefState, ()>::new();
    b.start(CheckTermination);
    b.add_fn(CheckTermination, scripted::<Termination>(CheckTermination))
        .route(Termination::Finish, Finish)
        .route(Termination::Continue, CheckRegionCurrency);
    b.add_fn(CheckRegionCurrency, scripted::<RegionCurrency>(CheckRegionCurrency))
        .route(RegionCurrency::AskRegion, AskUser)
        .route(RegionCurrency::AskCurrency, AskUser)
        .route(RegionCurrency::Ready, ComposeSchema);
    b.add_fn(ComposeSchema, fixed(ComposeSchema)).goto(CheckCalculator);
    b.add_fn(CheckCalculator, scripted::<Calculator>(CheckCalculator))
        .route(Calculator::Finish, Finish)
        .route(Calculator::Blocked, AcquisitionRouting)
        .route(Calculator::Pending, AcquisitionRouting)
        .route(Calculator::NoCalc, AcquisitionRouting);
    b.add_fn(AcquisitionRouting, scripted::<Acquisition>(AcquisitionRouting))
        .route(Acquisition::HasTask, EnforceCaps)
        .route(Acquisition::NoTask, CheckCompletion);
    b.add_fn(CheckCompletion, scripted::<Completion>(CheckCompletion))
        .route(Completion::Finish, Finish)
        .route(Completion::HasTask, EnforceCaps)
        .route(Completion::Continue, LlmDecide);
    b.add_fn(LlmDecide, scripted::<Decide>(LlmDecide))
        .route(Decide::Finish, Finish)
        .route(Decide::PostProcess, PostProcess);
    b.add_fn(PostProcess, fixed(PostProcess)).goto(EnforceCaps);
    b.add_fn(EnforceCaps, scripted::<Caps>(EnforceCaps))
        .route(Caps::Finish, Finish)
        .route(Caps::AskUser, AskUser)
        .route(Caps::Ok, RouteDecision);
    b.add_fn(RouteDecision, scripted::<Decision>(RouteDecision))
        .route(Decision::Search, Search)
        .route(Decision::Reflect, Reflect)
        .route(Decision::AskUser, AskUser)
        .route(Decision::Calculate, Calculate)
        .route(Decision::Finish, Finish);
    b.add_fn(Search, scripted::<SearchNext>(Search))
        .route(SearchNext::Observe, Observe)
        .route(SearchNext::Plan, CheckTermination);
    b.add_fn(Observe, fixed(Observe)).goto(CheckTermination);
    b.add_fn(Calculate, fixed(Calculate)).goto(CheckTermination);
    b.add_fn(Reflect, fixed(Reflect)).goto(CheckTermination);
    b.add_fn(AskUser, |_: &(), _: &RefState, resume: Option<&Value>| match resume {
        None => Ok(Command::Interrupt(json!({ "question": "which one?" }))),
        Some(answer) => Ok(Command::goto(
            RefUpdate { visited: "ask_user", advance: false, answer: Some(answer.to_string()) },
            (),
        )),
    })
    .goto(ObserveUser);
    b.add_fn(ObserveUser, fixed(ObserveUser)).goto(CheckRegionCurrency);
    b.add_fn(Finish, fixed(Finish)).goto_end();
    b.compile().expect("the reference topology is well formed")
}

/// Every (node, route) pair of the topology: driving each drives every edge.
const EDGES: &[(&str, &str)] = &[
    ("check_termination", "finish"),
    ("check_termination", "continue"),
    ("check_region_currency", "ask_region"),
    ("check_region_currency", "ask_currency"),
    ("check_region_currency", "ready"),
    ("compose_schema", ""),
    ("check_calculator", "finish"),
    ("check_calculator", "blocked"),
    ("check_calculator", "pending"),
    ("check_calculator", "no_calc"),
    ("acquisition_routing", "has_task"),
    ("acquisition_routing", "no_task"),
    ("check_completion", "finish"),
    ("check_completion", "has_task"),
    ("check_completion", "continue"),
    ("llm_decide", "finish"),
    ("llm_decide", "post_process"),
    ("post_process", ""),
    ("enforce_caps", "finish"),
    ("enforce_caps", "ask_user"),
    ("enforce_caps", "ok"),
    ("route_decision", "search"),
    ("route_decision", "reflect"),
    ("route_decision", "ask_user"),
    ("route_decision", "calculate"),
    ("route_decision", "finish"),
    ("search", "observe"),
    ("search", "plan"),
    ("observe", ""),
    ("calculate", ""),
    ("reflect", ""),
    ("ask_user", ""),
    ("observe_user", ""),
    ("finish", ""),
];

/// Scripts that together take every edge.
const SCRIPTS: &[&[&str]] = &[
    &["continue", "ready", "blocked", "has_task", "ok", "search", "observe", "finish"],
    &[
        "continue",
        "ask_region",
        "ask_currency",
        "ready",
        "pending",
        "no_task",
        "has_task",
        "ask_user",
        "ready",
        "no_calc",
        "no_task",
        "continue",
        "post_process",
        "ok",
        "reflect",
        "continue",
        "ready",
        "blocked",
        "has_task",
        "ok",
        "calculate",
        "continue",
        "ready",
        "blocked",
        "has_task",
        "ok",
        "ask_user",
        "ready",
        "blocked",
        "has_task",
        "ok",
        "search",
        "plan",
        "continue",
        "ready",
        "blocked",
        "no_task",
        "finish",
    ],
    &["continue", "ready", "finish"],
    &["continue", "ready", "blocked", "no_task", "continue", "finish"],
    &["continue", "ready", "blocked", "has_task", "finish"],
    &["continue", "ready", "blocked", "has_task", "ok", "finish"],
];

fn input(script: &[&str]) -> RefState {
    RefState { script: script.iter().map(|it| (*it).to_owned()).collect(), ..RefState::default() }
}

/// Runs a script to the end, answering every interrupt; returns the final state and all steps.
async fn drive(
    graph: &Graph<Ref, RefState, ()>,
    thread_id: &str,
    script: &[&str],
) -> (RefState, Vec<TraceStep>, usize) {
    let config = RunConfig::thread(thread_id);
    let mut run = graph.invoke(&(), input(script), &config).await.expect("the script runs");
    let mut trace = run.trace.clone();
    let mut interrupts = 0;
    while let Status::Interrupted(interrupt) = &run.status {
        assert_eq!(interrupt.thread_id.as_deref(), Some(thread_id));
        assert_eq!(interrupt.node, "ask_user");
        interrupts += 1;
        run = graph
            .resume(&(), thread_id, json!(format!("answer {interrupts}")), &config)
            .await
            .expect("the thread resumes");
        trace.extend(run.trace.iter().copied());
    }
    assert_eq!(run.state.cursor, script.len(), "the whole script is consumed");
    (run.state, trace, interrupts)
}

#[tokio::test]
async fn scripts_drive_every_edge() {
    let graph = graph().with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
    let mut taken = BTreeSet::new();
    let mut interrupts = 0;
    for (i, script) in SCRIPTS.iter().enumerate() {
        let (state, trace, asked) = drive(&graph, &format!("script-{i}"), script).await;
        interrupts += asked;
        assert_eq!(state.answers.len(), asked);
        assert_eq!(trace.last().map(|it| it.node), Some("finish"));
        taken.extend(trace.iter().map(|it| (it.node, it.route)));
    }
    let all: BTreeSet<_> = EDGES.iter().copied().collect();
    assert_eq!(taken, all);
    assert_eq!(interrupts, 4);
}

#[tokio::test]
async fn main_loop_takes_twelve_steps_per_iteration() {
    let iteration = [
        "continue",
        "ready",
        "pending",
        "no_task",
        "continue",
        "post_process",
        "ok",
        "search",
        "observe",
    ];
    let iterations = 3;
    let mut script: Vec<&str> =
        iteration.iter().copied().cycle().take(iteration.len() * iterations).collect();
    script.push("finish");
    let run = graph().invoke(&(), input(&script), &RunConfig::default()).await.unwrap();
    assert_eq!(run.status, Status::Finished);
    assert_eq!(run.trace.len(), 12 * iterations + 2);
    let first: Vec<_> = run.trace[..12].iter().map(|it| it.node).collect();
    assert_eq!(
        first,
        [
            "check_termination",
            "check_region_currency",
            "compose_schema",
            "check_calculator",
            "acquisition_routing",
            "check_completion",
            "llm_decide",
            "post_process",
            "enforce_caps",
            "route_decision",
            "search",
            "observe",
        ]
    );
}

#[test]
fn mermaid_drawing() {
    insta::assert_snapshot!(graph().to_mermaid());
}

#[test]
fn dot_drawing_is_stable() {
    let dot = graph().to_dot();
    assert_eq!(dot, graph().to_dot());
    assert!(dot.contains(
        "\"check_calculator\" -> \"acquisition_routing\" [label=\"blocked, pending, no_calc\"];"
    ));
    assert!(dot.contains("\"finish\" -> \"__end__\";"));
}

#[tokio::test]
async fn same_input_gives_same_events() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let graph =
            graph().with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async);
        let mut stream =
            graph.stream(Arc::new(()), Start::Input(input(SCRIPTS[1])), RunConfig::thread("t"));
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event);
        }
        let run = stream.finish().await.unwrap();
        assert!(matches!(run.status, Status::Interrupted(_)), "the run stops at ask_user");
        runs.push(events);
    }
    assert_eq!(runs[0], runs[1]);
    let shown: Vec<String> = runs[0]
        .iter()
        .map(|event| match event {
            Event::NodeFinished { step, node, .. } => {
                format!("NodeFinished {{ step: {step}, node: {node:?} }}")
            }
            other => format!("{other:?}"),
        })
        .collect();
    insta::assert_debug_snapshot!(shown);
}
