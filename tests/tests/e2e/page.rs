//! The page at `/` driven in headless Chromium against the real server on a TCP port: it types
//! a key and a question, clicks Ask, waits for the answer, and finds the answer's text, the
//! evidence tables and the plan picture in the DOM, each equal to what the API answers. It
//! also walks a clarification through the page. Screenshots are saved as test artifacts under
//! `target/test-artifacts/page/` (`$CARGO_TARGET_DIR/test-artifacts/page/` when that is set).
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it) or `PLANNER_CHROMIUM`. When
//! it is missing the test says so and passes, except under `CI=true`, where it fails.

use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use serde_json::{Value, json};
use sqlx::PgPool;
use tower::ServiceExt as _;

use crate::browser::{Browser, find_chromium};
use crate::server::{CLARIFY, COMPOUND, SPEND_BY_QUARTER, seeded, server};

/// The page is finished with a submission: it shows an answer, asks back or shows a problem.
const SETTLED: &str =
    "['answered', 'needs-input', 'problem'].includes(document.body.dataset.state)";

/// What the page shows, read from the DOM.
const SHOWN: &str = r#"(() => {
  const $ = (id) => document.getElementById(id);
  const svg = document.querySelector('#plan svg');
  return {
    state: document.body.dataset.state,
    status: $('status').textContent,
    answer_visible: !$('answer').hidden,
    text: $('text').textContent,
    tables: [...document.querySelectorAll('#evidence .evidence')].map((box) => ({
      intent: box.querySelector('h3').textContent,
      columns: [...box.querySelectorAll('thead th')].map((th) => th.textContent),
      rows: [...box.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent)),
    })),
    svg_nodes: svg ? [...svg.querySelectorAll('.node')].map((g) => g.dataset.intent) : null,
    svg_dropped: svg ? [...svg.querySelectorAll('.dropped')].map((g) => g.dataset.intent) : null,
    svg_width: svg ? svg.getBoundingClientRect().width : 0,
    dropped: svg ? [...svg.querySelectorAll('.dropped')].map((g) => g.textContent) : [],
    thread: $('thread').value,
    charts: [...document.querySelectorAll('#evidence .evidence')].map((box) => {
      const chart = box.querySelector('.chart svg');
      return chart ? chart.querySelector('title').textContent : null;
    }),
  };
})()"#;

/// Chromium; a failure when it is missing (`cargo xtask test` lists this test as not run there).
fn chromium() -> PathBuf {
    find_chromium().unwrap_or_else(|| {
        panic!(
            "chromium is not installed: `apt-get install -y chromium` (.ci/run does), or set \
             PLANNER_CHROMIUM; `cargo xtask test` lists this test as not run without it"
        )
    })
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("test-artifacts/page");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What the API answers `question` for `key`, with the picture and the tables as the page shows
/// them.
async fn api_answer(app: &Router, key: &str, question: &str) -> Value {
    let request = Request::post("/v1/answer?include=svg&include=tables")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({ "question": question }).to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Types `key` and `question`, clicks Ask and waits until the page has settled; what it shows.
async fn ask(browser: &mut Browser, key: &str, question: &str) -> Value {
    browser.type_into("key", key).await;
    browser.type_into("question", question).await;
    // The page sets the state on every submission; clear it so that a stale one is not read.
    browser.eval("document.body.dataset.state = ''").await;
    browser.click("submit").await;
    browser.wait_for(SETTLED, Duration::from_secs(60)).await;
    browser.eval(SHOWN).await
}

/// The PNG's width and height from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&png[12..16], b"IHDR");
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|it| it.as_str().unwrap().to_owned()).collect()
}

