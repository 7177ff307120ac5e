//! The test database provisioning itself: each test gets its own database in the one server of
//! the run, so concurrent tests writing the same table do not see each other's rows.

use std::time::Duration;

use sqlx::PgPool;

async fn write_then_read_own_rows(pool: &PgPool, marker: &str) {
    sqlx::query("CREATE TABLE shared_name (marker text NOT NULL)").execute(pool).await.unwrap();
    for _ in 0..20 {
        sqlx::query("INSERT INTO shared_name VALUES ($1)")
            .bind(marker)
            .execute(pool)
            .await
            .unwrap();
        // Give the other test time to write into its own table of the same name.
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let markers: Vec<(String,)> =
        sqlx::query_as("SELECT DISTINCT marker FROM shared_name").fetch_all(pool).await.unwrap();
    assert_eq!(markers, vec![(marker.to_owned(),)]);
    let (count,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM shared_name").fetch_one(pool).await.unwrap();
    assert_eq!(count, 20);
}

#[sqlx::test]
async fn concurrent_writer_a_sees_only_its_rows(pool: PgPool) {
    write_then_read_own_rows(&pool, "a").await;
}

#[sqlx::test]
async fn concurrent_writer_b_sees_only_its_rows(pool: PgPool) {
    write_then_read_own_rows(&pool, "b").await;
}

#[sqlx::test]
async fn each_test_gets_a_fresh_database(pool: PgPool) {
    let (name,): (String,) =
        sqlx::query_as("SELECT current_database()").fetch_one(&pool).await.unwrap();
    assert!(name.starts_with("_sqlx_test"), "{name}");
    let (tables,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(tables, 0);
}
