//! Property-based fuzzing of the HTTP API from its own OpenAPI document: the test reads
//! `/openapi.json` from the running server, walks its paths, operations, parameters and request
//! schemas, and generates requests from them, valid ones and deliberately broken ones (wrong
//! types, missing and unknown fields, oversized strings, control characters, bad JSON, empty
//! bodies, wrong methods, bad or revoked keys, unknown paths). Every reply must be below 500, have
//! a status the document declares for that operation (or its `NotFound` / `MethodNotAllowed`
//! responses for unknown paths and methods), a declared content type, and a body that validates
//! against the declared schema, `$ref`s resolved against the document. A body the request schema
//! accepts is never refused as malformed (400), and one it rejects is never answered.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use planner_exec::{TenantId, create_api_key, revoke_api_key};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::http::{Reply, Served, client, demo_key, questions, seed_demo, unlimited};

/// Requests per run: at least 1,000.
const CASES: u32 = 1_100;

/// One operation of the document.
#[derive(Debug, Clone)]
struct Operation {
    method: Method,
    template: String,
    authed: bool,
    request: Option<Value>,
    path_params: Vec<String>,
    query: Vec<(String, Value)>,
    responses: Value,
}

/// The operations of `doc`, in the document's (sorted) order.
fn operations(doc: &Value) -> Vec<Operation> {
    let mut found = Vec::new();
    for (template, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("a path item") {
            let Ok(method) = method.to_uppercase().parse::<Method>() else { continue };
            let parameters = op["parameters"].as_array().cloned().unwrap_or_default();
            let of = |place: &str| {
                parameters
                    .iter()
                    .filter(|it| it["in"] == place)
                    .map(|it| {
                        let schema = resolve(doc, &it["schema"]).clone();
                        (it["name"].as_str().unwrap().to_owned(), schema)
                    })
                    .collect::<Vec<_>>()
            };
            found.push(Operation {
                method,
                template: template.clone(),
                authed: op["security"].as_array().is_some_and(|it| !it.is_empty()),
                request: op.pointer("/requestBody/content/application~1json/schema").cloned(),
                path_params: of("path").into_iter().map(|(name, _)| name).collect(),
                query: of("query"),
                responses: op["responses"].clone(),
            });
        }
    }
    found
}

/// Whether every query parameter of `path` is one the operation declares, with a value its enum
/// allows (or the parameter has no enum).
fn query_in_enums(op: &Operation, path: &str) -> bool {
    let Some((_, query)) = path.split_once('?') else { return true };
    query.split('&').filter(|pair| !pair.is_empty()).all(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        // A parameter the operation does not declare is refused like a value outside its enum.
        let mut declared = op.query.iter().filter(|(param, _)| param == name).peekable();
        declared.peek().is_some()
            && declared.all(|(_, schema)| {
                schema["enum"].as_array().is_none_or(|values| values.iter().any(|it| it == value))
            })
    })
}

