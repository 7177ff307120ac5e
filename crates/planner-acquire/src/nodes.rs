//! The 17 nodes of the acquisition graph. Each is a function of the profile and the state (and,
//! for `search` and `llm_decide`, of the corpus and the decider) returning its update and its
//! typed route, so each can be tested alone on a hand-built state.

use planner_graph::Command;
use serde_json::{Value as Json, json};

use crate::{
    logic::{
        acquisition_task_summary, actionable_missing, adjust_calculation_decision, build_recipes,
        compose_ready_fields, currency_suggestions_for, decision_from_task,
        first_blocked_field_without_recipe, generate_decomposition, kind_of, missing_leaves,
        next_acquisition_task, proactive_decompositions, redirect_derived_direct_decision,
        redirect_premature_ask_for_web_field, run_calculator, successful_calculation_current,
    },
    profile::{CURRENCY, Profile, REGION, Source},
    state::{
        AcqState, Action, Attempt, CalcStatus, Decision, Filled, Hit, Provenance, RunStatus,
        Update, component_key,
    },
    value::{currency_code, extract, parse_answer},
};

/// The typed routes out of each branching node.
pub mod route {
    #![allow(missing_docs, reason = "each variant is documented by its label")]

    use planner_graph::routes;

    routes! {
        /// Out of `check_termination`.
        pub enum Termination { Finish => "finish", Continue => "continue" }
    }
    routes! {
        /// Out of `check_region_currency`.
        pub enum RegionCurrency { AskRegion => "ask_region", AskCurrency => "ask_currency", Ready => "ready" }
    }
    routes! {
        /// Out of `check_calculator`.
        pub enum CalculatorRoute { Finish => "finish", Blocked => "blocked", Pending => "pending", NoCalc => "no_calc" }
    }
    routes! {
        /// Out of `acquisition_routing`.
        pub enum Acquisition { HasTask => "has_task", NoTask => "no_task" }
    }
    routes! {
        /// Out of `check_completion`.
        pub enum Completion { Finish => "finish", HasTask => "has_task", Continue => "continue" }
    }
    routes! {
        /// Out of `llm_decide`: a model failure is this route, never a stored flag.
        pub enum Decided { Finish => "finish", PostProcess => "post_process" }
    }
    routes! {
        /// Out of `enforce_caps`.
        pub enum Caps { Finish => "finish", AskUser => "ask_user", Ok => "ok" }
    }
    routes! {
        /// Out of `route_decision`: the decision's action.
        pub enum ActionRoute {
            Search => "search", Reflect => "reflect", AskUser => "ask_user", Calculate => "calculate",
            Finish => "finish",
        }
    }
    routes! {
        /// Out of `search`.
        pub enum Searched { Observe => "observe", Plan => "plan" }
    }
}

pub use route::{
    Acquisition, ActionRoute, CalculatorRoute, Caps, Completion, Decided, RegionCurrency, Searched,
    Termination,
};

/// A node's result.
pub type Out<R> = Command<Update, R>;

fn goto<R>(update: Update, route: R) -> Out<R> {
    Command::goto(update, route)
}

/// check_termination: counts the iteration; finishes a run already aborted or past `max_iters`.
pub fn check_termination(profile: &Profile, state: &AcqState) -> Out<Termination> {
    let iterations = state.iterations + 1;
    let mut update = Update { iterations: Some(iterations), ..Update::default() };
    if state.status == RunStatus::Aborted {
        update.decision = Some(Decision::finish("Planner already aborted."));
        return goto(update, Termination::Finish);
    }
    if iterations > profile.caps.max_iters {
        let reason = format!("Iteration cap {} reached.", profile.caps.max_iters);
        update.decision = Some(Decision::finish(reason));
        return goto(update, Termination::Finish);
    }
    goto(update, Termination::Continue)
}

fn asks(state: &AcqState, field: &str) -> u32 {
    state.attempts_for(field, None, Action::AskUser).count() as u32
}

