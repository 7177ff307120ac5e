//! Just enough of the Docker Engine API to decide whether testcontainers can be used: is an
//! engine answering, and does it have an image. testcontainers itself starts the container.
//!
//! The requests go through bollard, the Docker client testcontainers is built on (the same
//! version, so nothing more is compiled). The probe is synchronous for its callers: each call
//! runs on a short-lived single-threaded runtime in its own thread, so it can be made from inside
//! or outside a Tokio runtime, and gives up after a few seconds.

use bollard::{API_DEFAULT_VERSION, Docker};

/// How long one probe waits for the engine, in seconds.
const TIMEOUT_SECS: u64 = 3;

/// Where a Docker engine listens, parsed from a `DOCKER_HOST` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DockerEngine {
    /// A Unix socket path.
    Unix(String),
    /// A TCP `host:port`.
    Tcp(String),
}

impl DockerEngine {
    /// The engine named by a `DOCKER_HOST` value, or the default socket when `None`.
    /// Returns `None` for a scheme this probe does not speak (TLS).
    pub fn from_docker_host(docker_host: Option<&str>) -> Option<DockerEngine> {
        let Some(host) = docker_host.filter(|it| !it.is_empty()) else {
            return Some(DockerEngine::Unix("/var/run/docker.sock".to_owned()));
        };
        if let Some(path) = host.strip_prefix("unix://") {
            Some(DockerEngine::Unix(path.to_owned()))
        } else {
            host.strip_prefix("tcp://")
                .or_else(|| host.strip_prefix("http://"))
                .map(|addr| DockerEngine::Tcp(addr.trim_end_matches('/').to_owned()))
        }
    }

    /// Whether the engine answers `GET /_ping` with `OK`.
    pub fn ping(&self) -> Result<(), String> {
        self.probe(|docker| async move {
            match docker.ping().await {
                Ok(body) if body.trim() == "OK" => Ok(()),
                Ok(body) => Err(format!("docker engine answered {:?} to /_ping", body.trim())),
                Err(err) => Err(self.failure(&err, "/_ping")),
            }
        })
    }