/// Follows `$ref`s (`#/...` pointers into `doc`).
fn resolve<'a>(doc: &'a Value, mut schema: &'a Value) -> &'a Value {
    while let Some(pointer) = schema.get("$ref").and_then(Value::as_str) {
        schema = doc
            .pointer(pointer.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolvable $ref {pointer}"));
    }
    schema
}

fn types(schema: &Value) -> Vec<String> {
    match &schema["type"] {
        Value::String(one) => vec![one.clone()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// Strings a schema allows: corpus questions, printable text, any Unicode; cut to `maxLength`.
fn string_for(schema: &Value) -> BoxedStrategy<Value> {
    let max = schema["maxLength"].as_u64().map_or(200, |it| it as usize);
    prop_oneof![
        4 => prop::sample::select(questions()),
        2 => "[ -~]{1,120}",
        1 => "\\PC{0,80}",
    ]
    .prop_map(move |text: String| Value::String(text.chars().take(max).collect()))
    .boxed()
}

/// Values valid for `schema` (the subset of JSON Schema the document uses).
fn value_for(doc: &Value, schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let schema = resolve(doc, schema);
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(values) = schema["enum"].as_array() {
        return prop::sample::select(values.clone()).boxed();
    }
    let mut options: Vec<BoxedStrategy<Value>> = Vec::new();
    for ty in types(schema) {
        options.push(match ty.as_str() {
            "string" => string_for(schema),
            "null" => Just(Value::Null).boxed(),
            "integer" => any::<i32>().prop_map(Value::from).boxed(),
            "boolean" => any::<bool>().prop_map(Value::from).boxed(),
            "array" if depth < 3 => {
                prop::collection::vec(value_for(doc, &schema["items"], depth + 1), 0..3)
                    .prop_map(Value::Array)
                    .boxed()
            }
            "object" if depth < 3 => object_for(doc, schema, depth),
            _ => Just(Value::Null).boxed(),
        });
    }
    match options.len() {
        0 => Just(json!({})).boxed(),
        1 => options.pop().unwrap(),
        _ => prop::strategy::Union::new(options).boxed(),
    }
}

fn object_for(doc: &Value, schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let required: Vec<&str> =
        schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, property)| {
            let name = name.clone();
            let value = value_for(doc, property, depth + 1);
            if required.contains(&name.as_str()) {
                value.prop_map(move |it| Some((name.clone(), it))).boxed()
            } else {
                prop::option::of(value.prop_map(move |it| (name.clone(), it))).boxed()
            }
        })
        .collect();
    fields.prop_map(|fields| Value::Object(fields.into_iter().flatten().collect())).boxed()
}

/// How a valid body is broken.
#[derive(Debug, Clone)]
enum Breakage {
    DropField,
    WrongType(Value),
    UnknownField,
    Oversized(usize),
    ControlCharacter(char),
    NotAnObject(Value),
}

fn breakage() -> impl Strategy<Value = Breakage> {
    prop_oneof![
        Just(Breakage::DropField),
        prop::sample::select(vec![
            json!(7),
            json!(-1.5),
            json!(true),
            json!(null),
            json!([]),
            json!(["a"]),
            json!({"a": 1}),
        ])
        .prop_map(Breakage::WrongType),
        Just(Breakage::UnknownField),
        prop_oneof![1usize..400, 16_000usize..20_000].prop_map(Breakage::Oversized),
        prop::sample::select(vec!['\u{0}', '\u{7}', '\u{1b}', '\u{7f}', '\u{85}', '\u{202e}'])
            .prop_map(Breakage::ControlCharacter),
        prop::sample::select(vec![json!([]), json!("question"), json!(42), json!(null)])
            .prop_map(Breakage::NotAnObject),
    ]
}

fn break_body(
    schema: &Value,
    body: Value,
    breakage: &Breakage,
    pick: prop::sample::Index,
) -> Value {
    let Value::Object(mut object) = body else { return body };
    let names: Vec<String> = object.keys().cloned().collect();
    let name = (!names.is_empty()).then(|| names[pick.index(names.len())].clone());
    match (breakage, name) {
        (Breakage::DropField, Some(name)) => {
            object.remove(&name);
        }
        (Breakage::WrongType(value), Some(name)) => {
            object.insert(name, value.clone());
        }
        (Breakage::UnknownField, _) => {
            object.insert("zz_unknown".to_owned(), json!("x"));
        }
        (Breakage::Oversized(extra), Some(name)) => {
            let max = schema["properties"][&name]["maxLength"].as_u64().unwrap_or(2_000) as usize;
            object.insert(name, Value::String("é".repeat(max + extra)));
        }
        (Breakage::ControlCharacter(c), Some(name)) => {
            object.insert(name, Value::String(format!("Who are the top{c} incumbents at DHS?")));
        }
        (Breakage::NotAnObject(value), _) => return value.clone(),
        (_, None) => {}
    }
    Value::Object(object)
}

#[derive(Debug, Clone)]
enum Auth {
    Valid,
    Missing,
    Unknown(String),
    Revoked,
    Basic,
    Garbage(String),
}

#[derive(Debug, Clone)]
enum Payload {
    Nothing,
    Json(Value),
    Raw(Vec<u8>),
}

/// What the request is, and so which responses the document must declare for it.
#[derive(Debug, Clone)]
enum Target {
    /// A declared operation (index into the operations).
    Operation(usize),
    /// A declared path with a method it does not declare.
    WrongMethod,
    /// No declared path.
    NoRoute,
}

#[derive(Debug, Clone)]
struct Call {
    method: Method,
    path: String,
    auth: Auth,
    payload: Payload,
    target: Target,
}

fn path_value() -> impl Strategy<Value = String> {
    prop_oneof![
        // `.` and `..` are dot segments, which the client resolves away.
        4 => "[A-Za-z0-9._~-]{1,40}".prop_filter("a dot segment", |it| it != "." && it != ".."),
        1 => Just("00000000-0000-4000-8000-0000000a0001".to_owned()),
        1 => Just(String::new()),
        1 => Just("%C3%A9t%C3%A9".to_owned()),
        1 => Just("%FF%FE".to_owned()),
        1 => Just("a%20b%2Fc".to_owned()),
    ]
}

fn path_of(op: &Operation) -> BoxedStrategy<String> {
    let template = op.template.clone();
    let names = op.path_params.clone();
    let query: Vec<BoxedStrategy<Option<String>>> = op
        .query
        .iter()
        .map(|(name, schema)| {
            let name = name.clone();
            let valid = schema["enum"].as_array().cloned().unwrap_or_else(|| vec![json!("x")]);
            let value = prop_oneof![
                3 => prop::sample::select(valid).prop_map(|it| it.as_str().unwrap_or("1").to_owned()),
                1 => "[a-z0-9]{0,8}",
            ];
            prop::option::of(value.prop_map(move |it| format!("{name}={it}"))).boxed()
        })
        .collect();
    (prop::collection::vec(path_value(), names.len()), query)
        .prop_map(move |(values, query)| {
            let mut path = template.clone();
            for (name, value) in names.iter().zip(values) {
                path = path.replace(&format!("{{{name}}}"), &value);
            }
            let query: Vec<String> = query.into_iter().flatten().collect();
            if !query.is_empty() {
                path = format!("{path}?{}", query.join("&"));
            }
            path
        })
        .boxed()
}

fn raw_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        Just(b"{\"question\": ".to_vec()),
        Just(b"{\"question\": \"Who?\"} trailing".to_vec()),
        Just(b"{\"question\": \"\\ud800\"}".to_vec()),
        Just(b"{'question': 'single quotes'}".to_vec()),
        Just(format!("{}1{}", "[".repeat(300), "]".repeat(300)).into_bytes()),
        Just(b"\xff\xfe{\"question\": \"x\"}".to_vec()),
        Just(b"null".to_vec()),
    ]
}

