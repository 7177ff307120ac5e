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
    /// never given (a fresh UUID, never derived from the question or the caller; the engine's
    /// are version 7, time-ordered, which the log's index takes at its end).
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
    /// The number of plan nodes, a node that fanned out over an upstream column's values
    /// counted once per run (and listed in `intents` once per run).
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

/// The insert of a group: one statement whatever its size, each column one array. The two
/// list columns travel as one flat array each, every row naming its slice (1-based, inclusive;
/// an empty list is an empty slice), because PostgreSQL's arrays of arrays must be
/// rectangular. On the executor (`examples/audit_timings.rs`, a log of 900,000 rows,
/// docs/benchmarks-history.md), a row of a group of 8 costs 8.2 to 9.4 µs against about 30 µs as one
/// INSERT a row; a group of one costs the same either way.
const INSERT: &str = "INSERT INTO audit.answer_log (id, intents, param_kinds, node_count, \
     suppressed_cells, faithfulness, self_consistency, route, latency_ms, dropped_nodes, \
     tenant_id, key_id) \
     SELECT r.id, ($2::text[])[r.intents_from:r.intents_to], \
     ($3::text[])[r.kinds_from:r.kinds_to], r.node_count, r.suppressed_cells, r.faithfulness, \
     r.self_consistency, r.route, r.latency_ms, r.dropped_nodes, r.tenant_id, r.key_id \
     FROM UNNEST($1::uuid[], $4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int2[], \
     $9::int4[], $10::text[], $11::text[], $12::text[], $13::int4[], $14::int2[], $15::uuid[], \
     $16::uuid[]) AS r(id, intents_from, intents_to, kinds_from, kinds_to, node_count, \
     suppressed_cells, faithfulness, self_consistency, route, latency_ms, dropped_nodes, \
     tenant_id, key_id)";

/// [`INSERT`]'s parameter types, in order.
const INSERT_TYPES: [Type; 16] = [
    Type::UUID_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT4_ARRAY,
    Type::INT4_ARRAY,
    Type::INT4_ARRAY,
    Type::INT4_ARRAY,
    Type::INT2_ARRAY,
    Type::INT4_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT4_ARRAY,
    Type::INT2_ARRAY,
    Type::UUID_ARRAY,
    Type::UUID_ARRAY,
];

/// A group's rows column by column, typed as [`INSERT_TYPES`].
#[derive(Default)]
struct Columns<'a> {
    ids: Vec<Uuid>,
    intents: Vec<&'a str>,
    kinds: Vec<&'static str>,
    intents_from: Vec<i32>,
    intents_to: Vec<i32>,
    kinds_from: Vec<i32>,
    kinds_to: Vec<i32>,
    node_count: Vec<i16>,
    suppressed: Vec<i32>,
    faithfulness: Vec<&'static str>,
    self_consistency: Vec<&'static str>,
    route: Vec<&'static str>,
    latency_ms: Vec<i32>,
    dropped: Vec<i16>,
    tenant: Vec<Option<Uuid>>,
    key: Vec<Option<Uuid>>,
}

impl<'a> Columns<'a> {
    fn of(records: &'a [AuditRecord]) -> Result<Columns<'a>> {
        let mut columns = Columns::default();
        for record in records {
            let (from, to) = slice(columns.intents.len(), record.intents.len())?;
            columns.intents.extend(record.intents.iter().map(String::as_str));
            columns.intents_from.push(from);
            columns.intents_to.push(to);
            let (from, to) = slice(columns.kinds.len(), record.param_kinds.len())?;
            columns.kinds.extend(record.param_kinds.iter().map(|kind| kind.as_str()));
            columns.kinds_from.push(from);
            columns.kinds_to.push(to);
            columns.ids.push(record.id);
            columns.node_count.push(
                i16::try_from(record.node_count).map_err(|_| Error::InvalidRequest {
                    reason: "the node count is out of range",
                })?,
            );
            columns.suppressed.push(i32::try_from(record.suppressed_cells).map_err(|_| {
                Error::InvalidRequest { reason: "the suppressed-cell count is out of range" }
            })?);
            columns.faithfulness.push(record.faithfulness.as_str());
            columns.self_consistency.push(record.self_consistency.as_str());
            columns.route.push(record.route.as_str());
            columns.latency_ms.push(i32::try_from(record.latency.as_millis()).unwrap_or(i32::MAX));
            columns.dropped.push(i16::try_from(record.dropped_nodes).map_err(|_| {
                Error::InvalidRequest { reason: "the dropped-node count is out of range" }
            })?);
            columns.tenant.push(record.tenant);
            columns.key.push(record.key);
        }
        Ok(columns)
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 16] {
        [
            &self.ids,
            &self.intents,
            &self.kinds,
            &self.intents_from,
            &self.intents_to,
            &self.kinds_from,
            &self.kinds_to,
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

/// The 1-based inclusive bounds of `len` items appended after `before` items.
fn slice(before: usize, len: usize) -> Result<(i32, i32)> {
    let out_of_range = || Error::InvalidRequest { reason: "an audit group is too large" };
    let from = i32::try_from(before + 1).map_err(|_| out_of_range())?;
    let to = i32::try_from(before + len).map_err(|_| out_of_range())?;
    Ok((from, to))
}

/// Appends one audit row per record under its `id`, all in one transaction as `planner_audit`
/// (INSERT only) and one statement: every row commits or none does. One round trip once the
/// inserts are prepared on the connection (the set-up, the insert and the commit leave in one
/// write). The caller returns no answer when this fails, and withdraws the ids (the commit may
/// have happened although its reply was lost).
pub async fn write_audits(pool: &WirePool, records: &[AuditRecord]) -> Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let columns = Columns::of(records)?;
    match write_rows(pool, &columns).await {
        // The connection was lost, most often while it sat idle: the idle ones are closed and
        // the group is written once more on a new connection. The ids are the log's key and the
        // group is one transaction, so if the first write committed after all, the second
        // fails on the first id, which says the group is in the log.
        Err(Error::Unavailable) => {
            pool.forget_idle();
            match write_rows(pool, &columns).await {
                Err(Error::Database { code: Some(code) }) if code == UNIQUE_VIOLATION => Ok(()),
                other => other,
            }
        }
        other => other,
    }
}

/// SQLSTATE `unique_violation`.
const UNIQUE_VIOLATION: &str = "23505";

async fn write_rows(pool: &WirePool, columns: &Columns<'_>) -> Result<()> {
    let mut lease = pool.lease().await?;
    let (statements, set_up) = lease.prepare_all(SETUP, &[(INSERT, &INSERT_TYPES)]).await?;
    let client = lease.client();
    let insert = async {
        let inserted = client.execute(&statements[0], &columns.params()).await?;
        if inserted != columns.ids.len() as u64 {
            return Err(Error::InvalidRequest {
                reason: "an audit group inserted another number of rows than it holds",
            });
        }
        Ok(())
    };
    let (begun, inserted, committed) = tokio::join!(
        async { if set_up { Ok(()) } else { client.batch_execute(SETUP).await } },
        insert,
        client.batch_execute("COMMIT"),
    );
    begun?;
    inserted?;
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