/// check_region_currency: asks the region, then the currency (with suggestions for the
/// region), each while its ask budget lasts.
pub fn check_region_currency(profile: &Profile, state: &AcqState) -> Out<RegionCurrency> {
    let cap = profile.caps.max_attempts_per_field;
    if state.idea.location.is_none() && asks(state, REGION) < cap {
        let mut decision =
            Decision::bare(Action::AskUser, "Confirm region before any value lookups.");
        decision.target_field = Some(REGION.to_owned());
        decision.user_question = Some("Where is this business based? (city and country)".into());
        return goto(Update::decide(decision), RegionCurrency::AskRegion);
    }
    if state.idea.currency.is_none() && asks(state, CURRENCY) < cap {
        let mut decision =
            Decision::bare(Action::AskUser, "Confirm reporting currency before any value lookups.");
        decision.target_field = Some(CURRENCY.to_owned());
        decision.user_question = Some("What reporting currency should I use? (ISO code)".into());
        decision.suggested_answers = currency_suggestions_for(state.idea.location.as_deref());
        return goto(Update::decide(decision), RegionCurrency::AskCurrency);
    }
    goto(Update::default(), RegionCurrency::Ready)
}

/// compose_schema: proactive decompositions, then every derived field whose inputs are ready
/// (a currency mismatch leaves the schema as it was, with a note).
pub fn compose_schema(profile: &Profile, state: &AcqState) -> Out<()> {
    let decompositions =
        proactive_decompositions(profile, &state.schema, &state.dynamic_decompositions);
    let recipes = build_recipes(profile, &decompositions);
    let mut update = Update::default();
    match compose_ready_fields(profile, &state.schema, &recipes, state.idea.currency.as_deref()) {
        Ok(schema) if schema != state.schema => update.schema = Some(schema),
        Ok(_) => {}
        Err(err) => {
            let note = format!("Composition failed: {err}");
            if !state.notes.contains(&note) {
                update.notes.push(note);
            }
        }
    }
    if decompositions != state.dynamic_decompositions {
        update.dynamic_decompositions = Some(decompositions);
    }
    goto(update, ())
}

/// check_calculator: no calculator; the calculation cap after a blocked or failed run (abort);
/// a current success (finish); blocked; pending.
pub fn check_calculator(profile: &Profile, state: &AcqState) -> Out<CalculatorRoute> {
    if profile.calculator.is_none() {
        return goto(Update::default(), CalculatorRoute::NoCalc);
    }
    let cap = profile.caps.max_calculation_attempts;
    let failed =
        matches!(state.last_calculation_status(), Some(CalcStatus::Blocked | CalcStatus::Error));
    if state.calculation_attempts >= cap && failed {
        let update = Update {
            decision: Some(Decision::finish(format!("Calculation cap {cap} reached."))),
            status: Some(RunStatus::Aborted),
            ..Update::default()
        };
        return goto(update, CalculatorRoute::Finish);
    }
    if successful_calculation_current(profile, state) {
        let decision = Decision::finish("Deterministic calculator completed successfully.");
        return goto(Update::decide(decision), CalculatorRoute::Finish);
    }
    if state.last_calculation_status() == Some(CalcStatus::Blocked) {
        return goto(Update::default(), CalculatorRoute::Blocked);
    }
    goto(Update::default(), CalculatorRoute::Pending)
}

