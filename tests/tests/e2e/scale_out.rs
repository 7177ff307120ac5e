//! Scale-out: PostgreSQL and two `planner` replicas (containers from the `planner:latest` image,
//! `cargo xtask image`) on a private Docker network. Clients send load through both; one replica
//! is killed mid-run: clients retrying on the other lose no answer, and a thread interrupted
//! (needs_input) on the killed replica is resumed on the survivor. Fails, saying why, without a
//! Docker engine, without the images, or with an image built from another binary than this
//! workspace's: `cargo xtask test` builds both images, and lists this test as not run where no
//! engine answers.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::PgPool;

use crate::harness::{self, ANSWERED, CLARIFY, PG_IMAGE, PgContainer};

const IMAGE: &str = "planner:latest";
const CLIENTS: usize = 4;

/// A Docker network or container, removed when dropped.
#[derive(Debug)]
struct Removed {
    verb: &'static [&'static str],
    name: String,
}

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(self.verb)
            .arg(&self.name)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Why the image cannot serve this test, if it cannot.
fn image_problem() -> Option<String> {
    if let Err(reason) = harness::docker_with(PG_IMAGE).and(harness::docker_with(IMAGE)) {
        return Some(format!("{reason} (cargo xtask pg-image; cargo xtask image --profile dev)"));
    }
    let format = "{{ index .Config.Labels \"planner.binary.sha256\" }}";
    let label = harness::docker(&["image", "inspect", "--format", format, IMAGE]);
    let binary = std::fs::read(harness::planner_bin()).unwrap();
    let sum: String = planner_crypto::sha256(&binary).iter().map(|b| format!("{b:02x}")).collect();
    (label != sum).then(|| {
        format!(
            "{IMAGE} holds another binary than {} (cargo xtask image --profile dev)",
            harness::planner_bin().display()
        )
    })
}

/// A replica on `network`, published on a loopback port; its container and base URL.
fn replica(network: &str, index: usize) -> (Removed, String) {
    let name = harness::unique(&format!("planner-test-replica{index}"));
    let port = harness::free_port();
    let publish = format!("127.0.0.1:{port}:8080");
    harness::docker(&[
        "run",
        "-d",
        "--name",
        &name,
        "--label",
        "org.testcontainers.managed-by=testcontainers",
        "--network",
        network,
        "-p",
        &publish,
        "-e",
        "DATABASE_URL=postgres://postgres@postgres:5432/planner",
        "-e",
        &format!("PLANNER_RUNTIME_PASSWORD={}", harness::runtime_password()),
        "-e",
        "PLANNER_KEY_RATE=0",
        IMAGE,
        "serve",
    ]);
    (Removed { verb: &["rm", "-f"], name }, format!("http://127.0.0.1:{port}"))
}

