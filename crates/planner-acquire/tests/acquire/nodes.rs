//! Each guard and transform node alone, on hand-built states: one test per behaviour.

use planner_acquire::{
    AcqState, Action, CalcStatus, Calculation, Decision, Filled, Hit, Provenance, RunStatus, Value,
    component_key,
    nodes::{
        self, Acquisition, ActionRoute, CalculatorRoute, Caps, Completion, Decided, RegionCurrency,
        Searched, Termination,
    },
    run_calculator,
};
use serde_json::json;

use crate::fixtures::{profile, ready, step};

fn money(amount: f64) -> Value {
    Value::Money { amount, currency: "EUR".into() }
}

fn set(state: &mut AcqState, field: &str, value: Value) {
    let filled = Filled { value, source: Provenance::User { answer: "test".into() } };
    state.schema.fields.insert(field.into(), Some(filled));
}

fn set_component(state: &mut AcqState, field: &str, component: &str, value: Value) {
    let filled = Filled { value, source: Provenance::User { answer: "test".into() } };
    state.schema.components.insert(component_key(field, component), filled);
}

fn attempt(state: &mut AcqState, action: Action, field: &str, component: Option<&str>, text: &str) {
    state.attempts.push(planner_acquire::Attempt {
        action,
        field: field.into(),
        component: component.map(Into::into),
        query_or_question: text.into(),
        outcome: "nothing".into(),
    });
}

fn decide(state: &mut AcqState, action: Action, field: &str, component: Option<&str>) {
    let mut decision = Decision::bare(action, "test");
    decision.target_field = Some(field.into());
    decision.target_component = component.map(Into::into);
    match action {
        Action::Search => decision.search_query = Some(format!("{field} query")),
        Action::AskUser => decision.user_question = Some(format!("{field}?")),
        _ => {}
    }
    state.decision = Some(decision);
}

/// Every coffee-shop input filled, so the calculator can run.
fn complete(state: &mut AcqState) {
    set(state, "average_ticket", money(6.4));
    set(state, "monthly_rent", money(3800.0));
    set(state, "cost_of_goods_share", Value::Percent { percent: 28.0 });
    set(state, "daily_customers", Value::Count { count: 180.0 });
    set(state, "opening_days", Value::Count { count: 26.0 });
    set(state, "monthly_revenue", money(29952.0));
    set(state, "staff_cost", money(8700.0));
    set(state, "startup_costs", money(68500.0));
}

// check_termination

#[test]
fn termination_counts_iterations_and_continues() {
    let p = profile("coffee_shop");
    let (state, route) = step(&ready(&p), nodes::check_termination(&p, &ready(&p)));
    assert_eq!((route, state.iterations), (Termination::Continue, 1));
}

#[test]
fn termination_at_the_iteration_cap_is_a_decision_to_finish() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.iterations = p.caps.max_iters;
    let (state, route) = step(&state, nodes::check_termination(&p, &state));
    assert_eq!(route, Termination::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "Iteration cap 60 reached.");
    assert_eq!(state.status, RunStatus::Running);
}

#[test]
fn termination_of_an_aborted_run() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.status = RunStatus::Aborted;
    let (state, route) = step(&state, nodes::check_termination(&p, &state));
    assert_eq!(route, Termination::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "Planner already aborted.");
}

// check_region_currency

#[test]
fn region_is_asked_before_currency_with_suggestions_for_the_region() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.idea.location = None;
    state.idea.currency = None;
    let (asked, route) = step(&state, nodes::check_region_currency(&p, &state));
    assert_eq!(route, RegionCurrency::AskRegion);
    assert_eq!(asked.decision.unwrap().target_field.as_deref(), Some("region"));

    state.idea.location = Some("Manchester, UK".into());
    let (asked, route) = step(&state, nodes::check_region_currency(&p, &state));
    assert_eq!(route, RegionCurrency::AskCurrency);
    assert_eq!(asked.decision.unwrap().suggested_answers, ["GBP", "EUR", "USD"]);

    state.idea.currency = Some("GBP".into());
    assert_eq!(step(&state, nodes::check_region_currency(&p, &state)).1, RegionCurrency::Ready);
}

#[test]
fn region_is_not_asked_past_its_budget() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.idea.location = None;
    attempt(&mut state, Action::AskUser, "region", None, "where?");
    attempt(&mut state, Action::AskUser, "region", None, "where?");
    assert_eq!(step(&state, nodes::check_region_currency(&p, &state)).1, RegionCurrency::Ready);
}

// compose_schema

