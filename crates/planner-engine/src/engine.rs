//! The engine: the API boundary that the server and the CLI call.

use std::sync::Arc;
use std::time::Duration;

use planner_exec::PgPool;
use planner_grammar::{PlanView, plan_view};
use planner_graph::{Checkpointer, Durability, Graph, PgCheckpointer, RunConfig, Status};
use planner_infer::{GateConfig, Narrator, Proposer, TemplateNarrator};
use planner_registry::Registry;

use crate::answer::{Answer, DroppedNode, NeedsInput, Outcome, TextSource};
use crate::audit::{AuditBook, AuditWriter};
use crate::database::Database;
use crate::error::{Error, Result};
use crate::graph::{self, Ctx, State, Step};
use crate::planning::{Planner, Route};
use crate::report::PlanReport;
use crate::run::RunLimits;
use crate::screen::check_input;

/// The default [`EngineConfig::thread_retention`]: a day.
pub const DEFAULT_THREAD_RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// How an engine is built. [`EngineConfig::new`] gives the defaults: the lexical proposer (K =
/// 1), the template narrator, 4 nodes at once, 5 s per statement, 10 s per answer, 2 clarify
/// rounds.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The frozen registry.
    pub registry: Registry,
    /// The proposer; `None` is the offline lexical proposer.
    pub proposer: Option<Arc<dyn Proposer>>,
    /// K, the proposals asked of a sampling proposer (the lexical one always gives 1).
    pub samples: usize,
    /// The narrator; `None` is the deterministic template narrator.
    pub narrator: Option<Arc<dyn Narrator>>,
    /// The faithfulness gate's settings.
    pub gate: GateConfig,
    /// Concurrency, statement timeout and answer deadline.
    pub limits: RunLimits,
    /// Clarification rounds before the planner goes on without the node.
    pub max_clarify_rounds: u32,
    /// The most time the configured proposer may take before the lexical proposer answers.
    pub proposer_timeout: Duration,
    /// How long a thread waiting for the user's answer can be resumed, and how long any
    /// thread's checkpoints (which hold its question) are kept after its last step. Older
    /// threads are pruned by a background task.
    pub thread_retention: Duration,
    /// A streaming replica of the database (the runtime login's pool), read for the planes
    /// without tenant rows (market, graph) while it answers; `None` reads every plane from the
    /// primary.
    pub replica: Option<planner_exec::WirePool>,
}

impl EngineConfig {
    /// The defaults over `registry`.
    pub fn new(registry: Registry) -> EngineConfig {
        EngineConfig {
            registry,
            proposer: None,
            samples: 3,
            narrator: None,
            gate: GateConfig::reference(),
            limits: RunLimits {
                concurrency: 4,
                node_timeout: Duration::from_secs(5),
                deadline: Duration::from_secs(10),
            },
            max_clarify_rounds: 2,
            proposer_timeout: Duration::from_secs(10),
            thread_retention: DEFAULT_THREAD_RETENTION,
            replica: None,
        }
    }
}

/// A question to answer.
#[derive(Debug, Clone)]
pub struct Ask {
    /// The question.
    pub question: String,
    /// The caller's scopes (`bench` to see bench counts).
    pub scopes: Vec<String>,
    /// The caller's tenant (row-level security); `None` sees public planes only.
    pub tenant: Option<uuid::Uuid>,
    /// The id of the caller's API key (audited, and checked on resume); `None` without a key.
    pub key: Option<uuid::Uuid>,
}

/// Who resumes a thread: the thread resumes with these scopes, never with the ones it started
/// with.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// The caller's scopes.
    pub scopes: Vec<String>,
    /// The caller's tenant: a thread of another tenant is unknown.
    pub tenant: Option<uuid::Uuid>,
    /// The id of the caller's API key; `None` without a key.
    pub key: Option<uuid::Uuid>,
}

