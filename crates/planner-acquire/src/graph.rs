//! The acquisition graph: the 17 nodes wired exactly as the refactor proposal draws them, the
//! context they share, and the library API that runs it with a checkpointer.

use std::sync::Arc;

use planner_graph::{
    Checkpointer, Durability, Graph, GraphBuilder, Node, NodeError, Run, RunConfig, Status,
};
use serde::Serialize;
use serde_json::Value as Json;

use crate::{
    corpus::Corpus,
    decide::Decider,
    nodes::{
        self, Acquisition, ActionRoute, CalculatorRoute, Caps, Completion, Decided, Out,
        RegionCurrency, Searched, Termination,
    },
    profile::Profile,
    state::{AcqState, Decision, RunStatus},
    value::Value,
};

mod step {
    #![allow(missing_docs, reason = "each variant is documented by its name")]

    use planner_graph::node_ids;

    node_ids! {
        /// The nodes of the acquisition graph.
        pub enum Step {
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
}

pub use step::Step;

/// What every node of a run shares.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The profile.
    pub profile: Arc<Profile>,
    /// Who takes open decisions.
    pub decider: Decider,
    /// Where documents are searched.
    pub corpus: Corpus,
}

struct LlmDecide;

impl Node<AcqState, Ctx> for LlmDecide {
    type Route = Decided;

    async fn run(
        &self,
        ctx: &Ctx,
        state: &AcqState,
        _: Option<&Json>,
    ) -> Result<Out<Decided>, NodeError> {
        Ok(nodes::llm_decided(ctx.decider.decide(&ctx.profile, state).await))
    }
}

struct SearchNode;

impl Node<AcqState, Ctx> for SearchNode {
    type Route = Searched;

    async fn run(
        &self,
        ctx: &Ctx,
        state: &AcqState,
        _: Option<&Json>,
    ) -> Result<Out<Searched>, NodeError> {
        let query = nodes::search_query(&ctx.profile, state);
        let hits = ctx.corpus.search(&query).await.map_err(|err| {
            NodeError::retryable(format!("search failed: {err}")).with_source(err)
        })?;
        Ok(nodes::searched(state, query, hits))
    }
}

type Fx<R> = fn(&Ctx, &AcqState, Option<&Json>) -> Result<Out<R>, NodeError>;

fn sync<R>(
    node: fn(&Profile, &AcqState) -> Out<R>,
) -> impl Fn(&Ctx, &AcqState, Option<&Json>) -> Result<Out<R>, NodeError> {
    move |ctx, state, _| Ok(node(&ctx.profile, state))
}

/// Builds the graph (independent of any profile: the profile travels in [`Ctx`]).
pub fn graph() -> Graph<Step, AcqState, Ctx> {
    use Step::*;
    let mut b = GraphBuilder::<Step, AcqState, Ctx>::new();
    b.start(CheckTermination);
    b.add_fn(CheckTermination, sync(nodes::check_termination))
        .route(Termination::Finish, Finish)
        .route(Termination::Continue, CheckRegionCurrency);
    b.add_fn(CheckRegionCurrency, sync(nodes::check_region_currency))
        .route(RegionCurrency::AskRegion, AskUser)
        .route(RegionCurrency::AskCurrency, AskUser)
        .route(RegionCurrency::Ready, ComposeSchema);
    b.add_fn(ComposeSchema, sync(nodes::compose_schema)).goto(CheckCalculator);
    b.add_fn(CheckCalculator, sync(nodes::check_calculator))
        .route(CalculatorRoute::Finish, Finish)
        .route(CalculatorRoute::Blocked, AcquisitionRouting)
        .route(CalculatorRoute::Pending, AcquisitionRouting)
        .route(CalculatorRoute::NoCalc, AcquisitionRouting);
    b.add_fn(AcquisitionRouting, sync(nodes::acquisition_routing))
        .route(Acquisition::HasTask, EnforceCaps)
        .route(Acquisition::NoTask, CheckCompletion);
    b.add_fn(CheckCompletion, sync(nodes::check_completion))
        .route(Completion::Finish, Finish)
        .route(Completion::HasTask, EnforceCaps)
        .route(Completion::Continue, LlmDecide);
    b.add_node(LlmDecide, self::LlmDecide)
        .route(Decided::Finish, Finish)
        .route(Decided::PostProcess, PostProcess);
    b.add_fn(PostProcess, sync(nodes::post_process)).goto(EnforceCaps);
    b.add_fn(EnforceCaps, sync(nodes::enforce_caps))
        .route(Caps::Finish, Finish)
        .route(Caps::AskUser, AskUser)
        .route(Caps::Ok, RouteDecision);
    let route_decision: Fx<ActionRoute> = |_, state, _| Ok(nodes::route_decision(state));
    b.add_fn(RouteDecision, route_decision)
        .route(ActionRoute::Search, Search)
        .route(ActionRoute::Reflect, Reflect)
        .route(ActionRoute::AskUser, AskUser)
        .route(ActionRoute::Calculate, Calculate)
        .route(ActionRoute::Finish, Finish);
    b.add_node(Search, SearchNode)
        .route(Searched::Observe, Observe)
        .route(Searched::Plan, CheckTermination);
    b.add_fn(Observe, sync(nodes::observe)).goto(CheckTermination);
    b.add_fn(Calculate, sync(nodes::calculate)).goto(CheckTermination);
    b.add_fn(Reflect, sync(nodes::reflect)).goto(CheckTermination);
    let ask_user: Fx<()> = |_, state, resume| Ok(nodes::ask_user(state, resume));
    b.add_fn(AskUser, ask_user).goto(ObserveUser);
    b.add_fn(ObserveUser, sync(nodes::observe_user)).goto(CheckRegionCurrency);
    b.add_fn(Finish, sync(nodes::finish)).goto_end();
    b.compile().expect("the acquisition graph is well formed")
}

/// The graph as a Mermaid flowchart.
pub fn mermaid() -> String {
    graph().to_mermaid()
}

/// A question the run is waiting on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// The thread to resume with the answer.
    pub thread_id: String,
    /// The field asked about (or `region`, `currency`).
    pub field: String,
    /// The component, if any.
    pub component: Option<String>,
    /// The question.
    pub question: String,
    /// Suggested answers.
    pub suggested_answers: Vec<String>,
}

