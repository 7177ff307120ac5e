//! The lexical proposer end to end on the development corpus: extract → propose → validate,
//! scored as `planner eval` scores it. Refused items are the engine's screen, not measured here.

use planner_infer::{Catalog, LexicalProposer};

use crate::pipeline::{Figures, extract, load_corpus, outcome, reference_registry, root};

/// Runs the lexical pipeline over a corpus file.
fn evaluate(file: &str) -> Figures {
    let registry = reference_registry();
    let proposer = LexicalProposer::new(&Catalog::from_registry(&registry));
    let corpus = load_corpus(&root().join(file));
    let mut figures = Figures::default();
    for item in corpus.iter().filter(|item| item.route != "refused") {
        let extracted = extract(&item.question);
        let pick = proposer.pick(&item.question, &extracted.kinds, &extracted.spans);
        let got = outcome(&registry, item, &extracted, &pick.names);
        figures.add(item, &got);
    }
    figures
}

#[test]
fn dev_corpus_meets_the_targets() {
    let corpus = load_corpus(&root().join("fixtures/eval/dev.jsonl"));
    assert!(corpus.len() >= 150, "the corpus has {} questions", corpus.len());
    let figures = evaluate("fixtures/eval/dev.jsonl");
    eprintln!("{}", figures.summary());
    for failure in &figures.failures {
        eprintln!("{failure}");
    }
    assert!(figures.intent_set_exact() >= 0.90, "{}", figures.summary());
    assert!(figures.route_accuracy() >= 0.95, "{}", figures.summary());
}

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

/// Questions written after the first tuning; the lexicon was then tuned on their misses, so
/// this is a second development corpus, not a held-out one.
#[test]
fn late_development_questions_stay_close() {
    let figures = evaluate("fixtures/eval/dev-late.jsonl");
    eprintln!("dev-late: {}", figures.summary());
    for failure in &figures.failures {
        eprintln!("{failure}");
    }
    assert!(figures.intent_set_exact() >= 0.75, "{}", figures.summary());
    assert!(figures.route_accuracy() >= 0.75, "{}", figures.summary());
}