/// The planner: plans without a database, answers with one.
#[derive(Debug, Clone)]
pub struct Engine {
    ctx: Arc<Ctx>,
    graph: Graph<Step, State, Arc<Ctx>>,
    checkpoints: Arc<PgCheckpointer>,
    retention: Duration,
    /// The registry's mark, kept in each thread (`graph::registry_mark`).
    mark: String,
}

/// See [`Engine::database_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DatabaseStats {
    /// Round trips on the primary's pipelining connections (statements and audit writes).
    pub primary_round_trips: u64,
    /// Connections the primary's pipelining pool opened.
    pub primary_connections: u64,
    /// The replica's, when there is one.
    pub replica: Option<ReplicaStats>,
    /// Audit group commits.
    pub audit_commits: u64,
    /// Audit rows those commits held.
    pub audit_rows: u64,
}

/// See [`DatabaseStats::replica`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaStats {
    /// It answered its last request or probe.
    pub up: bool,
    /// Round trips on its connections.
    pub round_trips: u64,
    /// Statements meant for it that ran on the primary because it did not answer.
    pub fallbacks: u64,
}

/// Applies the schema (planner-exec) and the checkpoint tables (planner-graph) to `pool`, and
/// grants the runtime login its use of the checkpoints. Run with the owner login.
pub async fn migrate(pool: &PgPool) -> Result<()> {
    planner_graph::MIGRATOR.run(pool).await.map_err(|err| Error::Unavailable(err.to_string()))?;
    planner_exec::MIGRATOR.run(pool).await.map_err(|err| Error::Unavailable(err.to_string()))?;
    planner_exec::grant_checkpoints(pool)
        .await
        .map_err(|err| Error::Unavailable(err.to_string()))?;
    Ok(())
}

impl Engine {
    /// An engine answering on `pool` (already migrated, see [`migrate`]); threads are
    /// checkpointed in the same database, so any engine sharing it can resume them. Spawns the
    /// checkpoint writer and the audit withdrawer, so it must be called within a Tokio runtime.
    pub fn new(config: EngineConfig, pool: PgPool) -> Engine {
        let mark = graph::registry_mark(&config.registry);
        let planner = Planner::new(config.registry, config.proposer, config.samples)
            .with_proposer_timeout(config.proposer_timeout);
        let primary = planner_exec::WirePool::from_pg_pool(&pool);
        let ctx = Arc::new(Ctx {
            planner,
            narrator: config.narrator.unwrap_or_else(|| Arc::new(TemplateNarrator)),
            gate: config.gate,
            pool: pool.clone(),
            writer: AuditWriter::new(primary.clone()),
            database: Database::new(primary, config.replica),
            limits: config.limits,
            max_rounds: config.max_clarify_rounds,
            audits: AuditBook::new(pool.clone()),
        });
        let checkpoints = Arc::new(PgCheckpointer::new(pool.clone()));
        let graph = graph::build().with_checkpointer(
            Arc::clone(&checkpoints) as Arc<dyn Checkpointer>,
            Durability::Interrupts,
        );
        let retention = config.thread_retention;
        tokio::spawn(prune_loop(pool, Arc::downgrade(&checkpoints), retention));
        Engine { ctx, graph, checkpoints, retention, mark }
    }

    /// Forgets the threads older than the retention now: their ownership rows, and the
    /// checkpoints (with their question text) of every thread whose last step is older. The
    /// background task does the same periodically.
    pub async fn prune_threads(&self) -> Result<u64> {
        prune(&self.ctx.pool, &self.checkpoints, self.retention).await
    }

    /// The planner (for plan-only use).
    pub fn planner(&self) -> &Planner {
        &self.ctx.planner
    }

    /// The planner graph as a Mermaid flowchart.
    pub fn mermaid() -> String {
        graph::build().to_mermaid()
    }

    /// Plans a question without running it (`planner plan`).
    pub async fn plan(&self, question: &str, scopes: &[String]) -> Result<PlanReport> {
        plan_report(&self.ctx.planner, question, scopes).await
    }

