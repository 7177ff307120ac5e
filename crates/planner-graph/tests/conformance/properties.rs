//! Laws of the runtime over generated graphs, with the in-memory checkpointer.

use std::sync::Arc;

use planner_graph::{
    Checkpoint, Durability, Error, Event, Graph, MemoryCheckpointer, Run, RunConfig, Start, Status,
};
use proptest::prelude::*;
use serde_json::Value;

use crate::generated::{self, Defect, G, GenCtx, GenState, Spec};

/// Small enough that runaway cycles stop quickly, large enough for most runs to finish.
pub const STEP_LIMIT: u64 = 60;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The final state of an uninterrupted run, or `None` when it hit the step limit.
pub async fn baseline(graph: &Graph<G, GenState, GenCtx>) -> Option<GenState> {
    let config = RunConfig::default().step_limit(STEP_LIMIT);
    match graph.invoke(&GenCtx::default(), GenState::default(), &config).await {
        Ok(Run { state, status: Status::Finished, .. }) => Some(state),
        Err(Error::StepLimit { .. }) => None,
        other => panic!("unexpected outcome {other:?}"),
    }
}

/// Interrupts at step `at`, then resumes (from another graph value sharing the store, as another
/// process would); `None` when the step limit was hit. Checks the interrupt happened exactly when
/// the uninterrupted run (`expected`) went past step `at`.
pub async fn interrupted_then_resumed(
    graph: &Graph<G, GenState, GenCtx>,
    at: u64,
    thread_id: &str,
    expected: Option<&GenState>,
) -> Option<GenState> {
    let config = RunConfig::thread(thread_id).step_limit(STEP_LIMIT);
    let ctx = GenCtx { interrupt_at: Some(at) };
    let run = match graph.invoke(&ctx, GenState::default(), &config).await {
        Ok(run) => run,
        Err(Error::StepLimit { .. }) => return None,
        Err(err) => panic!("unexpected error {err}"),
    };
    if let Some(expected) = expected {
        let interrupted = matches!(run.status, Status::Interrupted(_));
        assert_eq!(interrupted, at < expected.counter, "interrupt at {at}");
    }
    match run.status {
        Status::Finished => Some(run.state),
        Status::Interrupted(interrupt) => {
            assert_eq!(interrupt.payload, Value::from(at));
            let other = graph.clone();
            match other.resume(&ctx, thread_id, Value::Null, &config).await {
                Ok(Run { state, status: Status::Finished, .. }) => Some(state),
                Err(Error::StepLimit { .. }) => None,
                other => panic!("unexpected outcome {other:?}"),
            }
        }
    }
}

/// A checkpoint holds exactly its documented fields, a state that parses, and no route label.
pub fn assert_clean(checkpoint: &Checkpoint) {
    let json = serde_json::to_value(checkpoint).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["id", "interrupt", "next", "parent", "state", "state_version", "step", "thread_id"]
    );
    assert!(!json.to_string().contains("via_"), "a route label leaked: {json}");
    let state: GenState = serde_json::from_str(&checkpoint.state).unwrap();
    assert_eq!(state.counter, checkpoint.step);
}

proptest! {
    #[test]
    fn validation_accepts_well_formed_and_reports_planted(spec in generated::spec(), planted in generated::defects()) {
        match generated::build(&spec, &planted) {
            Ok(_) => prop_assert!(planted.is_empty(), "accepted a graph with {planted:?}"),
            Err(Error::Invalid { problems }) => {
                prop_assert!(!planted.is_empty(), "rejected a well-formed graph: {problems:?}");
                for defect in &planted {
                    prop_assert!(problems.contains(&defect.problem()), "{defect:?} not in {problems:?}");
                }
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn runs_end_and_repeat_their_events(spec in generated::spec()) {
        let graph = generated::build(&spec, &[]).unwrap();
        let config = RunConfig::default().step_limit(STEP_LIMIT);
        let events = |graph: &Graph<G, GenState, GenCtx>| {
            let mut events = Vec::new();
            let mut push = |event: Event| events.push(event);
            let outcome = runtime().block_on(graph.run(
                &GenCtx::default(),
                Start::Input(GenState::default()),
                &config,
                Some(&mut push),
            ));
            let ended = match outcome {
                Ok(run) => run.status == Status::Finished,
                Err(Error::StepLimit { last_steps, .. }) => !last_steps.is_empty(),
                Err(_) => false,
            };
            (ended, events)
        };
        let (ended, first) = events(&graph);
        prop_assert!(ended);
        let (_, second) = events(&graph);
        prop_assert_eq!(first, second);
    }

    #[test]
    fn interrupt_and_resume_match_an_uninterrupted_run(spec in generated::spec(), at in 0u64..24) {
        let graph = generated::build(&spec, &[]).unwrap();
        let store = Arc::new(MemoryCheckpointer::new());
        let saved = graph.with_checkpointer(store.clone(), Durability::Async);
        let (expected, actual, history) = runtime().block_on(async {
            let expected = baseline(&graph).await;
            let actual = interrupted_then_resumed(&saved, at, "thread", expected.as_ref()).await;
            (expected, actual, saved.history("thread").await.unwrap())
        });
        prop_assert_eq!(expected, actual);
        for checkpoint in &history {
            assert_clean(checkpoint);
        }
    }
}

#[test]
fn every_planted_defect_is_reported_at_once() {
    let spec = Spec { routes: vec![vec![Some(1)], vec![None, Some(0)]] };
    let all = [
        Defect::Unreachable,
        Defect::NoOutgoingEdges,
        Defect::CannotReachEnd,
        Defect::DuplicateName,
        Defect::DuplicateNode,
        Defect::UnknownNode,
        Defect::MissingTarget,
    ];
    let Err(err) = generated::build(&spec, &all) else { panic!("defects were accepted") };
    insta::assert_snapshot!(err.to_string().replace("; ", ";\n"));
}
