//! The database failing under load, through Docker: the real server (`planner serve`) answers a
//! few concurrent clients while its PostgreSQL container is killed, paused and restarted.
//! Requests fail fast with 503 inside the request timeout, none hangs, the server recovers by
//! itself within 5 s of the database's return, and the answers given according to the audit log
//! (`audit.answers_given`: the answer log less the withdrawn answers) are exactly the answers
//! returned, once the server has written its pending withdrawals. Fails, saying why, without a
//! Docker engine or the `planner-postgres:15` image: `cargo xtask test` builds the image, and
//! lists this test as not run where no engine answers.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::PgPool;

use crate::harness::{self, ANSWERED, PG_IMAGE, PgContainer, Server};

/// The server's request timeout in these tests.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the database stays away.
const OUTAGE: Duration = Duration::from_secs(3);
/// Recovery must come within this of the database's return.
const RECOVERY: Duration = Duration::from_secs(5);
const CLIENTS: usize = 4;
/// The server must have written its audit withdrawals within this of the load's end.
const WITHDRAWALS: Duration = Duration::from_secs(30);

/// One request as a client saw it, times from the start of the run.
#[derive(Debug, Clone)]
struct Seen {
    sent: Duration,
    done: Duration,
    /// 0 when no HTTP response came (transport error or the client's own timeout).
    status: u16,
    answered: bool,
    detail: String,
    retry_after: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Kill,
    Pause,
    Restart,
}

/// What one fault measured.
#[derive(Debug)]
struct Measure {
    fault: Fault,
    /// From the fault to the first 503 a client received.
    to_first_503: Option<Duration>,
    /// From the database accepting connections again to the first 200 of a request sent after.
    to_recovery: Duration,
    /// Requests that overlapped the outage, and how many of them were answered with 503.
    during: usize,
    during_503: usize,
}

