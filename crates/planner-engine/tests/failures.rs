//! Failure paths: a proposer returning garbage, failing or hanging (the lexical proposer
//! answers, and the answer says how the proposer failed); a narration that fails the
//! faithfulness gate (the deterministic rendering ships), and the model narrator against the
//! fake model server (a faithful narration ships; one with an invented amount or a dash does
//! not, and the answer's gate says why); a node past its real statement timeout
//! (dropped, the others answer); the engine's connections killed mid-answer (a partial answer
//! with reasons, audited); the database gone, before or mid-answer (an error, never a hang or an
//! unaudited answer).

use std::sync::Arc;
use std::time::Duration;

use planner_engine::{
    Answer, Ask, Engine, EngineConfig, Error, Outcome, ProposerFailure, Route, TextSource,
};
use planner_infer::{
    BoxFuture, Evidence, ModelClient, ModelConfig, ModelNarrator, Narrator, Proposals,
    ProposeRequest, Proposer,
};
use planner_registry::Registry;
use sqlx::{Connection as _, PgPool};

#[path = "../../planner-infer/tests/infer/fake_server.rs"]
#[allow(dead_code, reason = "shared with planner-infer's model tests, which use the rest")]
mod fake_server;

use fake_server::{FakeServer, Reply};

use planner_registry::reference::TEXT as REGISTRY;
const QUESTION: &str = "For the 'Department of the Army' recompete under NAICS 541512, who are \
                        the incumbents and how many of our bench hold TS/SCI with SI/TK?";

async fn seeded(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
}

fn config() -> EngineConfig {
    EngineConfig::new(planner_registry::reference::registry().unwrap())
}

fn ask() -> Ask {
    Ask {
        question: QUESTION.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
        key: None,
    }
}

/// A model proposer misbehaving in one of five ways.
#[derive(Debug)]
enum BadModel {
    Garbage,
    /// Three samples naming three different intents, each bindable: no majority.
    Split,
    Unreachable,
    TimesOut,
    Hangs,
}

impl Proposer for BadModel {
    fn propose<'a>(
        &'a self,
        _: ProposeRequest<'a>,
    ) -> BoxFuture<'a, planner_infer::Result<Proposals>> {
        Box::pin(async move {
            match self {
                BadModel::Garbage => Ok(Proposals {
                    samples: vec![vec!["drop_tables".into()], vec![], vec!["SELECT 1".into()]],
                    dropped_names: 2,
                    unusable_replies: 1,
                }),
                BadModel::Split => Ok(Proposals {
                    samples: ["agency_naics_spend", "top_incumbents", "upcoming_recompetes"]
                        .map(|name| vec![name.to_owned()])
                        .to_vec(),
                    dropped_names: 0,
                    unusable_replies: 0,
                }),
                BadModel::Unreachable => {
                    Err(planner_infer::Error::Transport("connection refused".to_owned()))
                }
                BadModel::TimesOut => Err(planner_infer::Error::Timeout(Duration::from_secs(1))),
                BadModel::Hangs => std::future::pending().await,
            }
        })
    }
}

#[sqlx::test]
async fn a_misbehaving_model_falls_back_to_the_lexical_proposer(pool: PgPool) {
    seeded(&pool).await;
    for (model, kind) in [
        (BadModel::Garbage, ProposerFailure::Garbage),
        (BadModel::Split, ProposerFailure::NoMajority),
        (BadModel::Unreachable, ProposerFailure::Unavailable),
        (BadModel::TimesOut, ProposerFailure::Timeout),
        (BadModel::Hangs, ProposerFailure::Timeout),
    ] {
        let mut config = config();
        config.proposer = Some(Arc::new(model));
        config.proposer_timeout = Duration::from_millis(200);
        let engine = Engine::new(config, pool.clone());
        let Outcome::Answered(answer) = engine.ask(ask()).await.unwrap() else {
            panic!("no answer")
        };
        let intents: Vec<&str> = answer.plan.nodes.iter().map(|n| n.intent.as_str()).collect();
        assert_eq!(intents, ["top_incumbents", "bench_compartment_counts"]);
        assert_eq!(answer.route, Route::Plan);
        assert!(answer.proposer_fallback);
        assert_eq!(answer.proposer_error, Some(kind));
        let json = serde_json::to_value(&*answer).unwrap();
        assert_eq!(json["proposer_error"], kind.as_str());
        if kind == ProposerFailure::NoMajority {
            // The trace keeps the samples' outcome: the audit says why the lexical path ran.
            assert_eq!(json["trace"]["self_consistency"]["agreement"], "no_majority", "{json}");
        }
    }
}

