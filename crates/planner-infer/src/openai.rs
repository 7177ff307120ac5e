//! An OpenAI-compatible chat-completions client: per-call timeout, retries with jittered backoff
//! on 429 and 5xx (honouring `Retry-After`), a circuit breaker, a cap on reply size, and the
//! `json_schema` → `json_object` fallback for servers that reject the standard form.

mod breaker;
mod proposer;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rand::Rng;
use serde_json::{Value as Json, json};

use crate::{Error, Result};
use breaker::Breaker;

pub use proposer::{ModelProposer, ParsedReply, parse_reply};

/// Where and how to call an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// The API base, ending before `/chat/completions` (`http://127.0.0.1:8080/v1`).
    pub base_url: String,
    /// The model name sent with each request.
    pub model: String,
    /// The name of the environment variable holding the API key, if the server needs one. The
    /// library never reads the environment itself: see [`ModelConfig::api_key`].
    pub api_key_env: Option<String>,
    /// Sampling temperature of a single proposal call (K = 1) and of narration.
    pub temperature: f32,
    /// Sampling temperature of each of K > 1 proposal calls (default 0.7): samples drawn at
    /// temperature 0 would all agree, and the majority vote would mean nothing.
    pub sample_temperature: f32,
    /// The limit on generated tokens per call.
    pub max_tokens: u32,
    /// The time one HTTP call may take, body included.
    pub timeout: Duration,
    /// Retries after the first attempt, on 429 and 5xx only.
    pub max_retries: u32,
    /// The first backoff step; each retry doubles it, with full jitter.
    pub backoff_base: Duration,
    /// The longest wait between attempts; a `Retry-After` above it ends the call instead.
    pub backoff_max: Duration,
    /// Consecutive failed calls that open the circuit.
    pub breaker_threshold: u32,
    /// How long an open circuit refuses calls.
    pub breaker_cooldown: Duration,
    /// The largest reply body read, in bytes; a larger reply is unusable.
    pub max_reply_bytes: usize,
}

impl ModelConfig {
    /// A configuration with this project's defaults for a server at `base_url`.
    pub fn with_defaults(base_url: &str, model: &str) -> ModelConfig {
        ModelConfig {
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.to_owned(),
            api_key_env: None,
            temperature: 0.0,
            sample_temperature: 0.7,
            max_tokens: 96,
            timeout: Duration::from_secs(20),
            max_retries: 2,
            backoff_base: Duration::from_millis(200),
            backoff_max: Duration::from_secs(5),
            breaker_threshold: 5,
            breaker_cooldown: Duration::from_secs(30),
            max_reply_bytes: 64 * 1024,
        }
    }

    /// Resolves the API key through `lookup` (the caller passes its environment, e.g.
    /// `|name| std::env::var(name).ok()`). `None` when no variable is configured or it is unset.
    pub fn api_key(&self, lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
        self.api_key_env.as_deref().and_then(lookup).filter(|key| !key.is_empty())
    }
}

/// How a call ended when the server answered 2xx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatReply {
    /// The message contents of the reply's choices, in order.
    Contents(Vec<String>),
    /// The reply cannot be used (not JSON, no choices, larger than the cap).
    Unusable(String),
}

/// The response format a completion should be constrained to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraint<'a> {
    /// Free text.
    None,
    /// JSON matching this schema, named `name`.
    Schema {
        /// The schema's name (`intent_choice`).
        name: &'a str,
        /// The JSON schema.
        schema: &'a Json,
    },
}

/// A chat-completions client for one server. Cheap to share behind `Arc`.
#[derive(Debug)]
pub struct ModelClient {
    config: ModelConfig,
    api_key: Option<String>,
    http: reqwest::Client,
    breaker: Breaker,
    /// Set once the server rejected `response_format: json_schema`; later calls send
    /// `json_object` with the schema instead.
    schema_form_rejected: AtomicBool,
}

/// One attempt's failure, classified for the retry loop.
enum Attempt {
    Retry { error: Error, retry_after: Option<Duration> },
    Fatal(Error),
    SchemaRejected(Error),
}

