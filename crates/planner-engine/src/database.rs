//! Where the engine's statements go: every plane on the primary, or the planes without tenant
//! rows on a streaming replica while it answers.
//!
//! The replica serves [`Reader::Public`] statements only (market and graph): tenant planes,
//! checkpoints, keys and the audit log stay on the primary. A statement the replica cannot
//! serve (its connection refused or lost) marks it down and runs on the primary instead; while
//! it is down, a probe asks it every second and the first answer marks it up again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use planner_exec::{ExecRequest, Reader, ResultTable, WirePool};

/// How often a replica that is down is asked again.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// The most time one probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The primary's pool, and the replica's when there is one.
#[derive(Debug)]
pub(crate) struct Database {
    pub(crate) primary: WirePool,
    pub(crate) replica: Option<Arc<Replica>>,
}

/// A streaming replica of the primary, and whether it is answering.
#[derive(Debug)]
pub(crate) struct Replica {
    pub(crate) pool: WirePool,
    up: AtomicBool,
    /// Statements meant for the replica that ran on the primary.
    fallbacks: AtomicU64,
}

impl Replica {
    pub(crate) fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    pub(crate) fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    fn mark_down(&self) {
        if self.up.swap(false, Ordering::Relaxed) {
            tracing::warn!("the read replica is not answering: its planes read from the primary");
        }
    }

    /// Asks the replica once; marks it up or down by the reply.
    pub(crate) async fn probe(&self) -> bool {
        let answered =
            matches!(tokio::time::timeout(PROBE_TIMEOUT, self.pool.check()).await, Ok(Ok(())));
        if answered {
            if !self.up.swap(true, Ordering::Relaxed) {
                tracing::info!("the read replica answers again");
            }
        } else {
            self.mark_down();
        }
        answered
    }
}

impl Database {
    /// The primary's pool and, when given, a replica's (assumed up). Spawns the replica's probe,
    /// which ends when the database is dropped.
    pub(crate) fn new(primary: WirePool, replica: Option<WirePool>) -> Database {
        let replica = replica.map(|pool| {
            Arc::new(Replica { pool, up: AtomicBool::new(true), fallbacks: AtomicU64::new(0) })
        });
        if let Some(replica) = &replica {
            tokio::spawn(probe_loop(Arc::downgrade(replica)));
        }
        Database { primary, replica }
    }

    /// Runs `request` (with `also`, see [`planner_exec::execute_also`]) on the replica when its
    /// plane has no tenant rows and the replica is up, else (or when the replica could not be
    /// reached) on the primary.
    pub(crate) async fn execute(
        &self,
        request: &ExecRequest<'_>,
        also: &[&str],
    ) -> Result<(ResultTable, Vec<ResultTable>), planner_exec::Error> {
        if let Some(replica) = self.replica.as_ref().filter(|_| request.reader == Reader::Public)
            && replica.is_up()
        {
            match planner_exec::execute_also(&replica.pool, request, also).await {
                Err(planner_exec::Error::Unavailable) => {
                    replica.mark_down();
                    replica.fallbacks.fetch_add(1, Ordering::Relaxed);
                }
                other => return other,
            }
        }
        planner_exec::execute_also(&self.primary, request, also).await
    }
}

async fn probe_loop(replica: std::sync::Weak<Replica>) {
    let mut ticks = tokio::time::interval(PROBE_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(replica) = replica.upgrade() else { return };
        if !replica.is_up() {
            replica.probe().await;
        }
    }
}
