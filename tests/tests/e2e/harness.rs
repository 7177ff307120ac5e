//! What the tests of the real server share: the `planner` binary of this workspace run as
//! `planner serve` in a child process, PostgreSQL containers the test controls through the
//! `docker` command (killed, paused, restarted), a seeded database with API keys, and an HTTP
//! client.
//!
//! The binary is the one cargo built beside the test binary (`target/<profile>/planner`;
//! `cargo nextest run --workspace` builds it, `PLANNER_BIN` overrides). Containers carry the
//! testcontainers label, so `.ci/run` removes any a crashed test left behind.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use planner_exec::{TenantId, create_api_key};
use serde_json::Value;
use sqlx::PgPool;

/// The PostgreSQL image the fault tests start.
pub const PG_IMAGE: &str = "planner-postgres:15";
/// The label `.ci/run` removes leftover test containers by.
const LABEL: &str = "org.testcontainers.managed-by=testcontainers";

pub const COMPOUND: &str = "For the 'Department of the Army' recompete under NAICS 541512, who \
                            are the incumbents and how many of our bench hold TS/SCI with SI/TK?";
pub const CLARIFY: &str = "Who are the top incumbents at the Army?";
/// Questions that are answered (never a clarification) on the demo dataset.
pub const ANSWERED: [&str; 4] = [
    COMPOUND,
    "Who are the top incumbents for DHS in 541511?",
    "How many of our bench hold a Secret clearance?",
    "What is the market share of the top vendors in NAICS 541512 over the past year?",
];

/// A name no other test or run uses, for containers and networks.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A loopback port free at the time of asking.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The `planner` binary built beside this test binary.
pub fn planner_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("PLANNER_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/e2e-HASH → target/<profile>/planner
    let bin = exe.parent().and_then(|deps| deps.parent()).unwrap().join("planner");
    assert!(
        bin.is_file(),
        "{} is missing: build it with `cargo build -p planner-cli` (or run the whole workspace's \
         tests, which builds it), or set PLANNER_BIN",
        bin.display()
    );
    bin
}

/// Runs `command` to its end with `stdin` written to its standard input; its status, stdout and
/// stderr.
pub fn run_with_stdin(command: &mut Command, stdin: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Whether a Docker engine answers and has `image`; when not, the reason to skip.
pub fn docker_with(image: &str) -> Result<(), String> {
    let engine =
        planner_devdb::DockerEngine::from_docker_host(std::env::var("DOCKER_HOST").ok().as_deref())
            .ok_or("DOCKER_HOST names a scheme the probe does not speak")?;
    engine.ping().map_err(|err| format!("no Docker engine answers ({err})"))?;
    match engine.has_image(image) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("the Docker engine has no image {image}")),
        Err(err) => Err(err),
    }
}

/// Fails `test`, which cannot run its scenario here, saying why. A test that did not run is
/// never reported as passed: `cargo xtask test` and `ci` build the images when a Docker engine
/// answers, and without one exclude these tests up front and list them as not run.
#[track_caller]
pub fn cannot_run(test: &str, reason: &str) -> ! {
    panic!(
        "{test} cannot run: {reason}. `cargo xtask test` provisions the images, or lists this \
         test as not run where no Docker engine answers"
    )
}

