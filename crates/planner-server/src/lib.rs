//! The planner's HTTP API (axum).
//!
//! [`app`] builds the router over an [`AppState`] (an engine, its pool, the limits):
//!
//! - `POST /v1/answer` `{question, thread_id?}`: an answer, or `needs_input` with a thread id
//!   (with `thread_id`, the question is the answer to that thread's clarifying question);
//! - `POST /v1/threads/{id}/resume` `{answer}`; `POST /v1/plan` `{question}`: the plan only, the
//!   JSON of `planner plan --json`;
//! - `GET /v1/registry`, `GET /v1/graph` (Mermaid and SVG);
//! - `GET /healthz`, `GET /readyz` (database reachable), `GET /metrics` (Prometheus),
//!   `GET /openapi.json` (OpenAPI 3.1);
//! - `GET /`: a page that asks, shows the answer and its evidence tables, and the plan as an
//!   SVG drawn on the server (`?include=svg` on the answer routes adds it as `plan_svg`).
//!
//! Every `/v1/` route takes `Authorization: Bearer KEY` (keys from `planner_exec`, bound to a
//! tenant and scopes; a verified key is cached for a few seconds), is rate-limited per key and,
//! before any key lookup, per client address for requests without a valid key (429 with
//! Retry-After), sheds load with 503 past
//! the in-flight limit and times out. Failures are
//! `application/problem+json`.

mod auth;
mod error;
mod guard;
mod limit;
mod metrics;
mod openapi;
mod routes;
mod svg;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use planner_engine::Engine;
use planner_exec::PgPool;
use tokio::sync::Semaphore;

pub use crate::error::{Error, Result};
pub use crate::metrics::{AuditWithdrawals, Metrics};
pub use crate::openapi::openapi;
pub use crate::svg::{flowchart_svg, plan_svg};

/// The server's limits. [`ServerConfig::default`]: 16 KiB bodies, 64 requests in flight, 30 s
/// per request, 120 requests a minute per key with bursts of 30, 30 unauthenticated or failing
/// requests a minute per client address with bursts of 10, verified keys cached for 5 s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The largest request body accepted (413 above).
    pub max_body_bytes: usize,
    /// `/v1/` requests in flight at once; more are shed with 503 (0 sheds every one).
    pub max_in_flight: usize,
    /// The time a `/v1/` request may take before it is answered with 504.
    pub request_timeout: Duration,
    /// Requests a minute per API key on average (429 with Retry-After above; 0 is no limit).
    pub key_requests_per_minute: u32,
    /// Requests a key may make at once before the per-minute rate applies.
    pub key_burst: u32,
    /// Requests a minute per client address, on average, that fail authentication (no key, an
    /// unknown or revoked one); past it, 429 with Retry-After before any key lookup (0 is no
    /// limit).
    pub address_failures_per_minute: u32,
    /// Failing requests an address may make at once before its per-minute rate applies.
    pub address_burst: u32,
    /// How long a verified key is trusted without a query: a key revoked by another process is
    /// refused at most this long after (zero verifies every request).
    pub key_cache_ttl: Duration,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            max_body_bytes: 16 * 1024,
            max_in_flight: 64,
            request_timeout: Duration::from_secs(30),
            key_requests_per_minute: 120,
            key_burst: 30,
            address_failures_per_minute: 30,
            address_burst: 10,
            key_cache_ttl: Duration::from_secs(5),
        }
    }
}

#[derive(Debug)]
struct Shared {
    engine: Engine,
    pool: PgPool,
    config: ServerConfig,
    permits: Arc<Semaphore>,
    limiter: limit::RateLimiter<uuid::Uuid>,
    address_limiter: limit::RateLimiter<std::net::IpAddr>,
    keys: auth::KeyCache,
    metrics: Metrics,
}

/// What the handlers share: cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    shared: Arc<Shared>,
}

impl AppState {
    /// The state over `engine`, which answers on `pool` (the same pool verifies API keys).
    pub fn new(engine: Engine, pool: PgPool, config: ServerConfig) -> AppState {
        let permits = Arc::new(Semaphore::new(config.max_in_flight));
        let limiter = limit::RateLimiter::new(config.key_requests_per_minute, config.key_burst);
        let address_limiter =
            limit::RateLimiter::new(config.address_failures_per_minute, config.address_burst);
        let keys = auth::KeyCache::new(config.key_cache_ttl);
        let shared = Shared {
            engine,
            pool,
            config,
            permits,
            limiter,
            address_limiter,
            keys,
            metrics: Metrics::default(),
        };
        AppState { shared: Arc::new(shared) }
    }

    /// Revokes API key `id` and forgets its cached verification, so this server refuses it from
    /// the next request on; returns whether a live key was revoked.
    ///
    /// # Errors
    /// The database failed.
    pub async fn revoke_api_key(&self, id: planner_exec::ApiKeyId) -> planner_exec::Result<bool> {
        let revoked = planner_exec::revoke_api_key(&self.shared.pool, id).await?;
        self.shared.keys.forget(id);
        Ok(revoked)
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }
}

/// The router of the whole API over `state`.
pub fn app(state: AppState) -> Router {
    let max_body = state.shared.config.max_body_bytes;
    Router::new()
        .route("/v1/answer", post(routes::answer))
        .route("/v1/threads/{id}/resume", post(routes::resume))
        .route("/v1/plan", post(routes::plan))
        .route("/v1/registry", get(routes::registry))
        .route("/v1/graph", get(routes::graph))
        .route("/healthz", get(routes::healthz))
        .route("/readyz", get(routes::readyz))
        .route("/metrics", get(routes::metrics))
        .route("/openapi.json", get(routes::openapi_json))
        .route("/", get(routes::page))
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::guard))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

/// Serves `router` on `listener` until `shutdown` completes, then finishes the requests in
/// flight. Each request knows its client's address (the per-address limit of failing requests).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service).with_graceful_shutdown(shutdown).await
}
