//! The reference topology of planner-graph with trivial nodes (17 nodes; its main loop takes 12
//! steps an iteration), measured by the graph benches of both kinds.

use planner_graph::{
    Command, Graph, GraphBuilder, GraphState, NodeError, Route, RunConfig, Status, routes,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::runtime::Runtime;

/// The nodes of the reference topology: the acquisition agent's seventeen, by their ids.
pub use planner_acquire::Step as Ref;

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
pub struct LoopState {
    /// Iterations done.
    pub iteration: u64,
    /// Iterations to do.
    pub n: u64,
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

/// Builds and compiles the reference topology.
#[must_use]
pub fn build() -> Graph<Ref, LoopState, ()> {
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
#[must_use]
pub fn steps(n: u64) -> u64 {
    12 * n + 2
}

/// Runs the loop `n` times to its end on `rt`, checking that it took every step.
pub fn run(rt: &Runtime, graph: &Graph<Ref, LoopState, ()>, n: u64, config: &RunConfig) {
    let run = rt.block_on(graph.invoke(&(), LoopState { iteration: 0, n }, config));
    let run = run.expect("the loop runs");
    assert!(run.status == Status::Finished && run.trace.len() as u64 == steps(n));
    std::hint::black_box(run);
}
