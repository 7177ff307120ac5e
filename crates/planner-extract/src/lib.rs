//! Deterministic extractors: question text to canonical params.
//!
//! [`extract`] reads a question once and returns every param it names (agency, NAICS code,
//! requirement UUID, clearance level, SCI compartments, UEI, month window) with its canonical
//! value and byte span, the kinds written with two different values (ambiguous, so not
//! available), and diagnostics such as a NAICS code missing from the 2022 list.
//! [`Extraction::available`] is what plan binding reads. [`Extractor`] extracts for one
//! registry: the kinds its file declares (`[kinds]`, one generic matcher per type: dictionary,
//! code, list, uuid, duration, date, date range, integer, quoted text), a built-in kind it
//! declares among them, beside the built-in matchers of the built-in kinds it leaves
//! undeclared. The reference registry declares all seven, so its answers run the declared
//! matchers; [`extract`] stays the built-in matchers, which read the same values (the tests of
//! planner-engine hold the two to it).
//!
//! Each [`Mention`] carries the end of a directed pair the question makes it (`role`: "from
//! Seattle" is a source, "to Denver" a goal, "between Reno and Boise" both), read by one small
//! pass over the words before and between the values of one kind (module `roles`, whose docs
//! state the rules); [`Extraction::roles`] gives the values told apart by role, which params
//! with a role bind. [`extract`] reads roles for every kind whose values can be ends
//! (`planner_registry::Role::suits`); an [`Extractor`] keeps them only for the kinds its
//! registry gives roles, so a registry without roles extracts as before.
//!
//! A date range kind of a registry with the data's date (`as_of`) also reads relative periods
//! ("last year", "year to date", "the past 6 months") as relative bounds (`["@Y-12m", "@Y"]`),
//! which the engine resolves against that date when the plan runs: extraction itself stays
//! free of any clock. Values and aliases follow the case rules of planner-registry's docs (an
//! ordinary English word written in capitals, "SEA", matches only in capitals).
//!
//! **Architecture invariant:** pure and total. No I/O, no clock, no randomness, no panic on any
//! input; every span lies on char boundaries and no byte belongs to two params. Depends only on
//! `planner-registry` (for [`planner_registry::ParamKind`] and [`planner_registry::Value`]).
//!
//! ```
//! use planner_registry::{ParamKind, Value};
//!
//! let found = planner_extract::extract("Army incumbents under NAICS 541512, last 18 months?");
//! let params = found.available();
//! assert_eq!(params[&ParamKind::Agency], Value::Text("Department of the Army".into()));
//! assert_eq!(params[&ParamKind::Naics], Value::Text("541512".into()));
//! assert_eq!(params[&ParamKind::Months], Value::Int(18));
//! ```

mod agency;
mod clearance;
mod compartments;
mod declared;
mod extraction;
mod months;
mod naics;
mod roles;
mod scan;
mod token;
mod uei;
mod uuid;
mod vocab;

#[cfg(any(test, feature = "proptest"))]
pub mod arbitrary;

pub use crate::{
    agency::{agency_names, canonical_agency},
    declared::superlative,
    extraction::{Diagnostic, Extraction, Extractor, Mention, Problem, Span, extract},
    naics::{has_naics_sector, naics_2022_title},
    uei::is_uei,
};
