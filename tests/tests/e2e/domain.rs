//! A second domain from files alone: the retail registry (`fixtures/domains/retail`) declares
//! its own kinds, its schema and data come from its own SQL, and the same `planner` binary
//! answers it with `--registry` and DATABASE_URL. No Rust line knows the domain.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;
use sqlx::PgPool;

use crate::harness;

fn domain(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/domains").join(name)
}

fn registry(name: &str) -> String {
    domain(name).join("registry.toml").display().to_string()
}

fn planner(args: &[&str], url: Option<&str>, stdin: &str) -> Output {
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(harness::planner_bin());
    command
        .args(args)
        .env("PLANNER_RUNTIME_PASSWORD", harness::runtime_password())
        .env("PLANNER_DATA_DIR", data.path())
        .env("PLANNER_LOG", "warn");
    if let Some(url) = url {
        command.env("DATABASE_URL", url);
    }
    harness::run_with_stdin(&mut command, stdin)
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("stdout is not one JSON object ({err}): {output:?}"))
}

/// Loads the domain's schema and data into the (migrated) database of `pool`.
async fn load_domain(pool: &PgPool) {
    for file in ["migrations/0001_schema.sql", "seed.sql"] {
        let sql = std::fs::read_to_string(domain("retail").join(file)).unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(pool).await.unwrap();
    }
}

fn ask(url: &str, question: &str, stdin: &str) -> Value {
    let tenant = planner_dataset::DEMO_TENANTS[0].id.to_string();
    let registry = registry("retail");
    json(&planner(
        &["ask", "--json", "--registry", &registry, "--tenant", &tenant, question],
        Some(url),
        stdin,
    ))
}

fn rows(answer: &Value, intent: &str) -> usize {
    answer["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|it| it["intent"] == intent)
        .unwrap_or_else(|| panic!("no evidence of {intent}: {answer}"))["rows"]
        .as_array()
        .map_or(0, Vec::len)
}

#[sqlx::test]
async fn the_retail_domain_is_answered_from_its_registry_file(pool: PgPool) {
    harness::seed(&pool).await;
    load_domain(&pool).await;
    let url = harness::url_of(&pool).await;

    // A dictionary with a CSV alias, a date range and an integer after a cue.
    let top = ask(&url, "Top 5 products in the Pacific Northwest in Q1 2025?", "");
    assert_eq!(top["route"], "single", "{top}");
    let node = &top["plan"]["nodes"][0];
    assert_eq!(node["intent"], "top_products", "{top}");
    assert_eq!(node["args"]["top_n"], 5, "{top}");
    assert_eq!(node["args"]["period"], serde_json::json!(["2025-01-01", "2025-04-01"]), "{top}");
    assert_eq!(rows(&top, "top_products"), 5, "{top}");

    // A quoted customer name.
    let orders = ask(&url, "Order history of \"Blue Harbor Cafe\" in 2024", "");
    assert_eq!(orders["plan"]["nodes"][0]["args"]["customer"], "Blue Harbor Cafe", "{orders}");
    assert!(rows(&orders, "customer_orders") > 0, "{orders}");

    // A code from the product list, after its cue.
    let sku = first_sku(&pool).await;
    let stock = ask(&url, &format!("Stock levels for SKU {}", sku.to_lowercase()), "");
    assert_eq!(stock["plan"]["nodes"][0]["args"]["sku"], sku, "{stock}");
    assert!(rows(&stock, "stock_levels") > 0, "{stock}");

    // A window bound by a duration kind of days is told in days, up to the data's date.
    let trend = ask(&url, "Daily sales trend over the last 14 days", "");
    assert_eq!(trend["plan"]["nodes"][0]["intent"], "recent_sales_trend", "{trend}");
    assert_eq!(trend["plan"]["nodes"][0]["args"]["window_days"], 14, "{trend}");
    let text = trend["text"].as_str().unwrap();
    assert!(text.starts_with("Recent sales trend over the 14 days to 20"), "{text}");

    // A missing value is asked for with the kind's label (in the `needs_input` object a script
    // reads), and the answer on stdin is read by the same extractors.
    let tenant = planner_dataset::DEMO_TENANTS[0].id.to_string();
    let registry = registry("retail");
    let args = [
        "ask",
        "--json",
        "--registry",
        &registry,
        "--tenant",
        &tenant,
        "What were sales by region in 2024?",
    ];
    let needs = json(&planner(&args, Some(&url), ""));
    assert_eq!(needs["question"], "Which region do you mean?", "{needs}");
    let output = planner(&args, Some(&url), "New England\n");
    let clarified = json(&output);
    assert_eq!(clarified["plan"]["nodes"][0]["args"]["region"], "northeast", "{clarified}");
    assert_eq!(rows(&clarified, "sales_by_region"), 12, "{clarified}");

    // A question the registry cannot answer is told what it can, from the file's `help`.
    let weather = ask(&url, "What will the weather be tomorrow?", "");
    assert_eq!(weather["route"], "unplannable", "{weather}");
    assert!(weather["text"].as_str().unwrap().contains("sales by region"), "{weather}");
}

async fn first_sku(pool: &PgPool) -> String {
    let (sku,): (String,) =
        sqlx::query_as("SELECT p.sku FROM retail.product AS p ORDER BY p.sku LIMIT 1")
            .fetch_one(pool)
            .await
            .unwrap();
    sku
}

/// The corpus scores, from `planner eval --json`, the registry read with its `examples` or
/// without them.
fn eval(name: &str, corpus: &str, examples: bool) -> Value {
    let registry = registry(name);
    let path = domain(name).join("eval").join(corpus).display().to_string();
    let mut args = vec!["eval", "--json", "--registry", &registry, &path];
    if !examples {
        args.insert(2, "--without-examples");
    }
    if let Some(date) = data_date(name) {
        args.splice(2..2, ["--as-of", date]);
    }
    json(&planner(&args, None, ""))
}

/// The date of each domain's data (its seed's snapshot, the `as_of` its registry reads): a
/// corpus writes "last month" as the days it means then, and the eval compares it so. The help
/// desk has no data.
fn data_date(name: &str) -> Option<&'static str> {
    Some(match name {
        "courier" => "2025-11-15",
        "distributor" => "2025-08-31",
        "fitness" | "veterinary" | "waste" => "2025-10-31",
        "pharmacy" => "2025-11-30",
        "grain" => "2025-11-14",
        "retail" => "2025-06-30",
        "schools" => "2025-05-30",
        "airline" | "construction" | "healthcare" | "insurance" | "manufacturing" | "property"
        | "rental" | "restaurants" | "saas" | "transit" | "utility" | "library" | "solar" => {
            "2025-09-30"
        }
        _ => return None,
    })
}

