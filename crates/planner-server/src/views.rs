//! The request bodies and the replies the server builds itself (the registry, the graph, the
//! probes), typed so that the OpenAPI document is generated from them. Fields are declared in
//! alphabetical order: the JSON is the one the routes have always written.

use planner_engine::{EvidenceTable, TableView};
use planner_registry::{IntentBody, ParamKind, Registry, Requirement, Value};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, Type};

/// A question as the screen takes it: at least one character that is not white space, at most
/// [`planner_engine::MAX_QUESTION_CHARS`] characters, no control character but tab, line feed
/// and carriage return (a test ties this schema to the screen).
pub(crate) fn question_schema() -> ObjectBuilder {
    let allowed = r"[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]";
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(planner_engine::MAX_QUESTION_CHARS))
        .pattern(Some(format!(r"^{allowed}*[^\s\u0000-\u001F\u007F-\u009F]{allowed}*$")))
}

/// `POST /v1/answer`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerRequest {
    /// The question (or, with `thread_id`, the answer to that thread's clarifying question).
    #[schema(schema_with = question_schema)]
    pub(crate) question: String,
    /// The thread of a `needs_input` outcome.
    #[serde(default)]
    pub(crate) thread_id: Option<String>,
}

/// `POST /v1/threads/{id}/resume`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResumeRequest {
    /// The answer to the thread's clarifying question.
    #[schema(schema_with = question_schema)]
    pub(crate) answer: String,
}

/// `POST /v1/plan`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanRequest {
    /// The question to plan.
    #[schema(schema_with = question_schema)]
    pub(crate) question: String,
}

/// The probes' reply.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Status {
    /// `ok` from `/healthz`, `ready` from `/readyz`.
    pub(crate) status: Probe,
    /// From `/readyz` with a read replica: `up` while it answers, `down` while the planes it
    /// serves read from the primary. Absent without a replica.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) replica: Option<Probe>,
}

/// What a probe says.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Probe {
    /// The process is up.
    Ok,
    /// The database is reachable.
    Ready,
    /// The read replica answers.
    Up,
    /// The read replica does not answer.
    Down,
}

/// Which graph `GET /v1/graph?name=` draws.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GraphName {
    /// The planner graph (the default).
    Planner,
    /// The field-acquisition agent.
    Acquire,
}

impl GraphName {
    /// The graph named `name` on the wire.
    pub(crate) fn parse(name: &str) -> Option<GraphName> {
        match name {
            "planner" => Some(GraphName::Planner),
            "acquire" => Some(GraphName::Acquire),
            _ => None,
        }
    }
}

/// `GET /v1/graph`.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Graph {
    /// The graph as a Mermaid flowchart.
    pub(crate) mermaid: String,
    /// The same flowchart drawn as an SVG.
    pub(crate) svg: String,
}

/// `GET /v1/registry`: intents, params, planes, scopes (never the SQL).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RegistryView {
    /// The intents, in registry order.
    intents: Vec<IntentView>,
    /// The declared params.
    params: Vec<ParamView>,
    /// The data planes.
    planes: Vec<PlaneView>,
    /// The scopes an API key may hold.
    scopes: Vec<String>,
}

/// One intent.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct IntentView {
    /// A query's result columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<ColumnView>>,
    /// What it answers.
    description: String,
    /// A query runs SQL; a composite stands for its members.
    kind: IntentKind,
    /// A composite's member intents.
    #[serde(skip_serializing_if = "Option::is_none")]
    members: Option<Vec<String>>,
    /// The intent's name.
    name: String,
    /// Its params, in order.
    params: Vec<IntentParamView>,
    /// A query's data plane.
    #[serde(skip_serializing_if = "Option::is_none")]
    plane: Option<String>,
    /// The scopes a query needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    scopes: Option<Vec<String>>,
}

/// Whether an intent runs SQL or stands for others.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IntentKind {
    /// It runs one SQL query.
    Query,
    /// It stands for its members.
    Composite,
}

/// One result column.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ColumnView {
    /// The column's name.
    name: String,
    /// The column's type as registry files write it.
    #[serde(rename = "type")]
    #[schema(schema_with = column_type_schema)]
    ty: &'static str,
}

