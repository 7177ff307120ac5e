//! The model client, proposer and narrator against the fake server: every failure mode stated in
//! the contract.

use std::collections::BTreeSet;
use std::time::Duration;

use planner_infer::{
    Catalog, Cell, ChatReply, Constraint, Error, Evidence, EvidenceTable, IntentCard, ModelClient,
    ModelConfig, ModelNarrator, ModelProposer, Narrator, Proposals, ProposeRequest, Proposer,
};
use planner_registry::ParamKind;
use serde_json::json;

use crate::fake_server::{FakeServer, Reply};

fn catalog() -> Catalog {
    let card = |name: &str, required: Vec<ParamKind>| IntentCard {
        name: name.to_owned(),
        description: format!("The {name} intent."),
        keywords: Vec::new(),
        examples: Vec::new(),
        plane: "market".to_owned(),
        required,
        optional: Vec::new(),
        provides: Vec::new(),
    };
    Catalog::new(vec![
        card("top_incumbents", vec![ParamKind::Agency, ParamKind::Naics]),
        card("vendor_profile", vec![ParamKind::Uei]),
        card("bench_clearance_counts", vec![ParamKind::Clearance]),
    ])
}

fn config(server: &FakeServer) -> ModelConfig {
    let mut config = ModelConfig::with_defaults(&server.base_url, "local");
    config.timeout = Duration::from_millis(1500);
    config.backoff_base = Duration::from_millis(5);
    config.backoff_max = Duration::from_millis(50);
    config.max_retries = 2;
    config.breaker_threshold = 3;
    config.breaker_cooldown = Duration::from_secs(3600);
    config
}

fn proposer(server: &FakeServer) -> ModelProposer {
    proposer_with(config(server))
}

fn proposer_with(config: ModelConfig) -> ModelProposer {
    ModelProposer::new(ModelClient::new(config, None).unwrap(), &catalog())
}

async fn propose(proposer: &ModelProposer, samples: usize) -> planner_infer::Result<Proposals> {
    let available: BTreeSet<ParamKind> = [ParamKind::Agency, ParamKind::Naics].into();
    proposer
        .propose(ProposeRequest {
            question: "who are the incumbents?",
            available: &available,
            spans: &[],
            samples,
        })
        .await
}

