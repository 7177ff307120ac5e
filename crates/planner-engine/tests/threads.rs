//! Threads resume with the resuming key's tenant and scopes, never past a revoked starting key
//! or the retention, nor on another registry than the one they were asked of; audit rows name the tenant and the key, list the intents that ran and hold
//! no value, id, question or answer text, on every route an answer takes (single, plan, refused,
//! unplannable, and an answer after a clarification).

use std::collections::BTreeSet;
use std::time::Duration;

use planner_engine::{Answer, Ask, Caller, Engine, EngineConfig, Error, Outcome};
use planner_exec::{TenantId, create_api_key, revoke_api_key};
use planner_registry::Value;
use sqlx::PgPool;
use uuid::Uuid;

async fn seeded(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
}

fn config() -> EngineConfig {
    EngineConfig::new(planner_registry::reference::registry().unwrap())
}

fn tenant() -> Uuid {
    planner_dataset::DEMO_TENANTS[0].id
}

/// A live key of the first demo tenant with `scopes`.
async fn key(pool: &PgPool, scopes: &[&str]) -> Uuid {
    create_api_key(pool, TenantId(tenant()), scopes).await.unwrap().id.0
}

fn ask(question: &str, key: Uuid) -> Ask {
    Ask {
        question: question.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(tenant()),
        key: Some(key),
    }
}

fn caller(scopes: &[&str], key: Uuid) -> Caller {
    Caller {
        scopes: scopes.iter().map(|it| (*it).to_owned()).collect(),
        tenant: Some(tenant()),
        key: Some(key),
    }
}

fn needs_input(outcome: Outcome) -> String {
    match outcome {
        Outcome::NeedsInput(needs) => needs.thread_id,
        Outcome::Answered(answer) => panic!("expected a question, got {:?}", answer.route),
    }
}

fn answered(outcome: Outcome) -> Answer {
    match outcome {
        Outcome::Answered(answer) => *answer,
        Outcome::NeedsInput(needs) => panic!("expected an answer, got {needs:?}"),
    }
}

/// A bench question missing its clearance: the planner asks for it.
const BENCH_CLARIFY: &str = "How many of our bench candidates hold a clearance?";

#[sqlx::test]
async fn a_resume_runs_with_the_resuming_keys_scopes(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let with_bench = key(&pool, &["bench"]).await;
    let without = key(&pool, &[]).await;

    // With the bench scope, the resumed thread runs the bench node.
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, with_bench)).await.unwrap());
    let answer =
        answered(engine.resume(&thread, "TS/SCI", &caller(&["bench"], with_bench)).await.unwrap());
    let intents: Vec<&str> = answer.evidence.iter().map(|t| t.intent.as_str()).collect();
    assert_eq!(intents, ["bench_clearance_counts"]);

    // Started by a key with the bench scope, resumed by a key of the same tenant without it:
    // no bench node runs, and the answer says why.
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, with_bench)).await.unwrap());
    let answer = answered(engine.resume(&thread, "TS/SCI", &caller(&[], without)).await.unwrap());
    assert!(answer.evidence.iter().all(|t| !t.intent.starts_with("bench")), "{answer:?}");
    assert!(answer.plan.nodes.iter().all(|n| !n.intent.starts_with("bench")));
    assert!(answer.text.contains("lacks the bench scope"), "{}", answer.text);
    let logged: Vec<String> = sqlx::query_scalar(
        "SELECT array_to_string(intents, ',') FROM audit.answer_log
         WHERE key_id = $1 ORDER BY recorded_at",
    )
    .bind(without)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(logged, [""]);
}

#[sqlx::test]
async fn a_thread_of_a_revoked_key_cannot_resume(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let first = key(&pool, &["bench"]).await;
    let second = key(&pool, &["bench"]).await;
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, first)).await.unwrap());
    assert!(revoke_api_key(&pool, planner_exec::ApiKeyId(first)).await.unwrap());
    // Not even another live key of the same tenant resumes it.
    assert!(matches!(
        engine.resume(&thread, "TS/SCI", &caller(&["bench"], second)).await,
        Err(Error::UnknownThread(_))
    ));
}

#[sqlx::test]
async fn a_thread_resumes_only_on_the_registry_it_was_asked_of(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let key = key(&pool, &["bench"]).await;
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, key)).await.unwrap());
    // An engine serving another registry on the same database knows no such thread...
    let freight = planner_registry::Registry::from_toml(
        include_str!("fixtures/freight.toml"),
        "freight.toml",
    )
    .unwrap();
    let other = Engine::new(EngineConfig::new(freight), pool.clone());
    assert!(matches!(
        other.resume(&thread, "TS/SCI", &caller(&["bench"], key)).await,
        Err(Error::UnknownThread(_))
    ));
    // ...and the thread still waits for the one that asked it.
    let answer =
        answered(engine.resume(&thread, "TS/SCI", &caller(&["bench"], key)).await.unwrap());
    assert_eq!(answer.evidence.len(), 1);
}