fn column_type_schema() -> ObjectBuilder {
    let names = planner_registry::ColumnType::ALL.map(|it| it.as_str());
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names))
}

/// One param of an intent.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct IntentParamView {
    /// An optional param's default (null when required).
    #[schema(value_type = Option<planner_registry::ParamValue>)]
    default: Option<Value>,
    /// The param's kind.
    kind: ParamKind,
    /// The param's name.
    name: String,
    /// Whether the intent cannot run without it.
    required: bool,
}

/// One declared param.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ParamView {
    /// Its kind.
    kind: ParamKind,
    /// Its name.
    name: String,
    /// The values an enum-like param takes (empty otherwise).
    values: Vec<String>,
}

/// One data plane.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PlaneView {
    /// Whether its results are counts (small-cell suppression applies).
    counts: bool,
    /// Its name.
    name: String,
    /// The scope a key needs to read it.
    scope: Option<String>,
    /// Whether its rows belong to a tenant.
    tenant: bool,
}

impl RegistryView {
    /// The registry as clients see it.
    pub(crate) fn new(registry: &Registry) -> RegistryView {
        let param_name = |id| registry.param(id).name.clone();
        let intents = registry
            .intents()
            .iter()
            .map(|intent| {
                let params = intent
                    .params
                    .iter()
                    .map(|it| {
                        let (required, default) = match &it.requirement {
                            Requirement::Required => (true, None),
                            Requirement::Optional { default, .. } => (false, Some(default.clone())),
                        };
                        IntentParamView {
                            default,
                            kind: it.kind,
                            name: param_name(it.param),
                            required,
                        }
                    })
                    .collect();
                let mut view = IntentView {
                    columns: None,
                    description: intent.description.clone(),
                    kind: IntentKind::Query,
                    members: None,
                    name: intent.name.clone(),
                    params,
                    plane: None,
                    scopes: None,
                };
                match &intent.body {
                    IntentBody::Query(query) => {
                        view.plane = Some(registry.plane(query.plane).name.clone());
                        view.scopes = Some(query.scopes.clone());
                        view.columns = Some(
                            query
                                .shown_columns()
                                .map(|c| ColumnView { name: c.name.clone(), ty: c.ty.as_str() })
                                .collect(),
                        );
                    }
                    IntentBody::Composite(composite) => {
                        view.kind = IntentKind::Composite;
                        view.members = Some(
                            composite
                                .members
                                .iter()
                                .map(|id| registry.intent(*id).name.clone())
                                .collect(),
                        );
                    }
                }
                view
            })
            .collect();
        RegistryView {
            intents,
            params: registry
                .params()
                .iter()
                .map(|it| ParamView {
                    kind: it.kind,
                    name: it.name.clone(),
                    values: it.values.clone(),
                })
                .collect(),
            planes: registry
                .planes()
                .iter()
                .map(|it| PlaneView {
                    counts: it.counts,
                    name: it.name.clone(),
                    scope: it.scope.clone(),
                    tenant: it.tenant,
                })
                .collect(),
            scopes: registry.settings().scopes.clone(),
        }
    }
}

/// An evidence table as the page shows it (`?include=tables` adds them to an answer as
/// `tables`, in the order of `evidence`).
#[derive(Debug, Serialize)]
pub(crate) struct ShownTable {
    /// Its rows drawn as a line chart, when they are periods (a time series).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) chart_svg: Option<String>,
    /// Column names.
    pub(crate) columns: Vec<String>,
    /// The intent.
    pub(crate) intent: String,
    /// Rows of cells written as the answer's text writes them (money in dollars, numbers with
    /// thousands separators).
    pub(crate) rows: Vec<Vec<String>>,
}

impl ShownTable {
    /// The page's view of each of `evidence`'s tables.
    pub(crate) fn all(registry: &Registry, evidence: &[EvidenceTable]) -> Vec<ShownTable> {
        evidence
            .iter()
            .map(|table| {
                let view = TableView::new(registry, table);
                ShownTable {
                    chart_svg: view
                        .series
                        .as_ref()
                        .map(|series| crate::svg::series_svg(&view.intent, series)),
                    columns: view.columns,
                    intent: view.intent,
                    rows: view.rows,
                }
            })
            .collect()
    }
}