/// A narrator that invents a number.
#[derive(Debug)]
struct Liar;

impl Narrator for Liar {
    fn narrate<'a>(
        &'a self,
        _: &'a str,
        _: &'a Evidence,
    ) -> BoxFuture<'a, planner_infer::Result<String>> {
        Box::pin(async { Ok("There are 4,242 incumbents and 17 cleared candidates.".to_owned()) })
    }
}

/// The compound question answered with the model narrator, the fake model replying `reply`.
async fn narrated_by_the_model(pool: &PgPool, reply: &str) -> Answer {
    let server = FakeServer::always(Reply::content(reply)).await;
    let mut config = config();
    let model = ModelConfig::with_defaults(&server.base_url, "local");
    config.narrator = Some(Arc::new(ModelNarrator::new(ModelClient::new(model, None).unwrap())));
    let engine = Engine::new(config, pool.clone());
    let Outcome::Answered(answer) = engine.ask(ask()).await.unwrap() else { panic!("no answer") };
    assert_eq!(server.requests().len(), 1, "one narration request");
    *answer
}

#[sqlx::test]
async fn the_model_narrator_ships_only_what_the_gate_passes(pool: PgPool) {
    seeded(&pool).await;
    let faithful = "Juniper Analytics Inc. leads the incumbents with $715,936.81 obligated on 1 \
                    award over the last 36 months; the bench counts are withheld.";
    let answer = narrated_by_the_model(&pool, faithful).await;
    assert_eq!(answer.text_source, TextSource::Narrated);
    assert!(answer.text.starts_with(faithful), "{}", answer.text);
    assert_eq!(answer.gate.as_ref().map(|gate| gate.passed), Some(true));

    let template = answered(Engine::new(config(), pool.clone()).ask(ask()).await).text.clone();
    for (unfaithful, miss) in [
        ("Juniper Analytics Inc. leads with $815,936.81 obligated.", "Number(\"815936.81\")"),
        ("Juniper Analytics Inc. leads \u{2014} $715,936.81 obligated.", "Dash("),
    ] {
        let answer = narrated_by_the_model(&pool, unfaithful).await;
        assert_eq!(answer.text_source, TextSource::Deterministic, "{unfaithful}");
        assert_eq!(answer.text, template, "the template's text ships instead");
        let gate = answer.gate.expect("a verdict");
        assert!(!gate.passed);
        assert!(gate.misses.iter().any(|it| it.starts_with(miss)), "{miss}: {:?}", gate.misses);
    }
}

#[sqlx::test]
async fn a_narration_that_fails_the_gate_ships_the_deterministic_rendering(pool: PgPool) {
    seeded(&pool).await;
    let mut config = config();
    config.narrator = Some(Arc::new(Liar));
    let engine = Engine::new(config, pool.clone());
    let Outcome::Answered(answer) = engine.ask(ask()).await.unwrap() else { panic!("no answer") };
    assert_eq!(answer.text_source, TextSource::Deterministic);
    assert!(!answer.text.contains("4,242"), "{}", answer.text);
    let gate = answer.gate.expect("a verdict");
    assert!(!gate.passed);
    assert!(!gate.misses.is_empty());
}

#[sqlx::test]
async fn the_database_gone_is_an_error_not_an_unaudited_answer(pool: PgPool) {
    seeded(&pool).await;
    let engine = Engine::new(config(), pool.clone());
    // Warm: the engine's own connections are open when the database goes.
    answered(engine.ask(ask()).await);
    // Gone for every login: no new connection, and every open one ended.
    let (mut admin, database) = admin_of(&pool).await;
    allow_connections(&mut admin, &database, false).await;
    assert!(terminate(&mut admin, &database).await >= 1);
    let result = tokio::time::timeout(Duration::from_secs(30), engine.ask(ask())).await;
    let result = result.expect("the engine answered in time");
    // Every node fails and is dropped; the audit row, the answer's one write, cannot be
    // written, so the answer is withheld.
    assert!(matches!(result, Err(Error::Unavailable(_) | Error::AuditFailed(_))), "{result:?}");
    allow_connections(&mut admin, &database, true).await;
    admin.close().await.unwrap();
}

