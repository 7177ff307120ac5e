//! The reference registry with its seven kinds declared with the generic extractor types
//! (`fixtures/registry/kinds.toml`) instead of extracted by the built-in extractors.

use planner_registry::Registry;

/// `capture.toml` with the declarations of `kinds.toml`, its CSVs read from beside it.
pub(crate) fn declared_reference() -> Registry {
    let dir = format!("{}/../../fixtures/registry", env!("CARGO_MANIFEST_DIR"));
    let text = include_str!("../../../../fixtures/registry/capture.toml");
    let kinds = include_str!("../../../../fixtures/registry/kinds.toml");
    let mut declared = text.replacen("\n[params]\n", &format!("\n{kinds}\n[params]\n"), 1);
    // A declared enum kind's values are its declaration's.
    for (listed, declared_kind) in [
        (
            r#"clearance = { kind = "clearance", values = ["confidential", "secret", "top_secret", "ts_sci"] }"#,
            r#"clearance = { kind = "clearance" }"#,
        ),
        (
            r#"compartments = { kind = "compartments", values = ["SI", "TK", "G", "HCS", "KLM"] }"#,
            r#"compartments = { kind = "compartments" }"#,
        ),
    ] {
        assert!(declared.contains(listed), "capture.toml no longer says {listed}");
        declared = declared.replace(listed, declared_kind);
    }
    let files = |name: &str| {
        std::fs::read_to_string(format!("{dir}/{name}")).map_err(|err| format!("{name}: {err}"))
    };
    Registry::from_toml_with(&declared, "capture.toml", &files)
        .unwrap_or_else(|err| panic!("{}", err.located().join("\n")))
}