    /// Audit withdrawals queued and not yet written: audit rows of answers never given (their
    /// run failed, or its future was dropped, after the audit write began). Written by a
    /// background task, retried while the database is away.
    pub fn pending_withdrawals(&self) -> usize {
        self.ctx.audits.pending_withdrawals()
    }

    /// Audit withdrawals written since this engine was built (shared by its clones).
    pub fn withdrawn_total(&self) -> u64 {
        self.ctx.audits.withdrawn_total()
    }

    /// What the engine's connections did since it was built: round trips on the sockets of the
    /// statements and the audit writes, group commits, and the replica's state.
    pub fn database_stats(&self) -> DatabaseStats {
        let database = &self.ctx.database;
        let (audit_commits, audit_rows) = self.ctx.writer.committed();
        DatabaseStats {
            primary_round_trips: database.primary.round_trips(),
            primary_connections: database.primary.connections_opened(),
            replica: database.replica.as_ref().map(|replica| ReplicaStats {
                up: replica.is_up(),
                round_trips: replica.pool.round_trips(),
                fallbacks: replica.fallbacks(),
            }),
            audit_commits,
            audit_rows,
        }
    }

    /// Asks the primary (and the replica, when there is one) for an empty reply: whether the
    /// engine can answer now. An error when the primary does not answer; the replica's state
    /// otherwise (`None` without a replica).
    pub async fn check_database(&self) -> Result<Option<bool>> {
        let database = &self.ctx.database;
        let primary = tokio::time::timeout(Duration::from_secs(2), database.primary.check());
        match primary.await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => return Err(Error::Unavailable(err.to_string())),
            Err(_) => return Err(Error::Unavailable("no reply within 2 s".to_owned())),
        }
        Ok(match &database.replica {
            Some(replica) => Some(replica.probe().await),
            None => None,
        })
    }

    /// Answers a question, or asks the user for a missing value. Dropping the future after the
    /// audit write began withdraws the audit row (see [`Engine::pending_withdrawals`]).
    pub async fn ask(&self, ask: Ask) -> Result<Outcome> {
        check_input(&ask.question)?;
        let ticket = self.ctx.audits.ticket();
        let state = State {
            question: ask.question,
            scopes: ask.scopes,
            tenant: ask.tenant,
            key: ask.key,
            registry: Some(self.mark.clone()),
            audit_id: Some(ticket.id()),
            ..State::default()
        };
        let thread = uuid::Uuid::new_v4();
        let thread_id = thread.to_string();
        let run = self.graph.invoke(&self.ctx, state, &RunConfig::thread(thread_id.clone())).await;
        let outcome = self.outcome(thread_id, run)?;
        if matches!(outcome, Outcome::NeedsInput(_)) {
            planner_exec::record_thread(&self.ctx.pool, thread, ask.tenant, ask.key)
                .await
                .map_err(|err| match err {
                    planner_exec::Error::UnknownTenant(tenant) => Error::UnknownTenant(tenant),
                    err => Error::Unavailable(err.to_string()),
                })?;
        }
        ticket.confirm();
        Ok(outcome)
    }

    /// Resumes a thread waiting for the user's answer, with the caller's scopes and key. The
    /// answer runs through the same extractors as a question. A thread is unknown to a caller
    /// of another tenant, once the key that started it is revoked, past the retention, and to
    /// an engine serving another registry than the one it was asked of.
    pub async fn resume(&self, thread_id: &str, answer: &str, caller: &Caller) -> Result<Outcome> {
        check_input(answer)?;
        let ticket = self.ctx.audits.ticket();
        let waiting = self.graph_waiting_state(thread_id).await?;
        let unknown = || Error::UnknownThread(thread_id.to_owned());
        // A UUID: graph_waiting_state checked it.
        let thread = uuid::Uuid::parse_str(thread_id).map_err(|_| unknown())?;
        let owner = planner_exec::thread_owner(&self.ctx.pool, thread, self.retention)
            .await
            .map_err(|err| Error::Unavailable(err.to_string()))?
            .ok_or_else(unknown)?;
        // A thread asked of another registry waits for no answer this engine can read.
        let other_registry = waiting.registry.as_ref().is_some_and(|mark| *mark != self.mark);
        if waiting.tenant != caller.tenant
            || owner.tenant != caller.tenant
            || owner.key_revoked
            || other_registry
        {
            return Err(unknown());
        }
        let payload = graph::resume_payload(answer, ticket.id(), &caller.scopes, caller.key);
        let run =
            self.graph.resume(&self.ctx, thread_id, payload, &RunConfig::thread(thread_id)).await;
        let outcome = self.outcome(thread_id.to_owned(), run)?;
        ticket.confirm();
        Ok(outcome)
    }

    async fn graph_waiting_state(&self, thread_id: &str) -> Result<State> {
        // Thread ids are UUIDs this engine made; anything else (a NUL, which PostgreSQL text
        // cannot hold, or kilobytes of text) names no thread and never reaches the database.
        if uuid::Uuid::parse_str(thread_id).is_err() {
            return Err(Error::UnknownThread(thread_id.chars().take(64).collect()));
        }
        let Some(checkpoint) = self
            .checkpoints
            .load(thread_id, None)
            .await
            .map_err(|err| Error::Unavailable(err.to_string()))?
        else {
            return Err(Error::UnknownThread(thread_id.to_owned()));
        };
        if checkpoint.interrupt.is_none() {
            return Err(Error::UnknownThread(thread_id.to_owned()));
        }
        serde_json::from_str(&checkpoint.state).map_err(|err| Error::Graph(err.to_string()))
    }

    fn outcome(
        &self,
        thread_id: String,
        run: Result<planner_graph::Run<State>, planner_graph::Error>,
    ) -> Result<Outcome> {
        let run = run.map_err(|err| match err {
            planner_graph::Error::Store(detail) => Error::Unavailable(detail),
            planner_graph::Error::NotInterrupted { .. }
            | planner_graph::Error::CheckpointNotFound { .. }
            | planner_graph::Error::AlreadyFinished { .. } => {
                Error::UnknownThread(thread_id.clone())
            }
            other => {
                let detail =
                    std::error::Error::source(&other).map(ToString::to_string).unwrap_or_default();
                let text = format!("{other}: {detail}");
                if detail.contains("audit row") {
                    Error::AuditFailed(text)
                } else {
                    Error::Graph(text)
                }
            }
        })?;
        match run.status {
            Status::Interrupted(interrupt) => {
                let payload = interrupt.payload;
                let strings = |key: &str| -> Vec<String> {
                    payload[key]
                        .as_array()
                        .map(|items| {
                            items.iter().filter_map(|it| it.as_str().map(str::to_owned)).collect()
                        })
                        .unwrap_or_default()
                };
                Ok(Outcome::NeedsInput(NeedsInput {
                    thread_id,
                    question: payload["question"].as_str().unwrap_or_default().to_owned(),
                    missing: strings("missing"),
                    suggestions: strings("suggestions"),
                }))
            }
            Status::Finished => Ok(Outcome::Answered(Box::new(self.answer_of(run.state)))),
        }
    }

    fn answer_of(&self, state: State) -> Answer {
        let registry = self.ctx.planner.registry();
        let route = state.route.unwrap_or(Route::Unplannable);
        let mut proposer_error = state.proposed.failure;
        let mut unapplied = Vec::new();
        let mut unanswered = Vec::new();
        let (plan, mut dropped, trace): (PlanView, Vec<DroppedNode>, _) = if route == Route::Refused
        {
            let empty = planner_grammar::Validation::default();
            (
                plan_view(registry, &empty.plan),
                Vec::new(),
                planner_grammar::PlanTrace::new(registry, &empty, None),
            )
        } else {
            let planning = state.planning(&self.ctx);
            // Planning may fall back on its own (K samples sharing no majority).
            proposer_error = planning.proposed.failure;
            if matches!(route, Route::Single | Route::Plan) {
                unapplied = crate::screen::unapplied_qualifiers(&state.question);
                unapplied.extend(self.ctx.planner.not_applied(&state.question, &planning));
                unanswered = self.ctx.planner.unanswered(&state.question, &planning);
            }
            let dropped = planner_grammar::dropped_view(registry, &planning.validation.dropped)
                .into_iter()
                .map(|it| DroppedNode { intent: it.intent, reason: it.reason })
                .collect();
            (
                plan_view(registry, &planning.validation.plan),
                dropped,
                graph::trace_of(&self.ctx, &state),
            )
        };
        dropped.extend(state.run_dropped);
        let evidence = graph::evidence_tables(state.tables);
        let mut text = state.text;
        for part in &unanswered {
            text.push_str(&format!(
                "\nNot answered: \"{part}\" (no intent of the registry answers it)."
            ));
        }
        for period in &state.periods {
            text.push('\n');
            text.push_str(period);
        }
        for fanned in &state.fanned {
            text.push('\n');
            text.push_str(&fanned.note);
        }
        for qualifier in &unapplied {
            let mut chars = qualifier.chars();
            let first = chars.next().map(|it| it.to_uppercase().collect::<String>());
            text.push_str(&format!("\n{}{}.", first.unwrap_or_default(), chars.as_str()));
        }
        Answer {
            route,
            text,
            unapplied,
            unanswered,
            text_source: state.text_source.unwrap_or(TextSource::Deterministic),
            plan,
            suppressed_cells: evidence.iter().map(|t| t.suppressed_cells).sum(),
            evidence,
            dropped,
            gate: state.gate,
            proposer_fallback: proposer_error.is_some(),
            proposer_error,
            trace,
            timings: state.timings,
        }
    }
}

