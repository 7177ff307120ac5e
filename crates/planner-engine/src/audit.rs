//! Audit ids, and the withdrawal of audit rows whose answer was never given.
//!
//! Every run of [`Engine::ask`](crate::Engine::ask) and [`Engine::resume`](crate::Engine::resume)
//! takes an [`AuditTicket`] up front: a fresh audit id, carried as data in the graph state, with
//! which the `audit` node writes its row. The node first records the id as begun in the
//! engine's [`AuditBook`]. The ticket is confirmed when the run's outcome is returned to the
//! caller; a ticket dropped unconfirmed (the run failed, or its future was dropped by a caller's
//! timeout) whose id was begun sends the id to the [`Withdrawer`]: its row may have committed
//! although the caller never got the answer, and `audit.withdrawn` says so.
//!
//! The withdrawer is one background task per engine: it writes everything queued in one
//! [`planner_exec::withdraw_audits`] call, retrying with backoff (100 ms doubling to 2 s) while
//! the engine lives. Dropping a ticket never blocks: it takes a short lock and sends on an
//! unbounded channel.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use planner_exec::PgPool;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// The first wait after a failed withdrawal write; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two withdrawal writes.
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// The most time one withdrawal write may take (a connection to a database that vanished can
/// otherwise hang for minutes).
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);
/// The most ids written by one statement.
const BATCH: usize = 4096;

/// The audit ids of one engine whose write has begun and whose run has not ended yet, and the
/// engine's withdrawer.
pub(crate) struct AuditBook {
    begun: Mutex<BTreeSet<Uuid>>,
    withdrawer: Withdrawer,
}

impl fmt::Debug for AuditBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditBook")
            .field("begun", &self.lock().len())
            .field("withdrawer", &self.withdrawer)
            .finish()
    }
}