async fn wait_ready(http: &reqwest::Client, base: &str, container: &str) {
    let started = Instant::now();
    loop {
        if let Ok(response) = http.get(format!("{base}/readyz")).send().await
            && response.status() == 200
        {
            return;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let logs = Command::new("docker").args(["logs", container]).output().unwrap();
            panic!("{container} not ready: {}", String::from_utf8_lossy(&logs.stderr));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One question as a client saw it: answered or not, and the attempts it took.
#[derive(Debug, Clone)]
struct Asked {
    answered: bool,
    attempts: usize,
    last: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_one_killed_mid_run_lose_no_answer() {
    let test = "two_replicas_one_killed_mid_run_lose_no_answer";
    if let Some(reason) = image_problem() {
        harness::cannot_run(test, &reason);
    }
    let network = harness::unique("planner-test-net");
    harness::docker(&[
        "network",
        "create",
        "--label",
        "org.testcontainers.managed-by=testcontainers",
        &network,
    ]);
    let _network = Removed { verb: &["network", "rm"], name: network.clone() };
    let pg = PgContainer::start(Some(&network)).await;
    let url = harness::create_database(&pg.url("postgres"), "planner").await;
    let pool = PgPool::connect(&url).await.unwrap();
    let keys = harness::seed(&pool).await;
    let (first, first_base) = replica(&network, 1);
    let (second, second_base) = replica(&network, 2);
    let http = harness::client();
    wait_ready(&http, &first_base, &first.name).await;
    wait_ready(&http, &second_base, &second.name).await;

    // A thread interrupted on the first replica.
    let asked = harness::post(
        &http,
        &first_base,
        "/v1/answer",
        &keys.bench,
        &json!({
            "question": CLARIFY
        }),
    )
    .await
    .unwrap();
    assert_eq!(asked.body["status"], "needs_input", "{}", asked.body);
    let thread = asked.body["thread_id"].as_str().unwrap().to_owned();

    // Load through both replicas; a client whose replica fails retries on the other.
    let bases = [first_base.clone(), second_base.clone()];
    let stop = Arc::new(AtomicBool::new(false));
    let asked_log = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (bases, key, stop, log) =
                (bases.clone(), keys.bench.clone(), Arc::clone(&stop), Arc::clone(&asked_log));
            let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
            tokio::spawn(async move {
                let mut turn = client;
                while !stop.load(Ordering::SeqCst) {
                    let body = json!({ "question": ANSWERED[turn % ANSWERED.len()] });
                    let mut asked = Asked { answered: false, attempts: 0, last: String::new() };
                    // The client's replica first, then the other, alternating, for 20 s at most.
                    let deadline = Instant::now() + Duration::from_secs(20);
                    while Instant::now() < deadline {
                        let base = &bases[(client + asked.attempts) % 2];
                        asked.attempts += 1;
                        match harness::post(&http, base, "/v1/answer", &key, &body).await {
                            Ok(reply) if reply.status == 200 => {
                                asked.answered = reply.body["status"] == "answered";
                                asked.last = reply.body["status"].to_string();
                                break;
                            }
                            Ok(reply) => asked.last = format!("{} {}", reply.status, reply.body),
                            Err(err) => asked.last = err.to_string(),
                        }
                    }
                    log.lock().unwrap().push(asked);
                    turn += 1;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(3)).await;
    harness::docker(&["kill", &first.name]);
    let killed_at = started.elapsed();
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::SeqCst);
    for client in clients {
        client.await.unwrap();
    }

    // The thread interrupted on the killed replica resumes on the survivor.
    let uri = format!("/v1/threads/{thread}/resume");
    let resumed =
        harness::post(&http, &second_base, &uri, &keys.bench, &json!({ "answer": "NAICS 541512" }))
            .await
            .unwrap();
    assert_eq!(resumed.status, 200, "{}", resumed.body);
    assert_eq!(resumed.body["status"], "answered", "{}", resumed.body);

    let asked = asked_log.lock().unwrap().clone();
    let answered = asked.iter().filter(|it| it.answered).count();
    let retried = asked.iter().filter(|it| it.attempts > 1).count();
    let audit = harness::audit_rows(&pool).await;
    eprintln!(
        "scale-out: {} questions, {answered} answered, {retried} retried on the other replica, \
         killed at {killed_at:?}, {audit} audit rows (with the resumed thread)",
        asked.len()
    );
    // No answer lost: every question a client asked was answered, on one replica or the other.
    assert!(asked.len() > CLIENTS * 2, "too little load: {}", asked.len());
    for it in &asked {
        assert!(it.answered, "{it:?}");
    }
    assert!(retried > 0, "no client met the killed replica");
    // Every answer returned has its audit row. A replica withdraws the audit row of an answer it
    // did not return, but a killed replica withdraws nothing: a request killed with its replica
    // after its audit row was written and before its response left is the only way to an extra
    // row in `audit.answers_given`.
    let returned = i64::try_from(answered + 1).unwrap();
    assert!(audit >= returned, "{audit} audit rows for {returned} answers");
    assert!(audit <= returned + i64::try_from(CLIENTS).unwrap(), "{audit} for {returned}");
}
