//! `planner serve`: the HTTP API on DATABASE_URL or the embedded default database, until Ctrl-C
//! or SIGTERM; requests in flight finish before the database is closed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use planner_engine::{Engine, EngineConfig};
use planner_registry::Registry;
use planner_server::{AppState, ServerConfig};

use crate::embedded::Database;

/// The flags of `planner serve` (each also read from its environment variable).
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "PLANNER_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// A registry file instead of the built-in reference registry.
    #[arg(long, value_name = "FILE", env = "PLANNER_REGISTRY")]
    pub(crate) registry: Option<PathBuf>,
    /// Requests to /v1/ in flight at once; more are shed with 503.
    #[arg(long, env = "PLANNER_MAX_IN_FLIGHT", default_value_t = 64)]
    max_in_flight: usize,
    /// Seconds a /v1/ request may take before it is answered with 504.
    #[arg(long, env = "PLANNER_REQUEST_TIMEOUT", default_value_t = 30)]
    request_timeout: u64,
    /// The largest request body accepted, in bytes (413 above).
    #[arg(long, env = "PLANNER_MAX_BODY", default_value_t = 16 * 1024)]
    max_body: usize,
    /// Requests a minute per API key (429 with Retry-After above; 0 is no limit).
    #[arg(long, env = "PLANNER_KEY_RATE", default_value_t = 120)]
    key_rate: u32,
    /// Requests a key may make at once before --key-rate applies.
    #[arg(long, env = "PLANNER_KEY_BURST", default_value_t = 30)]
    key_burst: u32,
    /// The PostgreSQL to use; without it, the embedded default database.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
}

/// Resolves when the process is asked to stop (Ctrl-C, or SIGTERM on Unix).
async fn stop_requested() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[expect(clippy::print_stderr, reason = "the server's start and stop lines")]
pub(crate) async fn run(args: ServeArgs, registry: Registry) -> anyhow::Result<ExitCode> {
    let database = Database::open(args.database_url.as_deref()).await?;
    let pool = database.pool().clone();
    let engine = Engine::new(EngineConfig::new(registry), pool.clone());
    let config = ServerConfig {
        max_body_bytes: args.max_body,
        max_in_flight: args.max_in_flight,
        request_timeout: Duration::from_secs(args.request_timeout),
        key_requests_per_minute: args.key_rate,
        key_burst: args.key_burst,
    };
    let router = planner_server::app(AppState::new(engine, pool, config));
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener.local_addr()?;
    eprintln!(
        "planner: serving on http://{addr} ({} database); Ctrl-C stops",
        if database.is_embedded() { "embedded" } else { "DATABASE_URL" }
    );
    let served = planner_server::serve(listener, router, stop_requested()).await;
    eprintln!("planner: stopped; requests in flight finished");
    database.close().await?;
    served.context("the server failed")?;
    Ok(ExitCode::SUCCESS)
}
