//! The helpers the nodes share: recipes (static and from decompositions), composition of
//! ready fields, missing fields, acquisition tasks, the calculator, redirects and queries.

use std::collections::BTreeMap;

use crate::{
    formula::Formula,
    profile::{Calculator, ComponentSpec, FieldSpec, Profile, Source},
    state::{AcqState, Action, CalcStatus, Calculation, Decision, Filled, Provenance, Schema},
    value::{Kind, Value},
};

/// A recipe in force: a profile recipe or the combination of a decomposed field's components.
#[derive(Debug, Clone, Copy)]
pub enum RecipeRef<'p> {
    /// A profile recipe over other fields.
    Fields(&'p Formula),
    /// A decomposition over the field's components.
    Components(&'p FieldSpec),
}

/// Every recipe in force, by field.
pub type Recipes<'p> = BTreeMap<&'p str, RecipeRef<'p>>;

/// The profile's recipes plus one per decomposition that has components.
pub fn build_recipes<'p>(
    profile: &'p Profile,
    decompositions: &BTreeMap<String, Vec<String>>,
) -> Recipes<'p> {
    let mut out: Recipes<'p> = profile
        .recipes
        .iter()
        .map(|it| (it.field.as_str(), RecipeRef::Fields(&it.formula)))
        .collect();
    for field in &profile.fields {
        let decomposed = decompositions.get(&field.name).is_some_and(|it| !it.is_empty());
        if decomposed && field.components.is_some() {
            out.insert(&field.name, RecipeRef::Components(field));
        }
    }
    out
}

/// The components a decomposition of `field` yields (the profile's; none if it lists none).
pub fn generate_decomposition(profile: &Profile, field: &str) -> Vec<String> {
    profile
        .field(field)
        .and_then(|it| it.components.as_ref())
        .map(|it| it.components.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default()
}

/// Decompositions made as soon as region and currency are known: every proactive field still
/// missing and not yet decomposed.
pub fn proactive_decompositions(
    profile: &Profile,
    schema: &Schema,
    decompositions: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    let mut out = decompositions.clone();
    for field in profile.fields.iter().filter(|it| it.proactive) {
        if schema.value(&field.name).is_none() && !out.contains_key(&field.name) {
            out.insert(field.name.clone(), generate_decomposition(profile, &field.name));
        }
    }
    out
}

/// Fills every derived field whose inputs are all known, until nothing changes.
///
/// # Errors
/// A money input in another currency than `currency`, or a formula that fails.
pub fn compose_ready_fields(
    profile: &Profile,
    schema: &Schema,
    recipes: &Recipes<'_>,
    currency: Option<&str>,
) -> Result<Schema, String> {
    let mut out = schema.clone();
    loop {
        let mut changed = false;
        for (field, recipe) in recipes {
            if out.value(field).is_some() {
                continue;
            }
            let Some(spec) = profile.field(field) else { continue };
            let formula: &Formula = match recipe {
                RecipeRef::Fields(formula) => formula,
                RecipeRef::Components(spec) => match spec.components.as_ref() {
                    Some(decomposition) => &decomposition.combine,
                    None => continue,
                },
            };
            let names = formula.names();
            let inputs: Vec<Option<&Value>> = names
                .iter()
                .map(|name| match recipe {
                    RecipeRef::Fields(_) => out.value(name),
                    RecipeRef::Components(spec) => out.component(&spec.name, name),
                })
                .collect();
            if inputs.iter().any(Option::is_none) {
                continue;
            }
            for (name, input) in names.iter().zip(&inputs) {
                if let (Some(found), Some(expected)) = (input.and_then(Value::currency), currency)
                    && found != expected
                {
                    return Err(format!(
                        "`{name}` is in {found}, the reporting currency is {expected}"
                    ));
                }
            }
            let lookup = |name: &str| {
                names
                    .iter()
                    .position(|it| *it == name)
                    .and_then(|i| inputs[i])
                    .and_then(Value::number)
            };
            let number =
                formula.eval(&lookup).map_err(|err| format!("recipe of `{field}`: {err}"))?;
            let value = Value::from_number(spec.kind, number, currency);
            let filled = Filled {
                value,
                source: Provenance::Derived { formula: formula.text().to_owned() },
            };
            out.fields.insert((*field).to_owned(), Some(filled));
            changed = true;
        }
        if !changed {
            return Ok(out);
        }
    }
}

/// Fields without a value, in priority order.
pub fn missing_leaves<'p>(profile: &'p Profile, schema: &Schema) -> Vec<&'p FieldSpec> {
    profile.fields.iter().filter(|it| schema.value(&it.name).is_none()).collect()
}

