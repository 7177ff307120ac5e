//! The HTTP API driven through `planner_server::app` on a seeded database: authentication and
//! scopes, tenant isolation, every bad-input case, load shedding, timeouts, the database going
//! away, and a clarification resumed by a second server instance sharing the database.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use planner_engine::{Engine, EngineConfig, Planner, plan_report};
use planner_exec::{TenantId, create_api_key, revoke_api_key};
use planner_registry::Registry;
use planner_server::{AppState, ServerConfig};
use serde_json::{Value, json};
use sqlx::PgPool;
use tower::ServiceExt as _;

pub(super) const COMPOUND: &str = "For the 'Department of the Army' recompete under NAICS 541512, who are \
                        the incumbents and how many of our bench hold TS/SCI with SI/TK?";
pub(super) const CLARIFY: &str = "Who are the top incumbents at the Army?";

pub(super) use super::harness::seed as seeded;

fn registry() -> Registry {
    planner_registry::reference::registry().unwrap()
}

fn server_with(pool: &PgPool, config: ServerConfig) -> Router {
    let engine = Engine::new(EngineConfig::new(registry()), pool.clone());
    planner_server::app(AppState::new(engine, pool.clone(), config))
}

pub(super) fn server(pool: &PgPool) -> Router {
    server_with(pool, ServerConfig::default())
}

struct Reply {
    status: StatusCode,
    content_type: String,
    headers: axum::http::HeaderMap,
    text: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|err| panic!("{err}: {}", self.text))
    }

    /// Asserts a problem+json body with `status`; its `detail`.
    fn problem(&self, status: StatusCode) -> String {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.content_type, "application/problem+json", "{}", self.text);
        let body = self.json();
        assert_eq!(body["status"], status.as_u16());
        body["detail"].as_str().unwrap().to_owned()
    }
}

async fn call(app: &Router, method: Method, uri: &str, key: Option<&str>, body: Body) -> Reply {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(key) = key {
        request = request.header(header::AUTHORIZATION, format!("Bearer {key}"));
    }
    let request = request.header(header::CONTENT_TYPE, "application/json").body(body).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|it| it.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    Reply { status, content_type, headers, text: String::from_utf8(bytes.to_vec()).unwrap() }
}

async fn post(app: &Router, uri: &str, key: Option<&str>, body: &Value) -> Reply {
    call(app, Method::POST, uri, key, Body::from(body.to_string())).await
}

async fn get(app: &Router, uri: &str, key: Option<&str>) -> Reply {
    call(app, Method::GET, uri, key, Body::empty()).await
}

fn intents(items: &Value) -> Vec<String> {
    items.as_array().unwrap().iter().map(|it| it["intent"].as_str().unwrap().to_owned()).collect()
}

