//! Streaming events: [`Graph::stream`](planner_graph::Graph::stream) runs the graph on a spawned
//! task and hands out its [`Event`]s as they happen (node started and finished, route taken,
//! update applied, checkpoint saved, finished); [`EventStream::finish`] then returns the run.
//! The same input always gives the same sequence of events.
//!
//! `cargo run -p planner-graph --example streaming`

use std::sync::Arc;

use planner_graph::{
    Command, Event, EventStream, GraphBuilder, GraphState, RunConfig, Start, Status, node_ids,
    reduce, routes,
};
use serde::{Deserialize, Serialize};

node_ids! { enum Step { Count => "count", Report => "report" } }
routes! { enum More { Again => "again", Enough => "enough" } }

/// A counter counted up to the context's target.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Counter {
    value: u32,
    report: Option<String>,
}

/// A node's change to the counter.
#[derive(Debug, Default)]
struct Tick {
    add: u32,
    report: Option<String>,
}

impl GraphState for Counter {
    type Update = Tick;
    fn apply(&mut self, update: Tick) {
        self.value += update.add;
        reduce::replace(&mut self.report, update.report.map(Some));
    }
}

/// Counts to the target (`Arc<u32>`, the context every node is handed) and prints each event.
#[expect(clippy::print_stdout, reason = "an example shows its result")]
#[tokio::main(flavor = "current_thread")]
pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = GraphBuilder::<Step, Counter, u32>::new();
    builder.start(Step::Count);
    builder
        .add_fn(Step::Count, |target: &u32, counter: &Counter, _| {
            let route = if counter.value + 1 < *target { More::Again } else { More::Enough };
            Ok(Command::goto(Tick { add: 1, ..Tick::default() }, route))
        })
        .route(More::Again, Step::Count)
        .route(More::Enough, Step::Report);
    builder
        .add_fn(Step::Report, |_: &u32, counter: &Counter, _| {
            let report = format!("counted to {}", counter.value);
            Ok(Command::goto(Tick { report: Some(report), ..Tick::default() }, ()))
        })
        .goto_end();
    let graph = builder.compile()?;

    let mut stream: EventStream<Counter> =
        graph.stream(Arc::new(3), Start::Input(Counter::default()), RunConfig::default());
    let mut nodes = Vec::new();
    while let Some(event) = stream.next().await {
        if let Event::NodeFinished { node, step, .. } = &event {
            nodes.push(format!("{step}:{node}"));
        }
        println!("{event:?}");
    }
    let run = stream.finish().await?;
    assert_eq!(run.status, Status::Finished);
    assert_eq!(run.state.report.as_deref(), Some("counted to 3"));
    assert_eq!(nodes, ["0:count", "1:count", "2:count", "3:report"]);
    Ok(())
}
