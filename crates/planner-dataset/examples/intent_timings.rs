//! Times every intent of the reference registry against a seeded database and prints a Markdown
//! report (docs/intent-timings.md): median and p95 wall time through the guarded executor, and
//! PostgreSQL's own EXPLAIN ANALYZE planning and execution times.
//!
//! Run with:
//! `cargo run -p planner-dataset --example intent_timings -- --url URL [--scale 20] [--runs 50]`
//! It seeds the database at `--scale` first when it holds no data.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "a command-line report")]

#[allow(dead_code, reason = "shared with the tests; only part of it is used here")]
#[path = "../tests/pg/fixture.rs"]
mod fixture;

use std::time::{Duration, Instant};

use planner_dataset::{DEMO_SEED, DEMO_TENANTS, SeedOptions, demo_today, seed};
use sqlx::postgres::PgPoolOptions;
use sqlx::{AssertSqlSafe, Executor as _, Row as _};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut url = String::from("postgres://postgres@127.0.0.1:55432/planner_scale20");
    let mut scale = 20.0;
    let mut runs = 50usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or("every flag takes a value")?;
        match flag.as_str() {
            "--url" => url = value,
            "--scale" => scale = value.parse()?,
            "--runs" => runs = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let pool = PgPoolOptions::new().max_connections(2).connect(&url).await?;

    let has_data: bool = sqlx::query_scalar("SELECT to_regclass('market.award') IS NOT NULL")
        .fetch_one(&pool)
        .await?;
    let empty = !has_data
        || sqlx::query_scalar::<_, bool>("SELECT NOT EXISTS (SELECT 1 FROM market.award)")
            .fetch_one(&pool)
            .await?;
    if empty {
        let started = Instant::now();
        let options = SeedOptions { scale, seed: DEMO_SEED, today: demo_today(), progress: true };
        let report = seed(&pool, &options).await?;
        eprintln!("seeded scale {scale} in {:.1} s: {report:?}", started.elapsed().as_secs_f64());
    }

    // A database seeded by an earlier version gets the newer migrations and fresh statistics.
    planner_exec::MIGRATOR.run(&pool).await?;
    pool.execute(
        "VACUUM (ANALYZE) market.snapshot, market.vendor_cell, market.award, \
         bench.clearance_level, bench.candidate",
    )
    .await?;

    let registry = fixture::registry();
    let args = fixture::sample_args(&pool).await;
    let tenant = DEMO_TENANTS[0].id;
    let counts: Vec<(String, i64)> = sqlx::query_as(
        "SELECT 'awards', count(*) FROM market.award UNION ALL
         SELECT 'subawards', count(*) FROM graph.subaward UNION ALL
         SELECT 'candidates', count(*) FROM bench.candidate",
    )
    .fetch_all(&pool)
    .await?;

    println!(
        "| # | intent | plane | rows | p50 ms | p95 ms | EXPLAIN planning ms | EXPLAIN execution ms |"
    );
    println!("|---:|---|---|---:|---:|---:|---:|---:|");
    for (number, intent) in registry.intents().iter().enumerate() {
        let Some(query) = intent.query() else { continue };
        let mut times = Vec::with_capacity(runs);
        let mut rows = 0;
        for run in 0..runs + 3 {
            let started = Instant::now();
            let table = fixture::run(&pool, &registry, intent, &args, tenant).await?;
            if run >= 3 {
                times.push(started.elapsed());
            }
            rows = table.rows.len();
        }
        times.sort();
        let (planning, execution) = explain(&pool, &registry, intent, &args, tenant).await?;
        println!(
            "| {} | {} | {} | {rows} | {:.2} | {:.2} | {planning:.2} | {execution:.2} |",
            number + 1,
            intent.name,
            registry.plane(query.plane).name,
            millis(times[times.len() / 2]),
            millis(times[times.len() * 95 / 100]),
        );
    }
    // How busy the machine is: a fixed amount of trivial work, timed the same way.
    let mut calibration = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        sqlx::query("SELECT count(*) FROM generate_series(1, 100000)").execute(&pool).await?;
        calibration.push(started.elapsed());
    }
    calibration.sort();
    println!();
    println!(
        "Calibration: `SELECT count(*) FROM generate_series(1, 100000)` p50 {:.2} ms.",
        millis(calibration[calibration.len() / 2])
    );
    println!("Data: {counts:?}");
    Ok(())
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// EXPLAIN ANALYZE of one intent in the same guarded context the executor uses.
async fn explain(
    pool: &sqlx::PgPool,
    registry: &planner_registry::Registry,
    intent: &planner_registry::Intent,
    args: &std::collections::BTreeMap<&'static str, planner_registry::Value>,
    tenant: uuid::Uuid,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let query = intent.query().ok_or("not a query intent")?;
    let binds = fixture::binds(registry, intent, args);
    let mut tx = pool.begin().await?;
    // The tenant first (the readers may not call set_config), then the plane's reader.
    sqlx::query("SELECT set_config('planner.tenant', $1, true)")
        .bind(tenant.to_string())
        .execute(&mut *tx)
        .await?;
    let role = planner_exec::Reader::for_plane(registry.plane(query.plane)).role();
    tx.execute(AssertSqlSafe(format!("SET LOCAL ROLE {role}"))).await?;
    let sql = format!("EXPLAIN (ANALYZE, FORMAT JSON) {}", query.sql);
    let mut explain = sqlx::query(AssertSqlSafe(sql));
    for bind in binds {
        explain = match bind {
            planner_exec::Bind::Uuid(value) => explain.bind(value),
            planner_exec::Bind::Text(value) => explain.bind(value),
            planner_exec::Bind::Int(value) => explain.bind(value),
            planner_exec::Bind::TextList(value) => explain.bind(value),
        };
    }
    let row = explain.fetch_one(&mut *tx).await?;
    let plan: serde_json::Value = row.try_get(0)?;
    tx.rollback().await?;
    let number = |key: &str| plan[0][key].as_f64().unwrap_or(f64::NAN);
    Ok((number("Planning Time"), number("Execution Time")))
}