/// Answers given according to the audit log: its rows less the withdrawn ones.
async fn audit_rows(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM audit.answers_given").fetch_one(pool).await.unwrap()
}

/// The reference registry with `top_incumbents` made heavy: a legitimate query (no sleep, which
/// the guard forbids) whose cross join of two series runs for minutes.
fn heavy_config() -> EngineConfig {
    let start = REGISTRY.find("name = \"top_incumbents\"").unwrap();
    let join = "  CROSS JOIN w\n";
    let at = start + REGISTRY[start..].find(join).unwrap() + join.len();
    let heavy = format!(
        "{}  CROSS JOIN generate_series(1, 100000) AS burn_a (n)\n  \
         CROSS JOIN generate_series(1, 100000) AS burn_b (n)\n{}",
        &REGISTRY[..at],
        &REGISTRY[at..]
    );
    EngineConfig::new(
        Registry::from_toml_with(&heavy, "heavy.toml", &planner_registry::reference::files)
            .unwrap(),
    )
}

fn answered(result: Result<Outcome, Error>) -> Box<Answer> {
    match result {
        Ok(Outcome::Answered(answer)) => answer,
        other => panic!("no answer: {other:?}"),
    }
}

fn reason_of<'a>(answer: &'a Answer, intent: &str) -> &'a str {
    let dropped = answer.dropped.iter().find(|it| it.intent == intent);
    dropped.unwrap_or_else(|| panic!("{intent} not dropped: {:?}", answer.dropped)).reason.as_str()
}

fn evidence_intents(answer: &Answer) -> Vec<&str> {
    answer.evidence.iter().map(|it| it.intent.as_str()).collect()
}

#[sqlx::test]
async fn a_node_past_its_statement_timeout_is_dropped_and_the_others_answer(pool: PgPool) {
    seeded(&pool).await;
    let mut config = heavy_config();
    config.limits.node_timeout = Duration::from_millis(300);
    let engine = Engine::new(config, pool.clone());
    let before = audit_rows(&pool).await;
    let answer = answered(engine.ask(ask()).await);
    assert_eq!(answer.route, Route::Plan);
    assert!(reason_of(&answer, "top_incumbents").contains("time limit"), "{:?}", answer.dropped);
    assert_eq!(evidence_intents(&answer), ["bench_compartment_counts"]);
    assert_eq!(audit_rows(&pool).await, before + 1);
    // The statement was cancelled by the server, not left running.
    let running: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND state = 'active' AND query LIKE '%burn_a%' AND pid <> pg_backend_pid()",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(running, 0);
}

/// Waits, from `admin`, until the heavy node's statement is the only one running in `database`
/// (the other node has finished).
/// Waits until the heavy statement runs alone in a backend other than `killed` (one already
/// terminated, which may still be listed while it exits); that backend's pid.
async fn wait_for_heavy_statement(
    admin: &mut sqlx::PgConnection,
    database: &str,
    killed: Option<i32>,
) -> i32 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (heavy, others): (Option<i32>, i64) = sqlx::query_as(
            "SELECT min(pid) FILTER (WHERE query LIKE '%burn_a%' AND pid <> $2), \
                    count(*) FILTER (WHERE query NOT LIKE '%burn_a%') \
             FROM pg_stat_activity WHERE datname = $1 AND state = 'active' \
             AND pid <> pg_backend_pid()",
        )
        .bind(database)
        .bind(killed.unwrap_or(0))
        .fetch_one(&mut *admin)
        .await
        .unwrap();
        if let Some(pid) = heavy
            && others == 0
        {
            return pid;
        }
        assert!(tokio::time::Instant::now() < deadline, "the heavy node never ran alone");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Terminates every backend of `database` but the caller's; how many.
async fn terminate(admin: &mut sqlx::PgConnection, database: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database)
    .fetch_one(&mut *admin)
    .await
    .unwrap()
}

