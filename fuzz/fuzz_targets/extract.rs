//! Fuzz target for `planner_extract::extract` and for the declared kinds of the retail registry
//! (`planner_extract::Extractor`): any UTF-8 input must extract without panicking, with spans on
//! char boundaries that never overlap (a second reading shares its first's exactly), and ambiguity exactly where a kind has two different
//! values.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use planner_extract::{Extraction, Extractor};
use planner_registry::{ParamKind, Registry};

static RETAIL: LazyLock<(Vec<ParamKind>, Extractor)> = LazyLock::new(|| {
    let files = |name: &str| match name {
        "regions.csv" => Ok(include_str!("../../fixtures/domains/retail/regions.csv").to_owned()),
        "products.csv" => Ok(include_str!("../../fixtures/domains/retail/products.csv").to_owned()),
        other => Err(format!("no file {other}")),
    };
    let text = include_str!("../../fixtures/domains/retail/registry.toml");
    let registry = Registry::from_toml_with(text, "retail/registry.toml", &files)
        .unwrap_or_else(|err| panic!("{err}"));
    let kinds = registry.kinds().iter().map(|k| k.kind).collect();
    (kinds, Extractor::new(&registry))
});

fn check(text: &str, found: &Extraction, kinds: &[ParamKind]) {
    let mut last: Option<planner_extract::Span> = None;
    for mention in &found.params {
        let span = mention.span;
        // Spans never overlap, but a second reading shares its first reading's words exactly
        // (a window read as a length and as a period).
        let after = last.is_none_or(|last| span.start >= last.end || span == last);
        assert!(after && span.start < span.end && span.end <= text.len());
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        last = Some(span);
    }
    let available = found.available();
    for &kind in kinds {
        let mut values: Vec<_> = found.mentions(kind).map(|m| &m.value).collect();
        values.sort();
        values.dedup();
        assert_eq!(found.is_ambiguous(kind), values.len() > 1);
        assert_eq!(available.contains_key(&kind), values.len() == 1);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let found = planner_extract::extract(text);
    check(text, &found, &ParamKind::BUILTIN);
    assert_eq!(found, planner_extract::extract(text), "extraction is deterministic");
    let (kinds, extractor) = &*RETAIL;
    let declared = extractor.extract(text);
    check(text, &declared, kinds);
    assert_eq!(declared, extractor.extract(text), "extraction is deterministic");
});