fn auth() -> impl Strategy<Value = Auth> {
    prop_oneof![
        Just(Auth::Missing),
        "pk_[0-9a-f]{64}".prop_map(Auth::Unknown),
        Just(Auth::Revoked),
        Just(Auth::Basic),
        "[ -~]{0,40}".prop_map(Auth::Garbage),
    ]
}

fn calls(ops: &[Operation], doc: &Value) -> BoxedStrategy<Call> {
    let mut valid = Vec::new();
    let mut broken = Vec::new();
    let mut bad_auth = Vec::new();
    let mut wrong_method = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        let method = op.method.clone();
        let body = match &op.request {
            Some(schema) => value_for(doc, schema, 0).prop_map(Payload::Json).boxed(),
            None => Just(Payload::Nothing).boxed(),
        };
        let call = {
            let method = method.clone();
            move |(path, payload, auth)| Call {
                method: method.clone(),
                path,
                auth,
                payload,
                target: Target::Operation(index),
            }
        };
        valid.push((path_of(op), body.clone(), Just(Auth::Valid)).prop_map(call.clone()).boxed());
        bad_auth.push((path_of(op), body, auth()).prop_map(call.clone()).boxed());
        if let Some(schema) = &op.request {
            let schema = resolve(doc, schema).clone();
            let mangled = (value_for(doc, &schema, 0), breakage(), any::<prop::sample::Index>())
                .prop_map(move |(body, how, pick)| {
                    Payload::Json(break_body(&schema, body, &how, pick))
                });
            let payload = prop_oneof![
                4 => mangled,
                2 => raw_body().prop_map(Payload::Raw),
                1 => Just(Payload::Nothing),
            ];
            broken.push((path_of(op), payload, Just(Auth::Valid)).prop_map(call).boxed());
        }
        let declared: Vec<Method> = ops
            .iter()
            .filter(|other| other.template == op.template)
            .map(|other| other.method.clone())
            .collect();
        let others: Vec<Method> =
            [Method::GET, Method::POST, Method::PUT, Method::DELETE, Method::PATCH]
                .into_iter()
                .filter(|it| !declared.contains(it))
                .collect();
        wrong_method.push(
            (path_of(op), prop::sample::select(others))
                .prop_map(|(path, method)| Call {
                    method,
                    path,
                    auth: Auth::Valid,
                    payload: Payload::Json(
                        json!({"question": "Who are the top incumbents at DHS?"}),
                    ),
                    target: Target::WrongMethod,
                })
                .boxed(),
        );
    }
    let templates: Vec<String> = ops.iter().map(|op| op.template.clone()).collect();
    let no_route = (
        prop_oneof![
            "/[a-z0-9_-]{1,12}",
            "/v1/[a-z0-9_-]{1,12}",
            "/v1/answer/[a-z0-9]{1,8}",
            "/v1/threads/[a-z0-9]{1,8}/resume/[a-z]{1,4}",
            Just("/V1/ANSWER".to_owned()),
            Just("/v1/answer/".to_owned()),
            Just("/v2/answer".to_owned()),
        ],
        prop::sample::select(vec![Method::GET, Method::POST, Method::DELETE]),
    )
        .prop_filter("a declared path", move |(path, _)| !templates.contains(path))
        .prop_map(|(path, method)| Call {
            method,
            path,
            auth: Auth::Valid,
            payload: Payload::Nothing,
            target: Target::NoRoute,
        });
    prop_oneof![
        7 => prop::strategy::Union::new(valid),
        5 => prop::strategy::Union::new(broken),
        3 => prop::strategy::Union::new(bad_auth),
        2 => prop::strategy::Union::new(wrong_method),
        3 => no_route,
    ]
    .boxed()
}

