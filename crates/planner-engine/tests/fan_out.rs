//! Fan-out, optional params bound through edges, and relative periods, end to end on
//! PostgreSQL with a small freight registry of its own (`tests/fixtures/freight.toml`, data in
//! `freight.sql`): a referring ask runs once per upstream value within the registry's cap, the
//! runs composed in one table and counted in the audit row; "last year" is resolved against the
//! data's date and the answer says the dates.

use planner_engine::{Answer, Ask, Engine, EngineConfig, Outcome, Route};
use planner_registry::Registry;
use sqlx::PgPool;

fn registry() -> Registry {
    Registry::from_toml(include_str!("fixtures/freight.toml"), "freight.toml").unwrap()
}

async fn engine(pool: &PgPool) -> Engine {
    planner_engine::migrate(pool).await.unwrap();
    sqlx::raw_sql(include_str!("fixtures/freight.sql")).execute(pool).await.unwrap();
    Engine::new(EngineConfig::new(registry()), pool.clone())
}

async fn ask(engine: &Engine, question: &str) -> Answer {
    let ask = Ask { question: question.to_owned(), scopes: Vec::new(), tenant: None, key: None };
    match engine.ask(ask).await.unwrap() {
        Outcome::Answered(answer) => *answer,
        Outcome::NeedsInput(needs) => panic!("{question}: asked {needs:?}"),
    }
}

fn table<'a>(answer: &'a Answer, intent: &str) -> &'a planner_engine::EvidenceTable {
    answer
        .evidence
        .iter()
        .find(|t| t.intent == intent)
        .unwrap_or_else(|| panic!("no {intent} table: {answer:#?}"))
}

