//! A question planned by `planner plan`'s report: its route, the intents its plan runs, and the
//! asks it names as not answered.

use planner_engine::{Planner, Route, plan_report};

/// The route, the plan's intents in plan order, and `unanswered`.
pub(crate) fn planned(planner: &Planner, question: &str) -> (Route, Vec<String>, Vec<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let report = runtime.block_on(plan_report(planner, question, &[])).unwrap();
    let plan = serde_json::to_value(&report.plan).unwrap();
    let intents = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["intent"].as_str().unwrap().to_owned())
        .collect();
    (report.route, intents, report.unanswered)
}