/// Validates instances against schemas of the document, caching compiled validators.
struct Schemas {
    doc: Value,
    compiled: Mutex<BTreeMap<String, jsonschema::Validator>>,
}

impl Schemas {
    fn errors(&self, schema: &Value, instance: &Value) -> Vec<String> {
        let key = schema.to_string();
        let mut compiled = self.compiled.lock().unwrap();
        let validator = compiled.entry(key).or_insert_with(|| {
            // The schema, with the document's components beside it so that `#/components/...`
            // references resolve.
            let mut root = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "components": self.doc["components"].clone(),
            });
            for (name, value) in schema.as_object().expect("a schema object") {
                root[name] = value.clone();
            }
            jsonschema::validator_for(&root).unwrap_or_else(|err| panic!("{err}: {root}"))
        });
        validator
            .iter_errors(instance)
            .map(|err| format!("{} at {}", err, err.instance_path()))
            .collect()
    }

    fn is_valid(&self, schema: &Value, instance: &Value) -> bool {
        self.errors(schema, instance).is_empty()
    }

    /// Checks `reply` against the declared `responses` (an operation's, or one component).
    fn check(&self, responses: &Value, reply: &Reply) -> Result<(), String> {
        let declared = responses
            .get(reply.status.to_string())
            .or_else(|| responses.get("default"))
            .ok_or_else(|| format!("status {} is not declared", reply.status))?;
        let declared = resolve(&self.doc, declared);
        let Some(content) = declared.get("content").and_then(Value::as_object) else {
            return Ok(());
        };
        let media = content.get(&reply.content_type).ok_or_else(|| {
            let known: Vec<&String> = content.keys().collect();
            format!("content type {:?} is not declared (declared: {known:?})", reply.content_type)
        })?;
        let instance = if reply.content_type.ends_with("json") {
            serde_json::from_str(&reply.text).map_err(|err| format!("not JSON ({err})"))?
        } else {
            Value::String(reply.text.clone())
        };
        let errors = self.errors(&media["schema"], &instance);
        if errors.is_empty() { Ok(()) } else { Err(format!("schema violations: {errors:?}")) }
    }
}