/// A connection to the server's `postgres` database, outside the test pool: it survives what
/// is done to the test database.
async fn admin_of(pool: &PgPool) -> (sqlx::PgConnection, String) {
    let database: String =
        sqlx::query_scalar("SELECT current_database()").fetch_one(pool).await.unwrap();
    let options = pool.connect_options().as_ref().clone().database("postgres");
    (sqlx::PgConnection::connect_with(&options).await.unwrap(), database)
}

/// The heavy engine for the mid-answer tests: the statement timeout bounds the heavy query on
/// the server even if a test fails before killing it.
fn heavy_engine(pool: &PgPool) -> Engine {
    let mut config = heavy_config();
    config.limits.node_timeout = Duration::from_secs(20);
    config.limits.deadline = Duration::from_secs(60);
    Engine::new(config, pool.clone())
}

#[sqlx::test]
async fn connections_killed_mid_answer_give_a_partial_audited_answer(pool: PgPool) {
    seeded(&pool).await;
    let engine = heavy_engine(&pool);
    let before = audit_rows(&pool).await;
    let (mut admin, database) = admin_of(&pool).await;
    let asking = tokio::spawn(async move { engine.ask(ask()).await });
    // A statement that lost its connection runs once more on a new one: that one is killed too.
    let mut killed = None;
    for _ in 0..2 {
        killed = Some(wait_for_heavy_statement(&mut admin, &database, killed).await);
        assert!(terminate(&mut admin, &database).await >= 1);
    }
    let result = tokio::time::timeout(Duration::from_secs(30), asking).await;
    let answer = answered(result.expect("the engine answered in time").unwrap());
    assert_eq!(answer.route, Route::Plan);
    let reason = reason_of(&answer, "top_incumbents");
    assert!(reason.contains("unavailable"), "{reason}");
    // The light node ran before the kill, or lost its connection too: either way it is there
    // or dropped for that reason, never silently missing.
    for node in ["top_incumbents", "bench_compartment_counts"] {
        let ran = evidence_intents(&answer).contains(&node);
        let dropped = answer.dropped.iter().any(|it| it.intent == node);
        assert!(ran != dropped, "{node}: {:?} {:?}", answer.evidence, answer.dropped);
    }
    for dropped in &answer.dropped {
        assert!(dropped.reason.contains("unavailable"), "{dropped:?}");
    }
    // The pool reconnected for the audit row: the answer is audited.
    assert_eq!(audit_rows(&pool).await, before + 1);
    admin.close().await.unwrap();
}

/// Lets connections to `database` in, or keeps every new one out.
async fn allow_connections(admin: &mut sqlx::PgConnection, database: &str, allow: bool) {
    let template = if allow {
        "SELECT format('ALTER DATABASE %I ALLOW_CONNECTIONS true', $1::text)"
    } else {
        "SELECT format('ALTER DATABASE %I ALLOW_CONNECTIONS false', $1::text)"
    };
    let sql: String =
        sqlx::query_scalar(template).bind(database).fetch_one(&mut *admin).await.unwrap();
    // The statement is built by the server's format(), the name quoted as an identifier.
    sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut *admin).await.unwrap();
}

#[sqlx::test]
async fn the_database_gone_mid_answer_is_an_error_and_nothing_unaudited(pool: PgPool) {
    seeded(&pool).await;
    let engine = heavy_engine(&pool);
    let before = audit_rows(&pool).await;
    let (mut admin, database) = admin_of(&pool).await;
    let asking = tokio::spawn(async move { engine.ask(ask()).await });
    wait_for_heavy_statement(&mut admin, &database, None).await;
    // No new connection is accepted, and every open one is killed.
    allow_connections(&mut admin, &database, false).await;
    assert!(terminate(&mut admin, &database).await >= 1);
    let result = tokio::time::timeout(Duration::from_secs(60), asking).await;
    let result = result.expect("the engine gave up in time").unwrap();
    allow_connections(&mut admin, &database, true).await;
    assert!(matches!(result, Err(Error::Unavailable(_) | Error::AuditFailed(_))), "{result:?}");
    assert_eq!(audit_rows(&pool).await, before);
    admin.close().await.unwrap();
}
