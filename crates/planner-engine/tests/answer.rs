//! The planner graph end to end on PostgreSQL: answers on seeded demo data (byte-stable
//! snapshots), clarification resumed by a second engine, refusals audited, failure paths.

use std::time::Duration;

use planner_engine::{
    Answer, Ask, Caller, Engine, EngineConfig, Error, Outcome, Route, TextSource,
};
use sqlx::PgPool;

async fn seeded(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
}

fn config() -> EngineConfig {
    EngineConfig::new(planner_registry::reference::registry().unwrap())
}

fn caller(tenant: Option<uuid::Uuid>) -> Caller {
    Caller { scopes: vec!["bench".to_owned()], tenant, key: None }
}

fn ask(question: &str) -> Ask {
    Ask {
        question: question.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
        key: None,
    }
}

fn answered(outcome: Outcome) -> Answer {
    match outcome {
        Outcome::Answered(answer) => *answer,
        Outcome::NeedsInput(needs) => panic!("expected an answer, got a question: {needs:?}"),
    }
}

/// Answers given according to the audit log: its rows less the withdrawn ones.
async fn audit_rows(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM audit.answers_given").fetch_one(pool).await.unwrap()
}

fn snapshot_json(answer: &Answer) -> serde_json::Value {
    let mut value = serde_json::to_value(answer).unwrap();
    value["timings"] = serde_json::Value::String("[redacted]".into());
    value
}

#[sqlx::test]
async fn answers_the_compound_question_byte_stably(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let question = "For the 'Department of the Army' recompete under NAICS 541512, who are the \
                    incumbents and how many of our bench hold TS/SCI with SI/TK?";
    let first = answered(engine.ask(ask(question)).await.unwrap());
    assert_eq!(first.route, Route::Plan);
    let intents: Vec<&str> = first.evidence.iter().map(|t| t.intent.as_str()).collect();
    assert_eq!(intents, ["top_incumbents", "bench_compartment_counts"]);
    assert_eq!(first.text_source, TextSource::Narrated);
    let second = answered(engine.ask(ask(question)).await.unwrap());
    assert_eq!(
        serde_json::to_string(&snapshot_json(&first)).unwrap(),
        serde_json::to_string(&snapshot_json(&second)).unwrap()
    );
    insta::assert_json_snapshot!("compound_answer", snapshot_json(&first));
}

#[sqlx::test]
async fn every_answer_and_refusal_writes_one_audit_row(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let before = audit_rows(&pool).await;
    let refused = answered(engine.ask(ask("How many of our bench are women?")).await.unwrap());
    assert_eq!(refused.route, Route::Refused);
    assert!(refused.text.contains("protected attribute"), "{}", refused.text);
    assert!(refused.evidence.is_empty());
    let unplannable =
        answered(engine.ask(ask("What is the weather like in Paris?")).await.unwrap());
    assert_eq!(unplannable.route, Route::Unplannable);
    assert_eq!(audit_rows(&pool).await, before + 2);
}

#[sqlx::test]
async fn a_clarification_is_resumed_by_another_engine(pool: PgPool) {
    seeded(&pool).await;
    let first = Engine::new(config(), pool.clone());
    let needs = match first.ask(ask("Who are the top incumbents at the Army?")).await.unwrap() {
        Outcome::NeedsInput(needs) => needs,
        Outcome::Answered(answer) => panic!("expected a question, got {:?}", answer.route),
    };
    assert_eq!(needs.missing, ["naics"]);
    assert!(needs.question.contains("NAICS"), "{}", needs.question);
    let tenant = Some(planner_dataset::DEMO_TENANTS[0].id);
    // Another tenant cannot see the thread.
    let other = Some(planner_dataset::DEMO_TENANTS[1].id);
    let second = Engine::new(config(), pool.clone());
    assert!(matches!(
        second.resume(&needs.thread_id, "541512", &caller(other)).await,
        Err(Error::UnknownThread(_))
    ));
    let answer = answered(
        second.resume(&needs.thread_id, "under NAICS 541512", &caller(tenant)).await.unwrap(),
    );
    assert_eq!(answer.route, Route::Single);
    assert_eq!(answer.plan.nodes[0].intent, "top_incumbents");
    assert_eq!(answer.plan.nodes[0].args["naics"], planner_registry::Value::Text("541512".into()));
    // The thread is finished: resuming again is an unknown thread.
    assert!(matches!(
        second.resume(&needs.thread_id, "541512", &caller(tenant)).await,
        Err(Error::UnknownThread(_))
    ));
}

#[sqlx::test]
async fn a_malformed_thread_id_is_an_unknown_thread(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool);
    let tenant = Some(planner_dataset::DEMO_TENANTS[0].id);
    let long = "x".repeat(10_000);
    for id in ["Who are the top\0 incumbents?", "", long.as_str(), "not-a-thread"] {
        match engine.resume(id, "541512", &caller(tenant)).await {
            Err(Error::UnknownThread(shown)) => assert!(shown.chars().count() <= 64, "{shown}"),
            other => panic!("{id:.20}: expected an unknown thread, got {other:?}"),
        }
    }
}

