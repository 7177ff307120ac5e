//! The model path against an in-process OpenAI-compatible server: a valid decision, invalid
//! JSON, a timeout and a target outside the profile, alone and through the whole graph.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use planner_acquire::{
    Acquirer, Action, Corpus, Ctx, Decider, Progress, RunStatus, decision_schema,
};
use planner_graph::{Durability, MemoryCheckpointer};
use planner_infer::{ModelClient, ModelConfig};
use serde_json::{Value as Json, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

use crate::fixtures::{documents, profile, ready};

/// A one-reply-fits-all chat-completions server on 127.0.0.1; keeps the request bodies.
struct Server {
    base_url: String,
    bodies: Arc<Mutex<Vec<Json>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn server(content: &'static str, delay: Duration) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&bodies);
    let task = tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else { return };
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut data = Vec::new();
                let mut chunk = [0u8; 8192];
                // Read the head, then as much body as Content-Length says.
                loop {
                    let Ok(n) = stream.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    data.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&data).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if data.len() >= end + 4 + length {
                            let body = &data[end + 4..end + 4 + length];
                            seen.lock()
                                .unwrap()
                                .push(serde_json::from_slice(body).unwrap_or(Json::Null));
                            break;
                        }
                    }
                }
                tokio::time::sleep(delay).await;
                let reply = json!({"choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content}}]})
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    Server { base_url, bodies, task }
}

fn decider(server: &Server) -> Decider {
    let mut config = ModelConfig::with_defaults(&server.base_url, "acquire-test");
    config.timeout = Duration::from_millis(300);
    config.max_retries = 0;
    config.max_tokens = 256;
    Decider::Model(Arc::new(ModelClient::new(config, None).unwrap()))
}

const VALID: &str = r#"{"action": "search", "target_field": "monthly_rent", "target_component": null,
  "search_query": "monthly rent berlin", "user_question": null, "reasoning": "rent first"}"#;

#[tokio::test]
async fn a_valid_decision_is_taken_and_the_request_is_schema_constrained() {
    let p = profile("coffee_shop");
    let server = server(VALID, Duration::ZERO).await;
    let decision = decider(&server).decide(&p, &ready(&p)).await.unwrap();
    assert_eq!(decision.action, Action::Search);
    assert_eq!(decision.target_field.as_deref(), Some("monthly_rent"));
    assert_eq!(decision.search_query.as_deref(), Some("monthly rent berlin"));
    let body = server.bodies.lock().unwrap()[0].clone();
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["schema"], decision_schema(&p));
    let targets =
        &body["response_format"]["json_schema"]["schema"]["properties"]["target_field"]["enum"];
    assert_eq!(targets.as_array().unwrap().len(), p.fields.len() + 1);
}

#[tokio::test]
async fn invalid_json_is_a_failure() {
    let p = profile("coffee_shop");
    let server = server("search for the rent, please", Duration::ZERO).await;
    let err = decider(&server).decide(&p, &ready(&p)).await.unwrap_err();
    assert!(err.starts_with("not a decision:"), "{err}");
}

#[tokio::test]
async fn a_timeout_is_a_failure() {
    let p = profile("coffee_shop");
    let server = server(VALID, Duration::from_secs(3)).await;
    let err = decider(&server).decide(&p, &ready(&p)).await.unwrap_err();
    assert!(err.contains("timed out"), "{err}");
}

#[tokio::test]
async fn a_target_outside_the_profile_is_a_failure() {
    let p = profile("coffee_shop");
    let reply = r#"{"action": "ask_user", "target_field": "lottery_winnings", "target_component": null,
      "search_query": null, "user_question": "How lucky are you?", "reasoning": "why not"}"#;
    let server = server(reply, Duration::ZERO).await;
    let err = decider(&server).decide(&p, &ready(&p)).await.unwrap_err();
    assert_eq!(err, "target field `lottery_winnings` is not a field of the profile");
}

#[tokio::test]
async fn a_model_failure_in_the_graph_finishes_the_run_with_its_reason() {
    let p = profile("coffee_shop");
    let server = server("{}", Duration::ZERO).await;
    let ctx = Ctx {
        profile: Arc::new(p.clone()),
        decider: decider(&server),
        corpus: Corpus::Memory(documents()),
    };
    let acquirer = Acquirer::new(ctx, Arc::new(MemoryCheckpointer::new()), Durability::Async);
    let mut progress = acquirer.start("t", crate::flows::idea(&p)).await.unwrap();
    for answer in ["Berlin, Germany", "EUR"] {
        let Progress::Asked(_) = progress else { panic!("region and currency first") };
        progress = acquirer.answer("t", answer).await.unwrap();
    }
    let Progress::Done(report) = progress else { panic!("finished") };
    assert_eq!(report.status, RunStatus::Incomplete);
    assert!(
        report.reason.starts_with("Planner output invalid: not a decision:"),
        "{}",
        report.reason
    );
}

#[tokio::test]
async fn a_valid_model_decision_drives_the_graph() {
    let p = profile("coffee_shop");
    let server = server(VALID, Duration::ZERO).await;
    let ctx = Ctx {
        profile: Arc::new(p.clone()),
        decider: decider(&server),
        corpus: Corpus::Memory(documents()),
    };
    let acquirer = Acquirer::new(ctx, Arc::new(MemoryCheckpointer::new()), Durability::Async);
    let mut progress = acquirer.start("t", crate::flows::idea(&p)).await.unwrap();
    for answer in ["Berlin, Germany", "EUR"] {
        let Progress::Asked(_) = progress else { panic!("region and currency first") };
        progress = acquirer.answer("t", answer).await.unwrap();
    }
    // The model insists on the rent: the first search fills it, the repeat is a duplicate query
    // and becomes a question, which is cut short here.
    let Progress::Asked(question) = progress else { panic!("a question") };
    assert_eq!(question.field, "monthly_rent");
}
