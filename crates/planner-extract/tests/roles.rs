//! Roles: which end of a directed pair each value is, read from the question's words, on the
//! lanes registry (hubs told apart as origin and destination; carriers and time grains beside).

use std::sync::LazyLock;

use planner_extract::{Extraction, Extractor, extract};
use planner_registry::{ParamKind, Registry, Role, Value};
use proptest::prelude::*;

static LANES: LazyLock<(Registry, Extractor)> = LazyLock::new(|| {
    let text = include_str!("../../../fixtures/registry/lanes.toml");
    let registry = Registry::from_toml(text, "lanes.toml").unwrap();
    let extractor = Extractor::new(&registry);
    (registry, extractor)
});

fn found(question: &str) -> Extraction {
    LANES.1.extract(question)
}

/// Each mention as `value:role` (`-` for none), in order of position.
#[track_caller]
fn roles(question: &str) -> String {
    found(question)
        .params
        .iter()
        .map(|m| format!("{}:{}", m.value, m.role.map_or("-", Role::as_str)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn from_x_to_y() {
    assert_eq!(
        roles("Lane volume from Seattle to Denver by week"),
        "Seattle:from Denver:to week:-"
    );
    assert_eq!(roles("to Denver from Seattle"), "Denver:to Seattle:from");
    assert_eq!(roles("from the Seattle hub to the Denver hub"), "Seattle:from Denver:to");
    assert_eq!(roles("FROM SEA TO DEN"), "Seattle:from Denver:to");
}

#[test]
fn x_to_y_makes_the_unmarked_value_the_source() {
    assert_eq!(roles("Seattle to Denver shipments by month"), "Seattle:from Denver:to month:-");
    assert_eq!(roles("Seattle into Denver"), "Seattle:from Denver:to");
    assert_eq!(roles("Reno bound for Fresno"), "Reno:from Fresno:to");
    // With a third value, only the pair the cue joins is told.
    assert_eq!(roles("Boise, and Seattle to Denver"), "Boise:- Seattle:from Denver:to");
}

#[test]
fn between_x_and_y() {
    assert_eq!(roles("Shipments between Reno and Boise"), "Reno:from Boise:to");
    assert_eq!(roles("between the Reno hub & Boise"), "Reno:from Boise:to");
    assert_eq!(roles("between the Reno hub and the Boise hub"), "Reno:from Boise:to");
    // "between" with no second value of the kind tells nothing.
    assert_eq!(roles("between Reno and Northline"), "Reno:- Northline:-");
}

#[test]
fn arrows_and_hyphens_join_a_pair() {
    for question in ["SEA-DEN volume", "Seattle → Denver", "Seattle -> Denver", "Seattle > Denver"]
    {
        assert_eq!(roles(question), "Seattle:from Denver:to", "{question}");
    }
    // A dash with words around it is punctuation, not a lane.
    assert_eq!(roles("Seattle - the busiest - and Denver"), "Seattle:- Denver:-");
}

#[test]
fn one_end_alone() {
    assert_eq!(roles("What goes into Denver"), "Denver:to");
    assert_eq!(roles("Freight out of Reno"), "Reno:from");
    assert_eq!(roles("leaving Boise"), "Boise:from");
    assert_eq!(roles("departing Boise"), "Boise:from");
    assert_eq!(roles("origin: Seattle"), "Seattle:from");
    assert_eq!(roles("originating in Seattle"), "Seattle:from");
    assert_eq!(roles("destination Denver"), "Denver:to");
    assert_eq!(roles("arriving at Reno"), "Reno:to");
    assert_eq!(roles("arriving in Reno"), "Reno:to");
    assert_eq!(roles("towards Fresno"), "Fresno:to");
    assert_eq!(roles("heading toward Fresno"), "Fresno:to");
}

#[test]
fn one_marked_end_makes_the_one_other_value_the_other_end() {
    assert_eq!(roles("to Denver, Seattle volume"), "Denver:to Seattle:from");
    assert_eq!(
        roles("Seattle volume by week, destination Denver"),
        "Seattle:from week:- Denver:to"
    );
    // Two unmarked values: which is the other end is not said.
    assert_eq!(roles("to Denver, Seattle and Reno"), "Denver:to Seattle:- Reno:-");
}

#[test]
fn nothing_marks_a_value_without_a_cue() {
    assert_eq!(roles("Seattle and Denver by month"), "Seattle:- Denver:- month:-");
    assert!(found("Seattle and Denver by month").roles().is_empty());
    assert_eq!(roles("Seattle, Denver"), "Seattle:- Denver:-");
}

#[test]
fn to_as_an_infinitive_or_a_comparison_marks_no_goal() {
    // The cue must touch its value: a verb between leaves it unmarked, the safer reading.
    assert_eq!(roles("Seattle volume, I want to see Denver"), "Seattle:- Denver:-");
    assert_eq!(roles("How does Seattle compare to Denver"), "Seattle:- Denver:-");
    assert_eq!(roles("compare Seattle to Denver"), "Seattle:- Denver:-");
    assert_eq!(roles("Seattle compared to Denver"), "Seattle:- Denver:-");
    assert_eq!(roles("Seattle relative to Denver"), "Seattle:- Denver:-");
}

#[test]
fn values_of_other_kinds_take_no_role_and_break_no_pair() {
    // The registry gives carriers no role: "from Northline" leaves it plain.
    assert_eq!(
        roles("Northline shipments from Seattle to Denver"),
        "Northline:- Seattle:from Denver:to"
    );
    assert_eq!(roles("from Northline to Denver"), "Northline:- Denver:to");
    assert_eq!(roles("from Seattle with Redrock to Denver"), "Seattle:from Redrock:- Denver:to");
}

#[test]
fn a_repeated_value_keeps_its_role() {
    assert_eq!(
        roles("from Seattle to Denver, and is Seattle busy"),
        "Seattle:from Denver:to Seattle:from"
    );
    let found = found("from Seattle to Denver, and is Seattle busy");
    let hub = LANES.0.kind_named("hub").unwrap();
    assert_eq!(found.roles().get(&(hub, Role::From)), Some(&Value::Text("Seattle".into())));
    assert_eq!(found.roles().get(&(hub, Role::To)), Some(&Value::Text("Denver".into())));
}

#[test]
fn two_values_of_one_end_tell_that_end_nothing() {
    let found = found("from Seattle and from Reno to Denver");
    let hub = LANES.0.kind_named("hub").unwrap();
    let told: Vec<(ParamKind, Role)> = found.roles().into_keys().collect();
    assert_eq!(told, [(hub, Role::To)]);
}

#[test]
fn the_built_in_extractors_read_roles_of_the_kinds_that_can_be_ends() {
    let found = extract("awards moved from the Army to the Navy over the last 18 months");
    let got: Vec<(ParamKind, Option<Role>)> =
        found.params.iter().map(|m| (m.kind, m.role)).collect();
    assert_eq!(
        got,
        [
            (ParamKind::Agency, Some(Role::From)),
            (ParamKind::Agency, Some(Role::To)),
            (ParamKind::Months, None),
        ]
    );
}

#[test]
fn a_registry_without_roles_extracts_no_role() {
    let registry = planner_registry::reference::registry().unwrap();
    let found = Extractor::new(&registry).extract("awards from the Army to the Navy");
    assert_eq!(found.params.len(), 2);
    assert!(found.params.iter().all(|m| m.role.is_none()));
    assert!(found.roles().is_empty());
}

proptest! {
    /// Any mix of cue words, hubs, other values, punctuation and other scripts: no panic, a
    /// role only on a hub, and the values told apart are hubs' values with that role.
    #[test]
    fn roles_are_total_and_only_on_kinds_with_roles(words in prop::collection::vec(prop::sample::select(&[
        "from", "to", "into", "out", "of", "between", "and", "&", "-", "→", ">", "->", "the",
        "Seattle", "Denver", "SEA", "DEN", "Reno", "Northline", "by month", "bound", "for",
        "arriving", "at", "want", "compare", "origin", "destination", ",", ":", "é", "日本",
        "towards", "leaving", "–", "\u{0}", "",
    ][..]), 0..24), glue in prop::sample::select(&[" ", "", "  "][..])) {
        let question = words.join(glue);
        let found = found(&question);
        let hub = LANES.0.kind_named("hub").unwrap();
        for mention in &found.params {
            prop_assert!(mention.role.is_none() || mention.kind == hub, "{question}");
        }
        for ((kind, role), value) in found.roles() {
            prop_assert_eq!(kind, hub);
            prop_assert!(found.params.iter().any(|m| m.value == value && m.role == Some(role)));
        }
    }
}