#[tokio::test]
async fn valid_reply_gives_the_names() {
    let server = FakeServer::always(Reply::content(r#"{"intents": ["top_incumbents"]}"#)).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![vec!["top_incumbents".to_owned()]]);
    assert_eq!((proposals.dropped_names, proposals.unusable_replies), (0, 0));
}

#[tokio::test]
async fn request_is_constrained_to_the_closed_set() {
    let server = FakeServer::always(Reply::content(r#"{"intents": []}"#)).await;
    propose(&proposer(&server), 1).await.unwrap();
    let request = &server.requests()[0];
    let format = &request["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["strict"], true);
    let items = &format["json_schema"]["schema"]["properties"]["intents"];
    assert_eq!(items["maxItems"], 6);
    assert_eq!(
        items["items"]["enum"],
        json!(["top_incumbents", "vendor_profile", "bench_clearance_counts"])
    );
    assert_eq!(request["model"], "local");
    let prompt = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("who are the incumbents?") && prompt.contains("agency, naics"),
        "{prompt}"
    );
}

#[tokio::test]
async fn out_of_set_names_are_dropped_and_counted() {
    let reply = r#"{"intents": ["drop_table", "vendor_profile", "Vendor_Profile"]}"#;
    let server = FakeServer::always(Reply::content(reply)).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![vec!["vendor_profile".to_owned()]]);
    assert_eq!(proposals.dropped_names, 2);
}

#[tokio::test]
async fn malformed_content_gives_an_empty_proposal() {
    let server = FakeServer::always(Reply::content(r#"{"intents": ["top_incumbents""#)).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![Vec::<String>::new()]);
    assert_eq!(proposals.unusable_replies, 1);
}

#[tokio::test]
async fn non_json_body_gives_an_empty_proposal() {
    let server = FakeServer::always(Reply::raw(200, "<html>hello</html>")).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![Vec::<String>::new()]);
    assert_eq!(proposals.unusable_replies, 1);
}

#[tokio::test]
async fn empty_content_gives_an_empty_proposal() {
    let server = FakeServer::always(Reply::content("")).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![Vec::<String>::new()]);
    assert_eq!(proposals.unusable_replies, 1);
}

#[tokio::test]
async fn huge_reply_gives_an_empty_proposal() {
    let names = vec!["\"top_incumbents\""; 60_000].join(",");
    let server = FakeServer::always(Reply::content(&format!("{{\"intents\": [{names}]}}"))).await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![Vec::<String>::new()]);
    assert_eq!(proposals.unusable_replies, 1);
}

#[tokio::test]
async fn server_errors_are_retried() {
    let server = FakeServer::sequence(vec![
        Reply::raw(500, "oops"),
        Reply::raw(503, "busy"),
        Reply::content(r#"{"intents": ["top_incumbents"]}"#),
    ])
    .await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![vec!["top_incumbents".to_owned()]]);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn persistent_server_errors_fail_after_the_retries() {
    let server = FakeServer::always(Reply::raw(502, "bad gateway")).await;
    let error = propose(&proposer(&server), 1).await.unwrap_err();
    assert!(matches!(error, Error::Status { status: 502, .. }), "{error:?}");
    assert_eq!(server.requests().len(), 3, "one attempt and two retries");
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let server = FakeServer::always(Reply::raw(401, r#"{"error": "no key"}"#)).await;
    let mut config = config(&server);
    config.max_retries = 5;
    // The first 401 is not a schema rejection (that takes 400/422), so nothing is resent.
    let error = propose(&proposer_with(config), 1).await.unwrap_err();
    assert!(matches!(error, Error::Status { status: 401, .. }), "{error:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn too_many_requests_honours_retry_after() {
    let server = FakeServer::sequence(vec![
        Reply::raw(429, "slow down").header("Retry-After", "0.05"),
        Reply::content(r#"{"intents": ["vendor_profile"]}"#),
    ])
    .await;
    let proposals = propose(&proposer(&server), 1).await.unwrap();
    assert_eq!(proposals.samples, vec![vec!["vendor_profile".to_owned()]]);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_after_beyond_the_cap_ends_the_call() {
    let server =
        FakeServer::always(Reply::raw(429, "come back tomorrow").header("Retry-After", "86400"))
            .await;
    let error = propose(&proposer(&server), 1).await.unwrap_err();
    assert!(matches!(error, Error::Status { status: 429, .. }), "{error:?}");
    assert_eq!(server.requests().len(), 1, "no retry is scheduled beyond the backoff cap");
}

#[tokio::test]
async fn slow_reply_times_out() {
    let server = FakeServer::always(
        Reply::content(r#"{"intents": ["vendor_profile"]}"#).delayed(Duration::from_secs(30)),
    )
    .await;
    let mut config = config(&server);
    config.timeout = Duration::from_millis(200);
    let error = propose(&proposer_with(config), 1).await.unwrap_err();
    assert!(matches!(error, Error::Timeout(_)), "{error:?}");
}

#[tokio::test]
async fn schema_form_rejection_falls_back_to_json_object() {
    let server = FakeServer::start(|_, body| {
        if body["response_format"]["type"] == "json_schema" {
            Reply::raw(
                500,
                r#"{"detail": "response_format: Input should be 'text' or 'json_object'"}"#,
            )
        } else {
            Reply::content(r#"{"intents": ["bench_clearance_counts"]}"#)
        }
    })
    .await;
    let proposer = proposer(&server);
    for _ in 0..2 {
        let proposals = propose(&proposer, 1).await.unwrap();
        assert_eq!(proposals.samples, vec![vec!["bench_clearance_counts".to_owned()]]);
    }
    let forms: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request["response_format"]["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(forms, ["json_schema", "json_object", "json_object"], "the fallback is remembered");
    let fallback = &server.requests()[1]["response_format"];
    assert_eq!(fallback["schema"]["properties"]["intents"]["maxItems"], 6);
}

#[tokio::test]
async fn circuit_opens_after_repeated_failures() {
    let server = FakeServer::always(Reply::raw(500, "down")).await;
    let mut config = config(&server);
    config.max_retries = 0;
    config.breaker_threshold = 2;
    let proposer = proposer_with(config);
    for _ in 0..2 {
        assert!(matches!(propose(&proposer, 1).await, Err(Error::Status { status: 500, .. })));
    }
    assert!(matches!(propose(&proposer, 1).await, Err(Error::CircuitOpen)));
    assert_eq!(server.requests().len(), 2, "an open circuit sends nothing");
}

/// The half-open trial call's future is dropped (the client left, or a caller's timeout fired
/// first): the breaker counts the trial as failed and lets a later call try again, rather than
/// staying half-open, refusing every call, forever.
#[tokio::test]
async fn a_cancelled_trial_call_does_not_stick_the_circuit_open() {
    let trial_arrived = std::sync::Arc::new(tokio::sync::Notify::new());
    let server = {
        let trial_arrived = std::sync::Arc::clone(&trial_arrived);
        FakeServer::start(move |n, _| match n {
            0 => Reply::raw(500, "down"),
            1 => {
                trial_arrived.notify_one();
                Reply::content(r#"{"intents": []}"#).delayed(Duration::from_secs(3600))
            }
            _ => Reply::content(r#"{"intents": ["top_incumbents"]}"#),
        })
        .await
    };
    let mut config = config(&server);
    config.timeout = Duration::from_secs(7200);
    config.max_retries = 0;
    config.breaker_threshold = 1;
    config.breaker_cooldown = Duration::ZERO;
    let proposer = proposer_with(config);
    assert!(matches!(propose(&proposer, 1).await, Err(Error::Status { status: 500, .. })));
    // The circuit is open; with no cool-down the next call is the trial. It hangs on the server
    // and is cancelled once the server holds it.
    tokio::select! {
        outcome = propose(&proposer, 1) => panic!("the trial cannot finish: {outcome:?}"),
        () = trial_arrived.notified() => {}
    }
    let proposals = propose(&proposer, 1).await.expect("a new trial goes out");
    assert_eq!(proposals.samples, vec![vec!["top_incumbents".to_owned()]]);
    assert_eq!(server.requests().len(), 3);
}

/// K > 1 samples go out at the sampling temperature (0.7 unless configured), so that they can
/// differ and the majority vote means something; one sample goes out at `temperature`.
#[tokio::test]
async fn several_samples_are_drawn_at_the_sampling_temperature() {
    let server = FakeServer::always(Reply::content(r#"{"intents": ["top_incumbents"]}"#)).await;
    let temperatures = |from: usize| -> Vec<f64> {
        server.requests()[from..].iter().map(|it| it["temperature"].as_f64().unwrap()).collect()
    };
    let config = config(&server);
    assert!((config.sample_temperature - 0.7).abs() < f32::EPSILON, "the default");
    let proposer = proposer(&server);
    propose(&proposer, 3).await.unwrap();
    let sampled = temperatures(0);
    assert_eq!(sampled.len(), 3);
    assert!(sampled.iter().all(|it| (it - 0.7).abs() < 1e-6), "{sampled:?}");
    propose(&proposer, 1).await.unwrap();
    assert_eq!(temperatures(3), [0.0]);
    let mut config = config;
    config.sample_temperature = 1.1;
    propose(&proposer_with(config), 2).await.unwrap();
    assert!(temperatures(4).iter().all(|it| (it - 1.1).abs() < 1e-6));
}

#[tokio::test]
async fn k_samples_are_k_calls() {
    let server = FakeServer::start(|n, _| {
        if n == 1 {
            Reply::content("not json")
        } else {
            Reply::content(r#"{"intents": ["top_incumbents"]}"#)
        }
    })
    .await;
    let proposals = propose(&proposer(&server), 3).await.unwrap();
    assert_eq!(proposals.samples.len(), 3);
    assert_eq!(proposals.samples.iter().filter(|sample| sample.is_empty()).count(), 1);
    assert_eq!(proposals.unusable_replies, 1);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn zero_samples_is_a_configuration_error() {
    let server = FakeServer::always(Reply::content(r#"{"intents": []}"#)).await;
    assert!(matches!(propose(&proposer(&server), 0).await, Err(Error::Config(_))));
}

#[tokio::test]
async fn unreachable_server_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let mut config = ModelConfig::with_defaults(&format!("http://{address}/v1"), "local");
    config.max_retries = 0;
    let error = propose(&proposer_with(config), 1).await.unwrap_err();
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
}

#[tokio::test]
async fn api_key_is_sent_as_bearer() {
    let server = FakeServer::always(Reply::content(r#"{"intents": []}"#)).await;
    let client = ModelClient::new(config(&server), Some("sekret".to_owned())).unwrap();
    let reply = client.chat(&[("user", "hi")], Constraint::None, 0.0).await.unwrap();
    assert_eq!(reply, ChatReply::Contents(vec![r#"{"intents": []}"#.to_owned()]));
    let head = server.header_blocks()[0].to_ascii_lowercase();
    assert!(head.contains("authorization: bearer sekret"), "{head}");
    assert!(server.requests()[0].get("response_format").is_none(), "free text is unconstrained");
}

fn evidence() -> Evidence {
    Evidence {
        tables: vec![EvidenceTable {
            intent: "bench_clearance_counts".to_owned(),
            columns: vec!["availability".to_owned(), "candidates".to_owned()],
            rows: vec![
                vec![Cell::Text("now".to_owned()), Cell::Int(14)],
                vec![Cell::Text("within_30_days".to_owned()), Cell::Suppressed { k: 11 }],
            ],
            window: None,
            scope: Vec::new(),
        }],
        entities: vec!["ts_sci".to_owned()],
        dropped: Vec::new(),
    }
}

#[tokio::test]
async fn model_narrator_sends_the_rules_and_the_evidence() {
    let server = FakeServer::always(Reply::content("  14 candidates are available now.  ")).await;
    let narrator = ModelNarrator::new(ModelClient::new(config(&server), None).unwrap());
    let text = narrator.narrate("how many?", &evidence()).await.unwrap();
    assert_eq!(text, "14 candidates are available now.");
    let request = &server.requests()[0];
    let rules = request["messages"][0]["content"].as_str().unwrap();
    assert!(rules.contains("withheld") && rules.contains("Never score, rank"), "{rules}");
    assert!(rules.contains("no dash punctuation"), "the writing rule is stated: {rules}");
    let user = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("candidates where availability is within_30_days (fewer than 11)"),
        "{user}"
    );
}

#[tokio::test]
async fn model_narrator_rejects_an_empty_reply() {
    let server = FakeServer::always(Reply::content("   ")).await;
    let narrator = ModelNarrator::new(ModelClient::new(config(&server), None).unwrap());
    assert!(matches!(narrator.narrate("q", &evidence()).await, Err(Error::UnusableReply(_))));
}