struct Keys {
    valid: String,
    revoked: String,
}

async fn send(client: &reqwest::Client, base: &str, keys: &Keys, call: &Call) -> Reply {
    let mut request = client.request(call.method.clone(), format!("{base}{}", call.path));
    request = match &call.auth {
        Auth::Valid => request.bearer_auth(&keys.valid),
        Auth::Missing => request,
        Auth::Unknown(key) => request.bearer_auth(key),
        Auth::Revoked => request.bearer_auth(&keys.revoked),
        Auth::Basic => request.header("Authorization", format!("Basic {}", keys.valid)),
        Auth::Garbage(value) => request.header("Authorization", value.as_str()),
    };
    request = match &call.payload {
        Payload::Nothing => request,
        Payload::Json(value) => request.json(value),
        Payload::Raw(bytes) => {
            request.header("Content-Type", "application/json").body(bytes.clone())
        }
    };
    Reply::read(request.send().await.unwrap()).await
}

/// The outcome of a run: the first failure, requests sent, replies by status, answers
/// (`status: answered`, each validated against the generated `Outcome` schema).
type Run = (Result<(), String>, usize, BTreeMap<u16, usize>, usize);

#[sqlx::test]
async fn requests_generated_from_the_openapi_document_get_declared_replies(pool: PgPool) {
    seed_demo(&pool).await;
    let valid = demo_key(&pool, 0, &["bench"]).await;
    let tenant = TenantId(planner_dataset::DEMO_TENANTS[0].id);
    let revoked = create_api_key(&pool, tenant, &["bench"]).await.unwrap();
    assert!(revoke_api_key(&pool, revoked.id).await.unwrap());
    let keys = Keys { valid, revoked: revoked.secret };
    let served = Served::start(&pool, unlimited()).await;
    let base = served.base.clone();
    // The generator and the client run on a thread of their own; the server stays on the
    // test's runtime.
    let (outcome, sent, statuses, answered): Run = tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let client = client();
        let doc = runtime.block_on(async {
            let response = client.get(format!("{base}/openapi.json")).send().await.unwrap();
            Reply::read(response).await.json()
        });
        // The document is generated from the types: the question states the screen's limits
        // and the answer's trace is typed, not a bare object.
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["AnswerRequest"]["properties"]["question"]["minLength"], 1);
        assert_eq!(schemas["AnswerRequest"]["properties"]["question"]["maxLength"], 2000);
        assert!(
            schemas["PlanTrace"]["properties"]["nodes"].is_object(),
            "{}",
            schemas["PlanTrace"]
        );
        let ops = operations(&doc);
        assert!(ops.len() >= 10, "{ops:?}");
        let schemas = Schemas { doc: doc.clone(), compiled: Mutex::new(BTreeMap::new()) };
        let strategy = calls(&ops, &doc);
        let sent = AtomicUsize::new(0);
        let answered = AtomicUsize::new(0);
        let statuses = Mutex::new(BTreeMap::<u16, usize>::new());
        let config = Config { cases: CASES, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new(config);
        let outcome = runner.run(&strategy, |call| {
            let reply = runtime.block_on(send(&client, &base, &keys, &call));
            sent.fetch_add(1, Ordering::Relaxed);
            *statuses.lock().unwrap().entry(reply.status).or_default() += 1;
            if reply.status == 200 && reply.text.contains(r#""status":"answered""#) {
                answered.fetch_add(1, Ordering::Relaxed);
            }
            let fail = |why: String| {
                TestCaseError::fail(format!("{why}\n{call:?}\n-> {} {}", reply.status, reply.text))
            };
            check_call(&schemas, &ops, &call, &reply).map_err(fail)
        });
        (
            outcome.map_err(|err| err.to_string()),
            sent.into_inner(),
            statuses.into_inner().unwrap(),
            answered.into_inner(),
        )
    })
    .await
    .unwrap();
    outcome.unwrap_or_else(|err| panic!("{err} (after {sent} requests; statuses {statuses:?})"));
    assert!(sent >= 1_000, "{sent}");
    // Answers were among the replies checked against the document's typed schemas.
    // The generator picks operations and bodies at random: two runs of 1,100 requests on
    // 2026-12-01 gave 17 and 31 answers. Ten or more shows the answer path was exercised.
    assert!(answered >= 10, "{answered} answers in {statuses:?}");
    // The generator reached every class of reply.
    for status in [200, 400, 401, 404, 405, 413, 422] {
        assert!(statuses.get(&status).is_some_and(|it| *it > 0), "no {status} in {statuses:?}");
    }
    served.stop().await;
}