#[sqlx::test]
async fn requests_without_a_valid_key_are_unauthorized(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let question = json!({ "question": COMPOUND });
    let missing = post(&app, "/v1/answer", None, &question).await;
    assert!(missing.problem(StatusCode::UNAUTHORIZED).contains("Authorization"));
    assert_eq!(missing.headers[header::WWW_AUTHENTICATE], "Bearer");
    let bad = post(&app, "/v1/answer", Some("pk_not_a_key"), &question).await;
    assert!(bad.problem(StatusCode::UNAUTHORIZED).contains("unknown or revoked"));
    let basic = Request::get("/v1/registry")
        .header(header::AUTHORIZATION, format!("Basic {}", keys.bench))
        .body(Body::empty())
        .unwrap();
    assert_eq!(app.clone().oneshot(basic).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    for uri in ["/v1/registry", "/v1/graph"] {
        get(&app, uri, None).await.problem(StatusCode::UNAUTHORIZED);
    }
    post(&app, "/v1/plan", None, &question).await.problem(StatusCode::UNAUTHORIZED);
    // A revoked key stops working (verified keys not cached here: at once).
    let app =
        server_with(&pool, ServerConfig { key_cache_ttl: Duration::ZERO, ..Default::default() });
    let tenant = TenantId(planner_dataset::DEMO_TENANTS[0].id);
    let key = create_api_key(&pool, tenant, &["bench"]).await.unwrap();
    assert_eq!(get(&app, "/v1/registry", Some(&key.secret)).await.status, StatusCode::OK);
    assert!(revoke_api_key(&pool, key.id).await.unwrap());
    get(&app, "/v1/registry", Some(&key.secret)).await.problem(StatusCode::UNAUTHORIZED);
    // The public endpoints need no key; a valid key works.
    assert_eq!(get(&app, "/healthz", None).await.status, StatusCode::OK);
    assert_eq!(get(&app, "/v1/registry", Some(&keys.plain)).await.status, StatusCode::OK);
}

#[sqlx::test]
async fn bench_intents_need_the_bench_scope(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let question = json!({ "question": COMPOUND });
    let with_scope = post(&app, "/v1/answer", Some(&keys.bench), &question).await;
    assert_eq!(with_scope.status, StatusCode::OK, "{}", with_scope.text);
    let answer = with_scope.json();
    assert_eq!(answer["status"], "answered");
    assert_eq!(intents(&answer["evidence"]), ["top_incumbents", "bench_compartment_counts"]);

    let without = post(&app, "/v1/answer", Some(&keys.plain), &question).await;
    assert_eq!(without.status, StatusCode::OK, "{}", without.text);
    let answer = without.json();
    assert_eq!(intents(&answer["evidence"]), ["top_incumbents"]);
    assert!(intents(&answer["dropped"]).contains(&"bench_compartment_counts".to_owned()));
    assert!(!intents(&answer["plan"]["nodes"]).contains(&"bench_compartment_counts".to_owned()));
}

#[sqlx::test]
async fn a_clarification_resumes_on_another_instance_for_its_tenant_only(pool: PgPool) {
    let keys = seeded(&pool).await;
    let first = server(&pool);
    let second = server(&pool);
    let asked =
        post(&first, "/v1/answer", Some(&keys.bench), &json!({ "question": CLARIFY })).await;
    assert_eq!(asked.status, StatusCode::OK, "{}", asked.text);
    let needs = asked.json();
    assert_eq!(needs["status"], "needs_input");
    assert_eq!(needs["missing"], json!(["naics"]));
    let thread = needs["thread_id"].as_str().unwrap().to_owned();
    let uri = format!("/v1/threads/{thread}/resume");

    // Another tenant's key does not see the thread, on either route.
    let answer = json!({ "answer": "under NAICS 541512" });
    let detail = post(&second, &uri, Some(&keys.other_tenant), &answer).await;
    detail.problem(StatusCode::NOT_FOUND);
    let via_answer = json!({ "question": "541512", "thread_id": thread });
    post(&second, "/v1/answer", Some(&keys.other_tenant), &via_answer)
        .await
        .problem(StatusCode::NOT_FOUND);

    // The owner resumes on the second instance.
    let resumed = post(&second, &uri, Some(&keys.bench), &answer).await;
    assert_eq!(resumed.status, StatusCode::OK, "{}", resumed.text);
    let answered = resumed.json();
    assert_eq!(answered["status"], "answered");
    assert_eq!(answered["route"], "single");
    assert_eq!(answered["plan"]["nodes"][0]["intent"], "top_incumbents");
    // The thread is finished.
    post(&first, &uri, Some(&keys.bench), &answer).await.problem(StatusCode::NOT_FOUND);
    post(&first, "/v1/threads/no-such-thread/resume", Some(&keys.bench), &answer)
        .await
        .problem(StatusCode::NOT_FOUND);
}

#[sqlx::test]
async fn the_resume_can_also_go_through_the_answer_route(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let needs =
        post(&app, "/v1/answer", Some(&keys.bench), &json!({ "question": CLARIFY })).await.json();
    let thread = needs["thread_id"].as_str().unwrap();
    let resumed = post(
        &app,
        "/v1/answer",
        Some(&keys.bench),
        &json!({ "question": "NAICS 541512", "thread_id": thread }),
    )
    .await;
    assert_eq!(resumed.status, StatusCode::OK, "{}", resumed.text);
    assert_eq!(resumed.json()["route"], "single");
}

#[sqlx::test]
async fn bad_input_gets_a_problem_saying_what_is_wrong(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let key = Some(keys.bench.as_str());
    let raw = |text: &str| Body::from(text.to_owned());

    let malformed = call(&app, Method::POST, "/v1/answer", key, raw("{\"question\": ")).await;
    let detail = malformed.problem(StatusCode::BAD_REQUEST);
    assert!(detail.contains("not acceptable JSON") && detail.contains("line 1"), "{detail}");

    let missing = post(&app, "/v1/answer", key, &json!({ "q": "hello" })).await;
    let detail = missing.problem(StatusCode::BAD_REQUEST);
    assert!(detail.contains("`q`") || detail.contains("`question`"), "{detail}");

    let no_field = post(&app, "/v1/plan", key, &json!({})).await;
    assert!(no_field.problem(StatusCode::BAD_REQUEST).contains("missing field `question`"));

    let wrong_type = post(&app, "/v1/answer", key, &json!({ "question": 7 })).await;
    assert!(wrong_type.problem(StatusCode::BAD_REQUEST).contains("invalid type"));

    let empty = call(&app, Method::POST, "/v1/answer", key, Body::empty()).await;
    assert!(empty.problem(StatusCode::BAD_REQUEST).contains("empty"));

    let too_long = "a".repeat(2_001);
    for (uri, body) in [
        ("/v1/answer", json!({ "question": too_long })),
        ("/v1/plan", json!({ "question": too_long })),
        ("/v1/threads/any/resume", json!({ "answer": too_long })),
    ] {
        let reply = post(&app, uri, key, &body).await;
        let detail = reply.problem(StatusCode::UNPROCESSABLE_ENTITY);
        assert!(detail.contains("2000") || detail.contains("2,000"), "{uri}: {detail}");
    }

    let blank = post(&app, "/v1/answer", key, &json!({ "question": "   " })).await;
    blank.problem(StatusCode::UNPROCESSABLE_ENTITY);

    let huge = json!({ "question": "x".repeat(33 * 1024) });
    let reply = post(&app, "/v1/answer", key, &huge).await;
    assert!(reply.problem(StatusCode::PAYLOAD_TOO_LARGE).contains("32768"));

    get(&app, "/v1/nothing-here", key).await.problem(StatusCode::NOT_FOUND);
    let wrong_method = get(&app, "/v1/answer", key).await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[sqlx::test]
async fn query_strings_outside_the_document_get_400_saying_which(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let key = Some(keys.plain.as_str());
    let question = json!({ "question": COMPOUND });
    for (uri, words) in [
        ("/v1/answer?include=null", "`include` must be `svg` or `tables`, not `null`"),
        ("/v1/answer?include=null&include=null", "`include` must be `svg` or `tables`"),
        ("/v1/answer?include=svg&verbose=1", "unknown query parameter `verbose`"),
        ("/v1/plan?include=svg", "this route takes no query parameters"),
    ] {
        let detail = post(&app, uri, key, &question).await.problem(StatusCode::BAD_REQUEST);
        assert!(detail.contains(words), "{uri}: {detail}");
    }
    let resume =
        post(&app, "/v1/threads/any/resume?x=1", key, &json!({ "answer": "541512" })).await;
    assert!(resume.problem(StatusCode::BAD_REQUEST).contains("this route takes `include`"));
    for (uri, words) in [
        ("/v1/registry?page=2", "unknown query parameter `page`"),
        ("/v1/graph?name=other", "`name` must be `planner` or `acquire`, not `other`"),
        ("/v1/graph?name=planner&size=9", "unknown query parameter `size`"),
    ] {
        let detail = get(&app, uri, key).await.problem(StatusCode::BAD_REQUEST);
        assert!(detail.contains(words), "{uri}: {detail}");
    }
    // Percent-encoded values decode before the check; the declared ones are answered.
    assert_eq!(get(&app, "/v1/graph?name=acqu%69re", key).await.status, StatusCode::OK);
    assert_eq!(get(&app, "/v1/registry", key).await.status, StatusCode::OK);
    let drawn = post(&app, "/v1/answer?include=svg", key, &question).await;
    assert_eq!(drawn.status, StatusCode::OK, "{}", drawn.text);
}

/// The largest request the document accepts (2,000 characters, each an astral one that a client
/// escapes as a `\uXXXX` surrogate pair) fits the default body limit: a valid request is never
/// a 413.
#[sqlx::test]
async fn the_largest_valid_request_fits_the_body_limit(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let question: String = std::iter::repeat_n('\u{1F600}', 2_000).collect();
    let escaped = format!("{{\"question\": \"{}\"}}", "\\ud83d\\ude00".repeat(2_000));
    assert_eq!(serde_json::from_str::<Value>(&escaped).unwrap()["question"], question.as_str());
    assert!(escaped.len() > 16 * 1024 && escaped.len() <= ServerConfig::default().max_body_bytes);
    let reply = call(&app, Method::POST, "/v1/plan", Some(&keys.plain), Body::from(escaped)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
}

/// Every status the OpenAPI document lists for an operation is one a request can get: for each
/// (operation, status) of the document, a request that gets it, on a server configured to give
/// it. A status the document gains without a case here fails the test, so the document lists
/// what the server answers and nothing else.
#[sqlx::test]
async fn every_status_the_document_lists_is_one_a_request_gets(pool: PgPool) {
    let keys = seeded(&pool).await;
    let key = keys.bench.as_str();
    let question = json!({ "question": COMPOUND });
    let clarify = json!({ "question": CLARIFY });
    let too_long = json!({ "question": "x".repeat(2_001) });
    let normal = server(&pool);
    // A key's rate is the same across routes: each route's case has a server of its own.
    let limited = || {
        server_with(
            &pool,
            ServerConfig { key_requests_per_minute: 1, key_burst: 1, ..ServerConfig::default() },
        )
    };
    let shed = server_with(&pool, ServerConfig { max_in_flight: 0, ..ServerConfig::default() });
    // A fresh server looks its key up in the database, which no request outlives at zero.
    let slow = || {
        server_with(&pool, ServerConfig { request_timeout: Duration::ZERO, ..Default::default() })
    };
    let waiting = post(&normal, "/v1/answer", Some(key), &clarify).await.json();
    assert_eq!(waiting["status"], "needs_input", "{waiting}");
    let thread = waiting["thread_id"].as_str().unwrap().to_owned();
    let resume_path = format!("/v1/threads/{thread}/resume");

    let document = get(&normal, "/openapi.json", None).await.json();
    let mut listed = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for status in operation["responses"].as_object().unwrap().keys() {
                listed.push((method.to_uppercase(), path.clone(), status.clone()));
            }
        }
    }
    for (method, path, status) in &listed {
        let expected: u16 = status.parse().unwrap();
        let post_route = method == "POST";
        let resume = path == "/v1/threads/{id}/resume";
        let (uri, body) = if resume {
            (resume_path.clone(), json!({ "answer": "541512" }))
        } else {
            (path.clone(), question.clone())
        };
        let send = |app: &Router, uri: String, key: Option<&str>, body: Body| {
            let method = if post_route { Method::POST } else { Method::GET };
            let app = app.clone();
            let key = key.map(str::to_owned);
            async move { call(&app, method, &uri, key.as_deref(), body).await }
        };
        let json_body = |value: &Value| Body::from(value.to_string());
        let reply = match (path.as_str(), expected) {
            // Last, below: it takes the database away.
            ("/readyz", 503) => continue,
            (_, 200) => send(&normal, uri, Some(key), json_body(&body)).await,
            (_, 400) if post_route => send(&normal, uri, Some(key), Body::from("{not json")).await,
            (_, 400) => send(&normal, format!("{uri}?unknown=1"), Some(key), Body::empty()).await,
            (_, 401) => send(&normal, uri, None, json_body(&body)).await,
            ("/v1/answer", 404) => {
                let body = json!({ "question": "541512", "thread_id": "no-such-thread" });
                send(&normal, uri, Some(key), json_body(&body)).await
            }
            (_, 404) => {
                send(
                    &normal,
                    "/v1/threads/no-such-thread/resume".into(),
                    Some(key),
                    json_body(&body),
                )
                .await
            }
            (_, 413) => {
                let big = Body::from(json!({ "question": "x".repeat(33 * 1024) }).to_string());
                send(&normal, uri, Some(key), big).await
            }
            (_, 422) if resume => {
                send(&normal, uri, Some(key), json_body(&json!({ "answer": "x".repeat(2_001) })))
                    .await
            }
            (_, 422) => send(&normal, uri, Some(key), json_body(&too_long)).await,
            (_, 429) => {
                let limited = limited();
                let first = send(&limited, uri.clone(), Some(key), json_body(&body)).await;
                assert_ne!(first.status, StatusCode::TOO_MANY_REQUESTS, "{path}: {}", first.text);
                send(&limited, uri, Some(key), json_body(&body)).await
            }
            (_, 503) => send(&shed, uri, Some(key), json_body(&body)).await,
            (_, 504) => {
                // The key lookup waits on a lock: no route outruns a limit of zero.
                let mut lock = pool.begin().await.unwrap();
                sqlx::query("LOCK TABLE admin.api_key IN ACCESS EXCLUSIVE MODE")
                    .execute(&mut *lock)
                    .await
                    .unwrap();
                let reply = send(&slow(), uri, Some(key), json_body(&body)).await;
                lock.rollback().await.unwrap();
                reply
            }
            _ => panic!("{method} {path} lists {status}, which no case here gets: add one"),
        };
        assert_eq!(reply.status.as_u16(), expected, "{method} {path}: {}", reply.text);
        if expected >= 400 {
            assert_eq!(reply.content_type, "application/problem+json", "{method} {path}");
        }
    }
    // The operations and statuses walked, so that the walk itself cannot shrink unnoticed.
    assert!(listed.len() >= 40, "{listed:?}");
    assert!(listed.contains(&("GET".to_owned(), "/readyz".to_owned(), "503".to_owned())));
    let engine_pool = PgPool::connect_with(pool.connect_options().as_ref().clone()).await.unwrap();
    let down = server(&engine_pool);
    planner_devdb::take_database_away(&engine_pool).await.unwrap();
    get(&down, "/readyz", None).await.problem(StatusCode::SERVICE_UNAVAILABLE);
}

#[sqlx::test]
async fn at_the_in_flight_limit_requests_are_shed(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server_with(&pool, ServerConfig { max_in_flight: 0, ..ServerConfig::default() });
    let reply = post(&app, "/v1/answer", Some(&keys.bench), &json!({ "question": COMPOUND })).await;
    assert!(reply.problem(StatusCode::SERVICE_UNAVAILABLE).contains("limit"));
    assert_eq!(reply.headers[header::RETRY_AFTER], "1");
    // Probes are not shed.
    assert_eq!(get(&app, "/healthz", None).await.status, StatusCode::OK);
    assert_eq!(get(&app, "/readyz", None).await.status, StatusCode::OK);
}

#[sqlx::test]
async fn a_request_past_the_time_limit_is_answered_with_504(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server_with(
        &pool,
        ServerConfig { request_timeout: Duration::ZERO, ..ServerConfig::default() },
    );
    let reply = post(&app, "/v1/answer", Some(&keys.bench), &json!({ "question": COMPOUND })).await;
    assert!(reply.problem(StatusCode::GATEWAY_TIMEOUT).contains("time limit"));
}

#[sqlx::test]
async fn the_database_going_away_gives_503_with_a_clear_body(pool: PgPool) {
    let keys = seeded(&pool).await;
    let engine_pool = PgPool::connect_with(pool.connect_options().as_ref().clone()).await.unwrap();
    let app = server(&engine_pool);
    assert_eq!(get(&app, "/readyz", None).await.status, StatusCode::OK);
    planner_devdb::take_database_away(&engine_pool).await.unwrap();
    let ready = get(&app, "/readyz", None).await;
    assert!(ready.problem(StatusCode::SERVICE_UNAVAILABLE).contains("database is unavailable"));
    let reply = post(&app, "/v1/answer", Some(&keys.bench), &json!({ "question": COMPOUND })).await;
    assert!(reply.problem(StatusCode::SERVICE_UNAVAILABLE).contains("database is unavailable"));
    assert_eq!(get(&app, "/healthz", None).await.status, StatusCode::OK);
}

#[sqlx::test]
async fn plan_registry_graph_metrics_and_openapi(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let key = Some(keys.bench.as_str());

    let plan = post(&app, "/v1/plan", key, &json!({ "question": COMPOUND })).await;
    assert_eq!(plan.status, StatusCode::OK, "{}", plan.text);
    let planner = Planner::new(registry(), None, 1);
    let expected = plan_report(&planner, COMPOUND, &["bench".to_owned()]).await.unwrap();
    assert_eq!(plan.json(), serde_json::to_value(&expected).unwrap());

    let registry = get(&app, "/v1/registry", key).await.json();
    let names: Vec<&str> = registry["intents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| it["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"top_incumbents") && names.contains(&"bench_compartment_counts"));
    assert!(registry["scopes"].as_array().unwrap().contains(&json!("bench")));
    assert!(!registry.to_string().contains("SELECT"), "the registry view leaks SQL");

    let graph = get(&app, "/v1/graph", key).await.json();
    assert!(graph["mermaid"].as_str().unwrap().starts_with("flowchart"), "{graph}");
    assert!(graph["svg"].as_str().unwrap().contains("data-id=\"run_plan\""), "{graph}");
    let acquire = get(&app, "/v1/graph?name=acquire", key).await.json();
    let drawn = acquire["mermaid"].as_str().unwrap();
    assert!(drawn.contains("enforce_caps -->|ask_user| ask_user"), "{acquire}");
    get(&app, "/v1/graph?name=other", key).await.problem(StatusCode::BAD_REQUEST);

    post(&app, "/v1/answer", key, &json!({ "question": COMPOUND })).await;
    post(&app, "/v1/answer", key, &json!({ "question": "How many of our bench are women?" })).await;
    let metrics = get(&app, "/metrics", None).await;
    assert!(metrics.content_type.starts_with("application/openmetrics-text"));
    for line in [
        "planner_http_requests_total{route=\"/v1/answer\",status=\"200\"} 2",
        "planner_http_requests_total{route=\"/v1/plan\",status=\"200\"} 1",
        "planner_refusals_total 1",
        "planner_audit_withdrawals_pending 0",
        "planner_audit_withdrawn_total 0",
        "planner_http_request_duration_seconds_count{route=\"/v1/answer\",status=\"200\"} 2",
    ] {
        assert!(metrics.text.contains(line), "{line} missing from:\n{}", metrics.text);
    }
    assert!(metrics.text.contains("planner_node_duration_seconds_count{node="));
    for name in
        ["planner_build_info{version=", "process_resident_memory_bytes ", "process_open_fds "]
    {
        assert!(metrics.text.contains(name), "{name} missing from:\n{}", metrics.text);
    }

    let openapi = get(&app, "/openapi.json", None).await.json();
    assert_eq!(openapi, planner_server::openapi());
    assert_eq!(openapi["openapi"], "3.1.0");
}

