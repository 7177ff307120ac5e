//! The PostgreSQL checkpointer: a thread interrupted by one graph (one process) is resumed by
//! another graph over the same database, as two servers behind a load balancer would.
//! `MIGRATOR` creates the checkpoint table (in its own migration table, beside the
//! application's).
//!
//! `DATABASE_URL=postgres://... cargo run -p planner-graph --features postgres --example postgres_checkpointer`

use std::sync::Arc;

use planner_graph::{
    Command, Durability, Graph, GraphBuilder, GraphState, MIGRATOR, NodeError, PgCheckpointer,
    RunConfig, Status, node_ids, reduce,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::PgPool;

node_ids! { enum Step { Ask => "ask", Book => "book" } }

/// A booking waiting for its date.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Booking {
    date: Option<String>,
    booked: Vec<String>,
}

impl GraphState for Booking {
    type Update = (Option<String>, Vec<String>);
    fn apply(&mut self, (date, booked): Self::Update) {
        reduce::replace(&mut self.date, date.map(Some));
        reduce::append(&mut self.booked, booked);
    }
}

type Out = Result<Command<(Option<String>, Vec<String>), ()>, NodeError>;

/// The graph each "process" builds; only the checkpointer is shared.
fn graph(pool: PgPool) -> Result<Graph<Step, Booking, ()>, planner_graph::Error> {
    let mut builder = GraphBuilder::<Step, Booking, ()>::new();
    builder.start(Step::Ask);
    builder
        .add_fn(Step::Ask, |_: &(), _: &Booking, resume: Option<&Value>| -> Out {
            match resume.and_then(Value::as_str) {
                Some(date) => Ok(Command::goto((Some(date.to_owned()), Vec::new()), ())),
                None => Ok(Command::Interrupt(json!("which date?"))),
            }
        })
        .goto(Step::Book);
    builder
        .add_fn(Step::Book, |_: &(), booking: &Booking, _| -> Out {
            let date = booking.date.clone().unwrap_or_default();
            Ok(Command::goto((None, vec![format!("booked {date}")]), ()))
        })
        .goto_end();
    // Durability::Sync: each step is durable before the next runs.
    Ok(builder.compile()?.with_checkpointer(Arc::new(PgCheckpointer::new(pool)), Durability::Sync))
}

/// Interrupts in one graph and resumes in another, on a migrated database.
///
/// # Errors
/// A database or graph failure.
#[expect(clippy::print_stdout, reason = "an example shows its result")]
pub async fn run(pool: PgPool) -> Result<(), Box<dyn std::error::Error>> {
    let config = RunConfig::thread("booking-7");
    let first = graph(pool.clone())?;
    let run = first.invoke(&(), Booking::default(), &config).await?;
    let Status::Interrupted(interrupt) = run.status else {
        return Err("the graph should have asked for a date".into());
    };
    println!("asked: {}", interrupt.payload);
    drop(first);

    let second = graph(pool)?;
    let run = second.resume(&(), "booking-7", json!("2027-01-15"), &config).await?;
    assert_eq!(run.status, Status::Finished);
    assert_eq!(run.state.booked, ["booked 2027-01-15"]);
    let history = second.history("booking-7").await?;
    println!("{} and {} checkpoints", run.state.booked.join(", "), history.len());
    assert!(history.iter().any(|it| it.interrupt.is_some()));
    Ok(())
}

/// Connects to DATABASE_URL, runs the crate's migration and the example.
#[tokio::main(flavor = "current_thread")]
pub async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("DATABASE_URL").map_err(|_| "set DATABASE_URL to a PostgreSQL")?;
    let pool = PgPool::connect(&url).await?;
    MIGRATOR.run(&pool).await?;
    run(pool).await
}