impl ModelClient {
    /// A client for `config`, sending `api_key` as a bearer token when present.
    pub fn new(config: ModelConfig, api_key: Option<String>) -> Result<ModelClient> {
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            return Err(Error::Config(format!("base URL must be http(s): {}", config.base_url)));
        }
        // reqwest's TLS takes the process's default rustls provider: the module's.
        planner_crypto::install_provider();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|err| Error::Config(format!("building the HTTP client: {err}")))?;
        let breaker = Breaker::new(config.breaker_threshold, config.breaker_cooldown);
        Ok(ModelClient {
            config,
            api_key,
            http,
            breaker,
            schema_form_rejected: AtomicBool::new(false),
        })
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Sends one chat completion with these messages (`(role, content)` pairs) and constraint,
    /// at `temperature`. Retries 429 and 5xx with jittered backoff, honours `Retry-After`, and
    /// fails fast while the circuit is open.
    pub async fn chat(
        &self,
        messages: &[(&str, &str)],
        constraint: Constraint<'_>,
        temperature: f32,
    ) -> Result<ChatReply> {
        // Dropping this future drops the permit: a cancelled half-open trial reopens the circuit.
        let Some(permit) = self.breaker.allow() else {
            return Err(Error::CircuitOpen);
        };
        let mut attempt = 0u32;
        loop {
            let body = self.body(messages, constraint, temperature);
            match self.attempt(&body).await {
                Ok(reply) => {
                    permit.success();
                    return Ok(reply);
                }
                Err(Attempt::SchemaRejected(error)) => {
                    if self.schema_form_rejected.swap(true, Ordering::Relaxed) {
                        permit.failure();
                        return Err(error);
                    }
                }
                Err(Attempt::Retry { error, retry_after }) => {
                    if attempt >= self.config.max_retries {
                        permit.failure();
                        return Err(error);
                    }
                    let wait = match retry_after {
                        Some(wait) if wait > self.config.backoff_max => {
                            permit.failure();
                            return Err(error);
                        }
                        Some(wait) => wait,
                        None => self.backoff(attempt),
                    };
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(Attempt::Fatal(error)) => {
                    permit.failure();
                    return Err(error);
                }
            }
        }
    }

    fn body(
        &self,
        messages: &[(&str, &str)],
        constraint: Constraint<'_>,
        temperature: f32,
    ) -> Json {
        let messages: Vec<Json> = messages
            .iter()
            .map(|(role, content)| json!({ "role": role, "content": content }))
            .collect();
        let mut body = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": self.config.max_tokens,
        });
        if let Constraint::Schema { name, schema } = constraint {
            body["response_format"] = if self.schema_form_rejected.load(Ordering::Relaxed) {
                json!({ "type": "json_object", "schema": schema })
            } else {
                json!({
                    "type": "json_schema",
                    "json_schema": { "name": name, "strict": true, "schema": schema },
                })
            };
        }
        body
    }

    /// Full jitter: a uniform wait in `[0, min(max, base * 2^attempt)]`.
    fn backoff(&self, attempt: u32) -> Duration {
        let cap = self
            .config
            .backoff_base
            .saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX))
            .min(self.config.backoff_max);
        let millis = u64::try_from(cap.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::rng().random_range(0..=millis))
    }

    async fn attempt(&self, body: &Json) -> Result<ChatReply, Attempt> {
        let timeout = self.config.timeout;
        match tokio::time::timeout(timeout, self.send(body)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Attempt::Fatal(Error::Timeout(timeout))),
        }
    }

    async fn send(&self, body: &Json) -> Result<ChatReply, Attempt> {
        let url = format!("{}/chat/completions", self.config.base_url);
        let mut request = self.http.post(url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request
            .send()
            .await
            .map_err(|err| Attempt::Fatal(transport(&err, self.config.timeout)))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(parse_retry_after);
        let mut bytes = Vec::new();
        let mut oversized = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > self.config.max_reply_bytes {
                        oversized = true;
                        break;
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(err) => return Err(Attempt::Fatal(transport(&err, self.config.timeout))),
            }
        }
        if (200..300).contains(&status) {
            if oversized {
                return Ok(ChatReply::Unusable(format!(
                    "reply larger than {} bytes",
                    self.config.max_reply_bytes
                )));
            }
            return Ok(contents(&bytes));
        }
        let text = String::from_utf8_lossy(&bytes);
        let error = Error::Status { status, body: text.chars().take(300).collect() };
        let mentions_format = text.contains("response_format") || text.contains("json_schema");
        let sent_schema_form = body["response_format"]["type"] == "json_schema";
        if sent_schema_form
            && (status == 400 || status == 422 || (status == 500 && mentions_format))
        {
            return Err(Attempt::SchemaRejected(error));
        }
        if status == 429 || status >= 500 {
            return Err(Attempt::Retry { error, retry_after });
        }
        Err(Attempt::Fatal(error))
    }
}

