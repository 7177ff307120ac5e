//! Measures what one audit row costs PostgreSQL: the executor time of the audit inserts per row,
//! by group size and by id order, on a log already holding many rows
//! (docs/benchmarks-history.md).
//!
//! Run with (a PostgreSQL preloading `pg_stat_statements`; the database is created and dropped):
//! `cargo run --release -p planner-exec --example audit_timings -- --url URL [--rows 900000]
//! [--groups 3000]`. `URL` names a superuser's connection to any database of the cluster.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "a command-line report")]

use std::time::Duration;

use planner_exec::{
    AuditRecord, AuditRoute, Faithfulness, SelfConsistency, WirePool, write_audits,
};
use planner_registry::ParamKind;
use sqlx::postgres::PgPoolOptions;
use sqlx::{AssertSqlSafe, Executor as _};
use uuid::Uuid;

const DATABASE: &str = "planner_audit_timings";

/// The rows a busy log already holds, less their ids' source.
const PREFILL: &str = "INSERT INTO audit.answer_log (id, intents, param_kinds, node_count, \
     suppressed_cells, faithfulness, self_consistency, route, latency_ms) \
     SELECT id, ARRAY['vendor_awards'], ARRAY['uei'], 1, 0, 'not_narrated', 'not_sampled', \
     'single', 1";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut url = String::from("postgres://postgres@127.0.0.1:5432/postgres");
    let mut prefill = 900_000u32;
    let mut groups = 3_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or("every flag takes a value")?;
        match flag.as_str() {
            "--url" => url = value,
            "--rows" => prefill = value.parse()?,
            "--groups" => groups = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let admin = PgPoolOptions::new().max_connections(1).connect(&url).await?;
    admin.execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {DATABASE}"))).await?;
    admin.execute(AssertSqlSafe(format!("CREATE DATABASE {DATABASE}"))).await?;
    let target = match url.rsplit_once('/') {
        Some((server, _)) => format!("{server}/{DATABASE}"),
        None => return Err("--url names no database".into()),
    };
    let result = measure(&target, prefill, groups).await;
    admin
        .execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")))
        .await?;
    result
}

async fn measure(url: &str, prefill: u32, groups: usize) -> Result<(), Box<dyn std::error::Error>> {
    let pool = PgPoolOptions::new().max_connections(2).connect(url).await?;
    planner_exec::MIGRATOR.run(&pool).await?;
    pool.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements").await?;
    println!("| group size | ids | executor µs per row | rows |");
    println!("|---|---|---|---|");
    for ordered in [false, true] {
        for size in [1usize, 3, 8] {
            // A log of `prefill` rows, written as the writer writes them (random ids, or ids in
            // time order), so that the index is as large as a busy log's.
            pool.execute("ALTER TABLE audit.answer_log DISABLE TRIGGER answer_log_no_truncate")
                .await?;
            pool.execute("TRUNCATE audit.answer_log").await?;
            pool.execute("ALTER TABLE audit.answer_log ENABLE TRIGGER answer_log_no_truncate")
                .await?;
            if ordered {
                // PostgreSQL 15 has no time-ordered UUID function: the ids are made here.
                let ids: Vec<Uuid> = (0..prefill).map(|_| Uuid::now_v7()).collect();
                for chunk in ids.chunks(50_000) {
                    sqlx::query(AssertSqlSafe(format!("{PREFILL} FROM UNNEST($1::uuid[]) AS id")))
                        .bind(chunk)
                        .execute(&pool)
                        .await?;
                }
            } else {
                pool.execute(AssertSqlSafe(format!(
                    "{PREFILL} FROM (SELECT gen_random_uuid() AS id \
                     FROM generate_series(1, {prefill})) AS fresh"
                )))
                .await?;
            }
            pool.execute("VACUUM ANALYZE audit.answer_log").await?;
            let wire = WirePool::from_pg_pool(&pool);
            // Warm: the statements are prepared, the index's hot pages read.
            for _ in 0..50 {
                write_audits(&wire, &group(size, ordered)).await?;
            }
            pool.execute("SELECT pg_stat_statements_reset()").await?;
            for _ in 0..groups {
                write_audits(&wire, &group(size, ordered)).await?;
            }
            let (time, rows): (f64, i64) = sqlx::query_as(
                "SELECT sum(total_exec_time)::float8, sum(rows)::int8 FROM pg_stat_statements \
                 WHERE query LIKE 'INSERT INTO audit.answer_log%'",
            )
            .fetch_one(&pool)
            .await?;
            let ids = if ordered { "time-ordered (v7)" } else { "random (v4)" };
            println!("| {size} | {ids} | {:.1} | {rows} |", time * 1000.0 / rows as f64);
        }
    }
    Ok(())
}

fn group(size: usize, ordered: bool) -> Vec<AuditRecord> {
    (0..size)
        .map(|_| AuditRecord {
            id: if ordered { Uuid::now_v7() } else { Uuid::new_v4() },
            intents: vec!["vendor_awards".into()],
            dropped_nodes: 0,
            tenant: None,
            key: None,
            param_kinds: vec![ParamKind::Uei],
            node_count: 1,
            suppressed_cells: 0,
            faithfulness: Faithfulness::NotNarrated,
            self_consistency: SelfConsistency::NotSampled,
            route: AuditRoute::Single,
            latency: Duration::from_millis(1),
        })
        .collect()
}