#[test]
fn compose_decomposes_proactive_fields_and_fills_ready_recipes() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    set(&mut state, "average_ticket", money(6.4));
    set(&mut state, "daily_customers", Value::Count { count: 180.0 });
    set(&mut state, "opening_days", Value::Count { count: 26.0 });
    let (state, ()) = step(&state, nodes::compose_schema(&p, &state));
    assert_eq!(
        state.dynamic_decompositions.get("startup_costs").unwrap(),
        &["fit_out", "espresso_equipment", "rent_deposit"]
    );
    assert_eq!(state.schema.value("monthly_revenue"), Some(&money(29952.0)));
    assert!(!state.dynamic_decompositions.contains_key("staff_cost"), "not proactive");
}

#[test]
fn compose_combines_components_into_their_field() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state
        .dynamic_decompositions
        .insert("staff_cost".into(), vec!["barista_wage".into(), "baristas".into()]);
    set_component(&mut state, "staff_cost", "barista_wage", money(2900.0));
    set_component(&mut state, "staff_cost", "baristas", Value::Count { count: 3.0 });
    let (state, ()) = step(&state, nodes::compose_schema(&p, &state));
    assert_eq!(state.schema.value("staff_cost"), Some(&money(8700.0)));
}

#[test]
fn compose_refuses_a_foreign_currency_and_keeps_the_schema() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    set(&mut state, "average_ticket", Value::Money { amount: 9.2, currency: "USD".into() });
    set(&mut state, "daily_customers", Value::Count { count: 180.0 });
    set(&mut state, "opening_days", Value::Count { count: 26.0 });
    let before = state.schema.clone();
    let (state, ()) = step(&state, nodes::compose_schema(&p, &state));
    assert_eq!(state.schema, before);
    assert_eq!(
        state.notes,
        ["Composition failed: `average_ticket` is in USD, the reporting currency is EUR"]
    );
}

// check_calculator

#[test]
fn calculator_absent() {
    let mut p = profile("dog_walking");
    p.calculator = None;
    assert_eq!(
        step(&ready(&p), nodes::check_calculator(&p, &ready(&p))).1,
        CalculatorRoute::NoCalc
    );
}

#[test]
fn calculation_cap_after_a_blocked_run_aborts() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    let calculator = p.calculator.as_ref().unwrap();
    state.last_calculation = Some(run_calculator(calculator, &state.schema, Some("EUR")));
    state.calculation_attempts = p.caps.max_calculation_attempts;
    let (state, route) = step(&state, nodes::check_calculator(&p, &state));
    assert_eq!(route, CalculatorRoute::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "Calculation cap 2 reached.");
    assert_eq!(state.status, RunStatus::Aborted);
}

#[test]
fn calculator_success_blocked_and_pending() {
    let p = profile("coffee_shop");
    let calculator = p.calculator.as_ref().unwrap();
    let mut state = ready(&p);
    assert_eq!(step(&state, nodes::check_calculator(&p, &state)).1, CalculatorRoute::Pending);

    state.last_calculation = Some(run_calculator(calculator, &state.schema, Some("EUR")));
    state.calculation_attempts = 1;
    assert_eq!(state.last_calculation_status(), Some(CalcStatus::Blocked));
    assert_eq!(step(&state, nodes::check_calculator(&p, &state)).1, CalculatorRoute::Blocked);

    complete(&mut state);
    state.last_calculation = Some(run_calculator(calculator, &state.schema, Some("EUR")));
    let (done, route) = step(&state, nodes::check_calculator(&p, &state));
    assert_eq!(route, CalculatorRoute::Finish);
    assert_eq!(
        done.decision.unwrap().reasoning,
        "Deterministic calculator completed successfully."
    );

    // A success on values that have changed since is no longer current.
    set(&mut state, "monthly_rent", money(4000.0));
    assert_eq!(step(&state, nodes::check_calculator(&p, &state)).1, CalculatorRoute::Pending);
}

// acquisition_routing

#[test]
fn routing_without_a_blocked_calculator_has_no_task() {
    let p = profile("coffee_shop");
    assert_eq!(step(&ready(&p), nodes::acquisition_routing(&p, &ready(&p))).1, Acquisition::NoTask);
}

#[test]
fn routing_a_blocked_calculator_to_its_missing_input() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.last_calculation =
        Some(run_calculator(p.calculator.as_ref().unwrap(), &state.schema, Some("EUR")));
    let (state, route) = step(&state, nodes::acquisition_routing(&p, &state));
    assert_eq!(route, Acquisition::HasTask);
    let decision = state.decision.unwrap();
    // monthly_revenue is derived: its first raw input is searched.
    assert_eq!(
        (decision.action, decision.target_field.as_deref()),
        (Action::Search, Some("daily_customers"))
    );
    assert_eq!(decision.search_query.as_deref(), Some("daily customers berlin, germany"));
}

