//! The answer snapshot corpus (fixtures/answers/questions.txt): every question answered on the
//! demo dataset (scale 1, fixed seed and today) for the first demo tenant, each full answer an
//! insta snapshot with only the timings redacted. A change to any answer is a visible change.

#[path = "support/builtin.rs"]
mod builtin;

use planner_engine::{Ask, Engine, EngineConfig, Outcome};
use planner_registry::Registry;
use sqlx::PgPool;

const QUESTIONS: &str = include_str!("../../../fixtures/answers/questions.txt");

#[sqlx::test]
async fn the_answer_corpus_is_byte_stable(pool: PgPool) {
    answer_the_corpus(pool, planner_registry::reference::registry().unwrap()).await;
}

/// Read by the built-in extractors instead of the kinds `capture.toml` declares, every answer
/// is the same, byte for byte: the same snapshots hold.
#[sqlx::test]
async fn the_answer_corpus_is_the_same_with_the_built_in_extractors(pool: PgPool) {
    answer_the_corpus(pool, builtin::builtin_reference()).await;
}

async fn answer_the_corpus(pool: PgPool, registry: Registry) {
    planner_engine::migrate(&pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(1.0);
    planner_dataset::seed(&pool, &options).await.unwrap();
    let engine = Engine::new(EngineConfig::new(registry), pool);
    let mut routes = std::collections::BTreeSet::new();
    let mut count = 0;
    for line in QUESTIONS.lines().filter(|it| !it.starts_with('#') && !it.trim().is_empty()) {
        let (id, question) = line.split_once('|').expect("`id | question`");
        let ask = Ask {
            question: question.trim().to_owned(),
            scopes: vec!["bench".to_owned()],
            tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
            key: None,
        };
        let snapshot = match engine.ask(ask.clone()).await.unwrap() {
            Outcome::Answered(answer) => {
                routes.insert(answer.route.as_str());
                let mut value = serde_json::to_value(&answer).unwrap();
                value["timings"] = serde_json::Value::String("[redacted]".into());
                // Asked twice, the same bytes.
                let Outcome::Answered(again) = engine.ask(ask).await.unwrap() else {
                    panic!("{id}")
                };
                let mut again = serde_json::to_value(&again).unwrap();
                again["timings"] = serde_json::Value::String("[redacted]".into());
                assert_eq!(value.to_string(), again.to_string(), "{id} is not byte-stable");
                value
            }
            Outcome::NeedsInput(mut needs) => {
                routes.insert("clarify");
                needs.thread_id = "[redacted]".into();
                serde_json::to_value(&needs).unwrap()
            }
        };
        insta::assert_json_snapshot!(format!("corpus_{}", id.trim()), snapshot);
        count += 1;
    }
    assert!(count >= 40, "{count} questions");
    assert_eq!(
        routes.into_iter().collect::<Vec<_>>(),
        ["clarify", "plan", "refused", "single", "unplannable"]
    );
}
