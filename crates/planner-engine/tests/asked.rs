//! An ask for a thing no intent returns, on a domain's registry read from its files (the
//! utility domain, `fixtures/domains/utility`): the question is unplannable although it names a
//! known value, and beside an ask the registry answers it is named as not answered.

use std::path::Path;

#[path = "support/planned.rs"]
mod planned;

use planner_engine::{Planner, Route};
use planner_registry::Registry;

fn utility() -> Planner {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains/utility");
    let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Planner::new(Registry::from_toml_with(&text, "registry.toml", &files).unwrap(), None, 1)
}

fn plan(question: &str) -> (Route, Vec<String>, Vec<String>) {
    planned::planned(&utility(), question)
}

#[test]
fn a_thing_no_intent_returns_is_unplannable_though_a_known_value_is_named() {
    // Invented questions: a modifier names a thing the registry does not know ("diesel",
    // "power"), beside a district the registry knows.
    for question in [
        "What's the diesel cost for the Old Town crews?",
        "Power bill for the Riverside pumps in 2024",
    ] {
        assert_eq!(plan(question).0, Route::Unplannable, "{question}");
    }
}

#[test]
fn beside_an_answered_ask_it_is_named_as_not_answered() {
    let (route, intents, unanswered) =
        plan("Open work orders in Old Town, and the diesel cost for the crews");
    assert_eq!(route, Route::Single);
    assert_eq!(intents, ["open_work_orders"]);
    assert_eq!(unanswered, ["diesel cost for the crews"]);
}
