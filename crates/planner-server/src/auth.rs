//! The caller: the API key in `Authorization: Bearer`, verified against PostgreSQL.

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use crate::AppState;
use crate::error::Error;

/// A verified caller: its tenant and scopes.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub(crate) tenant: uuid::Uuid,
    pub(crate) scopes: Vec<String>,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, Error> {
        let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
            return Err(Error::Unauthorized("an `Authorization: Bearer KEY` header is required"));
        };
        let Some(secret) = value
            .to_str()
            .ok()
            .and_then(|it| it.strip_prefix("Bearer ").or_else(|| it.strip_prefix("bearer ")))
            .map(str::trim)
            .filter(|it| !it.is_empty())
        else {
            return Err(Error::Unauthorized("the Authorization header is not `Bearer KEY`"));
        };
        match planner_exec::verify_api_key(&state.shared.pool, secret).await {
            Ok(Some(key)) => match state.shared.limiter.take(key.id.0) {
                Ok(()) => Ok(Caller { tenant: key.tenant.0, scopes: key.scopes }),
                Err(retry_after) => Err(Error::RateLimited(retry_after)),
            },
            Ok(None) => Err(Error::Unauthorized("the API key is unknown or revoked")),
            Err(err) => {
                tracing::warn!(%err, "verifying an API key failed");
                state.shared.metrics.engine_error("database");
                Err(Error::DatabaseDown)
            }
        }
    }
}
