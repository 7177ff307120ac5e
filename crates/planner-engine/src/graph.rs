//! The planner graph: one node per responsibility, run by `planner-graph`.
//!
//! ```text
//! screen ─refuse→ refuse → audit → END
//!   │ok
//! extract_params → route_question ─single→ bind_single → run_plan
//!                        │propose
//!                  propose_plan → stabilize → validate_plan ─clarify→ clarify (interrupt;
//!                                                  │              resume → extract_params)
//!                                                  ├─unplannable→ unplannable → audit
//!                                                  │run
//!                                               run_plan → narrate → faithfulness_gate ─fail→ render_deterministic
//!                                                                          │pass                  │
//!                                                                        audit ←──────────────────┘ → END
//! ```
//!
//! Nodes return their update and their route as typed values; the state holds only data
//! (question, params, proposals, evidence, text) and never a route. Planning results that are
//! pure functions of that data (the lexical pick, validation, binding, the union of the
//! evidence) are never stored in a checkpoint: a run keeps them beside its state once a node has
//! computed them ([`Derived`]), every update that changes what they derive from drops them, and
//! a resumed thread computes them again from the stored proposals, so a checkpoint is small and
//! a resumed thread sees exactly what an uninterrupted one would.

use std::sync::Arc;
use std::time::{Duration, Instant};

use planner_exec::{AuditRecord, AuditRoute, Faithfulness, PgPool, SelfConsistency, TenantId};
use planner_extract::Extraction;
use planner_grammar::{Agreement, DropReason, PlanTrace};
use planner_graph::{Command, Graph, GraphBuilder, GraphState, Node, NodeError, node_ids, routes};
use planner_infer::{
    Evidence, GateConfig, LexicalPick, Narrator, TemplateNarrator, check_faithfulness,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

use crate::answer::{DroppedNode, EvidenceTable, GateReport, TextSource, Timing};
use crate::audit::{AuditBook, AuditWriter};
use crate::database::Database;
use crate::evidence::{StoredTable, scope_of, window_of};
use crate::planning::{Params, Planner, Planning, Proposed, Route};
use crate::run::{NodeOutcome, RunBounds, RunLimits, as_of_carrier, read_as_of, run_plan};

node_ids! {
    /// The planner graph's nodes.
    pub enum Step {
        Screen => "screen",
        ExtractParams => "extract_params",
        RouteQuestion => "route_question",
        BindSingle => "bind_single",
        ProposePlan => "propose_plan",
        Stabilize => "stabilize",
        ValidatePlan => "validate_plan",
        Clarify => "clarify",
        Unplannable => "unplannable",
        RunPlan => "run_plan",
        Narrate => "narrate",
        FaithfulnessGate => "faithfulness_gate",
        RenderDeterministic => "render_deterministic",
        Refuse => "refuse",
        Audit => "audit",
    }
}

routes! {
    /// Out of `screen`.
    pub enum Screened { Ok => "ok", Refuse => "refuse" }
}
routes! {
    /// Out of `route_question`.
    pub enum Routed { Single => "single", Propose => "propose" }
}
routes! {
    /// Out of `validate_plan`.
    pub enum Validated { Run => "run", Clarify => "clarify", Unplannable => "unplannable" }
}
routes! {
    /// Out of `faithfulness_gate`.
    pub enum Gate { Pass => "pass", Fail => "fail" }
}

/// Shared by every run.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) planner: Planner,
    pub(crate) narrator: Arc<dyn Narrator>,
    pub(crate) gate: GateConfig,
    pub(crate) pool: PgPool,
    /// The pipelining pools the statements run on.
    pub(crate) database: Database,
    /// The audit rows' group commit.
    pub(crate) writer: AuditWriter,
    pub(crate) limits: RunLimits,
    pub(crate) max_rounds: u32,
    /// The audit ids being written, and their withdrawals.
    pub(crate) audits: Arc<AuditBook>,
}