/// The floors are the scores measured on the corpora (the domains' READMEs): a regression gate,
/// not the targets. The `first-sight*.jsonl` corpora were written blind (from the registries
/// alone) and their questions never read while changing the planner; only the newest retail
/// ones (`first-sight-11`, `first-sight-12`) are still first sight, run once on the code that
/// added them. The older ones had their scores printed after changes (retail `first-sight-3`
/// also had its failing ids, expected and planned intents printed once by this test), so they
/// are regression corpora, not blind measures. `dev*.jsonl` (retail's `dev-seen.jsonl`, retail
/// `dev-4` and `dev-7` and helpdesk `dev-5` were written blind, then read) are development
/// corpora.
/// Helpdesk has a registry, a schema and a corpus, no data: it is planned, not answered.
///
/// Healthcare, schools, saas and transit are domains written by people who read only the
/// README, the registry crate's docs and `fixtures/domains/retail/`, and their corpora by people
/// who read only the domain's README: `first-sight.jsonl` (100 questions, blind, first sight on
/// `d044f99` before any change of their round, never read), `people.jsonl` (40 questions about
/// people, half to refuse: first sight on `d044f99`, then read as development corpora for the
/// screen), `people-2.jsonl` (40 more, never read, but their counts were watched while the screen
/// changed: regression corpora) and `people-3.jsonl` (40 more, never read, run once on the
/// round's final screen). The second round: `people-dev.jsonl` to `people-dev-3.jsonl` (40
/// each, read: development corpora), `people-4.jsonl` (40, never read, first sight on
/// `ed84bf1`, then counts watched), `people-5.jsonl` (40, never read, first sight once the
/// round's first changes were in, then counts watched) and `people-6.jsonl` (40, never read,
/// run once on the round's final screen). `false_refusals` is the most a corpus may have: on
/// the older retail and helpdesk blind corpora, four of the five are questions ranking workers
/// labelled unplannable before the screen refused such rankings (counted by the refusal's
/// reason; the questions were not read). Courier's
/// `dev.jsonl` was written with its registry, by its author (a development corpus, its README's
/// scores).
///
/// Manufacturing and utility are the third round's pair, written the same way:
/// `first-sight.jsonl` (100 each, blind, first sight on `aa41978`, never read; counts watched
/// since) and `people-7.jsonl` (40 each about people, half to refuse, blind, run once on the
/// round's final screen). Each of the six unseen domains has a `dev-unplannable.jsonl` (30, written from the
/// README by someone who never saw the code, then read: development corpora) of questions no
/// intent answers, most naming a known value. Property management and a restaurant group are
/// the fourth round's pair: `first-sight.jsonl` (100 each, blind, first sight on `a442a46`),
/// `dev.jsonl` and `people-dev.jsonl` (60 and 30, written from the README by a third person, then
/// read); schools' `people-8.jsonl` is the round's blind people corpus. A car rental company
/// and a property-and-casualty insurer's claims operation are the fifth round's pair, written
/// the same way: `first-sight.jsonl` (100 each, blind, first sight on `91f47f6`) and `dev.jsonl`
/// (60 each, read); restaurants' `people-9.jsonl` (40, blind) is the round's people corpus.
/// A regional airline's operations and a construction general contractor are the sixth round's
/// pair: `first-sight.jsonl` (100 each, blind, first sight on `fb0f0ad`) and `dev.jsonl` (60
/// each, read); rental's `people-10.jsonl` (40, blind, first sight on `d7159e1`) is the round's
/// people corpus. A veterinary hospital group and a wholesale beer, wine and spirits
/// distributor are the seventh round's pair, written the same way: `first-sight.jsonl` (100
/// each, blind, first sight on `74ac22b`) and `dev.jsonl` (60 each, read); veterinary's
/// `people-11.jsonl` (40, blind) is the round's people corpus. A chain of fitness clubs and a
/// grain cooperative are the eighth round's pair: `first-sight.jsonl` (100 each, blind, first
/// sight on `0b5ee13`) and `dev.jsonl` (60 each, read); grain's `people-12.jsonl` (40, blind)
/// is the round's people corpus. A solid-waste hauler and a retail pharmacy chain are the ninth
/// round's pair: `first-sight.jsonl` (100 each, blind, first sight on `f967cdc`) and
/// `dev.jsonl` (60 each, read); pharmacy's `people-13.jsonl` (40, blind) is the round's people
/// corpus. A county library system and a residential solar installer are the tenth round's
/// pair: `first-sight.jsonl` (100 each, blind, first sight on `3d5913f`) and `dev.jsonl` (60
/// each, read); solar's `people-14.jsonl` (40, blind) is the round's people corpus. Every row
/// reads the
/// registry without its `examples` (`--without-examples`): what the registry's other words
/// alone plan.
#[test]
fn the_other_domains_corpora_keep_their_scores() {
    for (name, file, intent_floor, route_floor, args_floor, refusal_floor, false_refusals) in [
        ("retail", "first-sight-18.jsonl", 0.94, 0.97, 0.98, 1.0, 0),
        ("retail", "first-sight-17.jsonl", 1.0, 0.97, 1.0, 0.75, 0),
        ("retail", "first-sight-16.jsonl", 0.97, 0.97, 1.0, 1.0, 0),
        ("retail", "first-sight-15.jsonl", 0.98, 0.99, 1.0, 1.0, 0),
        ("retail", "first-sight-14.jsonl", 0.94, 0.95, 1.0, 1.0, 0),
        ("retail", "first-sight-13.jsonl", 0.94, 0.92, 1.0, 0.87, 0),
        ("retail", "first-sight-12.jsonl", 0.9, 0.91, 1.0, 0.87, 0),
        ("retail", "first-sight-11.jsonl", 0.95, 0.96, 1.0, 1.0, 1),
        ("retail", "first-sight-10.jsonl", 0.92, 0.95, 0.99, 1.0, 0),
        ("retail", "first-sight-9.jsonl", 0.91, 0.95, 1.0, 1.0, 1),
        ("retail", "first-sight-7.jsonl", 0.94, 0.94, 0.99, 1.0, 0),
        ("retail", "first-sight-6.jsonl", 0.94, 0.94, 1.0, 0.87, 0),
        ("retail", "first-sight-4.jsonl", 0.98, 0.95, 0.99, 1.0, 0),
        ("retail", "first-sight-3.jsonl", 0.96, 0.97, 1.0, 1.0, 0),
        ("retail", "first-sight-2.jsonl", 0.96, 0.96, 1.0, 1.0, 0),
        ("retail", "dev-seen.jsonl", 0.98, 0.98, 1.0, 1.0, 0),
        ("retail", "dev.jsonl", 1.0, 0.95, 1.0, 1.0, 0),
        ("retail", "dev-2.jsonl", 0.97, 0.96, 1.0, 1.0, 0),
        ("retail", "dev-3.jsonl", 1.0, 0.98, 1.0, 1.0, 0),
        ("retail", "dev-4.jsonl", 1.0, 0.99, 1.0, 1.0, 0),
        ("retail", "dev-5.jsonl", 1.0, 0.97, 1.0, 1.0, 0),
        ("retail", "dev-6.jsonl", 0.98, 0.99, 1.0, 1.0, 0),
        ("retail", "dev-7.jsonl", 0.95, 0.97, 1.0, 1.0, 0),
        ("retail", "dev-8.jsonl", 1.0, 1.0, 1.0, 1.0, 0),
        ("retail", "dev-9.jsonl", 1.0, 1.0, 1.0, 1.0, 0),
        ("retail", "dev-10.jsonl", 0.98, 0.98, 0.99, 1.0, 0),
        ("retail", "dev-11.jsonl", 0.98, 0.99, 0.99, 1.0, 0),
        ("retail", "dev-12.jsonl", 1.0, 0.99, 1.0, 1.0, 0),
        ("retail", "dev-13.jsonl", 0.97, 0.96, 1.0, 1.0, 0),
        ("retail", "dev-14.jsonl", 0.94, 0.96, 1.0, 1.0, 0),
        ("helpdesk", "first-sight-6.jsonl", 0.87, 0.9, 0.98, 1.0, 1),
        ("helpdesk", "first-sight-5.jsonl", 0.85, 0.87, 0.99, 1.0, 1),
        ("helpdesk", "first-sight-3.jsonl", 0.94, 0.96, 1.0, 0.83, 0),
        ("helpdesk", "first-sight-2.jsonl", 0.88, 0.9, 1.0, 1.0, 1),
        ("helpdesk", "first-sight.jsonl", 0.95, 0.96, 1.0, 1.0, 0),
        ("helpdesk", "dev.jsonl", 1.0, 1.0, 1.0, 1.0, 0),
        ("helpdesk", "dev-2.jsonl", 1.0, 0.98, 0.98, 1.0, 0),
        ("helpdesk", "dev-3.jsonl", 0.96, 0.97, 1.0, 1.0, 0),
        ("helpdesk", "dev-4.jsonl", 0.97, 0.93, 1.0, 1.0, 0),
        ("helpdesk", "dev-5.jsonl", 0.94, 0.93, 0.98, 0.87, 0),
        ("helpdesk", "dev-6.jsonl", 0.9, 0.9, 0.99, 1.0, 0),
        ("helpdesk", "dev-7.jsonl", 0.95, 0.96, 0.97, 1.0, 0),
        ("helpdesk", "dev-8.jsonl", 0.94, 0.96, 0.98, 1.0, 0),
        ("helpdesk", "dev-9.jsonl", 0.9, 0.92, 0.99, 1.0, 0),
        ("healthcare", "first-sight.jsonl", 0.75, 0.85, 0.79, 0.91, 0),
        ("healthcare", "people.jsonl", 1.0, 0.92, 0.73, 1.0, 0),
        ("healthcare", "people-2.jsonl", 0.73, 0.77, 1.0, 0.9, 4),
        ("healthcare", "people-3.jsonl", 0.76, 0.82, 1.0, 0.85, 0),
        ("healthcare", "people-dev.jsonl", 0.61, 0.85, 1.0, 1.0, 0),
        ("healthcare", "people-dev-2.jsonl", 0.61, 0.8, 1.0, 1.0, 2),
        ("healthcare", "people-dev-3.jsonl", 0.84, 0.77, 1.0, 0.75, 0),
        ("healthcare", "people-4.jsonl", 0.76, 0.82, 0.95, 0.9, 1),
        ("healthcare", "people-5.jsonl", 0.69, 0.62, 1.0, 0.75, 3),
        ("healthcare", "people-6.jsonl", 0.76, 0.77, 0.94, 0.9, 2),
        ("saas", "first-sight.jsonl", 0.75, 0.83, 0.9, 1.0, 0),
        ("saas", "people.jsonl", 0.8, 0.85, 0.94, 1.0, 0),
        ("saas", "people-2.jsonl", 0.73, 0.82, 0.94, 0.95, 3),
        ("saas", "people-3.jsonl", 0.58, 0.87, 0.95, 1.0, 2),
        ("saas", "people-dev.jsonl", 0.84, 0.82, 1.0, 0.9, 1),
        ("saas", "people-dev-2.jsonl", 0.46, 0.72, 1.0, 0.9, 1),
        ("saas", "people-dev-3.jsonl", 0.46, 0.75, 1.0, 0.95, 1),
        ("saas", "people-4.jsonl", 0.76, 0.82, 0.94, 0.9, 0),
        ("saas", "people-5.jsonl", 0.69, 0.7, 1.0, 0.75, 2),
        ("saas", "people-6.jsonl", 0.53, 0.62, 1.0, 0.7, 0),
        ("schools", "first-sight.jsonl", 0.87, 0.83, 0.93, 0.91, 2),
        ("schools", "people.jsonl", 0.73, 0.8, 0.94, 0.95, 0),
        ("schools", "people-2.jsonl", 0.75, 0.82, 0.96, 0.95, 0),
        ("schools", "people-3.jsonl", 0.81, 0.85, 0.96, 0.95, 3),
        ("schools", "people-dev.jsonl", 0.92, 0.85, 1.0, 0.9, 0),
        ("schools", "people-dev-2.jsonl", 0.76, 0.82, 0.96, 0.95, 1),
        ("schools", "people-dev-3.jsonl", 0.92, 0.75, 0.95, 0.85, 1),
        ("schools", "people-4.jsonl", 0.84, 0.77, 1.0, 0.8, 0),
        ("schools", "people-5.jsonl", 0.76, 0.65, 0.94, 0.7, 4),
        ("schools", "people-6.jsonl", 0.53, 0.67, 0.93, 0.85, 3),
        ("transit", "first-sight.jsonl", 0.64, 0.71, 0.93, 0.91, 1),
        ("transit", "people.jsonl", 0.64, 0.85, 1.0, 1.0, 0),
        ("transit", "people-2.jsonl", 0.5, 0.75, 0.85, 0.9, 3),
        ("transit", "people-3.jsonl", 0.76, 0.85, 0.94, 0.9, 1),
        ("transit", "people-dev.jsonl", 0.92, 0.87, 0.85, 1.0, 0),
        ("transit", "people-dev-2.jsonl", 0.53, 0.72, 0.92, 1.0, 1),
        ("transit", "people-dev-3.jsonl", 0.69, 0.7, 0.94, 0.9, 2),
        ("transit", "people-4.jsonl", 0.76, 0.82, 0.93, 0.95, 2),
        ("transit", "people-5.jsonl", 0.53, 0.75, 1.0, 0.95, 1),
        ("transit", "people-6.jsonl", 0.69, 0.8, 0.88, 0.9, 2),
        ("courier", "dev.jsonl", 1.0, 0.96, 1.0, 1.0, 0),
        ("manufacturing", "first-sight.jsonl", 0.88, 0.84, 0.99, 0.83, 0),
        ("utility", "first-sight.jsonl", 0.77, 0.77, 0.71, 0.75, 0),
        ("manufacturing", "dev-unplannable.jsonl", 0.8, 0.73, 1.0, 1.0, 0),
        ("utility", "dev-unplannable.jsonl", 1.0, 0.66, 1.0, 1.0, 0),
        ("healthcare", "dev-unplannable.jsonl", 0.8, 0.63, 1.0, 1.0, 0),
        ("saas", "dev-unplannable.jsonl", 0.7, 0.7, 1.0, 1.0, 0),
        ("schools", "dev-unplannable.jsonl", 0.8, 0.6, 0.93, 1.0, 0),
        ("transit", "dev-unplannable.jsonl", 0.6, 0.53, 1.0, 1.0, 0),
        ("manufacturing", "people-7.jsonl", 0.75, 0.85, 1.0, 0.9, 1),
        ("utility", "people-7.jsonl", 0.64, 0.8, 1.0, 0.85, 1),
        ("schools", "people-8.jsonl", 0.63, 0.8, 0.93, 0.92, 1),
        ("property", "first-sight.jsonl", 0.62, 0.71, 0.95, 0.83, 0),
        ("property", "dev.jsonl", 0.72, 0.75, 0.86, 1.0, 1),
        ("property", "people-dev.jsonl", 0.88, 0.9, 1.0, 0.95, 1),
        ("restaurants", "first-sight.jsonl", 0.72, 0.68, 0.89, 0.66, 0),
        ("restaurants", "dev.jsonl", 0.69, 0.7, 1.0, 1.0, 0),
        ("restaurants", "people-dev.jsonl", 0.8, 0.96, 1.0, 1.0, 0),
        ("restaurants", "people-9.jsonl", 0.68, 0.82, 1.0, 0.95, 2),
        ("rental", "first-sight.jsonl", 0.87, 0.79, 0.98, 0.83, 0),
        ("rental", "dev.jsonl", 0.66, 0.7, 0.96, 0.87, 0),
        ("insurance", "first-sight.jsonl", 0.8, 0.78, 0.92, 1.0, 1),
        ("insurance", "dev.jsonl", 0.77, 0.78, 0.8, 1.0, 1),
        ("airline", "first-sight.jsonl", 0.83, 0.85, 0.97, 1.0, 1),
        ("airline", "dev.jsonl", 0.72, 0.78, 0.94, 1.0, 0),
        ("construction", "first-sight.jsonl", 0.88, 0.78, 0.95, 0.83, 1),
        ("construction", "dev.jsonl", 0.91, 0.86, 0.89, 0.87, 0),
        ("rental", "people-10.jsonl", 0.86, 0.82, 0.93, 0.9, 2),
        ("veterinary", "first-sight.jsonl", 0.72, 0.8, 1.0, 0.91, 0),
        ("veterinary", "dev.jsonl", 0.75, 0.83, 0.97, 1.0, 1),
        ("veterinary", "people-11.jsonl", 0.76, 0.92, 1.0, 1.0, 0),
        ("distributor", "first-sight.jsonl", 0.91, 0.85, 0.92, 1.0, 1),
        ("distributor", "dev.jsonl", 0.91, 0.85, 0.96, 1.0, 2),
        ("fitness", "first-sight.jsonl", 0.79, 0.8, 0.94, 1.0, 1),
        ("fitness", "dev.jsonl", 0.91, 0.86, 0.92, 0.87, 0),
        ("grain", "first-sight.jsonl", 0.7, 0.72, 0.91, 0.75, 1),
        ("grain", "dev.jsonl", 0.89, 0.85, 0.94, 0.87, 0),
        ("grain", "people-12.jsonl", 0.62, 0.8, 0.95, 0.9, 3),
        ("waste", "first-sight.jsonl", 0.88, 0.79, 0.85, 1.0, 0),
        ("waste", "dev.jsonl", 0.76, 0.7, 0.9, 1.0, 0),
        ("pharmacy", "first-sight.jsonl", 0.87, 0.79, 0.98, 0.75, 2),
        ("pharmacy", "dev.jsonl", 0.94, 0.83, 0.93, 1.0, 1),
        ("pharmacy", "people-13.jsonl", 0.87, 0.9, 1.0, 1.0, 1),
        ("library", "first-sight.jsonl", 0.75, 0.8, 0.94, 0.83, 0),
        ("library", "dev.jsonl", 0.72, 0.81, 0.93, 1.0, 0),
        ("solar", "first-sight.jsonl", 0.82, 0.8, 0.95, 0.83, 2),
        ("solar", "dev.jsonl", 0.83, 0.8, 0.95, 0.87, 1),
        ("solar", "people-14.jsonl", 0.76, 0.77, 1.0, 0.9, 2),
    ] {
        let floors = (intent_floor, route_floor, args_floor, refusal_floor, false_refusals);
        assert_floors(&format!("{name}/{file}"), &eval(name, file, false), floors);
    }
}