/// Missing fields that are not derived: the ones that can be searched or asked.
pub fn actionable_missing<'p>(
    missing: &[&'p FieldSpec],
    recipes: &Recipes<'_>,
) -> Vec<&'p FieldSpec> {
    missing.iter().copied().filter(|it| !recipes.contains_key(it.name.as_str())).collect()
}

/// One thing to acquire: a field or one of its components, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The field.
    pub field: String,
    /// The component, for a decomposed field.
    pub component: Option<String>,
    /// Search or ask.
    pub action: Action,
}

/// The missing components of every decomposed, still missing field, in priority order.
pub fn acquisition_task_summary(
    profile: &Profile,
    state: &AcqState,
    schema: &Schema,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for field in &profile.fields {
        if schema.value(&field.name).is_some() {
            continue;
        }
        for component in state.dynamic_decompositions.get(&field.name).into_iter().flatten() {
            if schema.component(&field.name, component).is_none() {
                out.push((field.name.clone(), component.clone()));
            }
        }
    }
    out
}

fn component_spec<'p>(
    profile: &'p Profile,
    field: &str,
    component: &str,
) -> Option<&'p ComponentSpec> {
    profile.field(field)?.components.as_ref()?.components.iter().find(|it| it.name == component)
}

/// The source of a field or component.
pub fn source_of(profile: &Profile, field: &str, component: Option<&str>) -> Option<Source> {
    match component {
        Some(component) => component_spec(profile, field, component).map(|it| it.source),
        None => profile.field(field).map(|it| it.source),
    }
}

/// The kind of a field or component.
pub fn kind_of(profile: &Profile, field: &str, component: Option<&str>) -> Option<Kind> {
    match component {
        Some(component) => component_spec(profile, field, component).map(|it| it.kind),
        None => profile.field(field).map(|it| it.kind),
    }
}

/// The label and question of a field or component.
pub fn wording<'p>(
    profile: &'p Profile,
    field: &str,
    component: Option<&str>,
) -> Option<(&'p str, &'p str)> {
    match component {
        Some(component) => component_spec(profile, field, component)
            .map(|it| (it.label.as_str(), it.question.as_str())),
        None => profile.field(field).map(|it| (it.label.as_str(), it.question.as_str())),
    }
}

/// How to acquire a field or component now: search while its source allows and the search
/// budget lasts, else ask while the ask budget lasts.
fn action_for(
    state: &AcqState,
    source: Source,
    field: &str,
    component: Option<&str>,
    cap: u32,
) -> Option<Action> {
    let searches = state.attempts_for(field, component, Action::Search).count() as u32;
    let asks = state.attempts_for(field, component, Action::AskUser).count() as u32;
    match source {
        Source::Web | Source::Either if searches < cap => Some(Action::Search),
        Source::Derived => None,
        _ if asks < cap => Some(Action::AskUser),
        _ => None,
    }
}

/// The first missing, non-derived input under `field` (itself when it is not derived).
fn first_raw_missing(
    profile: &Profile,
    schema: &Schema,
    recipes: &Recipes<'_>,
    field: &str,
    depth: usize,
) -> Option<String> {
    if schema.value(field).is_some() || depth > profile.fields.len() {
        return None;
    }
    match recipes.get(field) {
        None => Some(field.to_owned()),
        Some(RecipeRef::Components(_)) => None,
        Some(RecipeRef::Fields(formula)) => formula
            .names()
            .into_iter()
            .find_map(|input| first_raw_missing(profile, schema, recipes, input, depth + 1)),
    }
}

/// The next acquisition task: first for the fields the calculator is blocked on, then for the
/// components of decomposed fields; only under `only_field` when given. Fields and components
/// whose budgets are spent are skipped.
pub fn next_acquisition_task(
    profile: &Profile,
    state: &AcqState,
    recipes: &Recipes<'_>,
    only_field: Option<&str>,
) -> Option<Task> {
    let cap = profile.caps.max_attempts_per_field;
    let schema = &state.schema;
    let mut order: Vec<&str> = Vec::new();
    for error in state.last_calculation_errors() {
        if let Some(field) = error.strip_prefix("missing input: ")
            && !order.contains(&field)
        {
            order.push(field);
        }
    }
    let blocked_count = order.len();
    for field in &profile.fields {
        if state.dynamic_decompositions.get(&field.name).is_some_and(|it| !it.is_empty())
            && !order.contains(&field.name.as_str())
        {
            order.push(&field.name);
        }
    }
    for (i, field) in order.into_iter().enumerate() {
        if only_field.is_some_and(|only| only != field) || schema.value(field).is_some() {
            continue;
        }
        let components = state.dynamic_decompositions.get(field).filter(|it| !it.is_empty());
        if let Some(components) = components {
            for component in components {
                if schema.component(field, component).is_some() {
                    continue;
                }
                let Some(source) = source_of(profile, field, Some(component)) else { continue };
                if let Some(action) = action_for(state, source, field, Some(component), cap) {
                    return Some(Task {
                        field: field.to_owned(),
                        component: Some(component.clone()),
                        action,
                    });
                }
            }
        } else if i < blocked_count
            && let Some(raw) = first_raw_missing(profile, schema, recipes, field, 0)
            && let Some(source) = source_of(profile, &raw, None)
            && let Some(action) = action_for(state, source, &raw, None, cap)
        {
            return Some(Task { field: raw, component: None, action });
        }
    }
    None
}

