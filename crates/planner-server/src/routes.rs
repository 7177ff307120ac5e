//! The handlers.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use planner_engine::{Ask, Engine, Outcome};
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::openapi::{BodyFailures, Include, KeyedFailures, QueryFailures, ThreadFailures};
use crate::views::{
    AnswerRequest, Graph, PlanRequest, Probe, RegistryView, ResumeRequest, ShownTable, Status,
};

/// Parses a JSON body, turning every failure into a problem that says what is wrong.
fn body<T: DeserializeOwned>(state: &AppState, bytes: Result<Bytes, BytesRejection>) -> Result<T> {
    let bytes = bytes.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::TooLarge(state.shared.config.max_body_bytes)
        } else {
            Error::BadRequest(format!("the request body cannot be read: {rejection}"))
        }
    })?;
    if bytes.is_empty() {
        return Err(Error::BadRequest(
            "the request body is empty; a JSON object is expected".into(),
        ));
    }
    serde_json::from_slice(&bytes)
        .map_err(|err| Error::BadRequest(format!("the request body is not acceptable JSON: {err}")))
}

fn engine(state: &AppState) -> &Engine {
    &state.shared.engine
}

/// The query string's pairs, percent-decoded, in order; a string that does not decode is a 400.
type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

/// Checks a route's query string against the parameters it declares (`allowed`: each name with
/// the values it takes), and returns its pairs. An unknown parameter or a value outside its enum
/// is a 400 saying which and what the route takes.
fn check_query(pairs: QueryPairs, allowed: &[(&str, &[&str])]) -> Result<Vec<(String, String)>> {
    let Query(pairs) = pairs.map_err(|rejection| {
        Error::BadRequest(format!("the query string cannot be read: {}", rejection.body_text()))
    })?;
    let takes = || {
        if allowed.is_empty() {
            "this route takes no query parameters".to_owned()
        } else {
            let names: Vec<String> = allowed.iter().map(|(name, _)| format!("`{name}`")).collect();
            format!("this route takes {}", names.join(", "))
        }
    };
    for (name, value) in &pairs {
        let Some((_, values)) = allowed.iter().find(|(known, _)| known == name) else {
            return Err(Error::BadRequest(format!(
                "unknown query parameter `{}`: {}",
                shown(name),
                takes()
            )));
        };
        if !values.contains(&value.as_str()) {
            let values: Vec<String> = values.iter().map(|it| format!("`{it}`")).collect();
            return Err(Error::BadRequest(format!(
                "query parameter `{name}` must be {}, not `{}`",
                values.join(" or "),
                shown(value)
            )));
        }
    }
    Ok(pairs)
}

/// A client's text quoted in a problem: at most 40 characters, control characters escaped.
fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// What the answering routes' query asks to add to an answer (`include=svg`, `include=tables`;
/// the parameter may be given once for each).
#[derive(Debug, Clone, Copy, Default)]
struct Includes {
    /// The plan's picture, as `plan_svg`.
    svg: bool,
    /// The evidence tables as the page shows them, as `tables`.
    tables: bool,
}

fn includes(pairs: QueryPairs) -> Result<Includes> {
    let pairs = check_query(pairs, &[("include", &["svg", "tables"])])?;
    Ok(Includes {
        svg: pairs.iter().any(|(_, value)| value == "svg"),
        tables: pairs.iter().any(|(_, value)| value == "tables"),
    })
}

fn outcome(
    state: &AppState,
    result: planner_engine::Result<Outcome>,
    include: Includes,
) -> Result<Response> {
    match result {
        Ok(outcome) => {
            if let Outcome::Answered(answer) = &outcome {
                state.shared.metrics.answer(answer);
                if include.svg || include.tables {
                    let mut value = serde_json::to_value(&outcome)
                        .map_err(|err| Error::Internal(err.to_string()))?;
                    if include.svg {
                        value["plan_svg"] = crate::svg::plan_svg(answer).into();
                    }
                    if include.tables {
                        let registry = engine(state).planner().registry();
                        let tables = ShownTable::all(registry, &answer.evidence);
                        value["tables"] = serde_json::to_value(tables)
                            .map_err(|err| Error::Internal(err.to_string()))?;
                    }
                    return Ok(Json(value).into_response());
                }
            }
            Ok(Json(outcome).into_response())
        }
        Err(err) => {
            let kind = match &err {
                planner_engine::Error::Input(_) => "input",
                planner_engine::Error::UnknownThread(_) => "unknown_thread",
                planner_engine::Error::AuditFailed(_) => "audit",
                planner_engine::Error::Unavailable(_) => "database",
                planner_engine::Error::Graph(_) => "graph",
                planner_engine::Error::UnknownTenant(_) => "tenant",
            };
            state.shared.metrics.engine_error(kind);
            if matches!(
                err,
                planner_engine::Error::Graph(_)
                    | planner_engine::Error::AuditFailed(_)
                    | planner_engine::Error::UnknownTenant(_)
            ) {
                tracing::error!(%err, "answering failed");
            }
            Err(err.into())
        }
    }
}

