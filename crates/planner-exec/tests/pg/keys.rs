//! API keys: hashed at rest, bound to a tenant and scopes, revocable.

use planner_exec::{create_api_key, create_tenant, revoke_api_key, verify_api_key};
use sqlx::PgPool;

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn keys_verify_until_revoked(pool: PgPool) {
    let tenant = create_tenant(&pool, "Acme").await.unwrap();
    let key = create_api_key(&pool, tenant, &["bench", "bench"]).await.unwrap();
    assert!(key.secret.starts_with("pk_") && key.secret.len() == 67);

    let verified = verify_api_key(&pool, &key.secret).await.unwrap().unwrap();
    assert_eq!(
        (verified.id, verified.tenant, verified.scopes.as_slice()),
        (key.id, tenant, &["bench".to_owned()][..])
    );
    assert_eq!(verify_api_key(&pool, "pk_not-a-key").await.unwrap(), None);

    // Only the hash is stored.
    let stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM admin.api_key WHERE key_hash = sha256(convert_to($1, 'UTF8'))
           AND position($1 IN key_prefix) = 0",
    )
    .bind(&key.secret)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(stored, 1);

    assert!(revoke_api_key(&pool, key.id).await.unwrap());
    assert!(!revoke_api_key(&pool, key.id).await.unwrap());
    assert_eq!(verify_api_key(&pool, &key.secret).await.unwrap(), None);
}
