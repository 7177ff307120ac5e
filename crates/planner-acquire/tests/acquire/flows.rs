//! Whole runs through the graph with the in-memory checkpointer: questions come first for the
//! region then the currency, each demo profile ends with a successful calculation, each cap ends
//! the run with its reason and status, and no checkpoint ever holds a route.

use std::{collections::BTreeMap, fmt::Write as _, sync::Arc};

use planner_acquire::{
    Acquirer, Corpus, Ctx, Decider, Idea, Profile, Progress, Question, Report, RunStatus,
};
use planner_graph::{Checkpoint, Checkpointer, Durability, MemoryCheckpointer};

use crate::fixtures::{documents, profile};

/// The answers a scripted user gives, by `field` or `field.component`; unknown keys get
/// "no idea".
pub type Answers = BTreeMap<&'static str, &'static str>;

pub fn coffee_answers() -> Answers {
    BTreeMap::from([
        ("region", "Berlin, Germany"),
        ("currency", "EUR"),
        ("opening_days", "26"),
        ("staff_cost.baristas", "3 baristas"),
        ("startup_costs.rent_deposit", "EUR 11,400"),
    ])
}

pub fn walking_answers() -> Answers {
    BTreeMap::from([
        ("region", "Manchester, UK"),
        ("currency", "£"),
        ("walks_per_week", "3"),
        ("target_share", "2%"),
    ])
}

pub fn idea(profile: &Profile) -> Idea {
    let text = match profile.name.as_str() {
        "coffee_shop" => "A specialty coffee shop in Berlin",
        _ => "A dog-walking service",
    };
    Idea { text: text.into(), location: None, currency: None }
}

pub fn ctx(profile: Profile, corpus: Corpus) -> Ctx {
    Ctx { profile: Arc::new(profile), decider: Decider::Offline, corpus }
}

fn key(question: &Question) -> String {
    match &question.component {
        Some(component) => format!("{}.{component}", question.field),
        None => question.field.clone(),
    }
}

/// Drives a thread to its end, answering from `answers`; the report and the questions asked.
pub async fn drive(
    acquirer: &Acquirer,
    thread_id: &str,
    idea: Idea,
    answers: &Answers,
) -> (Report, Vec<Question>) {
    let mut asked = Vec::new();
    let mut progress = acquirer.start(thread_id, idea).await.unwrap();
    loop {
        match progress {
            Progress::Done(report) => return (*report, asked),
            Progress::Asked(question) => {
                let answer = answers.get(key(&question).as_str()).copied().unwrap_or("no idea");
                asked.push(question);
                assert!(asked.len() < 40, "too many questions");
                progress = acquirer.answer(thread_id, answer).await.unwrap();
            }
        }
    }
}

fn memory(profile: Profile) -> (Acquirer, Arc<MemoryCheckpointer>) {
    let store = Arc::new(MemoryCheckpointer::new());
    let acquirer =
        Acquirer::new(ctx(profile, Corpus::Memory(documents())), store.clone(), Durability::Async);
    (acquirer, store)
}

/// The decision trace of a run, one line per decision and attempt, for snapshots.
pub fn trace(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "status: {:?}\nreason: {}\niterations: {}",
        report.status, report.reason, report.iterations
    );
    out.push_str("decisions:\n");
    for d in &report.decisions {
        let target = match (&d.target_field, &d.target_component) {
            (Some(f), Some(c)) => format!(" {f}.{c}"),
            (Some(f), None) => format!(" {f}"),
            _ => String::new(),
        };
        let detail = d.search_query.as_deref().or(d.user_question.as_deref()).unwrap_or("");
        let _ = writeln!(out, "  {}{target} [{detail}] {}", d.action.name(), d.reasoning);
    }
    out.push_str("attempts:\n");
    for a in &report.attempts {
        let component = a.component.as_ref().map(|c| format!(".{c}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {}{component} [{}] -> {}",
            a.action.name(),
            a.field,
            a.query_or_question,
            a.outcome
        );
    }
    out.push_str("fields:\n");
    for f in &report.fields {
        let value = f.value.as_ref().map_or("-".to_owned(), ToString::to_string);
        let _ = writeln!(out, "  {} = {value} ({})", f.name, source_name(f.source.as_ref()));
    }
    out.push_str("result:\n");
    for output in &report.result {
        let _ = writeln!(out, "  {} = {}", output.name, output.value);
    }
    out
}

fn source_name(source: Option<&planner_acquire::Provenance>) -> String {
    match source {
        None => "missing".into(),
        Some(planner_acquire::Provenance::User { answer }) => format!("user: {answer}"),
        Some(planner_acquire::Provenance::Document { id, .. }) => format!("document {id}"),
        Some(planner_acquire::Provenance::Derived { formula }) => format!("derived: {formula}"),
    }
}