impl AuditBook {
    /// A book whose withdrawals are written on `pool`. Spawns the withdrawer task, so it must be
    /// called within a Tokio runtime; the task ends when the book is dropped.
    pub(crate) fn new(pool: PgPool) -> Arc<AuditBook> {
        Arc::new(AuditBook {
            begun: Mutex::new(BTreeSet::new()),
            withdrawer: Withdrawer::new(pool),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BTreeSet<Uuid>> {
        // The set stays consistent whatever panicked while holding it: every change is one
        // insert or one remove.
        self.begun.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A ticket for one run, with a fresh audit id: a version 7 UUID (the time in milliseconds,
    /// then random bits), so that the log's key appends to its index instead of landing on a
    /// random page of it (a row of a group of 8 costs the server 8.2 to 9.4 µs with these ids
    /// and 13.3 to 13.5 µs with random ones, docs/benchmarks-history.md).
    pub(crate) fn ticket(self: &Arc<Self>) -> AuditTicket {
        AuditTicket { id: Uuid::now_v7(), book: Arc::clone(self), confirmed: false }
    }

    /// Records that the audit write of `id` begins (called by the `audit` node before it writes).
    pub(crate) fn begin(&self, id: Uuid) {
        self.lock().insert(id);
    }

    /// Withdrawals queued and not yet written.
    pub(crate) fn pending_withdrawals(&self) -> usize {
        self.withdrawer.counts.pending.load(Ordering::SeqCst)
    }

    /// Withdrawals written since the engine was built.
    pub(crate) fn withdrawn_total(&self) -> u64 {
        self.withdrawer.counts.withdrawn.load(Ordering::SeqCst)
    }
}

/// The audit id of one run, withdrawn when the run ends without returning its outcome after its
/// audit write began.
pub(crate) struct AuditTicket {
    id: Uuid,
    book: Arc<AuditBook>,
    confirmed: bool,
}

impl fmt::Debug for AuditTicket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditTicket")
            .field("id", &self.id)
            .field("confirmed", &self.confirmed)
            .finish()
    }
}

impl AuditTicket {
    /// The run's audit id.
    pub(crate) fn id(&self) -> Uuid {
        self.id
    }

    /// The run's outcome is being returned to the caller: its audit row, if any, stands.
    pub(crate) fn confirm(mut self) {
        self.confirmed = true;
    }
}

impl Drop for AuditTicket {
    fn drop(&mut self) {
        let begun = self.book.lock().remove(&self.id);
        if begun && !self.confirmed {
            self.book.withdrawer.withdraw(self.id);
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    /// Ids sent and not yet written.
    pending: AtomicUsize,
    /// Ids written.
    withdrawn: AtomicU64,
}

/// The sending end of the withdrawal task.
#[derive(Debug)]
struct Withdrawer {
    queue: mpsc::UnboundedSender<Uuid>,
    counts: Arc<Counts>,
}

impl Withdrawer {
    fn new(pool: PgPool) -> Withdrawer {
        let (queue, receiver) = mpsc::unbounded_channel();
        let counts = Arc::new(Counts::default());
        tokio::spawn(withdraw_loop(pool, receiver, Arc::clone(&counts)));
        Withdrawer { queue, counts }
    }

    /// Queues `id`; never blocks.
    fn withdraw(&self, id: Uuid) {
        // Counted before it is sent, so that no id is ever queued while the count says none is.
        self.counts.pending.fetch_add(1, Ordering::SeqCst);
        if self.queue.send(id).is_err() {
            self.counts.pending.fetch_sub(1, Ordering::SeqCst);
            tracing::error!(%id, "the audit withdrawer stopped: an audit id was not withdrawn");
        }
    }
}

async fn withdraw_loop(
    pool: PgPool,
    mut receiver: mpsc::UnboundedReceiver<Uuid>,
    counts: Arc<Counts>,
) {
    while let Some(first) = receiver.recv().await {
        let mut received = 1;
        let mut ids = BTreeSet::from([first]);
        while received < BATCH {
            let Ok(id) = receiver.try_recv() else { break };
            ids.insert(id);
            received += 1;
        }
        let ids: Vec<Uuid> = ids.into_iter().collect();
        let mut backoff = FIRST_BACKOFF;
        loop {
            let attempt =
                tokio::time::timeout(ATTEMPT_TIMEOUT, planner_exec::withdraw_audits(&pool, &ids));
            let error = match attempt.await {
                Ok(Ok(())) => break,
                Ok(Err(err)) => err.to_string(),
                Err(_) => format!("no reply within {ATTEMPT_TIMEOUT:?}"),
            };
            if receiver.is_closed() {
                // The engine is gone: nobody is left to count on these.
                tracing::error!(ids = ids.len(), %error, "audit withdrawals abandoned");
                counts.pending.fetch_sub(received, Ordering::SeqCst);
                return;
            }
            tracing::warn!(ids = ids.len(), %error, retry_in = ?backoff, "audit withdrawal failed");
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        counts.withdrawn.fetch_add(received as u64, Ordering::SeqCst);
        counts.pending.fetch_sub(received, Ordering::SeqCst);
    }
}

/// The most audit rows one group commit writes.
const GROUP: usize = 256;
/// The most time one group commit may take before its answers fail closed.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(10);

/// One audit row waiting for its group commit, and who waits for it.
struct Queued {
    record: planner_exec::AuditRecord,
    done: oneshot::Sender<Result<(), String>>,
}

/// Group commit of audit rows: one writer task takes every row queued while the previous commit
/// was in flight and writes them in one transaction ([`planner_exec::write_audits`]); each
/// answer waits for the commit that holds its row, and a failed commit fails every answer in it.
#[derive(Debug)]
pub(crate) struct AuditWriter {
    queue: mpsc::Sender<Queued>,
    stats: Arc<GroupStats>,
}

/// Commits and rows written by an [`AuditWriter`].
#[derive(Debug, Default)]
struct GroupStats {
    commits: AtomicU64,
    rows: AtomicU64,
}

impl AuditWriter {
    /// A writer on `pool`. Spawns its task, so it must be called within a Tokio runtime; the
    /// task ends when the writer is dropped.
    pub(crate) fn new(pool: planner_exec::WirePool) -> AuditWriter {
        let (queue, receiver) = mpsc::channel(4 * GROUP);
        let stats = Arc::new(GroupStats::default());
        tokio::spawn(group_commit_loop(pool, receiver, Arc::clone(&stats)));
        AuditWriter { queue, stats }
    }

    /// Writes `record` in the next group commit; returns once that commit succeeded, or why it
    /// did not (the row may still have committed: the caller withdraws its id).
    pub(crate) async fn write(&self, record: planner_exec::AuditRecord) -> Result<(), String> {
        let (done, wait) = oneshot::channel();
        self.queue
            .send(Queued { record, done })
            .await
            .map_err(|_| "the audit writer stopped".to_owned())?;
        wait.await.map_err(|_| "the audit writer stopped".to_owned())?
    }

    /// Group commits written since the engine was built, and the rows they held.
    pub(crate) fn committed(&self) -> (u64, u64) {
        (self.stats.commits.load(Ordering::Relaxed), self.stats.rows.load(Ordering::Relaxed))
    }
}

async fn group_commit_loop(
    pool: planner_exec::WirePool,
    mut receiver: mpsc::Receiver<Queued>,
    stats: Arc<GroupStats>,
) {
    let mut group = Vec::with_capacity(GROUP);
    while receiver.recv_many(&mut group, GROUP).await > 0 {
        let (records, waiting): (Vec<_>, Vec<_>) =
            group.drain(..).map(|queued| (queued.record, queued.done)).unzip();
        let written =
            tokio::time::timeout(COMMIT_TIMEOUT, planner_exec::write_audits(&pool, &records)).await;
        let result = match written {
            Ok(Ok(())) => {
                stats.commits.fetch_add(1, Ordering::Relaxed);
                stats.rows.fetch_add(records.len() as u64, Ordering::Relaxed);
                Ok(())
            }
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err(format!("no commit within {COMMIT_TIMEOUT:?}")),
        };
        for done in waiting {
            // A run that stopped waiting withdraws its own id.
            let _ = done.send(result.clone());
        }
    }
}
