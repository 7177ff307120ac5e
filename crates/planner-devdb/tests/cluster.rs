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
    let config = ClusterConfig { bin_dir: bin_dir(), dir: None, fast_unsafe: true, tls: None };
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
    let config =
        ClusterConfig { bin_dir: bin_dir(), dir: Some(dir.clone()), fast_unsafe: true, tls: None };
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

/// The embedded default's promise: no connection without the password, and nothing for other OS
/// users to read (the socket, the data and the password live in a 0700 directory).
#[tokio::test]
async fn a_cluster_accepts_no_connection_without_its_password() {
    use std::os::unix::fs::PermissionsExt;

    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("pg");
    let config =
        ClusterConfig { bin_dir: bin_dir(), dir: Some(dir.clone()), fast_unsafe: true, tls: None };
    let cluster =
        tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap();
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode();
    assert_eq!(mode(&dir) & 0o777, 0o700);
    assert_eq!(mode(&dir.join("superuser.password")) & 0o777, 0o600);
    assert!(cluster.password().len() >= 32);

    // The password works; no password, or a wrong one, does not.
    let mut conn = sqlx::PgConnection::connect(&cluster.url("postgres")).await.unwrap();
    let (hba,): (String,) =
        sqlx::query_as("SELECT string_agg(auth_method, ',') FROM pg_hba_file_rules")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert!(!hba.contains("trust"), "{hba}");
    conn.close().await.unwrap();
    let port = cluster.port();
    for url in [
        format!("postgres://postgres@127.0.0.1:{port}/postgres"),
        format!("postgres://postgres:wrong@127.0.0.1:{port}/postgres"),
    ] {
        let err = sqlx::PgConnection::connect(&url).await.unwrap_err();
        let code = err.as_database_error().and_then(|it| it.code()).map(|it| it.into_owned());
        assert_eq!(code.as_deref(), Some("28P01"), "{url}: {err}");
    }
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}

/// Users of one persistent directory share its server: a second start attaches to the running
/// server (same port, no restart), the first user's stop leaves it running for the second, and
/// the last user's stop stops it; a new first user starts it again.
#[tokio::test]
async fn a_persistent_cluster_is_shared_and_stopped_by_its_last_user() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("pg");
    let config =
        ClusterConfig { bin_dir: bin_dir(), dir: Some(dir.clone()), fast_unsafe: true, tls: None };
    let start = |config: ClusterConfig| async move {
        tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap()
    };
    let answers = |url: String| async move {
        let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
        let (n,): (i32,) = sqlx::query_as("SELECT 1").fetch_one(&mut conn).await.unwrap();
        conn.close().await.unwrap();
        n == 1
    };
    let starts = || {
        let log = std::fs::read_to_string(dir.join("postgres.log")).unwrap_or_default();
        log.matches("database system is ready to accept connections").count()
    };
    let pid = dir.join("data/postmaster.pid");

    let mut first = start(config.clone()).await;
    let mut second = start(config.clone()).await;
    assert_eq!(first.port(), second.port());
    assert_eq!(starts(), 1);
    let url = second.url("postgres");
    let mut first = tokio::task::spawn_blocking(move || {
        first.stop().unwrap();
        first
    })
    .await
    .unwrap();
    assert!(pid.exists(), "the first user stopped the server the second uses");
    assert!(answers(url.clone()).await);
    // Stopping again changes nothing; the first user is gone.
    first = tokio::task::spawn_blocking(move || {
        first.stop().unwrap();
        first
    })
    .await
    .unwrap();
    assert!(answers(url).await);
    tokio::task::spawn_blocking(move || {
        second.stop().unwrap();
        drop((first, second));
    })
    .await
    .unwrap();
    assert!(!pid.exists(), "the last user left the server running");

    // Later users start it again, once, and the last stops it.
    let third = start(config.clone()).await;
    let fourth = start(config).await;
    assert_eq!(starts(), 2);
    assert!(answers(fourth.url("postgres")).await);
    tokio::task::spawn_blocking(move || drop(third)).await.unwrap();
    assert!(pid.exists());
    tokio::task::spawn_blocking(move || drop(fourth)).await.unwrap();
    assert!(!pid.exists());
}
