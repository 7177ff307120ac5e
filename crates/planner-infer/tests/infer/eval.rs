//! The development corpus covers the registry. Accuracy is scored through the engine's own
//! routing, in planner-engine's `tests/accuracy.rs`.

use crate::pipeline::{load_corpus, reference_registry, root};

#[test]
fn every_intent_and_route_is_covered() {
    let registry = reference_registry();
    let corpus = load_corpus(&root().join("fixtures/eval/dev.jsonl"));
    for intent in registry.intents() {
        assert!(
            corpus.iter().any(|item| item.intents.contains(&intent.name)),
            "{} is not covered",
            intent.name
        );
    }
    for route in ["single", "plan", "clarify", "refused", "unplannable"] {
        assert!(
            corpus.iter().filter(|item| item.route == route).count() >= 10,
            "too few {route} items"
        );
    }
}
