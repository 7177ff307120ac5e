//! Fuzz target for `planner_registry::Registry::from_toml`: any text, from random bytes to a
//! mangled registry file, loads into a registry or a list of problems without panicking, and a
//! registry that loads obeys the loader's promises (names valid and unique, node cap in range,
//! every composite member and provider edge resolvable, loading deterministic).

#![no_main]

use libfuzzer_sys::fuzz_target;
use planner_registry::{IntentBody, Registry};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Registry::from_toml(&text, "fuzz.toml") {
        Ok(registry) => {
            assert!((1..=64).contains(&registry.node_cap()));
            let mut names: Vec<&str> = Vec::new();
            for intent in registry.intents() {
                let name = intent.name.as_str();
                assert!(!name.is_empty() && name.len() <= 64, "{name:?}");
                assert!(
                    name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                );
                assert_eq!(
                    registry.intent_id(name).map(|id| registry.intent(id).name.as_str()),
                    Some(name)
                );
                names.push(name);
                if let IntentBody::Composite(composite) = &intent.body {
                    assert!(composite.members.len() >= 2);
                }
            }
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), registry.len(), "intent names are unique");
            let again = Registry::from_toml(&text, "fuzz.toml").expect("loading is deterministic");
            assert_eq!(again.len(), registry.len());
        }
        Err(err) => {
            // Every failure says what is wrong, where.
            assert!(!err.problems().is_empty());
            assert_eq!(err.located().len(), err.problems().len());
            assert!(Registry::from_toml(&text, "fuzz.toml").is_err(), "loading is deterministic");
        }
    }
});
