//! Shared set-up: the registry file, a seeded database, and sample arguments.

use std::collections::BTreeMap;
use std::time::Duration;

use planner_dataset::{DEMO_REQUIREMENTS, DEMO_SEED, SeedOptions, demo_today, seed};
use planner_exec::{
    Bind, CountSpec, ExecRequest, Guard, Reader, ResultTable, TenantId, WirePool, execute,
};
use planner_registry::{Intent, ParamKind, Registry, Requirement, Value};
use sqlx::PgPool;
use uuid::Uuid;

/// The scale the tests seed: about 1,000 awards and 200 candidates.
pub(crate) const TEST_SCALE: f64 = 0.02;

pub(crate) fn registry() -> Registry {
    match planner_registry::reference::registry() {
        Ok(registry) => registry,
        Err(error) => panic!("{error}"),
    }
}

pub(crate) async fn seeded(pool: &PgPool) {
    let options =
        SeedOptions { scale: TEST_SCALE, seed: DEMO_SEED, today: demo_today(), progress: false };
    seed(pool, &options).await.unwrap();
}

/// Sample arguments by param name: the first demo requirement (tenant A) and its incumbent.
pub(crate) async fn sample_args(pool: &PgPool) -> BTreeMap<&'static str, Value> {
    let requirement = DEMO_REQUIREMENTS[0];
    let incumbent: String = sqlx::query_scalar(
        "SELECT a.recipient_uei FROM market.award AS a
         JOIN capture.requirement AS r ON r.predecessor_piid = a.piid WHERE r.id = $1",
    )
    .bind(requirement.id)
    .fetch_one(pool)
    .await
    .unwrap();
    BTreeMap::from([
        ("agency", Value::Text(requirement.agency.into())),
        ("naics", Value::Text(requirement.naics.into())),
        ("requirement_id", Value::Text(requirement.id.to_string())),
        ("clearance", Value::Text("ts_sci".into())),
        ("compartments", Value::List(vec!["SI".into(), "TK".into()])),
        ("uei", Value::Text(incumbent)),
    ])
}

fn bind(kind: ParamKind, value: &Value) -> Bind {
    match (kind, value) {
        (ParamKind::Uuid, Value::Text(text)) => Bind::Uuid(Uuid::parse_str(text).unwrap()),
        (_, Value::Int(n)) => Bind::Int(*n),
        (_, Value::List(items)) => Bind::TextList(items.clone()),
        (_, Value::Text(text)) => Bind::Text(text.clone()),
    }
}

/// The binds of one intent from `args`, defaults filling the rest.
pub(crate) fn binds(
    registry: &Registry,
    intent: &Intent,
    args: &BTreeMap<&'static str, Value>,
) -> Vec<Bind> {
    intent
        .params
        .iter()
        .map(|param| {
            let name = registry.param(param.param).name.as_str();
            let value = match (&param.requirement, args.get(name)) {
                (_, Some(value)) => value.clone(),
                (Requirement::Optional { default, .. }, None) => default.clone(),
                (Requirement::Required, None) => panic!("no sample for {name}"),
            };
            bind(param.kind, &value)
        })
        .collect()
}

/// Runs one query intent with `args` (defaults fill the rest) the way its plane requires, with a
/// total row under a count result.
pub(crate) async fn run(
    pool: &PgPool,
    registry: &Registry,
    intent: &Intent,
    args: &BTreeMap<&'static str, Value>,
    tenant: Uuid,
) -> planner_exec::Result<ResultTable> {
    run_with(pool, registry, intent, args, tenant, true).await
}

/// Runs one query intent as the engine does (no total row when `total_row` is false).
pub(crate) async fn run_with(
    pool: &PgPool,
    registry: &Registry,
    intent: &Intent,
    args: &BTreeMap<&'static str, Value>,
    tenant: Uuid,
    total_row: bool,
) -> planner_exec::Result<ResultTable> {
    let query = intent.query().unwrap();
    let binds = binds(registry, intent, args);
    let guard = match Guard::for_query(query) {
        Guard::Counts(spec) => Guard::Counts(CountSpec { total_row, ..spec }),
        rows => rows,
    };
    let request = ExecRequest {
        sql: &query.sql,
        binds: &binds,
        tenant: Some(TenantId(tenant)),
        reader: Reader::for_plane(registry.plane(query.plane)),
        timeout: Duration::from_secs(10),
        guard,
    };
    execute(&WirePool::from_pg_pool(pool), &request).await
}
