//! Fuzz target for `planner_infer::parse_reply`, the strict parser of the OpenAI-compatible
//! proposer's replies: any text parses without panicking into at most six distinct names of the
//! closed set, with the names outside it and those past six counted, or into an empty, unusable
//! proposal.

#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 6] = [
    "top_incumbents",
    "vendor_profile",
    "bench_compartment_counts",
    "requirement_summary",
    "capture_picture",
    "agency_naics_spend",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let names: Vec<String> = NAMES.iter().map(|it| (*it).to_owned()).collect();
    let parsed = planner_infer::parse_reply(text, &names);
    if parsed.unusable {
        assert!(parsed.names.is_empty() && parsed.dropped == 0 && parsed.cut == 0, "{parsed:?}");
        return;
    }
    assert!(parsed.names.len() <= 6, "{parsed:?}");
    let mut seen = BTreeSet::new();
    for name in &parsed.names {
        assert!(names.contains(name), "{name:?} is outside the set");
        assert!(seen.insert(name), "{name:?} repeats");
    }
    // A usable reply is a JSON object with the one key `intents`.
    let value: serde_json::Value = serde_json::from_str(text).expect("a usable reply is JSON");
    assert_eq!(value.as_object().map(|it| it.len()), Some(1));
    assert_eq!(parsed, planner_infer::parse_reply(text, &names), "parsing is deterministic");
});
