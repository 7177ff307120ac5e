//! Fan-out: one route leads to three branches at once. They run concurrently (the slowest
//! first here), and their updates are merged in the order the branches were declared, so the
//! result never depends on which finished first.
//!
//! `cargo run -p planner-graph --example fan_out`

use std::time::Duration;

use planner_graph::{
    Command, GraphBuilder, GraphState, Node, NodeError, RunConfig, Status, node_ids, reduce, routes,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

node_ids! { enum Step { Plan => "plan", Prices => "prices", Stock => "stock", Reviews => "reviews", Merge => "merge" } }
routes! { enum Spread { All => "all", None => "none" } }

/// What the branches found, in merge order.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Report {
    lines: Vec<String>,
}

impl GraphState for Report {
    type Update = Vec<String>;
    fn apply(&mut self, update: Vec<String>) {
        reduce::append(&mut self.lines, update);
    }
}

/// A branch that takes `millis` to look something up.
struct Lookup {
    what: &'static str,
    millis: u64,
}

impl Node<Report, ()> for Lookup {
    type Route = ();
    async fn run(
        &self,
        _: &(),
        _: &Report,
        _: Option<&Value>,
    ) -> Result<Command<Vec<String>, ()>, NodeError> {
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        Ok(Command::goto(vec![format!("{} looked up", self.what)], ()))
    }
}

/// Builds and runs the graph; the lines of the report, in declared order.
#[expect(clippy::print_stdout, reason = "an example shows its result")]
#[tokio::main(flavor = "current_thread")]
pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = GraphBuilder::<Step, Report, ()>::new();
    builder.start(Step::Plan);
    builder
        .add_fn(Step::Plan, |_: &(), _: &Report, _| {
            Ok(Command::goto(vec!["plan".to_owned()], Spread::All))
        })
        .fan_out(Spread::All, [Step::Prices, Step::Stock, Step::Reviews], Step::Merge)
        .route(Spread::None, Step::Merge);
    builder.add_node(Step::Prices, Lookup { what: "prices", millis: 30 }).goto(Step::Merge);
    builder.add_node(Step::Stock, Lookup { what: "stock", millis: 1 }).goto(Step::Merge);
    builder.add_node(Step::Reviews, Lookup { what: "reviews", millis: 10 }).goto(Step::Merge);
    builder
        .add_fn(Step::Merge, |_: &(), report: &Report, _| {
            Ok(Command::goto(vec![format!("merged {} lines", report.lines.len())], ()))
        })
        .goto_end();
    let graph = builder.compile()?;

    let run = graph.invoke(&(), Report::default(), &RunConfig::default()).await?;
    assert_eq!(run.status, Status::Finished);
    // Declared order, not finishing order (stock finished first, prices last).
    assert_eq!(
        run.state.lines,
        ["plan", "prices looked up", "stock looked up", "reviews looked up", "merged 4 lines"]
    );
    for line in &run.state.lines {
        println!("{line}");
    }
    Ok(())
}
