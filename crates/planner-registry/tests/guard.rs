//! The SQL guard against its corpus: every hostile statement rejected for its stated reason,
//! every legitimate one accepted.

use planner_registry::{ParamKind, check_sql};

const HOSTILE: &str = include_str!("../../../fixtures/registry/hostile/hostile.sql");
const LEGITIMATE: &str = include_str!("../../../fixtures/registry/hostile/legitimate.sql");

struct Case {
    name: String,
    params: Vec<ParamKind>,
    expect: Option<String>,
    sql: String,
}

fn cases(corpus: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in corpus.lines() {
        if let Some(name) = line.strip_prefix("-- case: ") {
            cases.push(Case {
                name: name.trim().to_owned(),
                params: Vec::new(),
                expect: None,
                sql: String::new(),
            });
            continue;
        }
        let Some(case) = cases.last_mut() else { continue };
        if let Some(params) = line.strip_prefix("-- params: ") {
            case.params = params
                .split(',')
                .map(|kind| kind.trim().parse().unwrap_or_else(|err| panic!("{err}")))
                .collect();
        } else if let Some(expect) = line.strip_prefix("-- expect:") {
            case.expect = Some(expect.trim().to_owned());
        } else {
            case.sql.push_str(line);
            case.sql.push('\n');
        }
    }
    cases
}

fn allowed() -> Vec<String> {
    vec!["market".to_owned(), "tenant".to_owned()]
}

#[test]
fn every_hostile_statement_is_rejected_for_its_reason() {
    let cases = cases(HOSTILE);
    assert!(cases.len() >= 40, "the hostile corpus has only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let violations = check_sql(&case.sql, &allowed(), &case.params);
        let messages: Vec<&str> = violations.iter().map(|v| v.message.as_str()).collect();
        let expect = case.expect.as_deref().unwrap_or("");
        if violations.is_empty() || !messages.iter().any(|m| m.contains(expect)) {
            failures.push(format!("{}: expected `{expect}`, got {messages:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_legitimate_statement_is_accepted() {
    let cases = cases(LEGITIMATE);
    assert!(cases.len() >= 10);
    let mut failures = Vec::new();
    for case in &cases {
        let violations = check_sql(&case.sql, &allowed(), &case.params);
        if !violations.is_empty() {
            failures.push(format!("{}: {violations:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn violations_carry_a_location_inside_the_statement() {
    let violations = check_sql("SELECT a.piid\nFROM eeo.applicants AS a", &allowed(), &[]);
    assert!(violations.iter().any(|v| v.location == Some((2, 6))), "{violations:?}");
}
