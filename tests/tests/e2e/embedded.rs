//! The embedded default database shared by several commands at once: `planner serve`,
//! `planner keys create` and `planner ask` started together on one data directory (no
//! DATABASE_URL) all answer, the server's cluster keeps running after the other two end, and the
//! cluster is started once and stopped once, by the last process to leave.

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::harness::{COMPOUND, client, free_port, planner_bin, post};

/// `planner ARGS` on the embedded database in `data`, to its end.
async fn planner(data: &Path, args: &[&str]) -> Output {
    tokio::process::Command::new(planner_bin())
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("PLANNER_OWNER_URL")
        .env("PLANNER_DATA_DIR", data)
        .env("PLANNER_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap()
}

/// How many lines of the cluster's server log hold `needle`.
fn log_lines(data: &Path, needle: &str) -> usize {
    let log = std::fs::read_to_string(data.join("pg/postgres.log")).unwrap_or_default();
    log.lines().filter(|line| line.contains(needle)).count()
}

async fn ready(http: &reqwest::Client, base: &str) -> bool {
    http.get(format!("{base}/readyz")).send().await.is_ok_and(|it| it.status() == 200)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_keys_create_and_ask_share_one_embedded_cluster_that_the_last_one_stops() {
    planner_devdb::find_bin_dir(
        std::env::var("PATH").ok().as_deref(),
        "/usr/lib/postgresql".as_ref(),
    )
    .expect("PostgreSQL server binaries (Debian: postgresql-15) run the embedded database");
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut serve = tokio::process::Command::new(planner_bin())
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .env_remove("DATABASE_URL")
        .env_remove("PLANNER_OWNER_URL")
        .env("PLANNER_DATA_DIR", data.path())
        .env("PLANNER_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // All three at once on a directory that holds nothing yet: one creates the cluster and loads
    // the demo data, the others wait for it and use it.
    let tenant = "Northwind Cleared Staffing";
    let create = ["keys", "create", "--tenant", tenant, "--scope", "bench"];
    let ask = ["ask", "--json", COMPOUND];
    let (keys, asked) = tokio::join!(planner(data.path(), &create), planner(data.path(), &ask));
    assert!(keys.status.success(), "{keys:?}");
    assert!(asked.status.success(), "{asked:?}");
    let answer: Value = serde_json::from_slice(&asked.stdout).unwrap();
    assert_eq!(answer["route"], "plan", "{answer}");
    let keys_out = String::from_utf8(keys.stdout).unwrap();
    let key = keys_out
        .lines()
        .find_map(|line| line.strip_prefix("key (shown only now; store it):"))
        .unwrap_or_else(|| panic!("no key in {keys_out}"))
        .trim()
        .to_owned();

    // The server answers after both ended: they let go of the cluster without stopping it.
    let http = client();
    let started = Instant::now();
    while !ready(&http, &base).await {
        assert!(started.elapsed() < Duration::from_secs(240), "the server never became ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let question = json!({ "question": COMPOUND });
    let reply = post(&http, &base, "/v1/answer", &key, &question).await.unwrap();
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    assert_eq!(reply.body["status"], "answered", "{:?}", reply.body);
    // Another command while the server runs, then the server again.
    let again = planner(data.path(), &["ask", "--json", COMPOUND]).await;
    assert!(again.status.success(), "{again:?}");
    assert!(ready(&http, &base).await, "the server lost its database after a second ask");
    let reply = post(&http, &base, "/v1/answer", &key, &question).await.unwrap();
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let pid = data.path().join("pg/data/postmaster.pid");
    assert!(pid.exists(), "the cluster stopped while the server uses it");

    // The server leaves last and stops the cluster: started once, stopped once.
    let id = serve.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &id]).status().unwrap().success());
    let status = tokio::time::timeout(Duration::from_secs(60), serve.wait()).await;
    assert!(status.expect("the server stopped in time").unwrap().success());
    assert!(!pid.exists(), "the last user left the cluster running");
    assert_eq!(log_lines(data.path(), "database system is ready to accept connections"), 1);
    assert_eq!(log_lines(data.path(), "received fast shutdown request"), 1);
}
