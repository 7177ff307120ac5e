//! A read replica: `planner serve --read-url` against a primary and a streaming replica started
//! from the local PostgreSQL binaries (`pg_basebackup -R`). Market questions read from the
//! replica; when it dies they read from the primary, the answers stay the same, and `/readyz`
//! and `/metrics` say so.

use std::time::{Duration, Instant};

use planner_devdb::{Cluster, ClusterConfig, ensure_database, find_bin_dir};
use serde_json::{Value, json};
use sqlx::PgPool;

use super::harness::{Server, client, post, runtime_password, seed};

/// A question of the market plane (no tenant rows): the replica's.
const MARKET: &str = "Who are the top incumbents for DHS in 541511?";

/// The value of the series `line_start` (name and labels) in an OpenMetrics text.
fn metric(text: &str, line_start: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(line_start)?.trim().parse().ok())
}

async fn metrics(base: &str) -> String {
    client().get(format!("{base}/metrics")).send().await.unwrap().text().await.unwrap()
}

async fn readyz(base: &str) -> (u16, Value) {
    let response = client().get(format!("{base}/readyz")).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Waits until the replica has replayed everything the primary wrote so far.
async fn caught_up(primary: &PgPool, replica: &PgPool) {
    let (target,): (String,) =
        sqlx::query_as("SELECT pg_current_wal_lsn()::text").fetch_one(primary).await.unwrap();
    let started = Instant::now();
    loop {
        let (done,): (bool,) =
            sqlx::query_as("SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn")
                .bind(&target)
                .fetch_one(replica)
                .await
                .unwrap();
        if done {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the replica did not catch up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn market_questions_read_from_the_replica_then_from_the_primary_when_it_dies() {
    let bin_dir =
        find_bin_dir(std::env::var("PATH").ok().as_deref(), "/usr/lib/postgresql".as_ref()).expect(
            "PostgreSQL server binaries (Debian: postgresql-15) start the primary and replica",
        );
    let config = ClusterConfig { bin_dir, dir: None, fast_unsafe: true, tls: None };
    let primary =
        tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap();
    ensure_database(&primary.url("postgres"), "planner").await.unwrap();
    let owner = PgPool::connect(&primary.url("planner")).await.unwrap();
    let keys = seed(&owner).await;
    planner_exec::enable_runtime_login(&owner, &runtime_password()).await.unwrap();

    let primary = std::sync::Arc::new(primary);
    let source = std::sync::Arc::clone(&primary);
    let mut replica =
        tokio::task::spawn_blocking(move || source.start_replica()).await.unwrap().unwrap();
    let replica_owner = PgPool::connect(&replica.url("planner")).await.unwrap();
    let (standby,): (bool,) =
        sqlx::query_as("SELECT pg_is_in_recovery()").fetch_one(&replica_owner).await.unwrap();
    assert!(standby, "the replica is a hot standby");
    caught_up(&owner, &replica_owner).await;
    replica_owner.close().await;

    // The owner's URLs: the server answers as the runtime login on both.
    let server =
        Server::start(&primary.url("planner"), &["--read-url", &replica.url("planner")]).await;
    let base = server.base.clone();
    let (status, body) = readyz(&base).await;
    assert_eq!((status, &body["replica"]), (200, &json!("up")), "{body}");

    let http = client();
    let ask = |question: &str| json!({ "question": question });
    let from_replica = post(&http, &base, "/v1/answer", &keys.bench, &ask(MARKET)).await.unwrap();
    assert_eq!(from_replica.status, 200, "{}", from_replica.body);
    assert!(!from_replica.body["evidence"][0]["rows"].as_array().unwrap().is_empty());
    let text = metrics(&base).await;
    let replica_trips = metric(&text, "planner_db_round_trips_total{pool=\"replica\"}").unwrap();
    assert!(replica_trips >= 1.0, "the market statement ran on the replica:\n{text}");
    assert_eq!(metric(&text, "planner_replica_up{pool=\"replica\"}"), Some(1.0));
    assert_eq!(metric(&text, "planner_replica_fallbacks_total{pool=\"replica\"}"), Some(0.0));
    // A tenant plane's question never reads from the replica.
    let bench = post(
        &http,
        &base,
        "/v1/answer",
        &keys.bench,
        &ask("How many of our bench hold a Secret clearance?"),
    )
    .await
    .unwrap();
    assert_eq!(bench.status, 200, "{}", bench.body);
    let after_bench = metrics(&base).await;
    assert_eq!(
        metric(&after_bench, "planner_db_round_trips_total{pool=\"replica\"}"),
        Some(replica_trips),
        "a bench count read nothing from the replica"
    );

    // The replica dies: the same question is answered from the primary, the same way.
    tokio::task::spawn_blocking(move || {
        replica.kill().unwrap();
        replica
    })
    .await
    .unwrap();
    let from_primary = post(&http, &base, "/v1/answer", &keys.bench, &ask(MARKET)).await.unwrap();
    assert_eq!(from_primary.status, 200, "{}", from_primary.body);
    assert_eq!(from_primary.body["evidence"], from_replica.body["evidence"]);
    assert_eq!(from_primary.body["text"], from_replica.body["text"]);
    assert!(from_primary.body["dropped"].as_array().unwrap().is_empty(), "{}", from_primary.body);
    let text = metrics(&base).await;
    assert_eq!(metric(&text, "planner_replica_up{pool=\"replica\"}"), Some(0.0), "{text}");
    assert!(metric(&text, "planner_replica_fallbacks_total{pool=\"replica\"}").unwrap() >= 1.0);
    let (status, body) = readyz(&base).await;
    assert_eq!((status, &body["replica"]), (200, &json!("down")), "{body}");
    // Still answering from the primary alone.
    let again = post(&http, &base, "/v1/answer", &keys.bench, &ask(MARKET)).await.unwrap();
    assert_eq!(again.body["evidence"], from_replica.body["evidence"]);
    owner.close().await;
}
