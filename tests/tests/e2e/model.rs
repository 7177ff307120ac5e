//! An OpenAI-compatible model server the test controls, served in process on loopback: it
//! answers `POST /v1/chat/completions` well, slowly, or with garbage, and tells the test when a
//! request arrives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

/// How the fake model behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// Replies `{"intents": [...]}` naming the compound question's two intents.
    Good = 0,
    /// Replies well, after `delay`.
    Slow = 1,
    /// Replies 200 with a body that is not a chat completion.
    Garbage = 2,
}

#[derive(Debug)]
struct Shared {
    mode: AtomicU8,
    delay: Duration,
    calls: AtomicUsize,
    arrived: tokio::sync::mpsc::UnboundedSender<()>,
}

/// The running fake; stops with the test's runtime.
#[derive(Debug)]
pub struct FakeModel {
    shared: Arc<Shared>,
    /// The API base to give `planner serve --model-url`.
    pub base_url: String,
    arrived: tokio::sync::mpsc::UnboundedReceiver<()>,
}

impl FakeModel {
    pub async fn start(mode: Mode, delay: Duration) -> FakeModel {
        let (arrived, receiver) = tokio::sync::mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            mode: AtomicU8::new(mode as u8),
            delay,
            calls: AtomicUsize::new(0),
            arrived,
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeModel { shared, base_url: format!("http://{addr}/v1"), arrived: receiver }
    }

    pub fn set(&self, mode: Mode) {
        self.shared.mode.store(mode as u8, Ordering::SeqCst);
    }

    /// Chat-completion requests received so far.
    pub fn calls(&self) -> usize {
        self.shared.calls.load(Ordering::SeqCst)
    }

    /// Waits until a request has arrived.
    pub async fn arrived(&mut self) {
        self.arrived.recv().await.unwrap();
    }
}

async fn complete(State(shared): State<Arc<Shared>>, body: String) -> String {
    shared.calls.fetch_add(1, Ordering::SeqCst);
    let _ = shared.arrived.send(());
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let mode = shared.mode.load(Ordering::SeqCst);
    if mode == Mode::Garbage as u8 {
        return "<html>502 upstream said no</html> {\"choices\": ".to_owned();
    }
    if mode == Mode::Slow as u8 {
        tokio::time::sleep(shared.delay).await;
    }
    let content = json!({ "intents": ["top_incumbents", "bench_compartment_counts"] });
    let choices = request["n"].as_u64().unwrap_or(1).max(1);
    let choices: Vec<Value> = (0..choices)
        .map(|index| {
            json!({
                "index": index,
                "message": { "role": "assistant", "content": content.to_string() },
                "finish_reason": "stop",
            })
        })
        .collect();
    json!({ "id": "fake", "object": "chat.completion", "choices": choices }).to_string()
}
