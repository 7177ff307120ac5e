//! Planning with roles on the lanes registry (`fixtures/registry/lanes.toml`): a lane's origin
//! and destination are two hubs told apart by the question's words; a question that does not
//! say which is which is asked, naming the hubs and how to say it.

use planner_engine::{PlanReport, Planner, Route, plan_report};
use planner_registry::Registry;
use serde_json::{Value as Json, json};

fn planner() -> Planner {
    let text = include_str!("../../../fixtures/registry/lanes.toml");
    Planner::new(Registry::from_toml(text, "lanes.toml").unwrap(), None, 1)
}

fn plan_of(question: &str) -> PlanReport {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(plan_report(&planner(), question, &[])).unwrap()
}

/// The plan's nodes as `{intent: args}`.
fn nodes(report: &PlanReport) -> Json {
    let plan = serde_json::to_value(&report.plan).unwrap();
    let mut out = serde_json::Map::new();
    for node in plan["nodes"].as_array().unwrap() {
        out.insert(node["intent"].as_str().unwrap().to_owned(), node["args"].clone());
    }
    Json::Object(out)
}

#[track_caller]
fn assert_lane(question: &str, origin: &str, destination: &str, grain: &str) {
    let report = plan_of(question);
    assert_eq!(report.route, Route::Single, "{question}: {report:?}");
    assert_eq!(
        nodes(&report),
        json!({"lane_volume": {"origin": origin, "destination": destination, "grain": grain}}),
        "{question}"
    );
}

#[test]
fn from_x_to_y_plans_the_lane() {
    assert_lane("Lane volume from Seattle to Denver by week", "Seattle", "Denver", "week");
    assert_lane("Lane volume to Denver from Seattle", "Seattle", "Denver", "month");
}

#[test]
fn x_to_y_plans_the_lane() {
    assert_lane("Seattle to Denver volume by month", "Seattle", "Denver", "month");
    assert_lane("SEA-DEN volume weekly", "Seattle", "Denver", "week");
}

#[test]
fn between_x_and_y_plans_the_lane() {
    assert_lane("Volume between Reno and Boise", "Reno", "Boise", "month");
    assert_lane("Lane volume between the Reno hub and Boise, weekly", "Reno", "Boise", "week");
}

#[test]
fn the_report_names_each_value_by_its_role_param() {
    let report = plan_of("Lane volume from Seattle to Denver by week");
    let params = serde_json::to_value(&report.params).unwrap();
    assert_eq!(
        params,
        json!([
            {"param": "origin", "value": "Seattle", "span": [17, 24]},
            {"param": "destination", "value": "Denver", "span": [28, 34]},
            {"param": "grain", "value": "week", "span": [35, 42]},
        ])
    );
    assert!(report.unapplied.is_empty(), "{:?}", report.unapplied);
}

/// A value that a node binds to a param without a role is reported under that param, though
/// the question's words mark it as an end ("out of" Seattle).
#[test]
fn the_report_names_a_value_by_the_param_its_node_binds() {
    let report = plan_of("How long does freight dwell when it leaves out of Seattle?");
    assert_eq!(nodes(&report)["hub_dwell"]["hub"], "Seattle", "{report:?}");
    let params = serde_json::to_value(&report.params).unwrap();
    assert_eq!(params[0]["param"], "hub", "{params}");
}

#[test]
fn two_hubs_not_told_apart_are_asked_with_their_names_and_the_fix() {
    let report = plan_of("Seattle and Denver by month");
    assert_eq!(report.route, Route::Clarify, "{report:?}");
    assert_eq!(report.proposals, [["lane_volume"]]);
    assert_eq!(report.missing, Some(vec!["destination".to_owned(), "origin".to_owned()]));
    assert_eq!(
        report.question_to_user.as_deref(),
        Some(
            "Which hub is the origin and which the destination: Seattle or Denver? Say \"from \
             Seattle to Denver\" or \"from Denver to Seattle\"."
        )
    );
}

#[test]
fn one_hub_with_a_role_asks_for_the_other_end() {
    let report = plan_of("Volume to Denver by month");
    assert_eq!(report.route, Route::Clarify, "{report:?}");
    assert_eq!(report.missing, Some(vec!["origin".to_owned()]));
    assert_eq!(report.question_to_user.as_deref(), Some("Which origin hub do you mean?"));
}

#[test]
fn an_edge_gives_the_other_end_by_its_param_name() {
    // No intent provides origins; top_destinations provides destinations, given the origin.
    let report = plan_of("Volume from Seattle by month");
    assert_eq!(report.route, Route::Plan, "{report:?}");
    assert_eq!(
        nodes(&report),
        json!({
            "lane_volume": {"origin": "Seattle", "grain": "month"},
            "top_destinations": {"origin": "Seattle"},
        })
    );
    let edges = serde_json::to_value(&report.plan).unwrap()["edges"].clone();
    assert_eq!(
        edges,
        json!([{"from": "top_destinations", "column": "destination", "to": "lane_volume",
                "param": "destination"}])
    );
}

#[test]
fn one_hub_without_a_role_asks_which_end_it_is() {
    let report = plan_of("Seattle shipments by month");
    assert_eq!(report.route, Route::Clarify, "{report:?}");
    assert_eq!(report.missing, Some(vec!["destination".to_owned(), "origin".to_owned()]));
    assert_eq!(
        report.question_to_user.as_deref(),
        Some(
            "Is Seattle the origin or the destination, and which hub is the other end? Say \
             \"from Seattle to\" or \"to Seattle from\" the other hub."
        )
    );
}

#[test]
fn answers_tell_the_ends_apart() {
    let planner = planner();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let plan = |question: &str, answers: &[&str]| {
        let answers: Vec<String> = answers.iter().map(|it| (*it).to_owned()).collect();
        let planning = runtime.block_on(planner.plan(question, &answers, &[], true));
        let report = PlanReport::new(planner.registry(), &planning, None);
        (report.route, nodes(&report))
    };
    let lane = |origin: &str, destination: &str| json!({"lane_volume": {"origin": origin, "destination": destination, "grain": "month"}});
    // The unclear pair, answered as the question suggests.
    assert_eq!(
        plan("Seattle and Denver by month", &["from Denver to Seattle"]),
        (Route::Single, lane("Denver", "Seattle"))
    );
    // One end told, the other answered without a cue: it is the other end.
    assert_eq!(
        plan("Volume to Denver by month", &["Seattle"]),
        (Route::Single, lane("Seattle", "Denver"))
    );
    // The question's unmarked hub is the other end of the one the answer marks.
    assert_eq!(
        plan("Seattle shipments by month", &["to Reno"]),
        (Route::Single, lane("Seattle", "Reno"))
    );
}

#[test]
fn a_lone_role_param_and_a_plain_one_plan_as_before() {
    let report = plan_of("Top destinations out of Reno");
    assert_eq!(nodes(&report), json!({"top_destinations": {"origin": "Reno"}}), "{report:?}");
    let report = plan_of("Top destinations for Reno");
    assert_eq!(nodes(&report), json!({"top_destinations": {"origin": "Reno"}}), "{report:?}");
    let report = plan_of("How long does freight wait at Boise");
    assert_eq!(
        nodes(&report),
        json!({"hub_dwell": {"hub": "Boise", "carrier": "Northline"}}),
        "{report:?}"
    );
}