/// The search queries tried for a label, in order.
pub fn query_for(label: &str, state: &AcqState, attempt: usize) -> String {
    let label = label.to_lowercase();
    let location = state.idea.location.as_deref().unwrap_or_default().to_lowercase();
    let query = match attempt {
        0 => format!("{label} {location}"),
        1 => label,
        _ => format!("{label} {}", state.idea.text.to_lowercase()),
    };
    query.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A search or ask decision on a field or component.
pub fn decision_for(
    profile: &Profile,
    state: &AcqState,
    field: &str,
    component: Option<&str>,
    action: Action,
    reasoning: String,
) -> Decision {
    let (label, question) = wording(profile, field, component).unwrap_or((field, field));
    let mut decision = Decision::bare(action, reasoning);
    decision.target_field = Some(field.to_owned());
    decision.target_component = component.map(str::to_owned);
    match action {
        Action::Search => {
            let tried = state.attempts_for(field, component, Action::Search).count();
            decision.search_query = Some(query_for(label, state, tried));
        }
        Action::AskUser => decision.user_question = Some(question.to_owned()),
        _ => {}
    }
    decision
}

/// The decision of an acquisition task.
pub fn decision_from_task(profile: &Profile, state: &AcqState, task: &Task) -> Decision {
    let what = match &task.component {
        Some(component) => format!("component {component} of {}", task.field),
        None => task.field.clone(),
    };
    let reasoning = format!("Acquisition task: {} {what}.", task.action.name());
    decision_for(profile, state, &task.field, task.component.as_deref(), task.action, reasoning)
}

/// The calculator's current input values, by name; missing inputs are absent.
pub fn calculator_inputs(calculator: &Calculator, schema: &Schema) -> BTreeMap<String, Value> {
    calculator
        .inputs
        .iter()
        .filter_map(|name| schema.value(name).map(|value| (name.clone(), value.clone())))
        .collect()
}

/// Whether the last calculation succeeded on the values the schema holds now.
pub fn successful_calculation_current(profile: &Profile, state: &AcqState) -> bool {
    match (&profile.calculator, &state.last_calculation) {
        (Some(calculator), Some(last)) => {
            last.status == CalcStatus::Success
                && last.inputs == calculator_inputs(calculator, &state.schema)
        }
        _ => false,
    }
}

/// Turns a decision into `calculate` when every calculator input is known and the last
/// calculation is not a success on those values.
pub fn adjust_calculation_decision(
    profile: &Profile,
    state: &AcqState,
    decision: Decision,
) -> Decision {
    let Some(calculator) = &profile.calculator else { return decision };
    if decision.action == Action::Calculate
        || successful_calculation_current(profile, state)
        || calculator_inputs(calculator, &state.schema).len() < calculator.inputs.len()
    {
        return decision;
    }
    Decision::bare(Action::Calculate, format!("Every input of {} is known.", calculator.name))
}

/// Runs the calculator on the schema.
pub fn run_calculator(
    calculator: &Calculator,
    schema: &Schema,
    currency: Option<&str>,
) -> Calculation {
    let inputs = calculator_inputs(calculator, schema);
    let missing: Vec<String> = calculator
        .inputs
        .iter()
        .filter(|it| !inputs.contains_key(*it))
        .map(|it| format!("missing input: {it}"))
        .collect();
    if !missing.is_empty() {
        return Calculation {
            status: CalcStatus::Blocked,
            errors: missing,
            outputs: Vec::new(),
            inputs,
        };
    }
    let error = |message: String, inputs| Calculation {
        status: CalcStatus::Error,
        errors: vec![message],
        outputs: Vec::new(),
        inputs,
    };
    for (name, value) in &inputs {
        if let (Some(found), Some(expected)) = (value.currency(), currency)
            && found != expected
        {
            return error(
                format!("`{name}` is in {found}, the reporting currency is {expected}"),
                inputs,
            );
        }
    }
    let mut outputs: Vec<(String, Value)> = Vec::new();
    for output in &calculator.outputs {
        let lookup = |name: &str| {
            inputs
                .get(name)
                .and_then(Value::number)
                .or_else(|| outputs.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.number()))
        };
        match output.formula.eval(&lookup) {
            Ok(number) => outputs
                .push((output.name.clone(), Value::from_number(output.kind, number, currency))),
            Err(err) => return error(format!("output `{}`: {err}", output.name), inputs),
        }
    }
    Calculation { status: CalcStatus::Success, errors: Vec::new(), outputs, inputs }
}

