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

use futures::future::join_all;
use planner_registry::ParamKind;
use sqlx::postgres::PgPool;
use tokio_postgres::types::{ToSql, Type};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::wire::WirePool;

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

/// The audit row's insert: one per record, all in one transaction.
const INSERT: &str = "INSERT INTO audit.answer_log (id, intents, param_kinds, node_count, \
     suppressed_cells, faithfulness, self_consistency, route, latency_ms, dropped_nodes, \
     tenant_id, key_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";

/// The insert's parameter types, in order.
const INSERT_TYPES: [Type; 12] = [
    Type::UUID,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT2,
    Type::INT4,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::INT4,
    Type::INT2,
    Type::UUID,
    Type::UUID,
];

/// One record's values, typed as [`INSERT_TYPES`].
struct Row<'a> {
    id: Uuid,
    intents: &'a [String],
    kinds: Vec<&'static str>,
    node_count: i16,
    suppressed: i32,
    faithfulness: &'static str,
    self_consistency: &'static str,
    route: &'static str,
    latency_ms: i32,
    dropped: i16,
    tenant: Option<Uuid>,
    key: Option<Uuid>,
}

impl<'a> Row<'a> {
    fn of(record: &'a AuditRecord) -> Result<Row<'a>> {
        Ok(Row {
            id: record.id,
            intents: &record.intents,
            kinds: record.param_kinds.iter().map(|kind| kind.as_str()).collect(),
            node_count: i16::try_from(record.node_count)
                .map_err(|_| Error::InvalidRequest { reason: "the node count is out of range" })?,
            suppressed: i32::try_from(record.suppressed_cells).map_err(|_| {
                Error::InvalidRequest { reason: "the suppressed-cell count is out of range" }
            })?,
            faithfulness: record.faithfulness.as_str(),
            self_consistency: record.self_consistency.as_str(),
            route: record.route.as_str(),
            latency_ms: i32::try_from(record.latency.as_millis()).unwrap_or(i32::MAX),
            dropped: i16::try_from(record.dropped_nodes).map_err(|_| Error::InvalidRequest {
                reason: "the dropped-node count is out of range",
            })?,
            tenant: record.tenant,
            key: record.key,
        })
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 12] {
        [
            &self.id,
            &self.intents,
            &self.kinds,
            &self.node_count,
            &self.suppressed,
            &self.faithfulness,
            &self.self_consistency,
            &self.route,
            &self.latency_ms,
            &self.dropped,
            &self.tenant,
            &self.key,
        ]
    }
}

/// Appends one audit row per record under its `id`, all in one transaction as `planner_audit`
/// (INSERT only): every row commits or none does. One round trip once the insert is prepared on
/// the connection (the set-up, the inserts and the commit leave in one write). The caller
/// returns no answer when this fails, and withdraws the ids (the commit may have happened
/// although its reply was lost).
pub async fn write_audits(pool: &WirePool, records: &[AuditRecord]) -> Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let rows = records.iter().map(Row::of).collect::<Result<Vec<_>>>()?;
    match write_rows(pool, &rows).await {
        // The connection was lost, most often while it sat idle: the idle ones are closed and
        // the group is written once more on a new connection. The ids are the log's key and the
        // group is one transaction, so if the first write committed after all, the second
        // fails on the first id, which says the group is in the log.
        Err(Error::Unavailable) => {
            pool.forget_idle();
            match write_rows(pool, &rows).await {
                Err(Error::Database { code: Some(code) }) if code == UNIQUE_VIOLATION => Ok(()),
                other => other,
            }
        }
        other => other,
    }
}

/// SQLSTATE `unique_violation`.
const UNIQUE_VIOLATION: &str = "23505";

async fn write_rows(pool: &WirePool, rows: &[Row<'_>]) -> Result<()> {
    let mut lease = pool.lease().await?;
    let (statements, set_up) = lease.prepare_all(SETUP, &[(INSERT, &INSERT_TYPES)]).await?;
    let statement = &statements[0];
    let client = lease.client();
    let params: Vec<[&(dyn ToSql + Sync); 12]> = rows.iter().map(Row::params).collect();
    let inserts = join_all(params.iter().map(|params| client.execute(statement, params)));
    let (begun, inserted, committed) = tokio::join!(
        async { if set_up { Ok(()) } else { client.batch_execute(SETUP).await } },
        inserts,
        client.batch_execute("COMMIT"),
    );
    begun?;
    for insert in inserted {
        insert?;
    }
    committed?;
    lease.keep();
    Ok(())
}

/// The audit writer's transaction set-up.
const SETUP: &str = "BEGIN; SET LOCAL ROLE planner_audit";

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
