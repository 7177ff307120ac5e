//! An ephemeral cluster from the local server binaries: starts, answers, stops, leaves nothing.

use planner_devdb::{Cluster, ClusterConfig, find_bin_dir};
use sqlx::Connection;

fn bin_dir() -> std::path::PathBuf {
    find_bin_dir(std::env::var("PATH").ok().as_deref(), std::path::Path::new("/usr/lib/postgresql"))
        .expect(
            "these tests need PostgreSQL server binaries (Debian: apt-get install postgresql-15)",
        )
}

#[tokio::test]
async fn an_ephemeral_cluster_answers_and_is_removed_when_stopped() {
    let config = ClusterConfig { bin_dir: bin_dir(), dir: None, fast_unsafe: true };
    let mut cluster =
        tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap();
    let dir = cluster.dir().to_path_buf();
    let mut conn = sqlx::PgConnection::connect(&cluster.url("postgres")).await.unwrap();
    let (answer,): (i32,) = sqlx::query_as("SELECT 40 + 2").fetch_one(&mut conn).await.unwrap();
    assert_eq!(answer, 42);
    let (fsync,): (String,) = sqlx::query_as("SHOW fsync").fetch_one(&mut conn).await.unwrap();
    assert_eq!(fsync, "off");
    conn.close().await.unwrap();
    let port = cluster.port();
    tokio::task::spawn_blocking(move || {
        cluster.stop().unwrap();
        drop(cluster);
    })
    .await
    .unwrap();
    assert!(!dir.exists(), "{} is left behind", dir.display());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server still listens");
}

#[tokio::test]
async fn a_persistent_cluster_keeps_its_data_across_restarts() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("pg");
    let config = ClusterConfig { bin_dir: bin_dir(), dir: Some(dir.clone()), fast_unsafe: true };
    let first = config.clone();
    let cluster =
        tokio::task::spawn_blocking(move || Cluster::start(&first)).await.unwrap().unwrap();
    let mut conn = sqlx::PgConnection::connect(&cluster.url("postgres")).await.unwrap();
    sqlx::query("CREATE TABLE kept (n int)").execute(&mut conn).await.unwrap();
    sqlx::query("INSERT INTO kept VALUES (7)").execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
    assert!(dir.join("data/PG_VERSION").exists());

    let cluster =
        tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap();
    let mut conn = sqlx::PgConnection::connect(&cluster.url("postgres")).await.unwrap();
    let (n,): (i32,) = sqlx::query_as("SELECT n FROM kept").fetch_one(&mut conn).await.unwrap();
    assert_eq!(n, 7);
    conn.close().await.unwrap();
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