/// The state of one question's thread. Data only: no route, no handle.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct State {
    pub(crate) question: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) tenant: Option<uuid::Uuid>,
    /// The id of the API key of the run's caller (the resuming one after a resume).
    #[serde(default)]
    pub(crate) key: Option<uuid::Uuid>,
    /// The mark of the registry the question was asked of ([`registry_mark`]): a thread
    /// resumes only on the same registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) registry: Option<String>,
    pub(crate) answers: Vec<String>,
    pub(crate) rounds: u32,
    pub(crate) refusal: Option<String>,
    pub(crate) params: Params,
    pub(crate) single: bool,
    pub(crate) proposed: Proposed,
    pub(crate) route: Option<Route>,
    pub(crate) tables: Vec<StoredTable>,
    pub(crate) run_dropped: Vec<DroppedNode>,
    /// The nodes that fanned out over an upstream column's values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) fanned: Vec<Fanned>,
    /// The relative periods of the question, each with the dates it was resolved to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) periods: Vec<String>,
    pub(crate) narration: Option<String>,
    pub(crate) gate: Option<GateReport>,
    pub(crate) text: String,
    pub(crate) text_source: Option<TextSource>,
    pub(crate) timings: Vec<Timing>,
    /// The id of this run's audit row: set by `Engine::ask`, and by `Engine::resume` through the
    /// resume value, so that each run audits under the id its caller holds.
    pub(crate) audit_id: Option<uuid::Uuid>,
    /// What this run derived from the fields above; never stored in a checkpoint.
    #[serde(skip)]
    pub(crate) derived: Derived,
}

/// What a registry answers, as a short mark: a 64-bit FNV-1a hash of its intents' and params'
/// names, in order. Not a secret and not a digest of the SQL: it tells a thread asked of one
/// registry from an engine serving another, so that no answer is read against the wrong one.
pub(crate) fn registry_mark(registry: &planner_registry::Registry) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &byte in bytes.iter().chain(&[0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for intent in registry.intents() {
        eat(intent.name.as_bytes());
    }
    for param in registry.params() {
        eat(param.name.as_bytes());
    }
    format!("{hash:016x}")
}

/// A node that ran once per value of an upstream column: what the answer and the audit say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Fanned {
    /// The intent.
    pub(crate) intent: String,
    /// How many times it ran.
    pub(crate) runs: usize,
    /// The sentence the answer adds.
    pub(crate) note: String,
}

impl Fanned {
    fn new(
        registry: &planner_registry::Registry,
        intent: &str,
        fan_out: &crate::run::FanOut,
    ) -> Fanned {
        // A run binds one value, or one row's values together (two: a pair).
        let unit = match fan_out.width {
            1 => "value",
            2 => "pair",
            _ => "row",
        };
        let mut note = format!(
            "{} ran once for each of {} {} of {}",
            intent,
            if fan_out.left_out > 0 { "the first" } else { "the" },
            plural(fan_out.runs, unit),
            fan_out.source
        );
        if fan_out.left_out > 0 {
            note.push_str(&format!(
                "; {} left out (the registry runs at most {} a node)",
                plural_verb(fan_out.left_out, unit),
                plural(registry.fan_out(), unit),
            ));
        }
        if fan_out.unfit > 0 {
            note.push_str(&format!(
                "; {} did not fit {} and did not run",
                plural_verb(fan_out.unfit, unit),
                if fan_out.width > 1 { "their params" } else { "its param" }
            ));
        }
        note.push('.');
        Fanned { intent: intent.to_owned(), runs: fan_out.runs, note }
    }
}

/// One sentence per relative period of the question: the words, and the dates they were read
/// as against the data's date, or that the date could not be read.
fn period_notes(state: &State, as_of: Option<&str>) -> Vec<String> {
    let mut notes = Vec::new();
    for mention in &state.params.mentions {
        let planner_registry::Value::List(bounds) = &mention.value else { continue };
        if !planner_registry::is_relative(&mention.value) {
            continue;
        }
        let words = state.question.get(mention.span.0..mention.span.1).unwrap_or("the period");
        let Some(note) = period_note(words, bounds, as_of) else { continue };
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    notes
}

/// The sentence for one relative period `[start, end)` the question said in `words`; `None`
/// when a bound is malformed.
fn period_note(words: &str, bounds: &[String], as_of: Option<&str>) -> Option<String> {
    let Some(date) = as_of else {
        return Some(format!(
            "\"{words}\" could not be read as dates: the data's date could not be read."
        ));
    };
    let [start, end] = bounds else { return None };
    let start = planner_registry::resolve_bound(start, date)?;
    // An open end ("since August") has no last day: it runs on.
    let dates = if end == "infinity" {
        format!("from {start} on")
    } else {
        // The range is [start, end): its last day is the day before `end`.
        let last = planner_registry::resolve_bound(&format!("{end}-1d"), date)?;
        if start == "-infinity" { format!("up to {last}") } else { format!("{start} to {last}") }
    };
    Some(format!("\"{words}\" is read as {dates}, by the data's date {date}."))
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// "1 value was" / "3 values were".
fn plural_verb(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun} was") } else { format!("{n} {noun}s were") }
}

/// Pure functions of a state's data, kept for the rest of the run once a node computed them
/// (each is computed at most once per run instead of by every node that reads it). An update
/// that changes what one derives from drops it ([`Derived::forget_planning`],
/// [`Derived::forget`]); a resumed run starts without any and computes them again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Derived {
    /// What the extractors found in the question (`screen`).
    extraction: Option<Arc<Extraction>>,
    /// The lexical pick of the question and params (`route_question`).
    pick: Option<Arc<LexicalPick>>,
    /// [`State::planning`] of the params, proposals, scopes, single flag and rounds.
    planning: Option<Arc<Planning>>,
    /// The union of the evidence of the plan that ran (`narrate`).
    evidence: Option<Arc<Evidence>>,
}

