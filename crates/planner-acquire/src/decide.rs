//! Deciders: the offline deterministic default, and an OpenAI-compatible model whose reply is
//! constrained by a JSON schema and then checked against the profile.

use std::{fmt, sync::Arc};

use planner_infer::{ChatReply, Constraint, ModelClient};
use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::{
    logic::{
        acquisition_task_summary, actionable_missing, build_recipes, decision_for,
        decision_from_task, missing_leaves, next_acquisition_task,
    },
    profile::{Profile, Source},
    state::{AcqState, Action, Decision},
};

/// The limit on generated tokens for one decision: the decision object (an action, a field and
/// a component, a search query, a question for the user and a reason) runs to about 150 tokens
/// of a small model's vocabulary; a reply cut short is no decision at all.
pub const DECISION_MAX_TOKENS: u32 = 512;

/// Who takes the open decisions of `llm_decide`.
#[derive(Clone)]
pub enum Decider {
    /// The next missing field by source (web, either, user) and priority: no model, no network.
    Offline,
    /// An OpenAI-compatible server.
    Model(Arc<ModelClient>),
}

impl fmt::Debug for Decider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decider::Offline => f.write_str("Offline"),
            Decider::Model(client) => write!(f, "Model({})", client.config().model),
        }
    }
}

impl Decider {
    /// A decision for `state`.
    ///
    /// # Errors
    /// For a model: the call failed, or its reply is not a valid decision for the profile.
    pub async fn decide(&self, profile: &Profile, state: &AcqState) -> Result<Decision, String> {
        match self {
            Decider::Offline => Ok(offline(profile, state)),
            Decider::Model(client) => model(client, profile, state).await,
        }
    }
}

fn source_rank(source: Source) -> u8 {
    match source {
        Source::Web => 0,
        Source::Either => 1,
        Source::User => 2,
        Source::Derived => 3,
    }
}

/// The offline decision: search web and either fields while their search budget lasts, ask the
/// rest, in source then priority order; then open component tasks; then calculate or finish.
pub fn offline(profile: &Profile, state: &AcqState) -> Decision {
    let recipes = build_recipes(profile, &state.dynamic_decompositions);
    let missing = missing_leaves(profile, &state.schema);
    let mut actionable = actionable_missing(&missing, &recipes);
    actionable.sort_by_key(|it| source_rank(it.source));
    let cap = profile.caps.max_attempts_per_field as usize;
    if let Some(field) = actionable.first() {
        let searches = state.attempts_for(&field.name, None, Action::Search).count();
        let action = match field.source {
            Source::Web | Source::Either if searches < cap => Action::Search,
            _ => Action::AskUser,
        };
        let reasoning = format!(
            "Next missing field by source and priority: {} ({}).",
            field.name,
            field.source.name()
        );
        return decision_for(profile, state, &field.name, None, action, reasoning);
    }
    if !acquisition_task_summary(profile, state, &state.schema).is_empty()
        && let Some(task) = next_acquisition_task(profile, state, &recipes, None)
    {
        return decision_from_task(profile, state, &task);
    }
    match &profile.calculator {
        Some(calculator) => Decision::bare(
            Action::Calculate,
            format!("Nothing left to acquire; run {}.", calculator.name),
        ),
        None => Decision::finish("Nothing left to acquire."),
    }
}

/// The JSON schema a model's decision must match: the action from the closed set, the target
/// from the profile's field names (empty for no target).
pub fn decision_schema(profile: &Profile) -> Json {
    let mut targets: Vec<&str> = profile.field_names();
    targets.push("");
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["action", "target_field", "target_component", "search_query", "user_question", "reasoning"],
        "properties": {
            "action": { "type": "string", "enum": ["search", "ask_user", "reflect", "calculate", "finish"] },
            "target_field": { "type": "string", "enum": targets },
            "target_component": { "type": ["string", "null"] },
            "search_query": { "type": ["string", "null"] },
            "user_question": { "type": ["string", "null"] },
            "reasoning": { "type": "string" }
        }
    })
}

