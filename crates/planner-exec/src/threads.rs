//! Thread ownership: which tenant and which key started a thread waiting for the user's answer.
//!
//! The engine records a thread when a run pauses for the user, and resumes it only for a caller
//! of the same tenant, while the key that started it is live and the thread is younger than the
//! retention. [`prune_threads`] forgets threads past the retention.

use std::time::Duration;

use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::error::Result;

/// Who started a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadOwner {
    /// The tenant (`None`: public planes only).
    pub tenant: Option<Uuid>,
    /// The key that started it (`None`: started without a key, from the command line).
    pub key: Option<Uuid>,
    /// The starting key has been revoked (or deleted) since.
    pub key_revoked: bool,
}

fn seconds(retention: Duration) -> f64 {
    retention.as_secs_f64()
}

/// Records that `thread` was started by `key` for `tenant`; a thread already recorded keeps its
/// first owner.
pub async fn record_thread(
    pool: &PgPool,
    thread: Uuid,
    tenant: Option<Uuid>,
    key: Option<Uuid>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO admin.thread (id, tenant_id, key_id) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(thread)
    .bind(tenant)
    .bind(key)
    .execute(pool)
    .await
    .map_err(|err| match (&err, tenant) {
        // foreign_key_violation: the tenant is unknown (a key's tenant always exists).
        (sqlx::Error::Database(db), Some(tenant)) if db.code().as_deref() == Some("23503") => {
            crate::Error::UnknownTenant(tenant)
        }
        _ => crate::Error::from(err),
    })?;
    Ok(())
}

/// The owner of `thread` when it was started less than `retention` ago; `None` otherwise.
pub async fn thread_owner(
    pool: &PgPool,
    thread: Uuid,
    retention: Duration,
) -> Result<Option<ThreadOwner>> {
    let row: Option<(Option<Uuid>, Option<Uuid>, bool)> = sqlx::query_as(
        "SELECT t.tenant_id, t.key_id, \
                t.key_id IS NOT NULL AND (k.id IS NULL OR k.revoked_at IS NOT NULL) \
         FROM admin.thread AS t \
         LEFT JOIN admin.api_key AS k ON k.id = t.key_id \
         WHERE t.id = $1 AND t.started_at > now() - make_interval(secs => $2)",
    )
    .bind(thread)
    .bind(seconds(retention))
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(tenant, key, key_revoked)| ThreadOwner { tenant, key, key_revoked }))
}

/// Forgets the threads started `retention` ago or earlier; returns their ids (the caller deletes
/// their checkpoints).
pub async fn prune_threads(pool: &PgPool, retention: Duration) -> Result<Vec<Uuid>> {
    let ids = sqlx::query_scalar(
        "DELETE FROM admin.thread WHERE started_at <= now() - make_interval(secs => $1) \
         RETURNING id",
    )
    .bind(seconds(retention))
    .fetch_all(pool)
    .await?;
    Ok(ids)
}
