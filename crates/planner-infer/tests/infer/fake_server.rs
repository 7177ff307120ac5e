//! An in-process fake OpenAI-compatible server: a tiny HTTP/1.1 responder on `127.0.0.1:0`
//! whose replies are scripted per request.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One scripted HTTP reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    /// A 200 chat completion whose message content is `content`.
    pub fn content(content: &str) -> Reply {
        let body = json!({
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        });
        Reply::raw(200, &body.to_string())
    }

    /// A reply with this status and body.
    pub fn raw(status: u16, body: &str) -> Reply {
        Reply { status, headers: Vec::new(), body: body.to_owned(), delay: Duration::ZERO }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Script = dyn Fn(usize, &Json) -> Reply + Send + Sync;

/// A running fake server. Dropping it stops accepting connections.
pub struct FakeServer {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Json>>>,
    headers: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeServer {
    /// Replies with `script(n, body)` to the n-th request (0-based).
    pub async fn start(
        script: impl Fn(usize, &Json) -> Reply + Send + Sync + 'static,
    ) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let headers = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let task = {
            let requests = Arc::clone(&requests);
            let headers = Arc::clone(&headers);
            tokio::spawn(async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else { return };
                    let requests = Arc::clone(&requests);
                    let headers = Arc::clone(&headers);
                    let script = Arc::clone(&script);
                    tokio::spawn(async move {
                        let _ = serve(stream, &requests, &headers, &*script).await;
                    });
                }
            })
        };
        FakeServer { base_url: format!("http://{address}/v1"), requests, headers, task }
    }

    /// Always the same reply.
    pub async fn always(reply: Reply) -> FakeServer {
        FakeServer::start(move |_, _| reply.clone()).await
    }

    /// These replies in order, then the last one forever.
    pub async fn sequence(replies: Vec<Reply>) -> FakeServer {
        FakeServer::start(move |n, _| replies[n.min(replies.len() - 1)].clone()).await
    }

    /// The JSON bodies received so far.
    pub fn requests(&self) -> Vec<Json> {
        self.requests.lock().unwrap().clone()
    }

    /// The raw header blocks received so far.
    pub fn header_blocks(&self) -> Vec<String> {
        self.headers.lock().unwrap().clone()
    }
}

async fn serve(
    mut stream: tokio::net::TcpStream,
    requests: &Mutex<Vec<Json>>,
    headers: &Mutex<Vec<String>>,
    script: &Script,
) -> std::io::Result<()> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(at) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while buffer.len() < header_end + length {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let body: Json = serde_json::from_slice(&buffer[header_end..]).unwrap_or(Json::Null);
    let index = {
        let mut requests = requests.lock().unwrap();
        requests.push(body.clone());
        headers.lock().unwrap().push(head);
        requests.len() - 1
    };
    let reply = script(index, &body);
    tokio::time::sleep(reply.delay).await;
    let mut response = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    stream.write_all(response.as_bytes()).await?;
    stream.write_all(reply.body.as_bytes()).await?;
    stream.shutdown().await
}
