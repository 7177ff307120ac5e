//! The audit log: counts-only rows, append-only for everyone; withdrawn answers, append-only too,
//! left out of `audit.answers_given`.

use std::time::Duration;

use planner_exec::{
    AuditRecord, AuditRoute, Faithfulness, SelfConsistency, WirePool, withdraw_audits, write_audits,
};
use planner_registry::ParamKind;
use sqlx::PgPool;
use uuid::Uuid;

fn record() -> AuditRecord {
    AuditRecord {
        id: Uuid::new_v4(),
        intents: vec!["top_incumbents".into(), "bench_compartment_counts".into()],
        param_kinds: vec![ParamKind::Agency, ParamKind::Naics, ParamKind::Clearance],
        node_count: 2,
        suppressed_cells: 3,
        faithfulness: Faithfulness::Passed,
        self_consistency: SelfConsistency::Majority,
        route: AuditRoute::Plan,
        latency: Duration::from_millis(1234),
        dropped_nodes: 1,
        tenant: None,
        key: None,
    }
}

/// Writes one record alone; its id.
async fn write_audit(pool: &PgPool, record: &AuditRecord) -> planner_exec::Result<Uuid> {
    write_audits(&WirePool::from_pg_pool(pool), std::slice::from_ref(record)).await?;
    Ok(record.id)
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_group_of_rows_commits_in_one_transaction_in_one_round_trip(pool: PgPool) {
    let wire = WirePool::from_pg_pool(&pool);
    let first: Vec<AuditRecord> = (0..3).map(|_| record()).collect();
    // The first write prepares the insert on the connection.
    write_audits(&wire, &first).await.unwrap();
    let before = wire.round_trips();
    let second: Vec<AuditRecord> = (0..5).map(|_| record()).collect();
    write_audits(&wire, &second).await.unwrap();
    assert_eq!(wire.round_trips() - before, 1, "five rows, one transaction, one round trip");
    assert_eq!(wire.connections_opened(), 1);
    assert_eq!(count(&pool, "audit.answer_log").await, 8);
    let transactions: i64 = sqlx::query_scalar(
        "SELECT count(DISTINCT xmin::text) FROM audit.answer_log WHERE id = ANY($1)",
    )
    .bind(second.iter().map(|it| it.id).collect::<Vec<_>>())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(transactions, 1);

    // A group with a row that cannot be written commits none of its rows, and the pool's next
    // connection is clean.
    let mut failing: Vec<AuditRecord> = (0..3).map(|_| record()).collect();
    failing[2].id = second[0].id;
    let error = write_audits(&wire, &failing).await.unwrap_err();
    assert!(matches!(error, planner_exec::Error::Database { .. }), "{error:?}");
    assert_eq!(count(&pool, "audit.answer_log").await, 8);
    write_audits(&wire, &[record()]).await.unwrap();
    assert_eq!(count(&pool, "audit.answer_log").await, 9);
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn one_row_per_answer_with_counts_only(pool: PgPool) {
    let record = record();
    let id = write_audit(&pool, &record).await.unwrap();
    assert_eq!(id, record.id);
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

async fn count(pool: &PgPool, relation: &str) -> i64 {
    let sql = sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {relation}"));
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn withdrawing_is_idempotent_and_leaves_the_answer_out_of_the_answers_given(pool: PgPool) {
    let given = write_audit(&pool, &record()).await.unwrap();
    let withdrawn = write_audit(&pool, &record()).await.unwrap();
    // An id whose audit write never committed may be withdrawn too.
    let never_written = Uuid::new_v4();
    withdraw_audits(&pool, &[withdrawn, never_written]).await.unwrap();
    withdraw_audits(&pool, &[withdrawn, withdrawn]).await.unwrap();
    withdraw_audits(&pool, &[]).await.unwrap();
    assert_eq!(count(&pool, "audit.answer_log").await, 2);
    assert_eq!(count(&pool, "audit.withdrawn").await, 2);
    let ids: Vec<Uuid> =
        sqlx::query_scalar("SELECT id FROM audit.answers_given").fetch_all(&pool).await.unwrap();
    assert_eq!(ids, [given]);
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn withdrawals_are_append_only_and_the_audit_role_may_only_insert(pool: PgPool) {
    let id = write_audit(&pool, &record()).await.unwrap();
    withdraw_audits(&pool, &[id]).await.unwrap();
    for sql in [
        "UPDATE audit.withdrawn SET withdrawn_at = now()",
        "DELETE FROM audit.withdrawn",
        "TRUNCATE audit.withdrawn",
    ] {
        let error = sqlx::raw_sql(sql).execute(&pool).await.unwrap_err();
        assert_eq!(error.as_database_error().unwrap().code().unwrap(), "42501", "{sql}");
    }
    for (role, sql) in [
        ("planner_audit", "SELECT count(*) FROM audit.withdrawn"),
        ("planner_audit", "UPDATE audit.withdrawn SET withdrawn_at = now()"),
        ("planner_audit", "DELETE FROM audit.withdrawn"),
        ("planner_audit", "TRUNCATE audit.withdrawn"),
        ("planner_audit", "SELECT count(*) FROM audit.answers_given"),
        ("planner_read_bench", "SELECT count(*) FROM audit.answers_given"),
        ("planner_read_bench", "INSERT INTO audit.withdrawn (id) VALUES (gen_random_uuid())"),
    ] {
        let mut tx = pool.begin().await.unwrap();
        let set_role = sqlx::AssertSqlSafe(format!("SET LOCAL ROLE {role}"));
        sqlx::raw_sql(set_role).execute(&mut *tx).await.unwrap();
        let error = sqlx::raw_sql(sql).execute(&mut *tx).await.unwrap_err();
        assert_eq!(error.as_database_error().unwrap().code().unwrap(), "42501", "{role}: {sql}");
    }
    assert_eq!(count(&pool, "audit.withdrawn").await, 1);
    assert_eq!(count(&pool, "audit.answers_given").await, 0);
}