/// acquisition_routing: when the calculator is blocked, the next acquisition task, decomposing
/// the first blocked field without a recipe when there is none.
pub fn acquisition_routing(profile: &Profile, state: &AcqState) -> Out<Acquisition> {
    if state.last_calculation_status() != Some(CalcStatus::Blocked) {
        return goto(Update::default(), Acquisition::NoTask);
    }
    let mut decompositions = state.dynamic_decompositions.clone();
    let mut task = {
        let recipes = build_recipes(profile, &decompositions);
        next_acquisition_task(profile, state, &recipes, None)
    };
    if task.is_none() {
        let recipes = build_recipes(profile, &decompositions);
        let blocked =
            first_blocked_field_without_recipe(profile, state.last_calculation_errors(), &recipes)
                .map(str::to_owned);
        if let Some(field) = blocked {
            if !decompositions.contains_key(&field) {
                decompositions.insert(field.clone(), generate_decomposition(profile, &field));
            }
            let probe =
                AcqState { dynamic_decompositions: decompositions.clone(), ..state.clone() };
            let recipes = build_recipes(profile, &decompositions);
            task = next_acquisition_task(profile, &probe, &recipes, Some(&field));
        }
    }
    let Some(task) = task else { return goto(Update::default(), Acquisition::NoTask) };
    let decision = decision_from_task(profile, state, &task);
    let mut update = Update::decide(adjust_calculation_decision(profile, state, decision));
    if decompositions != state.dynamic_decompositions {
        update.dynamic_decompositions = Some(decompositions);
    }
    goto(update, Acquisition::HasTask)
}

/// check_completion: an open component task when no plain field is missing; finish when every
/// raw input is collected (or calculate, when the calculator can run); else continue.
pub fn check_completion(profile: &Profile, state: &AcqState) -> Out<Completion> {
    let recipes = build_recipes(profile, &state.dynamic_decompositions);
    let auto_finish_ok = profile.fields.iter().all(|field| {
        if recipes.contains_key(field.name.as_str()) || state.schema.value(&field.name).is_some() {
            return true;
        }
        match field.source {
            Source::Web | Source::Either => false,
            Source::User => state.attempts.iter().any(|it| it.field == field.name),
            Source::Derived => true,
        }
    });
    let missing = missing_leaves(profile, &state.schema);
    let actionable = actionable_missing(&missing, &recipes);
    let open = acquisition_task_summary(profile, state, &state.schema);
    if actionable.is_empty()
        && !open.is_empty()
        && let Some(task) = next_acquisition_task(profile, state, &recipes, None)
    {
        let decision = decision_from_task(profile, state, &task);
        let decision = adjust_calculation_decision(profile, state, decision);
        return goto(Update::decide(decision), Completion::HasTask);
    }
    if auto_finish_ok && actionable.is_empty() && open.is_empty() {
        let decision = Decision::finish("All raw inputs collected.");
        let decision = adjust_calculation_decision(profile, state, decision);
        let route = if decision.action == Action::Finish {
            Completion::Finish
        } else {
            Completion::HasTask
        };
        return goto(Update::decide(decision), route);
    }
    goto(Update::default(), Completion::Continue)
}

/// llm_decide: the decider's result, or, on any failure, a finish with the reason.
pub fn llm_decided(result: Result<Decision, String>) -> Out<Decided> {
    match result {
        Ok(decision) => goto(Update::decide(decision), Decided::PostProcess),
        Err(err) => {
            tracing::warn!(error = %err, "decision failure, finishing");
            let decision = Decision::finish(format!("Planner output invalid: {err}"));
            goto(Update::decide(decision), Decided::Finish)
        }
    }
}

/// post_process: decomposes a `requires_components` target, then redirects a direct search or
/// ask of a derived field to its inputs, and a premature ask of a web field to a search.
pub fn post_process(profile: &Profile, state: &AcqState) -> Out<()> {
    let Some(decision) = state.decision.clone() else { return goto(Update::default(), ()) };
    let mut decompositions = state.dynamic_decompositions.clone();
    if let (Action::Search | Action::AskUser, Some(field), None) =
        (decision.action, decision.target_field.as_deref(), decision.target_component.as_deref())
        && profile.field(field).is_some_and(|it| it.components.is_some())
        && !decompositions.contains_key(field)
    {
        decompositions.insert(field.to_owned(), generate_decomposition(profile, field));
    }
    let probe = AcqState { dynamic_decompositions: decompositions.clone(), ..state.clone() };
    let recipes = build_recipes(profile, &decompositions);
    let decision = redirect_derived_direct_decision(profile, &probe, &recipes, decision);
    let decision = redirect_premature_ask_for_web_field(profile, &probe, decision);
    let mut update = Update::decide(decision);
    if decompositions != state.dynamic_decompositions {
        update.dynamic_decompositions = Some(decompositions);
    }
    goto(update, ())
}

