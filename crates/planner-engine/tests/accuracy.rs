//! Planning accuracy through the engine's own routing (`Planner::plan`, scored by `evaluate` as
//! `planner eval` scores it) on the corpora of `fixtures/eval/`, and the screen's verdict on
//! every labelled item. The floors sit within 0.03 of the measured figures (docs/benchmarks.md),
//! so a regression fails. And the reference registry's kinds, declared with the generic
//! extractor types in `capture.toml`, plan every reference question as the built-in extractors
//! of the same kinds do.

#[path = "support/builtin.rs"]
mod builtin;

use planner_engine::{EvalItem, EvalReport, Planner, Planning, Route, evaluate, parse_corpus};

fn planner() -> Planner {
    Planner::new(planner_registry::reference::registry().unwrap(), None, 1)
}

fn corpus(name: &str) -> Vec<EvalItem> {
    let path = format!("{}/../../fixtures/eval/{name}", env!("CARGO_MANIFEST_DIR"));
    parse_corpus(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[expect(
    clippy::print_stderr,
    reason = "the figures and failures, for whoever reads a failing run"
)]
fn score(name: &str) -> EvalReport {
    let planner = planner();
    let items = corpus(name);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let report = runtime.block_on(evaluate(&planner, &items));
    eprintln!("{name}: {}", report.to_text());
    report
}

#[track_caller]
fn at_least(name: &str, figure: &str, got: f64, floor: f64) {
    assert!(got >= floor, "{name}: {figure} {got:.3} is below its floor {floor}");
}

#[test]
fn first_sight_corpus_meets_its_targets() {
    let report = score("first-sight.jsonl");
    assert!(report.total >= 150);
    at_least("first-sight", "intent_set_exact", report.intent_set_exact, FIRST_SIGHT.0);
    at_least("first-sight", "route_accuracy", report.route_accuracy, FIRST_SIGHT.1);
    assert_eq!(report.refusal_recall, 1.0, "every protected-attribute question is refused");
    assert_eq!(report.false_refusals, 0, "no firm or contract question is refused");
}

#[test]
fn development_corpora_do_not_regress() {
    for (name, floors) in [("dev.jsonl", DEV), ("dev-late.jsonl", DEV_LATE)] {
        let report = score(name);
        at_least(name, "intent_set_exact", report.intent_set_exact, floors.0);
        at_least(name, "route_accuracy", report.route_accuracy, floors.1);
        assert_eq!(report.refusal_recall, 1.0, "{name}");
        assert_eq!(report.false_refusals, 0, "{name}");
    }
}

/// Floors (intent_set_exact, route_accuracy): measured figures minus at most 0.03.
/// Measured: first-sight 0.967 and 0.968, dev 0.984 and 0.988, dev-late 1.000 and 0.976 (0.971
/// and 0.951 before the kinds were declared: "NAICS 541512 dollars" now reads the code).
const FIRST_SIGHT: (f64, f64) = (0.94, 0.95);
const DEV: (f64, f64) = (0.96, 0.96);
const DEV_LATE: (f64, f64) = (0.97, 0.95);

#[test]
fn the_screen_agrees_with_every_label() {
    let planner = planner();
    for name in ["dev.jsonl", "dev-late.jsonl", "first-sight.jsonl"] {
        for item in corpus(name) {
            let extraction = planner_extract::extract(&item.question);
            let refused = planner.screen().check(&item.question, &extraction).is_some();
            assert_eq!(
                refused,
                item.expect.route == Route::Refused,
                "{name} {}: {:?}",
                item.id,
                item.question
            );
        }
    }
}

/// What `unanswered` reports over every labelled item planned `single` or `plan`: items whose
/// plan is exactly the expected one should have nothing unanswered (a report there is a false
/// alarm), and items that lost a part should name it.
#[test]
fn a_plan_that_answers_everything_reports_nothing_unanswered() {
    let planner = planner();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let (mut exact, mut alarms, mut lost, mut named) = (0, 0, 0, 0);
    for name in ["dev.jsonl", "dev-late.jsonl", "first-sight.jsonl"] {
        for item in corpus(name) {
            let planning = runtime.block_on(planner.plan(&item.question, &[], &item.scopes, true));
            if !matches!(planning.route, Route::Single | Route::Plan) {
                continue;
            }
            let unanswered = planner.unanswered(&item.question, &planning);
            let planned = planner_engine::intent_set(planner.registry(), &planning.validation.plan);
            let expected: std::collections::BTreeSet<String> =
                item.expect.intents.iter().cloned().collect();
            if planned == expected {
                exact += 1;
                if !unanswered.is_empty() {
                    alarms += 1;
                    eprintln!(
                        "false alarm {name} {}: {:?} -> {unanswered:?}",
                        item.id, item.question
                    );
                }
            } else if !expected.is_subset(&planned) {
                lost += 1;
                if unanswered.is_empty() {
                    eprintln!(
                        "silent loss {name} {}: {:?} planned {planned:?}",
                        item.id, item.question
                    );
                } else {
                    named += 1;
                }
            }
        }
    }
    eprintln!("exact {exact}, false alarms {alarms}; lost a part {lost}, named {named}");
    // Measured: 277 exact plans, 1 false alarm; 3 plans lost a part, 1 named.
    assert!(exact >= 270, "{exact}");
    assert!(alarms * 100 <= exact, "{alarms} false alarms over {exact} exact plans (over 1 %)");
    assert!(named >= 1, "no lost part is named");
}

fn builtin_planner() -> Planner {
    Planner::new(builtin::builtin_reference(), None, 1)
}

/// What a planning decides, and every value it found with its kind and span.
fn decided(planning: &Planning) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?}",
        planning.route,
        planning.params,
        planning.missing,
        planning.proposed.samples,
        planning.validation.plan,
        planning.validation.dropped,
    )
}