#[sqlx::test]
async fn the_page_answers_and_draws_the_plan_in_chromium(pool: PgPool) {
    let chromium = chromium();
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(planner_server::serve(listener, app.clone(), async move {
        let _ = stopped.await;
    }));
    let mut browser = Browser::launch(&chromium, 1280, 900).await;
    browser.goto(&format!("http://{addr}/")).await;
    assert_eq!(browser.eval("document.title").await, "planner");
    assert_eq!(browser.eval("document.body.dataset.state").await, "idle");

    // The compound question with the bench scope: both tables and the picture.
    let shown = ask(&mut browser, &keys.bench, COMPOUND).await;
    let expected = api_answer(&app, &keys.bench, COMPOUND).await;
    assert_eq!(shown["state"], "answered", "{shown}");
    assert_eq!(shown["answer_visible"], true, "{shown}");
    assert_eq!(shown["status"], "", "{shown}");
    assert!(!shown["text"].as_str().unwrap().is_empty(), "{shown}");
    assert_eq!(shown["text"], expected["text"]);
    let tables = shown["tables"].as_array().unwrap();
    let evidence = expected["evidence"].as_array().unwrap();
    assert_eq!(tables.len(), 2, "{shown}");
    let shown_tables = expected["tables"].as_array().unwrap();
    for ((table, evidence), shown_table) in tables.iter().zip(evidence).zip(shown_tables) {
        assert_eq!(table["intent"], evidence["intent"]);
        assert_eq!(table["columns"], evidence["columns"]);
        // The cells as the text writes them (money in dollars), one for one with the evidence.
        assert_eq!(table["rows"], shown_table["rows"]);
        assert_eq!(
            table["rows"].as_array().unwrap().len(),
            evidence["rows"].as_array().unwrap().len()
        );
        assert!(!table["rows"].as_array().unwrap().is_empty(), "{table}");
    }
    let money = tables[0]["rows"][0][3].as_str().unwrap();
    assert!(money.starts_with('$') && money.contains('.'), "{shown}");
    let plan_intents: Vec<String> = expected["plan"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["intent"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(strings(&shown["svg_nodes"]), plan_intents, "{shown}");
    assert_eq!(strings(&shown["svg_nodes"]), ["top_incumbents", "bench_compartment_counts"]);
    assert!(shown["svg_width"].as_f64().unwrap() > 100.0, "the picture is not laid out: {shown}");
    let png = browser.screenshot().await;
    let (width, height) = png_size(&png);
    assert!(width >= 1000 && height >= 900, "{width}x{height}");
    std::fs::write(artifacts().join("answered.png"), &png).unwrap();

    // A table of vendors has no chart; spend by fiscal quarter is drawn above its table.
    assert_eq!(shown["charts"], json!([null, null]), "{shown}");
    let shown = ask(&mut browser, &keys.plain, SPEND_BY_QUARTER).await;
    let expected = api_answer(&app, &keys.plain, SPEND_BY_QUARTER).await;
    assert_eq!(shown["state"], "answered", "{shown}");
    let charts: Vec<Value> = expected["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|table| match table["chart_svg"].as_str() {
            Some(svg) => {
                let title = svg.split("<title>").nth(1).and_then(|it| it.split("</title>").next());
                json!(title.unwrap())
            }
            None => Value::Null,
        })
        .collect();
    assert!(charts.iter().any(Value::is_string), "{expected}");
    assert_eq!(shown["charts"], json!(charts), "{shown}");
    std::fs::write(artifacts().join("chart.png"), browser.screenshot().await).unwrap();

    // Without the bench scope the bench node is drawn greyed in the picture, with its reason.
    let shown = ask(&mut browser, &keys.plain, COMPOUND).await;
    assert_eq!(shown["state"], "answered", "{shown}");
    assert_eq!(shown["tables"].as_array().unwrap().len(), 1, "{shown}");
    assert_eq!(strings(&shown["svg_dropped"]), ["bench_compartment_counts"], "{shown}");
    let dropped = strings(&shown["dropped"]);
    assert!(
        dropped.len() == 1
            && dropped[0].contains("bench_compartment_counts")
            && dropped[0].contains("forbidden"),
        "{shown}"
    );
    std::fs::write(artifacts().join("dropped.png"), browser.screenshot().await).unwrap();

    // A clarification: the page asks back, hides the old answer, and the reply resumes the thread.
    let shown = ask(&mut browser, &keys.bench, CLARIFY).await;
    assert_eq!(shown["state"], "needs-input", "{shown}");
    assert_eq!(shown["answer_visible"], false, "a stale answer stays on screen: {shown}");
    assert!(!shown["thread"].as_str().unwrap().is_empty(), "{shown}");
    assert!(shown["status"].as_str().unwrap().contains("NAICS"), "{shown}");
    let shown = ask(&mut browser, &keys.bench, "under NAICS 541512").await;
    assert_eq!(shown["state"], "answered", "{shown}");
    assert_eq!(shown["thread"], "", "{shown}");
    assert_eq!(strings(&shown["svg_nodes"]), ["top_incumbents"], "{shown}");

    // A bad key shows the problem instead of an answer.
    let shown = ask(&mut browser, "pk_not_a_key", COMPOUND).await;
    assert_eq!(shown["state"], "problem", "{shown}");
    assert_eq!(shown["answer_visible"], false, "{shown}");
    assert!(shown["status"].as_str().unwrap().contains("unknown or revoked"), "{shown}");

    drop(browser);
    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}