fn prompt(profile: &Profile, state: &AcqState) -> (String, String) {
    let system = format!(
        "You plan the collection of inputs for the calculator `{}` of the profile `{}`. \
         Reply with one JSON decision: search documents for a missing field, ask the user, \
         reflect, calculate once every input is known, or finish.",
        profile.calculator.as_ref().map_or("none", |it| it.name.as_str()),
        profile.name
    );
    let fields: Vec<Json> = profile
        .fields
        .iter()
        .map(|field| {
            json!({
                "name": field.name,
                "type": field.kind.name(),
                "source": field.source.name(),
                "label": field.label,
                "value": state.schema.value(&field.name).map(ToString::to_string),
                "components": state.dynamic_decompositions.get(&field.name),
            })
        })
        .collect();
    let attempts: Vec<Json> = state
        .attempts
        .iter()
        .map(|it| {
            json!([it.action.name(), it.field, it.component, it.query_or_question, it.outcome])
        })
        .collect();
    let user = json!({
        "idea": state.idea,
        "fields": fields,
        "attempts": attempts,
        "notes": state.notes,
        "iterations": state.iterations,
        "max_iters": profile.caps.max_iters,
        "last_calculation": state.last_calculation.as_ref().map(|it| json!({"status": it.status, "errors": it.errors})),
    });
    (system, user.to_string())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply {
    action: Action,
    target_field: String,
    target_component: Option<String>,
    search_query: Option<String>,
    user_question: Option<String>,
    reasoning: String,
}

async fn model(
    client: &ModelClient,
    profile: &Profile,
    state: &AcqState,
) -> Result<Decision, String> {
    let (system, user) = prompt(profile, state);
    let schema = decision_schema(profile);
    let constraint = Constraint::Schema { name: "acquisition_decision", schema: &schema };
    let reply = client
        .chat(&[("system", &system), ("user", &user)], constraint, 0.0)
        .await
        .map_err(|err| err.to_string())?;
    let content = match reply {
        ChatReply::Contents(contents) => {
            contents.into_iter().next().ok_or("no choice in the reply")?
        }
        ChatReply::Unusable(why) => return Err(format!("unusable reply: {why}")),
    };
    parse_decision(profile, &content)
}

fn nonempty(text: Option<String>) -> Option<String> {
    text.map(|it| it.trim().to_owned()).filter(|it| !it.is_empty())
}

/// Parses and checks a model's decision against the profile.
///
/// # Errors
/// Not JSON of the schema's shape, a target outside the profile, or a search without query or
/// a question without text.
pub fn parse_decision(profile: &Profile, content: &str) -> Result<Decision, String> {
    let reply: Reply =
        serde_json::from_str(content.trim()).map_err(|err| format!("not a decision: {err}"))?;
    let target = nonempty(Some(reply.target_field));
    if let Some(field) = &target
        && profile.field(field).is_none()
    {
        return Err(format!("target field `{field}` is not a field of the profile"));
    }
    let component = nonempty(reply.target_component);
    if let Some(component) = &component {
        let known = target
            .as_deref()
            .and_then(|field| profile.field(field))
            .and_then(|field| field.components.as_ref())
            .is_some_and(|it| it.components.iter().any(|c| &c.name == component));
        if !known {
            return Err(format!("target component `{component}` is not a component of the target"));
        }
    }
    let mut decision = Decision::bare(reply.action, reply.reasoning.trim());
    decision.target_field = target;
    decision.target_component = component;
    decision.search_query = nonempty(reply.search_query);
    decision.user_question = nonempty(reply.user_question);
    match decision.action {
        Action::Search | Action::AskUser if decision.target_field.is_none() => {
            Err(format!("{} without a target field", decision.action.name()))
        }
        Action::Search if decision.search_query.is_none() => Err("search without a query".into()),
        Action::AskUser if decision.user_question.is_none() => {
            Err("ask_user without a question".into())
        }
        _ => Ok(decision),
    }
}