fn load(
    base: String,
    key: String,
    started: Instant,
    stop: Arc<Mutex<bool>>,
    seen: Arc<Mutex<Vec<Seen>>>,
) -> Vec<tokio::task::JoinHandle<()>> {
    // The client's own limit is past the server's: a request still open then is a hang.
    let http = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT + Duration::from_secs(3))
        .build()
        .unwrap();
    (0..CLIENTS)
        .map(|client| {
            let (http, base, key, stop, seen) =
                (http.clone(), base.clone(), key.clone(), Arc::clone(&stop), Arc::clone(&seen));
            tokio::spawn(async move {
                let mut turn = client;
                while !*stop.lock().unwrap() {
                    let question = ANSWERED[turn % ANSWERED.len()];
                    turn += 1;
                    let sent = started.elapsed();
                    let body = json!({ "question": question });
                    let reply = harness::post(&http, &base, "/v1/answer", &key, &body).await;
                    let done = started.elapsed();
                    let (status, answered, detail, retry_after) = match reply {
                        Ok(reply) => (
                            reply.status,
                            reply.status == 200 && reply.body["status"] == "answered",
                            reply.body["detail"].as_str().unwrap_or_default().to_owned(),
                            reply.retry_after,
                        ),
                        Err(err) => (0, false, err.to_string(), None),
                    };
                    let it = Seen { sent, done, status, answered, detail, retry_after };
                    seen.lock().unwrap().push(it);
                    if status != 200 {
                        // Honour Retry-After's spirit without waiting a whole second.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_killed_paused_and_restarted_under_load() {
    let test = "the_database_killed_paused_and_restarted_under_load";
    if let Err(reason) = harness::docker_with(PG_IMAGE) {
        harness::cannot_run(test, &reason);
    }
    let pg = PgContainer::start(None).await;
    let url = harness::create_database(&pg.url("postgres"), "planner").await;
    let pool = PgPool::connect(&url).await.unwrap();
    let keys = harness::seed(&pool).await;
    pool.close().await;
    let timeout = REQUEST_TIMEOUT.as_secs().to_string();
    let server = Server::start(&url, &["--request-timeout", &timeout, "--key-rate", "0"]).await;

    let started = Instant::now();
    let stop = Arc::new(Mutex::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let clients = load(
        server.base.clone(),
        keys.bench.clone(),
        started,
        Arc::clone(&stop),
        Arc::clone(&seen),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut measures = Vec::new();
    for fault in [Fault::Kill, Fault::Pause, Fault::Restart] {
        let at = started.elapsed();
        match fault {
            Fault::Kill => {
                pg.docker("kill");
                tokio::time::sleep(OUTAGE).await;
                pg.docker("start");
            }
            Fault::Pause => {
                // Longer than the request timeout: the requests held by the frozen database
                // must fail with 503 inside it.
                pg.docker("pause");
                tokio::time::sleep(REQUEST_TIMEOUT + OUTAGE).await;
                pg.docker("unpause");
            }
            // PostgreSQL takes SIGTERM as a smart shutdown (sessions keep running); Docker
            // kills it after two seconds.
            Fault::Restart => {
                harness::docker(&["restart", "--time", "2", &pg.name]);
            }
        }
        pg.wait_ready(Duration::from_secs(60)).await;
        let back = started.elapsed();
        // Wait for an answer to a request sent after the database came back.
        let recovered = loop {
            let first = seen
                .lock()
                .unwrap()
                .iter()
                .filter(|it| it.sent >= back && it.status == 200)
                .map(|it| it.done)
                .min();
            if let Some(done) = first {
                break done - back;
            }
            assert!(
                started.elapsed() - back < RECOVERY * 3,
                "{fault:?}: no answer {:?} after the database returned",
                started.elapsed() - back
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let seen_now = seen.lock().unwrap().clone();
        let during: Vec<&Seen> =
            seen_now.iter().filter(|it| it.done > at && it.sent < back).collect();
        measures.push(Measure {
            fault,
            to_first_503: seen_now
                .iter()
                .filter(|it| it.done > at && it.status == 503)
                .map(|it| it.done - at)
                .min(),
            to_recovery: recovered,
            during: during.len(),
            during_503: during.iter().filter(|it| it.status == 503).count(),
        });
        // Steady state before the next fault.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    *stop.lock().unwrap() = true;
    for client in clients {
        client.await.unwrap();
    }

    // Every request has its response, so every run has ended: what is left is the withdrawals
    // the server queued while the database was away.
    let settled = harness::wait_for_withdrawals(&server.base, WITHDRAWALS).await;

    let seen = seen.lock().unwrap().clone();
    let answered = seen.iter().filter(|it| it.answered).count();
    let pool = PgPool::connect(&url).await.unwrap();
    let audit = harness::audit_rows(&pool).await;
    let (logged, withdrawn): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM audit.answer_log), (SELECT count(*) FROM audit.withdrawn)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let slowest = seen.iter().map(|it| it.done - it.sent).max().unwrap_or_default();
    eprintln!(
        "faults: {} requests, {answered} answered, {audit} answers given in the audit log \
         ({logged} rows, {withdrawn} withdrawn ids, withdrawals written {settled:?} after the \
         load stopped), slowest {slowest:?}",
        seen.len()
    );
    for Measure { fault, to_first_503, to_recovery, during, during_503 } in &measures {
        eprintln!(
            "faults: {fault:?}: first 503 after {to_first_503:?}, answered again {to_recovery:?} \
             after the database returned, {during_503} of {during} requests overlapping the \
             outage answered 503"
        );
    }

    // Nothing hangs: every request got its response inside the request timeout.
    for it in &seen {
        assert!(it.status != 0, "no response: {it:?}");
        assert!(it.done - it.sent < REQUEST_TIMEOUT + Duration::from_millis(500), "slow: {it:?}");
    }
    // Failures are 503 with a body that says why.
    for it in seen.iter().filter(|it| it.status != 200) {
        assert_eq!(it.status, 503, "{it:?}");
        assert_eq!(it.retry_after.as_deref(), Some("1"), "{it:?}");
        assert!(
            it.detail.contains("database is unavailable") || it.detail.contains("withheld"),
            "{it:?}"
        );
    }
    for measure in &measures {
        assert!(measure.to_recovery <= RECOVERY, "{measure:?}");
        assert!(measure.during_503 > 0, "the outage went unnoticed: {measure:?}");
    }
    // None lost, none for an answer never given.
    let answered = i64::try_from(answered).unwrap();
    assert_eq!(audit, answered, "answers given in the audit log against answers returned");
    drop(server);
}
