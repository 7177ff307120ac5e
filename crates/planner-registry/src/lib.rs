//! The closed registry of SQL intents.
//!
//! A registry is data: a declarative file loaded, validated and frozen at start. This crate also
//! owns the closed set of parameter kinds ([`ParamKind`]) and their canonical values ([`Value`]),
//! the vocabulary shared by the extractors, the plan grammar and the executors.

mod value;

pub use value::{ParamKind, Value};
