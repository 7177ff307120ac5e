//! How questions are read on registries a new user wrote (`fixtures/domains/property` and
//! `restaurants`): a name the registry does not know, said where a value goes, is the one thing
//! meant (the user is asked which); a superlative ranks what the ask names, not whatever intent
//! ranks; a name two values share is asked about.

use std::path::Path;

#[path = "support/planned.rs"]
mod planned;

use planner_engine::{Planner, Route};
use planner_registry::Registry;

fn planner(domain: &str) -> Planner {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains").join(domain);
    let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Planner::new(Registry::from_toml_with(&text, "registry.toml", &files).unwrap(), None, 1)
}

#[test]
fn an_unknown_name_where_a_value_goes_is_asked_about() {
    let planner = planner("property");
    assert_eq!(planned::planned(&planner, "rent roll for Dayton").0, Route::Clarify);
    assert_eq!(planned::planned(&planner, "the rent roll please").0, Route::Clarify);
}

#[test]
fn a_superlative_ranks_what_the_ask_names() {
    let planner = planner("restaurants");
    for (question, intent) in [
        ("which store had the highest no-show rate in 2024", "reservations_no_shows"),
        ("where is the labor % running hottest this year?", "labor_cost"),
    ] {
        let (route, intents, _) = planned::planned(&planner, question);
        assert_eq!((route, intents), (Route::Single, vec![intent.to_owned()]), "{question}");
    }
}

#[test]
fn its_the_same_and_that_vendor_refer_back_through_an_optional_edge() {
    let planner = planner("property");
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    for question in [
        "who did WO-104200, and what have we paid its vendor in 2025?",
        "who did WO-104200, and what have we paid the same vendor in 2025?",
        "who did WO-104200, and what have we paid that vendor in 2025?",
    ] {
        let report =
            runtime.block_on(planner_engine::plan_report(&planner, question, &[])).unwrap();
        let plan = serde_json::to_value(&report.plan).unwrap();
        let edges = plan["edges"].as_array().unwrap();
        assert!(
            edges.iter().any(|edge| edge["to"] == "vendor_spend" && edge["param"] == "vendor"),
            "{question}: {plan}"
        );
    }
}

/// The freight test registry with two carriers sharing the name "Acme" (`?Acme` on each).
fn shared_name_planner() -> Planner {
    let text = include_str!("fixtures/freight.toml")
        .replace(
            "{ value = \"C1\", aliases = [\"=C1\"] },",
            "{ value = \"C1\", aliases = [\"=C1\", \"Acme Road\", \"?Acme\"] },",
        )
        .replace(
            "{ value = \"C2\", aliases = [\"=C2\"] },",
            "{ value = \"C2\", aliases = [\"=C2\", \"Acme Rail\", \"?Acme\"] },",
        );
    Planner::new(Registry::from_toml(&text, "freight.toml").unwrap(), None, 1)
}

#[test]
fn a_name_two_values_share_is_asked_about_even_where_it_is_optional() {
    let planner = shared_name_planner();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    // The carrier is optional: "Acme" alone must not answer for every carrier.
    let report = runtime
        .block_on(planner_engine::plan_report(&planner, "how reliable is Acme?", &[]))
        .unwrap();
    let plan = serde_json::to_value(&report).unwrap();
    assert_eq!(plan["route"], "clarify", "{plan}");
    assert_eq!(plan["missing"], serde_json::json!(["carrier"]), "{plan}");
    let question = plan["question_to_user"].as_str().unwrap_or("");
    assert!(question.contains("C1 or C2"), "{plan}");
    // Its own name is one carrier.
    let (route, intents, _) = planned::planned(&planner, "how reliable is Acme Rail?");
    assert_eq!((route, intents), (Route::Single, vec!["carrier_reliability".to_owned()]));
}

#[test]
fn a_name_two_values_share_must_be_marked_shared_on_each() {
    let text = include_str!("fixtures/freight.toml")
        .replace("[\"=C1\"]", "[\"=C1\", \"Acme\"]")
        .replace("[\"=C2\"]", "[\"=C2\", \"Acme\"]");
    let err = Registry::from_toml(&text, "freight.toml").unwrap_err().to_string();
    assert!(err.contains("claimed by both") && err.contains("`?acme`"), "{err}");
}
