//! `[kinds]`: declared parameter kinds load with their values, and every mistake in a kind
//! declaration is reported with its location (an alias claimed by two values, a CSV that does
//! not load, a shape no code can match, a key the type does not take).

use planner_registry::{
    CaseRule, DurationUnit, KindBody, KindType, ParamKind, Registry, Requirement, Value, ValueShape,
};

const HEAD: &str = r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["shop"]
help = "Ask about shop sales."

[planes]
shop = { tenant = false, schemas = ["shop"] }
"#;

const INTENT: &str = r#"
[[intent]]
name = "sales"
description = "Sales of one region over a period."
plane = "shop"
params = [
  { name = "region" },
  { name = "period", default = ["-infinity", "infinity"] },
  { name = "top_n", default = 10, min = 1, max = 50 },
]
sql = """
SELECT o.region, count(*) AS orders FROM shop.orders AS o
WHERE o.region = $1::text AND o.day >= ($2::text[])[1]::date AND o.day < ($2::text[])[2]::date
GROUP BY o.region LIMIT $3::int
"""
columns = [{ name = "region", type = "text", provides = "region" }, { name = "orders", type = "int" }]
"#;

fn files(name: &str) -> Result<String, String> {
    match name {
        "regions.csv" => {
            Ok("value,aliases\nnortheast,north east|=NE\nsouth,~South|southern\n".into())
        }
        "codes.csv" => Ok("code,title\nAB-1234,Mug\n".into()),
        "bad-shape.csv" => Ok("code,title\nAB-12,Mug\n".into()),
        "no-header.csv" => Ok("northeast,x\n".into()),
        other => Err(format!("{other}: no such file")),
    }
}

fn load(text: &str) -> Result<Registry, String> {
    Registry::from_toml_with(text, "shop.toml", &files).map_err(|err| err.located().join("\n"))
}

fn with_kinds(kinds: &str) -> String {
    format!(
        "{HEAD}\n{kinds}\n[params]\nregion = {{ kind = \"region\" }}\nperiod = {{ kind = \"period\" }}\ntop_n = {{ kind = \"top_n\" }}\n{INTENT}"
    )
}

const GOOD_KINDS: &str = r#"
[kinds.region]
type = "dictionary"
label = "sales region"
csv = "regions.csv"

[kinds.period]
type = "date_range"
fiscal_year_start = 2

[kinds.top_n]
type = "integer"
cues = ["top"]
"#;

#[test]
fn declared_kinds_load_with_their_values_and_types() {
    let registry = load(&with_kinds(GOOD_KINDS)).unwrap();
    assert_eq!(registry.help(), Some("Ask about shop sales."));
    let region = registry.kind_named("region").unwrap();
    assert!(matches!(region, ParamKind::Declared(d) if d.ty() == KindType::Dictionary));
    assert_eq!(region.shape(), ValueShape::Text);
    let spec = registry.kind_spec(region).unwrap();
    assert_eq!(spec.label, "sales region");
    let KindBody::Dictionary { entries, ordered: false } = &spec.body else { panic!("{spec:?}") };
    assert_eq!(entries.len(), 2);
    // "~South" restricts the canonical value's own spelling.
    assert!(
        entries[1].aliases.iter().all(|a| a.words != ["south"] || a.case == CaseRule::Capitalised)
    );
    // A dictionary param's values are its canonical values.
    let param = registry.param(registry.param_of_kind(region).unwrap());
    assert_eq!(param.values, ["northeast", "south"]);
    let intent = registry.intent(registry.intent_id("sales").unwrap());
    assert_eq!(
        intent.params[1].requirement,
        Requirement::Optional {
            default: Value::List(vec!["-infinity".into(), "infinity".into()]),
            range: None
        }
    );
    assert_eq!(registry.kind_named("agency"), Some(ParamKind::Agency));
    assert_eq!(registry.kind_named("nothing"), None);
    // A checkpointed kind reads back as the declared one.
    let json = serde_json::to_string(&region).unwrap();
    assert_eq!(json, "\"region\"");
    assert_eq!(serde_json::from_str::<ParamKind>(&json).unwrap(), region);
}