#[test]
fn routing_decomposes_the_first_blocked_field_without_recipe() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    complete(&mut state);
    state.schema.fields.insert("staff_cost".into(), None);
    state.last_calculation =
        Some(run_calculator(p.calculator.as_ref().unwrap(), &state.schema, Some("EUR")));
    // The field itself is spent: only its decomposition can go on.
    for _ in 0..2 {
        attempt(&mut state, Action::Search, "staff_cost", None, "q");
        attempt(&mut state, Action::AskUser, "staff_cost", None, "q?");
    }
    let (state, route) = step(&state, nodes::acquisition_routing(&p, &state));
    assert_eq!(route, Acquisition::HasTask);
    assert_eq!(
        state.dynamic_decompositions.get("staff_cost").unwrap(),
        &["barista_wage", "baristas"]
    );
    let decision = state.decision.unwrap();
    assert_eq!(decision.target_component.as_deref(), Some("barista_wage"));
    assert_eq!(decision.action, Action::Search);
}

// check_completion

#[test]
fn completion_continues_while_fields_are_missing() {
    let p = profile("coffee_shop");
    assert_eq!(step(&ready(&p), nodes::check_completion(&p, &ready(&p))).1, Completion::Continue);
}

#[test]
fn completion_with_every_input_turns_finish_into_calculate() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    complete(&mut state);
    let (state, route) = step(&state, nodes::check_completion(&p, &state));
    assert_eq!(route, Completion::HasTask);
    assert_eq!(state.decision.unwrap().action, Action::Calculate);
}

#[test]
fn completion_without_calculator_finishes() {
    let mut p = profile("coffee_shop");
    p.calculator = None;
    let mut state = ready(&p);
    complete(&mut state);
    let (state, route) = step(&state, nodes::check_completion(&p, &state));
    assert_eq!(route, Completion::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "All raw inputs collected.");
}

#[test]
fn completion_hands_out_open_component_tasks() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    complete(&mut state);
    state.schema.fields.insert("startup_costs".into(), None);
    state.dynamic_decompositions.insert(
        "startup_costs".into(),
        vec!["fit_out".into(), "espresso_equipment".into(), "rent_deposit".into()],
    );
    set_component(&mut state, "startup_costs", "fit_out", money(45000.0));
    let (state, route) = step(&state, nodes::check_completion(&p, &state));
    assert_eq!(route, Completion::HasTask);
    let decision = state.decision.unwrap();
    assert_eq!(decision.target_component.as_deref(), Some("espresso_equipment"));
}

// llm_decide

#[test]
fn a_decision_failure_is_a_route_to_finish() {
    let (state, route) = step(&AcqState::default(), nodes::llm_decided(Err("timed out".into())));
    assert_eq!(route, Decided::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "Planner output invalid: timed out");
    let ok = nodes::llm_decided(Ok(Decision::finish("done")));
    assert_eq!(step(&AcqState::default(), ok).1, Decided::PostProcess);
}

// post_process

#[test]
fn post_process_decomposes_a_requires_components_target_and_redirects_to_a_component() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "staff_cost", None);
    let (state, ()) = step(&state, nodes::post_process(&p, &state));
    assert_eq!(
        state.dynamic_decompositions.get("staff_cost").unwrap(),
        &["barista_wage", "baristas"]
    );
    let decision = state.decision.unwrap();
    assert_eq!(decision.target_field.as_deref(), Some("staff_cost"));
    assert_eq!(decision.target_component.as_deref(), Some("barista_wage"));
    assert_eq!(decision.search_query.as_deref(), Some("barista monthly wage berlin, germany"));
}

#[test]
fn post_process_redirects_a_derived_field_to_its_inputs() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    set(&mut state, "average_ticket", money(6.4));
    decide(&mut state, Action::AskUser, "monthly_revenue", None);
    let (state, ()) = step(&state, nodes::post_process(&p, &state));
    let decision = state.decision.unwrap();
    assert_eq!(decision.target_field.as_deref(), Some("daily_customers"));
    assert_eq!(decision.action, Action::Search, "daily_customers is searched before it is asked");
}

