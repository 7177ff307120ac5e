//! The caller: the API key in `Authorization: Bearer`, verified against PostgreSQL.
//!
//! Before any key lookup in the database, the client's address must have a token in its bucket
//! of unauthenticated and failing requests (429 with Retry-After otherwise): a request without a
//! valid key takes one, so a flood of bad keys from one address costs no query past its burst (a
//! key verified lately, found in the cache, passes whatever the address's bucket holds). A
//! valid key's verification is cached by the key's SHA-256 for [`ServerConfig::key_cache_ttl`]
//! (5 s by default), so a valid key costs no query per request; a key revoked by another process
//! is refused at most that long after, one revoked through [`AppState::revoke_api_key`] at once.
//!
//! [`ServerConfig::key_cache_ttl`]: crate::ServerConfig::key_cache_ttl
//! [`AppState::revoke_api_key`]: crate::AppState::revoke_api_key

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header;
use axum::http::request::Parts;
use planner_exec::ApiKey;

use crate::AppState;
use crate::error::Error;

/// A verified caller: its tenant, its key's id and its scopes.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub(crate) tenant: uuid::Uuid,
    pub(crate) key: uuid::Uuid,
    pub(crate) scopes: Vec<String>,
}

impl Caller {
    /// The engine's view of this caller, for resuming a thread.
    pub(crate) fn engine(&self) -> planner_engine::Caller {
        planner_engine::Caller {
            scopes: self.scopes.clone(),
            tenant: Some(self.tenant),
            key: Some(self.key),
        }
    }
}

/// Verified keys by the SHA-256 of their secret, each kept for the TTL.
#[derive(Debug)]
pub(crate) struct KeyCache {
    ttl: Duration,
    keys: quick_cache::sync::Cache<[u8; 32], (ApiKey, Instant)>,
}

/// The most verified keys kept at once.
const CACHED_KEYS: usize = 10_000;

impl KeyCache {
    /// A cache keeping each verified key for `ttl` (zero caches nothing).
    pub(crate) fn new(ttl: Duration) -> KeyCache {
        KeyCache { ttl, keys: quick_cache::sync::Cache::new(CACHED_KEYS) }
    }

    fn get(&self, hash: &[u8; 32]) -> Option<ApiKey> {
        let (key, until) = self.keys.get(hash)?;
        if Instant::now() < until {
            Some(key)
        } else {
            self.keys.remove(hash);
            None
        }
    }

    fn insert(&self, hash: [u8; 32], key: ApiKey) {
        if !self.ttl.is_zero() {
            self.keys.insert(hash, (key, Instant::now() + self.ttl));
        }
    }

    /// Forgets every cached verification of key `id` (it was revoked).
    pub(crate) fn forget(&self, id: planner_exec::ApiKeyId) {
        self.keys.retain(|_, (key, _)| key.id != id);
    }
}

/// The client's address, or the unspecified address when the server was not given connection
/// info (a router served without it shares one bucket).
fn client_address(parts: &Parts) -> IpAddr {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V6(Ipv6Addr::UNSPECIFIED), |ConnectInfo(addr)| addr.ip())
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, Error> {
        let shared = &state.shared;
        let address = client_address(parts);
        let verified = verify(parts, state, address).await;
        let key = match verified {
            Ok(key) => key,
            Err(err) => {
                // A failing request takes a token from its address's bucket (the database being
                // down is not the client's failure).
                if !matches!(err, Error::DatabaseDown | Error::AddressLimited(_)) {
                    let _ = shared.address_limiter.take(address);
                }
                return Err(err);
            }
        };
        match shared.limiter.take(key.id.0) {
            Ok(()) => Ok(Caller { tenant: key.tenant.0, key: key.id.0, scopes: key.scopes }),
            Err(retry_after) => Err(Error::RateLimited(retry_after)),
        }
    }
}

/// The key the request presents, verified: from the cache when it was verified lately, else
/// from the database unless `address` has no token left for failing requests.
async fn verify(parts: &Parts, state: &AppState, address: IpAddr) -> Result<ApiKey, Error> {
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
    let hash = planner_exec::api_key_hash(secret);
    if let Some(key) = state.shared.keys.get(&hash) {
        return Ok(key);
    }
    if let Some(retry_after) = state.shared.address_limiter.blocked(address) {
        return Err(Error::AddressLimited(retry_after));
    }
    match planner_exec::verify_api_key(&state.shared.pool, secret).await {
        Ok(Some(key)) => {
            state.shared.keys.insert(hash, key.clone());
            Ok(key)
        }
        Ok(None) => Err(Error::Unauthorized("the API key is unknown or revoked")),
        Err(err) => {
            tracing::warn!(%err, "verifying an API key failed");
            state.shared.metrics.engine_error("database");
            Err(Error::DatabaseDown)
        }
    }
}
