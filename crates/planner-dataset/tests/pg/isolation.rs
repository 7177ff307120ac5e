//! Tenant isolation through every tenant intent of the registry.

use std::collections::BTreeMap;

use planner_dataset::{DEMO_REQUIREMENTS, DEMO_TENANTS};
use planner_exec::Cell;
use planner_registry::Value;
use sqlx::PgPool;

use crate::fixture::{registry, run, sample_args, seeded};

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_tenant_never_sees_another_tenants_rows(pool: PgPool) {
    seeded(&pool).await;
    let registry = registry();
    let a = DEMO_TENANTS[0].id;
    let mut args = sample_args(&pool).await;
    // B's requirement, asked for by A: every intent taking a requirement id comes back empty.
    let b_requirement = DEMO_REQUIREMENTS.iter().find(|r| r.tenant == 1).unwrap();
    args.insert("requirement_id", Value::Text(b_requirement.id.to_string()));
    let mut checked = 0;
    for intent in registry.intents().iter().filter(|intent| intent.query().is_some()) {
        let takes_requirement =
            intent.params.iter().any(|p| registry.param(p.param).name == "requirement_id");
        if !takes_requirement {
            continue;
        }
        let table = run(&pool, &registry, intent, &args, a).await.unwrap();
        assert!(table.rows.is_empty(), "{} leaked: {:?}", intent.name, table.rows);
        // B itself sees its requirement.
        let own = run(&pool, &registry, intent, &args, DEMO_TENANTS[1].id).await.unwrap();
        assert!(!own.rows.is_empty(), "{} is empty for its owner", intent.name);
        checked += 1;
    }
    assert_eq!(checked, 3);

    // Bench counts: each tenant's total is its own candidates, never the union.
    let intent = registry.intent(registry.intent_id("bench_clearance_counts").unwrap());
    let args = BTreeMap::from([("clearance", Value::Text("confidential".into()))]);
    for tenant in DEMO_TENANTS {
        let expected: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM bench.candidate
             WHERE tenant_id = $1 AND clearance_status IN ('active', 'current')",
        )
        .bind(tenant.id)
        .fetch_one(&pool)
        .await
        .unwrap();
        let table = run(&pool, &registry, intent, &args, tenant.id).await.unwrap();
        let total = &table.rows.last().unwrap()[1];
        match total {
            Cell::Int(shown) => assert_eq!(*shown, expected, "{}", tenant.name),
            // The total sums one cell per level and availability; one small cell withholds it.
            Cell::Withheld => {}
            other => assert!(expected < 11, "{}: {other:?} for {expected}", tenant.name),
        }
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn a_tenant_without_candidates_counts_nothing(pool: PgPool) {
    seeded(&pool).await;
    let registry = registry();
    let empty = uuid::Uuid::from_u128(0xe);
    sqlx::query("INSERT INTO admin.tenant (id, name) VALUES ($1, 'Empty')")
        .bind(empty)
        .execute(&pool)
        .await
        .unwrap();
    let args = sample_args(&pool).await;
    let mut checked = 0;
    for intent in registry.intents() {
        let Some(query) = intent.query() else { continue };
        if query.suppression.is_none() && registry.plane(query.plane).name != "requirement" {
            continue;
        }
        // Every count the other tenants' rows could feed is zero; requirement rows are absent.
        let table = run(&pool, &registry, intent, &args, empty).await.unwrap();
        for row in &table.rows {
            for cell in row {
                assert!(
                    matches!(cell, Cell::Text(_) | Cell::Int(0) | Cell::Null),
                    "{} shows {cell:?} to a tenant with no rows",
                    intent.name
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
}
