//! Conformance tests of planner-graph: the reference topology, runtime behaviour, properties,
//! the PostgreSQL checkpointer, and the crate's examples.

mod examples;
mod generated;
mod postgres;
mod properties;
mod reference;
mod runtime;
mod spans;
