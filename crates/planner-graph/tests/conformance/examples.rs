//! The crate's examples run as tests: each example's `main`, and the PostgreSQL one's `run` on
//! a fresh database with the crate's migration.

#[path = "../../examples/fan_out.rs"]
mod fan_out;
#[path = "../../examples/interrupt_resume.rs"]
mod interrupt_resume;
#[path = "../../examples/postgres_checkpointer.rs"]
#[expect(
    dead_code,
    reason = "its `main` connects to DATABASE_URL; the test hands `run` a database"
)]
mod postgres_checkpointer;
#[path = "../../examples/streaming.rs"]
mod streaming;

#[test]
fn fan_out_example() {
    fan_out::main().unwrap();
}

#[test]
fn interrupt_resume_example() {
    interrupt_resume::main().unwrap();
}

#[test]
fn streaming_example() {
    streaming::main().unwrap();
}

#[sqlx::test(migrator = "planner_graph::MIGRATOR")]
async fn postgres_checkpointer_example(pool: sqlx::PgPool) {
    postgres_checkpointer::run(pool).await.unwrap();
}