/// Each figure of `scores` at or above its floor (intent set exact, route accuracy, args exact,
/// refusal recall), and no more false refusals than the last.
#[track_caller]
fn assert_floors(corpus: &str, scores: &Value, floors: (f64, f64, f64, f64, u64)) {
    let (intent, route, args, refusal, false_refusals) = floors;
    let figure = |key: &str| scores[key].as_f64().unwrap();
    // The figures only: a blind corpus's failures (its labels) stay out of the log.
    let said: serde_json::Map<String, Value> = [
        "total",
        "route_accuracy",
        "intent_set_exact",
        "args_exact",
        "refusal_recall",
        "false_refusals",
        "route_confusion",
    ]
    .into_iter()
    .map(|key| (key.to_owned(), scores[key].clone()))
    .collect();
    let said = Value::Object(said);
    assert!(scores["total"].as_u64().unwrap() >= 24, "{corpus}: {said}");
    assert!(figure("intent_set_exact") >= intent, "{corpus}: {said}");
    assert!(figure("route_accuracy") >= route, "{corpus}: {said}");
    assert!(figure("args_exact") >= args, "{corpus}: {said}");
    assert!(scores["false_refusals"].as_u64().unwrap() <= false_refusals, "{corpus}: {said}");
    assert!(figure("refusal_recall") >= refusal, "{corpus}: {said}");
}