#[sqlx::test]
async fn the_page_and_the_plan_picture(pool: PgPool) {
    let keys = seeded(&pool).await;
    let app = server(&pool);
    let page = get(&app, "/", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.content_type.starts_with("text/html"), "{}", page.content_type);
    assert!(page.text.contains("<form") && page.text.contains("/v1/answer?include=svg"));

    // The plain answer has no picture; with include=svg it does, one node per plan node.
    let question = json!({ "question": COMPOUND });
    let plain = post(&app, "/v1/answer", Some(&keys.plain), &question).await.json();
    assert!(plain.get("plan_svg").is_none());
    let drawn = post(&app, "/v1/answer?include=svg", Some(&keys.plain), &question).await;
    assert_eq!(drawn.status, StatusCode::OK, "{}", drawn.text);
    let drawn = drawn.json();
    let svg = drawn["plan_svg"].as_str().unwrap();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
    assert!(svg.contains("data-intent=\"top_incumbents\""), "{svg}");
    assert_eq!(
        svg.matches("class=\"node\"").count(),
        drawn["plan"]["nodes"].as_array().unwrap().len()
    );
    // The bench node the key may not run is drawn greyed, with its reason.
    assert!(svg.contains("class=\"dropped\" data-intent=\"bench_compartment_counts\""), "{svg}");
    assert!(svg.contains("forbidden"), "{svg}");
    // Drawing is deterministic.
    let again = post(&app, "/v1/answer?include=svg", Some(&keys.plain), &question).await.json();
    assert_eq!(again["plan_svg"], drawn["plan_svg"]);
    // With the bench scope, suppressed cells (if any) are marked on their node.
    let bench = post(&app, "/v1/answer?include=svg", Some(&keys.bench), &question).await.json();
    let bench_svg = bench["plan_svg"].as_str().unwrap();
    let suppressed = bench["suppressed_cells"].as_u64().unwrap();
    assert_eq!(bench_svg.contains("class=\"suppressed\""), suppressed > 0, "{bench_svg}");

    // The tables as the page shows them: the evidence's cells, money written in dollars as the
    // text writes it; a table of vendors is no series, so it has no chart.
    assert!(drawn.get("tables").is_none());
    let shown = post(&app, "/v1/answer?include=tables", Some(&keys.plain), &question).await.json();
    assert!(shown.get("plan_svg").is_none());
    let evidence = shown["evidence"].as_array().unwrap();
    let tables = shown["tables"].as_array().unwrap();
    assert_eq!(tables.len(), evidence.len());
    let (table, raw) = (&tables[0], &evidence[0]);
    assert_eq!(table["intent"], "top_incumbents");
    assert_eq!(table["columns"], raw["columns"]);
    assert!(table.get("chart_svg").is_none(), "{table}");
    for (row, raw_row) in
        table["rows"].as_array().unwrap().iter().zip(raw["rows"].as_array().unwrap())
    {
        // uei, name, awards, obligated (usd).
        assert_eq!(row[0], raw_row[0]);
        let (money, amount) = (row[3].as_str().unwrap(), raw_row[3].as_str().unwrap());
        assert!(money.starts_with('$'), "{money}");
        assert_eq!(money.replace(['$', ','], ""), amount, "{money} is not {amount}");
    }
    // Spend by fiscal quarter is a series: drawn above its table, the same bytes every time.
    let spend = json!({ "question": SPEND_BY_QUARTER });
    let charted =
        post(&app, "/v1/answer?include=svg&include=tables", Some(&keys.plain), &spend).await.json();
    assert!(charted["plan_svg"].is_string(), "{charted}");
    let tables = charted["tables"].as_array().unwrap();
    let spend_table = tables
        .iter()
        .find(|table| table["intent"] == "agency_naics_spend")
        .unwrap_or_else(|| panic!("no spend table: {charted}"));
    assert!(spend_table["rows"].as_array().unwrap().len() >= 2, "{spend_table}");
    let chart = spend_table["chart_svg"].as_str().unwrap_or_else(|| panic!("{spend_table}"));
    assert!(chart.starts_with("<svg") && chart.ends_with("</svg>"), "{chart}");
    assert!(
        chart.contains("<title>agency_naics_spend: awards, obligated by fiscal_quarter</title>"),
        "{chart}"
    );
    assert_eq!(chart.matches("class=\"series\"").count(), 2, "{chart}");
    let again = post(&app, "/v1/answer?include=tables", Some(&keys.plain), &spend).await.json();
    let again = again["tables"].as_array().unwrap();
    let again = again.iter().find(|table| table["intent"] == "agency_naics_spend").unwrap();
    assert_eq!(again["chart_svg"], spend_table["chart_svg"]);
}

