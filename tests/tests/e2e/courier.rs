//! The courier domain (`fixtures/domains/courier`) walked through as its README tells a team to:
//! an empty database, `planner db migrate`, the domain's schema and seed, `planner registry
//! check`, then `planner ask --registry` with the README's questions, on no demo data. Every
//! figure an answer shows is checked against SQL run directly on the same database, never
//! against a number written here: the fan-out over the busiest routes (once per route within the
//! registry's cap, the routes beyond it counted as left out), the optional edge from the top
//! customers to their late parcels, relative periods resolved against the data's date and said
//! in the answer, a tracking code read bare, two depots told apart by role (origin and
//! destination), and the counts-only workforce plane.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};
use sqlx::PgPool;

use crate::harness;

fn domain() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/domains/courier")
}

fn registry() -> String {
    domain().join("registry.toml").display().to_string()
}

/// `planner ARGS` against the database of `url`, as the README runs it (no `--tenant`: a team's
/// own database has no demo tenant).
fn planner(args: &[&str], url: &str) -> Output {
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(harness::planner_bin());
    command
        .args(args)
        .env("DATABASE_URL", url)
        .env("PLANNER_RUNTIME_PASSWORD", harness::runtime_password())
        .env("PLANNER_DATA_DIR", data.path())
        .env("PLANNER_LOG", "warn");
    harness::run_with_stdin(&mut command, "")
}

fn ask(url: &str, question: &str) -> Value {
    let output = planner(&["ask", "--json", "--registry", &registry(), question], url);
    assert!(output.status.success(), "{question}: {output:?}");
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!("{question}: stdout is not one JSON object ({err}): {output:?}")
    });
    assert!(answer["dropped"].as_array().is_some_and(Vec::is_empty), "{question}: {answer}");
    answer
}

/// The rows of `intent`'s evidence table, by column name.
fn table(answer: &Value, intent: &str) -> Vec<serde_json::Map<String, Value>> {
    let table = answer["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|it| it["intent"] == intent)
        .unwrap_or_else(|| panic!("no evidence of {intent}: {answer}"));
    let columns: Vec<&str> =
        table["columns"].as_array().unwrap().iter().map(|it| it.as_str().unwrap()).collect();
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            columns
                .iter()
                .zip(row.as_array().unwrap())
                .map(|(c, v)| ((*c).to_owned(), v.clone()))
                .collect()
        })
        .collect()
}

fn cell<'a>(row: &'a serde_json::Map<String, Value>, column: &str) -> &'a str {
    row.get(column).and_then(Value::as_str).unwrap_or_else(|| panic!("no {column} in {row:?}"))
}

fn intents(answer: &Value) -> Vec<&str> {
    answer["plan"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["intent"].as_str().unwrap())
        .collect()
}

fn text(answer: &Value) -> &str {
    answer["text"].as_str().unwrap()
}

/// The README's loading steps on the fresh database of `pool`: `planner db migrate` (the roles
/// and the planner's own schemas), then the domain's schema and seed, the same files the README
/// gives psql, run as the owner.
async fn load(pool: &PgPool, url: &str) {
    let migrate = planner(&["db", "migrate"], url);
    assert!(migrate.status.success(), "{migrate:?}");
    for file in ["migrations/0001_schema.sql", "seed.sql"] {
        let sql = std::fs::read_to_string(domain().join(file)).unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(pool).await.unwrap();
    }
}

/// The data's date and the first and last days of its previous calendar quarter and of its year
/// to date, as PostgreSQL computes them from `courier.snapshot`.
struct Dates {
    as_of: String,
    quarter_start: String,
    quarter_last: String,
    year_start: String,
}

async fn dates(pool: &PgPool) -> Dates {
    let (as_of, quarter_start, quarter_last, year_start): (String, String, String, String) =
        sqlx::query_as(
            "SELECT s.as_of::text,
                    (date_trunc('quarter', s.as_of) - interval '3 months')::date::text,
                    (date_trunc('quarter', s.as_of)::date - 1)::text,
                    date_trunc('year', s.as_of)::date::text
             FROM courier.snapshot AS s",
        )
        .fetch_one(pool)
        .await
        .unwrap();
    Dates { as_of, quarter_start, quarter_last, year_start }
}