/// The six unseen domains' registries carry `examples` written from each domain's README alone
/// (at most five an intent, never from a corpus), and the restaurant group's, the car rental
/// company's, the insurer's, the airline's, the contractor's, the veterinary group's, the
/// distributor's, the fitness chain's, the grain cooperative's, the waste hauler's and the
/// library system's their authors' own (the pharmacy chain's and the solar installer's
/// registries have none):
/// their blind `first-sight.jsonl` scores with the examples read, as floors. [`the_other_domains_corpora_keep_their_scores`] reads the same
/// registries without them.
#[test]
fn the_unseen_domains_first_sight_with_their_examples() {
    for (name, floors) in [
        ("manufacturing", (0.9, 0.83, 0.99, 0.83, 0)),
        ("utility", (0.82, 0.8, 0.71, 0.75, 0)),
        ("healthcare", (0.82, 0.87, 0.79, 0.91, 0)),
        ("saas", (0.75, 0.79, 0.9, 1.0, 0)),
        ("schools", (0.88, 0.85, 0.92, 1.0, 2)),
        ("transit", (0.66, 0.71, 0.93, 1.0, 1)),
        ("restaurants", (0.72, 0.67, 0.89, 0.66, 0)),
        ("rental", (0.88, 0.81, 0.98, 0.83, 0)),
        ("insurance", (0.8, 0.77, 0.92, 1.0, 1)),
        ("airline", (0.83, 0.8, 0.97, 1.0, 1)),
        ("construction", (0.83, 0.77, 0.95, 0.83, 1)),
        ("veterinary", (0.75, 0.79, 0.98, 0.91, 0)),
        ("distributor", (0.9, 0.84, 0.91, 1.0, 1)),
        ("fitness", (0.82, 0.82, 0.94, 1.0, 1)),
        ("grain", (0.7, 0.72, 0.91, 0.75, 1)),
        ("waste", (0.88, 0.81, 0.85, 1.0, 0)),
        ("pharmacy", (0.87, 0.79, 0.98, 0.75, 2)),
        ("library", (0.82, 0.79, 0.91, 0.83, 0)),
        ("solar", (0.82, 0.8, 0.95, 0.83, 2)),
    ] {
        let scores = eval(name, "first-sight.jsonl", true);
        assert_floors(&format!("{name}/first-sight.jsonl"), &scores, floors);
    }
}