/// Runs `docker ARGS`, returning its stdout; panics with its stderr on failure.
pub fn docker(args: &[&str]) -> String {
    let output = Command::new("docker").args(args).output().expect("running docker");
    assert!(
        output.status.success(),
        "docker {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A PostgreSQL container from [`PG_IMAGE`] on a fixed loopback port (so that it keeps its
/// address across restarts), removed when dropped.
#[derive(Debug)]
pub struct PgContainer {
    pub name: String,
    pub port: u16,
}

impl PgContainer {
    /// Starts the container (on `network` too, under the alias `postgres`, when given) and
    /// waits until it accepts connections.
    pub async fn start(network: Option<&str>) -> PgContainer {
        let name = unique("planner-test-pg");
        let port = free_port();
        let publish = format!("127.0.0.1:{port}:5432");
        let mut args = vec!["run", "-d", "--name", &name, "--label", LABEL, "-p", &publish];
        if let Some(network) = network {
            args.extend(["--network", network, "--network-alias", "postgres"]);
        }
        args.extend(["-e", "POSTGRES_HOST_AUTH_METHOD=trust", PG_IMAGE]);
        docker(&args);
        let container = PgContainer { name, port };
        container.wait_ready(Duration::from_secs(60)).await;
        container
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Waits until a connection and `SELECT 1` succeed; the time it took.
    pub async fn wait_ready(&self, limit: Duration) -> Duration {
        let started = Instant::now();
        loop {
            let probe = async {
                let pool = PgPool::connect(&self.url("postgres")).await?;
                sqlx::query("SELECT 1").execute(&pool).await?;
                pool.close().await;
                Ok::<_, sqlx::Error>(())
            };
            match tokio::time::timeout(Duration::from_secs(2), probe).await {
                Ok(Ok(())) => return started.elapsed(),
                _ if started.elapsed() > limit => {
                    panic!("{} not ready after {limit:?}:\n{}", self.name, self.logs())
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    pub fn logs(&self) -> String {
        let output = Command::new("docker").args(["logs", "--tail", "30", &self.name]).output();
        output.map(|it| String::from_utf8_lossy(&it.stderr).into_owned()).unwrap_or_default()
    }

    pub fn docker(&self, verb: &str) {
        docker(&[verb, &self.name]);
    }
}

impl Drop for PgContainer {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["rm", "-f", "-v", &self.name])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Keys of a seeded database: tenant A with and without `bench`, tenant B with `bench`.
#[derive(Debug, Clone)]
pub struct Keys {
    pub bench: String,
    pub plain: String,
    pub other_tenant: String,
}

/// Migrates `pool`'s database, loads the demo dataset at scale 0.02 and makes keys.
pub async fn seed(pool: &PgPool) -> Keys {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
    let a = TenantId(planner_dataset::DEMO_TENANTS[0].id);
    let b = TenantId(planner_dataset::DEMO_TENANTS[1].id);
    Keys {
        bench: create_api_key(pool, a, &["bench"]).await.unwrap().secret,
        plain: create_api_key(pool, a, &[]).await.unwrap().secret,
        other_tenant: create_api_key(pool, b, &["bench"]).await.unwrap().secret,
    }
}

/// A new database `name` on the server of `admin_url`; its URL.
pub async fn create_database(admin_url: &str, name: &str) -> String {
    let pool = PgPool::connect(admin_url).await.unwrap();
    let statement = sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""));
    sqlx::query(statement).execute(&pool).await.unwrap();
    pool.close().await;
    let base = admin_url.rsplit_once('/').unwrap().0;
    format!("{base}/{name}")
}

/// The URL of the database `pool` is connected to, on the server of DATABASE_URL (the
/// per-test database of `#[sqlx::test]`).
pub async fn url_of(pool: &PgPool) -> String {
    let (name,): (String,) =
        sqlx::query_as("SELECT current_database()").fetch_one(pool).await.unwrap();
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL is set for database tests");
    let (base, rest) = url.rsplit_once('/').unwrap();
    let query = rest.split_once('?').map(|(_, q)| format!("?{q}")).unwrap_or_default();
    format!("{base}/{name}{query}")
}

/// The runtime login's password for this run: `cargo xtask test` exports one; a run without it
/// uses a fixed one (the role is cluster-wide, so every test of a run must agree).
pub fn runtime_password() -> String {
    std::env::var("PLANNER_RUNTIME_PASSWORD")
        .ok()
        .filter(|it| !it.is_empty())
        .unwrap_or_else(|| "plannerTestRuntimeLogin0001".to_owned())
}

/// `planner serve` in a child process; killed when dropped.
#[derive(Debug)]
pub struct Server {
    child: tokio::process::Child,
    pub base: String,
    _data: tempfile::TempDir,
}

impl Server {
    /// Starts `planner serve` on a free loopback port against `database_url`, with `args`
    /// added, and waits until `/readyz` answers 200.
    pub async fn start(database_url: &str, args: &[&str]) -> Server {
        let port = free_port();
        let data = tempfile::tempdir().unwrap();
        let child = tokio::process::Command::new(planner_bin())
            .arg("serve")
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .args(args)
            .env("DATABASE_URL", database_url)
            .env("PLANNER_RUNTIME_PASSWORD", runtime_password())
            .env("PLANNER_DATA_DIR", data.path())
            .env("PLANNER_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let server = Server { child, base: format!("http://127.0.0.1:{port}"), _data: data };
        server.wait_ready(Duration::from_secs(60)).await;
        server
    }

    async fn wait_ready(&self, limit: Duration) {
        let http = client();
        let started = Instant::now();
        loop {
            if let Ok(response) = http.get(format!("{}/readyz", self.base)).send().await
                && response.status() == 200
            {
                return;
            }
            assert!(started.elapsed() < limit, "the server at {} is not ready", self.base);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        let pid = self.child.id().expect("the server is running").to_string();
        let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit; whether it exited successfully.
    pub async fn wait(&mut self, limit: Duration) -> bool {
        let status = tokio::time::timeout(limit, self.child.wait()).await;
        status.expect("the server stopped in time").unwrap().success()
    }
}

/// An HTTP client with no pooling surprises: a generous overall timeout so that a hang shows
/// up as a failed assertion rather than a stuck test.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap()
}

/// A reply: its status and JSON body (Null when the body is not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    pub retry_after: Option<String>,
}

/// POSTs `body` to `base` + `path` with `key`.
pub async fn post(
    http: &reqwest::Client,
    base: &str,
    path: &str,
    key: &str,
    body: &Value,
) -> reqwest::Result<Reply> {
    let response = http.post(format!("{base}{path}")).bearer_auth(key).json(body).send().await?;
    let status = response.status().as_u16();
    let retry_after =
        response.headers().get("retry-after").and_then(|it| it.to_str().ok()).map(str::to_owned);
    let text = response.text().await?;
    Ok(Reply { status, body: serde_json::from_str(&text).unwrap_or(Value::Null), retry_after })
}

/// The number of answers given according to the audit log of `pool`'s database: the rows of
/// `audit.answers_given` (the answer log less the withdrawn answers).
pub async fn audit_rows(pool: &PgPool) -> i64 {
    let (count,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM audit.answers_given").fetch_one(pool).await.unwrap();
    count
}

/// Waits until the server at `base` has written every audit withdrawal it queued
/// (`planner_audit_withdrawals_pending 0` on `/metrics`), at most `limit`; how long it took.
pub async fn wait_for_withdrawals(base: &str, limit: Duration) -> Duration {
    let http = client();
    let started = Instant::now();
    let mut last = String::new();
    loop {
        if let Ok(response) = http.get(format!("{base}/metrics")).send().await
            && let Ok(text) = response.text().await
        {
            let pending =
                text.lines().find(|it| it.starts_with("planner_audit_withdrawals_pending "));
            if pending == Some("planner_audit_withdrawals_pending 0") {
                return started.elapsed();
            }
            last = pending.unwrap_or("no planner_audit_withdrawals_pending line").to_owned();
        }
        assert!(started.elapsed() < limit, "withdrawals still pending after {limit:?}: {last}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
