//! `/metrics` counts model proposer failures by kind: the OpenAI-compatible proposer is pointed
//! at a closed port (unavailable), at a server that accepts and never replies (timeout), and at
//! one that answers 200 with prose (garbage). Each answer still comes from the lexical proposer,
//! is marked, and says how the proposer failed.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use planner_engine::{Engine, EngineConfig};
use planner_infer::{Catalog, ModelClient, ModelConfig, ModelProposer};
use planner_server::{AppState, ServerConfig};
use serde_json::{Value, json};
use sqlx::PgPool;
use tower::ServiceExt as _;

use crate::server::{COMPOUND, seeded};

/// The server with the model proposer at `base_url` (no retries, a short proposer timeout).
fn server_with_model(pool: &PgPool, base_url: &str) -> Router {
    let registry = planner_registry::reference::registry().unwrap();
    let mut model = ModelConfig::with_defaults(base_url, "local");
    model.max_retries = 0;
    model.timeout = Duration::from_secs(5);
    let client = ModelClient::new(model, None).unwrap();
    let proposer = ModelProposer::new(client, &Catalog::from_registry(&registry));
    let mut config = EngineConfig::new(registry);
    config.proposer = Some(Arc::new(proposer));
    config.samples = 1;
    config.proposer_timeout = Duration::from_millis(500);
    let engine = Engine::new(config, pool.clone());
    planner_server::app(AppState::new(engine, pool.clone(), ServerConfig::default()))
}

async fn send(app: &Router, request: Request<Body>) -> (StatusCode, String) {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

/// Asks the compound question; the answer's JSON.
async fn ask(app: &Router, key: &str) -> Value {
    let request = Request::post("/v1/answer")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({ "question": COMPOUND }).to_string()))
        .unwrap();
    let (status, text) = send(app, request).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn metrics(app: &Router) -> String {
    send(app, Request::get("/metrics").body(Body::empty()).unwrap()).await.1
}

/// A model server answering every request 200 with a reply that is not the JSON asked for.
async fn babbling_model() -> String {
    let reply = json!({
        "choices": [{
            "index": 0,
            "finish_reason": "stop",
            "message": { "role": "assistant", "content": "The tool should handle the following:" }
        }]
    });
    let router = Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move || {
            let reply = reply.clone();
            async move { axum::Json(reply) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/v1")
}

#[sqlx::test]
async fn proposer_failures_are_counted_by_kind(pool: PgPool) {
    let keys = seeded(&pool).await;

    // Nothing listens on a port just released: connection refused.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    // A server that accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}/v1", silent.local_addr().unwrap());
    let babbling_url = babbling_model().await;

    for (url, kind) in
        [(closed_url, "unavailable"), (silent_url, "timeout"), (babbling_url, "garbage")]
    {
        let app = server_with_model(&pool, &url);
        let before = metrics(&app).await;
        assert!(before.contains(&format!("planner_proposer_errors_total{{kind=\"{kind}\"}} 0")));
        for _ in 0..2 {
            let answer = ask(&app, &keys.bench).await;
            assert_eq!(answer["status"], "answered", "{answer}");
            assert_eq!(answer["proposer_fallback"], true, "{answer}");
            assert_eq!(answer["proposer_error"], kind, "{answer}");
            assert_eq!(answer["evidence"].as_array().unwrap().len(), 2, "{answer}");
        }
        let after = metrics(&app).await;
        for other in ["timeout", "unavailable", "garbage", "config"] {
            let count = if other == kind { 2 } else { 0 };
            let line = format!("planner_proposer_errors_total{{kind=\"{other}\"}} {count}");
            assert!(after.lines().any(|it| it == line), "{line} missing from:\n{after}");
        }
    }
    drop(silent);
}
