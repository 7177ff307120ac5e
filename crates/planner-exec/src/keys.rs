//! Tenants and API keys: keys are stored as their SHA-256, bound to a tenant and scopes; the key
//! itself exists only in the value [`create_api_key`] returns. The key's random bytes and its
//! digest come from the build's one cryptographic module (`planner-crypto`).

use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::error::Result;
use crate::exec::TenantId;

/// The id of an API key (not the key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ApiKeyId(pub Uuid);

/// A key just created: the only time its secret is available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    /// The key's id, for revocation.
    pub id: ApiKeyId,
    /// The secret to hand to the client once: `pk_` and 64 hex digits.
    pub secret: String,
}

/// A verified key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The key's id.
    pub id: ApiKeyId,
    /// The tenant it acts for.
    pub tenant: TenantId,
    /// Its scopes, sorted (for example `bench`).
    pub scopes: Vec<String>,
}

/// Creates a tenant named `name` and returns its id.
pub async fn create_tenant(pool: &PgPool, name: &str) -> Result<TenantId> {
    let id = Uuid::new_v4();
    sqlx::query("INSERT INTO admin.tenant (id, name) VALUES ($1, $2)")
        .bind(id)
        .bind(name)
        .execute(pool)
        .await?;
    Ok(TenantId(id))
}

/// The tenant named exactly `name`, if there is one.
pub async fn find_tenant(pool: &PgPool, name: &str) -> Result<Option<TenantId>> {
    let id: Option<Uuid> = sqlx::query_scalar("SELECT id FROM admin.tenant WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?;
    Ok(id.map(TenantId))
}

/// Whether a tenant has the id `id` (the owner's query: the runtime login cannot read tenants).
pub async fn tenant_exists(pool: &PgPool, id: Uuid) -> Result<bool> {
    let found: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM admin.tenant WHERE id = $1)")
            .bind(id)
            .fetch_one(pool)
            .await?;
    Ok(found)
}

/// Creates an API key for `tenant` with `scopes`; stores only its hash.
pub async fn create_api_key(pool: &PgPool, tenant: TenantId, scopes: &[&str]) -> Result<NewApiKey> {
    let id = Uuid::new_v4();
    // 256 bits from the module's generator (its DRBG, FIPS-approved in a `fips` build).
    let bytes: [u8; 32] = planner_crypto::random()?;
    let secret = format!("pk_{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
    let mut scopes: Vec<&str> = scopes.to_vec();
    scopes.sort_unstable();
    scopes.dedup();
    sqlx::query(
        "INSERT INTO admin.api_key (id, tenant_id, key_hash, key_prefix, scopes) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(tenant.0)
    .bind(hash(&secret))
    .bind(&secret[..11])
    .bind(&scopes)
    .execute(pool)
    .await?;
    Ok(NewApiKey { id: ApiKeyId(id), secret })
}

/// Looks a presented key up by its hash; `None` when it is unknown or revoked.
pub async fn verify_api_key(pool: &PgPool, secret: &str) -> Result<Option<ApiKey>> {
    let row: Option<(Uuid, Uuid, Vec<String>)> = sqlx::query_as(
        "SELECT id, tenant_id, scopes FROM admin.api_key \
         WHERE key_hash = $1 AND revoked_at IS NULL",
    )
    .bind(hash(secret))
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(id, tenant, scopes)| ApiKey {
        id: ApiKeyId(id),
        tenant: TenantId(tenant),
        scopes,
    }))
}

/// Revokes a key; returns whether a live key was revoked.
pub async fn revoke_api_key(pool: &PgPool, id: ApiKeyId) -> Result<bool> {
    let result = sqlx::query(
        "UPDATE admin.api_key SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL",
    )
    .bind(id.0)
    .execute(pool)
    .await?;
    Ok(result.rows_affected() == 1)
}

fn hash(secret: &str) -> Vec<u8> {
    api_key_hash(secret).to_vec()
}

/// The SHA-256 of a presented key: what the database stores, and what a cache of verified keys
/// may be keyed by (never the key itself). Computed by the build's one cryptographic module
/// (`planner_crypto::sha256`: AWS-LC, its FIPS module under `fips`).
pub fn api_key_hash(secret: &str) -> [u8; 32] {
    planner_crypto::sha256(secret.as_bytes())
}
