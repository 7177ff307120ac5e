//! `planner plan --json` and `planner eval` as commands, against spec/cli-contract.md: the
//! fields, the canonical values and the exit codes (0, 1 below `--min-intent-exact`, 2 on an
//! error). Neither needs a database.

use std::process::{Command, Output};

use serde_json::Value;

fn planner(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_planner"))
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stdout)))
}

fn plan(question: &str) -> Value {
    let output = planner(&["plan", "--json", question]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    json(&output)
}

#[test]
fn plan_json_has_the_contract_fields_and_canonical_values() {
    let question = "Who are the top incumbents for the Department of the Army under NAICS 541512 \
                    over the last 18 months?";
    let report = plan(question);
    assert_eq!(report["route"], "single");
    let agency = report["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|param| param["param"] == "agency")
        .expect("the agency param");
    assert_eq!(agency["value"], "Department of the Army");
    let span = agency["span"].as_array().unwrap();
    let (start, end) = (span[0].as_u64().unwrap() as usize, span[1].as_u64().unwrap() as usize);
    assert_eq!(&question[start..end], "Department of the Army");
    let nodes = report["plan"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0]["intent"], "top_incumbents");
    assert_eq!(nodes[0]["args"]["naics"], "541512");
    assert_eq!(nodes[0]["args"]["window_months"], 18, "ints are JSON numbers");
    for field in ["ambiguous", "proposals", "dropped"] {
        assert!(report.get(field).is_some(), "{field} is present");
    }
    // Only route clarify carries these; nothing is left unapplied.
    assert!(report.get("unapplied").is_none());
    assert!(report.get("missing").is_none());
    assert!(report.get("question_to_user").is_none());
}

#[test]
fn plan_json_asks_refuses_and_gives_up_by_route() {
    let clarify = plan("Who are the incumbants at the Navy?");
    assert_eq!(clarify["route"], "clarify");
    assert_eq!(clarify["missing"], serde_json::json!(["naics"]));
    assert!(clarify["question_to_user"].as_str().is_some_and(|it| !it.is_empty()));

    let compartments = plan("How many TS/SCI candidates hold SI/TK?");
    let args = &compartments["plan"]["nodes"][0]["args"];
    assert_eq!(args["compartments"], serde_json::json!(["SI", "TK"]), "a sorted array");
    assert_eq!(args["clearance"], "ts_sci");

    let firms = plan("Which veteran-owned firms win Navy 541330 work?");
    assert_eq!(firms["route"], "single");
    let unapplied = firms["unapplied"].as_array().expect("the set-aside qualifier is named");
    assert!(unapplied[0].as_str().unwrap().contains("no set-aside or ownership data"));
    assert_eq!(plan("How many women on our bench hold TS/SCI?")["route"], "refused");
    assert_eq!(plan("Draft a cover letter for our proposal")["route"], "unplannable");
}

/// A corpus file of its own for one test.
fn corpus(name: &str, lines: &[&str]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("planner-contract-{}-{name}", std::process::id()));
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

const ITEMS: &[&str] = &[
    r#"{"id": "a", "question": "Top incumbents for the Army under 541512?", "expect": {"route": "single", "intents": ["top_incumbents"], "args": {"top_incumbents": {"agency": "Department of the Army", "naics": "541512"}}}}"#,
    r#"{"id": "b", "question": "How many of our candidates are over 50?", "expect": {"route": "refused"}}"#,
    r#"{"id": "c", "question": "Who are the incumbents at the Navy?", "expect": {"route": "clarify", "intents": ["top_incumbents"], "missing": ["naics"]}}"#,
    r#"{"id": "d", "question": "What's the weather tomorrow?", "expect": {"route": "unplannable"}}"#,
];

#[test]
fn eval_json_scores_with_the_contract_fields_and_exits_by_outcome() {
    let path = corpus("ok.jsonl", ITEMS);
    let output = planner(&["eval", "--json", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    for field in [
        "total",
        "route_accuracy",
        "intent_set_exact",
        "intent_precision",
        "intent_recall",
        "args_exact",
        "refusal_recall",
        "false_refusals",
        "failures",
        "route_confusion",
        "per_intent",
    ] {
        assert!(report.get(field).is_some(), "{field} is present");
    }
    assert_eq!(report["total"], 4);
    assert_eq!(report["route_accuracy"], 1.0);
    assert_eq!(report["refusal_recall"], 1.0);
    assert_eq!(report["route_confusion"]["refused"]["refused"], 1);
    assert_eq!(report["per_intent"]["top_incumbents"]["recall"], 1.0);

    // Below the threshold: exit 1, still the report.
    let output = planner(&["eval", "--json", "--min-intent-exact", "1.5", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)["total"], 4);

    // The text form names the figures and the confusion table.
    let output = planner(&["eval", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    for line in ["route accuracy", "intent set exact", "refusal recall", "routes (expected"] {
        assert!(text.contains(line), "{line} in {text}");
    }
    std::fs::remove_file(path).unwrap();
}

#[test]
fn eval_errors_exit_2_with_a_reason() {
    let output = planner(&["eval", "--json", "/nonexistent/corpus.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));

    let path = corpus("bad.jsonl", &[ITEMS[0], r#"{"id": "x", "question": 3}"#]);
    let output = planner(&["eval", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 2"));
    std::fs::remove_file(path).unwrap();
}

/// `--as-of`: a relative period the plan binds ("last month" as `["@M-1m", "@M"]`) and the days
/// a corpus writes for it agree on the data's date; without it they are compared as written.
#[test]
fn eval_as_of_compares_relative_periods_as_their_days() {
    let registry =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/domains/retail/registry.toml");
    let path = corpus(
        "as-of.jsonl",
        &[
            r#"{"id": "m", "question": "top 5 products last month", "expect": {"route": "single", "intents": ["top_products"], "args": {"top_products": {"period": ["2025-05-01", "2025-06-01"]}}}}"#,
            r#"{"id": "r", "question": "top 5 products last month", "expect": {"route": "single", "intents": ["top_products"], "args": {"top_products": {"period": ["@M-1m", "@M"]}}}}"#,
        ],
    );
    let path = path.to_str().unwrap();
    let args_exact = |extra: &[&str]| {
        let mut args = vec!["eval", "--json", "--registry", registry];
        args.extend_from_slice(extra);
        args.push(path);
        json(&planner(&args))["args_exact"].as_f64().unwrap()
    };
    assert_eq!(args_exact(&[]), 0.5);
    assert_eq!(args_exact(&["--as-of", "2025-06-30"]), 1.0);
    assert_eq!(args_exact(&["--as-of", "2025-07-15"]), 0.5);
    let output = planner(&["eval", "--as-of", "2025-06-31", path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("YYYY-MM-DD"));
    std::fs::remove_file(path).unwrap();
}
