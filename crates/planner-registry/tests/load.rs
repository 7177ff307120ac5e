//! Loading registry files: the test reference registry and the documented example load, and
//! broken files report every problem at once with its line and column.

use planner_registry::{ColumnType, IntentBody, ParamKind, Registry, Requirement, Value};

const REFERENCE: &str = include_str!("../../../fixtures/registry/test-reference.toml");
const CRATE_DOC: &str = include_str!("../src/lib.rs");

fn load(text: &str) -> Registry {
    match Registry::from_toml(text, "test.toml") {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

/// The problems of a file that must not load, as `line:column: message`.
#[track_caller]
fn problems(text: &str) -> String {
    match Registry::from_toml(text, "broken.toml") {
        Ok(_) => panic!("the file loaded"),
        Err(err) => err.located().join("\n"),
    }
}

const HEADER: &str = r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["market", "tenant"]
scopes = ["bench"]

[planes]
market = { tenant = false, schemas = ["market"] }
bench = { tenant = true, counts = true, scope = "bench", schemas = ["tenant", "market"] }

[params]
agency = { kind = "agency" }
uei = { kind = "uei" }
window_months = { kind = "months" }
requirement_id = { kind = "uuid" }
"#;

#[test]
fn reference_registry_loads_in_declaration_order() {
    let registry = load(REFERENCE);
    let names: Vec<&str> = registry.intents().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names.len(), 16);
    assert_eq!(names[0], "agency_naics_spend");
    assert_eq!(names[15], "capture_picture");
    for (index, intent) in registry.intents().iter().enumerate() {
        assert_eq!(intent.id.index(), index);
        assert_eq!(registry.intent_id(&intent.name), Some(intent.id));
    }
    assert_eq!(registry.intent_id("drop_table"), None);
    assert_eq!(registry.intent_id("Top_Incumbents"), None);
    assert_eq!(registry.node_cap(), 6);
    assert_eq!(registry.settings().default_k, 11);
}

#[test]
fn reference_registry_has_typed_params_columns_and_composites() {
    let registry = load(REFERENCE);
    let Some(top) = registry.intent_id("top_incumbents") else { panic!("no top_incumbents") };
    let top = registry.intent(top);
    let kinds: Vec<ParamKind> = top.params.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [ParamKind::Agency, ParamKind::Naics, ParamKind::Months]);
    assert_eq!(
        top.params[2].requirement,
        Requirement::Optional { default: Value::Int(36), range: Some((1, 120)) }
    );
    assert_eq!(top.params[0].requirement, Requirement::Required);

    let Some(uei) = registry.param_of_kind(ParamKind::Uei) else { panic!("no uei param") };
    let providers: Vec<&str> =
        registry.providers_of(uei).iter().map(|&id| registry.intent(id).name.as_str()).collect();
    assert_eq!(providers, ["top_incumbents", "requirement_incumbent"]);

    let Some(bench) = registry.intent_id("bench_clearance_counts") else {
        panic!("no bench intent")
    };
    let bench = registry.intent(bench);
    assert_eq!(bench.scopes(), ["bench".to_owned()]);
    let Some(query) = bench.query() else { panic!("not a query") };
    assert!(registry.plane(query.plane).counts);
    assert_eq!(
        query.suppression.as_ref().map(|s| (s.count_columns.clone(), s.k)),
        Some((vec![1], 11))
    );
    assert_eq!(query.columns[1].ty, ColumnType::Int);

    let Some(picture) = registry.intent_id("capture_picture") else { panic!("no composite") };
    let IntentBody::Composite(composite) = &registry.intent(picture).body else {
        panic!("not composite")
    };
    assert_eq!(composite.members.len(), 4);
    assert_eq!(composite.edges.len(), 2);
    assert!(registry.intent(picture).scopes().is_empty());
}