#[sqlx::test]
async fn threads_past_the_retention_are_unknown_and_pruned(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(
        EngineConfig { thread_retention: Duration::from_millis(1), ..config() },
        pool.clone(),
    );
    let key = key(&pool, &["bench"]).await;
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, key)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(matches!(
        engine.resume(&thread, "TS/SCI", &caller(&["bench"], key)).await,
        Err(Error::UnknownThread(_))
    ));
    engine.prune_threads().await.unwrap();
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM planner_graph_checkpoints)
              + (SELECT count(*) FROM admin.thread)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0, "no question text is kept past the retention");
}

/// The audit rows written since `seen`, as JSON text, by id; `seen` takes them in.
async fn new_rows(pool: &PgPool, seen: &mut BTreeSet<Uuid>) -> Vec<(Vec<String>, String)> {
    let rows: Vec<(Uuid, Vec<String>, String)> = sqlx::query_as(
        // The row as JSON, less its clock (a date cell of an answer could equal today's date).
        "SELECT id, intents, (to_jsonb(log) - 'recorded_at')::text
         FROM audit.answer_log AS log ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    rows.into_iter()
        .filter(|(id, _, _)| seen.insert(*id))
        .map(|(_, intents, text)| (intents, text))
        .collect()
}

/// Every value the answer's plan bound, as text.
fn bound_values(answer: &Answer) -> Vec<String> {
    let mut values = Vec::new();
    for node in &answer.plan.nodes {
        for value in node.args.values() {
            match value {
                Value::Text(text) => values.push(text.clone()),
                Value::Int(n) => values.push(n.to_string()),
                Value::List(items) => values.extend(items.iter().cloned()),
            }
        }
    }
    values
}

fn assert_clean(row: &str, forbidden: &[String]) {
    for text in forbidden.iter().filter(|it| it.len() >= 2) {
        assert!(!row.contains(text.as_str()), "the audit row holds {text:?}: {row}");
    }
}

#[sqlx::test]
async fn audit_rows_on_every_route_hold_counts_and_ids_only(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let key = key(&pool, &["bench"]).await;
    let mut seen = BTreeSet::new();
    let requirement = planner_dataset::DEMO_REQUIREMENTS[0].id.to_string();
    let questions = [
        "How much has the Army spent under NAICS 541512 in the last 2 years?".to_owned(),
        "For the 'Department of the Army' recompete under NAICS 541512, who are the \
         incumbents and how many of our bench hold TS/SCI with SI/TK?"
            .to_owned(),
        format!("Give me the capture picture for requirement {requirement}"),
        "How many of our bench are women?".to_owned(),
        "What is the weather like in Paris?".to_owned(),
    ];
    let mut routes = BTreeSet::new();
    for question in &questions {
        let answer = answered(engine.ask(ask(question, key)).await.unwrap());
        routes.insert(answer.route.as_str());
        let rows = new_rows(&pool, &mut seen).await;
        assert_eq!(rows.len(), 1, "{question}");
        let (intents, row) = &rows[0];
        let ran: Vec<String> = answer.evidence.iter().map(|t| t.intent.clone()).collect();
        assert_eq!(*intents, ran, "{question}");
        let mut forbidden = bound_values(&answer);
        forbidden.extend([question.clone(), answer.text.clone(), requirement.clone()]);
        forbidden.extend(answer.evidence.iter().flat_map(|t| t.rows.iter().flatten().cloned()));
        forbidden.retain(|it| it.parse::<i64>().is_err());
        assert_clean(row, &forbidden);
        assert!(row.contains(&tenant().to_string()) && row.contains(&key.to_string()), "{row}");
    }

    // A clarification writes no row (nothing was answered); the resumed answer writes one.
    let thread = needs_input(engine.ask(ask(BENCH_CLARIFY, key)).await.unwrap());
    assert!(new_rows(&pool, &mut seen).await.is_empty());
    let answer =
        answered(engine.resume(&thread, "TS/SCI", &caller(&["bench"], key)).await.unwrap());
    let rows = new_rows(&pool, &mut seen).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, ["bench_clearance_counts"]);
    let mut forbidden = vec![BENCH_CLARIFY.to_owned(), "TS/SCI".to_owned(), answer.text.clone()];
    forbidden.extend(bound_values(&answer));
    assert_clean(&rows[0].1, &forbidden);
    assert_eq!(
        routes.into_iter().collect::<Vec<_>>(),
        ["plan", "refused", "single", "unplannable"]
    );
}
