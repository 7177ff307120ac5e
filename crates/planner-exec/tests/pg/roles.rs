//! The second line of defence, on its own: what PostgreSQL refuses to the runtime login and the
//! plane readers, with no SQL guard in front (every statement here is sent as it is).

use std::time::Duration;

use planner_exec::{
    Bind, Error, ExecRequest, Guard, Reader, TenantId, WirePool, connect_runtime, execute,
    login_privileges, runtime_url,
};
use sqlx::postgres::PgPoolOptions;
use sqlx::{Connection as _, PgConnection, PgPool};
use uuid::Uuid;

const TENANT_B: Uuid = Uuid::from_u128(0xb);

/// The runtime login's password for this run (`cargo xtask test` exports one; the role is
/// cluster-wide, so every test of a run must agree).
fn password() -> String {
    std::env::var("PLANNER_RUNTIME_PASSWORD")
        .ok()
        .filter(|it| !it.is_empty())
        .unwrap_or_else(|| "plannerTestRuntimeLogin0001".to_owned())
}

/// The test database's URL as the runtime login, after the owner (the test's superuser pool)
/// made `planner_app` a login. Other tests may be doing the same at once: retried.
async fn runtime_login(owner: &PgPool) -> String {
    let server = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let base = server.split('?').next().unwrap_or(&server);
    let (server, _) = base.rsplit_once('/').expect("DATABASE_URL has a database");
    let database = owner.connect_options().get_database().unwrap().to_owned();
    let url = runtime_url(&format!("{server}/{database}"), &password()).unwrap();
    connect_runtime(owner, &url, &password(), PgPoolOptions::new().max_connections(1))
        .await
        .expect("cannot log in as planner_app")
        .close()
        .await;
    url
}

/// Two tenants with candidates (25 for A, 4 for B).
async fn two_tenants(pool: &PgPool) {
    sqlx::raw_sql(
        "INSERT INTO admin.tenant (id, name) VALUES
             ('00000000-0000-0000-0000-00000000000a', 'A'),
             ('00000000-0000-0000-0000-00000000000b', 'B');
         INSERT INTO bench.candidate (id, tenant_id, clearance, clearance_rank, clearance_status,
                                      polygraph, labor_category, available_from)
         SELECT gen_random_uuid(), t.id, 'secret', 2, 'active', 'none', 'Systems Engineer', '2026-07-01'
         FROM admin.tenant AS t, generate_series(1, CASE t.name WHEN 'A' THEN 25 ELSE 4 END);
         INSERT INTO audit.answer_log (id, intents, param_kinds, node_count, suppressed_cells,
                                       faithfulness, self_consistency, route, latency_ms)
         VALUES (gen_random_uuid(), '{}', '{}', 0, 0, 'not_narrated', 'not_sampled', 'refused', 1);",
    )
    .execute(pool)
    .await
    .unwrap();
}