impl Derived {
    /// The proposals, the single flag, the scopes or the rounds change: the planning goes.
    fn forget_planning(&mut self) {
        self.planning = None;
        self.evidence = None;
    }

    /// The question's params change: everything goes.
    fn forget(&mut self) {
        *self = Derived::default();
    }
}

/// A state change.
pub(crate) struct Update(Box<dyn FnOnce(&mut State) + Send>);

impl Update {
    fn new(f: impl FnOnce(&mut State) + Send + 'static) -> Update {
        Update(Box::new(f))
    }
}

impl GraphState for State {
    type Update = Update;

    fn apply(&mut self, update: Update) {
        (update.0)(self);
    }
}

type C = Arc<Ctx>;

impl State {
    fn rounds_left(&self, ctx: &Ctx) -> bool {
        self.rounds < ctx.max_rounds
    }

    /// The planning outcome of this state: the one a node of this run already computed, else
    /// computed now (pure), with the question's lexical pick when `route_question` made one.
    pub(crate) fn planning(&self, ctx: &Ctx) -> Arc<Planning> {
        if let Some(planning) = &self.derived.planning {
            return Arc::clone(planning);
        }
        let mut planning = ctx.planner.decide(
            self.params.clone(),
            self.proposed.clone(),
            &self.scopes,
            self.single,
            self.rounds_left(ctx),
        );
        planning.pick = self.derived.pick.as_deref().cloned();
        Arc::new(planning)
    }

    /// The union of the evidence: the one `narrate` built, else built now.
    pub(crate) fn evidence(&self, ctx: &Ctx) -> Arc<Evidence> {
        match &self.derived.evidence {
            Some(evidence) => Arc::clone(evidence),
            None => Arc::new(evidence_of(ctx, self)),
        }
    }
}

fn timed(
    node: &'static str,
    started: Instant,
    update: impl FnOnce(&mut State) + Send + 'static,
) -> Update {
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    Update::new(move |state| {
        update(state);
        state.timings.push(Timing { node: node.to_owned(), micros });
    })
}

struct ProposePlan;

impl Node<State, C> for ProposePlan {
    type Route = ();

    async fn run(
        &self,
        ctx: &C,
        state: &State,
        _: Option<&Json>,
    ) -> Result<Command<Update, ()>, NodeError> {
        let started = Instant::now();
        let proposed = ctx.planner.propose(&state.question, &state.params).await;
        Ok(Command::goto(
            timed("propose_plan", started, move |s| {
                s.proposed = proposed;
                s.derived.forget_planning();
            }),
            (),
        ))
    }
}

struct RunPlan;

impl Node<State, C> for RunPlan {
    type Route = ();

