//! The PostgreSQL checkpointer: a background writer batches saves into multi-row inserts.
//!
//! [`Checkpointer::save`] only queues the checkpoint on a channel; one writer task drains the
//! channel and writes everything queued so far in one `INSERT … SELECT FROM UNNEST(…)`
//! statement, so a run never waits for a round trip per step (unless it asked for
//! [`Durability::Sync`](crate::Durability::Sync)). [`Checkpointer::flush`] waits until all
//! saves queued before it are committed, and reports any write failure since the last flush.

use std::borrow::Cow;

use sqlx::{PgPool, Row, migrate::Migrator, postgres::PgRow};
use tokio::sync::{mpsc, oneshot};

use crate::{
    checkpoint::{Checkpoint, Checkpointer},
    error::{Error, Result},
    node::BoxFuture,
};

/// The migrations of this crate, embedded from `crates/planner-graph/migrations`.
///
/// They keep their own bookkeeping table (`_planner_graph_migrations`), so they run beside other
/// migrators on the same database without their versions ever colliding.
pub static MIGRATOR: Migrator =
    Migrator { table_name: Cow::Borrowed("_planner_graph_migrations"), ..sqlx::migrate!() };

/// Most checkpoints written by one statement.
const BATCH: usize = 512;

/// Keeps checkpoints in PostgreSQL, shared by every process using the same database.
#[derive(Debug, Clone)]
pub struct PgCheckpointer {
    pool: PgPool,
    queue: mpsc::UnboundedSender<Message>,
}

enum Message {
    Save(Checkpoint),
    Flush(oneshot::Sender<Result<()>>),
}

impl PgCheckpointer {
    /// A checkpointer on `pool`, whose database has [`MIGRATOR`] applied. Spawns the writer
    /// task, so it must be called within a Tokio runtime; the task ends when the last clone is
    /// dropped.
    pub fn new(pool: PgPool) -> Self {
        let (queue, receiver) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(pool.clone(), receiver));
        PgCheckpointer { pool, queue }
    }

    /// Deletes every checkpoint of the threads whose newest checkpoint was saved `age` ago or
    /// earlier, and returns how many checkpoints went. Queued saves are flushed first.
    ///
    /// # Errors
    /// The store has failed.
    pub async fn prune(&self, age: std::time::Duration) -> Result<u64> {
        self.flush().await?;
        let result = sqlx::query(
            "DELETE FROM planner_graph_checkpoints
             WHERE thread_id IN (
                 SELECT thread_id FROM planner_graph_checkpoints
                 GROUP BY thread_id
                 HAVING max(saved_at) <= now() - make_interval(secs => $1))",
        )
        .bind(age.as_secs_f64())
        .execute(&self.pool)
        .await
        .map_err(store)?;
        Ok(result.rows_affected())
    }

    fn send(&self, message: Message) -> Result<()> {
        self.queue.send(message).map_err(|_| Error::Store("the checkpoint writer stopped".into()))
    }
}

impl Checkpointer for PgCheckpointer {
    fn save(&self, checkpoint: Checkpoint) -> Result<()> {
        self.send(Message::Save(checkpoint))
    }

    fn flush(&self) -> BoxFuture<'_, Result<()>> {
        Box::pin(async move {
            let (done, wait) = oneshot::channel();
            self.send(Message::Flush(done))?;
            wait.await.map_err(|_| Error::Store("the checkpoint writer stopped".into()))?
        })
    }

    fn load<'a>(
        &'a self,
        thread_id: &'a str,
        id: Option<u64>,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>>> {
        Box::pin(async move {
            self.flush().await?;
            let row = sqlx::query(
                "SELECT thread_id, id, parent_id, step, next_node, interrupt::text AS interrupt,
                        state_version, state::text AS state
                 FROM planner_graph_checkpoints
                 WHERE thread_id = $1 AND ($2::bigint IS NULL OR id = $2)
                 ORDER BY id DESC
                 LIMIT 1",
            )
            .bind(thread_id)
            .bind(id.map(to_i64).transpose()?)
            .fetch_optional(&self.pool)
            .await
            .map_err(store)?;
            row.as_ref().map(from_row).transpose()
        })
    }

    fn history<'a>(&'a self, thread_id: &'a str) -> BoxFuture<'a, Result<Vec<Checkpoint>>> {
        Box::pin(async move {
            self.flush().await?;
            let rows = sqlx::query(
                "SELECT thread_id, id, parent_id, step, next_node, interrupt::text AS interrupt,
                        state_version, state::text AS state
                 FROM planner_graph_checkpoints
                 WHERE thread_id = $1
                 ORDER BY id",
            )
            .bind(thread_id)
            .fetch_all(&self.pool)
            .await
            .map_err(store)?;
            rows.iter().map(from_row).collect()
        })
    }
}