#[test]
fn every_mistake_in_a_kind_is_reported_with_its_place() {
    let kinds = r##"
[kinds.region]
type = "dictionary"
values = [
  { value = "northeast", aliases = ["ne", "north"] },
  { value = "northwest", aliases = ["north"] },
  { value = "rtd", aliases = ["=RTDs", "=FeLV", "=IPA"] },
  { value = "=Tx" },
  { value = "us_5", aliases = ["#5"] },
]

[kinds.period]
type = "date_range"
fiscal_year_start = 13
shape = "AA"

[kinds.top_n]
type = "integer"
cues = []

[kinds.sku]
type = "code"
shape = "--"

[kinds.sku2]
type = "code"
shape = "AA-9999"
csv = "missing.csv"

[kinds.sku3]
type = "code"
shape = "AA-9999"
csv = "bad-shape.csv"

[kinds.place]
type = "dictionary"
csv = "no-header.csv"

[kinds.zip]
type = "code"
shape = "99999"
bare = "mixed"

[kinds.badge]
type = "code"
shape = "XXXX"
bare = "always"

[kinds.shipment]
type = "code"
shape = "SH-999999"
bare = "mixed"

[kinds.flag]
type = "code"
shape = "AAA"
bare = "mixed"

[kinds.fixed]
type = "code"
shape = '\A\9'

[kinds.dangling]
type = "code"
shape = 'AB\'

[kinds.store]
type = "dictionary"
values = [{ value = "x" }]
bare = "mixed"

[kinds.agency]
type = "code"
shape = "AAA"

[kinds.months]
type = "duration"
unit = "day"

[kinds.thing]
type = "enum"
"##;
    let problems = load(&with_kinds(kinds)).unwrap_err();
    let expected = [
        "alias `north` is claimed by both `northeast` and `northwest`",
        "fiscal_year_start 13 is not a month 1..12",
        "kind `region`: alias `=RTDs` never matches as written: `=` matches only a word with every letter in capitals (`RTDS`), and `RTDs` has lower-case letters; drop the `=` (any case), or write `=` and the alias in capitals only",
        "value `=Tx` never matches as written",
        "kind `region`: alias `#5` of `us_5` is the number 5 once its punctuation is dropped, so every \"5\" of a question (a top 5, a 5-day window) would read as `us_5`; write it with a word (`no 5`, `grade 5`)",
        "alias `=FeLV` never matches as written: `=` matches only a word with every letter in capitals (`FELV`), and `FeLV` has lower-case letters; write `^FeLV` (first and last letter in capitals)",
        "`shape` does not apply to type date_range",
        "kind `top_n`: `cues` is empty",
        "shape `--` has no `A`, `9` or `X`: no code can match it",
        "kind `fixed`: shape `\\A\\9` has no `A`, `9` or `X`: no code can match it (a literal A, 9 or X is written `\\A`)",
        "kind `dangling`: shape `AB\\` ends in `\\`: escape a character (`\\A`)",
        "the CSV `missing.csv` does not load: missing.csv: no such file",
        "bad-shape.csv:2: code `AB-12` does not have the shape `AA-9999`",
        "the CSV `no-header.csv` does not load: its header must be `value,aliases`",
        "kind `agency` is built in: declare it with type dictionary, or choose another name",
        "kind `months` is built in: declare it with unit month",
        "kind `zip`: `bare = \"mixed\"` reads codes holding letters and digits, and every code of shape `99999` holds only digits: remove `bare` and list the codes (`csv`) or give the words that announce one (`cues = [\"zip\"]`)",
        "kind `flag`: `bare = \"mixed\"` reads codes holding letters and digits, and every code of shape `AAA` holds only letters",
        "kind `badge`: unknown `bare = \"always\"`: expected \"mixed\"",
        "`bare` does not apply to type dictionary",
        "unknown type `enum` of kind `thing`",
    ];
    for message in expected {
        assert!(problems.contains(message), "missing {message:?} in:\n{problems}");
    }
    // An alias in capitals only is fine.
    assert!(!problems.contains("`=IPA`"), "{problems}");
    // A shape's literal letters count for `bare = "mixed"`.
    assert!(!problems.contains("kind `shipment`"), "{problems}");
    // Every problem has a line and column inside the file.
    for line in problems.lines() {
        let at = line.split(':').nth(1).unwrap();
        assert!(at.parse::<usize>().is_ok_and(|n| n > 1), "{line}");
    }
}