/// "that order" points at an identifier kind by its label's noun ("order id"): the user is
/// asked which one, not for a customer whose orders to list.
#[test]
fn an_identifier_pointed_at_by_its_label_noun_is_asked_for() {
    for question in ["What was in that order?", "what's on my order"] {
        let plan = json(&planner(
            &["plan", "--json", "--registry", &registry("retail"), "--", question],
            None,
            "",
        ));
        assert_eq!(plan["route"], "clarify", "{question}: {plan}");
        assert_eq!(plan["missing"], serde_json::json!(["order_id"]), "{question}: {plan}");
        assert_eq!(plan["question_to_user"], "Which order id do you mean?", "{question}: {plan}");
    }
}

/// What `planner plan --json` makes of `question` on a domain's registry: its route and the
/// intents its plan runs.
fn plan(name: &str, question: &str) -> (String, Vec<String>) {
    let plan = json(&planner(
        &["plan", "--json", "--registry", &registry(name), "--", question],
        None,
        "",
    ));
    // A clarification's intents are those waiting for the user's value.
    let (list, field) = match plan["route"].as_str() {
        Some("clarify") => (&plan["dropped"], "intent"),
        _ => (&plan["plan"]["nodes"], "intent"),
    };
    let intents = list.as_array().unwrap();
    let intents = intents.iter().map(|node| node[field].as_str().unwrap().to_owned()).collect();
    (plan["route"].as_str().unwrap().to_owned(), intents)
}