/// A question answered by the spend of one agency under one NAICS code by fiscal quarter.
pub(super) const SPEND_BY_QUARTER: &str =
    "How much did the Department of the Army obligate under NAICS 541512 in each fiscal quarter?";

#[sqlx::test]
async fn failing_requests_from_one_address_get_429_before_any_key_lookup(pool: PgPool) {
    let keys = seeded(&pool).await;
    let config = ServerConfig {
        address_failures_per_minute: 1,
        address_burst: 3,
        ..ServerConfig::default()
    };
    let app = server_with(&pool, config);
    // A valid key takes nothing from its address's bucket.
    for _ in 0..5 {
        assert_eq!(get(&app, "/v1/registry", Some(&keys.plain)).await.status, StatusCode::OK);
    }
    for key in [None, Some("pk_not_a_key"), None] {
        get(&app, "/v1/registry", key).await.problem(StatusCode::UNAUTHORIZED);
    }
    // The bucket is empty: refused before the key is looked up, even with the database gone.
    pool.close().await;
    let limited = get(&app, "/v1/registry", Some("pk_still_not_a_key")).await;
    assert!(limited.problem(StatusCode::TOO_MANY_REQUESTS).contains("from this address"));
    let retry_after: u64 = limited.headers[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // A valid key verified before is served from the cache: no query, so no database needed.
    assert_eq!(get(&app, "/v1/registry", Some(&keys.plain)).await.status, StatusCode::OK);
}

#[sqlx::test]
async fn a_verified_key_is_cached_and_a_revocation_here_takes_effect_at_once(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(EngineConfig::new(registry()), pool.clone());
    let config = ServerConfig { key_cache_ttl: Duration::from_secs(3600), ..Default::default() };
    let state = AppState::new(engine, pool.clone(), config);
    let app = planner_server::app(state.clone());
    let tenant = TenantId(planner_dataset::DEMO_TENANTS[0].id);
    let elsewhere = create_api_key(&pool, tenant, &[]).await.unwrap();
    let here = create_api_key(&pool, tenant, &[]).await.unwrap();
    for key in [&elsewhere, &here] {
        assert_eq!(get(&app, "/v1/registry", Some(&key.secret)).await.status, StatusCode::OK);
    }
    // Revoked by another process: served from the cache until the TTL runs out.
    assert!(revoke_api_key(&pool, elsewhere.id).await.unwrap());
    assert_eq!(get(&app, "/v1/registry", Some(&elsewhere.secret)).await.status, StatusCode::OK);
    // Revoked through this server: refused from the next request on.
    assert!(state.revoke_api_key(here.id).await.unwrap());
    get(&app, "/v1/registry", Some(&here.secret)).await.problem(StatusCode::UNAUTHORIZED);
}

#[sqlx::test]
async fn a_key_over_its_rate_gets_429_with_retry_after(pool: PgPool) {
    let keys = seeded(&pool).await;
    let config =
        ServerConfig { key_requests_per_minute: 1, key_burst: 2, ..ServerConfig::default() };
    let app = server_with(&pool, config);
    for _ in 0..2 {
        assert_eq!(get(&app, "/v1/registry", Some(&keys.bench)).await.status, StatusCode::OK);
    }
    let limited = get(&app, "/v1/registry", Some(&keys.bench)).await;
    assert!(limited.problem(StatusCode::TOO_MANY_REQUESTS).contains("retry in"));
    let retry_after: u64 = limited.headers[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // Another key is not affected.
    assert_eq!(get(&app, "/v1/registry", Some(&keys.plain)).await.status, StatusCode::OK);
}

#[sqlx::test]
async fn graceful_shutdown_finishes_the_request_in_flight(pool: PgPool) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    let keys = seeded(&pool).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // Tells the test when the request has reached the router, that is, is in flight.
    let (arrived, mut in_flight) = tokio::sync::mpsc::channel::<()>(1);
    let router = server(&pool).layer(axum::middleware::from_fn(
        move |request: Request<Body>, next: axum::middleware::Next| {
            let arrived = arrived.clone();
            async move {
                let _ = arrived.send(()).await;
                next.run(request).await
            }
        },
    ));
    let server = tokio::spawn(planner_server::serve(listener, router, async move {
        let _ = stopped.await;
    }));
    let body = json!({ "question": COMPOUND }).to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /v1/answer HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        keys.bench,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // Once the request is in flight, ask for the stop, then read the whole response.
    in_flight.recv().await.unwrap();
    stop.send(()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"status\":\"answered\""), "{response}");
    server.await.unwrap().unwrap();
    // The server no longer accepts connections.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

/// Every reply carries the request's id in `x-request-id` (the client's when it sent one, else
/// a generated UUID), and every problem body carries the same id as `request_id`.
#[sqlx::test]
async fn every_reply_carries_the_request_id(pool: PgPool) {
    let app = server(&pool);
    let request = Request::get("/no/such/route")
        .header("x-request-id", "trace-me-42")
        .body(Body::empty())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-me-42");
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["request_id"], "trace-me-42", "{body}");
    // Without one, the server makes one: the header and the problem body agree.
    let unauthorized = get(&app, "/v1/registry", None).await;
    let id = unauthorized.headers["x-request-id"].to_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    unauthorized.problem(StatusCode::UNAUTHORIZED);
    assert_eq!(unauthorized.json()["request_id"], id.as_str());
    // Successful replies carry it too, and two requests get two ids.
    let first = get(&app, "/healthz", None).await;
    let second = get(&app, "/healthz", None).await;
    assert_ne!(first.headers["x-request-id"], second.headers["x-request-id"]);
}
