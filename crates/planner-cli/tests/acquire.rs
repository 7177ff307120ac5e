//! `planner acquire` with its questions answered on stdin, and `planner graph --acquire`.

use std::{
    io::Write,
    path::Path,
    process::{Command, Output, Stdio},
};

fn acquire(args: &[&str], answers: &str) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new(env!("CARGO_BIN_EXE_planner"))
        .arg("acquire")
        .args(args)
        .current_dir(root)
        .env_remove("DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn acquire_asks_on_the_terminal_and_prints_one_json_object() {
    let output = acquire(
        &["--json", "--profile", "fixtures/acquire/dog_walking.toml", "A dog-walking service"],
        "Manchester, UK\nGBP\n3\n2%\n",
    );
    assert!(output.status.success(), "{output:?}");
    let questions = String::from_utf8(output.stderr).unwrap();
    assert!(questions.starts_with("Where is this business based?"), "{questions}");
    assert!(questions.contains("[GBP, EUR, USD]"), "{questions}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let keys: Vec<&str> = report.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["decisions", "fields", "idea", "profile", "reason", "result", "status"]);
    assert_eq!(report["status"], "completed");
    assert_eq!(report["result"][1]["name"], "obtainable_revenue");
    assert_eq!(
        report["result"][1]["value"],
        serde_json::json!({"type": "money", "amount": 317536.13, "currency": "GBP"})
    );
    assert_eq!(report["fields"][0]["source"]["id"], "man-households-2021");
}

#[test]
fn acquire_reports_every_problem_of_a_bad_profile() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, "name = \"Bad\"\ntitle = \"t\"\n[caps]\nmax_iters = 0\nmax_attempts_per_field = 1\nmax_calculation_attempts = 1\n").unwrap();
    let output = acquire(&["--profile", path.to_str().unwrap(), "idea"], "");
    assert!(!output.status.success());
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("bad.toml:1:8: profile name `Bad` is not a name"), "{err}");
    assert!(err.contains("bad.toml:3:1: every cap must be at least 1"), "{err}");
}

#[test]
fn graph_draws_the_acquisition_agent() {
    let output = Command::new(env!("CARGO_BIN_EXE_planner"))
        .args(["graph", "--acquire", "--mermaid"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("route_decision -->|calculate| calculate"), "{text}");
    assert!(text.contains("search -->|plan| check_termination"), "{text}");
    // START, END and the 17 nodes.
    let nodes = text
        .lines()
        .filter(|l| l.trim_start().split('[').count() == 2 && !l.contains("-->"))
        .count();
    assert_eq!(nodes, 19, "{text}");
}