async fn write_loop(pool: PgPool, mut receiver: mpsc::UnboundedReceiver<Message>) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut waiters = Vec::new();
    let mut failure: Option<String> = None;
    while let Some(first) = receiver.recv().await {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Save(checkpoint) => batch.push(checkpoint),
                Message::Flush(done) => waiters.push(done),
            }
            if batch.len() < BATCH {
                next = receiver.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            if let Err(err) = insert(&pool, &batch).await {
                tracing::warn!(error = %err, rows = batch.len(), "checkpoint write failed");
                failure.get_or_insert_with(|| err.to_string());
            }
            batch.clear();
        }
        if !waiters.is_empty() {
            let outcome = failure.take();
            for done in waiters.drain(..) {
                // A dropped waiter gave up waiting; nothing to tell it.
                let _ = done.send(match &outcome {
                    Some(err) => Err(Error::Store(err.clone())),
                    None => Ok(()),
                });
            }
        }
    }
}

async fn insert(pool: &PgPool, batch: &[Checkpoint]) -> Result<()> {
    let mut threads = Vec::with_capacity(batch.len());
    let mut ids = Vec::with_capacity(batch.len());
    let mut parents = Vec::with_capacity(batch.len());
    let mut steps = Vec::with_capacity(batch.len());
    let mut nexts = Vec::with_capacity(batch.len());
    let mut interrupts = Vec::with_capacity(batch.len());
    let mut versions = Vec::with_capacity(batch.len());
    let mut states = Vec::with_capacity(batch.len());
    for checkpoint in batch {
        threads.push(checkpoint.thread_id.as_str());
        ids.push(to_i64(checkpoint.id)?);
        parents.push(checkpoint.parent.map(to_i64).transpose()?);
        steps.push(to_i64(checkpoint.step)?);
        nexts.push(checkpoint.next.as_deref());
        interrupts.push(checkpoint.interrupt.as_ref().map(ToString::to_string));
        versions.push(i32::try_from(checkpoint.state_version).map_err(out_of_range)?);
        states.push(checkpoint.state.as_str());
    }
    sqlx::query(
        "INSERT INTO planner_graph_checkpoints
             (thread_id, id, parent_id, step, next_node, interrupt, state_version, state)
         SELECT t, i, p, s, n, r::jsonb, v, j::jsonb
         FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::text[], $6::text[],
                     $7::int4[], $8::text[]) AS u(t, i, p, s, n, r, v, j)",
    )
    .bind(threads)
    .bind(ids)
    .bind(parents)
    .bind(steps)
    .bind(nexts)
    .bind(interrupts)
    .bind(versions)
    .bind(states)
    .execute(pool)
    .await
    .map_err(store)?;
    Ok(())
}

fn from_row(row: &PgRow) -> Result<Checkpoint> {
    let interrupt: Option<String> = row.try_get("interrupt").map_err(store)?;
    Ok(Checkpoint {
        thread_id: row.try_get("thread_id").map_err(store)?,
        id: to_u64(row.try_get("id").map_err(store)?)?,
        parent: row
            .try_get::<Option<i64>, _>("parent_id")
            .map_err(store)?
            .map(to_u64)
            .transpose()?,
        step: to_u64(row.try_get("step").map_err(store)?)?,
        next: row.try_get("next_node").map_err(store)?,
        interrupt: interrupt
            .map(|it| serde_json::from_str(&it))
            .transpose()
            .map_err(|err| Error::Store(format!("stored interrupt payload: {err}")))?,
        state_version: u32::try_from(row.try_get::<i32, _>("state_version").map_err(store)?)
            .map_err(out_of_range)?,
        state: row.try_get("state").map_err(store)?,
    })
}

fn store(err: sqlx::Error) -> Error {
    Error::Store(err.to_string())
}

fn out_of_range(err: std::num::TryFromIntError) -> Error {
    Error::Store(format!("checkpoint number out of range: {err}"))
}

fn to_i64(value: u64) -> Result<i64> {
    i64::try_from(value).map_err(out_of_range)
}

fn to_u64(value: i64) -> Result<u64> {
    u64::try_from(value).map_err(out_of_range)
}
