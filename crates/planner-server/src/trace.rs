//! Request tracing: every request gets an id (its `x-request-id` when it brings a usable one,
//! else a generated UUID) that the response carries back in `x-request-id` and every
//! problem+json body in `request_id`; a `request` span holds the method, path and id, so the
//! engine's `graph_run` and node spans are its children; and one access log line per request
//! (target `planner_server::access`) gives the method, path, status and latency.

use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderName, Response};
use axum::middleware::Next;
use tower_http::request_id::{
    MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;
use tracing::Span;

/// The header that carries the request id both ways.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

tokio::task_local! {
    static CURRENT: String;
}

/// The id of the request being handled on this task, if any.
pub(crate) fn current_request_id() -> Option<String> {
    CURRENT.try_with(Clone::clone).ok()
}

fn id_of<B>(request: &axum::http::Request<B>) -> String {
    request
        .extensions()
        .get::<RequestId>()
        .and_then(|it| it.header_value().to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// Makes the request's id the task's current one while the rest of the stack runs.
async fn scope(request: Request, next: Next) -> axum::response::Response {
    let id = id_of(&request);
    CURRENT.scope(id, next.run(request)).await
}

/// `router` with request ids, the request span and the access log around it.
pub(crate) fn layer(router: Router) -> Router {
    let trace = TraceLayer::new_for_http()
        .make_span_with(|request: &axum::http::Request<_>| {
            tracing::info_span!(
                "request",
                method = %request.method(),
                path = %request.uri().path(),
                request_id = %id_of(request),
            )
        })
        .on_request(())
        .on_response(|response: &Response<_>, latency: Duration, _span: &Span| {
            tracing::info!(
                target: "planner_server::access",
                status = response.status().as_u16(),
                latency_ms = latency.as_secs_f64() * 1000.0,
                "request"
            );
        })
        .on_failure(());
    // Layers run outside in: the id is set first, the span and the id's scope inside it, and
    // the id is copied to the response last.
    router
        .layer(axum::middleware::from_fn(scope))
        .layer(trace)
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}