#[sqlx::test]
async fn two_unanswered_rounds_go_on_without_the_node(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let tenant = Some(planner_dataset::DEMO_TENANTS[0].id);
    let mut outcome = engine.ask(ask("Who are the top incumbents at the Army?")).await.unwrap();
    for _ in 0..2 {
        let Outcome::NeedsInput(needs) = outcome else { panic!("expected a question") };
        outcome = engine.resume(&needs.thread_id, "no idea", &caller(tenant)).await.unwrap();
    }
    let answer = answered(outcome);
    assert_eq!(answer.route, Route::Unplannable);
    assert!(
        answer.dropped.iter().any(|d| d.intent == "top_incumbents" && d.reason.contains("naics"))
    );
}

#[sqlx::test]
async fn the_answer_deadline_drops_unfinished_nodes_with_their_reason(pool: PgPool) {
    seeded(&pool).await;
    let mut config = config();
    config.limits.deadline = Duration::ZERO;
    let engine = Engine::new(config, pool.clone());
    let answer = answered(
        engine
            .ask(ask("How much has the Army spent under NAICS 541512 in the last 2 years?"))
            .await
            .unwrap(),
    );
    assert!(answer.evidence.is_empty(), "{:?}", answer.evidence);
    assert!(answer.dropped.iter().any(|d| d.reason.contains("deadline")), "{:?}", answer.dropped);
    assert!(answer.text.contains("not answered"), "{}", answer.text);
    assert_eq!(answer.text_source, TextSource::Deterministic);
}

#[sqlx::test]
async fn no_answer_without_its_audit_row(pool: PgPool) {
    seeded(&pool).await;
    sqlx::query("REVOKE INSERT ON audit.answer_log FROM planner_audit")
        .execute(&pool)
        .await
        .unwrap();
    let engine = Engine::new(config(), pool.clone());
    let result = engine.ask(ask("How many of our bench hold TS/SCI?")).await;
    assert!(matches!(result, Err(Error::AuditFailed(_))), "{result:?}");
}

#[sqlx::test]
async fn bad_input_is_a_clear_error(pool: PgPool) {
    planner_engine::migrate(&pool).await.unwrap();
    let engine = Engine::new(config(), pool.clone());
    let err = engine.ask(ask("  ")).await.unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
    let err = engine.ask(ask(&"x".repeat(2_001))).await.unwrap_err();
    assert!(err.to_string().contains("2000"), "{err}");
}

#[test]
fn the_planner_graph_drawing_is_stable() {
    insta::assert_snapshot!("planner_graph_mermaid", Engine::mermaid());
}

#[sqlx::test]
async fn a_single_intent_answer_takes_two_round_trips_with_its_audit_row(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let requirement = planner_dataset::DEMO_REQUIREMENTS[0].id;
    let question = format!("Summarize requirement {requirement}.");
    // The first answers open the connection and prepare the statement and the audit insert.
    for _ in 0..2 {
        answered(engine.ask(ask(&question)).await.unwrap());
    }
    let before = engine.database_stats();
    let answer = answered(engine.ask(ask(&question)).await.unwrap());
    let after = engine.database_stats();
    assert_eq!(answer.route, Route::Single);
    assert_eq!(answer.evidence.len(), 1);
    assert!(!answer.evidence[0].rows.is_empty(), "{answer:?}");
    assert_eq!(
        after.primary_round_trips - before.primary_round_trips,
        2,
        "one for the statement, one for the audit row's group commit"
    );
    assert_eq!(
        (after.audit_commits - before.audit_commits, after.audit_rows - before.audit_rows),
        (1, 1)
    );
    assert_eq!(after.primary_connections, before.primary_connections);
    assert_eq!(after.replica, None);
}

#[sqlx::test]
async fn a_windowed_answer_reads_its_date_in_the_same_round_trip(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let question = "How much did the Army obligate under NAICS 541512 over the last 18 months?";
    for _ in 0..2 {
        answered(engine.ask(ask(question)).await.unwrap());
    }
    let before = engine.database_stats();
    let answer = answered(engine.ask(ask(question)).await.unwrap());
    let after = engine.database_stats();
    assert_eq!(answer.route, Route::Single);
    // The window is stated from the data's own date, read with the statement.
    assert!(answer.text.contains("over the 18 months to 20"), "{}", answer.text);
    assert_eq!(after.primary_round_trips - before.primary_round_trips, 2);
}

#[sqlx::test]
async fn a_tenant_plane_asked_for_no_tenant_says_why(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    let mut asked = ask("How many of our bench hold TS/SCI?");
    asked.tenant = None;
    let answer = answered(engine.ask(asked).await.unwrap());
    assert!(answer.evidence.is_empty(), "{answer:?}");
    let dropped = &answer.dropped[0];
    assert!(dropped.reason.contains("belong to a tenant"), "{dropped:?}");
    assert!(answer.text.contains("belong to a tenant"), "{}", answer.text);
}
