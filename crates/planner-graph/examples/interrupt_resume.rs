//! Interrupt and resume: a node asks the caller a question by returning
//! [`Command::Interrupt`]; the run ends as [`Status::Interrupted`] with a checkpoint, and
//! [`Graph::resume`](planner_graph::Graph::resume) hands the answer to that node later, here or
//! in any process sharing the checkpointer.
//!
//! `cargo run -p planner-graph --example interrupt_resume`

use std::sync::Arc;

use planner_graph::{
    Command, Durability, GraphBuilder, GraphState, MemoryCheckpointer, NodeError, RunConfig,
    Status, node_ids, reduce,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

node_ids! { enum Step { Greet => "greet", AskName => "ask_name", Welcome => "welcome" } }

/// The conversation so far.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Chat {
    name: Option<String>,
    said: Vec<String>,
}

/// A node's change to the conversation.
#[derive(Debug, Default)]
struct Said {
    name: Option<String>,
    said: Vec<String>,
}

impl GraphState for Chat {
    type Update = Said;
    fn apply(&mut self, update: Said) {
        reduce::replace(&mut self.name, update.name.map(Some));
        reduce::append(&mut self.said, update.said);
    }
}

/// Asks for a name, then takes the caller's answer on resume.
fn ask_name(_: &(), _: &Chat, resume: Option<&Value>) -> Result<Command<Said, ()>, NodeError> {
    let Some(answer) = resume else {
        return Ok(Command::Interrupt(json!({ "question": "what is your name?" })));
    };
    let name = answer.as_str().ok_or_else(|| NodeError::new("a name is text"))?;
    Ok(Command::goto(Said { name: Some(name.to_owned()), ..Said::default() }, ()))
}

/// Runs until the question, answers it, and resumes to the end.
#[expect(clippy::print_stdout, reason = "an example shows its result")]
#[tokio::main(flavor = "current_thread")]
pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = GraphBuilder::<Step, Chat, ()>::new();
    builder.start(Step::Greet);
    builder
        .add_fn(Step::Greet, |_: &(), _: &Chat, _| {
            Ok(Command::goto(Said { said: vec!["hello".into()], ..Said::default() }, ()))
        })
        .goto(Step::AskName);
    builder.add_fn(Step::AskName, ask_name).goto(Step::Welcome);
    builder
        .add_fn(Step::Welcome, |_: &(), chat: &Chat, _| {
            let name = chat.name.as_deref().unwrap_or("stranger");
            Ok(Command::goto(
                Said { said: vec![format!("welcome, {name}")], ..Said::default() },
                (),
            ))
        })
        .goto_end();
    let store = Arc::new(MemoryCheckpointer::new());
    let graph = builder.compile()?.with_checkpointer(store, Durability::Exit);

    let config = RunConfig::thread("chat-1");
    let run = graph.invoke(&(), Chat::default(), &config).await?;
    let Status::Interrupted(interrupt) = run.status else {
        return Err("the graph should have asked for a name".into());
    };
    println!("{} asks {}", interrupt.node, interrupt.payload);
    assert_eq!(interrupt.payload, json!({ "question": "what is your name?" }));

    // Later (in this process or another sharing the store): the caller's answer.
    let run = graph.resume(&(), "chat-1", json!("Ada"), &config).await?;
    assert_eq!(run.status, Status::Finished);
    assert_eq!(run.state.said, ["hello", "welcome, Ada"]);
    println!("{}", run.state.said.join(" / "));
    // With `Durability::Exit`, only the interrupt and the end were saved.
    assert_eq!(graph.history("chat-1").await?.len(), 2);
    Ok(())
}
