//! Loading and guarding never panic: arbitrary text, mangled registry files and SQL token
//! soup all come back as values (a registry, problems or violations).

use planner_registry::{ParamKind, Registry, check_sql};
use proptest::prelude::*;

const REFERENCE: &str = include_str!("../../../fixtures/registry/test-reference.toml");

fn allowed() -> Vec<String> {
    vec!["market".to_owned(), "tenant".to_owned()]
}

/// SQL-looking text: keywords, names, punctuation, placeholders and quotes in any order.
fn token_soup() -> impl Strategy<Value = String> {
    let tokens = vec![
        "SELECT",
        "FROM",
        "WHERE",
        "WITH",
        "AS",
        "(",
        ")",
        ",",
        ";",
        "UNION",
        "DELETE",
        "INSERT",
        "INTO",
        "market.awards",
        "eeo.x",
        "pg_sleep(1)",
        "$1",
        "$2::text",
        "::regclass",
        "'x'",
        "\"q\"",
        "--",
        "/*",
        "*/",
        "FOR UPDATE",
        "a.piid",
        "1",
        "=",
        "AND",
        "$$",
        "LATERAL",
    ];
    prop::collection::vec(prop::sample::select(tokens), 0..40).prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_guard_never_panics_on_any_text(sql in any::<String>()) {
        let _ = check_sql(&sql, &allowed(), &[ParamKind::Agency]);
    }

    #[test]
    fn the_guard_never_panics_on_token_soup(sql in token_soup()) {
        let _ = check_sql(&sql, &allowed(), &[ParamKind::Months, ParamKind::Uuid]);
    }

    #[test]
    fn loading_never_panics_on_any_text(text in any::<String>()) {
        prop_assert!(Registry::from_toml(&text, "any.toml").is_err());
    }

    #[test]
    fn loading_a_mangled_registry_never_panics(cut in 0..REFERENCE.len(), length in 0usize..40, insert in "[ -~\n]{0,12}") {
        let start = REFERENCE.floor_char_boundary(cut);
        let end = REFERENCE.floor_char_boundary((start + length).min(REFERENCE.len()));
        let text = format!("{}{insert}{}", &REFERENCE[..start], &REFERENCE[end..]);
        if let Err(err) = Registry::from_toml(&text, "mangled.toml") {
            prop_assert!(!err.problems().is_empty());
        }
    }
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let sql = format!("SELECT {}1{} FROM market.awards AS a", "(".repeat(5_000), ")".repeat(5_000));
    assert!(!check_sql(&sql, &allowed(), &[]).is_empty());
}