    async fn run(
        &self,
        ctx: &C,
        state: &State,
        _: Option<&Json>,
    ) -> Result<Command<Update, ()>, NodeError> {
        let started = Instant::now();
        let planning = state.planning(ctx);
        let registry = ctx.planner.registry();
        let plan = &planning.validation.plan;
        let tenant = state.tenant.map(TenantId);
        // The data's date anchors the windows: read beside the plan, when a node has one.
        let windowed = plan.nodes.iter().any(|node| {
            registry.intent(node.intent).query().is_some_and(|query| query.window.is_some())
        });
        // A relative period ("last year") needs the date before any node binds it: read first.
        let relative = plan.nodes.iter().any(|node| {
            node.args
                .iter()
                .any(|arg| arg.source.value().is_some_and(planner_registry::is_relative))
        });
        let first = if relative {
            read_as_of(registry, &ctx.database, tenant, ctx.limits).await
        } else {
            None
        };
        let periods = if relative { period_notes(state, first.as_deref()) } else { Vec::new() };
        // It rides with a node of the same plane reader when the first wave has one, else it
        // is read beside the plan.
        let carrier = if windowed && !relative { as_of_carrier(registry, plan) } else { None };
        let as_of = async {
            if windowed && carrier.is_none() && !relative {
                read_as_of(registry, &ctx.database, tenant, ctx.limits).await
            } else {
                None
            }
        };
        let bounds = RunBounds { limits: ctx.limits, as_of_with: carrier, as_of: first.as_deref() };
        let ((outcomes, carried), read) =
            tokio::join!(run_plan(registry, &ctx.database, plan, tenant, bounds), as_of);
        let as_of = match carried.or(read).or(first.clone()) {
            // The carrier did not run (or gave no date): read it on its own after all.
            None if carrier.is_some() => {
                read_as_of(registry, &ctx.database, tenant, ctx.limits).await
            }
            date => date,
        };
        let mut tables = Vec::new();
        let mut dropped = Vec::new();
        let mut fanned = Vec::new();
        for (node, outcome) in plan.nodes.iter().zip(outcomes) {
            let intent = registry.intent(node.intent);
            let name = intent.name.clone();
            match (outcome, intent.query()) {
                (NodeOutcome::Ran(table, fan_out), Some(query)) => {
                    let window = window_of(registry, query, node, as_of.as_deref());
                    let scope = scope_of(registry, node, as_of.as_deref());
                    tables.push(StoredTable::new(&name, query, &table, window, scope));
                    if let Some(fan_out) = fan_out {
                        fanned.push(Fanned::new(registry, &name, &fan_out));
                    }
                }
                (NodeOutcome::Ran(..), None) => dropped.push(DroppedNode {
                    intent: name,
                    reason: "a composite cannot run by itself".to_owned(),
                }),
                (NodeOutcome::Dropped(reason), _) => {
                    dropped.push(DroppedNode { intent: name, reason })
                }
            }
        }
        let route = planning.route;
        Ok(Command::goto(
            timed("run_plan", started, move |s| {
                s.route = Some(route);
                s.tables = tables;
                s.run_dropped = dropped;
                s.fanned = fanned;
                s.periods = periods;
                // The union of the evidence derives from the tables.
                s.derived.evidence = None;
            }),
            (),
        ))
    }
}

struct Narrate;

impl Node<State, C> for Narrate {
    type Route = ();

    async fn run(
        &self,
        ctx: &C,
        state: &State,
        _: Option<&Json>,
    ) -> Result<Command<Update, ()>, NodeError> {
        let started = Instant::now();
        if state.tables.is_empty() {
            // Nothing to narrate: the deterministic rendering says what is missing.
            return Ok(Command::goto(timed("narrate", started, |s| s.narration = None), ()));
        }
        let evidence = state.evidence(ctx);
        let narration = match ctx.narrator.narrate(&state.question, &evidence).await {
            Ok(text) => Some(text),
            Err(err) => {
                tracing::warn!("the narrator failed; the deterministic rendering ships: {err}");
                None
            }
        };
        Ok(Command::goto(
            timed("narrate", started, move |s| {
                s.narration = narration;
                // The gate and the deterministic rendering read the same union.
                s.derived.evidence = Some(evidence);
            }),
            (),
        ))
    }
}

struct Audit;

impl Node<State, C> for Audit {
    type Route = ();

    async fn run(
        &self,
        ctx: &C,
        state: &State,
        _: Option<&Json>,
    ) -> Result<Command<Update, ()>, NodeError> {
        let started = Instant::now();
        let Some(id) = state.audit_id else {
            return Err(NodeError::new(
                "the audit row could not be written: the run has no audit id",
            ));
        };
        let record = audit_record(ctx, state, id);
        // Begun before the first byte is sent: from here on the row may commit whatever happens
        // to this run, so a run that ends without returning its answer withdraws the id.
        ctx.audits.begin(id);
        ctx.writer
            .write(record)
            .await
            .map_err(|err| NodeError::new(format!("the audit row could not be written: {err}")))?;
        Ok(Command::goto(timed("audit", started, |_| {}), ()))
    }
}