    /// Whether the engine has the image `name:tag` locally.
    pub fn has_image(&self, image: &str) -> Result<bool, String> {
        self.probe(|docker| async move {
            match docker.inspect_image(image).await {
                Ok(_) => Ok(true),
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404, ..
                }) => Ok(false),
                Err(err) => Err(self.failure(&err, "an image inspection")),
            }
        })
    }

    /// Where the engine listens, for messages.
    fn address(&self) -> &str {
        match self {
            DockerEngine::Unix(path) => path,
            DockerEngine::Tcp(addr) => addr,
        }
    }

    /// The message for a failed request: the engine's status, or why it could not be reached.
    fn failure(&self, err: &bollard::errors::Error, request: &str) -> String {
        match err {
            bollard::errors::Error::DockerResponseServerError { status_code, .. } => {
                format!("docker engine answered {status_code} to {request}")
            }
            bollard::errors::Error::RequestTimeoutError => {
                format!("docker engine did not answer: no reply within {TIMEOUT_SECS}s")
            }
            other => format!("cannot connect to {}: {other}", self.address()),
        }
    }

    fn connect(&self) -> Result<Docker, String> {
        let connected = match self {
            DockerEngine::Unix(path) => {
                Docker::connect_with_unix(path, TIMEOUT_SECS, API_DEFAULT_VERSION)
            }
            DockerEngine::Tcp(addr) => Docker::connect_with_http(
                &format!("tcp://{addr}"),
                TIMEOUT_SECS,
                API_DEFAULT_VERSION,
            ),
        };
        connected.map_err(|err| format!("cannot connect to {}: {err}", self.address()))
    }

    /// Runs one request on a runtime of its own, in a thread of its own.
    fn probe<'a, T, F>(&'a self, request: impl FnOnce(Docker) -> F + Send + 'a) -> Result<T, String>
    where
        T: Send,
        F: Future<Output = Result<T, String>> + 'a,
    {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|err| format!("cannot start a runtime for the probe: {err}"))?;
                    let docker = self.connect()?;
                    let limit = std::time::Duration::from_secs(TIMEOUT_SECS);
                    runtime.block_on(async {
                        tokio::time::timeout(limit, request(docker)).await.unwrap_or_else(|_| {
                            Err(format!(
                                "docker engine did not answer: no reply within {TIMEOUT_SECS}s"
                            ))
                        })
                    })
                })
                .join()
                .unwrap_or_else(|_| Err("the Docker probe failed".to_owned()))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixListener;

    use super::*;

    #[test]
    fn parses_docker_host_values() {
        assert_eq!(
            DockerEngine::from_docker_host(None),
            Some(DockerEngine::Unix("/var/run/docker.sock".into()))
        );
        assert_eq!(
            DockerEngine::from_docker_host(Some("unix:///tmp/x.sock")),
            Some(DockerEngine::Unix("/tmp/x.sock".into()))
        );
        assert_eq!(
            DockerEngine::from_docker_host(Some("tcp://127.0.0.1:2375")),
            Some(DockerEngine::Tcp("127.0.0.1:2375".into()))
        );
        assert_eq!(DockerEngine::from_docker_host(Some("ssh://host")), None);
    }

    #[test]
    fn a_dead_socket_does_not_answer() {
        let dir = tempfile::tempdir().unwrap();
        let engine = DockerEngine::Unix(dir.path().join("none.sock").display().to_string());
        let err = engine.ping().unwrap_err();
        assert!(err.contains("cannot connect"), "{err}");
        let err = engine.has_image("postgres:15-alpine").unwrap_err();
        assert!(err.contains("cannot connect"), "{err}");
    }

    #[test]
    fn a_closed_port_does_not_answer() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let engine = DockerEngine::Tcp(format!("127.0.0.1:{port}"));
        let err = engine.ping().unwrap_err();
        assert!(err.contains("cannot connect"), "{err}");
    }

    /// A fake engine on a Unix socket answering each connection with the next of `replies`
    /// (status and body); the request lines it received.
    fn fake_engine(
        socket: &std::path::Path,
        replies: Vec<(u16, &'static str)>,
    ) -> std::thread::JoinHandle<Vec<String>> {
        let listener = UnixListener::bind(socket).unwrap();
        std::thread::spawn(move || {
            let mut requests = Vec::new();
            for (status, body) in replies {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                requests.push(line.trim().to_owned());
                // The rest of the request head.
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                        break;
                    }
                }
                let reason = if status == 200 { "OK" } else { "Not Found" };
                let content_type =
                    if body.starts_with('{') { "application/json" } else { "text/plain" };
                let mut stream = stream;
                write!(
                    stream,
                    "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .unwrap();
            }
            requests
        })
    }

    #[test]
    fn asks_the_engine_for_ping_and_images() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("docker.sock");
        let engine_thread = fake_engine(
            &socket,
            vec![
                (200, "OK"),
                (200, r#"{"Id":"sha256:1","RepoTags":["planner-postgres:15"]}"#),
                (404, r#"{"message":"No such image: postgres:15-alpine"}"#),
                (500, r#"{"message":"engine trouble"}"#),
            ],
        );
        let engine = DockerEngine::Unix(socket.display().to_string());
        assert_eq!(engine.ping(), Ok(()));
        assert_eq!(engine.has_image("planner-postgres:15"), Ok(true));
        assert_eq!(engine.has_image("postgres:15-alpine"), Ok(false));
        let err = engine.has_image("other:1").unwrap_err();
        assert_eq!(err, "docker engine answered 500 to an image inspection");
        // Unversioned paths: the engine answers in its own API version, old or new.
        assert_eq!(
            engine_thread.join().unwrap(),
            [
                "GET /_ping HTTP/1.1",
                "GET /images/planner-postgres:15/json HTTP/1.1",
                "GET /images/postgres:15-alpine/json HTTP/1.1",
                "GET /images/other:1/json HTTP/1.1",
            ]
        );
    }
}