/// The properties of one reply.
fn check_call(
    schemas: &Schemas,
    ops: &[Operation],
    call: &Call,
    reply: &Reply,
) -> Result<(), String> {
    if reply.status >= 500 {
        return Err("a server error".into());
    }
    let components = &schemas.doc["components"]["responses"];
    let op = match &call.target {
        Target::NoRoute => {
            if reply.status != 404 {
                return Err("expected 404".into());
            }
            return schemas.check(&json!({"404": components["NotFound"]}), reply);
        }
        Target::WrongMethod => {
            if reply.status != 405 {
                return Err("expected 405".into());
            }
            return schemas.check(&json!({"405": components["MethodNotAllowed"]}), reply);
        }
        Target::Operation(index) => &ops[*index],
    };
    schemas.check(&op.responses, reply)?;
    let keyed = matches!(call.auth, Auth::Valid) || !op.authed;
    if !keyed {
        return if reply.status == 401 { Ok(()) } else { Err("expected 401".into()) };
    }
    // A query parameter the operation does not declare, or a value outside its enum, is a 400
    // whatever the body.
    if !query_in_enums(op, &call.path) {
        return if reply.status == 400 { Ok(()) } else { Err("expected 400".into()) };
    }
    let Some(schema) = &op.request else {
        return if reply.status == 200 { Ok(()) } else { Err("expected 200".into()) };
    };
    // The request schema decides between malformed and acceptable bodies.
    let (accepted, size) = match &call.payload {
        Payload::Json(value) => (schemas.is_valid(schema, value), value.to_string().len()),
        Payload::Raw(bytes) => (false, bytes.len()),
        Payload::Nothing => (false, 0),
    };
    if size > 32 * 1024 {
        return if reply.status == 413 { Ok(()) } else { Err("expected 413".into()) };
    }
    if accepted && [400, 401, 405, 413].contains(&reply.status) {
        return Err("a body the schema accepts was refused".into());
    }
    if !accepted && !matches!(reply.status, 400 | 422) {
        return Err("a body the schema rejects was not refused".into());
    }
    Ok(())
}