#[test]
fn a_registry_given_as_text_says_why_its_csv_cannot_load() {
    let problems = Registry::from_toml(&with_kinds(GOOD_KINDS), "shop.toml")
        .map_err(|err| err.located().join("\n"))
        .unwrap_err();
    assert!(problems.contains("regions.csv"), "{problems}");
}

#[test]
fn casts_and_provides_follow_the_value_shape() {
    // A date range is bound as text[]: casting it to int is an error.
    let text = with_kinds(GOOD_KINDS).replace("($2::text[])[1]::date", "$2::int");
    let problems = load(&text).unwrap_err();
    assert!(problems.contains("$2"), "{problems}");
    // An int column cannot provide a dictionary param.
    let text = with_kinds(GOOD_KINDS).replace(
        r#"{ name = "orders", type = "int" }"#,
        r#"{ name = "orders", type = "int", provides = "region" }"#,
    );
    let problems = load(&text).unwrap_err();
    assert!(problems.contains("cannot provide param `region`"), "{problems}");
}

#[test]
fn a_window_is_bound_by_months_or_by_a_duration_kind_in_its_unit() {
    let kinds = format!("{GOOD_KINDS}\n[kinds.days]\ntype = \"duration\"\nunit = \"day\"\n");
    let with_window = |days: bool| {
        let text = with_kinds(&kinds)
            .replace("plane = \"shop\"\nparams", "plane = \"shop\"\nwindow = \"past\"\nparams");
        if !days {
            return text;
        }
        text.replace("top_n = { kind = \"top_n\" }", "top_n = { kind = \"top_n\" }\ndays = { kind = \"days\" }")
            .replace(
                "{ name = \"top_n\", default = 10, min = 1, max = 50 },",
                "{ name = \"top_n\", default = 10, min = 1, max = 50 },\n  { name = \"days\", default = 30, min = 1, max = 90 },",
            )
            .replace("GROUP BY o.region", "AND $4::int > 0 GROUP BY o.region")
    };
    let registry = load(&with_window(true)).unwrap();
    let days = registry.kind_named("days").unwrap();
    assert_eq!(registry.duration_unit(days), Some(DurationUnit::Day));
    assert_eq!(registry.duration_unit(ParamKind::Months), Some(DurationUnit::Month));
    assert_eq!(registry.duration_unit(registry.kind_named("top_n").unwrap()), None);
    assert_eq!(registry.duration_unit(ParamKind::Agency), None);
    // An integer is not a length of time.
    let report = load(&with_window(false)).unwrap_err();
    assert!(
        report.contains(
            "intent `sales`: a window needs a param of kind months or of a duration kind"
        ),
        "{report}"
    );
}

#[test]
fn a_dictionary_spells_its_aliases_the_ways_its_rules_allow() {
    let kinds = r#"
[kinds.region]
type = "dictionary"
prefixes = ["U.S."]
variants = { department = ["dept"] }
optional = ["the"]
values = [
  { value = "Department of the Navy", aliases = ["=USN"] },
  { value = "Naval Board", aliases = ["dept of navy"] },
]

[kinds.period]
type = "date_range"

[kinds.top_n]
type = "integer"
cues = ["top"]
"#;
    let registry = load(&with_kinds(kinds)).unwrap();
    let spec = registry.kind_spec(registry.kind_named("region").unwrap()).unwrap();
    let KindBody::Dictionary { entries, .. } = &spec.body else { panic!("{spec:?}") };
    let spelled = |entry: usize| -> Vec<(String, CaseRule)> {
        entries[entry].aliases.iter().map(|a| (a.words.join(" "), a.case)).collect()
    };
    let navy = spelled(0);
    for words in [
        "department of the navy",
        "dept of the navy",
        "department of navy",
        "u s department of the navy",
        "u s dept of navy",
    ] {
        assert!(navy.contains(&(words.to_owned(), CaseRule::Any)), "{words}: {navy:?}");
    }
    // A case-checked alias takes no prefix; an alias written for another value stays its own.
    assert!(navy.contains(&("usn".to_owned(), CaseRule::Upper)), "{navy:?}");
    assert!(!navy.iter().any(|(words, _)| words == "u s usn" || words == "dept of navy"));
    assert!(spelled(1).contains(&("dept of navy".to_owned(), CaseRule::Any)));

    let bad = r#"
[kinds.region]
type = "dictionary"
variants = { department = ["dept of"] }
values = [{ value = "x" }]

[kinds.period]
type = "date_range"

[kinds.top_n]
type = "integer"
cues = ["top"]
optional = ["the"]
"#;
    let problems = load(&with_kinds(bad)).unwrap_err();
    for expected in [
        "kind `region`: variant `dept of` of `department` is not one other word",
        "kind `top_n`: `optional` does not apply to type integer",
    ] {
        assert!(problems.contains(expected), "missing {expected:?} in:\n{problems}");
    }
}

