//! The engine's `graph_run` and `node` spans are children of the HTTP `request` span, which
//! carries the request's id: a subscriber that records each span's ancestors when it is created
//! sees one request answered on a migrated database.

use std::fmt::{Debug, Write as _};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use planner_engine::{Engine, EngineConfig};
use planner_server::{AppState, REQUEST_ID, ServerConfig};
use sqlx::PgPool;
use tower::ServiceExt as _;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Subscriber, subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// A span when it was created: its name and fields, and its ancestors', nearest first.
#[derive(Debug, Clone)]
struct Created {
    name: &'static str,
    fields: String,
    ancestors: Vec<(&'static str, String)>,
}

/// The fields of a span as `name=value` pairs, kept in the span's extensions.
#[derive(Debug, Default)]
struct Fields(String);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, "{}={value} ", field.name());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

/// Records every span created, with its ancestry at that moment.
#[derive(Debug, Clone, Default)]
struct Capture(Arc<Mutex<Vec<Created>>>);

impl Capture {
    fn spans(&self) -> Vec<Created> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl<S> Layer<S> for Capture
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let Some(span) = ctx.span(id) else { return };
        let own = fields.0.clone();
        span.extensions_mut().insert(fields);
        let ancestors = span
            .scope()
            .skip(1)
            .map(|it| {
                let fields = it.extensions().get::<Fields>().map(|f| f.0.clone());
                (it.name(), fields.unwrap_or_default())
            })
            .collect();
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(Created {
            name: attrs.metadata().name(),
            fields: own,
            ancestors,
        });
    }
}

#[sqlx::test]
async fn node_spans_are_children_of_the_request_span(pool: PgPool) {
    planner_engine::migrate(&pool).await.unwrap();
    let tenant = planner_exec::create_tenant(&pool, "spans").await.unwrap();
    let key = planner_exec::create_api_key(&pool, tenant, &["bench"]).await.unwrap().secret;
    let registry = planner_registry::reference::registry().unwrap();
    let engine = Engine::new(EngineConfig::new(registry), pool.clone());
    let app = planner_server::app(AppState::new(engine, pool, ServerConfig::default()));

    let capture = Capture::default();
    let _default = subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    // A question the screen refuses: it runs nodes of the graph (screen, refuse, audit) without
    // needing any data loaded.
    let request = Request::post("/v1/answer")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header(header::CONTENT_TYPE, "application/json")
        .header(REQUEST_ID, "spans-test-4711")
        .body(Body::from(r#"{"question":"Rank our candidates by race."}"#))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));

    let spans = capture.spans();
    let request_span = |created: &Created| {
        created.ancestors.iter().any(|(name, fields)| {
            *name == "request" && fields.contains("request_id=spans-test-4711")
        })
    };
    let runs: Vec<&Created> = spans.iter().filter(|it| it.name == "graph_run").collect();
    assert!(!runs.is_empty(), "no graph_run span among {spans:#?}");
    assert!(runs.iter().all(|it| request_span(it)), "{runs:#?}");
    let nodes: Vec<&Created> = spans.iter().filter(|it| it.name == "node").collect();
    assert!(!nodes.is_empty(), "no node span among {spans:#?}");
    for node in &nodes {
        assert!(request_span(node), "a node span outside the request span: {node:#?}");
        assert!(
            node.ancestors.iter().any(|(name, _)| *name == "graph_run"),
            "a node span outside its graph_run span: {node:#?}"
        );
    }
    assert!(nodes.iter().any(|it| it.fields.contains("screen")), "{nodes:#?}");
}