/// How a call to [`Acquirer::start`] or [`Acquirer::answer`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The run waits for the user's answer.
    Asked(Question),
    /// The run finished.
    Done(Box<Report>),
}

/// A filled field in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportField {
    /// The field.
    pub name: String,
    /// Its value, if known.
    pub value: Option<Value>,
    /// Where it came from.
    pub source: Option<crate::state::Provenance>,
}

/// One calculator output in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportOutput {
    /// The output.
    pub name: String,
    /// Its value.
    pub value: Value,
}

/// The outcome of a finished run: one stable object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The profile.
    pub profile: String,
    /// The idea with its region and currency.
    pub idea: crate::state::Idea,
    /// How the run ended.
    pub status: RunStatus,
    /// Why it ended.
    pub reason: String,
    /// Every field in priority order.
    pub fields: Vec<ReportField>,
    /// The calculator's outputs, when it succeeded.
    pub result: Vec<ReportOutput>,
    /// Every decision acted on.
    pub decisions: Vec<Decision>,
    /// Every search and question.
    pub attempts: Vec<crate::state::Attempt>,
    /// Planning iterations.
    pub iterations: u32,
}

impl Report {
    /// The report of a finished state.
    pub fn of(profile: &Profile, state: &AcqState) -> Report {
        let fields = profile
            .fields
            .iter()
            .map(|field| {
                let filled = state.schema.fields.get(&field.name).and_then(Option::as_ref);
                ReportField {
                    name: field.name.clone(),
                    value: filled.map(|it| it.value.clone()),
                    source: filled.map(|it| it.source.clone()),
                }
            })
            .collect();
        let result = state
            .last_calculation
            .as_ref()
            .filter(|it| it.status == crate::state::CalcStatus::Success)
            .map(|it| {
                it.outputs
                    .iter()
                    .map(|(name, value)| ReportOutput { name: name.clone(), value: value.clone() })
                    .collect()
            })
            .unwrap_or_default();
        Report {
            profile: profile.name.clone(),
            idea: state.idea.clone(),
            status: state.status,
            reason: state.decisions.last().map(|it| it.reasoning.clone()).unwrap_or_default(),
            fields,
            result,
            decisions: state.decisions.clone(),
            attempts: state.attempts.clone(),
            iterations: state.iterations,
        }
    }
}

/// Runs acquisitions for one profile with a checkpointer: start a thread, answer its questions,
/// from this process or any other sharing the checkpoint store.
#[derive(Debug, Clone)]
pub struct Acquirer {
    graph: Graph<Step, AcqState, Ctx>,
    ctx: Ctx,
}

impl Acquirer {
    /// An acquirer saving checkpoints to `store`.
    pub fn new(ctx: Ctx, store: Arc<dyn Checkpointer>, durability: Durability) -> Acquirer {
        Acquirer { graph: graph().with_checkpointer(store, durability), ctx }
    }

    /// The compiled graph with its checkpointer.
    pub fn graph(&self) -> &Graph<Step, AcqState, Ctx> {
        &self.graph
    }

    /// Starts thread `thread_id` for `idea`.
    ///
    /// # Errors
    /// A runtime failure (store, step limit, a failed search).
    pub async fn start(
        &self,
        thread_id: &str,
        idea: crate::state::Idea,
    ) -> planner_graph::Result<Progress> {
        let state = AcqState::new(&self.ctx.profile, idea);
        let run = self.graph.invoke(&self.ctx, state, &RunConfig::thread(thread_id)).await?;
        Ok(self.progress(thread_id, run))
    }

    /// Answers the question thread `thread_id` waits on.
    ///
    /// # Errors
    /// As [`Acquirer::start`], and a thread that is not waiting.
    pub async fn answer(&self, thread_id: &str, answer: &str) -> planner_graph::Result<Progress> {
        let value = Json::String(answer.to_owned());
        let run =
            self.graph.resume(&self.ctx, thread_id, value, &RunConfig::thread(thread_id)).await?;
        Ok(self.progress(thread_id, run))
    }

    fn progress(&self, thread_id: &str, run: Run<AcqState>) -> Progress {
        match run.status {
            Status::Finished => Progress::Done(Box::new(Report::of(&self.ctx.profile, &run.state))),
            Status::Interrupted(interrupt) => {
                let text = |key: &str| {
                    interrupt.payload.get(key).and_then(Json::as_str).map(str::to_owned)
                };
                Progress::Asked(Question {
                    thread_id: thread_id.to_owned(),
                    field: text("field").unwrap_or_default(),
                    component: text("component"),
                    question: text("question").unwrap_or_default(),
                    suggested_answers: interrupt
                        .payload
                        .get("suggested_answers")
                        .and_then(Json::as_array)
                        .map(|it| it.iter().filter_map(Json::as_str).map(str::to_owned).collect())
                        .unwrap_or_default(),
                })
            }
        }
    }
}
