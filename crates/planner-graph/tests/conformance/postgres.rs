//! The PostgreSQL checkpointer: each test gets a fresh database with the crate's migration.

use std::sync::Arc;

use planner_graph::{Durability, PgCheckpointer, RunConfig, Status};
use proptest::{
    strategy::{Strategy, ValueTree},
    test_runner::{Config, TestRunner},
};
use serde_json::json;
use sqlx::PgPool;

use crate::{
    generated,
    properties::{assert_clean, baseline, interrupted_then_resumed},
    reference,
};

#[sqlx::test(migrator = "planner_graph::MIGRATOR")]
async fn interrupt_and_resume_match_an_uninterrupted_run(pool: PgPool) {
    let store = Arc::new(PgCheckpointer::new(pool));
    let mut runner = TestRunner::new(Config::default());
    let strategy = (generated::spec(), 0u64..24);
    for case in 0..runner.config().cases {
        let (spec, at) = strategy.new_tree(&mut runner).unwrap().current();
        let graph = generated::build(&spec, &[]).unwrap();
        let thread_id = format!("case-{case}");
        let durability = if case % 2 == 0 { Durability::Async } else { Durability::Sync };
        let saved = graph.with_checkpointer(store.clone(), durability);
        let expected = baseline(&graph).await;
        let actual = interrupted_then_resumed(&saved, at, &thread_id, expected.as_ref()).await;
        assert_eq!(expected, actual, "{spec:?} interrupted at {at}");
        for checkpoint in saved.history(&thread_id).await.unwrap() {
            assert_clean(&checkpoint);
        }
    }
}

#[sqlx::test(migrator = "planner_graph::MIGRATOR")]
async fn another_process_resumes_the_thread(pool: PgPool) {
    let first = reference::graph()
        .with_checkpointer(Arc::new(PgCheckpointer::new(pool.clone())), Durability::Async);
    let script = ["continue", "ask_region", "ready", "blocked", "has_task", "ok", "finish"];
    let input = reference::RefState {
        script: script.iter().map(|it| (*it).to_owned()).collect(),
        ..reference::RefState::default()
    };
    let config = RunConfig::thread("shared");
    let run = first.invoke(&(), input, &config).await.unwrap();
    let Status::Interrupted(interrupt) = run.status else { panic!("expected a question") };
    assert_eq!(interrupt.payload, json!({ "question": "which one?" }));
    drop(first);

    // A second checkpointer on the same database stands for another process.
    let second = reference::graph()
        .with_checkpointer(Arc::new(PgCheckpointer::new(pool)), Durability::Async);
    let run = second.resume(&(), "shared", json!("emea"), &config).await.unwrap();
    assert_eq!(run.status, Status::Finished);
    assert_eq!(run.state.answers, ["\"emea\""]);
    let history = second.history("shared").await.unwrap();
    let interrupted: Vec<_> =
        history.iter().filter(|it| it.interrupt.is_some()).map(|it| it.id).collect();
    assert_eq!(interrupted, [3]);
    assert_eq!(history.last().and_then(|it| it.next.clone()), None);
    for (i, checkpoint) in history.iter().enumerate() {
        assert_eq!(checkpoint.id, i as u64);
        assert_eq!(checkpoint.parent, i.checked_sub(1).map(|it| it as u64));
    }
}