/// The first field the calculator is blocked on that has no recipe and can be decomposed.
pub fn first_blocked_field_without_recipe<'a>(
    profile: &Profile,
    errors: &'a [String],
    recipes: &Recipes<'_>,
) -> Option<&'a str> {
    errors.iter().filter_map(|it| it.strip_prefix("missing input: ")).find(|field| {
        !recipes.contains_key(field)
            && profile.field(field).is_some_and(|it| it.components.is_some())
    })
}

/// Redirects a search or ask aimed directly at a derived field to what it is derived from.
pub fn redirect_derived_direct_decision(
    profile: &Profile,
    state: &AcqState,
    recipes: &Recipes<'_>,
    decision: Decision,
) -> Decision {
    let (Action::Search | Action::AskUser, Some(field), None) =
        (decision.action, decision.target_field.as_deref(), decision.target_component.as_deref())
    else {
        return decision;
    };
    match recipes.get(field) {
        None => decision,
        Some(RecipeRef::Components(_)) => {
            match next_acquisition_task(profile, state, recipes, Some(field)) {
                Some(task) => {
                    let mut redirected = decision_from_task(profile, state, &task);
                    redirected.reasoning =
                        format!("{field} is derived from its components; {}", redirected.reasoning);
                    redirected
                }
                None => {
                    Decision::bare(Action::Reflect, format!("{field} waits for its components."))
                }
            }
        }
        Some(RecipeRef::Fields(_)) => {
            let cap = profile.caps.max_attempts_per_field;
            let raw = first_raw_missing(profile, &state.schema, recipes, field, 0);
            let task = raw.and_then(|raw| {
                let source = source_of(profile, &raw, None)?;
                Some((action_for(state, source, &raw, None, cap)?, raw))
            });
            match task {
                Some((action, raw)) => decision_for(
                    profile,
                    state,
                    &raw,
                    None,
                    action,
                    format!("{field} is derived; acquire its input {raw} instead."),
                ),
                None => Decision::bare(Action::Reflect, format!("{field} waits for its inputs.")),
            }
        }
    }
}

/// Redirects a question about a web-sourced field or component that was never searched to a
/// search.
pub fn redirect_premature_ask_for_web_field(
    profile: &Profile,
    state: &AcqState,
    decision: Decision,
) -> Decision {
    let (Action::AskUser, Some(field)) = (decision.action, decision.target_field.as_deref()) else {
        return decision;
    };
    let component = decision.target_component.as_deref();
    let web = matches!(source_of(profile, field, component), Some(Source::Web | Source::Either));
    if !web || state.attempts_for(field, component, Action::Search).next().is_some() {
        return decision;
    }
    decision_for(
        profile,
        state,
        field,
        component,
        Action::Search,
        format!("{field} comes from documents; search before asking."),
    )
}

/// Currency suggestions for a region, most likely first.
pub fn currency_suggestions_for(location: Option<&str>) -> Vec<String> {
    const REGIONS: &[(&[&str], &str)] = &[
        (
            &[
                "germany",
                "berlin",
                "munich",
                "hamburg",
                "france",
                "paris",
                "spain",
                "madrid",
                "italy",
                "rome",
                "netherlands",
                "amsterdam",
                "portugal",
                "lisbon",
                "austria",
                "vienna",
                "ireland",
                "dublin",
            ],
            "EUR",
        ),
        (
            &[
                "united kingdom",
                "uk",
                "england",
                "scotland",
                "wales",
                "london",
                "manchester",
                "edinburgh",
                "leeds",
            ],
            "GBP",
        ),
        (
            &[
                "united states",
                "usa",
                "us",
                "new york",
                "san francisco",
                "chicago",
                "boston",
                "texas",
            ],
            "USD",
        ),
        (&["switzerland", "zurich", "geneva", "basel"], "CHF"),
        (&["japan", "tokyo", "osaka"], "JPY"),
    ];
    let location = location.unwrap_or_default().to_lowercase();
    let words: Vec<&str> =
        location.split(|c: char| !c.is_alphanumeric()).filter(|it| !it.is_empty()).collect();
    let mut out: Vec<String> = Vec::new();
    for (names, code) in REGIONS {
        let hit = names.iter().any(|name| {
            let parts: Vec<&str> = name.split(' ').collect();
            words.windows(parts.len()).any(|window| window == parts.as_slice())
        });
        if hit {
            out.push((*code).to_owned());
        }
    }
    for code in ["EUR", "USD", "GBP"] {
        if !out.iter().any(|it| it == code) {
            out.push(code.to_owned());
        }
    }
    out
}
