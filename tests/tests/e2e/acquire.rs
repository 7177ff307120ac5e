//! The acquisition agent across processes: each question stops one `planner acquire` process
//! (`--exit-on-question`), and a new process resumes the thread from its PostgreSQL checkpoint
//! with `--answer`. The report at the end is the one an uninterrupted run prints.

use std::process::{Command, Output};

use serde_json::Value;
use sqlx::PgPool;

use crate::harness;

const PROFILE: &str = "fixtures/acquire/coffee_shop.toml";
const IDEA: &str = "A specialty coffee shop in Berlin";

/// The answer to each question the coffee-shop run asks, by the field (and component) asked
/// about.
fn answer_to(asked: &str) -> &'static str {
    match asked {
        "region" => "Berlin, Germany",
        "currency" => "EUR",
        "opening_days" => "26",
        "staff_cost.baristas" => "3 baristas",
        "startup_costs.rent_deposit" => "EUR 11,400",
        other => panic!("the coffee-shop run asked about `{other}`, which it never did before"),
    }
}

fn planner(args: &[&str], stdin: &str) -> Output {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = harness::run_with_stdin(
        Command::new(harness::planner_bin())
            .arg("acquire")
            .args(["--json", "--profile", PROFILE])
            .args(args)
            .current_dir(root)
            .env_remove("DATABASE_URL"),
        stdin,
    );
    assert!(output.status.success(), "planner acquire {args:?}: {output:?}");
    output
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap()
}

#[sqlx::test]
async fn a_thread_stopped_at_each_question_is_resumed_by_the_next_process(pool: PgPool) {
    let url = harness::url_of(&pool).await;
    let thread = harness::unique("acquire");
    let common = ["--database-url", url.as_str(), "--thread", thread.as_str()];

    let mut asked = Vec::new();
    let mut reply = json(&planner(&[&common[..], &["--exit-on-question", IDEA]].concat(), ""));
    while reply["status"] == "asked" {
        assert_eq!(reply["question"]["thread_id"], thread.as_str(), "{reply}");
        let question = &reply["question"];
        let mut field = question["field"].as_str().unwrap().to_owned();
        if let Some(component) = question["component"].as_str() {
            field = format!("{field}.{component}");
        }
        assert!(asked.len() < 10, "the run keeps asking: {asked:?}");
        let answer = answer_to(&field);
        asked.push(field);
        reply = json(&planner(
            &[&common[..], &["--exit-on-question", "--answer", answer]].concat(),
            "",
        ));
    }
    assert_eq!(asked[..2], ["region", "currency"], "{asked:?}");
    assert_eq!(reply["status"], "completed", "{reply}");

    // The same run in one process, answering on stdin in the order the questions came.
    let answers: String = asked.iter().map(|field| format!("{}\n", answer_to(field))).collect();
    let uninterrupted = json(&planner(&[IDEA], &answers));
    assert_eq!(reply, uninterrupted);

    // A thread that no longer waits cannot be answered again.
    let mut child = Command::new(harness::planner_bin());
    let again = child
        .args(["acquire", "--profile", PROFILE, "--answer", "EUR"])
        .args(common)
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .unwrap();
    assert!(!again.status.success(), "{again:?}");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("is it waiting on a question?"), "{err}");
}