/// The proposer reads another domain by its registry alone: a question of values only is about
/// the one intent that requires a distinctive kind given and takes every value (but not when it
/// says a word the registry does not); a value of a kind only a few intents take anchors a pick
/// with no decisive term; a time word is heard where an intent lists it ("each month"), not
/// inside the window ("the past month"); a short word the registry knows is never corrected; a
/// term only one intent names or lists ("daily") mentions half its name; an ask whose decisive
/// term picks nothing falls back to the distinctive value when it says no unknown word; an ask
/// whose param a chosen intent provides is not scored down for needing a provider; an ask beside
/// picks that a distinctive value decides stands, and a decisive ask that picks nothing falls
/// back beside picks too; the words of a value are neither unknown words nor an ask; a keyword
/// of several words is heard whole where dropping its stop word would leave a common word; a
/// lone pick that takes none of the question's distinctive values gives way to the intent
/// requiring one (staying beside it when it takes a rare value the other does not), and so does
/// an ask of several holding an anchor value no pick takes; a kind's declared words are known
/// words; values beside a foreign ask or a quantity beside an unknown word plan nothing; a
/// framing phrase ends where an ask opens in it; an ask waiting for a provider stands once a
/// pick that gave way provides; an ask beside others whose pick lacks a value falls back to a
/// given distinctive one; a thing pointed at by its cue word ("my incident") with no value is
/// what a question is about, unless the cue qualifies the pick's name ("our ticket volume"); a
/// foreign verb is never corrected; "I need" opens an ask; an unanswered ask referring back
/// ("they") that names what it wants joins as a dependant; a negated verb is its "un-" keyword;
/// a word of how a thing is doing ("performance") leaves its values to decide; a superlative the
/// registry does not say asks for the top, unless it orders ("highest first"); a ranked
/// dictionary's placing words ("upward") are known words; a code kind's cue word ("product")
/// beside an intent the question's values bind that lists the thing asks for that list, and names
/// no dependant; "each" refers back, and a term only one intent lists names it; of the intents a
/// lone value anchors, the one taking exactly the values given is asked; and the screen refuses a
/// people noun's protected attribute even when a column is named by it (`age_days`).
#[test]
fn the_proposer_reads_other_domains_by_their_registry_alone() {
    for (name, question, route, intents) in [
        ("retail", "List platinum members in the Southwest", "single", &["tier_customers"][..]),
        // Channels given say channel mix, not sales by region.
        (
            "retail",
            "Compare store vs online sales in the Southeast during 2024",
            "single",
            &["channel_mix"],
        ),
        // A term only one intent lists, said of what the first ask gave.
        (
            "retail",
            "What did \"Cedar Valley Provisions\" buy in 2024, and what was in each of those orders?",
            "plan",
            &["customer_orders", "order_detail"],
        ),
        // A ranking ask is answered by an intent that ranks, though a total takes more of
        // its values; a kind's label after its value ("region") is part of the value.
        (
            "retail",
            "Which goods brought in the most in the Mountain West region in 2024?",
            "single",
            &["top_products"],
        ),
        (
            "retail",
            "Who spent the most with us in the Southeast region during 2024?",
            "single",
            &["top_customers"],
        ),
        // A pick lacking a value, in a question of words the registry does not know that
        // names no one thing of the missing kind, asks for something else: unplannable.
        ("retail", "What is the average delivery time for web orders?", "unplannable", &[]),
        ("helpdesk", "How many contractors work on the network team?", "unplannable", &[]),
        // Named by a title word, by a person noun or by a label noun, the thing is asked for.
        (
            "retail",
            "How many of the pour-over drippers are in stock?",
            "clarify",
            &["stock_levels"],
        ),
        (
            "helpdesk",
            "which tickets did the new hire in payroll submit?",
            "clarify",
            &["requester_tickets"],
        ),
        ("retail", "Which lines did order number 88 contain?", "clarify", &["order_detail"]),
        // A lone pick lacking a value the question names nothing of gives way to the intent
        // requiring the one thing it does name ("the order").
        ("retail", "The status and the lines of the order, please", "clarify", &["order_detail"]),
        // An ask whose pick takes a rare value said inside it stands beside a stronger ask.
        (
            "retail",
            "compare web vs wholesale revenue in Q3 2024, then daily takings for the last 10 days",
            "plan",
            &["channel_mix", "recent_sales_trend"],
        ),
        // An attribute the pick itself lists is no second ask.
        (
            "retail",
            "gold tier customers and up in the Southeast, with their lifetime spend",
            "single",
            &["tier_customers"],
        ),
        (
            "retail",
            "What's the weather going to be in the Pacific Northwest this weekend?",
            "unplannable",
            &[],
        ),
        (
            "retail",
            "How do sales through B2B and marketplaces compare in FY2024?",
            "single",
            &["channel_mix"],
        ),
        (
            "retail",
            "How have daily sales looked in the Midwest over the past month?",
            "single",
            &["recent_sales_trend"],
        ),
        (
            "helpdesk",
            "How many tickets did the network team open each month in 2025?",
            "single",
            &["ticket_volume"],
        ),
        (
            "helpdesk",
            "Tickets nobody has touched in 30 days on the identity team",
            "single",
            &["stale_tickets"],
        ),
        (
            "helpdesk",
            "List every ticket \"Priya Raman\" logged in 2025",
            "single",
            &["requester_tickets"],
        ),
        (
            "retail",
            "Daily revenue for the last 60 days, company-wide",
            "single",
            &["recent_sales_trend"],
        ),
        ("retail", "How is CF-1002 selling in 2025?", "single", &["product_sales"]),
        (
            "retail",
            "Who were the top 3 customers in 2024, and what did they order?",
            "plan",
            &["top_customers", "customer_orders"],
        ),
        (
            "retail",
            "Stock for TE-2004 and its sales since January 2025",
            "plan",
            &["product_sales", "stock_levels"],
        ),
        ("helpdesk", "List requesters by age who opened P1 tickets", "refused", &[]),
        // The words of a value are the value: "since February" is no word the registry lacks.
        (
            "retail",
            "How has TE-2005 been selling since February 2025?",
            "single",
            &["product_sales"],
        ),
        // A keyword said whole whose stop word, dropped, would leave a word every intent has.
        ("helpdesk", "How many new tickets came in during Q3 2025?", "single", &["ticket_volume"]),
        // A decisive ask that picks nothing falls back to its value beside another pick too.
        (
            "retail",
            "How did CF-1004 sell from June to August 2024? Also how much is left in stock.",
            "plan",
            &["product_sales", "stock_levels"],
        ),
        // The words of a declared list's values are the value, not an ask ("resolved").
        (
            "helpdesk",
            "status breakdown per team: open vs on hold vs resolved",
            "single",
            &["status_counts"],
        ),
        // A lone pick that takes none of the question's distinctive values gives way to the
        // intent requiring one, the one taking most of the values first.
        ("helpdesk", "what is the status of request REQ-100233?", "single", &["ticket_detail"]),
        (
            "helpdesk",
            "What has gone wrong with printer PR-50011 since January 2025?",
            "single",
            &["asset_tickets"],
        ),
        // A courtesy is no word the registry lacks either.
        ("retail", "list our platinum members pls", "single", &["tier_customers"]),
        // A kind's declared words (a list's context word "compare") are the registry's; values
        // alone, with a rare optional kind among them, are about the one intent taking them.
        (
            "retail",
            "How do the web shop and wholesale compare in the Midwest?",
            "single",
            &["channel_mix"],
        ),
        // Values beside an ask for something else entirely are no question of values alone.
        ("retail", "Please translate 'flat white' into French", "unplannable", &[]),
        // A quantity beside an unknown word asks about the unknown thing.
        ("retail", "How many baristas work in the Midwest?", "unplannable", &[]),
        // A lone pick taking a rare value the intent it gives way to does not stays beside it.
        (
            "helpdesk",
            "P2 tickets still open, and anything idle for 2 weeks",
            "plan",
            &["open_backlog", "stale_tickets"],
        ),
        // In a pick of several, the ask holding an anchor value no pick takes gives way.
        (
            "helpdesk",
            "what did \"Ana Ruiz\" raise this year, and what's the status of ticket INC-200100?",
            "plan",
            &["ticket_detail", "requester_tickets"],
        ),
        // A framing phrase ends where an ask opens inside it ("show").
        (
            "helpdesk",
            "For the service desk in 2025 show ticket volume per month, SLA breaches and resolution times",
            "plan",
            &["ticket_volume", "sla_breaches", "resolution_times"],
        ),
        // An ask beside a pick that gave way stands once the new pick provides what it needs.
        (
            "helpdesk",
            "For ticket INC-300200, what's the status, and what else was logged against that same machine?",
            "plan",
            &["ticket_detail", "asset_tickets"],
        ),
        // An unanswered ask referring back, naming what it wants, is a dependant...
        (
            "helpdesk",
            "Who is DT-10058 assigned to, and what tickets have they raised?",
            "plan",
            &["requester_tickets", "asset_info"],
        ),
        // An unanswered ask that says "each" and names nothing asks it of each row: the one
        // intent requiring what the pick provides, when the ask says a word of it...
        (
            "distributor",
            "Best 4 SKUs this year and the month by month for each one",
            "plan",
            &["top_skus", "sku_sales"],
        ),
        // ... and not a word of nothing the registry holds.
        (
            "distributor",
            "Best 4 SKUs this year and the shelf price of each one",
            "single",
            &["top_skus"],
        ),
        // A kind's label after a name the registry does not know, in a place phrase ("in the
        // dayton warehouse"), says where, not what: the unknown thing asked is still unknown.
        (
            "distributor",
            "what's our on-hand stock of Buckeye Brewing in the dayton warehouse?",
            "unplannable",
            &[],
        ),
        // A property the registry never says (WordNet's `noun.attribute`: a price, a size) of
        // a thing it knows is a figure no intent holds, as money is.
        ("pharmacy", "what's the retail price at Fairview", "unplannable", &[]),
        // An ask pointing back ("their stock") at things its values alone name (a count, a
        // class, a month): the values are the ask of the intent providing those things.
        (
            "pharmacy",
            "top 4 statins in March and their stock on hand",
            "plan",
            &["top_dispensed_drugs", "drug_stock"],
        ),
        // A kind's label pointed back at after a code ("at that elevator", "its depot") is the
        // value the code's intent hands over, not an ask for the intent named by the label...
        (
            "grain",
            "PC-10042 - delivered so far, and how full are the bins at that elevator",
            "plan",
            &["bin_inventory", "contract_detail"],
        ),
        // ... unless an intent has it beside another word of the ask.
        (
            "transit",
            "V-5013: its record, and the fleet at its depot",
            "plan",
            &["vehicle_detail", "depot_fleet"],
        ),
        // Both ends of a kind told apart by role are what runs between them: picks taking one
        // station, which would bind neither end, give way to the intent taking both.
        ("airline", "Spokane to Portland on-time by month", "single", &["route_scorecard"]),
        (
            "airline",
            "Boise -> Seattle: on-time and traffic each month",
            "single",
            &["route_scorecard"],
        ),
        // ... but "who raised it" asks for a value the pick provides.
        (
            "helpdesk",
            "case INC-300200: who raised it, and is it resolved?",
            "single",
            &["ticket_detail"],
        ),
        // A negated verb is its "un-" keyword; "the latest on" asks for updates.
        (
            "helpdesk",
            "anything the network team hasn't touched in 10 days?",
            "single",
            &["stale_tickets"],
        ),
        ("helpdesk", "what's the latest on INC-300201", "single", &["ticket_detail"]),
        // A thing pointed at by its cue word with no value is what the question is about.
        (
            "helpdesk",
            "Could you look into my incident? still no reply",
            "clarify",
            &["ticket_detail"],
        ),
        // ... but not where the cue word qualifies what the pick is named by.
        (
            "helpdesk",
            "hello, what is our weekly ticket volume for 2025?",
            "single",
            &["ticket_volume"],
        ),
        // A foreign ask is never corrected into a registry word ("predict" is not "product").
        ("retail", "Predict next quarter's revenue for the Midwest", "unplannable", &[]),
        // "I need" opens an ask inside a framing phrase.
        (
            "helpdesk",
            "For the service desk in 2025 I need ticket volume per month, SLA breaches and resolution times",
            "plan",
            &["ticket_volume", "sla_breaches", "resolution_times"],
        ),
        (
            "helpdesk",
            "list requesters on the network team who are foreign nationals",
            "refused",
            &[],
        ),
        // An ask beside others whose pick lacks a value falls back to a given distinctive one.
        (
            "retail",
            "Stock levels and monthly sales for TE-2004 during 2025",
            "plan",
            &["product_sales", "stock_levels"],
        ),
        // How a thing is doing, said of the thing alone: its values decide.
        ("retail", "How is PA-5001 doing in Q3 2024?", "single", &["product_sales"]),
        ("retail", "BR-3002 performance since May 2024", "single", &["product_sales"]),
        // A superlative the registry does not say asks for the top; "highest first" orders.
        ("retail", "Name the 3 heaviest spenders of 2023", "single", &["top_customers"]),
        ("retail", "top customers by spend in 2024, highest first", "single", &["top_customers"]),
        // The words that place a value of a ranked dictionary are known words.
        ("retail", "gold upward in the Northeast", "single", &["tier_customers"]),
        ("retail", "Are we running low on CF-1002?", "single", &["stock_levels"]),
        (
            "retail",
            "\"Blue Door Cafe\": everything they picked up in 2024",
            "single",
            &["customer_orders"],
        ),
        ("retail", "Which shoppers have been diagnosed with cancer?", "refused", &[]),
        // A cue word names the thing: beside an intent listing that thing, it asks for it.
        (
            "retail",
            "which products and what quantities were on order 1b4e28ba-2fa1-11d2-883f-0016d3cca427",
            "single",
            &["order_detail"],
        ),
        (
            "retail",
            "order 1b4e28ba-2fa1-11d2-883f-0016d3cca427's lines, and how much of each product is in stock",
            "plan",
            &["stock_levels", "order_detail"],
        ),
        // "each" refers back; a term only one intent lists names it.
        (
            "retail",
            "The top 3 SKUs of 2025 and how much of each sits in the warehouse",
            "plan",
            &["top_products", "stock_levels"],
        ),
        // A keyword of three stop words is heard whole ("what was in"): a chain of three.
        (
            "retail",
            "The top 4 customers of 2024, their orders and what was in each of them",
            "plan",
            &["top_customers", "customer_orders", "order_detail"],
        ),
        // Money coming in, and clients, said in other words.
        ("retail", "what did the Southeast bring in during 2024?", "single", &["sales_by_region"]),
        (
            "retail",
            "our most valuable clients in the Midwest in 2025",
            "single",
            &["top_customers"],
        ),
        // A modifier's strong pick stands beside a weak ask.
        (
            "helpdesk",
            "per department printing ticket counts in 2025, with how many are still open",
            "single",
            &["department_tickets"],
        ),
        // Common paraphrases fold to the registry's words where it says them.
        (
            "retail",
            "which goods earned the most in the Southwest during 2024?",
            "single",
            &["top_products"],
        ),
        ("retail", "Is TE-2003 moving this year?", "single", &["product_sales"]),
        ("retail", "money handed back to shoppers in Q2 2025", "single", &["returns_summary"]),
        ("retail", "How did that territory do in 2024?", "clarify", &["sales_by_region"]),
        // A name's kind is pointed at by the nouns its plane's people go by, too.
        ("retail", "What did that shopper buy in Q3 2024?", "clarify", &["customer_orders"]),
        (
            "helpdesk",
            "Which cases did this technician log in 2025?",
            "clarify",
            &["requester_tickets"],
        ),
        // A measure the registry does not know, of a thing it knows, is not that thing's
        // intent; an unknown thing before the known words is what the user is asked for.
        ("retail", "What is the average basket size for wholesale orders?", "unplannable", &[]),
        (
            "retail",
            "Do we have enough of the cold brew in the depots?",
            "clarify",
            &["stock_levels"],
        ),
        // An identifier only one intent requires says what words the registry does not know
        // ask for.
        (
            "retail",
            "What's in the box for 76c90bcb-76ad-4e35-b13b-003bdd57a96d?",
            "single",
            &["order_detail"],
        ),
        (
            "helpdesk",
            "anything \"Noah Kim\" has reported to IT lately",
            "single",
            &["requester_tickets"],
        ),
        // A lone pick lacking a value gives way to the intent an identifier given requires.
        ("retail", "Sales history for TE-2003 in 2024", "single", &["product_sales"]),
        // A party outside the business no intent names is no ask an intent answers.
        ("retail", "Which supplier do we get our cold brew from?", "unplannable", &[]),
        // "How quickly" is how fast; "at the moment" is now.
        (
            "helpdesk",
            "How quickly does the NOC get tickets resolved?",
            "single",
            &["resolution_times"],
        ),
        ("helpdesk", "Who has PH-40016 at the moment?", "single", &["asset_info"]),
        // Picking out a worker by a measure is refused, whatever the trade (invariant 5).
        ("retail", "Which cashier sold the most in 2024?", "refused", &[]),
        ("helpdesk", "Which technician resolved the most tickets in 2025?", "refused", &[]),
        // What "we still have" is stock.
        (
            "retail",
            "List what order 76c90bcb-76ad-4e35-b13b-003bdd57a96d held, and how much of it we still have",
            "plan",
            &["stock_levels", "order_detail"],
        ),
        ("retail", "Which customers are owned by Christians?", "refused", &[]),
        // Known words that pick nothing leave the values to decide.
        ("retail", "monthly figures for TE-2002, Q1 2025", "single", &["product_sales"]),
        // A count's own ask says how many, not what; "details" names the order's lines.
        ("retail", "Biggest customers in the Southwest, top 4", "single", &["top_customers"]),
        (
            "retail",
            "Orders of \"Blue Door Cafe\" in 2024 and the details of each one",
            "plan",
            &["customer_orders", "order_detail"],
        ),
        (
            "retail",
            "How much of our money comes from the web shop versus marketplaces?",
            "single",
            &["channel_mix"],
        ),
        ("retail", "revenue split by the shoppers' country of birth", "refused", &[]),
        // A firm word just before a person qualifies the person.
        ("helpdesk", "ticket counts by the ethnicity of the assigned technician", "refused", &[]),
        // "what's the story" leaves the ticket to decide; "the ticket we raised" points.
        ("helpdesk", "REQ-120455 - what's the story?", "single", &["ticket_detail"]),
        ("helpdesk", "where is the ticket we raised last week?", "clarify", &["ticket_detail"]),
        // Of the intents a lone value anchors, the one taking exactly the values given.
        ("helpdesk", "who has LT-20503 right now?", "single", &["asset_info"]),
        // "nothing" is no misspelt registry word.
        (
            "helpdesk",
            "stale tickets for the network team, nothing in 30 days",
            "single",
            &["stale_tickets"],
        ),
    ] {
        let (got_route, got_intents) = plan(name, question);
        let got_intents: Vec<&str> = got_intents.iter().map(String::as_str).collect();
        assert_eq!((got_route.as_str(), &got_intents[..]), (route, intents), "{name}: {question}");
    }
}
