//! `planner fit` on a copy of a domain's registry: it proposes an example from a labelled
//! corpus's training part, reports the held-out part, leaves the file alone without `--write`,
//! and with it writes a registry that loads, keeps the file's comments and plans the question
//! it was fitted on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::harness;

fn planner(args: &[&str]) -> Output {
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(harness::planner_bin());
    command.args(args).env("PLANNER_DATA_DIR", data.path()).env("PLANNER_LOG", "warn");
    harness::run_with_stdin(&mut command, "")
}

/// The courier domain's registry and the files it names, copied into `dir`.
fn courier_copy(dir: &Path) -> PathBuf {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/domains/courier");
    for file in ["registry.toml", "depots.csv", "routes.csv", "customers.csv"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    dir.join("registry.toml")
}

fn intents(registry: &str, question: &str) -> (String, Vec<String>) {
    let output = planner(&["plan", "--json", "--registry", registry, "--", question]);
    assert!(output.status.success(), "{output:?}");
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    let nodes = plan["plan"]["nodes"].as_array().unwrap();
    (
        plan["route"].as_str().unwrap().to_owned(),
        nodes.iter().map(|node| node["intent"].as_str().unwrap().to_owned()).collect(),
    )
}

/// A trade's own phrase that no word of the registry says ("league table", "corridors"): the
/// planner cannot read it until the registry carries it.
const MISSED: &str = "Give me the league table of corridors in 2024";

#[test]
fn fit_proposes_an_example_and_writes_it_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let registry = courier_copy(dir.path());
    let registry = registry.to_str().unwrap();
    let before = std::fs::read_to_string(registry).unwrap();
    assert_eq!(intents(registry, MISSED), ("unplannable".to_owned(), vec![]));
    // fit-2 and fit-3 are training items by their ids' hash, fit-1 is held out.
    let corpus = dir.path().join("corpus.jsonl");
    let line = |id: &str, question: &str, intent: &str| {
        format!(
            r#"{{"id": "{id}", "question": "{question}", "scopes": [], "expect": {{"route": "single", "intents": ["{intent}"]}}}}"#
        )
    };
    std::fs::write(
        &corpus,
        [
            line("fit-1", "What were our busiest routes in 2024?", "busiest_routes"),
            line("fit-2", MISSED, "busiest_routes"),
            line("fit-3", "Which customers brought in the most revenue in 2025?", "top_customers"),
        ]
        .join("\n"),
    )
    .unwrap();
    let corpus = corpus.to_str().unwrap();

    let output = planner(&["fit", "--json", "--registry", registry, corpus]);
    assert!(output.status.success(), "{output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["train_before"]["items"], 2, "{report}");
    assert_eq!(report["train_before"]["passed"], 1, "{report}");
    assert_eq!(report["train_after"]["passed"], 2, "{report}");
    assert_eq!(report["held_out_before"]["items"], 1, "{report}");
    assert_eq!(report["additions"][0]["intent"], "busiest_routes", "{report}");
    assert_eq!(report["additions"][0]["fixes"], serde_json::json!(["fit-2"]), "{report}");
    // A dry run: the file is as it was.
    assert_eq!(std::fs::read_to_string(registry).unwrap(), before);

    let output = planner(&["fit", "--write", "--registry", registry, corpus]);
    assert!(output.status.success(), "{output:?}");
    let after = std::fs::read_to_string(registry).unwrap();
    assert_ne!(after, before);
    // Only lines were added: every line of the file is still there, comments included.
    let kept: Vec<&str> = after.lines().collect();
    assert!(before.lines().all(|line| kept.contains(&line)), "{after}");
    let check = planner(&["registry", "check", registry]);
    assert!(check.status.success(), "{check:?}");
    assert_eq!(intents(registry, MISSED), ("single".to_owned(), vec!["busiest_routes".to_owned()]));
    // Read without its examples, the registry plans as it did before the fit.
    let eval = planner(&["eval", "--json", "--without-examples", "--registry", registry, corpus]);
    let scores: Value = serde_json::from_slice(&eval.stdout).unwrap();
    assert_eq!(scores["failures"][0]["id"], "fit-2", "{scores}");
}

#[test]
fn fit_names_a_bad_corpus_line_and_a_missing_registry() {
    let dir = tempfile::tempdir().unwrap();
    let registry = courier_copy(dir.path());
    let corpus = dir.path().join("bad.jsonl");
    std::fs::write(&corpus, "{\"id\": \"x\"}\n").unwrap();
    let output =
        planner(&["fit", "--registry", registry.to_str().unwrap(), corpus.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.jsonl: line 1"), "{stderr}");
    let output =
        planner(&["fit", "--registry", "/nonexistent/registry.toml", corpus.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot read /nonexistent/registry.toml")
    );
}
