//! The reference registry read by the built-in extractors: `capture.toml` without its `[kinds]`
//! declarations, its enum params listing their values as built-in kinds need.

use planner_registry::Registry;

/// `capture.toml` with its `[kinds.*]` tables taken out.
pub(crate) fn builtin_reference() -> Registry {
    let text = planner_registry::reference::TEXT;
    let (Some(start), Some(end)) = (text.find("\n[kinds."), text.find("\n[params]\n")) else {
        panic!("capture.toml no longer declares its kinds before its params");
    };
    let mut builtin = format!("{}{}", &text[..start], &text[end..]);
    for (declared, listed) in [
        (
            r#"clearance = { kind = "clearance" }"#,
            r#"clearance = { kind = "clearance", values = ["confidential", "secret", "top_secret", "ts_sci"] }"#,
        ),
        (
            r#"compartments = { kind = "compartments" }"#,
            r#"compartments = { kind = "compartments", values = ["SI", "TK", "G", "HCS", "KLM"] }"#,
        ),
    ] {
        assert!(builtin.contains(declared), "capture.toml no longer says {declared}");
        builtin = builtin.replace(declared, listed);
    }
    let registry = Registry::from_toml(&builtin, "capture.toml")
        .unwrap_or_else(|err| panic!("{}", err.located().join("\n")));
    assert!(registry.kinds().is_empty());
    registry
}
