//! The declared kinds' matchers, through [`crate::Extractor`] over a small registry.

use planner_registry::{ParamKind, Registry, Value};
use proptest::prelude::*;
use proptest::sample::select;

use crate::{Extraction, Extractor, Problem, Span};

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

[kinds.vendor]
type = "code"
shape = "XXXXXXXX"
cues = ["vendor"]
bare = "mixed"

[kinds.shipment]
type = "code"
shape = "SH-999999"
bare = "mixed"

[kinds.agreement]
type = "code"
shape = 'R\A-9999999'
bare = "mixed"

[kinds.channels]
type = "list"
context = ["via", "through", "channels"]
values = [{ value = "online", aliases = ["web"] }, { value = "store", aliases = ["in store", "stores"] }, { value = "wholesale" }, { value = "b2b", aliases = ["B2B"] }, { value = "travel_agents", aliases = ["OTAs", "agencies"] }]

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
vendor = { kind = "vendor" }
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

/// The registry and plane every small test registry below starts with.
const SHOP: &str = r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["shop"]

[planes]
shop = { tenant = false, schemas = ["shop"] }
"#;

/// A test registry of [`SHOP`] and `kinds_and_params`.
fn shop_registry(kinds_and_params: &str) -> Registry {
    Registry::from_toml(&format!("{SHOP}{kinds_and_params}"), "test.toml")
        .expect("the test registry loads")
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
fn an_ampersand_is_the_word_and() {
    let registry = shop_registry(
        r#"[kinds.utility]
type = "dictionary"
label = "utility"
values = [
  { value = "sdge", aliases = ["SDG&E", "san diego gas and electric"] },
  { value = "hhs", aliases = ["health and human services"] },
]

[params]
utility = { kind = "utility" }
"#,
    );
    let x = Extractor::new(&registry);
    for question in
        ["PTO times for SDG&E", "sdg & e queue", "San Diego Gas & Electric", "SDG and E, 2024"]
    {
        assert_eq!(
            value(&registry, &x.extract(question), "utility"),
            Some(text("sdge")),
            "{question}"
        );
    }
    // Not ASCII elsewhere in the question: the same reading.
    let found = x.extract("Health & Human Services – 2024’s spend");
    assert_eq!(value(&registry, &found, "utility"), Some(text("hhs")));
    let span = found.params[0].span;
    assert_eq!(
        &"Health & Human Services – 2024’s spend"[span.start..span.end],
        "Health & Human Services"
    );
    assert_eq!(value(&registry, &x.extract("SDG&&E"), "utility"), None);
}

#[test]
fn numbers_are_read_whole() {
    let registry = shop_registry(
        r#"[kinds.window]
type = "duration"
label = "window"
unit = "month"

[kinds.industry]
type = "code"
label = "industry code"
shape = "999999"
cues = ["naics"]

[kinds.top_n]
type = "integer"
label = "count"
cues = ["top"]

[params]
window = { kind = "window" }
industry = { kind = "industry" }
top_n = { kind = "top_n" }
"#,
    );
    let x = Extractor::new(&registry);
    let months = |question: &str| value(&registry, &x.extract(question), "window");
    // A tens word and a unit word are one number.
    assert_eq!(months("a twenty-four month window"), Some(Value::Int(24)));
    assert_eq!(months("over the last thirty six months"), Some(Value::Int(36)));
    assert_eq!(months("the past forty-eight months"), Some(Value::Int(48)));
    // A decimal length is read where it is a whole number of the unit.
    assert_eq!(months("spend over the past 1.5 years"), Some(Value::Int(18)));
    assert_eq!(months("a 2.5 quarter stretch"), None);
    assert_eq!(months("awards over 2.5 years"), Some(Value::Int(30)));
    // "A quarter of" things is a fraction of them; "a quarter" alone is a length.
    assert_eq!(months("a quarter of our accounts churned"), None);
    assert_eq!(months("spend over a quarter"), Some(Value::Int(3)));
    // A count and its unit written as one word.
    assert_eq!(months("awards, last 18mo"), Some(Value::Int(18)));
    assert_eq!(months("a 2yrs window"), Some(Value::Int(24)));
    assert_eq!(months("the 3rd one"), None);
    // No part of a larger number is a code or a count of its own, nor is an amount a code.
    let industry = |question: &str| value(&registry, &x.extract(question), "industry");
    assert_eq!(industry("naics 541512"), Some(text("541512")));
    for question in ["naics 541512.5", "naics 1,541,512", "naics $541512", "naics 541512,000"] {
        assert_eq!(industry(question), None, "{question}");
    }
    assert_eq!(value(&registry, &x.extract("top 2.5 percent"), "top_n"), None);
    assert_eq!(value(&registry, &x.extract("top 5, by spend"), "top_n"), Some(Value::Int(5)));
}

#[test]
fn a_code_that_mixes_letters_and_digits_needs_no_cue_with_bare_mixed() {
    let (r, x) = extractor();
    assert_eq!(
        value(&r, &x.extract("orders from ab12cd34 lately"), "vendor"),
        Some(text("AB12CD34"))
    );
    // Letters alone, or digits alone, could be a word or a number: a cue must say so.
    assert_eq!(value(&r, &x.extract("orders from ABCDEFGH lately"), "vendor"), None);
    assert_eq!(value(&r, &x.extract("orders from 12345678 lately"), "vendor"), None);
    assert_eq!(value(&r, &x.extract("vendor ABCDEFGH orders"), "vendor"), Some(text("ABCDEFGH")));
    assert_eq!(value(&r, &x.extract("vendor 12345678 orders"), "vendor"), Some(text("12345678")));
    // Without `bare`, a mixed code still needs its cue.
    assert_eq!(value(&r, &x.extract("stock of ab-1234"), "sku"), None);
    // A shape's literal letters count: every `SH-999999` code mixes.
    assert_eq!(value(&r, &x.extract("Where is SH-107919?"), "shipment"), Some(text("SH-107919")));
    assert_eq!(value(&r, &x.extract("where is sh-107919"), "shipment"), Some(text("SH-107919")));
    // `\A` is a literal A: `R\A-9999999` takes RA- and seven digits, and no other letter.
    assert_eq!(value(&r, &x.extract("show ra-1234567"), "agreement"), Some(text("RA-1234567")));
    assert_eq!(value(&r, &x.extract("show RB-1234567"), "agreement"), None);
}

#[test]
fn an_ordered_value_is_its_own_words_with_or_above_after_it() {
    let (r, x) = extractor();
    let found = x.extract("customers at gold or above");
    assert_eq!(value(&r, &found, "tier"), Some(text("gold")));
    // The span is the value's words, as a built-in clearance level's is ("Top Secret or above").
    assert_eq!(found.params[0].span.text("customers at gold or above"), "gold");
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
fn lists_only_in_context() {
    let (r, x) = extractor();
    let list = |values: &[&str]| Some(Value::List(values.iter().map(|&v| v.to_owned()).collect()));
    let found = x.extract("orders via web, wholesale and in store");
    assert_eq!(value(&r, &found, "channels"), list(&["online", "store", "wholesale"]));
    assert_eq!(value(&r, &x.extract("online orders"), "channels"), None);
    // A context word after the list.
    let found = x.extract("compare web and wholesale channels");
    assert_eq!(value(&r, &found, "channels"), list(&["online", "wholesale"]));
    assert_eq!(
        found.params[0].span.text("compare web and wholesale channels"),
        "web and wholesale"
    );
    // Values said in two places of one question are one list, in the kind's order.
    let found = x.extract("orders via wholesale last month, then the same via web");
    assert_eq!(value(&r, &found, "channels"), list(&["online", "wholesale"]));
    assert!(!found.is_ambiguous(r.kind_named("channels").unwrap()));
    // Capitals joined by slashes are a list by their notation; lower case, or one value, is not.
    assert_eq!(
        value(&r, &x.extract("ONLINE/STORE orders"), "channels"),
        list(&["online", "store"])
    );
    // In lower case the slash is no notation, but a value that names a thing ("store", a
    // noun) is read as it is anywhere, and the values joined to it with it; an adjective alone
    // ("online") needs its context.
    assert_eq!(
        value(&r, &x.extract("online/store orders"), "channels"),
        list(&["online", "store"])
    );
    assert_eq!(value(&r, &x.extract("ONLINE orders"), "channels"), None);
    assert_eq!(value(&r, &x.extract("ONLINE, STORE orders"), "channels"), None);
    // Values compared are a list wherever they stand; "of" may follow the context word.
    assert_eq!(
        value(&r, &x.extract("how do online versus store orders do"), "channels"),
        list(&["online", "store"])
    );
    assert_eq!(
        value(&r, &x.extract("wholesale against in store, since May"), "channels"),
        list(&["store", "wholesale"])
    );
    // A noun may follow a value compared with others.
    assert_eq!(
        value(&r, &x.extract("wholesale accounts versus web in 2024"), "channels"),
        list(&["online", "wholesale"])
    );
    // A value that names a thing is read without them.
    assert_eq!(
        value(&r, &x.extract("wholesale accounts in 2024"), "channels"),
        list(&["wholesale"])
    );
    // Values written as terms ("B2B", "OTAs") are a list without a context word.
    assert_eq!(
        value(&r, &x.extract("cancellation rate for OTAs"), "channels"),
        list(&["travel_agents"])
    );
    assert_eq!(
        value(&r, &x.extract("B2B and OTAs revenue"), "channels"),
        list(&["b2b", "travel_agents"])
    );
    assert_eq!(value(&r, &x.extract("b2b revenue"), "channels"), list(&["b2b"]));
    // In ordinary writing, a value whose word names a thing (a noun, or a word English does
    // not know) is read too, and the values joined to it.
    let agents = list(&["travel_agents"]);
    assert_eq!(value(&r, &x.extract("cancellation rate for otas"), "channels"), agents);
    assert_eq!(value(&r, &x.extract("cancellation rate for agencies"), "channels"), agents);
    assert_eq!(
        value(&r, &x.extract("B2B and agencies revenue"), "channels"),
        list(&["b2b", "travel_agents"])
    );
    // An article may open a value after its joiner.
    assert_eq!(
        value(&r, &x.extract("sales through the web versus the stores"), "channels"),
        list(&["online", "store"])
    );
    assert_eq!(
        value(&r, &x.extract("wholesale compared with the web in 2024"), "channels"),
        list(&["online", "wholesale"])
    );
    assert_eq!(
        value(&r, &x.extract("web vs. wholesale in 2024"), "channels"),
        list(&["online", "wholesale"])
    );
    assert_eq!(
        value(&r, &x.extract("a split via the web, wholesale and store"), "channels"),
        list(&["online", "store", "wholesale"])
    );
    assert_eq!(
        value(&r, &x.extract("orders by channels of the web and store"), "channels"),
        list(&["online", "store"])
    );
}

#[test]
fn date_ranges() {
    let (r, x) = extractor();
    let cases = [
        ("sales in March 2025", range("2025-03-01", "2025-04-01")),
        ("sales during 2024", range("2024-01-01", "2025-01-01")),
        ("sales in Q3 2024", range("2024-07-01", "2024-10-01")),
        ("sales in H1 2025", range("2025-01-01", "2025-07-01")),
        ("sales in H2 FY2025", range("2024-08-01", "2025-02-01")),
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
        ("between April and June 2024", range("2024-04-01", "2024-07-01")),
        ("from June to August 2024", range("2024-06-01", "2024-09-01")),
        ("sales June through Aug 2024", range("2024-06-01", "2024-09-01")),
        ("from November to February 2025", range("2024-11-01", "2025-03-01")),
        ("Southwest, 2024: monthly revenue", range("2024-01-01", "2025-01-01")),
        ("sales in the first half of 2025", range("2025-01-01", "2025-07-01")),
        ("sales in the second half of FY2025", range("2024-08-01", "2025-02-01")),
        ("sales during the third quarter of 2024", range("2024-07-01", "2024-10-01")),
        ("sales in the last quarter of 2024", range("2024-10-01", "2025-01-01")),
        ("orders since the start of 2025", range("2025-01-01", "infinity")),
        ("orders until the end of March 2025", range("-infinity", "2025-04-01")),
        ("sales up to the end of September 2024", range("-infinity", "2024-10-01")),
        ("returns up until March 2025", range("-infinity", "2025-04-01")),
        ("from the beginning of 2024 to the end of Q1 2025", range("2024-01-01", "2025-04-01")),
        // A part of a year with no preposition before it.
        ("revenue by month, first half of 2024", range("2024-01-01", "2024-07-01")),
        ("takings, the fourth quarter of 2023", range("2023-10-01", "2024-01-01")),
        ("2nd half of FY2025 sales", range("2024-08-01", "2025-02-01")),
        ("how did it sell in 2024?", range("2024-01-01", "2025-01-01")),
        ("monthly revenue 2024", range("2024-01-01", "2025-01-01")),
        // A year qualifying the word after it.
        ("Stock levels and 2025 sales for PA-5002", range("2025-01-01", "2026-01-01")),
    ];
    for (question, expected) in cases {
        assert_eq!(value(&r, &x.extract(question), "period"), Some(expected), "{question}");
    }
    assert_eq!(value(&r, &x.extract("top 2024 sellers"), "period"), None);
    assert_eq!(value(&r, &x.extract("the best 2024 sellers"), "period"), None);
    assert_eq!(value(&r, &x.extract("stock of item XY-2005?"), "period"), None);
    assert_eq!(value(&r, &x.extract("during 2025-02-30"), "period"), None);
    // A day alone is the `date` kind's: it is listed before the range type.
    assert_eq!(value(&r, &x.extract("on 2025-03-14"), "day"), Some(text("2025-03-14")));
    // A year's century elided by an apostrophe.
    let january = range("2025-01-01", "2025-02-01");
    assert_eq!(value(&r, &x.extract("orders in Jan '25"), "period"), Some(january.clone()));
    assert_eq!(value(&r, &x.extract("orders in Jan \u{2019}25"), "period"), Some(january));
    let third = range("2024-07-01", "2024-10-01");
    assert_eq!(value(&r, &x.extract("orders in Q3 '24"), "period"), Some(third));
    // A range's words longer by a preposition ("as of") are that one day too, for an intent
    // taking a date; two such days say no one date.
    let found = x.extract("members as of 2025-01-01");
    assert_eq!(value(&r, &found, "day"), Some(text("2025-01-01")));
    assert_eq!(value(&r, &found, "period"), Some(range("2025-01-01", "2025-01-02")));
    assert_eq!(found.params[0].span, found.params[1].span);
    assert_eq!(value(&r, &x.extract("as of 2025-01-01 and as of 2025-02-01"), "day"), None);
    assert_eq!(value(&r, &x.extract("members during 2025"), "day"), None);
    for question in ["members as of 2025-01-01", "as of 2025-01-01 and as of 2025-02-01"] {
        let (mut oracle, _) = super::reference::extract(&x.declared, question, &[]);
        let mut found = x.extract(question).params;
        for mentions in [&mut oracle, &mut found] {
            mentions.sort_by_key(|it| format!("{it:?}"));
        }
        assert_eq!(found, oracle, "{question}");
    }
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
    // A number before its cue or a superlative.
    assert_eq!(value(&r, &x.extract("our 5 biggest customers"), "top_n"), Some(Value::Int(5)));
    assert_eq!(value(&r, &x.extract("the ten largest orders"), "top_n"), Some(Value::Int(10)));
    assert_eq!(value(&r, &x.extract("5 interest rates"), "top_n"), None);
    assert_eq!(value(&r, &x.extract("5, biggest first"), "top_n"), None);
    // A number after a superlative, not a year.
    assert_eq!(value(&r, &x.extract("the largest 3 accounts"), "top_n"), Some(Value::Int(3)));
    assert_eq!(value(&r, &x.extract("busiest seven stores"), "top_n"), Some(Value::Int(7)));
    assert_eq!(value(&r, &x.extract("the latest 2024 orders"), "top_n"), None);
    assert_eq!(value(&r, &x.extract("biggest, 3 of them"), "top_n"), None);
    // A number asked for by "which" whose phrase goes on to a superlative or "most".
    assert_eq!(
        value(&r, &x.extract("which 3 buyers spent the most"), "top_n"),
        Some(Value::Int(3))
    );
    assert_eq!(value(&r, &x.extract("what 4 items sold fastest"), "top_n"), Some(Value::Int(4)));
    assert_eq!(value(&r, &x.extract("which 3 orders shipped"), "top_n"), None);
    assert_eq!(value(&r, &x.extract("which 3 orders? the most recent"), "top_n"), None);
    // ... or by "the" ("the 7 customers that spent the most"), no year; before "most" too.
    assert_eq!(
        value(&r, &x.extract("the 7 customers that spent the most"), "top_n"),
        Some(Value::Int(7))
    );
    assert_eq!(value(&r, &x.extract("the 20 most popular items"), "top_n"), Some(Value::Int(20)));
    assert_eq!(value(&r, &x.extract("the 2024 most popular items"), "top_n"), None);
    assert_eq!(value(&r, &x.extract("the 3 orders shipped"), "top_n"), None);
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

/// [`REGISTRY`] with its SKUs listed in a `skus.csv` of `csv` (`code,title` lines).
fn listed_skus(csv: &str) -> (Registry, Extractor) {
    let registry = Registry::from_toml_with(
        &REGISTRY.replace(
            "cues = [\"sku\", \"product code\", \"item\"]",
            "cues = [\"sku\"]\ncsv = \"skus.csv\"",
        ),
        "test.toml",
        &|name: &str| match name {
            "skus.csv" => Ok(format!("code,title\n{csv}")),
            other => Err(format!("no file {other}")),
        },
    )
    .expect("loads");
    let x = Extractor::new(&registry);
    (registry, x)
}

#[test]
fn a_code_outside_the_list_is_kept_with_a_diagnostic() {
    let (registry, x) = listed_skus("AB-1234,Mug\nCD-0001,Kettle\n");
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
fn a_listed_code_is_named_by_its_title() {
    let (registry, x) = listed_skus(
        "AB-1234,Mug\nCD-0001,Copper Kettle\nCD-0002,Stovetop Espresso Maker\n\
         CD-0003,Stovetop Espresso Maker (6 cup)\n",
    );
    let sku = registry.kind_named("sku").unwrap();
    // A title of two words or more, quoted, in any case, is its code.
    for question in ["units of 'Copper Kettle' sold", "stock of the \"copper kettle\""] {
        assert_eq!(x.extract(question).value(sku), Some(&text("CD-0001")), "{question}");
    }
    // Unquoted, a title's words may be the question's own; a title of one word is an ordinary
    // word; part of a title names nothing.
    assert_eq!(x.extract("stock of the copper kettle").value(sku), None);
    assert_eq!(x.extract("a 'mug' of coffee").value(sku), None);
    assert_eq!(x.extract("'kettle' sales").value(sku), None);
    // A title several codes share names each: the user is asked which.
    let found = x.extract("sales of the 'Stovetop Espresso Maker'");
    assert!(found.unsure.contains(&sku), "{found:?}");
    let codes: Vec<&Value> = found.mentions(sku).map(|m| &m.value).collect();
    assert_eq!(codes, [&text("CD-0002"), &text("CD-0003")]);
    // Of those, the one whose bracketed qualifier the question says is meant.
    let found = x.extract("sales of the 6 cup 'Stovetop Espresso Maker'");
    assert_eq!(found.value(sku), Some(&text("CD-0003")), "{found:?}");
    assert!(!found.unsure.contains(&sku));
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

/// The retail domain's registry (`fixtures/domains/retail`), with its CSV files.
fn retail() -> Registry {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains/retail");
    let text = std::fs::read_to_string(dir.join("registry.toml")).expect("the retail registry");
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Registry::from_toml_with(&text, "retail/registry.toml", &files)
        .expect("the retail registry loads")
}

/// Pieces of questions: every kind's words in several cases, numbers, dates, codes, quotes,
/// separators, non-ASCII letters (one lower-casing to ASCII, one to two chars) and long words.
const PIECES: &[&str] = &[
    "Top",
    "top",
    "best",
    "5",
    "five",
    "twenty",
    "products",
    "in",
    "the",
    "Pacific Northwest",
    "pacific",
    "northwest",
    "PNW",
    "pnw",
    "NE",
    "ne",
    "New England",
    "North East",
    "South",
    "south",
    "southern region",
    "for",
    "Q1",
    "q3",
    "2025",
    "2024",
    "FY2024",
    "fy25",
    "FY",
    "fiscal",
    "year",
    "calendar",
    "via",
    "through",
    "across",
    "channels",
    "split",
    "compare",
    "web",
    "website",
    "web shop",
    "e-commerce",
    "wholesale",
    "stores",
    "in-store",
    "in store",
    "b2b",
    "marketplace",
    "third-party marketplaces",
    "and",
    "or",
    "SKU",
    "sku",
    "item",
    "product code",
    "CF-1001",
    "cf-1001",
    "AB-1234",
    "ZZ-9999",
    "AB-12345",
    "stock",
    "of",
    "\"Blue Harbor Cafe\"",
    "'Joe's Diner'",
    "“Corner Shop”",
    "«Café»",
    "‘x’",
    "\"",
    "'",
    "since",
    "March",
    "Mar",
    "sept",
    "march 14, 2025",
    "14th",
    "2025-03-14",
    "2025-02-30",
    "2024-02-29",
    "between",
    "to",
    "from",
    "on",
    "after",
    "before",
    "until",
    "up",
    "during",
    "gold",
    "or above",
    "Gold",
    "platinum",
    "vip",
    "VIPs",
    "silver members",
    "customers",
    "order",
    "0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90",
    "0B6F1C2E-58A4-4C1E-9D43-2F6C8E1A7B90",
    "last",
    "past",
    "next",
    "a",
    "an",
    "30",
    "days",
    "two weeks",
    "quarter",
    "18-month",
    "months",
    "café",
    "\u{212a}",
    "İstanbul",
    "naïve",
    "straße",
    "counterintelligence",
    "at least",
    "€",
    "Northeastsouthwestregions",
    "vs",
    "versus",
    "of",
    "H1",
    "h2",
];

const SEPARATORS: &[&str] =
    &[" ", " ", " ", ", ", ". ", "-", "", "/", " & ", " + ", "? ", "'s ", ":"];

fn question() -> impl Strategy<Value = String> {
    let piece = (select(PIECES), select(SEPARATORS));
    prop_oneof![
        4 => proptest::collection::vec(piece, 0..40).prop_map(|pieces| {
            pieces.into_iter().map(|(p, s)| format!("{p}{s}")).collect::<String>()
        }),
        1 => "\\PC{0,60}",
    ]
}

fn spans(len: usize) -> impl Strategy<Value = Vec<Span>> {
    proptest::collection::vec((0..=len, 0..8usize), 0..3).prop_map(|spans| {
        spans.into_iter().map(|(start, n)| Span { start, end: start + n }).collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The one-pass extraction finds exactly what every matcher tried at every word finds,
    /// with the same words, ids and flags, in both registries.
    #[test]
    fn one_pass_finds_what_every_matcher_at_every_word_finds(
        (question, taken) in question().prop_flat_map(|q| { let len = q.len(); (Just(q), spans(len)) })
    ) {
        for registry in [&*RETAIL, &*TEST] {
            let declared = &Extractor::new(registry).declared;
            let fast = super::Words::new(&question, &declared.table);
            let slow = super::reference::words(declared, &question);
            prop_assert_eq!(fast.words.len(), slow.words.len());
            for (i, (a, b)) in fast.words.iter().zip(&slow.words).enumerate() {
                prop_assert_eq!((a.start, a.end, a.id, a.flags), (b.start, b.end, b.id, b.flags));
                prop_assert_eq!(fast.lower(i), slow.lower(i));
            }
            let (mut mentions, mut diagnostics) = (Vec::new(), Vec::new());
            declared.extract(&question, &taken, &mut mentions, &mut diagnostics);
            let (expected, expected_diagnostics) =
                super::reference::extract(declared, &question, &taken);
            prop_assert_eq!(mentions, expected);
            prop_assert_eq!(diagnostics, expected_diagnostics);
        }
    }
}

static RETAIL: std::sync::LazyLock<Registry> = std::sync::LazyLock::new(retail);
static TEST: std::sync::LazyLock<Registry> = std::sync::LazyLock::new(|| extractor().0);

#[test]
fn the_retail_question_finds_every_kind() {
    let registry = retail();
    let found = Extractor::new(&registry).extract(RETAIL_300);
    let kinds: Vec<&str> = found.params.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "top_n",
            "region",
            "period",
            "channels",
            "sku",
            "customer_name",
            "period",
            "tier",
            "region",
            "order_ref",
            "days",
            "period"
        ],
        "{:?}",
        found.params
    );
    let declared = &Extractor::new(&registry).declared;
    let (expected, _) = super::reference::extract(declared, RETAIL_300, &[]);
    assert_eq!(found.params, expected);
}

/// The benchmark's question (`benches/src/inputs.rs`).
const RETAIL_300: &str = "Top 5 products in the Pacific Northwest for Q1 2025 via web and \
    wholesale, then stock for SKU CF-1001, the orders of \"Blue Harbor Cafe\" since March 2025, \
    gold or above customers in New England, order 0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90 and the \
    daily sales over the last 30 days, with FY2024 returns too";

/// Words that only one alias of a long dictionary starts with, and ids beyond 64 matchers.
#[test]
fn more_than_64_kinds() {
    let mut toml = format!("{SHOP}\n");
    let mut params = String::from("[params]\n");
    for n in 0..70 {
        toml.push_str(&format!(
            "[kinds.k{n:02}]\ntype = \"dictionary\"\nvalues = [{{ value = \"v{n}\", aliases = [\"word{n} thing\"] }}]\n\n"
        ));
        params.push_str(&format!("p{n:02} = {{ kind = \"k{n:02}\" }}\n"));
    }
    toml.push_str(&params);
    let registry = Registry::from_toml(&toml, "many.toml").expect("loads");
    let x = Extractor::new(&registry);
    // An alias's last word in the plural is the alias ("word65 things").
    let question = "word3 thing and word69 thing, word65 things, word6 thingies";
    let found = x.extract(question);
    let values: Vec<&Value> = found.params.iter().map(|m| &m.value).collect();
    assert_eq!(values, [&text("v3"), &text("v69"), &text("v65")]);
    let (expected, _) = super::reference::extract(&x.declared, question, &[]);
    assert_eq!(found.params, expected);
}

/// A plural ending an alias is read in the singular, as a noun modifying another is written
/// ("bean contracts"); singulars of `ss`, `us` and `is` words are not plurals' singulars.
#[test]
fn the_singular_of_a_plural_alias_is_the_alias() {
    let toml = r#"
[kinds.crop]
type = "dictionary"
values = [{ value = "soybeans", aliases = ["beans"] }, { value = "oats", aliases = ["oats"] }, { value = "gas", aliases = ["natural gas", "gas"] }]

[kinds.state]
type = "list"
context = ["state"]
values = [{ value = "open", aliases = ["status"] }]

[params]
crop = { kind = "crop" }
state = { kind = "state" }
"#;
    let registry = shop_registry(toml);
    let x = Extractor::new(&registry);
    for (question, expected) in [
        ("open bean contracts", vec![text("soybeans")]),
        ("bean and oat receipts", vec![text("soybeans"), text("oats")]),
        // "gas" is no plural; "statu" is no word.
        ("ga receipts, statu", vec![]),
    ] {
        let found = x.extract(question);
        let values: Vec<Value> = found.params.iter().map(|m| m.value.clone()).collect();
        assert_eq!(values, expected, "{question}");
        let (oracle, _) = super::reference::extract(&x.declared, question, &[]);
        assert_eq!(found.params, oracle, "{question}");
    }
}

#[test]
fn a_built_in_kind_declared_is_extracted_by_its_declaration_alone() {
    let toml = r#"
[kinds.agency]
type = "dictionary"
values = [{ value = "Ministry of Magic", aliases = ["^MoM"] }]

[params]
agency = { kind = "agency" }
naics = { kind = "naics" }
"#;
    let registry = shop_registry(toml);
    let x = Extractor::new(&registry);
    let found = x.extract("MoM spend under NAICS 541512");
    assert_eq!(found.value(ParamKind::Agency), Some(&text("Ministry of Magic")));
    // The built-in kind not declared keeps its built-in extractor.
    assert_eq!(found.value(ParamKind::Naics), Some(&text("541512")));
    // The built-in agency dictionary no longer answers for the kind.
    assert_eq!(x.extract("Army spend").value(ParamKind::Agency), None);
}

/// The test registry with the data's date (`as_of`), and without its duration kind when
/// `durations` is false.
fn with_as_of(durations: bool) -> (Registry, Extractor) {
    let mut text = REGISTRY.replace(
        "allowed_schemas = [\"shop\"]",
        "allowed_schemas = [\"shop\"]\nas_of = { plane = \"shop\", sql = \"SELECT s.as_of FROM shop.snapshot AS s\" }",
    );
    if !durations {
        text = text
            .replace("[kinds.window_days]\ntype = \"duration\"\nunit = \"day\"\n", "")
            .replace("window_days = { kind = \"window_days\" }\n", "");
    }
    let registry = Registry::from_toml(&text, "test.toml").expect("the test registry loads");
    let extractor = Extractor::new(&registry);
    (registry, extractor)
}

#[test]
fn relative_periods_are_read_when_the_registry_has_the_data_date() {
    let (r, x) = with_as_of(true);
    for (question, expected) in [
        ("Which carrier did we pay the most last year?", range("@Y-12m", "@Y")),
        ("sales this year", range("@Y", "@D+1d")),
        ("sales year to date", range("@Y", "@D+1d")),
        ("YTD sales", range("@Y", "@D+1d")),
        ("returns last quarter", range("@Q-3m", "@Q")),
        ("returns previous month", range("@M-1m", "@M")),
        ("sales this quarter", range("@Q", "@D+1d")),
        ("what did we sell yesterday", range("@D-1d", "@D")),
        ("sales today", range("@D", "@D+1d")),
    ] {
        assert_eq!(value(&r, &x.extract(question), "period"), Some(expected), "{question}");
        // A calendar period is not read as a length.
        assert_eq!(value(&r, &x.extract(question), "window_days"), None, "{question}");
    }
    // A window is a duration's words when the registry has a duration kind, and a
    // second reading of the same words as the period ending at the data's date, for an intent
    // that takes a period and no length...
    for (question, days, expected) in [
        ("sales in the past 6 months", 180, range("@D+1d-6m", "@D+1d")),
        ("tickets over the last 14 days", 14, range("@D+1d-14d", "@D+1d")),
        ("returns last week", 7, range("@W-7d", "@W")),
    ] {
        let found = x.extract(question);
        assert_eq!(value(&r, &found, "window_days"), Some(Value::Int(days)), "{question}");
        assert_eq!(value(&r, &found, "period"), Some(expected), "{question}");
        let [length, period] = &found.params[..] else { panic!("{question}: {found:?}") };
        assert_eq!(length.span, period.span, "{question}");
    }
    // ...unless the question says a period of its own.
    let found = x.extract("sales in 2024 and returns in the past 6 months");
    assert_eq!(value(&r, &found, "period"), Some(range("2024-01-01", "2025-01-01")));
    assert_eq!(value(&r, &found, "window_days"), Some(Value::Int(180)));
    assert_eq!(found.params.len(), 2, "{found:?}");
    // ...and a period when it has none.
    let (r, x) = with_as_of(false);
    for (question, expected) in [
        ("sales in the past 6 months", range("@D+1d-6m", "@D+1d")),
        ("sales over the last 2 years", range("@D+1d-24m", "@D+1d")),
        ("tickets in the past 14 days", range("@D+1d-14d", "@D+1d")),
        ("last year", range("@Y-12m", "@Y")),
        ("returns last week", range("@W-7d", "@W")),
        ("sales this week", range("@W", "@D+1d")),
        // "Since" a month without its year: from the latest one the data reached, open-ended.
        ("sales since August", range("@L8", "infinity")),
        ("returns starting March", range("@L3", "infinity")),
        // Units as people abbreviate them.
        ("returns last qtr", range("@Q-3m", "@Q")),
        ("sales last yr", range("@Y-12m", "@Y")),
        ("sales this mo", range("@M", "@D+1d")),
        ("sales past 6 mos", range("@D+1d-6m", "@D+1d")),
        ("tickets in the last 2 wks", range("@D+1d-14d", "@D+1d")),
    ] {
        assert_eq!(value(&r, &x.extract(question), "period"), Some(expected), "{question}");
    }
    // Fixed periods are read as before; "the last quarter of 2024" is that quarter.
    assert_eq!(
        value(&r, &x.extract("sales in the last quarter of 2024"), "period"),
        Some(range("2024-10-01", "2025-01-01"))
    );
    // Without the data's date, a relative period is not read at all.
    let (r, x) = extractor();
    assert_eq!(value(&r, &x.extract("sales last year"), "period"), None);
}

#[test]
fn a_month_named_without_its_year_is_the_latest_one_the_data_reached() {
    let (r, x) = with_as_of(true);
    for (question, expected) in [
        ("sales in August", range("@L8", "@L8+1m")),
        ("returns in may by channel", range("@L5", "@L5+1m")),
        ("sales during July and August", range("@L8-1m", "@L8+1m")),
        ("sales from November to February", range("@L2-3m", "@L2+1m")),
        ("sales for Sept-Oct", range("@L10-1m", "@L10+1m")),
        ("sales last March", range("@P3", "@P3+1m")),
        ("sales this June", range("@L6", "@L6+1m")),
        // With a year, the fixed period, as before.
        ("sales in August 2024", range("2024-08-01", "2024-09-01")),
        ("sales during July and August 2025", range("2025-07-01", "2025-09-01")),
        ("sales in March of 2024", range("2024-01-01", "2025-01-01")),
        ("sales in 2024, mostly in March", range("2024-01-01", "2025-01-01")),
    ] {
        assert_eq!(value(&r, &x.extract(question), "period"), Some(expected), "{question}");
    }
    // A month's name is not a period where it is no month ("you may", "a march") or stands
    // alone after a word that opens a range it does not close.
    for question in
        ["sales you may see", "sales from march", "sales in march 5", "sales for April Novak"]
    {
        assert_eq!(value(&r, &x.extract(question), "period"), None, "{question}");
    }
    // Without the data's date, not at all.
    let (r, x) = extractor();
    assert_eq!(value(&r, &x.extract("sales in August"), "period"), None);
}

#[test]
fn ordinary_words_written_in_capitals_match_only_in_capitals() {
    let hubs = |case: &str| {
        let text = REGISTRY.replace(
            "[kinds.tier]",
            &format!(
                "[kinds.hub]\ntype = \"dictionary\"\n{case}values = [{{ value = \"SEA\", aliases = \
                 [\"Seattle\"] }}, {{ value = \"DEN\" }}, {{ value = \"LAX\" }}, {{ value = \"ORD\" \
                 }}, {{ value = \"=ATL\" }}]\n\n[kinds.tier]"
            ),
        );
        let registry = Registry::from_toml(&text, "test.toml").expect("the test registry loads");
        let extractor = Extractor::new(&registry);
        (registry, extractor)
    };
    let (r, x) = hubs("");
    for (question, expected) in [
        ("volume by sea in 2024", None),
        ("shipments out of the den", None),
        ("lax rules on returns", None),
        ("volume out of SEA", Some(text("SEA"))),
        ("volume out of seattle", Some(text("SEA"))),
        ("volume out of LAX", Some(text("LAX"))),
        // A code that is no English word matches in any case, as before.
        ("volume out of ord", Some(text("ORD"))),
        // A value takes the markers an alias takes: `=ATL` is upper case only, value `ATL`.
        ("volume out of ATL", Some(text("ATL"))),
        ("volume out of atl", None),
        // Inside quotes any case matches.
        ("volume out of 'sea'", Some(text("SEA"))),
    ] {
        assert_eq!(value(&r, &x.extract(question), "hub"), expected, "{question}");
    }
    // `case = "any"` says otherwise.
    let (r, x) = hubs("case = \"any\"\n");
    assert_eq!(value(&r, &x.extract("volume by sea"), "hub"), Some(text("SEA")));
    assert_eq!(value(&r, &x.extract("volume out of atl"), "hub"), None);
}