#[test]
fn the_documented_example_loads() {
    let start = CRATE_DOC.find("//! ```toml\n").map(|at| at + "//! ```toml\n".len());
    let Some(start) = start else { panic!("no example in the crate doc") };
    let Some(length) = CRATE_DOC[start..].find("//! ```\n") else { panic!("unclosed example") };
    let example: String = CRATE_DOC[start..start + length]
        .lines()
        .map(|line| line.strip_prefix("//! ").or_else(|| line.strip_prefix("//!")).unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let registry = load(&example);
    assert_eq!(registry.len(), 4);
    assert!(registry.intent(registry.intents()[3].id).is_composite());
}

#[test]
fn a_frozen_registry_is_shared() {
    let registry = load(REFERENCE);
    let shared = registry.clone();
    assert!(shared.ptr_eq(&registry));
}

#[test]
fn syntax_errors_have_a_place() {
    let text = format!("{HEADER}\n[[intent]]\nname = \"x\"\ndescription = 3\n");
    assert_eq!(problems(&text), "broken.toml:19:15: invalid type: integer `3`, expected a string");
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = format!(
        r#"{HEADER}
odd = {{ kind = "colour" }}

[[intent]]
name = "Bad-Name"
description = "x"
plane = "market"
params = [{{ name = "agency" }}, {{ name = "nope" }}]
sql = "SELECT a.piid FROM market.awards AS a WHERE a.agency = $1::text"
columns = [{{ name = "piid", type = "text" }}, {{ name = "uei", type = "int", provides = "uei" }}]

[[intent]]
name = "counts_without_spec"
description = "Counts without a suppression spec."
plane = "bench"
params = [{{ name = "window_months", default = 200, min = 1, max = 24 }}]
sql = "SELECT count(*) AS n FROM tenant.candidates AS c WHERE c.months <= $1::text"
columns = [{{ name = "n", type = "money" }}]

[[intent]]
name = "counts_without_spec"
description = "A duplicate name."
plane = "nowhere"
params = [{{ name = "uei" }}]
sql = """
SELECT v.name
FROM eeo.applicants AS v
WHERE v.uei = $1::text; DELETE FROM market.awards"""
columns = [{{ name = "name", type = "text" }}]

[[intent]]
name = "loop_a"
description = "A composite in a cycle."
members = ["loop_b", "ghost"]

[[intent]]
name = "loop_b"
description = "The other half of the cycle."
members = ["loop_a", "counts_without_spec"]
"#
    );
    let report = problems(&text);
    let expected = "\
broken.toml:17:16: unknown kind `colour` for param `odd`: expected one of agency, naics, uuid, clearance, compartments, uei, months
broken.toml:20:8: malformed intent name `Bad-Name`: expected [a-z][a-z0-9_]*, at most 64 bytes
broken.toml:23:41: intent `Bad-Name` uses undeclared param `nope`
broken.toml:24:7: intent `Bad-Name`: the SQL returns 1 column(s), `columns` lists 2 (piid, uei): make them the same, in the same order
broken.toml:25:87: column `uei` of type int cannot provide param `uei` of kind uei
broken.toml:27:1: count intent `counts_without_spec` needs a `suppression` spec
broken.toml:31:47: intent `counts_without_spec`: default 200 of `window_months` lies outside [1, 24]
broken.toml:32:7: intent `counts_without_spec`: SQL rejected: placeholder $1 is cast to `text` but its param is of kind months (expected int or integer or int4 or bigint or int8)
broken.toml:33:33: unknown column type `money`: expected one of text, int, decimal, date, timestamp, bool, uuid, text_list
broken.toml:36:8: duplicate intent name `counts_without_spec`
broken.toml:38:9: intent `counts_without_spec` names unknown plane `nowhere`
broken.toml:40:7: intent `counts_without_spec`: SQL rejected: expected exactly one statement, found 2
broken.toml:42:6: intent `counts_without_spec`: SQL rejected: names the `eeo` schema, which is never reachable
broken.toml:47:8: composite `loop_a` contains itself through its members
broken.toml:49:22: composite `loop_a` names unknown member `ghost`
broken.toml:52:8: composite `loop_b` contains itself through its members";
    assert_eq!(report, expected);
}

#[test]
fn placeholders_must_match_the_params_in_number() {
    let intent = |params: &str, sql: &str| {
        format!(
            "{HEADER}\n[[intent]]\nname = \"x\"\ndescription = \"x\"\nplane = \"market\"\nparams = [{params}]\nsql = \"{sql}\"\ncolumns = [{{ name = \"piid\", type = \"text\" }}]\n"
        )
    };
    let too_few = intent(
        r#"{ name = "agency" }, { name = "uei" }"#,
        "SELECT a.piid FROM market.awards AS a WHERE a.agency = $1::text",
    );
    assert!(
        problems(&too_few).contains("param 2 (uei) has no placeholder $2"),
        "{}",
        problems(&too_few)
    );
    let too_many = intent(
        r#"{ name = "agency" }"#,
        "SELECT a.piid FROM market.awards AS a WHERE a.agency = $1::text AND a.uei = $2::text",
    );
    assert!(problems(&too_many).contains("placeholder $2 has no param"), "{}", problems(&too_many));
    let fine = intent(
        r#"{ name = "agency" }, { name = "requirement_id" }"#,
        "SELECT a.piid FROM market.awards AS a WHERE a.agency = $1::text AND a.id = $2::uuid",
    );
    assert_eq!(load(&fine).len(), 1);
}

#[test]
fn each_kind_has_at_most_one_param() {
    let text = HEADER.replace(
        "uei = { kind = \"uei\" }",
        "uei = { kind = \"uei\" }\nvendor = { kind = \"uei\" }",
    );
    assert!(
        problems(&text).contains("kind uei is already declared by another param"),
        "{}",
        problems(&text)
    );
}

#[test]
fn composites_need_members_that_exist_and_edges_that_type_check() {
    let text = format!(
        r#"{HEADER}
[[intent]]
name = "one"
description = "One."
plane = "market"
sql = "SELECT a.agency, a.uei FROM market.awards AS a"
columns = [{{ name = "agency", type = "text", provides = "agency" }}, {{ name = "uei", type = "text" }}]

[[intent]]
name = "two"
description = "Two."
plane = "market"
params = [{{ name = "agency" }}]
sql = "SELECT a.piid FROM market.awards AS a WHERE a.agency = $1::text"
columns = [{{ name = "piid", type = "text" }}]

[[intent]]
name = "both"
description = "Both."
members = ["one", "two"]
edges = [
  {{ from = "one", column = "uei", to = "two", param = "agency" }},
  {{ from = "one", column = "agency", to = "two", param = "uei" }},
  {{ from = "one", column = "agency", to = "three", param = "agency" }},
]
"#
    );
    let report = problems(&text);
    assert!(report.contains("column `one.uei` does not provide `agency`"), "{report}");
    assert!(report.contains("column `one.agency` does not provide `uei`"), "{report}");
    assert!(report.contains("edge names `three`, not a member"), "{report}");
}

#[test]
fn every_malformed_intent_and_syntax_error_is_reported() {
    let text = format!(
        "{HEADER}\n[[intent]]\nname = \"a\"\ndescription = 1\n\n[[intent]]\nname = \"b\"\ndescription = \"B.\"\nplane = \"market\"\ncolour = \"red\"\n"
    );
    let report = problems(&text);
    assert_eq!(report.lines().count(), 2, "{report}");
    assert!(
        report.starts_with("broken.toml:19:15: invalid type: integer `1`, expected a string"),
        "{report}"
    );
    assert!(report.contains("unknown field `colour`"), "{report}");

    let syntax = "[registry]\nnode_cap = = 6\n[planes\n";
    assert!(problems(syntax).lines().count() >= 2, "{}", problems(syntax));

    let empty = problems("");
    assert!(empty.contains("missing section [registry]"), "{empty}");
    assert!(empty.contains("missing section [params]"), "{empty}");
}

#[test]
fn the_as_of_query_windows_and_units_are_checked() {
    let intent = |extra: &str, columns: &str| {
        format!(
            "{HEADER}\n[[intent]]\nname = \"x\"\ndescription = \"x\"\nplane = \"market\"\n\
             params = [{{ name = \"window_months\", default = 12, min = 1, max = 60 }}]\n\
             sql = \"SELECT a.piid, a.obligated FROM market.awards AS a WHERE a.months < $1::int\"\n\
             columns = [{columns}]\n{extra}"
        )
    };
    let good_columns = r#"{ name = "piid", type = "text" }, { name = "obligated", type = "decimal", unit = "usd" }"#;
    let with_as_of = |as_of: &str, extra: &str, columns: &str| {
        intent(extra, columns)
            .replace("scopes = [\"bench\"]\n", &format!("scopes = [\"bench\"]\nas_of = {as_of}\n"))
    };
    let registry = load(&with_as_of(
        r#"{ plane = "market", sql = "SELECT s.as_of FROM market.snapshot AS s" }"#,
        "window = \"past\"\n",
        good_columns,
    ));
    let as_of = registry.as_of().expect("an as-of query");
    assert_eq!(registry.plane(as_of.plane).name, "market");
    let query = registry.intents()[0].query().unwrap();
    assert_eq!(query.window, Some(planner_registry::WindowDirection::Past));
    assert_eq!(query.columns[1].unit, Some(planner_registry::Unit::Usd));
    assert_eq!(query.columns[0].unit, None);

    let report = problems(&with_as_of(
        r#"{ plane = "bench", sql = "SELECT s.as_of FROM market.snapshot AS s" }"#,
        "window = \"sideways\"\n",
        r#"{ name = "piid", type = "text", unit = "usd" }, { name = "obligated", type = "decimal", unit = "eur" }"#,
    ));
    for expected in [
        "registry.as_of may not run on the counting plane `bench`",
        "column `piid` of type text cannot have a unit",
        "unknown unit `eur`: expected usd",
        "unknown window `sideways`: expected past or ahead",
    ] {
        assert!(report.contains(expected), "{expected}:\n{report}");
    }
    let report = problems(&with_as_of(
        r#"{ plane = "market", sql = "SELECT e.gender FROM eeo.people AS e" }"#,
        "",
        good_columns,
    ));
    assert!(report.contains("registry.as_of: SQL rejected"), "{report}");
    let no_months = intent("window = \"ahead\"\n", good_columns)
        .replace(
            "params = [{ name = \"window_months\", default = 12, min = 1, max = 60 }]",
            "params = []",
        )
        .replace("WHERE a.months < $1::int", "");
    assert!(
        problems(&no_months)
            .contains("a window needs a param of kind months or of a duration kind"),
        "{}",
        problems(&no_months)
    );
}

/// Invariant 5's second line on its own: whatever the screen does, an intent that ranks the
/// rows of a workforce plane cannot be loaded, in any of the forms a ranking takes.
#[test]
fn a_workforce_plane_cannot_rank_its_people() {
    let file = |counts: bool, sql: &str| {
        format!(
            r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["crew"]

[planes]
crew = {{ tenant = false, workforce = true, counts = {counts}, schemas = ["crew"] }}

[params]

[[intent]]
name = "drivers"
description = "Drivers."
plane = "crew"
sql = "{sql}"
columns = [{{ name = "name", type = "text" }}, {{ name = "late", type = "int" }}]
"#
        )
    };
    for sql in [
        "SELECT d.name, d.late FROM crew.driver AS d ORDER BY d.late DESC",
        "SELECT d.name, d.late FROM crew.driver AS d LIMIT 10",
        "SELECT d.name, d.late FROM crew.driver AS d FETCH FIRST 5 ROWS ONLY",
        "SELECT x.name, x.late FROM (SELECT d.name, d.late, rank() OVER (ORDER BY d.late) AS r \
         FROM crew.driver AS d) AS x WHERE x.r <= 3",
    ] {
        let problems = problems(&file(false, sql));
        assert!(problems.contains("ranking or scoring individual workers"), "{sql}: {problems}");
        assert!(problems.starts_with("broken.toml:15:"), "located at the SQL: {problems}");
    }
    // Unordered rows of a workforce plane load (a roster), as does a ranking of something else.
    load(&file(false, "SELECT d.name, d.late FROM crew.driver AS d WHERE d.late > 0"));
    load(
        &file(false, "SELECT d.name, d.late FROM crew.driver AS d")
            .replace("workforce = true, ", ""),
    );
    load(
        &file(false, "SELECT d.name, d.late FROM crew.driver AS d ORDER BY d.late DESC")
            .replace("workforce = true, ", ""),
    );
}

#[test]
fn examples_load_in_order_and_bad_ones_are_located() {
    let intent = |examples: &str| {
        format!(
            r#"{HEADER}
[[intent]]
name = "vendor_profile"
description = "One vendor."
examples = {examples}
plane = "market"
params = [{{ name = "uei" }}]
sql = "SELECT v.name FROM market.vendor v WHERE v.uei = $1::text"
columns = [{{ name = "name", type = "text" }}]
"#
        )
    };
    let registry = load(&intent(r#"["Who is UEI ABCDEFGHJKL1?", " tell me about that vendor "]"#));
    assert_eq!(
        registry.intents()[0].examples,
        ["Who is UEI ABCDEFGHJKL1?", "tell me about that vendor"],
    );
    let long = "x".repeat(501);
    assert_eq!(
        problems(&intent(&format!(r#"["", "who?", "who?", "{long}"]"#))),
        [
            "broken.toml:20:13: intent `vendor_profile` has an empty example",
            "broken.toml:20:25: intent `vendor_profile` repeats the example \"who?\"",
            "broken.toml:20:33: an example of intent `vendor_profile` is 501 bytes long; an \
             example is one question, at most 500 bytes",
        ]
        .join("\n")
    );
}