#[sqlx::test]
async fn the_courier_walkthrough_answers_from_an_empty_database(pool: PgPool) {
    let url = harness::url_of(&pool).await;
    // `db status` on the empty database says it is not migrated, and changes nothing.
    let status = planner(&["db", "status"], &url);
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success() && said.contains("migrated: no"), "{status:?}");
    let (admin,): (bool,) = sqlx::query_as("SELECT to_regnamespace('admin') IS NOT NULL")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(!admin, "db status created planner's schemas");
    load(&pool, &url).await;
    let status = planner(&["db", "status"], &url);
    assert!(String::from_utf8_lossy(&status.stdout).contains("migrated: yes"), "{status:?}");
    // No demo data: the planner's schemas hold no tenant, the courier schemas the seed.
    let (tenants,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM admin.tenant").fetch_one(&pool).await.unwrap();
    assert_eq!(tenants, 0);

    // The registry checks clean: no problem, no warning.
    let check = planner(&["registry", "check", &registry()], &url);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(check.status.success(), "{check:?}");
    assert!(!said.contains("warning"), "{said}");

    let dates = dates(&pool).await;
    busiest_routes_fan_out_within_the_cap(&pool, &url, &dates).await;
    top_customers_bind_their_late_parcels(&pool, &url, &dates).await;
    a_tracking_code_is_read_bare(&pool, &url).await;
    parcels_from_one_depot_to_another(&pool, &url, &dates).await;
    couriers_are_counted_never_ranked(&pool, &url).await;
}

