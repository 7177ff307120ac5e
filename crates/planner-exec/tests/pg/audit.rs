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

/// One row as the log holds it.
type Stored = (
    Vec<String>,
    Vec<String>,
    i16,
    i32,
    String,
    String,
    String,
    i32,
    i16,
    Option<Uuid>,
    Option<Uuid>,
);

fn stored(record: &AuditRecord) -> Stored {
    (
        record.intents.clone(),
        record.param_kinds.iter().map(|kind| kind.as_str().to_owned()).collect(),
        i16::try_from(record.node_count).unwrap(),
        i32::try_from(record.suppressed_cells).unwrap(),
        record.faithfulness.as_str().to_owned(),
        record.self_consistency.as_str().to_owned(),
        record.route.as_str().to_owned(),
        i32::try_from(record.latency.as_millis()).unwrap(),
        i16::try_from(record.dropped_nodes).unwrap(),
        record.tenant,
        record.key,
    )
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_group_is_one_insert_and_reads_back_field_by_field(pool: PgPool) {
    // Rows that differ in every field, lists of every length (none included), ids and none.
    let mut group: Vec<AuditRecord> = (0..6).map(|_| record()).collect();
    group[0].intents.clear();
    group[0].param_kinds.clear();
    group[0].route = AuditRoute::Refused;
    group[0].faithfulness = Faithfulness::NotNarrated;
    group[0].self_consistency = SelfConsistency::NotSampled;
    group[1].intents = vec!["vendor_awards".into()];
    group[1].param_kinds = vec![ParamKind::Uei];
    group[1].tenant = Some(Uuid::new_v4());
    group[1].key = Some(Uuid::new_v4());
    group[2].param_kinds.clear();
    group[2].route = AuditRoute::Clarify;
    group[3].intents = (0..6).map(|i| format!("intent_{i}")).collect();
    group[3].node_count = 6;
    group[3].faithfulness = Faithfulness::Failed;
    group[3].self_consistency = SelfConsistency::NoMajority;
    group[4].intents.clear();
    group[4].route = AuditRoute::Unplannable;
    group[5].latency = Duration::from_millis(7);
    group[5].suppressed_cells = 0;
    group[5].dropped_nodes = 0;
    group[5].tenant = Some(Uuid::new_v4());
    // Every INSERT statement on the log leaves a row here.
    sqlx::raw_sql(
        "CREATE TABLE public.log_inserts (n int);
         CREATE FUNCTION public.count_insert() RETURNS trigger LANGUAGE plpgsql
             SECURITY DEFINER AS $$ BEGIN INSERT INTO public.log_inserts VALUES (1); RETURN NULL; END $$;
         CREATE TRIGGER count_inserts AFTER INSERT ON audit.answer_log
             FOR EACH STATEMENT EXECUTE FUNCTION public.count_insert();",
    )
    .execute(&pool)
    .await
    .unwrap();
    let wire = WirePool::from_pg_pool(&pool);
    write_audits(&wire, &group).await.unwrap();
    assert_eq!(count(&pool, "public.log_inserts").await, 1, "six rows, one statement");
    write_audits(
        &wire,
        &group[..1]
            .iter()
            .map(|it| AuditRecord { id: Uuid::new_v4(), ..it.clone() })
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    assert_eq!(count(&pool, "public.log_inserts").await, 2);
    for record in &group {
        let row: Stored = sqlx::query_as(
            "SELECT intents, param_kinds, node_count, suppressed_cells, faithfulness,
                    self_consistency, route, latency_ms, dropped_nodes, tenant_id, key_id
             FROM audit.answer_log WHERE id = $1",
        )
        .bind(record.id)
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(row, stored(record), "{:?}", record.id);
    }
    assert_eq!(count(&pool, "audit.answer_log").await, 7);
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