#[test]
fn post_process_redirects_a_premature_ask_of_a_web_field_to_a_search() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::AskUser, "monthly_rent", None);
    let (redirected, ()) = step(&state, nodes::post_process(&p, &state));
    let decision = redirected.decision.unwrap();
    assert_eq!(decision.action, Action::Search);
    assert_eq!(decision.search_query.as_deref(), Some("monthly rent berlin, germany"));

    // Once searched, the question stands.
    attempt(&mut state, Action::Search, "monthly_rent", None, "monthly rent");
    let (kept, ()) = step(&state, nodes::post_process(&p, &state));
    assert_eq!(kept.decision.unwrap().action, Action::AskUser);
}

// enforce_caps

#[test]
fn search_cap_forces_a_question() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    attempt(&mut state, Action::Search, "monthly_rent", None, "a");
    attempt(&mut state, Action::Search, "monthly_rent", None, "b");
    decide(&mut state, Action::Search, "monthly_rent", None);
    let (state, route) = step(&state, nodes::enforce_caps(&p, &state));
    assert_eq!(route, Caps::AskUser);
    let decision = state.decision.unwrap();
    assert_eq!(decision.action, Action::AskUser);
    assert_eq!(decision.reasoning, "Per-field search cap reached (cap 2).");
    assert_eq!(
        decision.user_question.as_deref(),
        Some("I couldn't find reliable data for Monthly rent. What value should I use?")
    );
}

#[test]
fn a_duplicate_query_forces_a_question() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    attempt(&mut state, Action::Search, "monthly_rent", None, "monthly_rent query");
    decide(&mut state, Action::Search, "monthly_rent", None);
    let (state, route) = step(&state, nodes::enforce_caps(&p, &state));
    assert_eq!(route, Caps::AskUser);
    assert_eq!(
        state.decision.unwrap().reasoning,
        "Per-field search cap reached (duplicate query)."
    );
}

#[test]
fn component_search_cap_moves_to_the_next_component_task() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state
        .dynamic_decompositions
        .insert("staff_cost".into(), vec!["barista_wage".into(), "baristas".into()]);
    attempt(&mut state, Action::Search, "staff_cost", Some("barista_wage"), "a");
    attempt(&mut state, Action::Search, "staff_cost", Some("barista_wage"), "b");
    decide(&mut state, Action::Search, "staff_cost", Some("barista_wage"));
    let (next, route) = step(&state, nodes::enforce_caps(&p, &state));
    // The spent search becomes a question about the same component.
    assert_eq!(route, Caps::AskUser);
    let decision = next.decision.unwrap();
    assert_eq!(
        (decision.action, decision.target_component.as_deref()),
        (Action::AskUser, Some("barista_wage"))
    );

    // With every component spent, it reflects.
    attempt(&mut state, Action::AskUser, "staff_cost", Some("barista_wage"), "?");
    attempt(&mut state, Action::AskUser, "staff_cost", Some("barista_wage"), "?");
    attempt(&mut state, Action::AskUser, "staff_cost", Some("baristas"), "?");
    attempt(&mut state, Action::AskUser, "staff_cost", Some("baristas"), "?");
    let (next, route) = step(&state, nodes::enforce_caps(&p, &state));
    assert_eq!(route, Caps::Ok);
    assert_eq!(next.decision.unwrap(), Decision::bare(Action::Reflect, "Search cap reached."));
}

#[test]
fn ask_cap_aborts() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    attempt(&mut state, Action::AskUser, "opening_days", None, "?");
    attempt(&mut state, Action::AskUser, "opening_days", None, "?");
    decide(&mut state, Action::AskUser, "opening_days", None);
    let (state, route) = step(&state, nodes::enforce_caps(&p, &state));
    assert_eq!(route, Caps::Finish);
    assert_eq!(state.decision.unwrap().reasoning, "Ask-user cap 2 reached for opening_days.");
    assert_eq!(state.status, RunStatus::Aborted);
}

#[test]
fn caps_pass_a_decision_within_budget() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "monthly_rent", None);
    let before = state.decision.clone();
    let (state, route) = step(&state, nodes::enforce_caps(&p, &state));
    assert_eq!((route, state.decision), (Caps::Ok, before));
}

// route_decision, search, observe, calculate, ask_user, observe_user, finish

#[test]
fn route_decision_records_and_routes_by_action() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "monthly_rent", None);
    let (next, route) = step(&state, nodes::route_decision(&state));
    assert_eq!(route, ActionRoute::Search);
    assert_eq!(next.decisions, [state.decision.unwrap()]);
}

fn hit(id: &str, body: &str) -> Hit {
    Hit { id: id.into(), title: id.into(), source: "s".into(), body: body.into() }
}

