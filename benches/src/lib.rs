//! Shared inputs of the benchmarks of `benches/`: the criterion benches (`benches/benches/*.rs`,
//! wall clock) and the instruction-count benches (`benches/benches/counts.rs`, callgrind through
//! gungraun) build what they measure from the same functions, so both measure the same work.

use std::str::FromStr as _;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection as _, PgConnection};

pub mod inputs;
pub mod topology;

/// A pool on the database `name` of the server at `url`, created when missing, so a bench
/// never touches the data of another database on that server.
///
/// # Errors
/// The server cannot be reached, or the database cannot be created.
pub async fn own_database(
    url: &str,
    name: &str,
    max_connections: u32,
) -> Result<PgPool, Box<dyn std::error::Error>> {
    let mut admin = PgConnection::connect(url).await?;
    let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(&mut admin)
        .await?;
    if exists.is_none() {
        // `name` is one of the benches' own constants, never input; identifiers cannot be bound.
        let create = format!("CREATE DATABASE \"{name}\"");
        sqlx::query(sqlx::AssertSqlSafe(create)).execute(&mut admin).await?;
    }
    let options = PgConnectOptions::from_str(url)?.database(name);
    Ok(PgPoolOptions::new().max_connections(max_connections).connect_with(options).await?)
}

/// The PostgreSQL the benches may use: `DATABASE_URL`, when set and not empty.
#[allow(clippy::disallowed_methods, reason = "a bench reads DATABASE_URL like the test harness")]
pub fn database_url() -> Option<String> {
    std::env::var("DATABASE_URL").ok().filter(|it| !it.is_empty())
}

/// Says why the bench case `case` is skipped.
#[expect(clippy::print_stdout, reason = "a bench says why it skips a case")]
fn skip(case: &str, reason: &str) {
    println!("{case}: skipped ({reason})");
}

/// What a bench opened on `DATABASE_URL` (see [`database_url`]), or `None` after saying why the
/// case `case` is skipped: the variable is unset, or the database is unavailable.
pub fn opened_or_skip<T, E: std::fmt::Display>(
    case: &str,
    opened: Option<Result<T, E>>,
) -> Option<T> {
    match opened {
        None => {
            skip(case, "DATABASE_URL is not set");
            None
        }
        Some(Err(err)) => {
            skip(case, &format!("database unavailable: {err}"));
            None
        }
        Some(Ok(it)) => Some(it),
    }
}