fn audit_record(ctx: &Ctx, state: &State, id: uuid::Uuid) -> AuditRecord {
    let registry = ctx.planner.registry();
    let route = state.route.unwrap_or(Route::Unplannable);
    let (intents, dropped_nodes, param_kinds, node_count, self_consistency) =
        if route == Route::Refused {
            (Vec::new(), 0, Vec::new(), 0, SelfConsistency::NotSampled)
        } else {
            let planning = state.planning(ctx);
            let plan = &planning.validation.plan;
            // The nodes that ran: the plan's, less those dropped at run time (one per drop), and
            // none when the plan did not run (clarify, unplannable).
            let ran_plan = matches!(route, Route::Single | Route::Plan);
            let mut intents: Vec<String> = if ran_plan {
                plan.nodes.iter().map(|node| registry.intent(node.intent).name.clone()).collect()
            } else {
                Vec::new()
            };
            for dropped in &state.run_dropped {
                if let Some(position) = intents.iter().position(|it| *it == dropped.intent) {
                    intents.remove(position);
                }
            }
            // A node that fanned out is listed once per run.
            let mut extra_runs = 0;
            for fanned in &state.fanned {
                if let Some(position) = intents.iter().position(|it| *it == fanned.intent) {
                    let more = fanned.runs.saturating_sub(1);
                    extra_runs += more;
                    for _ in 0..more {
                        intents.insert(position, fanned.intent.clone());
                    }
                }
            }
            // Nodes waiting for a clarification are not dropped: they did not run yet.
            let dropped = planning.validation.dropped.len() + state.run_dropped.len();
            let mut kinds: Vec<_> =
                plan.nodes.iter().flat_map(|n| n.args.iter().map(|a| a.kind)).collect();
            kinds.sort();
            kinds.dedup();
            let consistency = match planning.consensus.as_ref().map(|it| it.agreement) {
                None | Some(Agreement::Single) => SelfConsistency::NotSampled,
                Some(Agreement::Unanimous) => SelfConsistency::Unanimous,
                Some(Agreement::Majority) => SelfConsistency::Majority,
                Some(Agreement::NoMajority | Agreement::NoProposal) => SelfConsistency::NoMajority,
            };
            (
                intents,
                u32::try_from(dropped).unwrap_or(u32::MAX),
                kinds,
                u32::try_from(plan.nodes.len() + extra_runs).unwrap_or(u32::MAX),
                consistency,
            )
        };
    let faithfulness = match &state.gate {
        None => Faithfulness::NotNarrated,
        Some(gate) if gate.passed => Faithfulness::Passed,
        Some(_) => Faithfulness::Failed,
    };
    let suppressed: usize = state.tables.iter().map(|t| t.evidence.suppressed_cells).sum();
    AuditRecord {
        id,
        intents,
        dropped_nodes,
        tenant: state.tenant,
        key: state.key,
        param_kinds,
        node_count,
        suppressed_cells: u32::try_from(suppressed).unwrap_or(u32::MAX),
        faithfulness,
        self_consistency,
        route: match route {
            Route::Single => AuditRoute::Single,
            Route::Plan => AuditRoute::Plan,
            Route::Clarify => AuditRoute::Clarify,
            Route::Refused => AuditRoute::Refused,
            Route::Unplannable => AuditRoute::Unplannable,
        },
        latency: Duration::from_micros(state.timings.iter().map(|t| t.micros).sum()),
    }
}

/// The value `Engine::resume` hands to the interrupted `clarify` node: the user's answer, the
/// resumed run's audit id, and the resuming caller's scopes and key, which replace the ones the
/// thread started with.
pub(crate) fn resume_payload(
    answer: &str,
    audit_id: uuid::Uuid,
    scopes: &[String],
    key: Option<uuid::Uuid>,
) -> Json {
    json!({
        "answer": answer,
        "audit_id": audit_id.to_string(),
        "scopes": scopes,
        "key": key.map(|it| it.to_string()),
    })
}

/// A resume value, read back (see [`resume_payload`]).
struct ResumeValue {
    answer: String,
    audit_id: Option<uuid::Uuid>,
    scopes: Vec<String>,
    key: Option<uuid::Uuid>,
}