/// Answer a question (or, with `thread_id`, a clarifying question).
#[utoipa::path(post, path = "/v1/answer", request_body = AnswerRequest, security(("bearer" = [])),
    params(("include" = Option<Include>, Query, description = "`svg` adds the plan drawn as an SVG (`plan_svg`) to an answer; `tables` adds its evidence tables as the page shows them (`tables`: cells written as the text writes them, and `chart_svg`, a line chart of a table whose rows are periods). Give the parameter once for each.")),
    responses(
        (status = 200, description = "An answer, or a clarifying question.", body = Outcome),
        KeyedFailures, BodyFailures, ThreadFailures,
    ))]
pub(crate) async fn answer(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryPairs,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
    let include = includes(query)?;
    let request: AnswerRequest = body(&state, bytes)?;
    let result = match request.thread_id {
        Some(thread_id) => {
            engine(&state).resume(&thread_id, &request.question, &caller.engine()).await
        }
        None => {
            engine(&state)
                .ask(Ask {
                    question: request.question,
                    scopes: caller.scopes,
                    tenant: Some(caller.tenant),
                    key: Some(caller.key),
                })
                .await
        }
    };
    outcome(&state, result, include)
}

/// Answer a thread's clarifying question.
#[utoipa::path(post, path = "/v1/threads/{id}/resume", request_body = ResumeRequest, security(("bearer" = [])),
    params(
        ("id" = String, Path, description = "The thread id of a needs_input outcome."),
        ("include" = Option<Include>, Query, description = "`svg` adds the plan drawn as an SVG (`plan_svg`) to an answer; `tables` adds its evidence tables as the page shows them (`tables`: cells written as the text writes them, and `chart_svg`, a line chart of a table whose rows are periods). Give the parameter once for each."),
    ),
    responses(
        (status = 200, description = "An answer, or another clarifying question.", body = Outcome),
        KeyedFailures, BodyFailures, ThreadFailures,
    ))]
pub(crate) async fn resume(
    State(state): State<AppState>,
    caller: Caller,
    thread_id: Result<Path<String>, PathRejection>,
    query: QueryPairs,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
    let include = includes(query)?;
    let request: ResumeRequest = body(&state, bytes)?;
    // The body is judged before the path: a reply the document rejects is a 422 whatever the id.
    planner_engine::check_input(&request.answer).map_err(planner_engine::Error::from)?;
    // A thread id that is not UTF-8 once percent-decoded names no thread.
    let Path(thread_id) = thread_id
        .map_err(|rejection| Error::NotFound(format!("no thread has this id ({rejection})")))?;
    let result = engine(&state).resume(&thread_id, &request.answer, &caller.engine()).await;
    outcome(&state, result, include)
}

/// Plan a question without running it (the JSON of `planner plan --json`).
#[utoipa::path(post, path = "/v1/plan", request_body = PlanRequest, security(("bearer" = [])),
    responses(
        (status = 200, description = "The plan report.", body = planner_engine::PlanReport),
        KeyedFailures, BodyFailures,
    ))]
pub(crate) async fn plan(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryPairs,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
    check_query(query, &[])?;
    let request: PlanRequest = body(&state, bytes)?;
    let report = engine(&state).plan(&request.question, &caller.scopes).await?;
    Ok(Json(report).into_response())
}

/// The registry: intents, params, planes, scopes (never the SQL).
#[utoipa::path(get, path = "/v1/registry", security(("bearer" = [])),
    responses((status = 200, description = "The registry.", body = RegistryView), KeyedFailures, QueryFailures))]
