//! The audit log: counts-only rows, append-only for everyone.

use std::time::Duration;

use planner_exec::{AuditRecord, AuditRoute, Faithfulness, SelfConsistency, write_audit};
use planner_registry::ParamKind;
use sqlx::PgPool;

fn record() -> AuditRecord {
    AuditRecord {
        intents: vec!["top_incumbents".into(), "bench_compartment_counts".into()],
        param_kinds: vec![ParamKind::Agency, ParamKind::Naics, ParamKind::Clearance],
        node_count: 2,
        suppressed_cells: 3,
        faithfulness: Faithfulness::Passed,
        self_consistency: SelfConsistency::Majority,
        route: AuditRoute::Plan,
        latency: Duration::from_millis(1234),
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn one_row_per_answer_with_counts_only(pool: PgPool) {
    let id = write_audit(&pool, &record()).await.unwrap();
    let row: (Vec<String>, Vec<String>, i16, i32, String, String, String, i32) = sqlx::query_as(
        "SELECT intents, param_kinds, node_count, suppressed_cells, faithfulness, self_consistency,
                route, latency_ms FROM audit.answer_log WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    insta::assert_debug_snapshot!(row);
    let columns: Vec<String> = sqlx::query_scalar(
        "SELECT column_name::text FROM information_schema.columns
         WHERE table_schema = 'audit' AND table_name = 'answer_log' ORDER BY ordinal_position",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    insta::assert_debug_snapshot!("answer_log_columns", columns);
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_log_rejects_update_and_delete_even_from_the_owner(pool: PgPool) {
    write_audit(&pool, &record()).await.unwrap();
    // `pool` connects as a superuser: the trigger binds it too.
    for sql in [
        "UPDATE audit.answer_log SET node_count = 0",
        "DELETE FROM audit.answer_log",
        "TRUNCATE audit.answer_log",
    ] {
        let error = sqlx::raw_sql(sql).execute(&pool).await.unwrap_err();
        assert_eq!(error.as_database_error().unwrap().code().unwrap(), "42501", "{sql}");
    }
    // The audit role may insert only: no reading back, no updating.
    for sql in
        ["SELECT count(*) FROM audit.answer_log", "UPDATE audit.answer_log SET node_count = 0"]
    {
        let mut tx = pool.begin().await.unwrap();
        sqlx::raw_sql("SET LOCAL ROLE planner_audit").execute(&mut *tx).await.unwrap();
        let error = sqlx::raw_sql(sql).execute(&mut *tx).await.unwrap_err();
        assert_eq!(error.as_database_error().unwrap().code().unwrap(), "42501", "{sql}");
    }
    let count: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit.answer_log").fetch_one(&pool).await.unwrap();
    assert_eq!(count, 1);
}