/// enforce_caps: a search past the per-field cap, or repeating a query, becomes a question (or
/// the next component task, or a reflection); a question past the per-field cap aborts.
pub fn enforce_caps(profile: &Profile, state: &AcqState) -> Out<Caps> {
    let Some(decision) = state.decision.clone() else {
        return goto(Update::decide(Decision::finish("No decision.")), Caps::Finish);
    };
    let cap = profile.caps.max_attempts_per_field;
    let component = decision.target_component.as_deref();
    if let (Action::Search, Some(field)) = (decision.action, decision.target_field.as_deref()) {
        let same: Vec<&Attempt> = state.attempts_for(field, component, Action::Search).collect();
        let duplicate = decision
            .search_query
            .as_ref()
            .is_some_and(|query| same.iter().any(|it| &it.query_or_question == query));
        if same.len() as u32 >= cap || duplicate {
            let reason =
                if duplicate { "duplicate query".to_owned() } else { format!("cap {cap}") };
            tracing::info!(field, reason, "search loop, forcing a question");
            let forced = if component.is_some() {
                let recipes = build_recipes(profile, &state.dynamic_decompositions);
                match next_acquisition_task(profile, state, &recipes, Some(field)) {
                    Some(task) => decision_from_task(profile, state, &task),
                    None => Decision::bare(Action::Reflect, "Search cap reached."),
                }
            } else {
                let mut ask = Decision::bare(
                    Action::AskUser,
                    format!("Per-field search cap reached ({reason})."),
                );
                ask.target_field = Some(field.to_owned());
                let label = profile.field(field).map_or(field, |it| it.label.as_str());
                ask.user_question = Some(format!(
                    "I couldn't find reliable data for {label}. What value should I use?"
                ));
                ask
            };
            let route = if forced.action == Action::AskUser { Caps::AskUser } else { Caps::Ok };
            return goto(Update::decide(forced), route);
        }
    }
    if let (Action::AskUser, Some(field)) = (decision.action, decision.target_field.as_deref()) {
        let same = state.attempts_for(field, component, Action::AskUser).count() as u32;
        if same >= cap {
            let finish = Decision::finish(format!("Ask-user cap {cap} reached for {field}."));
            let update = Update {
                decision: Some(adjust_calculation_decision(profile, state, finish)),
                status: Some(RunStatus::Aborted),
                ..Update::default()
            };
            return goto(update, Caps::Finish);
        }
    }
    goto(Update::decide(adjust_calculation_decision(profile, state, decision)), Caps::Ok)
}

/// route_decision: records the decision in the trace, emits it as an event, routes by action.
pub fn route_decision(state: &AcqState) -> Out<ActionRoute> {
    let decision = state.decision.clone().unwrap_or_else(|| Decision::finish("No decision."));
    tracing::info!(
        action = decision.action.name(),
        target = decision.target_field.as_deref().unwrap_or(""),
        reasoning = decision.reasoning,
        "decision"
    );
    let route = match decision.action {
        Action::Search => ActionRoute::Search,
        Action::Reflect => ActionRoute::Reflect,
        Action::AskUser => ActionRoute::AskUser,
        Action::Calculate => ActionRoute::Calculate,
        Action::Finish => ActionRoute::Finish,
    };
    goto(Update { decisions: vec![decision], ..Update::default() }, route)
}

