//! The middleware around every route: metrics by route and status, and for `/v1/` routes the
//! in-flight limit (shedding with 503) and the request timeout (504, or 503 when the database
//! stopped answering).

use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::Error;

pub(crate) async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |it| it.as_str().to_owned());
    let response = if route.starts_with("/v1/") {
        match std::sync::Arc::clone(&state.shared.permits).try_acquire_owned() {
            Err(_) => Error::Overloaded.into_response(),
            Ok(permit) => {
                let limit = state.shared.config.request_timeout;
                // The last tenth of the limit (half a second at most) tells a database that
                // stopped answering (503) from a request that is merely slow (504).
                let probe = (limit / 10).min(Duration::from_millis(500));
                let response = match tokio::time::timeout(limit - probe, next.run(request)).await {
                    Ok(response) => response,
                    Err(_) if !probe.is_zero() && !database_answers(&state, probe).await => {
                        Error::DatabaseDown.into_response()
                    }
                    Err(_) => Error::Timeout(limit.as_millis()).into_response(),
                };
                drop(permit);
                response
            }
        }
    } else {
        next.run(request).await
    };
    state.shared.metrics.request(&route, response.status().as_u16(), started.elapsed());
    response
}

/// Whether the database answers an empty request on the engine's own connections within
/// `limit`.
async fn database_answers(state: &AppState, limit: Duration) -> bool {
    let engine = &state.shared.engine;
    matches!(tokio::time::timeout(limit, engine.check_database()).await, Ok(Ok(_)))
}