#[test]
fn no_hits_go_back_to_planning_with_an_attempt() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "monthly_rent", None);
    let (state, route) = step(&state, nodes::searched(&state, "q".into(), Vec::new()));
    assert_eq!(route, Searched::Plan);
    assert_eq!(state.attempts[0].outcome, "no hits");
}

#[test]
fn observe_takes_the_first_value_of_the_type_in_the_reporting_currency() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "monthly_rent", None);
    let hits =
        vec![hit("a", "Rents of $5,000 in New York."), hit("b", "Berlin: 60 m² for EUR 3,800.")];
    let (state, route) = step(&state, nodes::searched(&state, "q".into(), hits));
    assert_eq!(route, Searched::Observe);
    let (state, ()) = step(&state, nodes::observe(&p, &state));
    let filled = state.schema.fields["monthly_rent"].clone().unwrap();
    assert_eq!(filled.value, money(3800.0));
    assert!(matches!(filled.source, Provenance::Document { ref id, .. } if id == "b"));
    assert_eq!(state.attempts[0].outcome, "found EUR 3800.00 in b");
    assert!(state.hits.is_empty());
}

#[test]
fn observe_without_a_value_records_the_miss() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::Search, "cost_of_goods_share", None);
    state.hits = vec![hit("a", "No figures here.")];
    let (state, ()) = step(&state, nodes::observe(&p, &state));
    assert_eq!(state.schema.value("cost_of_goods_share"), None);
    assert_eq!(state.attempts[0].outcome, "no percent value in 1 hit(s)");
}

#[test]
fn calculate_counts_runs_and_records_results() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    complete(&mut state);
    let (state, ()) = step(&state, nodes::calculate(&p, &state));
    let run: &Calculation = state.last_calculation.as_ref().unwrap();
    assert_eq!(run.status, CalcStatus::Success);
    assert_eq!(state.calculation_attempts, 1);
    assert_eq!(run.outputs[1], ("monthly_profit".into(), money(9065.44)));
}

#[test]
fn ask_user_interrupts_then_observe_user_parses_the_answer() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    decide(&mut state, Action::AskUser, "opening_days", None);
    match nodes::ask_user(&state, None) {
        planner_graph::Command::Interrupt(payload) => {
            assert_eq!(payload["question"], json!("opening_days?"));
        }
        other => panic!("expected an interrupt, got {other:?}"),
    }
    let (answered, ()) = step(&state, nodes::ask_user(&state, Some(&json!("26 days"))));
    let (observed, ()) = step(&answered, nodes::observe_user(&p, &answered));
    assert_eq!(observed.schema.value("opening_days"), Some(&Value::Count { count: 26.0 }));
    assert_eq!(observed.answer, None);

    let (answered, ()) = step(&state, nodes::ask_user(&state, Some(&json!("no idea"))));
    let (observed, ()) = step(&answered, nodes::observe_user(&p, &answered));
    assert_eq!(observed.schema.value("opening_days"), None);
    assert_eq!(observed.attempts[0].outcome, "no count value in the answer");
}

#[test]
fn observe_user_takes_region_and_currency() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.idea.location = None;
    state.idea.currency = None;
    decide(&mut state, Action::AskUser, "region", None);
    state.answer = Some(" Berlin, Germany ".into());
    let (state, ()) = step(&state, nodes::observe_user(&p, &state));
    assert_eq!(state.idea.location.as_deref(), Some("Berlin, Germany"));
    let mut state = state;
    decide(&mut state, Action::AskUser, "currency", None);
    state.answer = Some("euros please".into());
    let (state, ()) = step(&state, nodes::observe_user(&p, &state));
    assert_eq!(state.idea.currency.as_deref(), Some("EUR"));
}

#[test]
fn finish_settles_the_status() {
    let p = profile("coffee_shop");
    let mut state = ready(&p);
    state.decision = Some(Decision::finish("Iteration cap 60 reached."));
    let (done, ()) = step(&state, nodes::finish(&p, &state));
    assert_eq!(done.status, RunStatus::Incomplete);
    assert_eq!(done.decisions.last().unwrap().reasoning, "Iteration cap 60 reached.");

    complete(&mut state);
    state.last_calculation =
        Some(run_calculator(p.calculator.as_ref().unwrap(), &state.schema, Some("EUR")));
    let (done, ()) = step(&state, nodes::finish(&p, &state));
    assert_eq!(done.status, RunStatus::Completed);

    state.status = RunStatus::Aborted;
    assert_eq!(step(&state, nodes::finish(&p, &state)).0.status, RunStatus::Aborted);
}