fn resume_value(value: &Json) -> ResumeValue {
    let uuid = |name: &str| value[name].as_str().and_then(|it| uuid::Uuid::parse_str(it).ok());
    ResumeValue {
        answer: value["answer"].as_str().unwrap_or_default().to_owned(),
        audit_id: uuid("audit_id"),
        // No scope unless the value names them: a resume never widens what a run may read.
        scopes: value["scopes"]
            .as_array()
            .map(|items| items.iter().filter_map(|it| it.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        key: uuid("key"),
    }
}

/// What an unplannable question is told: why the intents that could answer it were dropped for
/// missing scopes, if any were; otherwise that nothing in the registry can answer it.
fn unplannable_text(planning: &Planning, registry: &planner_registry::Registry) -> String {
    let mut lacking: Vec<String> = planning
        .validation
        .dropped
        .iter()
        .filter_map(|dropped| match &dropped.reason {
            DropReason::Forbidden { scopes } => Some(scopes.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    lacking.sort();
    lacking.dedup();
    if lacking.is_empty() {
        let help = registry.help().unwrap_or(
            "Ask about federal awards (spend, incumbents, recompetes, vendors, market share), \
             vendor relationships, your requirements, or bench counts.",
        );
        return format!(
            "Nothing in the registry can answer this question with the values it gives. {help}"
        );
    }
    let mut names: Vec<&str> = planning
        .validation
        .dropped
        .iter()
        .filter(|dropped| matches!(dropped.reason, DropReason::Forbidden { .. }))
        .map(|dropped| dropped.name.as_str())
        .collect();
    names.dedup();
    let lacks = planner_grammar::lacks_scopes(&lacking);
    let mut text = lacks[..1].to_uppercase();
    text.push_str(&lacks[1..]);
    format!("{text}, which this question needs ({}); nothing was run.", names.join(", "))
}

/// The deterministic rendering of the evidence, with what is missing.
/// Builds and validates the planner graph.
pub(crate) fn build() -> Graph<Step, State, C> {
    let mut b = GraphBuilder::<Step, State, C>::new();
    b.start(Step::Screen);
    b.add_fn(Step::Screen, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let extraction = ctx.planner.extractor().extract(&state.question);
        let refusal = ctx.planner.screen().check(&state.question, &extraction);
        Ok(match refusal {
            Some(refusal) => Command::goto(
                timed("screen", started, move |s| {
                    s.refusal = Some(refusal.reason());
                    s.route = Some(Route::Refused);
                }),
                Screened::Refuse,
            ),
            // extract_params starts from the same extraction of the question.
            None => Command::goto(
                timed("screen", started, move |s| {
                    s.derived.extraction = Some(Arc::new(extraction));
                }),
                Screened::Ok,
            ),
        })
    })
    .route(Screened::Ok, Step::ExtractParams)
    .route(Screened::Refuse, Step::Refuse);
    b.add_fn(Step::ExtractParams, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let extractor = ctx.planner.extractor();
        let params = match &state.derived.extraction {
            Some(extraction) => {
                Params::extract_after(extractor, &state.question, extraction, &state.answers)
            }
            None => Params::extract(extractor, &state.question, &state.answers),
        };
        Ok(Command::goto(
            timed("extract_params", started, move |s| {
                s.params = params;
                s.derived.forget();
            }),
            (),
        ))
    })
    .goto(Step::RouteQuestion);
    b.add_fn(Step::RouteQuestion, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let (single, pick) =
            ctx.planner.route_single_with_pick(&state.question, &state.params, &state.scopes);
        let pick = Arc::new(pick);
        Ok(match single {
            Some(name) => Command::goto(
                timed("route_question", started, move |s| {
                    s.single = true;
                    s.proposed = Proposed { samples: vec![vec![name]], ..Proposed::default() };
                    s.derived.forget_planning();
                    s.derived.pick = Some(pick);
                }),
                Routed::Single,
            ),
            None => Command::goto(
                timed("route_question", started, move |s| {
                    s.single = false;
                    s.derived.forget_planning();
                    s.derived.pick = Some(pick);
                }),
                Routed::Propose,
            ),
        })
    })
    .route(Routed::Single, Step::BindSingle)
    .route(Routed::Propose, Step::ProposePlan);
    // A single intent that binds may still need a word from the user: a name the question
    // gives that two values share ("Cedar Falls"), even for an optional param, is asked about
    // as it is on the proposed path, never answered for the default.
    b.add_fn(Step::BindSingle, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let planning = state.planning(ctx);
        let route = planning.route;
        let next = match route {
            Route::Clarify => Validated::Clarify,
            Route::Unplannable => Validated::Unplannable,
            _ => Validated::Run,
        };
        Ok(Command::goto(
            timed("bind_single", started, move |s| {
                s.route = Some(route);
                s.derived.planning = Some(planning);
            }),
            next,
        ))
    })
    .route(Validated::Run, Step::RunPlan)
    .route(Validated::Clarify, Step::Clarify)
    .route(Validated::Unplannable, Step::Unplannable);
    b.add_node(Step::ProposePlan, ProposePlan).goto(Step::Stabilize);
    b.add_fn(Step::Stabilize, |_: &C, _: &State, _| {
        // The majority vote is pure; validate_plan computes it from the stored proposals (and
        // keeps it for the run's later nodes), so this step records nothing but its time.
        Ok(Command::goto(timed("stabilize", Instant::now(), |_| {}), ()))
    })
    .goto(Step::ValidatePlan);
    b.add_fn(Step::ValidatePlan, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let planning = state.planning(ctx);
        let route = planning.route;
        let next = match route {
            Route::Clarify => Validated::Clarify,
            Route::Unplannable => Validated::Unplannable,
            _ => Validated::Run,
        };
        Ok(Command::goto(
            timed("validate_plan", started, move |s| {
                s.route = Some(route);
                s.derived.planning = Some(planning);
            }),
            next,
        ))
    })
    .route(Validated::Run, Step::RunPlan)
    .route(Validated::Clarify, Step::Clarify)
    .route(Validated::Unplannable, Step::Unplannable);
    b.add_fn(Step::Clarify, |ctx: &C, state: &State, resume: Option<&Json>| {
        if let Some(resume) = resume {
            let started = Instant::now();
            let value = resume_value(resume);
            return Ok(Command::goto(
                timed("clarify", started, move |s| {
                    s.answers.push(value.answer);
                    s.rounds += 1;
                    s.audit_id = value.audit_id;
                    s.scopes = value.scopes;
                    s.key = value.key;
                    s.derived.forget();
                }),
                (),
            ));
        }
        let planning = state.planning(ctx);
        let (question, suggestions) =
            ctx.planner.clarification(&planning.params, &planning.missing);
        let registry = ctx.planner.registry();
        let missing: Vec<&str> =
            planning.missing.iter().map(|&p| registry.param(p).name.as_str()).collect();
        Ok(Command::Interrupt(json!({
            "question": question,
            "missing": missing,
            "suggestions": suggestions,
        })))
    })
    .goto(Step::ExtractParams);
    b.add_fn(Step::Unplannable, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let text = unplannable_text(&state.planning(ctx), ctx.planner.registry());
        Ok(Command::goto(
            timed("unplannable", started, move |s| {
                s.route = Some(Route::Unplannable);
                s.text = text;
                s.text_source = Some(TextSource::Deterministic);
            }),
            (),
        ))
    })
    .goto(Step::Audit);
    b.add_node(Step::RunPlan, RunPlan).goto(Step::Narrate);
    b.add_node(Step::Narrate, Narrate).goto(Step::FaithfulnessGate);
    b.add_fn(Step::FaithfulnessGate, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let Some(narration) = state.narration.clone() else {
            return Ok(Command::goto(timed("faithfulness_gate", started, |_| {}), Gate::Fail));
        };
        let evidence = state.evidence(ctx);
        let verdict = check_faithfulness(&narration, &evidence, &ctx.gate);
        // What did not contribute is always said, in the template's words, when the narration
        // does not already say it.
        let notes = TemplateNarrator::render_dropped(&evidence);
        let passed = verdict.passed();
        let report = GateReport {
            passed,
            misses: verdict.misses.iter().map(|m| format!("{m:?}")).collect(),
        };
        Ok(Command::goto(
            timed("faithfulness_gate", started, move |s| {
                if passed {
                    let mut text = narration;
                    if !text.contains(notes.trim_end()) {
                        if !text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.push_str(&notes);
                    }
                    s.text = text;
                    s.text_source = Some(TextSource::Narrated);
                }
                s.gate = Some(report);
            }),
            if passed { Gate::Pass } else { Gate::Fail },
        ))
    })
    .route(Gate::Pass, Step::Audit)
    .route(Gate::Fail, Step::RenderDeterministic);
    b.add_fn(Step::RenderDeterministic, |ctx: &C, state: &State, _| {
        let started = Instant::now();
        let text = TemplateNarrator::render(&state.evidence(ctx));
        Ok(Command::goto(
            timed("render_deterministic", started, move |s| {
                s.text = text;
                s.text_source = Some(TextSource::Deterministic);
            }),
            (),
        ))
    })
    .goto(Step::Audit);
    b.add_fn(Step::Refuse, |_: &C, state: &State, _| {
        let started = Instant::now();
        let text = format!("Refused: {}.", state.refusal.clone().unwrap_or_default());
        Ok(Command::goto(
            timed("refuse", started, move |s| {
                s.text = text;
                s.text_source = Some(TextSource::Deterministic);
            }),
            (),
        ))
    })
    .goto(Step::Audit);
    b.add_node(Step::Audit, Audit).goto_end();
    b.compile().expect("the planner graph is valid")
}

