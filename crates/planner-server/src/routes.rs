//! The handlers.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use planner_engine::{Ask, Engine, Outcome};
use planner_registry::{IntentBody, Registry, Requirement};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::auth::Caller;
use crate::error::{Error, Result};

/// `POST /v1/answer`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerRequest {
    question: String,
    #[serde(default)]
    thread_id: Option<String>,
}

/// `POST /v1/threads/{id}/resume`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResumeRequest {
    answer: String,
}

/// `POST /v1/plan`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanRequest {
    question: String,
}

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

/// Whether the query string asks for the plan's picture (`include=svg`).
fn wants_svg(query: Option<&str>) -> bool {
    query.is_some_and(|query| query.split('&').any(|pair| pair == "include=svg"))
}

fn outcome(
    state: &AppState,
    result: planner_engine::Result<Outcome>,
    svg: bool,
) -> Result<Response> {
    match result {
        Ok(outcome) => {
            if let Outcome::Answered(answer) = &outcome {
                state.shared.metrics.answer(answer);
                if svg {
                    let mut value = serde_json::to_value(&outcome)
                        .map_err(|err| Error::Internal(err.to_string()))?;
                    value["plan_svg"] = crate::svg::plan_svg(answer).into();
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
            };
            state.shared.metrics.engine_error(kind);
            if matches!(
                err,
                planner_engine::Error::Graph(_) | planner_engine::Error::AuditFailed(_)
            ) {
                tracing::error!(%err, "answering failed");
            }
            Err(err.into())
        }
    }
}

pub(crate) async fn answer(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(query): RawQuery,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
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
    outcome(&state, result, wants_svg(query.as_deref()))
}

pub(crate) async fn resume(
    State(state): State<AppState>,
    caller: Caller,
    thread_id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
    let request: ResumeRequest = body(&state, bytes)?;
    // The body is judged before the path: a reply the document rejects is a 422 whatever the id.
    planner_engine::check_input(&request.answer).map_err(planner_engine::Error::from)?;
    // A thread id that is not UTF-8 once percent-decoded names no thread.
    let Path(thread_id) = thread_id
        .map_err(|rejection| Error::NotFound(format!("no thread has this id ({rejection})")))?;
    let result = engine(&state).resume(&thread_id, &request.answer, &caller.engine()).await;
    outcome(&state, result, wants_svg(query.as_deref()))
}

pub(crate) async fn plan(
    State(state): State<AppState>,
    caller: Caller,
    bytes: Result<Bytes, BytesRejection>,
) -> Result<Response> {
    let request: PlanRequest = body(&state, bytes)?;
    let report = engine(&state).plan(&request.question, &caller.scopes).await?;
    Ok(Json(report).into_response())
}

/// The registry as clients see it: intents, params, planes, scopes (never the SQL).
pub(crate) fn registry_json(registry: &Registry) -> serde_json::Value {
    let param_name = |id| registry.param(id).name.clone();
    let intents: Vec<serde_json::Value> = registry
        .intents()
        .iter()
        .map(|intent| {
            let params: Vec<serde_json::Value> = intent
                .params
                .iter()
                .map(|it| {
                    let (required, default) = match &it.requirement {
                        Requirement::Required => (true, None),
                        Requirement::Optional { default, .. } => (false, Some(default)),
                    };
                    serde_json::json!({
                        "name": param_name(it.param),
                        "kind": it.kind,
                        "required": required,
                        "default": default,
                    })
                })
                .collect();
            let mut value = serde_json::json!({
                "name": intent.name,
                "description": intent.description,
                "params": params,
            });
            match &intent.body {
                IntentBody::Query(query) => {
                    value["kind"] = "query".into();
                    value["plane"] = registry.plane(query.plane).name.clone().into();
                    value["scopes"] = query.scopes.clone().into();
                    value["columns"] = query
                        .shown_columns()
                        .map(|c| serde_json::json!({"name": c.name, "type": c.ty.as_str()}))
                        .collect();
                }
                IntentBody::Composite(composite) => {
                    value["kind"] = "composite".into();
                    value["members"] = composite
                        .members
                        .iter()
                        .map(|id| serde_json::Value::from(registry.intent(*id).name.clone()))
                        .collect();
                }
            }
            value
        })
        .collect();
    let params: Vec<serde_json::Value> = registry
        .params()
        .iter()
        .map(|it| serde_json::json!({"name": it.name, "kind": it.kind, "values": it.values}))
        .collect();
    let planes: Vec<serde_json::Value> = registry
        .planes()
        .iter()
        .map(|it| {
            serde_json::json!({
                "name": it.name, "tenant": it.tenant, "counts": it.counts, "scope": it.scope,
            })
        })
        .collect();
    serde_json::json!({
        "intents": intents,
        "params": params,
        "planes": planes,
        "scopes": registry.settings().scopes,
    })
}

pub(crate) async fn registry(State(state): State<AppState>, _caller: Caller) -> Response {
    Json(registry_json(engine(&state).planner().registry())).into_response()
}

pub(crate) async fn graph(_caller: Caller) -> Response {
    let mermaid = Engine::mermaid();
    let svg = crate::svg::flowchart_svg(&mermaid);
    Json(serde_json::json!({ "mermaid": mermaid, "svg": svg })).into_response()
}

pub(crate) async fn healthz() -> Response {
    Json(serde_json::json!({"status": "ok"})).into_response()
}

pub(crate) async fn readyz(State(state): State<AppState>) -> Result<Response> {
    let acquired =
        tokio::time::timeout(std::time::Duration::from_secs(2), state.shared.pool.acquire()).await;
    match acquired {
        Ok(Ok(_connection)) => Ok(Json(serde_json::json!({"status": "ready"})).into_response()),
        Ok(Err(err)) => {
            tracing::warn!(%err, "readiness: the database is unreachable");
            Err(Error::DatabaseDown)
        }
        Err(_) => Err(Error::DatabaseDown),
    }
}

pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    let engine = engine(&state);
    let audit = crate::metrics::AuditWithdrawals {
        pending: engine.pending_withdrawals(),
        withdrawn: engine.withdrawn_total(),
    };
    let mut response = state.shared.metrics.render(audit).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

pub(crate) async fn openapi_json() -> Response {
    Json(crate::openapi::openapi()).into_response()
}

/// The page at `/`: a form posting to `/v1/answer`, no build step.
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