#[test]
fn a_built_in_kind_declared_with_its_type_keeps_its_name_and_takes_the_declaration() {
    let text = format!(
        "{HEAD}\n{GOOD_KINDS}\n[kinds.agency]\ntype = \"dictionary\"\nlabel = \"ministry\"\n\
         values = [{{ value = \"Ministry of Magic\", aliases = [\"^MoM\"] }}]\n\n[params]\n\
         region = {{ kind = \"region\" }}\nperiod = {{ kind = \"period\" }}\n\
         top_n = {{ kind = \"top_n\" }}\nagency = {{ kind = \"agency\" }}\n{INTENT}"
    );
    let registry = load(&text).unwrap();
    assert_eq!(registry.kind_named("agency"), Some(ParamKind::Agency));
    let spec = registry.kind_spec(ParamKind::Agency).unwrap();
    assert_eq!(spec.label, "ministry");
    assert_eq!(spec.body.ty(), KindType::Dictionary);
    // A built-in kind the registry does not declare has no declaration.
    assert!(registry.kind_spec(ParamKind::Naics).is_none());
}

/// A list's value or alias holding one of the list's context words would take that word from
/// every other value ("family rooms" hid every room type): it is a located problem.
#[test]
fn a_list_alias_may_not_hold_its_context_word() {
    let kinds = GOOD_KINDS.replace(
        "[kinds.top_n]",
        r#"[kinds.room_type]
type = "list"
context = ["rooms", "room types"]
values = [
  { value = "family", aliases = ["family rooms"] },
  { value = "deluxe", aliases = ["deluxe suites"] },
]

[kinds.top_n]"#,
    );
    let report = load(&with_kinds(&kinds)).unwrap_err();
    assert!(
        report.contains(
            "kind `room_type`: `family rooms` (of `family`) holds the context word `rooms`"
        ),
        "{report}"
    );
    assert_eq!(report.lines().count(), 1, "{report}");
    let fixed = kinds.replace(r#"aliases = ["family rooms"]"#, r#"aliases = ["families"]"#);
    load(&with_kinds(&fixed)).unwrap();
}

/// The SQL's result columns are the intent's `columns`: their count and, where the text names a
/// column (an alias, a column, a function), its name at each place.
#[test]
fn a_select_whose_columns_differ_from_columns_is_reported() {
    let registry = |sql: &str| {
        with_kinds(GOOD_KINDS)
            .replace("SELECT o.region, count(*) AS orders FROM shop.orders AS o", sql)
    };
    let renamed = load(&registry("SELECT o.region, count(*) AS n FROM shop.orders AS o"));
    let report = renamed.unwrap_err();
    assert!(
        report.contains(
            "intent `sales`: the SQL's column 2 is named `n`, `columns` lists `orders` there"
        ),
        "{report}"
    );
    let short = load(&registry("SELECT o.region FROM shop.orders AS o")).unwrap_err();
    assert!(short.contains("the SQL returns 1 column(s), `columns` lists 2"), "{short}");
    // Names PostgreSQL gives: a column's own, a function's, a cast's operand's; an expression
    // without one is not judged.
    load(&registry("SELECT o.region::text, count(*) AS \"orders\" FROM shop.orders AS o")).unwrap();
    load(&registry("SELECT region, count(*) AS ORDERS FROM shop.orders AS o")).unwrap();
    load(&registry("SELECT upper(o.region) AS region, (count(*) + 0) FROM shop.orders AS o"))
        .unwrap();
    let function = load(&registry("SELECT o.region, sum(o.qty) FROM shop.orders AS o"));
    assert!(function.unwrap_err().contains("column 2 is named `sum`"));
}

#[test]
fn fan_out_relative_periods_and_case_are_checked() {
    // The defaults: fan-out 10; relative periods only with the data's date.
    let registry = load(&with_kinds(GOOD_KINDS)).unwrap();
    assert_eq!(registry.fan_out(), planner_registry::DEFAULT_FAN_OUT);
    let period = registry.kind_spec(registry.kind_named("period").unwrap()).unwrap();
    assert!(matches!(period.body, planner_registry::KindBody::DateRange { relative: false, .. }));
    let with_as_of = with_kinds(GOOD_KINDS).replacen(
        "node_cap = 6",
        "node_cap = 6\nfan_out = 3\nas_of = { plane = \"shop\", sql = \"SELECT s.as_of FROM shop.snapshot AS s\" }",
        1,
    );
    let registry = load(&with_as_of).unwrap();
    assert_eq!(registry.fan_out(), 3);
    // A default period relative to the data's date ("the last 7 days") needs its `as_of`.
    let week = r#"{ name = "period", default = ["@D-6d", "@D+1d"] }"#;
    let relative_default =
        with_as_of.replace(r#"{ name = "period", default = ["-infinity", "infinity"] }"#, week);
    assert!(relative_default.contains(week));
    load(&relative_default).unwrap();
    let without = with_kinds(GOOD_KINDS)
        .replace(r#"{ name = "period", default = ["-infinity", "infinity"] }"#, week);
    let problems = load(&without).unwrap_err();
    assert!(problems.contains("a relative bound is read against the data's date"), "{problems}");
    let malformed = with_as_of.replace(
        r#"{ name = "period", default = ["-infinity", "infinity"] }"#,
        r#"{ name = "period", default = ["@X", "@D"] }"#,
    );
    assert!(load(&malformed).unwrap_err().contains("expected [start, end]"));
    let period = registry.kind_spec(registry.kind_named("period").unwrap()).unwrap();
    assert!(matches!(period.body, planner_registry::KindBody::DateRange { relative: true, .. }));

    let bad = with_kinds(
        r#"
[kinds.region]
type = "dictionary"
case = "upper"
values = [{ value = "x" }]

[kinds.period]
type = "date_range"
relative = true

[kinds.top_n]
type = "integer"
cues = ["top"]
case = "any"
"#,
    );
    let problems = load(&bad).unwrap_err();
    for message in [
        "kind `region`: unknown `case = \"upper\"`: expected \"any\"",
        "kind `period`: `relative = true` resolves \"last year\" against the data's date, and the registry has no `as_of`",
        "kind `top_n`: `case` does not apply to type integer",
    ] {
        assert!(problems.contains(message), "missing {message:?} in:\n{problems}");
    }
    for fan_out in ["0", "101", "-1"] {
        let text = with_kinds(GOOD_KINDS).replacen(
            "node_cap = 6",
            &format!("node_cap = 6\nfan_out = {fan_out}"),
            1,
        );
        let problems = load(&text).unwrap_err();
        assert!(problems.contains("fan_out must be from 1 to 100"), "{problems}");
    }
}

/// A shape's `\` written in double quotes is a TOML escape error: the message says to write the
/// shape in single quotes.
#[test]
fn a_shape_escape_in_double_quotes_says_to_use_single_quotes() {
    let kinds = GOOD_KINDS.replace(
        "[kinds.top_n]",
        "[kinds.account]\ntype = \"code\"\nshape = \"\\AC-99999\"\n\n[kinds.top_n]",
    );
    let problems = load(&with_kinds(&kinds)).unwrap_err();
    assert!(problems.contains("written in single quotes: shape = '\\AC-99999'"), "{problems}");
}
