//! Failure paths: a proposer returning garbage, failing or hanging (the lexical proposer
//! answers); a narration that fails the faithfulness gate (the deterministic rendering ships);
//! the database gone (an error, never a hang or an unaudited answer).

use std::sync::Arc;
use std::time::Duration;

use planner_engine::{Ask, Engine, EngineConfig, Error, Outcome, Route, TextSource};
use planner_infer::{BoxFuture, Evidence, Narrator, Proposals, ProposeRequest, Proposer};
use planner_registry::Registry;
use sqlx::PgPool;

const REGISTRY: &str = include_str!("../../../fixtures/registry/capture.toml");
const QUESTION: &str = "For the 'Department of the Army' recompete under NAICS 541512, who are \
                        the incumbents and how many of our bench hold TS/SCI with SI/TK?";

async fn seeded(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
}

fn config() -> EngineConfig {
    EngineConfig::new(Registry::from_toml(REGISTRY, "capture.toml").unwrap())
}

fn ask() -> Ask {
    Ask {
        question: QUESTION.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
    }
}

/// A model proposer misbehaving in one of three ways.
#[derive(Debug)]
enum BadModel {
    Garbage,
    Fails,
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
                BadModel::Fails => Err(planner_infer::Error::Timeout(Duration::from_secs(1))),
                BadModel::Hangs => std::future::pending().await,
            }
        })
    }
}

#[sqlx::test]
async fn a_misbehaving_model_falls_back_to_the_lexical_proposer(pool: PgPool) {
    seeded(&pool).await;
    for model in [BadModel::Garbage, BadModel::Fails, BadModel::Hangs] {
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
    pool.close().await;
    let result = tokio::time::timeout(Duration::from_secs(30), engine.ask(ask())).await;
    let result = result.expect("the engine answered in time");
    assert!(matches!(result, Err(Error::Unavailable(_))), "{result:?}");
}
