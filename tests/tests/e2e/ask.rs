//! `planner ask --json` as a command, on a seeded database: stdout is one answer object whatever
//! the route (a clarification's question goes to stderr and the answer read from stdin), the
//! evidence matches the plan, and what the planner could not do is named in the answer.

use std::process::{Command, Output};

use serde_json::Value;
use sqlx::PgPool;

use crate::harness::{self, CLARIFY, COMPOUND};

fn ask(url: &str, question: &str, stdin: &str) -> Output {
    let data = tempfile::tempdir().unwrap();
    let tenant = planner_dataset::DEMO_TENANTS[0].id.to_string();
    harness::run_with_stdin(
        Command::new(harness::planner_bin())
            .args(["ask", "--json", "--scope", "bench", "--tenant", &tenant, question])
            .env("DATABASE_URL", url)
            .env("PLANNER_RUNTIME_PASSWORD", harness::runtime_password())
            .env("PLANNER_DATA_DIR", data.path())
            .env("PLANNER_LOG", "warn"),
        stdin,
    )
}

/// The one JSON object on stdout of a successful run.
fn answer(output: &Output) -> Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("stdout is not one JSON object ({err}): {output:?}"))
}

fn intents(value: &Value, key: &str) -> Vec<String> {
    value[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| it["intent"].as_str().unwrap().to_owned())
        .collect()
}

#[sqlx::test]
async fn ask_json_prints_one_answer_object_for_every_route(pool: PgPool) {
    harness::seed(&pool).await;
    let url = harness::url_of(&pool).await;

    let compound = answer(&ask(&url, COMPOUND, ""));
    assert_eq!(compound["route"], "plan", "{compound}");
    let planned = intents(&compound["plan"], "nodes");
    assert!(planned.len() >= 2, "{compound}");
    // Every planned node either gave evidence or is listed as dropped with a reason.
    let mut accounted = intents(&compound, "evidence");
    accounted.extend(intents(&compound, "dropped"));
    for intent in &planned {
        assert!(accounted.contains(intent), "{intent} is neither evidence nor dropped: {compound}");
    }
    assert!(!compound["text"].as_str().unwrap().is_empty());
    assert!(compound.get("unanswered").is_none(), "{compound}");

    let refused = answer(&ask(&url, "How many of our bench candidates are women?", ""));
    assert_eq!(refused["route"], "refused", "{refused}");
    assert!(refused["evidence"].as_array().unwrap().is_empty(), "{refused}");

    // A clarification: the answer from stdin, one object on stdout, and no prompt (stdin is
    // no terminal: a script, which reads the objects).
    let clarified = ask(&url, CLARIFY, "541512\n");
    let prompt = String::from_utf8_lossy(&clarified.stderr).to_string();
    assert!(!prompt.contains("NAICS"), "{prompt}: {clarified:?}");
    let clarified = answer(&clarified);
    assert_eq!(clarified["plan"]["nodes"][0]["args"]["naics"], "541512", "{clarified}");

    // A qualifier the registry cannot apply is named, in the field and in the text.
    let women_owned =
        answer(&ask(&url, "Top women-owned incumbents at the Army under 541512?", ""));
    let unapplied = women_owned["unapplied"][0].as_str().unwrap();
    assert!(unapplied.contains("set-aside"), "{women_owned}");
    assert!(women_owned["text"].as_str().unwrap().contains("set-aside"), "{women_owned}");
}
