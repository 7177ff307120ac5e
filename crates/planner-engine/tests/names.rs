//! A name the registry does not know, said where a value goes, is the one thing meant: the
//! user is asked which (on the property domain's registry, `fixtures/domains/property`), while
//! a measure the registry does not know, with no name, asks for something else.

use std::path::Path;

#[path = "support/planned.rs"]
mod planned;

use planner_engine::{Planner, Route};
use planner_registry::Registry;

fn property() -> Planner {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains/property");
    let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Planner::new(Registry::from_toml_with(&text, "registry.toml", &files).unwrap(), None, 1)
}

#[test]
fn an_unknown_name_where_a_value_goes_is_asked_about() {
    let planner = property();
    assert_eq!(planned::planned(&planner, "rent roll for Dayton").0, Route::Clarify);
    assert_eq!(planned::planned(&planner, "the rent roll please").0, Route::Clarify);
}