fn target(state: &AcqState) -> (String, Option<String>) {
    let decision = state.decision.as_ref();
    (
        decision.and_then(|it| it.target_field.clone()).unwrap_or_default(),
        decision.and_then(|it| it.target_component.clone()),
    )
}

/// The query the `search` node runs for the current decision.
pub fn search_query(profile: &Profile, state: &AcqState) -> String {
    let (field, component) = target(state);
    state
        .decision
        .as_ref()
        .and_then(|it| it.search_query.clone())
        .or_else(|| {
            crate::logic::wording(profile, &field, component.as_deref()).map(|it| it.0.to_owned())
        })
        .unwrap_or(field)
}

/// search (after the corpus answered): hits go to `observe`; none is recorded and goes back
/// to planning.
pub fn searched(state: &AcqState, query: String, hits: Vec<Hit>) -> Out<Searched> {
    if hits.is_empty() {
        let (field, component) = target(state);
        let attempt = Attempt {
            action: Action::Search,
            field,
            component,
            query_or_question: query,
            outcome: "no hits".into(),
        };
        return goto(Update { attempts: vec![attempt], ..Update::default() }, Searched::Plan);
    }
    goto(Update { hits: Some(hits), ..Update::default() }, Searched::Observe)
}

fn fill(
    state: &AcqState,
    field: &str,
    component: Option<&str>,
    filled: Filled,
) -> crate::state::Schema {
    let mut schema = state.schema.clone();
    match component {
        Some(component) => {
            schema.components.insert(component_key(field, component), filled);
        }
        None => {
            schema.fields.insert(field.to_owned(), Some(filled));
        }
    }
    schema
}

/// observe: the first hit holding a value of the target's type (money in the reporting
/// currency) fills it, with the document as its source.
pub fn observe(profile: &Profile, state: &AcqState) -> Out<()> {
    let (field, component) = target(state);
    let query = search_query(profile, state);
    let mut update = Update { hits: Some(Vec::new()), ..Update::default() };
    let kind = kind_of(profile, &field, component.as_deref());
    let currency = state.idea.currency.as_deref();
    let found = kind.and_then(|kind| {
        state
            .hits
            .iter()
            .find_map(|hit| extract(kind, &hit.body, currency).map(|value| (hit, value)))
    });
    let outcome = match found {
        Some((hit, value)) => {
            let outcome = format!("found {value} in {}", hit.id);
            let source = Provenance::Document {
                id: hit.id.clone(),
                title: hit.title.clone(),
                source: hit.source.clone(),
            };
            update.schema =
                Some(fill(state, &field, component.as_deref(), Filled { value, source }));
            outcome
        }
        None => format!(
            "no {} value in {} hit(s)",
            kind.map_or("usable", |it| it.name()),
            state.hits.len()
        ),
    };
    update.attempts.push(Attempt {
        action: Action::Search,
        field,
        component,
        query_or_question: query,
        outcome,
    });
    goto(update, ())
}

/// calculate: runs the calculator and counts the run.
pub fn calculate(profile: &Profile, state: &AcqState) -> Out<()> {
    let Some(calculator) = &profile.calculator else {
        let update =
            Update { notes: vec!["No calculator in this profile.".into()], ..Update::default() };
        return goto(update, ());
    };
    let run = run_calculator(calculator, &state.schema, state.idea.currency.as_deref());
    let update = Update {
        calculation_attempts: Some(state.calculation_attempts + 1),
        last_calculation: Some(run),
        ..Update::default()
    };
    goto(update, ())
}

/// The payload of the interrupt `ask_user` raises.
pub fn question_payload(state: &AcqState) -> Json {
    let decision = state.decision.as_ref();
    json!({
        "field": decision.and_then(|it| it.target_field.as_deref()),
        "component": decision.and_then(|it| it.target_component.as_deref()),
        "question": decision.and_then(|it| it.user_question.as_deref()).unwrap_or("?"),
        "suggested_answers": decision.map(|it| it.suggested_answers.clone()).unwrap_or_default(),
    })
}

