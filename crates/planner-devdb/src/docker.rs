//! Just enough of the Docker Engine API to decide whether testcontainers can be used: is an
//! engine answering, and does it have an image. testcontainers itself starts the container.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(3);

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
        let (status, body) = self.get("/_ping")?;
        if status == 200 && body.trim() == "OK" {
            Ok(())
        } else {
            Err(format!("docker engine answered {status} to /_ping"))
        }
    }

    /// Whether the engine has the image `name:tag` locally.
    pub fn has_image(&self, image: &str) -> Result<bool, String> {
        let (status, _) = self.get(&format!("/images/{image}/json"))?;
        match status {
            200 => Ok(true),
            404 => Ok(false),
            other => Err(format!("docker engine answered {other} to an image inspection")),
        }
    }

    fn get(&self, path: &str) -> Result<(u16, String), String> {
        let request = format!("GET {path} HTTP/1.0\r\nHost: docker\r\nConnection: close\r\n\r\n");
        let response = match self {
            DockerEngine::Unix(socket) => {
                let mut stream = UnixStream::connect(socket)
                    .map_err(|err| format!("cannot connect to {socket}: {err}"))?;
                exchange(&mut stream, &request, |s| {
                    s.set_read_timeout(Some(TIMEOUT))?;
                    s.set_write_timeout(Some(TIMEOUT))
                })
            }
            DockerEngine::Tcp(addr) => {
                let addr_parsed = std::net::ToSocketAddrs::to_socket_addrs(addr.as_str())
                    .map_err(|err| format!("bad docker address {addr}: {err}"))?
                    .next()
                    .ok_or_else(|| format!("bad docker address {addr}"))?;
                let mut stream = TcpStream::connect_timeout(&addr_parsed, TIMEOUT)
                    .map_err(|err| format!("cannot connect to {addr}: {err}"))?;
                exchange(&mut stream, &request, |s| {
                    s.set_read_timeout(Some(TIMEOUT))?;
                    s.set_write_timeout(Some(TIMEOUT))
                })
            }
        }
        .map_err(|err| format!("docker engine did not answer: {err}"))?;
        parse_response(&response).ok_or_else(|| "docker engine sent a malformed answer".to_owned())
    }
}

fn exchange<S: Read + Write>(
    stream: &mut S,
    request: &str,
    configure: impl FnOnce(&mut S) -> std::io::Result<()>,
) -> std::io::Result<String> {
    configure(stream)?;
    stream.write_all(request.as_bytes())?;
    let mut buf = Vec::new();
    stream.take(1 << 20).read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn parse_response(response: &str) -> Option<(u16, String)> {
    let status_line = response.lines().next()?;
    let status = status_line.split_whitespace().nth(1)?.parse().ok()?;
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    Some((status, body.to_owned()))
}

#[cfg(test)]
mod tests {
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
    }

    #[test]
    fn parses_http_answers() {
        assert_eq!(
            parse_response("HTTP/1.1 200 OK\r\nApi-Version: 1.45\r\n\r\nOK"),
            Some((200, "OK".to_owned()))
        );
        assert_eq!(parse_response("garbage"), None);
    }
}