/// The plan trace of a state.
pub(crate) fn trace_of(ctx: &Ctx, state: &State) -> PlanTrace {
    let planning = state.planning(ctx);
    PlanTrace::new(ctx.planner.registry(), &planning.validation, planning.consensus.as_ref())
}

/// The evidence tables of a state's tables.
pub(crate) fn evidence_tables(tables: Vec<StoredTable>) -> Vec<EvidenceTable> {
    tables.into_iter().map(|t| t.evidence).collect()
}

/// The union of a state's evidence: every table, the entity values the question bound, and
/// the registry intents of the plan that did not contribute (dropped at planning for a reason
/// the caller can act on, or at run time), with their reasons.
fn evidence_of(ctx: &Ctx, state: &State) -> Evidence {
    let mut entities: Vec<String> = state
        .params
        .available
        .values()
        .chain(state.params.roles.values())
        .filter_map(|value| match value {
            planner_registry::Value::Text(text) => Some(text.clone()),
            planner_registry::Value::List(items) => Some(items.join("/")),
            planner_registry::Value::Int(_) => None,
        })
        .collect();
    entities.sort();
    entities.dedup();
    let registry = ctx.planner.registry();
    let planning = state.planning(ctx);
    // Names the proposer made up, and repeats, are not the registry's: they are not named.
    let mut dropped: Vec<planner_infer::DroppedIntent> = planning
        .validation
        .dropped
        .iter()
        .filter_map(|dropped| {
            let reason = match &dropped.reason {
                DropReason::Unknown | DropReason::Duplicate => return None,
                DropReason::Forbidden { scopes } => planner_grammar::lacks_scopes(scopes),
                DropReason::Unbindable { missing } => {
                    let names: Vec<&str> =
                        missing.iter().map(|&param| registry.param(param).name.as_str()).collect();
                    format!("the question does not give its {}", names.join(" or "))
                }
                DropReason::OverCap => "the plan was already full".to_owned(),
            };
            Some(planner_infer::DroppedIntent { intent: dropped.name.clone(), reason })
        })
        .collect();
    dropped.extend(state.run_dropped.iter().map(|it| planner_infer::DroppedIntent {
        intent: it.intent.clone(),
        reason: it.reason.clone(),
    }));
    Evidence {
        tables: state.tables.iter().map(StoredTable::gate_table).collect(),
        entities,
        dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::period_note;

    #[test]
    fn a_period_note_says_the_days_and_never_an_open_end_as_a_date() {
        let note = |bounds: [&str; 2]| {
            let bounds = bounds.map(str::to_owned);
            period_note("the words", &bounds, Some("2025-11-14")).unwrap()
        };
        assert_eq!(
            note(["@M-1m", "@M"]),
            "\"the words\" is read as 2025-10-01 to 2025-10-31, by the data's date 2025-11-14."
        );
        assert_eq!(
            note(["@L9", "infinity"]),
            "\"the words\" is read as from 2025-09-01 on, by the data's date 2025-11-14."
        );
        assert_eq!(
            note(["-infinity", "@L9"]),
            "\"the words\" is read as up to 2025-08-31, by the data's date 2025-11-14."
        );
        assert!(
            period_note("x", &["@M".to_owned(), "@M".to_owned()], None)
                .unwrap()
                .contains("could not be read")
        );
    }
}
