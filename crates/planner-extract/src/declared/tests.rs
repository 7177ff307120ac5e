//! The declared kinds' matchers, through [`crate::Extractor`] over a small registry.

use planner_registry::{ParamKind, Registry, Value};

use crate::{Extraction, Extractor, Problem};

const REGISTRY: &str = r#"
[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["shop"]

[planes]
shop = { tenant = false, schemas = ["shop"] }

[kinds.region]
type = "dictionary"
label = "region"
values = [
  { value = "northeast", aliases = ["north east", "new england", "=NE"] },
  { value = "pacific_northwest", aliases = ["pacific northwest", "^PNW"] },
  { value = "south", aliases = ["~South", "southern region"] },
]

[kinds.tier]
type = "dictionary"
ordered = true
values = [{ value = "bronze" }, { value = "silver" }, { value = "gold" }, { value = "platinum" }]

[kinds.sku]
type = "code"
shape = "AA-9999"
cues = ["sku", "product code", "item"]

[kinds.channels]
type = "list"
context = ["via", "through", "channels"]
values = [{ value = "online", aliases = ["web"] }, { value = "store", aliases = ["in store", "stores"] }, { value = "wholesale" }]

[kinds.period]
type = "date_range"
fiscal_year_start = 2

[kinds.window_days]
type = "duration"
unit = "day"

[kinds.top_n]
type = "integer"
cues = ["top", "at least"]

[kinds.customer]
type = "quoted_text"
max_len = 40

[kinds.order_id]
type = "uuid"

[kinds.day]
type = "date"

[params]
region = { kind = "region" }
tier = { kind = "tier" }
sku = { kind = "sku" }
channels = { kind = "channels" }
period = { kind = "period" }
window_days = { kind = "window_days" }
top_n = { kind = "top_n" }
customer = { kind = "customer" }
order_id = { kind = "order_id" }
day = { kind = "day" }
"#;

fn extractor() -> (Registry, Extractor) {
    let registry = Registry::from_toml(REGISTRY, "test.toml").expect("the test registry loads");
    let extractor = Extractor::new(&registry);
    (registry, extractor)
}

fn value(registry: &Registry, found: &Extraction, kind: &str) -> Option<Value> {
    let kind = registry.kind_named(kind).expect("a declared kind");
    found.value(kind).cloned()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_owned())
}

fn range(start: &str, end: &str) -> Value {
    Value::List(vec![start.to_owned(), end.to_owned()])
}

#[test]
fn dictionary_aliases_and_case_rules() {
    let (r, x) = extractor();
    let found = x.extract("Sales in New England and the PNW?");
    assert_eq!(found.mentions(r.kind_named("region").unwrap()).count(), 2);
    assert!(found.is_ambiguous(r.kind_named("region").unwrap()));
    assert_eq!(value(&r, &x.extract("sales in the north-east"), "region"), Some(text("northeast")));
    // `=NE` only upper case; `^PNW` needs first and last upper; `~South` capitalised mid-sentence.
    assert_eq!(value(&r, &x.extract("ne sales"), "region"), None);
    assert_eq!(value(&r, &x.extract("NE sales"), "region"), Some(text("northeast")));
    assert_eq!(value(&r, &x.extract("pnw sales"), "region"), None);
    assert_eq!(value(&r, &x.extract("Sales in the South"), "region"), Some(text("south")));
    assert_eq!(value(&r, &x.extract("South sales"), "region"), None);
    assert_eq!(value(&r, &x.extract("sales 'south'"), "region"), Some(text("south")));
    // The same value twice is not ambiguous.
    let found = x.extract("northeast vs North East");
    assert!(!found.is_ambiguous(r.kind_named("region").unwrap()));
}

#[test]
fn ordered_dictionary_takes_its_or_above() {
    let (r, x) = extractor();
    let found = x.extract("customers at gold or above");
    assert_eq!(value(&r, &found, "tier"), Some(text("gold")));
    assert_eq!(found.params[0].span.text("customers at gold or above"), "gold or above");
}

#[test]
fn codes_need_a_cue_and_the_shape() {
    let (r, x) = extractor();
    assert_eq!(value(&r, &x.extract("sales of SKU ab-1234"), "sku"), Some(text("AB-1234")));
    assert_eq!(value(&r, &x.extract("product code: XY-0001 stock"), "sku"), Some(text("XY-0001")));
    assert_eq!(value(&r, &x.extract("sales of AB-1234"), "sku"), None);
    assert_eq!(value(&r, &x.extract("sku AB-12345"), "sku"), None);
}

#[test]
fn lists_only_after_context() {
    let (r, x) = extractor();
    let found = x.extract("orders via web, wholesale and in store");
    assert_eq!(
        value(&r, &found, "channels"),
        Some(Value::List(vec!["online".into(), "store".into(), "wholesale".into()]))
    );
    assert_eq!(value(&r, &x.extract("online orders"), "channels"), None);
}

