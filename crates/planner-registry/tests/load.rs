//! Loading registry files: the test reference registry loads, and broken files report every
//! problem with its line and column.

use planner_registry::{IntentBody, ParamKind, Registry, Requirement, Value};

const REFERENCE: &str = include_str!("../../../fixtures/registry/test-reference.toml");

fn reference() -> Registry {
    match Registry::from_toml(REFERENCE, "test-reference.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

#[test]
fn reference_registry_loads_in_declaration_order() {
    let registry = reference();
    let names: Vec<&str> = registry.intents().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names.len(), 16);
    assert_eq!(names[0], "agency_naics_spend");
    assert_eq!(names[15], "capture_picture");
    for (index, intent) in registry.intents().iter().enumerate() {
        assert_eq!(intent.id.index(), index);
        assert_eq!(registry.intent_id(&intent.name), Some(intent.id));
    }
    assert_eq!(registry.intent_id("drop_table"), None);
    assert_eq!(registry.node_cap(), 6);
}