/// Prunes `checkpoints` and the thread owners past `retention`; returns the checkpoints deleted.
async fn prune(pool: &PgPool, checkpoints: &PgCheckpointer, retention: Duration) -> Result<u64> {
    planner_exec::prune_threads(pool, retention)
        .await
        .map_err(|err| Error::Unavailable(err.to_string()))?;
    checkpoints.prune(retention).await.map_err(|err| Error::Unavailable(err.to_string()))
}

/// Prunes every `retention / 12` (at least a second, at most an hour) while the engine lives.
async fn prune_loop(
    pool: PgPool,
    checkpoints: std::sync::Weak<PgCheckpointer>,
    retention: Duration,
) {
    let every = (retention / 12).clamp(Duration::from_secs(1), Duration::from_secs(3600));
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(checkpoints) = checkpoints.upgrade() else { return };
        // A closed pool is a command ending (its database closed): nothing is left to prune.
        if pool.is_closed() {
            return;
        }
        if let Err(err) = prune(&pool, &checkpoints, retention).await {
            if pool.is_closed() {
                return;
            }
            tracing::warn!(%err, "pruning old threads failed");
        }
    }
}

/// Plans a question without a database: the report `planner plan --json` prints.
pub async fn plan_report(
    planner: &Planner,
    question: &str,
    scopes: &[String],
) -> Result<PlanReport> {
    check_input(question)?;
    let planning = planner.plan(question, &[], scopes, true).await;
    let to_user = (planning.route == Route::Clarify)
        .then(|| planner.clarification(&planning.params, &planning.missing).0);
    let mut report = PlanReport::new(planner.registry(), &planning, to_user);
    if matches!(planning.route, Route::Single | Route::Plan) {
        report.unapplied = crate::screen::unapplied_qualifiers(question);
        report.unapplied.extend(planner.not_applied(question, &planning));
        report.unanswered = planner.unanswered(question, &planning);
    }
    Ok(report)
}