/// ask_user: pauses the run with the question; on resume, keeps the answer for `observe_user`.
pub fn ask_user(state: &AcqState, resume: Option<&Json>) -> Out<()> {
    match resume {
        None => Command::Interrupt(question_payload(state)),
        Some(answer) => {
            let text = match answer {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            goto(Update { answer: Some(Some(text)), ..Update::default() }, ())
        }
    }
}

/// Longest answer kept, in characters.
const MAX_ANSWER: usize = 200;

/// observe_user: parses the answer with the target's typed extractor and records the attempt.
pub fn observe_user(profile: &Profile, state: &AcqState) -> Out<()> {
    let (field, component) = target(state);
    let answer: String =
        state.answer.clone().unwrap_or_default().trim().chars().take(MAX_ANSWER).collect();
    let question =
        state.decision.as_ref().and_then(|it| it.user_question.clone()).unwrap_or_default();
    let mut update = Update { answer: Some(None), ..Update::default() };
    let outcome = if field == REGION {
        if answer.is_empty() {
            "empty answer".to_owned()
        } else {
            update.idea =
                Some(crate::state::Idea { location: Some(answer.clone()), ..state.idea.clone() });
            format!("region {answer}")
        }
    } else if field == CURRENCY {
        let code = currency_code(&answer).or_else(|| {
            answer
                .split(|c: char| !c.is_alphanumeric() && !"€$£¥".contains(c))
                .find_map(currency_code)
        });
        match code {
            Some(code) => {
                update.idea = Some(crate::state::Idea {
                    currency: Some(code.to_owned()),
                    ..state.idea.clone()
                });
                format!("currency {code}")
            }
            None => "not a known currency".to_owned(),
        }
    } else {
        match kind_of(profile, &field, component.as_deref()) {
            None => "unknown field".to_owned(),
            Some(kind) => match parse_answer(kind, &answer, state.idea.currency.as_deref()) {
                Ok(value) => {
                    let outcome = format!("answered {value}");
                    let filled =
                        Filled { value, source: Provenance::User { answer: answer.clone() } };
                    update.schema = Some(fill(state, &field, component.as_deref(), filled));
                    outcome
                }
                Err(err) => err.to_string(),
            },
        }
    };
    update.attempts.push(Attempt {
        action: Action::AskUser,
        field,
        component,
        query_or_question: question,
        outcome,
    });
    goto(update, ())
}

/// reflect: notes what is still missing and why the last decision could not act.
pub fn reflect(profile: &Profile, state: &AcqState) -> Out<()> {
    let missing: Vec<&str> =
        missing_leaves(profile, &state.schema).iter().map(|it| it.name.as_str()).collect();
    let reason = state.decision.as_ref().map_or("", |it| it.reasoning.as_str());
    let note = format!(
        "Reflected ({reason}); missing: {}.",
        if missing.is_empty() { "none".to_owned() } else { missing.join(", ") }
    );
    goto(Update { notes: vec![note], ..Update::default() }, ())
}

/// finish: records the final decision and settles the status.
pub fn finish(profile: &Profile, state: &AcqState) -> Out<()> {
    let decision = state.decision.clone().unwrap_or_else(|| Decision::finish("Finished."));
    let complete = match &profile.calculator {
        Some(_) => successful_calculation_current(profile, state),
        None => missing_leaves(profile, &state.schema).is_empty(),
    };
    let status = match state.status {
        RunStatus::Aborted => RunStatus::Aborted,
        _ if complete => RunStatus::Completed,
        _ => RunStatus::Incomplete,
    };
    let logged = state.decisions.last() != Some(&decision);
    let update = Update {
        status: Some(status),
        decisions: if logged { vec![decision] } else { Vec::new() },
        ..Update::default()
    };
    goto(update, ())
}