/// The last audit row: its node count and intents.
async fn last_audit(pool: &PgPool) -> (i16, Vec<String>) {
    sqlx::query_as("SELECT node_count, intents FROM audit.answer_log ORDER BY id DESC LIMIT 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test]
async fn a_referring_ask_fans_out_over_the_upstream_values(pool: PgPool) {
    let engine = engine(&pool).await;
    let answer = ask(&engine, "Top 5 carriers by spend in 2024 and how reliable were they?").await;
    assert_eq!(answer.route, Route::Plan, "{answer:#?}");
    // The optional carrier param is bound through the edge, not left to all carriers.
    assert_eq!(answer.plan.edges.len(), 1, "{:?}", answer.plan);
    assert_eq!(answer.plan.edges[0].param, "carrier");
    let spend = table(&answer, "top_carriers_by_spend");
    let carriers: Vec<&str> = spend.rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(carriers, ["C1", "C2", "C3", "C4", "C5"], "{:?} {}", answer.plan, answer.text);
    // One composed table: a row per carrier, in the upstream's order.
    let reliability = table(&answer, "carrier_reliability");
    let rated: Vec<&str> = reliability.rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(rated, ["C1", "C2", "C3", "C4", "C5"], "{reliability:?}");
    // The period the question gave scopes the spend; the carriers bound through the edge are
    // the rows of the answer, not a scope.
    assert!(
        answer.text.contains("Top carriers by spend for period 2024-01-01 to 2024-12-31: 5 rows."),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("\nCarrier reliability: 5 rows."), "{}", answer.text);
    // Each run's own figures: C_n has n mod 5 of its 4 shipments on time.
    let shares: Vec<&str> = reliability.rows.iter().map(|row| row[2].as_str()).collect();
    assert_eq!(shares, ["0.25", "0.50", "0.75", "1.00", "0.00"], "{reliability:?}");
    assert!(
        answer.text.contains(
            "carrier_reliability ran once for each of the 5 values of top_carriers_by_spend.carrier."
        ),
        "{}",
        answer.text
    );
    assert!(answer.dropped.is_empty(), "{:?}", answer.dropped);
    // The audit row counts the runs.
    let (nodes, intents) = last_audit(&pool).await;
    assert_eq!(nodes, 6);
    let mut expected = vec!["top_carriers_by_spend"];
    expected.extend(["carrier_reliability"; 5]);
    assert_eq!(intents, expected);
}

#[sqlx::test]
async fn beyond_the_cap_the_answer_says_how_many_were_left_out(pool: PgPool) {
    let engine = engine(&pool).await;
    let answer = ask(&engine, "Top 7 carriers by spend in 2024 and how reliable were they?").await;
    let reliability = table(&answer, "carrier_reliability");
    let rated: Vec<&str> = reliability.rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(rated, ["C1", "C2", "C3", "C4", "C5"]);
    assert!(
        answer.text.contains(
            "carrier_reliability ran once for each of the first 5 values of \
             top_carriers_by_spend.carrier; 2 values were left out (the registry runs at most 5 \
             values a node)."
        ),
        "{}",
        answer.text
    );
    let (nodes, _) = last_audit(&pool).await;
    assert_eq!(nodes, 6);
    // Without a word referring back, the optional param keeps its default: all carriers.
    let answer = ask(&engine, "Top 3 carriers by spend in 2024 and carrier reliability").await;
    assert!(answer.plan.edges.is_empty(), "{:?}", answer.plan);
    assert_eq!(table(&answer, "carrier_reliability").rows.len(), 8);
}

#[sqlx::test]
async fn last_year_is_the_calendar_year_before_the_data_date(pool: PgPool) {
    let engine = engine(&pool).await;
    let answer = ask(&engine, "Which carrier did we pay the most last year?").await;
    assert_eq!(answer.route, Route::Single, "{answer:#?}");
    let args = &answer.plan.nodes[0].args;
    // The plan keeps the relative value; the run binds the resolved dates.
    assert_eq!(
        args.get("period"),
        Some(&planner_registry::Value::List(vec!["@Y-12m".to_owned(), "@Y".to_owned()]))
    );
    let spend = table(&answer, "top_carriers_by_spend");
    assert_eq!(spend.rows[0][0], "C1", "2024's order, not 2025's: {spend:?}");
    // The table's sentence names the period it ran for, as the days it was resolved to.
    assert!(
        answer.text.starts_with("Top carriers by spend for period 2024-01-01 to 2024-12-31: "),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains(
            "\"last year\" is read as 2024-01-01 to 2024-12-31, by the data's date 2025-06-30."
        ),
        "{}",
        answer.text
    );
    // Year to date: 2025's order.
    let answer = ask(&engine, "Which carrier did we pay the most year to date?").await;
    assert_eq!(table(&answer, "top_carriers_by_spend").rows[0][0], "C8");
    assert!(answer.text.contains("is read as 2025-01-01 to 2025-06-30"), "{}", answer.text);
    assert!(
        answer.text.starts_with("Top carriers by spend for period 2025-01-01 to 2025-06-30: "),
        "{}",
        answer.text
    );
    // The deterministic text passes the gate with the scope in it.
    assert_eq!(answer.gate.as_ref().map(|gate| gate.passed), Some(true), "{answer:#?}");
}

#[sqlx::test]
async fn a_relative_default_period_is_resolved_against_the_data_date(pool: PgPool) {
    // The registry's default for the spend ranking: the year to date.
    let text = include_str!("fixtures/freight.toml");
    let all_time = r#"{ name = "period", default = ["-infinity", "infinity"] },
  { name = "top_n", default = 8"#;
    assert!(text.contains(all_time));
    let text = text.replacen(
        all_time,
        r#"{ name = "period", default = ["@Y", "@D+1d"] },
  { name = "top_n", default = 8"#,
        1,
    );
    let registry = Registry::from_toml(&text, "freight.toml").unwrap();
    planner_engine::migrate(&pool).await.unwrap();
    sqlx::raw_sql(include_str!("fixtures/freight.sql")).execute(&pool).await.unwrap();
    let engine = Engine::new(EngineConfig::new(registry), pool.clone());
    let answer = ask(&engine, "Which carrier did we pay the most?").await;
    let args = &answer.plan.nodes[0].args;
    assert_eq!(
        args.get("period"),
        Some(&planner_registry::Value::List(vec!["@Y".to_owned(), "@D+1d".to_owned()]))
    );
    // 2025's order, as "year to date" asked in words gives.
    assert_eq!(table(&answer, "top_carriers_by_spend").rows[0][0], "C8", "{answer:#?}");
    assert!(
        answer.text.starts_with("Top carriers by spend for period 2025-01-01 to 2025-06-30: "),
        "{}",
        answer.text
    );
}

#[sqlx::test]
async fn two_ends_of_a_lane_fan_out_as_pairs_from_one_row(pool: PgPool) {
    let engine = engine(&pool).await;
    let answer = ask(&engine, "Top 3 lanes and the transit times on each of them").await;
    assert_eq!(answer.route, Route::Plan, "{answer:#?}");
    let params: Vec<&str> = answer.plan.edges.iter().map(|edge| edge.param.as_str()).collect();
    assert_eq!(params, ["destination", "origin"], "{:?}", answer.plan);
    // Each lane's own ends, not every origin with every destination (3 of each: 9 runs).
    let transit = table(&answer, "lane_transit_times");
    let columns: Vec<&str> = transit.columns.iter().map(String::as_str).collect();
    assert_eq!(columns, ["transit_days", "shipments", "origin", "destination"], "{transit:?}");
    let rows: Vec<Vec<&str>> =
        transit.rows.iter().map(|row| row.iter().map(String::as_str).collect()).collect();
    assert_eq!(
        rows,
        [["2.0", "5", "ATL", "CHI"], ["3.0", "4", "CHI", "DAL"], ["4.0", "3", "DAL", "ATL"]],
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains(
            "lane_transit_times ran once for each of the 3 pairs of top_lanes.origin and \
             top_lanes.destination."
        ),
        "{}",
        answer.text
    );
    assert!(answer.dropped.is_empty(), "{:?}", answer.dropped);
    let (nodes, _) = last_audit(&pool).await;
    assert_eq!(nodes, 4);
}

#[sqlx::test]
async fn a_shared_name_for_an_optional_param_is_asked_about_not_defaulted(pool: PgPool) {
    // "Coastal" is two carriers' name; carrier_reliability's carrier is optional (all carriers
    // by default): the one intent binds, yet which carrier is meant must be asked.
    let text = include_str!("fixtures/freight.toml")
        .replace("[\"=C1\"]", "[\"=C1\", \"?Coastal\"]")
        .replace("[\"=C2\"]", "[\"=C2\", \"?Coastal\"]");
    planner_engine::migrate(&pool).await.unwrap();
    sqlx::raw_sql(include_str!("fixtures/freight.sql")).execute(&pool).await.unwrap();
    let registry = Registry::from_toml(&text, "freight.toml").unwrap();
    let engine = Engine::new(EngineConfig::new(registry), pool.clone());
    let ask = Ask {
        question: "How reliable is Coastal?".to_owned(),
        scopes: Vec::new(),
        tenant: None,
        key: None,
    };
    let needs = match engine.ask(ask).await.unwrap() {
        Outcome::NeedsInput(needs) => needs,
        Outcome::Answered(answer) => panic!("answered for the default: {answer:#?}"),
    };
    assert_eq!(needs.missing, ["carrier"], "{needs:?}");
    assert!(needs.question.contains("C1 or C2"), "{}", needs.question);
}