pub(crate) async fn registry(
    State(state): State<AppState>,
    _caller: Caller,
    query: QueryPairs,
) -> Result<Response> {
    check_query(query, &[])?;
    Ok(Json(RegistryView::new(engine(&state).planner().registry())).into_response())
}

/// `GET /v1/graph[?name=planner|acquire]`: the planner graph, or the field-acquisition
/// agent's, as a Mermaid flowchart and an SVG.
#[utoipa::path(get, path = "/v1/graph", security(("bearer" = [])),
    params(("name" = Option<crate::views::GraphName>, Query,
        description = "`planner` (the default) or `acquire` (the field-acquisition agent)")),
    responses(
        (status = 200, description = "The graph.", body = Graph),
        (status = 400, description = "A name other than `planner` or `acquire`, or an unknown query parameter.",
            body = crate::error::Problem, content_type = "application/problem+json"),
        KeyedFailures,
    ))]
pub(crate) async fn graph(_caller: Caller, query: QueryPairs) -> Result<Response> {
    let pairs = check_query(query, &[("name", &["planner", "acquire"])])?;
    let name = pairs.last().map_or("planner", |(_, value)| value.as_str());
    let mermaid = match crate::views::GraphName::parse(name) {
        Some(crate::views::GraphName::Planner) => Engine::mermaid(),
        Some(crate::views::GraphName::Acquire) => planner_acquire::mermaid(),
        None => return Err(Error::BadRequest("name must be `planner` or `acquire`".into())),
    };
    let svg = crate::svg::flowchart_svg(&mermaid);
    Ok(Json(Graph { mermaid, svg }).into_response())
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "Up.", body = Status)))]
pub(crate) async fn healthz() -> Response {
    Json(Status { status: Probe::Ok, replica: None }).into_response()
}

/// The database is reachable.
#[utoipa::path(get, path = "/readyz", responses(
    (status = 200, description = "Ready.", body = Status),
    (status = 503, description = "The database is unavailable.", body = crate::error::Problem,
        content_type = "application/problem+json"),
))]
pub(crate) async fn readyz(State(state): State<AppState>) -> Result<Response> {
    let checked =
        tokio::time::timeout(std::time::Duration::from_secs(3), engine(&state).check_database())
            .await;
    match checked {
        Ok(Ok(replica)) => {
            let replica = replica.map(|up| if up { Probe::Up } else { Probe::Down });
            Ok(Json(Status { status: Probe::Ready, replica }).into_response())
        }
        Ok(Err(err)) => {
            tracing::warn!(%err, "readiness: the database is unreachable");
            Err(Error::DatabaseDown)
        }
        Err(_) => Err(Error::DatabaseDown),
    }
}

/// Prometheus metrics.
#[utoipa::path(get, path = "/metrics", responses(
    (status = 200, description = "The OpenMetrics text exposition format.", body = String, content_type = "application/openmetrics-text"),
))]
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    let engine = engine(&state);
    let readings = crate::metrics::EngineReadings {
        pending: engine.pending_withdrawals(),
        withdrawn: engine.withdrawn_total(),
        database: engine.database_stats(),
    };
    let mut response = state.shared.metrics.render(readings).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(crate::metrics::CONTENT_TYPE));
    response
}

/// This document.
#[utoipa::path(get, path = "/openapi.json", responses(
    (status = 200, description = "The OpenAPI 3.1 document.", body = Object),
))]
pub(crate) async fn openapi_json() -> Response {
    Json(crate::openapi::openapi()).into_response()
}

/// The page at `/`: a form posting to `/v1/answer`, no build step.
#[utoipa::path(get, path = "/", summary = "The web page: ask, see the answer, its evidence and the plan.",
    responses((status = 200, description = "The page.", body = String, content_type = "text/html")))]
pub(crate) async fn page() -> Response {
    axum::response::Html(include_str!("page/index.html")).into_response()
}

pub(crate) async fn not_found() -> Error {
    Error::NotFound("no such route".to_owned())
}

/// A known path asked with a method it does not take (the router adds `Allow`).
pub(crate) async fn method_not_allowed() -> Error {
    Error::MethodNotAllowed
}
