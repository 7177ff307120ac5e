//! The two logins: the owner that migrates, and the runtime login that serves.
//!
//! Migration `0010_least_privilege.sql` creates the runtime role [`RUNTIME_LOGIN`] without a
//! password (it cannot log in). [`enable_runtime_login`], run by the owner after migrating, gives
//! it a password; [`runtime_url`] turns the owner's URL into the runtime login's.
//! [`login_privileges`] tells a server which kind of login it was given, so that it can refuse to
//! serve as a superuser or as an owner.

use sqlx::{Connection as _, PgPool};

use crate::error::{Error, Result};

/// The runtime login: owns nothing, no superuser, may only `SET ROLE` to the plane readers and
/// the audit writer.
pub const RUNTIME_LOGIN: &str = "planner_app";

/// Lets [`RUNTIME_LOGIN`] log in with `password`. Run by the migrating login (a superuser or a
/// login with CREATEROLE) after the migrations. The password must be 16 to 128 ASCII letters
/// and digits (a generated one), so that it needs no quoting anywhere.
pub async fn enable_runtime_login(owner: &PgPool, password: &str) -> Result<()> {
    if !(16..=128).contains(&password.len()) || !password.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(Error::InvalidRequest {
            reason: "the runtime login's password must be 16 to 128 ASCII letters and digits",
        });
    }
    // Letters and digits only: the literal cannot end early.
    let sql = format!("ALTER ROLE {RUNTIME_LOGIN} WITH LOGIN PASSWORD '{password}'");
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(owner).await?;
    Ok(())
}

/// A pool of the runtime login at `runtime_url` (see [`runtime_url`]), built with `options`.
/// When it cannot log in yet (a new database, or another password), `owner` makes it a login
/// with `password` first. The role is cluster-wide and several processes may set it at once, so
/// a lost race is retried a few times.
pub async fn connect_runtime(
    owner: &PgPool,
    runtime_url: &str,
    password: &str,
    options: sqlx::postgres::PgPoolOptions,
) -> Result<PgPool> {
    let mut last = None;
    for attempt in 0..8_u64 {
        if sqlx::PgConnection::connect(runtime_url).await.is_ok() {
            return Ok(options.connect(runtime_url).await?);
        }
        if let Err(err) = enable_runtime_login(owner, password).await {
            last = Some(err);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20 * (attempt + 1))).await;
    }
    match last {
        Some(err) => Err(err),
        None => Ok(options.connect(runtime_url).await?),
    }
}

/// Grants [`RUNTIME_LOGIN`] what the graph checkpointer needs on its table
/// (`planner_graph_checkpoints`, created by planner-graph's own migrator): read, write, prune.
/// Run by the owner after both migrators.
pub async fn grant_checkpoints(owner: &PgPool) -> Result<()> {
    sqlx::raw_sql(
        "GRANT USAGE ON SCHEMA public TO planner_app; \
         GRANT SELECT, INSERT, DELETE ON public.planner_graph_checkpoints TO planner_app",
    )
    .execute(owner)
    .await?;
    Ok(())
}

/// `owner_url` with its user and password replaced by the runtime login's (`postgres://` or
/// `postgresql://` URLs; the host, port, database and parameters stay).
pub fn runtime_url(owner_url: &str, password: &str) -> Result<String> {
    let invalid = Error::InvalidRequest { reason: "not a postgres:// URL" };
    let (scheme, rest) = owner_url.split_once("://").ok_or(invalid)?;
    if scheme != "postgres" && scheme != "postgresql" {
        return Err(Error::InvalidRequest { reason: "not a postgres:// URL" });
    }
    // The userinfo ends at the last `@` before the path.
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let host = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    Ok(format!("{scheme}://{RUNTIME_LOGIN}:{password}@{host}"))
}

/// What the current login may do beyond the runtime login's grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginPrivileges {
    /// The login's name.
    pub login: String,
    /// A superuser: every check is bypassed.
    pub superuser: bool,
    /// It owns (directly or through a role it inherits) tables of the planner's schemas.
    pub owns_objects: bool,
}

impl LoginPrivileges {
    /// Neither a superuser nor an owner: fit to serve.
    pub fn is_least_privilege(&self) -> bool {
        !self.superuser && !self.owns_objects
    }
}

/// The current login's privileges.
pub async fn login_privileges(pool: &PgPool) -> Result<LoginPrivileges> {
    let (login, superuser, owns_objects): (String, bool, bool) = sqlx::query_as(
        "SELECT session_user::text, r.rolsuper, EXISTS (
             SELECT 1 FROM pg_catalog.pg_class AS c
             JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
             WHERE n.nspname IN ('market', 'graph', 'capture', 'bench', 'admin', 'audit', 'eeo')
               AND pg_catalog.pg_has_role(session_user, c.relowner, 'USAGE'))
         FROM pg_catalog.pg_roles AS r WHERE r.rolname = session_user",
    )
    .fetch_one(pool)
    .await?;
    Ok(LoginPrivileges { login, superuser, owns_objects })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_url_keeps_everything_but_the_login() {
        let password = "abcdefABCDEF0123";
        assert_eq!(
            runtime_url(
                "postgres://postgres:se@cret@127.0.0.1:5432/planner?sslmode=disable",
                password
            )
            .unwrap(),
            format!("postgres://planner_app:{password}@127.0.0.1:5432/planner?sslmode=disable")
        );
        assert_eq!(
            runtime_url("postgresql://db.internal/planner", password).unwrap(),
            format!("postgresql://planner_app:{password}@db.internal/planner")
        );
        assert!(runtime_url("mysql://x@y/z", password).is_err());
        assert!(runtime_url("planner", password).is_err());
    }
}