#[test]
fn date_ranges() {
    let (r, x) = extractor();
    let cases = [
        ("sales in March 2025", range("2025-03-01", "2025-04-01")),
        ("sales during 2024", range("2024-01-01", "2025-01-01")),
        ("sales in Q3 2024", range("2024-07-01", "2024-10-01")),
        ("sales 2024 Q4", range("2024-10-01", "2025-01-01")),
        ("FY2025 sales", range("2024-02-01", "2025-02-01")),
        ("sales in fiscal year 2025", range("2024-02-01", "2025-02-01")),
        ("Q1 FY2025 sales", range("2024-02-01", "2024-05-01")),
        ("since March 2025", range("2025-03-01", "infinity")),
        ("after March 2025", range("2025-04-01", "infinity")),
        ("before 2024", range("-infinity", "2024-01-01")),
        ("through March 2025", range("-infinity", "2025-04-01")),
        ("between January 2024 and March 2024", range("2024-01-01", "2024-04-01")),
        ("from Jan 2024 to Mar 2024", range("2024-01-01", "2024-04-01")),
        ("during 2025-03-14", range("2025-03-14", "2025-03-15")),
        ("during 2024-02-29", range("2024-02-29", "2024-03-01")),
        ("from March 2025 on", range("2025-03-01", "infinity")),
    ];
    for (question, expected) in cases {
        assert_eq!(value(&r, &x.extract(question), "period"), Some(expected), "{question}");
    }
    assert_eq!(value(&r, &x.extract("top 2024 sellers"), "period"), None);
    assert_eq!(value(&r, &x.extract("during 2025-02-30"), "period"), None);
    // A day alone is the `date` kind's: it is listed before the range type.
    assert_eq!(value(&r, &x.extract("on 2025-03-14"), "day"), Some(text("2025-03-14")));
}

#[test]
fn durations_integers_dates_uuids_and_quotes() {
    let (r, x) = extractor();
    assert_eq!(value(&r, &x.extract("the last 30 days"), "window_days"), Some(Value::Int(30)));
    assert_eq!(value(&r, &x.extract("past two weeks"), "window_days"), Some(Value::Int(14)));
    assert_eq!(value(&r, &x.extract("over the next quarter"), "window_days"), Some(Value::Int(90)));
    assert_eq!(value(&r, &x.extract("top 5 products"), "top_n"), Some(Value::Int(5)));
    assert_eq!(value(&r, &x.extract("top five products"), "top_n"), Some(Value::Int(5)));
    assert_eq!(value(&r, &x.extract("5 products"), "top_n"), None);
    assert_eq!(value(&r, &x.extract("orders on March 14, 2025"), "day"), Some(text("2025-03-14")));
    let id = "0B6F1C2E-58A4-4C1E-9D43-2F6C8E1A7B90";
    assert_eq!(
        value(&r, &x.extract(&format!("order {id}")), "order_id"),
        Some(text(&id.to_lowercase()))
    );
    assert_eq!(
        value(&r, &x.extract("orders of \"Blue Harbor Cafe\" please"), "customer"),
        Some(text("Blue Harbor Cafe"))
    );
    assert_eq!(
        value(&r, &x.extract("orders of 'Joe's Diner'"), "customer"),
        Some(text("Joe's Diner"))
    );
    let long = format!("\"{}\"", "x".repeat(41));
    assert_eq!(value(&r, &x.extract(&long), "customer"), None);
}

#[test]
fn no_byte_in_two_params() {
    let (_, x) = extractor();
    let question =
        "top 5 SKU AB-1234 via web in Q3 2024 for \"North East Deli\" in the NE, last 30 days";
    let found = x.extract(question);
    for pair in found.params.windows(2) {
        assert!(pair[0].span.end <= pair[1].span.start, "{:?}", found.params);
    }
    assert_eq!(found.params.len(), 7, "{:?}", found.params);
}

#[test]
fn a_code_outside_the_list_is_kept_with_a_diagnostic() {
    let registry = Registry::from_toml_with(
        &REGISTRY.replace(
            "cues = [\"sku\", \"product code\", \"item\"]",
            "cues = [\"sku\"]\ncsv = \"skus.csv\"",
        ),
        "test.toml",
        &|name: &str| match name {
            "skus.csv" => Ok("code,title\nAB-1234,Mug\nCD-0001,Kettle\n".to_owned()),
            other => Err(format!("no file {other}")),
        },
    )
    .expect("loads");
    let x = Extractor::new(&registry);
    let sku = registry.kind_named("sku").unwrap();
    // A listed code needs no cue.
    assert_eq!(x.extract("stock of cd-0001").value(sku), Some(&text("CD-0001")));
    let found = x.extract("stock of SKU ZZ-9999");
    assert_eq!(found.value(sku), Some(&text("ZZ-9999")));
    assert!(
        matches!(&found.diagnostics[..], [d] if matches!(&d.problem, Problem::NotInList { kind, .. } if *kind == sku))
    );
    let _ = ParamKind::Agency;
}

#[test]
fn no_panic_on_odd_text() {
    let (_, x) = extractor();
    for question in [
        "",
        "'",
        "\"",
        "“unclosed",
        "FY",
        "Q3",
        "between",
        "from 2024 to",
        "é'\"'",
        "sku -",
        "top",
        "\u{0}\u{ffff}",
        "2025-",
        "2025-13-01",
        "'a' 'b",
    ] {
        let _ = x.extract(question);
    }
}
