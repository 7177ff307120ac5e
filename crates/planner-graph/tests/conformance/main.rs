//! Conformance tests of planner-graph: the reference topology, runtime behaviour, properties
//! and the PostgreSQL checkpointer.

mod generated;
mod postgres;
mod properties;
mod reference;
mod runtime;
mod spans;
