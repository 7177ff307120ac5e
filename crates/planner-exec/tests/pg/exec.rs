//! The guarded executor: roles, row-level security, timeouts, lost connections, typed results.

use std::time::Duration;

use planner_exec::{
    Bind, Cell, CountSpec, Error, ExecRequest, Guard, Reader, ResultTable, TenantId, WirePool,
    execute, render_text,
};
use sqlx::PgPool;
use uuid::Uuid;

const TENANT_A: Uuid = Uuid::from_u128(0xa);
const TENANT_B: Uuid = Uuid::from_u128(0xb);

async fn run(
    pool: &PgPool,
    sql: &str,
    binds: &[Bind],
    tenant: Option<Uuid>,
) -> planner_exec::Result<ResultTable> {
    execute(
        &WirePool::from_pg_pool(pool),
        &ExecRequest {
            sql,
            binds,
            tenant: tenant.map(TenantId),
            // The bench reader reads market, capture and bench: every table these tests use.
            reader: Reader::Bench,
            timeout: Duration::from_secs(10),
            guard: Guard::Rows,
        },
    )
    .await
}

/// Two tenants, each with one requirement and a few candidates.
async fn two_tenants(pool: &PgPool) {
    sqlx::raw_sql(
        "INSERT INTO admin.tenant (id, name) VALUES
             ('00000000-0000-0000-0000-00000000000a', 'A'),
             ('00000000-0000-0000-0000-00000000000b', 'B');
         INSERT INTO capture.requirement (id, tenant_id, title, agency, naics, clearance, seats, due_date)
         VALUES
             ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-00000000000a',
              'A work', 'Department of the Army', '541512', 'secret', 3, '2026-09-01'),
             ('00000000-0000-0000-0000-0000000000b1', '00000000-0000-0000-0000-00000000000b',
              'B work', 'Department of the Navy', '541330', 'ts_sci', 2, '2026-10-01');
         INSERT INTO bench.candidate (id, tenant_id, clearance, clearance_rank, clearance_status,
                                      polygraph, labor_category, available_from)
         SELECT gen_random_uuid(), t.id, 'secret', 2, 'active', 'none', 'Systems Engineer', '2026-07-01'
         FROM admin.tenant AS t, generate_series(1, CASE t.name WHEN 'A' THEN 25 ELSE 4 END);",
    )
    .execute(pool)
    .await
    .unwrap();
}

