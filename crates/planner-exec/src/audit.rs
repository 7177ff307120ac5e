//! The counts-only audit writer (ARCHITECTURE.md invariant 7).
//!
//! One append-only row per answer with exactly: the names of the intents that ran, the count of
//! plan nodes dropped, the param kinds, the node count, the suppressed-cell count, the
//! faithfulness verdict, the self-consistency outcome, the route, the latency, and the ids of the
//! tenant and the API key the answer was given to. The record type has no field that could hold a
//! param value, a question, an answer text or a person's id.
//!
//! A row records an answer whose audit committed; the caller may still never receive it (its
//! request was cancelled, or failed after the write began: the reply of a commit can always be
//! lost). The row's id is chosen by the caller, which records such an id with
//! [`withdraw_audits`] in `audit.withdrawn`, append-only too; the view `audit.answers_given` is the
//! log less the withdrawn ids: exactly the answers given.

use std::time::Duration;

use planner_registry::ParamKind;
use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::error::{Error, Result};

/// The route an answer took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AuditRoute {
    /// One intent, no sampling.
    Single,
    /// A validated plan of several nodes.
    Plan,
    /// The planner asked the user for a missing param.
    Clarify,
    /// The question was refused (protected attributes, scoring people).
    Refused,
    /// Nothing relevant and bindable.
    Unplannable,
}

impl AuditRoute {
    /// The stored name.
    pub const fn as_str(self) -> &'static str {
        match self {
            AuditRoute::Single => "single",
            AuditRoute::Plan => "plan",
            AuditRoute::Clarify => "clarify",
            AuditRoute::Refused => "refused",
            AuditRoute::Unplannable => "unplannable",
        }
    }
}

/// The faithfulness gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Faithfulness {
    /// The narration was checked and shipped.
    Passed,
    /// The narration failed the check; the deterministic rendering shipped.
    Failed,
    /// No narration was produced (deterministic rendering, refusal, clarification).
    NotNarrated,
}

impl Faithfulness {
    /// The stored name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Faithfulness::Passed => "passed",
            Faithfulness::Failed => "failed",
            Faithfulness::NotNarrated => "not_narrated",
        }
    }
}

/// The outcome of self-consistency over sampled plan proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SelfConsistency {
    /// No sampling happened (single route, refusal, ...).
    NotSampled,
    /// Every sample agreed.
    Unanimous,
    /// A strict majority agreed.
    Majority,
    /// No majority.
    NoMajority,
}

impl SelfConsistency {
    /// The stored name.
    pub const fn as_str(self) -> &'static str {
        match self {
            SelfConsistency::NotSampled => "not_sampled",
            SelfConsistency::Unanimous => "unanimous",
            SelfConsistency::Majority => "majority",
            SelfConsistency::NoMajority => "no_majority",
        }
    }
}

/// One audit row: counts and closed-set names only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    /// The row's id, chosen by the caller: the id it withdraws the row by when the answer is
    /// never given (a random UUID, never derived from the question or the caller).
    pub id: Uuid,
    /// The names of the intents that ran, in plan order (a node dropped before it ran is not
    /// listed; it is counted in `dropped_nodes`).
    pub intents: Vec<String>,
    /// The number of plan nodes dropped without running (a missing scope or param, an upstream
    /// result that bound nothing, ...).
    pub dropped_nodes: u32,
    /// The tenant the answer was given to (its id; `None` for public planes only).
    pub tenant: Option<Uuid>,
    /// The API key the answer was given to (its id, never the key; `None` without a key).
    pub key: Option<Uuid>,
    /// The kinds of the params that were bound (never their values).
    pub param_kinds: Vec<ParamKind>,
    /// The number of plan nodes.
    pub node_count: u32,
    /// The number of suppressed and withheld cells across the answer.
    pub suppressed_cells: u32,
    /// The faithfulness gate's verdict.
    pub faithfulness: Faithfulness,
    /// The self-consistency outcome.
    pub self_consistency: SelfConsistency,
    /// The route.
    pub route: AuditRoute,
    /// The time from question to answer.
    pub latency: Duration,
}

/// Appends one audit row under `record.id` as `planner_audit` (INSERT only) and returns its id.
/// The caller returns no answer when this fails, and withdraws the id (the commit may have
/// happened although its reply was lost).
pub async fn write_audit(pool: &PgPool, record: &AuditRecord) -> Result<Uuid> {
    let id = record.id;
    let node_count = i16::try_from(record.node_count)
        .map_err(|_| Error::InvalidRequest { reason: "the node count is out of range" })?;
    let suppressed = i32::try_from(record.suppressed_cells).map_err(|_| Error::InvalidRequest {
        reason: "the suppressed-cell count is out of range",
    })?;
    let latency_ms = i32::try_from(record.latency.as_millis()).unwrap_or(i32::MAX);
    let dropped = i16::try_from(record.dropped_nodes)
        .map_err(|_| Error::InvalidRequest { reason: "the dropped-node count is out of range" })?;
    let kinds: Vec<&str> = record.param_kinds.iter().map(|kind| kind.as_str()).collect();

    let mut tx = pool.begin_with("BEGIN; SET LOCAL ROLE planner_audit").await?;
    sqlx::query(
        "INSERT INTO audit.answer_log (id, intents, param_kinds, node_count, suppressed_cells, \
         faithfulness, self_consistency, route, latency_ms, dropped_nodes, tenant_id, key_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(id)
    .bind(&record.intents)
    .bind(&kinds)
    .bind(node_count)
    .bind(suppressed)
    .bind(record.faithfulness.as_str())
    .bind(record.self_consistency.as_str())
    .bind(record.route.as_str())
    .bind(latency_ms)
    .bind(dropped)
    .bind(record.tenant)
    .bind(record.key)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Records, in one transaction as `planner_audit` (INSERT only), that the answers of `ids` were
/// never given: `audit.answers_given` leaves them out. Idempotent: an id already withdrawn stays
/// one row. An id need not have a row in the answer log (its write may have failed).
pub async fn withdraw_audits(pool: &PgPool, ids: &[Uuid]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut tx = pool.begin_with("BEGIN; SET LOCAL ROLE planner_audit").await?;
    sqlx::query(
        "INSERT INTO audit.withdrawn (id) SELECT * FROM UNNEST($1::uuid[]) ON CONFLICT DO NOTHING",
    )
    .bind(ids)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
