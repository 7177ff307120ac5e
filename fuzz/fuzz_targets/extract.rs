//! Fuzz target for `planner_extract::extract`: any UTF-8 input must extract without panicking,
//! with spans on char boundaries that never overlap, and ambiguity exactly where a kind has two
//! different values.

#![no_main]

use libfuzzer_sys::fuzz_target;
use planner_registry::ParamKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let found = planner_extract::extract(text);
    let mut last_end = 0;
    for mention in &found.params {
        let span = mention.span;
        assert!(span.start >= last_end && span.start < span.end && span.end <= text.len());
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        last_end = span.end;
    }
    let available = found.available();
    for kind in ParamKind::ALL {
        let mut values: Vec<_> = found.mentions(kind).map(|m| &m.value).collect();
        values.sort();
        values.dedup();
        assert_eq!(found.is_ambiguous(kind), values.len() > 1);
        assert_eq!(available.contains_key(&kind), values.len() == 1);
    }
    assert_eq!(found, planner_extract::extract(text), "extraction is deterministic");
});