/// The SQLSTATE of `sql`'s failure on `conn`, or `None` when it succeeded.
async fn refusal(conn: &mut PgConnection, sql: &str) -> Option<String> {
    match sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned())).execute(&mut *conn).await {
        Ok(_) => None,
        Err(sqlx::Error::Database(err)) => {
            Some(err.code().map(|c| c.into_owned()).unwrap_or_default())
        }
        Err(other) => panic!("{sql}: {other}"),
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_runtime_login_owns_nothing_and_cannot_escape(pool: PgPool) {
    two_tenants(&pool).await;
    let url = runtime_login(&pool).await;
    let runtime = PgPoolOptions::new().max_connections(1).connect(&url).await.unwrap();
    let privileges = login_privileges(&runtime).await.unwrap();
    assert_eq!(privileges.login, "planner_app");
    assert!(privileges.is_least_privilege(), "{privileges:?}");
    let owner_privileges = login_privileges(&pool).await.unwrap();
    assert!(!owner_privileges.is_least_privilege(), "{owner_privileges:?}");

    let mut conn = PgConnection::connect(&url).await.unwrap();
    // Each of these is refused with insufficient_privilege (42501), by the login itself.
    for sql in [
        "SELECT set_config('planner.tenant', '00000000-0000-0000-0000-00000000000b', false)",
        "SELECT set_config('role', 'postgres', false)",
        "SET ROLE postgres",
        "SET ROLE planner_owner",
        "SET ROLE planner_reader",
        "ALTER TABLE audit.answer_log DISABLE TRIGGER ALL",
        "DELETE FROM audit.answer_log",
        "UPDATE audit.answer_log SET node_count = 9",
        "TRUNCATE audit.answer_log",
        "COPY (SELECT 1) TO PROGRAM 'true'",
        "SELECT count(*) FROM bench.candidate",
        "SELECT count(*) FROM market.award",
        "SELECT count(*) FROM eeo.self_identification",
        "SELECT query_to_xml('SELECT count(*) FROM bench.candidate', true, true, '')",
        "SELECT name FROM admin.tenant",
        "SELECT * FROM admin.api_key",
        "CREATE TABLE public.planted (n int)",
    ] {
        assert_eq!(refusal(&mut conn, sql).await.as_deref(), Some("42501"), "{sql}");
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn each_reader_reads_only_its_planes_schemas(pool: PgPool) {
    two_tenants(&pool).await;
    let url = runtime_login(&pool).await;
    let mut conn = PgConnection::connect(&url).await.unwrap();
    let cases: [(&str, &str, bool); 10] = [
        ("planner_read_public", "SELECT count(*) FROM market.award", true),
        ("planner_read_public", "SELECT count(*) FROM graph.subaward", true),
        ("planner_read_public", "SELECT count(*) FROM bench.candidate", false),
        ("planner_read_public", "SELECT count(*) FROM capture.requirement", false),
        ("planner_read_tenant", "SELECT count(*) FROM capture.requirement", true),
        ("planner_read_tenant", "SELECT count(*) FROM bench.candidate", false),
        ("planner_read_bench", "SELECT count(*) FROM bench.candidate", true),
        ("planner_read_bench", "SELECT count(*) FROM graph.subaward", false),
        ("planner_read_bench", "SELECT count(*) FROM admin.api_key", false),
        ("planner_audit", "SELECT count(*) FROM audit.answer_log", false),
    ];
    for (role, sql, allowed) in cases {
        let statement = format!("BEGIN; SET LOCAL ROLE {role}; {sql}; COMMIT");
        let outcome = refusal(&mut conn, &statement).await;
        if outcome.is_some() {
            let _ = sqlx::raw_sql("ROLLBACK").execute(&mut conn).await;
        }
        match allowed {
            true => assert_eq!(outcome, None, "{role}: {sql}"),
            false => assert_eq!(outcome.as_deref(), Some("42501"), "{role}: {sql}"),
        }
    }
    // As the audit writer: append, never change.
    for sql in [
        "DELETE FROM audit.answer_log",
        "UPDATE audit.answer_log SET node_count = 9",
        "ALTER TABLE audit.answer_log DISABLE TRIGGER ALL",
    ] {
        let statement = format!("BEGIN; SET LOCAL ROLE planner_audit; {sql}; COMMIT");
        assert_eq!(refusal(&mut conn, &statement).await.as_deref(), Some("42501"), "{sql}");
        sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    }
}

/// The probe of the tenant-isolation finding, with the guard bypassed (the executor is handed
/// the statement directly, as the runtime login): PostgreSQL returns no other tenant's row.
#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_probe_statement_reads_no_other_tenant_without_the_guard(pool: PgPool) {
    two_tenants(&pool).await;
    let runtime = PgPoolOptions::new().connect(&runtime_login(&pool).await).await.unwrap();
    let probe = "SELECT U&\"set\\005fconfig\"('planner.tenant', \
                 '00000000-0000-0000-0000-00000000000a', true) AS t, \
                 (SELECT count(*) FROM bench.candidate AS c) AS n";
    let request = |reader| ExecRequest {
        sql: probe,
        binds: &[],
        tenant: Some(TenantId(TENANT_B)),
        reader,
        timeout: Duration::from_secs(5),
        guard: Guard::Rows,
    };
    // Through a market plane: the bench schema is not the public reader's.
    let refused =
        execute(&WirePool::from_pg_pool(&runtime), &request(Reader::Public)).await.unwrap_err();
    assert!(matches!(refused, Error::PermissionDenied), "{refused:?}");
    // Even as the bench reader: set_config is not callable, so the tenant cannot be switched.
    let refused =
        execute(&WirePool::from_pg_pool(&runtime), &request(Reader::Bench)).await.unwrap_err();
    assert!(matches!(refused, Error::PermissionDenied), "{refused:?}");
    // Without the escape the bench reader counts tenant B's rows only.
    let own = ExecRequest {
        sql: "SELECT count(*)::int AS n FROM bench.candidate AS c",
        ..request(Reader::Bench)
    };
    let table = execute(&WirePool::from_pg_pool(&runtime), &own).await.unwrap();
    assert_eq!(table.rows, vec![vec![planner_exec::Cell::Int(4)]]);
}

/// Where set_config could not be revoked (a managed PostgreSQL), the executor's post-condition
/// still discards a result whose statement switched the tenant.
#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_post_condition_discards_a_statement_that_switched_its_tenant(pool: PgPool) {
    two_tenants(&pool).await;
    sqlx::raw_sql(
        "GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO planner_read_bench",
    )
    .execute(&pool)
    .await
    .unwrap();
    let runtime = PgPoolOptions::new().connect(&runtime_login(&pool).await).await.unwrap();
    let switch = ExecRequest {
        sql: "SELECT set_config('planner.tenant', '00000000-0000-0000-0000-00000000000a', true) \
              AS t",
        binds: &[],
        tenant: Some(TenantId(TENANT_B)),
        reader: Reader::Bench,
        timeout: Duration::from_secs(5),
        guard: Guard::Rows,
    };
    let refused = execute(&WirePool::from_pg_pool(&runtime), &switch).await.unwrap_err();
    assert!(matches!(refused, Error::GuardChanged), "{refused:?}");
    let timeout = ExecRequest {
        sql: "SELECT set_config('statement_timeout', '0', true) AS t",
        ..switch.clone()
    };
    let refused = execute(&WirePool::from_pg_pool(&runtime), &timeout).await.unwrap_err();
    assert!(matches!(refused, Error::GuardChanged), "{refused:?}");
    // An honest statement still runs.
    let honest =
        ExecRequest { sql: "SELECT $1::text AS t", binds: &[Bind::Text("x".into())], ..switch };
    execute(&WirePool::from_pg_pool(&runtime), &honest).await.unwrap();
}

#[test]
fn readers_follow_the_plane_kind() {
    let plane = |tenant, counts| planner_registry::Plane {
        name: "p".to_owned(),
        tenant,
        counts,
        workforce: Some(counts),
        scope: None,
        schemas: vec!["market".to_owned()],
        people: Vec::new(),
    };
    assert_eq!(Reader::for_plane(&plane(false, false)), Reader::Public);
    assert_eq!(Reader::for_plane(&plane(true, false)), Reader::Tenant);
    assert_eq!(Reader::for_plane(&plane(true, true)), Reader::Bench);
    assert_eq!(Reader::Bench.role(), "planner_read_bench");
}

/// The guard's hostile corpus with the guard bypassed: every statement handed straight to the
/// executor as `planner_app` through the public reader, as tenant B, on the real schema (the
/// corpus's test tables mapped onto it). PostgreSQL refuses what would write, escape or read
/// another plane; nothing changes, and no reply holds a row of tenant A.
#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_hostile_corpus_changes_nothing_with_the_guard_bypassed(pool: PgPool) {
    two_tenants(&pool).await;
    sqlx::raw_sql(
        "UPDATE bench.candidate SET labor_category = 'MARKER-A' \
         WHERE tenant_id = '00000000-0000-0000-0000-00000000000a'",
    )
    .execute(&pool)
    .await
    .unwrap();
    let runtime = PgPoolOptions::new().connect(&runtime_login(&pool).await).await.unwrap();
    let state = "SELECT (SELECT count(*) FROM bench.candidate)::text || '/' || \
                 (SELECT count(*) FROM audit.answer_log)::text || '/' || \
                 (SELECT count(*) FROM market.naics)::text || '/' || \
                 (SELECT string_agg(rolname || rolsuper::text, ',' ORDER BY rolname) \
                  FROM pg_roles WHERE rolname LIKE 'planner%')";
    let before: String = sqlx::query_scalar(state).fetch_one(&pool).await.unwrap();
    let corpus = include_str!("../../../../fixtures/registry/hostile/hostile.sql");
    let statements: Vec<String> = corpus
        .split("-- case:")
        .skip(1)
        .map(|case| {
            let sql: Vec<&str> = case.lines().skip(1).filter(|l| !l.starts_with("-- ")).collect();
            sql.join("\n")
                .replace("market.awards", "market.award")
                .replace("tenant.candidates", "bench.candidate")
                .replace("tenant.requirements", "capture.requirement")
        })
        .collect();
    let (mut refused, mut failed, mut ran) = (0, 0, 0);
    for sql in &statements {
        let request = ExecRequest {
            sql,
            binds: &[],
            tenant: Some(TenantId(TENANT_B)),
            reader: Reader::Public,
            timeout: Duration::from_secs(2),
            guard: Guard::Rows,
        };
        match execute(&WirePool::from_pg_pool(&runtime), &request).await {
            Err(Error::PermissionDenied | Error::GuardChanged) => refused += 1,
            Err(_) => failed += 1,
            Ok(table) => {
                ran += 1;
                let text = planner_exec::render_text(&table);
                assert!(!text.contains("MARKER-A"), "{sql}\n-> {text}");
            }
        }
    }
    let after: String = sqlx::query_scalar(state).fetch_one(&pool).await.unwrap();
    assert_eq!(before, after, "a hostile statement changed the database");
    // The figures docs/reliability.md quotes (run with --nocapture to see them).
    println!(
        "hostile corpus, guard bypassed: {} statements; refused by PostgreSQL or the \
         post-condition {refused}; failed otherwise (syntax, unknown object, timeout) {failed}; \
         ran harmlessly {ran}",
        statements.len()
    );
    assert_eq!(refused + failed + ran, statements.len());
    assert!(refused >= 30, "only {refused} refused");
}
