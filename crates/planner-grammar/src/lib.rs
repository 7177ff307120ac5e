//! The plan grammar: which intents run, with which arguments, bound how.
//!
//! A proposer (a model or the lexical fallback) returns raw intent names. [`validate`] turns
//! them into a [`Plan`]: unknown names are dropped and counted, duplicates merged, composites
//! expanded, every argument bound from the available params (the extractors' output), a
//! default, or a typed dependency [`Edge`] from another node's output column; a param with a
//! role (planner-registry's `Role`) binds the value the question gives its end
//! ([`Inputs::roles`]), and a param without one binds as before (a kind written with two
//! values stays ambiguous for it, even when their roles differ); nodes needing a
//! scope the caller lacks are dropped as forbidden; the node cap and the depth limit are
//! enforced; the result is ordered by registry order, whatever the proposal order. Every
//! dropped proposal carries a typed [`DropReason`]. [`stabilize`] keeps the nodes present in a
//! strict majority of K validated proposals. [`PlanTrace`] is the counts-only audit view, and
//! [`plan_view`] the wire view the CLI prints.
//!
//! **Architecture invariants:** pure (no I/O, no clock, no randomness); the model authors no
//! argument: every value in a plan comes from the available params, a registry default, or an
//! upstream column through a kind-checked edge. The dependency depth (edges on the longest
//! chain) is at most [`MAX_DEPTH`], and edges only ever point from an already bound node, so
//! a plan has no cycle.
//!
//! ```text
//! let available: BTreeMap<ParamKind, Value> = extraction_as_map;
//! let roles: BTreeMap<(ParamKind, Role), Value> = extraction_roles;
//! let inputs =
//!     Inputs { available: &available, roles: &roles, scopes: &["bench".to_owned()], refers: false };
//! let validation = planner_grammar::validate(&registry, &inputs, &proposal);
//! let trace = PlanTrace::new(&registry, &validation, None);
//! ```

mod bind;
mod consensus;
mod plan;
#[cfg(feature = "openapi")]
mod schema;
mod trace;
mod validate;
mod view;

pub use crate::{
    bind::{Inputs, NO_ROLES, accepts, bind, clamp},
    consensus::{Agreement, Consensus, ConsensusOutcome, stabilize},
    plan::{
        ArgSource, BoundArg, DropReason, Dropped, Edge, NodeOrigin, Plan, PlanNode, Validation,
    },
    trace::{ConsensusTrace, DroppedTrace, NodeTrace, PlanTrace},
    validate::{MAX_DEPTH, proposal_names, validate},
    view::{DroppedView, EdgeView, NodeView, PlanView, dropped_view, lacks_scopes, plan_view},
};
