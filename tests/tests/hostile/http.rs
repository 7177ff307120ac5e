//! What the hostile-input tests share: the API served on 127.0.0.1 over real HTTP, a client,
//! the seeded demo database and the answer corpus.

use std::net::SocketAddr;

use planner_engine::{Engine, EngineConfig};
use planner_exec::{TenantId, create_api_key};
use planner_registry::Registry;
use planner_server::{AppState, ServerConfig};
use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const QUESTIONS: &str = include_str!("../../../fixtures/answers/questions.txt");

pub(crate) fn registry() -> Registry {
    planner_registry::reference::registry().unwrap()
}

/// The questions of the answer corpus (`id | question` lines).
pub(crate) fn questions() -> Vec<String> {
    QUESTIONS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_once(" | ").map(|(_, question)| question.trim().to_owned()))
        .collect()
}

/// The demo dataset at scale 0.02, migrated and seeded.
pub(crate) async fn seed_demo(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    planner_dataset::seed(pool, &planner_dataset::SeedOptions::demo(0.02)).await.unwrap();
}

/// A key of demo tenant `index` with `scopes`.
pub(crate) async fn demo_key(pool: &PgPool, index: usize, scopes: &[&str]) -> String {
    let tenant = TenantId(planner_dataset::DEMO_TENANTS[index].id);
    create_api_key(pool, tenant, scopes).await.unwrap().secret
}

/// The API served over HTTP on a loopback port until dropped (or [`Served::stop`]).
pub(crate) struct Served {
    pub(crate) base: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

/// A pool on `owner`'s database as the runtime login `planner_app`, as `planner serve` answers:
/// the hostile tests attack the server as it runs, behind both lines of defence.
pub(crate) async fn runtime_pool(owner: &PgPool) -> PgPool {
    let password = std::env::var("PLANNER_RUNTIME_PASSWORD")
        .ok()
        .filter(|it| !it.is_empty())
        .unwrap_or_else(|| "plannerTestRuntimeLogin0001".to_owned());
    let server = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let base = server.split('?').next().unwrap_or(&server);
    let (server, _) = base.rsplit_once('/').expect("DATABASE_URL has a database");
    let database = owner.connect_options().get_database().unwrap().to_owned();
    let url = planner_exec::runtime_url(&format!("{server}/{database}"), &password).unwrap();
    planner_exec::connect_runtime(owner, &url, &password, sqlx::postgres::PgPoolOptions::new())
        .await
        .expect("cannot log in as planner_app")
}

impl Served {
    /// Serves the API over `pool`'s database with `config`, as `planner serve` does: as the
    /// runtime login, never as the test's owner.
    pub(crate) async fn start(pool: &PgPool, config: ServerConfig) -> Served {
        let pool = runtime_pool(pool).await;
        let engine = Engine::new(EngineConfig::new(registry()), pool.clone());
        let router = planner_server::app(AppState::new(engine, pool, config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(planner_server::serve(listener, router, async move {
            let _ = stopped.await;
        }));
        Served { base: format!("http://{addr}"), stop: Some(stop), task: Some(task) }
    }

    /// Stops the server and waits for it: it must have ended cleanly.
    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A server config without the per-key rate limit (these tests send many requests per key).
pub(crate) fn unlimited() -> ServerConfig {
    ServerConfig {
        key_requests_per_minute: 0,
        address_failures_per_minute: 0,
        ..ServerConfig::default()
    }
}

/// An HTTP client that never goes through a proxy.
pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap()
}

/// A reply: status, content type (without parameters) and body text.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: String,
    pub(crate) text: String,
}

impl Reply {
    pub(crate) async fn read(response: reqwest::Response) -> Reply {
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|it| it.to_str().ok())
            .map(|it| it.split(';').next().unwrap_or_default().trim().to_owned())
            .unwrap_or_default();
        let bytes = response.bytes().await.unwrap();
        let text = String::from_utf8(bytes.to_vec())
            .unwrap_or_else(|err| panic!("a {status} reply is not UTF-8: {err}"));
        Reply { status, content_type, text }
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|err| panic!("{err}: a {} reply: {}", self.status, self.text))
    }
}

/// `POST /v1/answer {question}` with `key`.
pub(crate) async fn ask(client: &reqwest::Client, base: &str, key: &str, question: &str) -> Reply {
    let response = client
        .post(format!("{base}/v1/answer"))
        .bearer_auth(key)
        .json(&serde_json::json!({ "question": question }))
        .send()
        .await
        .unwrap();
    Reply::read(response).await
}