const REQUIREMENT: &str = "SELECT r.title FROM capture.requirement AS r WHERE r.id = $1::uuid";

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_tenant_sees_only_its_own_rows(pool: PgPool) {
    two_tenants(&pool).await;
    let all = "SELECT r.title FROM capture.requirement AS r ORDER BY r.title";
    let a = run(&pool, all, &[], Some(TENANT_A)).await.unwrap();
    assert_eq!(a.rows, vec![vec![Cell::Text("A work".into())]]);

    // B's requirement id, asked for by A: empty, not an error.
    let b_id = Bind::Uuid(Uuid::from_u128(0xb1));
    let a_asks_b =
        run(&pool, REQUIREMENT, std::slice::from_ref(&b_id), Some(TENANT_A)).await.unwrap();
    assert!(a_asks_b.rows.is_empty());
    let b_asks_b =
        run(&pool, REQUIREMENT, std::slice::from_ref(&b_id), Some(TENANT_B)).await.unwrap();
    assert_eq!(b_asks_b.rows.len(), 1);

    // No tenant: no tenant rows at all.
    let nobody = run(&pool, all, &[], None).await.unwrap();
    assert!(nobody.rows.is_empty());
    let count = "SELECT count(*) AS n FROM bench.candidate AS c";
    assert_eq!(run(&pool, count, &[], None).await.unwrap().rows, vec![vec![Cell::Int(0)]]);
    assert_eq!(
        run(&pool, count, &[], Some(TENANT_B)).await.unwrap().rows,
        vec![vec![Cell::Int(4)]]
    );
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_reader_cannot_write(pool: PgPool) {
    two_tenants(&pool).await;
    // Through the executor: the transaction is read-only and the role has no write grant.
    for sql in [
        "INSERT INTO market.naics (code, title) VALUES ('111111', 'x') RETURNING code",
        "UPDATE capture.requirement SET title = 'x' RETURNING title",
        "DELETE FROM bench.candidate RETURNING labor_category",
    ] {
        let error = run(&pool, sql, &[], Some(TENANT_A)).await.unwrap_err();
        assert!(matches!(error, Error::PermissionDenied), "{sql}: {error:?}");
    }
    // The role alone, in a writable transaction, still cannot write anything.
    let mut tx = pool.begin().await.unwrap();
    sqlx::raw_sql("SET LOCAL ROLE planner_read_bench").execute(&mut *tx).await.unwrap();
    let error = sqlx::raw_sql("INSERT INTO market.naics (code, title) VALUES ('111111', 'x')")
        .execute(&mut *tx)
        .await
        .unwrap_err();
    assert_eq!(error.as_database_error().unwrap().code().unwrap(), "42501");
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_reader_is_denied_eeo(pool: PgPool) {
    for sql in [
        "SELECT count(*) AS n FROM eeo.self_identification",
        "SELECT s.response FROM eeo.self_identification AS s",
        "SELECT count(*) AS n FROM admin.api_key",
        "SELECT count(*) AS n FROM audit.answer_log",
    ] {
        let error = run(&pool, sql, &[], Some(TENANT_A)).await.unwrap_err();
        assert!(matches!(error, Error::PermissionDenied), "{sql}: {error:?}");
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_slow_statement_times_out(pool: PgPool) {
    let request = ExecRequest {
        sql: "SELECT pg_sleep(3)::text AS slept",
        binds: &[],
        tenant: None,
        reader: Reader::Public,
        timeout: Duration::from_millis(100),
        guard: Guard::Rows,
    };
    assert!(matches!(execute(&WirePool::from_pg_pool(&pool), &request).await, Err(Error::Timeout)));
    // The pool is still usable.
    assert_eq!(
        run(&pool, "SELECT 1 AS one", &[], None).await.unwrap().rows,
        vec![vec![Cell::Int(1)]]
    );
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_lost_connection_is_unavailable_and_the_pool_recovers(pool: PgPool) {
    let marker = "SELECT pg_sleep(20)::text AS lost_connection_probe";
    let request = ExecRequest {
        sql: marker,
        binds: &[],
        tenant: None,
        reader: Reader::Public,
        timeout: Duration::from_secs(30),
        guard: Guard::Rows,
    };
    // Kills the statement each time it runs: a lost connection is retried once on a new one.
    let killer = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let mut kills = 0;
            for _ in 0..400 {
                let killed: Vec<bool> = sqlx::query_scalar(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid()
                       AND query LIKE '%lost_connection_probe%' AND state = 'active'",
                )
                .fetch_all(&pool)
                .await
                .unwrap();
                kills += killed.iter().filter(|it| **it).count();
                if kills == 2 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            kills
        })
    };
    let wire = WirePool::from_pg_pool(&pool);
    let result = execute(&wire, &request).await;
    assert_eq!(killer.await.unwrap(), 2, "the statement ran twice");
    assert!(matches!(result, Err(Error::Unavailable)), "{result:?}");
    assert_eq!(wire.connections_opened(), 2);
    assert_eq!(
        run(&pool, "SELECT 2 AS two", &[], None).await.unwrap().rows,
        vec![vec![Cell::Int(2)]]
    );
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn idle_connections_the_server_ended_are_replaced_without_a_failure(pool: PgPool) {
    let wire = WirePool::from_pg_pool(&pool);
    let request = ExecRequest {
        sql: "SELECT 1 AS one",
        binds: &[],
        tenant: None,
        reader: Reader::Public,
        timeout: Duration::from_secs(10),
        guard: Guard::Rows,
    };
    // Three connections in the pool, idle.
    let (a, b, c) =
        tokio::join!(execute(&wire, &request), execute(&wire, &request), execute(&wire, &request));
    for result in [a, b, c] {
        result.unwrap();
    }
    let opened = wire.connections_opened();
    // The server ends every session of the database but this one (a restart would end all).
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .execute(&pool)
    .await
    .unwrap();
    for _ in 0..3 {
        assert_eq!(execute(&wire, &request).await.unwrap().rows, [[Cell::Int(1)]]);
    }
    assert!(wire.connections_opened() > opened);
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn binds_and_columns_are_typed(pool: PgPool) {
    let sql = "SELECT $1::uuid AS id, $2::text AS word, $3::int AS months, $4::text[] AS codes,
                      12345678.9::numeric(12, 2) AS money, DATE '2026-07-01' AS day,
                      true AS flag, NULL::text AS nothing, 7::smallint AS small";
    let binds = [
        Bind::Uuid(Uuid::from_u128(0x1234)),
        Bind::Text("Department of the Army".into()),
        Bind::Int(18),
        Bind::TextList(vec!["SI".into(), "TK".into()]),
    ];
    let table = run(&pool, sql, &binds, None).await.unwrap();
    insta::assert_snapshot!(render_text(&table));
    let error = run(&pool, sql, &binds[..2], None).await.unwrap_err();
    assert!(matches!(error, Error::InvalidRequest { .. }));
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn errors_carry_no_values(pool: PgPool) {
    let secret = "a-value-that-must-not-leak";
    let error = run(&pool, "SELECT $1::text::uuid AS id", &[Bind::Text(secret.into())], None)
        .await
        .unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains(secret), "{shown}");
    assert!(!shown.contains("SELECT"), "{shown}");
    assert!(matches!(error, Error::Database { code: Some(ref code) } if code == "22P02"));
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn count_results_are_suppressed(pool: PgPool) {
    two_tenants(&pool).await;
    let sql = "SELECT b.bucket, count(c.id) AS candidates
               FROM (VALUES (1, 'now'), (2, 'later')) AS b(position, bucket)
               LEFT JOIN bench.candidate AS c
                 ON b.bucket = CASE WHEN c.available_from <= DATE '2026-07-01' THEN 'now' ELSE 'later' END
               GROUP BY b.position, b.bucket ORDER BY b.position";
    let spec = CountSpec {
        count_columns: vec!["candidates".into()],
        k: 11,
        total_row: true,
        sum_over: Vec::new(),
    };
    let counts = |tenant| ExecRequest {
        sql,
        binds: &[],
        tenant: Some(TenantId(tenant)),
        reader: Reader::Bench,
        timeout: Duration::from_secs(10),
        guard: Guard::Counts(spec.clone()),
    };
    let a = execute(&WirePool::from_pg_pool(&pool), &counts(TENANT_A)).await.unwrap();
    let b = execute(&WirePool::from_pg_pool(&pool), &counts(TENANT_B)).await.unwrap();
    insta::assert_snapshot!(format!("A\n{}\nB\n{}", render_text(&a), render_text(&b)));
    assert_eq!(b.suppressed_cells(), 2);

    // A count result may not carry identifiers.
    let ids = ExecRequest {
        sql: "SELECT c.id, count(*) AS candidates FROM bench.candidate AS c GROUP BY c.id",
        ..counts(TENANT_A)
    };
    assert!(matches!(
        execute(&WirePool::from_pg_pool(&pool), &ids).await,
        Err(Error::CountShape { .. })
    ));
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_prepared_statement_runs_in_one_round_trip(pool: PgPool) {
    let wire = WirePool::from_pg_pool(&pool);
    let binds = [Bind::Text("x".to_owned()), Bind::Int(2)];
    let request = ExecRequest {
        sql: "SELECT repeat($1::text, $2::int) AS echo",
        binds: &binds,
        tenant: Some(TenantId(TENANT_A)),
        reader: Reader::Public,
        timeout: Duration::from_secs(10),
        guard: Guard::Rows,
    };
    // The first run opens the connection, then sends the set-up with the preparation, then the
    // statement with the post-condition and the commit.
    let table = execute(&wire, &request).await.unwrap();
    assert_eq!(table.rows, [[Cell::Text("xx".to_owned())]]);
    let first = wire.round_trips();
    assert!(first >= 2, "{first}");
    for _ in 0..10 {
        execute(&wire, &request).await.unwrap();
    }
    assert_eq!(wire.round_trips() - first, 10, "one round trip per statement once prepared");
    assert_eq!(wire.connections_opened(), 1, "no connection was closed or opened again");

    // A failed statement closes its connection rather than hand it on mid-transaction.
    let failing =
        ExecRequest { sql: "SELECT 1 / ($2::int - 2) AS boom, $1::text AS x", ..request.clone() };
    assert!(execute(&wire, &failing).await.is_err());
    execute(&wire, &request).await.unwrap();
    assert_eq!(wire.connections_opened(), 2);
}
