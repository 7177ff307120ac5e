//! The real server binary (`planner serve` in child processes) on the test's database: a
//! clarification asked on one process is resumed on another sharing the database; SIGTERM lets
//! the requests in flight finish; a model server that is down, slow or replies garbage leaves
//! the answers to the deterministic path, marked `proposer_fallback`.

use std::time::Duration;

use serde_json::json;
use sqlx::PgPool;

use crate::harness::{self, CLARIFY, COMPOUND, Server};
use crate::model::{FakeModel, Mode};

#[sqlx::test]
async fn a_thread_asked_on_one_process_is_resumed_on_another(pool: PgPool) {
    let keys = harness::seed(&pool).await;
    let url = harness::url_of(&pool).await;
    let (first, second) = tokio::join!(Server::start(&url, &[]), Server::start(&url, &[]));
    let http = harness::client();

    let asked = harness::post(
        &http,
        &first.base,
        "/v1/answer",
        &keys.bench,
        &json!({
            "question": CLARIFY
        }),
    )
    .await
    .unwrap();
    assert_eq!(asked.status, 200, "{}", asked.body);
    assert_eq!(asked.body["status"], "needs_input", "{}", asked.body);
    let thread = asked.body["thread_id"].as_str().unwrap().to_owned();
    let uri = format!("/v1/threads/{thread}/resume");
    let answer = json!({ "answer": "under NAICS 541512" });

    // Another tenant does not see the thread on the second process.
    let foreign = harness::post(&http, &second.base, &uri, &keys.other_tenant, &answer).await;
    assert_eq!(foreign.unwrap().status, 404);
    // Its owner resumes it there.
    let resumed = harness::post(&http, &second.base, &uri, &keys.bench, &answer).await.unwrap();
    assert_eq!(resumed.status, 200, "{}", resumed.body);
    assert_eq!(resumed.body["status"], "answered", "{}", resumed.body);
    assert_eq!(resumed.body["plan"]["nodes"][0]["intent"], "top_incumbents");
    // The first process sees it finished.
    let again = harness::post(&http, &first.base, &uri, &keys.bench, &answer).await.unwrap();
    assert_eq!(again.status, 404, "{}", again.body);
    assert_eq!(harness::audit_rows(&pool).await, 1);
}

#[sqlx::test]
async fn sigterm_lets_the_requests_in_flight_finish(pool: PgPool) {
    let keys = harness::seed(&pool).await;
    let url = harness::url_of(&pool).await;
    // A slow model keeps the requests in flight for a second, past the signal.
    let mut model = FakeModel::start(Mode::Slow, Duration::from_secs(1)).await;
    let mut server = Server::start(&url, &["--model-url", &model.base_url]).await;
    let http = harness::client();
    let requests: Vec<_> = (0..3)
        .map(|_| {
            let (http, base, key) = (http.clone(), server.base.clone(), keys.bench.clone());
            tokio::spawn(async move {
                let body = json!({ "question": COMPOUND });
                harness::post(&http, &base, "/v1/answer", &key, &body).await
            })
        })
        .collect();
    // Each request asks the model for its three samples: once all nine calls have reached the
    // model, the three requests are in flight.
    for _ in 0..9 {
        model.arrived().await;
    }
    server.terminate();
    for request in requests {
        let reply = request.await.unwrap().expect("the in-flight request got its response");
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.body["status"], "answered", "{}", reply.body);
        assert_eq!(reply.body["proposer_fallback"], false, "{}", reply.body);
    }
    assert!(server.wait(Duration::from_secs(20)).await, "the server exited with an error");
    let refused = http.get(format!("{}/healthz", server.base)).send().await;
    assert!(refused.is_err(), "the stopped server still accepts connections");
    assert_eq!(harness::audit_rows(&pool).await, 3);
}

#[sqlx::test]
async fn a_model_server_down_slow_or_replying_garbage_falls_back_marked(pool: PgPool) {
    let keys = harness::seed(&pool).await;
    let url = harness::url_of(&pool).await;
    let http = harness::client();
    let model = FakeModel::start(Mode::Good, Duration::from_secs(30)).await;
    let dead = format!("http://127.0.0.1:{}/v1", harness::free_port());
    let slow_limit = ["--model-timeout", "1"];
    let alive: Vec<&str> = ["--model-url", model.base_url.as_str()].into();
    let live = Server::start(&url, &[alive.as_slice(), &slow_limit].concat()).await;
    let down = Server::start(&url, &["--model-url", &dead, "--model-timeout", "1"]).await;

    let ask = |base: String| {
        let (http, key) = (http.clone(), keys.bench.clone());
        async move {
            let reply = harness::post(
                &http,
                &base,
                "/v1/answer",
                &key,
                &json!({
                    "question": COMPOUND
                }),
            )
            .await
            .unwrap();
            assert_eq!(reply.status, 200, "{}", reply.body);
            assert_eq!(reply.body["status"], "answered", "{}", reply.body);
            let intents: Vec<&str> = reply.body["plan"]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|it| it["intent"].as_str().unwrap())
                .collect();
            assert_eq!(intents, ["top_incumbents", "bench_compartment_counts"], "{}", reply.body);
            reply.body["proposer_fallback"].as_bool().unwrap()
        }
    };
    // The model answering well is used, not the fallback.
    assert!(!ask(live.base.clone()).await);
    let good_calls = model.calls();
    assert!(good_calls > 0);
    // Down: nothing listens.
    assert!(ask(down.base.clone()).await);
    // Garbage: a 200 that is no chat completion.
    model.set(Mode::Garbage);
    assert!(ask(live.base.clone()).await);
    // Slow: past the one-second model timeout the deterministic path answers.
    model.set(Mode::Slow);
    let started = std::time::Instant::now();
    assert!(ask(live.base.clone()).await);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(model.calls() > good_calls);
    // Every answer given has its audit row.
    assert_eq!(harness::audit_rows(&pool).await, 4);
}