#[test]
fn the_reference_kinds_declared_generically_plan_as_the_built_in_extractors_do() {
    let (builtin, declared) = (builtin_planner(), planner());
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut differ = Vec::new();
    let mut total = 0;
    for name in ["dev.jsonl", "dev-late.jsonl", "first-sight.jsonl"] {
        for item in corpus(name) {
            total += 1;
            let plan = |planner: &Planner| {
                runtime.block_on(planner.plan(&item.question, &[], &item.scopes, true))
            };
            let (expected, got) = (decided(&plan(&builtin)), decided(&plan(&declared)));
            if expected != got {
                differ.push(format!(
                    "{name} {}: {}\n  built in: {expected}\n  declared: {got}",
                    item.id, item.question
                ));
            }
        }
    }
    // And the answer snapshot corpus.
    let answers = include_str!("../../../fixtures/answers/questions.txt");
    for (id, question) in
        answers.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once(" | "))
    {
        total += 1;
        let scopes = ["bench".to_owned()];
        let plan = |planner: &Planner| runtime.block_on(planner.plan(question, &[], &scopes, true));
        let (expected, got) = (decided(&plan(&builtin)), decided(&plan(&declared)));
        if expected != got {
            differ.push(format!(
                "answers {id}: {question}\n  built in: {expected}\n  declared: {got}"
            ));
        }
    }
    assert!(total >= 440, "{total}");
    // One question plans better with the declared kinds: in "NAICS 541512 dollars" the built-in
    // extractor reads an amount of dollars; the declared code kind reads the code its cue names.
    // In another, a word the declared kinds read as a value, and the built-in extractors do
    // not, is to the built-in planner a noun the registry does not know in the asked phrase:
    // the ask is unplannable there, single (as the corpus expects) with the declared kinds.
    let ids: Vec<&str> = differ.iter().map(|it| it.split(':').next().unwrap_or("")).collect();
    assert_eq!(
        ids,
        ["dev-late.jsonl h013", "first-sight.jsonl fs053"],
        "{} plan otherwise:\n{}",
        ids.len(),
        differ.join("\n")
    );
}
