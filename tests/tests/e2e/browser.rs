//! A headless Chromium driven over the Chrome DevTools Protocol: the browser is started with
//! `--remote-debugging-port=0`, the test connects to the WebSocket it prints, opens one page
//! and sends commands to it (flattened sessions). Only what the page test needs: navigate,
//! evaluate, type, click, screenshot.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use base64::Engine as _;
use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long one protocol command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// The Chromium binary: `PLANNER_CHROMIUM`, else `chromium` or `chromium-browser` on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PLANNER_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A running headless browser with one page attached; killed when dropped.
pub struct Browser {
    // Kept for `kill_on_drop`; the profile directory outlives the process.
    _child: Child,
    _profile: tempfile::TempDir,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").field("session", &self.session).finish_non_exhaustive()
    }
}

impl Browser {
    /// Starts `binary` headless with a `width`×`height` window and attaches to a blank page.
    pub async fn launch(binary: &Path, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(binary)
            .args([
                "--headless",
                // Needed as root and in containers; the page is the test's own.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", binary.display()));
        let stderr = child.stderr.take().unwrap();
        let url = tokio::time::timeout(Duration::from_secs(60), async {
            let mut lines = BufReader::new(stderr).lines();
            let mut seen = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    // Keep draining stderr so that the browser never blocks on a full pipe.
                    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                    return url.trim().to_owned();
                }
                seen.push(line);
            }
            panic!("chromium exited before listening:\n{}", seen.join("\n"));
        })
        .await
        .expect("chromium did not print its DevTools address within 60 s");
        let (socket, _) = tokio_tungstenite::connect_async(url.as_str()).await.unwrap();
        let mut browser = Browser {
            _child: child,
            _profile: profile,
            socket,
            session: String::new(),
            next_id: 0,
        };
        let target =
            browser.browser_call("Target.createTarget", json!({ "url": "about:blank" })).await;
        let target_id = target["targetId"].as_str().unwrap().to_owned();
        let attached = browser
            .browser_call(
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
            )
            .await;
        browser.session = attached["sessionId"].as_str().unwrap().to_owned();
        browser.call("Page.enable", json!({})).await;
        browser.call("Runtime.enable", json!({})).await;
        browser
    }

    async fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::String(session);
        }
        self.socket.send(Message::text(message.to_string())).await.unwrap();
        let reply = tokio::time::timeout(COMMAND_TIMEOUT, async {
            loop {
                let frame = self.socket.next().await.expect("the browser closed the connection");
                let Message::Text(text) = frame.unwrap() else { continue };
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
                // Events carry no id; other replies cannot be pending (one call at a time).
                if value["id"].as_u64() == Some(id) {
                    return value;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{method} got no reply within {COMMAND_TIMEOUT:?}"));
        if let Some(error) = reply.get("error") {
            panic!("{method} failed: {error}");
        }
        reply["result"].clone()
    }

    async fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None).await
    }

    /// Sends `method` to the page; its result.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(session)).await
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value as JSON.
    pub async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await;
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("`{expression}` threw: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Navigates to `url` and waits until the document has loaded.
    pub async fn goto(&mut self, url: &str) {
        let navigated = self.call("Page.navigate", json!({ "url": url })).await;
        assert!(navigated.get("errorText").is_none(), "navigating to {url}: {navigated}");
        self.wait_for("document.readyState === 'complete'", Duration::from_secs(30)).await;
    }

    /// Polls `condition` (a JavaScript expression) until it is true.
    pub async fn wait_for(&mut self, condition: &str, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self.eval(condition).await != Value::Bool(true) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "`{condition}` still false after {limit:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Focuses the element `#id`, selects its content and types `text` over it, as a user
    /// would with the keyboard (one insertion through the input pipeline).
    pub async fn type_into(&mut self, id: &str, text: &str) {
        let found = self
            .eval(&format!(
                "(() => {{ const el = document.getElementById({id:?}); if (!el) return false; \
                 el.focus(); el.select(); return document.activeElement === el; }})()"
            ))
            .await;
        assert_eq!(found, Value::Bool(true), "no focusable #{id}");
        self.call("Input.insertText", json!({ "text": text })).await;
    }

    /// Clicks the middle of the element `#id` with the mouse.
    pub async fn click(&mut self, id: &str) {
        let rect = self
            .eval(&format!(
                "(() => {{ const el = document.getElementById({id:?}); el.scrollIntoView(); \
                 const r = el.getBoundingClientRect(); \
                 return {{ x: r.left + r.width / 2, y: r.top + r.height / 2 }}; }})()"
            ))
            .await;
        let (x, y) = (rect["x"].as_f64().unwrap(), rect["y"].as_f64().unwrap());
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )
            .await;
        }
    }

    /// A PNG of the whole page (beyond the window when the page is taller).
    pub async fn screenshot(&mut self) -> Vec<u8> {
        let metrics = self.call("Page.getLayoutMetrics", json!({})).await;
        let size = &metrics["cssContentSize"];
        let clip = json!({
            "x": 0, "y": 0, "scale": 1,
            "width": size["width"].as_f64().unwrap(),
            "height": size["height"].as_f64().unwrap(),
        });
        let shot = self
            .call(
                "Page.captureScreenshot",
                json!({ "format": "png", "captureBeyondViewport": true, "clip": clip }),
            )
            .await;
        base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap()
    }
}