/// "last quarter" on both nodes; the top 8 routes fan out into `route_performance`, which runs
/// for the first 5 (the registry's `fan_out`) and says the other 3 were left out.
async fn busiest_routes_fan_out_within_the_cap(pool: &PgPool, url: &str, dates: &Dates) {
    let question = "Top 8 busiest routes last quarter and their performance month by month";
    let answer = ask(url, question);
    assert_eq!(answer["route"], "plan", "{answer}");
    assert_eq!(intents(&answer), ["busiest_routes", "route_performance"], "{answer}");
    assert_eq!(
        answer["plan"]["edges"],
        json!([{"from": "busiest_routes", "column": "route", "to": "route_performance", "param": "route"}]),
        "{answer}"
    );
    let busiest = answer["plan"]["nodes"][0]["args"].clone();
    assert_eq!(busiest["top_n"], 8, "{answer}");
    // The plan keeps the relative bounds; the run binds the dates and the answer says them.
    assert_eq!(busiest["period"], json!(["@Q-3m", "@Q"]), "{answer}");
    let said = format!(
        "\"last quarter\" is read as {} to {}, by the data's date {}.",
        dates.quarter_start, dates.quarter_last, dates.as_of
    );
    assert!(text(&answer).contains(&said), "{said} / {}", text(&answer));

    // The ranking, as SQL on the same data gives it.
    let expected: Vec<(String, i64)> = sqlx::query_as(
        "SELECT p.route_code, count(*)
         FROM courier.parcel AS p CROSS JOIN courier.snapshot AS s
         WHERE p.shipped_on >= date_trunc('quarter', s.as_of) - interval '3 months'
           AND p.shipped_on < date_trunc('quarter', s.as_of)
         GROUP BY p.route_code ORDER BY count(*) DESC, p.route_code LIMIT 8",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let shown: Vec<(String, i64)> = table(&answer, "busiest_routes")
        .iter()
        .map(|row| (cell(row, "route").to_owned(), cell(row, "parcels").parse().unwrap()))
        .collect();
    assert_eq!(shown, expected);

    // One composed table: the first five routes' months, in the upstream's order, each figure
    // SQL's.
    let performance = table(&answer, "route_performance");
    let mut ran: Vec<&str> = performance.iter().map(|row| cell(row, "route")).collect();
    ran.dedup();
    let first_five: Vec<&str> = expected.iter().take(5).map(|(route, _)| route.as_str()).collect();
    assert_eq!(ran, first_five);
    let months: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT p.route_code, to_char(p.shipped_on, 'YYYY-MM'), count(*)
         FROM courier.parcel AS p CROSS JOIN courier.snapshot AS s
         WHERE p.route_code = ANY($1)
           AND p.shipped_on >= date_trunc('quarter', s.as_of) - interval '3 months'
           AND p.shipped_on < date_trunc('quarter', s.as_of)
         GROUP BY 1, 2 ORDER BY array_position($1, p.route_code), 2",
    )
    .bind(&first_five)
    .fetch_all(pool)
    .await
    .unwrap();
    let shown: Vec<(String, String, i64)> = performance
        .iter()
        .map(|row| {
            (
                cell(row, "route").to_owned(),
                cell(row, "month").to_owned(),
                cell(row, "parcels").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(shown, months);
    assert_eq!(shown.len(), 15, "three months for each of five routes");
    assert!(
        text(&answer).contains(
            "route_performance ran once for each of the first 5 values of busiest_routes.route; \
             3 values were left out (the registry runs at most 5 values a node)."
        ),
        "{}",
        text(&answer)
    );
    // The audit row counts each run.
    let (nodes, ran): (i16, Vec<String>) =
        sqlx::query_as("SELECT node_count, intents FROM audit.answer_log ORDER BY id DESC LIMIT 1")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(nodes, 6);
    assert_eq!(ran.iter().filter(|it| *it == "route_performance").count(), 5);
}

/// "their" refers back: the optional `customer` of `late_parcels` is bound through the edge
/// from `top_customers` (without it, every customer would be listed), over the year to date.
async fn top_customers_bind_their_late_parcels(pool: &PgPool, url: &str, dates: &Dates) {
    let question =
        "Top 3 customers by revenue year to date and how many of their parcels were late";
    let answer = ask(url, question);
    assert_eq!(answer["route"], "plan", "{answer}");
    assert_eq!(intents(&answer), ["top_customers", "late_parcels"], "{answer}");
    assert_eq!(
        answer["plan"]["edges"],
        json!([{"from": "top_customers", "column": "customer", "to": "late_parcels", "param": "customer"}]),
        "{answer}"
    );
    assert_eq!(answer["plan"]["nodes"][0]["args"]["period"], json!(["@Y", "@D+1d"]), "{answer}");
    let said = format!(
        "\"year to date\" is read as {} to {}, by the data's date {}.",
        dates.year_start, dates.as_of, dates.as_of
    );
    assert!(text(&answer).contains(&said), "{said} / {}", text(&answer));

    let expected: Vec<(String, i64, i64, i64)> = sqlx::query_as(
        "WITH top AS (
             SELECT p.customer_code, sum(p.price) AS revenue
             FROM courier.parcel AS p CROSS JOIN courier.snapshot AS s
             WHERE p.shipped_on >= date_trunc('year', s.as_of) AND p.shipped_on <= s.as_of
             GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3
         )
         SELECT p.customer_code, count(*),
                count(p.delivered_on),
                count(*) FILTER (WHERE p.delivered_on > p.promised_by)
         FROM courier.parcel AS p JOIN top ON top.customer_code = p.customer_code
         CROSS JOIN courier.snapshot AS s
         WHERE p.shipped_on >= date_trunc('year', s.as_of) AND p.shipped_on <= s.as_of
         GROUP BY p.customer_code, top.revenue ORDER BY top.revenue DESC, 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let top: Vec<(String, i64)> = table(&answer, "top_customers")
        .iter()
        .map(|row| (cell(row, "customer").to_owned(), cell(row, "parcels").parse().unwrap()))
        .collect();
    assert_eq!(top, expected.iter().map(|it| (it.0.clone(), it.1)).collect::<Vec<_>>());
    // One row per top customer, in their order: the edge bound, the default did not apply.
    let late: Vec<(String, i64, i64)> = table(&answer, "late_parcels")
        .iter()
        .map(|row| {
            (
                cell(row, "customer").to_owned(),
                cell(row, "delivered").parse().unwrap(),
                cell(row, "late").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(late, expected.iter().map(|it| (it.0.clone(), it.2, it.3)).collect::<Vec<_>>());
    assert!(late.iter().all(|(_, _, late)| *late > 0), "{late:?}");
    assert!(
        text(&answer)
            .contains("late_parcels ran once for each of the 3 values of top_customers.customer."),
        "{}",
        text(&answer)
    );

    // Without a word referring back, the optional param keeps its default: every customer.
    let answer = ask(url, "Top 3 customers by revenue year to date and late parcels by customer");
    assert_eq!(intents(&answer), ["top_customers", "late_parcels"], "{answer}");
    assert_eq!(answer["plan"]["edges"], json!([]), "{answer}");
    assert_eq!(answer["plan"]["nodes"][1]["args"]["customer"], "all_customers", "{answer}");
    let (customers,): (i64,) = sqlx::query_as(
        "SELECT count(DISTINCT p.customer_code) FROM courier.parcel AS p CROSS JOIN courier.snapshot AS s
         WHERE p.shipped_on >= date_trunc('year', s.as_of) AND p.shipped_on <= s.as_of",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(i64::try_from(table(&answer, "late_parcels").len()).unwrap(), customers, "{answer}");
}

/// A tracking code needs no cue word: it holds letters and digits (`bare = "mixed"`).
async fn a_tracking_code_is_read_bare(pool: &PgPool, url: &str) {
    // The README's code, and the first parcel still in transit.
    let (moving,): (String,) = sqlx::query_as(
        "SELECT p.tracking_code FROM courier.parcel AS p WHERE p.status = 'in_transit'
         ORDER BY p.tracking_code LIMIT 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    for code in ["PX-104233".to_owned(), moving] {
        let answer = ask(url, &format!("Where is {code}?"));
        assert_eq!(answer["route"], "single", "{answer}");
        assert_eq!(intents(&answer), ["parcel_tracking"], "{answer}");
        assert_eq!(answer["plan"]["nodes"][0]["args"]["tracking"], code.as_str(), "{answer}");
        let (status, depot): (String, String) = sqlx::query_as(
            "SELECT p.status, d.name FROM courier.parcel AS p
             JOIN courier.depot AS d ON d.code = p.current_depot WHERE p.tracking_code = $1",
        )
        .bind(&code)
        .fetch_one(pool)
        .await
        .unwrap();
        let rows = table(&answer, "parcel_tracking");
        assert_eq!(rows.len(), 1, "{answer}");
        assert_eq!(cell(&rows[0], "status"), status);
        assert_eq!(cell(&rows[0], "current_depot"), depot);
    }
}

/// The couriers are the workforce: counted per depot with small counts withheld, and a question
/// ranking them is refused before anything runs.
async fn couriers_are_counted_never_ranked(pool: &PgPool, url: &str) {
    let answer = ask(url, "How many couriers does each depot have?");
    assert_eq!(answer["route"], "single", "{answer}");
    assert_eq!(intents(&answer), ["couriers_by_depot"], "{answer}");
    let expected: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT k.depot_code, k.employment, count(*) FROM courier_crew.courier AS k
         WHERE k.left_on IS NULL GROUP BY 1, 2 ORDER BY 1, 2",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let rows = table(&answer, "couriers_by_depot");
    assert_eq!(rows.len(), expected.len(), "{answer}");
    let (mut shown, mut hidden) = (0, 0);
    for (row, (depot, employment, count)) in rows.iter().zip(&expected) {
        assert_eq!(
            (cell(row, "depot"), cell(row, "employment")),
            (depot.as_str(), employment.as_str())
        );
        if *count < 11 {
            assert_eq!(cell(row, "couriers"), "fewer than 11", "{row:?}");
            hidden += 1;
        } else {
            assert_eq!(cell(row, "couriers"), count.to_string(), "{row:?}");
            shown += 1;
        }
    }
    assert!(shown > 0 && hidden > 0, "{shown} shown, {hidden} withheld");
    assert_eq!(answer["suppressed_cells"], hidden, "{answer}");

    let refused = ask(url, "Which couriers delivered the most parcels last quarter?");
    assert_eq!(refused["route"], "refused", "{refused}");
    assert!(refused["evidence"].as_array().unwrap().is_empty(), "{refused}");
}

/// Two params of one kind told apart by role: "from Leeds to Bristol" binds `origin` (role
/// `from`) and `destination` (role `to`) of `lane_volume`, and the reverse question the reverse
/// lane; each month's parcels are SQL's.
async fn parcels_from_one_depot_to_another(pool: &PgPool, url: &str, dates: &Dates) {
    for (question, from, to) in [
        ("Parcels from Leeds to Bristol last quarter", "leeds", "bristol"),
        ("How many parcels went from Bristol to Leeds last quarter?", "bristol", "leeds"),
    ] {
        let answer = ask(url, question);
        assert_eq!(answer["route"], "single", "{answer}");
        assert_eq!(intents(&answer), ["lane_volume"], "{answer}");
        let args = &answer["plan"]["nodes"][0]["args"];
        assert_eq!(
            (args["origin"].as_str(), args["destination"].as_str()),
            (Some(from), Some(to)),
            "{answer}"
        );
        assert_eq!(args["period"], json!(["@Q-3m", "@Q"]), "{answer}");
        let said = format!(
            "\"last quarter\" is read as {} to {}",
            dates.quarter_start, dates.quarter_last
        );
        assert!(text(&answer).contains(&said), "{said} / {}", text(&answer));
        let expected: Vec<(String, i64)> = sqlx::query_as(
            "SELECT to_char(p.shipped_on, 'YYYY-MM'), count(*)
             FROM courier.parcel AS p
             JOIN courier.route AS r ON r.code = p.route_code
             CROSS JOIN courier.snapshot AS s
             WHERE r.origin_depot = $1 AND r.destination_depot = $2
               AND p.shipped_on >= date_trunc('quarter', s.as_of) - interval '3 months'
               AND p.shipped_on < date_trunc('quarter', s.as_of)
             GROUP BY 1 ORDER BY 1",
        )
        .bind(from)
        .bind(to)
        .fetch_all(pool)
        .await
        .unwrap();
        let shown: Vec<(String, i64)> = table(&answer, "lane_volume")
            .iter()
            .map(|row| (cell(row, "month").to_owned(), cell(row, "parcels").parse().unwrap()))
            .collect();
        assert_eq!(shown, expected, "{question}");
        assert_eq!(shown.len(), 3, "{question}");
    }
}