/// No checkpoint holds a route: only the state's own fields are stored.
pub fn assert_clean(checkpoint: &Checkpoint) {
    let state: serde_json::Value = serde_json::from_str(&checkpoint.state).unwrap();
    let keys: Vec<&str> = state.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "answer",
            "attempts",
            "calculation_attempts",
            "decision",
            "decisions",
            "dynamic_decompositions",
            "hits",
            "idea",
            "iterations",
            "last_calculation",
            "notes",
            "profile",
            "schema",
            "status"
        ]
    );
    for label in ["_route", "route", "has_task", "no_task", "post_process\"", "llm_failed"] {
        assert!(
            !checkpoint.state.contains(label),
            "`{label}` in a checkpoint: {}",
            checkpoint.state
        );
    }
}

#[tokio::test]
async fn region_then_currency_are_asked_first() {
    let p = profile("coffee_shop");
    let (acquirer, _) = memory(p.clone());
    let (_, asked) = drive(&acquirer, "t", idea(&p), &coffee_answers()).await;
    assert_eq!(asked[0].field, "region");
    assert_eq!(asked[1].field, "currency");
    assert_eq!(asked[1].suggested_answers, ["EUR", "USD", "GBP"]);
}

#[tokio::test]
async fn the_coffee_shop_run_ends_with_a_successful_calculation() {
    let p = profile("coffee_shop");
    let (acquirer, store) = memory(p.clone());
    let (report, asked) = drive(&acquirer, "shop", idea(&p), &coffee_answers()).await;
    assert_eq!(report.status, RunStatus::Completed, "{}", trace(&report));
    assert_eq!(report.reason, "Deterministic calculator completed successfully.");
    let asked: Vec<String> = asked.iter().map(key).collect();
    assert_eq!(
        asked,
        ["region", "currency", "opening_days", "staff_cost.baristas", "startup_costs.rent_deposit"]
    );
    insta::assert_snapshot!("coffee_shop_trace", trace(&report));
    let history = store.history("shop").await.unwrap();
    assert!(history.len() > 50);
    history.iter().for_each(assert_clean);
}

#[tokio::test]
async fn the_dog_walking_run_ends_with_a_successful_calculation() {
    let p = profile("dog_walking");
    let (acquirer, store) = memory(p.clone());
    let (report, _) = drive(&acquirer, "walk", idea(&p), &walking_answers()).await;
    assert_eq!(report.status, RunStatus::Completed, "{}", trace(&report));
    insta::assert_snapshot!("dog_walking_trace", trace(&report));
    store.history("walk").await.unwrap().iter().for_each(assert_clean);
}

#[tokio::test]
async fn the_iteration_cap_finishes_the_run() {
    let mut p = profile("coffee_shop");
    p.caps.max_iters = 4;
    let (acquirer, _) = memory(p.clone());
    let (report, _) = drive(&acquirer, "t", idea(&p), &coffee_answers()).await;
    assert_eq!(
        (report.status, report.reason.as_str()),
        (RunStatus::Incomplete, "Iteration cap 4 reached.")
    );
    assert_eq!(report.iterations, 5);
}

#[tokio::test]
async fn the_ask_cap_aborts_the_run() {
    let p = profile("coffee_shop");
    let (acquirer, _) = memory(p.clone());
    let mut answers = coffee_answers();
    answers.remove("opening_days");
    let (report, asked) = drive(&acquirer, "t", idea(&p), &answers).await;
    assert_eq!(
        (report.status, report.reason.as_str()),
        (RunStatus::Aborted, "Ask-user cap 2 reached for opening_days.")
    );
    assert_eq!(asked.iter().filter(|it| it.field == "opening_days").count(), 2);
}

#[tokio::test]
async fn the_calculation_cap_aborts_the_run() {
    let text =
        std::fs::read_to_string(crate::fixtures::root().join("fixtures/acquire/coffee_shop.toml"))
            .unwrap();
    let text = text.replace(
        "startup_costs / monthly_profit",
        "startup_costs / (monthly_profit - monthly_profit)",
    );
    let p = Profile::parse(&text, "broken.toml").unwrap();
    let (acquirer, _) = memory(p.clone());
    let (report, _) = drive(&acquirer, "t", idea(&p), &coffee_answers()).await;
    assert_eq!(
        (report.status, report.reason.as_str()),
        (RunStatus::Aborted, "Calculation cap 2 reached.")
    );
    assert!(report.result.is_empty());
}

#[tokio::test]
async fn a_second_acquirer_on_the_same_store_resumes_with_the_same_result() {
    let p = profile("dog_walking");
    let (whole, _) = memory(p.clone());
    let (expected, _) = drive(&whole, "t", idea(&p), &walking_answers()).await;

    let store = Arc::new(MemoryCheckpointer::new());
    let first = Acquirer::new(
        ctx(p.clone(), Corpus::Memory(documents())),
        store.clone(),
        Durability::Async,
    );
    let Progress::Asked(question) = first.start("t", idea(&p)).await.unwrap() else {
        panic!("a question")
    };
    assert_eq!(question.field, "region");
    drop(first);
    let second = Acquirer::new(ctx(p, Corpus::Memory(documents())), store, Durability::Async);
    let answers = walking_answers();
    let mut progress = second.answer("t", answers["region"]).await.unwrap();
    let report = loop {
        match progress {
            Progress::Done(report) => break report,
            Progress::Asked(question) => {
                progress = second.answer("t", answers[key(&question).as_str()]).await.unwrap();
            }
        }
    };
    assert_eq!(*report, expected);
}