fn transport(err: &reqwest::Error, timeout: Duration) -> Error {
    if err.is_timeout() { Error::Timeout(timeout) } else { Error::Transport(err.to_string()) }
}

/// `Retry-After` in delta-seconds (fractions accepted). HTTP dates are not honoured: the
/// jittered backoff applies instead.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// The `choices[].message.content` strings of a chat-completions reply.
fn contents(bytes: &[u8]) -> ChatReply {
    let Ok(reply) = serde_json::from_slice::<Json>(bytes) else {
        return ChatReply::Unusable("reply is not JSON".to_owned());
    };
    let Some(choices) = reply.get("choices").and_then(Json::as_array) else {
        return ChatReply::Unusable("reply has no choices".to_owned());
    };
    let contents: Vec<String> = choices
        .iter()
        .filter_map(|choice| choice.pointer("/message/content").and_then(Json::as_str))
        .map(str::to_owned)
        .collect();
    if contents.is_empty() {
        return ChatReply::Unusable("reply has no message content".to_owned());
    }
    ChatReply::Contents(contents)
}

#[cfg(test)]
mod tests {
    //! Pure parts of the client: header parsing and reply decoding.

    use super::*;

    #[test]
    fn the_client_speaks_tls_on_the_modules_provider() {
        ModelClient::new(ModelConfig::with_defaults("https://127.0.0.1:1/v1", "m"), None).unwrap();
        let default = planner_crypto::rustls::crypto::CryptoProvider::get_default()
            .expect("the client installed the module's provider");
        // Under `fips` the provider offers only approved algorithms, which it reports.
        assert_eq!(default.fips(), planner_crypto::FIPS_BUILD);
        assert_eq!(default.cipher_suites.len(), planner_crypto::provider().cipher_suites.len());
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn decodes_choice_contents() {
        let reply =
            br#"{"choices":[{"message":{"role":"assistant","content":"{\"intents\":[]}"}}]}"#;
        assert_eq!(contents(reply), ChatReply::Contents(vec![r#"{"intents":[]}"#.to_owned()]));
        assert!(matches!(contents(b"not json"), ChatReply::Unusable(_)));
        assert!(matches!(contents(br#"{"choices":[]}"#), ChatReply::Unusable(_)));
        assert!(matches!(contents(br#"{"error":"x"}"#), ChatReply::Unusable(_)));
    }

    #[test]
    fn rejects_non_http_base_url() {
        let config = ModelConfig::with_defaults("ftp://x", "m");
        assert!(matches!(ModelClient::new(config, None), Err(Error::Config(_))));
    }

    #[test]
    fn api_key_comes_from_the_named_variable() {
        let mut config = ModelConfig::with_defaults("http://127.0.0.1:1/v1", "m");
        assert_eq!(config.api_key(|_| Some("k".to_owned())), None);
        config.api_key_env = Some("PLANNER_KEY".to_owned());
        assert_eq!(
            config.api_key(|name| (name == "PLANNER_KEY").then(|| "k".to_owned())),
            Some("k".to_owned())
        );
        assert_eq!(config.api_key(|_| Some(String::new())), None);
    }
}
