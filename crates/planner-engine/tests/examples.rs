//! A registry's `examples` teach the offline proposer a domain's own phrasings: a question in
//! words no name, keyword or description of the registry says plans once an example says them,
//! and the values an example gives are read as values, never as words of its intent.

#[path = "support/planned.rs"]
mod planned;

use planner_engine::{Planner, Route};
use planner_infer::Catalog;
use planner_registry::Registry;
use planner_registry::edit::{Phrasing, add_phrasing, without_examples};

const LANES: &str = include_str!("../../../fixtures/registry/lanes.toml");

fn plan(text: &str, question: &str) -> (Route, Vec<String>) {
    let planner = Planner::new(Registry::from_toml(text, "lanes.toml").unwrap(), None, 1);
    let (route, intents, _) = planned::planned(&planner, question);
    (route, intents)
}

/// A trade's words the registry does not say ("sticky" freight for dwell time).
const QUESTION: &str = "How sticky is freight at the Denver hub?";

#[test]
fn an_example_in_the_trades_words_plans_a_question_its_other_words_miss() {
    assert_eq!(plan(LANES, QUESTION), (Route::Unplannable, vec![]));
    let taught =
        add_phrasing(LANES, "hub_dwell", Phrasing::Example, "how sticky is freight at Reno")
            .unwrap();
    assert_eq!(plan(&taught, QUESTION), (Route::Single, vec!["hub_dwell".to_owned()]));
    // The same registry read without its examples plans as it did.
    assert_eq!(plan(&without_examples(&taught).unwrap(), QUESTION).0, Route::Unplannable);
}

#[test]
fn an_examples_values_are_values_not_words_of_its_intent() {
    let taught =
        add_phrasing(LANES, "hub_dwell", Phrasing::Example, "how sticky is freight at Reno")
            .unwrap();
    let catalog = Catalog::from_registry(&Registry::from_toml(&taught, "lanes.toml").unwrap());
    let example = &catalog.get("hub_dwell").unwrap().examples[0];
    assert_eq!(example.values.len(), 1, "{example:?}");
    assert_eq!(example.without_values().trim_end(), "how sticky is freight at");
    // A question that names that hub and nothing of dwell time is not about dwell time.
    assert_ne!(plan(&taught, "Reno").1, vec!["hub_dwell".to_owned()]);
}
