//! The typed state of an acquisition run and its updates. Routes are never part of it: each
//! node returns its route beside its update, and the runtime consumes it.

use std::collections::BTreeMap;

use planner_graph::{GraphState, reduce};
use serde::{Deserialize, Serialize};

use crate::{profile::Profile, value::Value};

/// The business idea being evaluated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Idea {
    /// The idea as the user wrote it.
    pub text: String,
    /// Where the business is based, once known.
    pub location: Option<String>,
    /// The reporting currency (ISO code), once known.
    pub currency: Option<String>,
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// The user's answer.
    User {
        /// The answer as typed.
        answer: String,
    },
    /// A document of the corpus.
    Document {
        /// The document id.
        id: String,
        /// Its title.
        title: String,
        /// Who published it.
        source: String,
    },
    /// A formula over other values.
    Derived {
        /// The formula.
        formula: String,
    },
}

/// A value with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filled {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub source: Provenance,
}

/// The fields of the profile with their values, and the values of components.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Schema {
    /// Every profile field; `None` while missing.
    pub fields: BTreeMap<String, Option<Filled>>,
    /// Components by `field.component`.
    pub components: BTreeMap<String, Filled>,
}

impl Schema {
    /// Every field of `profile`, all missing.
    pub fn empty(profile: &Profile) -> Schema {
        Schema {
            fields: profile.fields.iter().map(|it| (it.name.clone(), None)).collect(),
            components: BTreeMap::new(),
        }
    }

    /// The value of field `name`.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.fields.get(name).and_then(Option::as_ref).map(|it| &it.value)
    }

    /// The value of a component.
    pub fn component(&self, field: &str, component: &str) -> Option<&Value> {
        self.components.get(&component_key(field, component)).map(|it| &it.value)
    }
}

/// The key of a component in [`Schema::components`].
pub fn component_key(field: &str, component: &str) -> String {
    format!("{field}.{component}")
}

/// What the planner decided to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Search the documents.
    Search,
    /// Ask the user.
    AskUser,
    /// Take stock without acting.
    Reflect,
    /// Run the calculator.
    Calculate,
    /// Stop.
    Finish,
}

impl Action {
    /// The name used in traces and model replies.
    pub fn name(self) -> &'static str {
        match self {
            Action::Search => "search",
            Action::AskUser => "ask_user",
            Action::Reflect => "reflect",
            Action::Calculate => "calculate",
            Action::Finish => "finish",
        }
    }
}

/// A decision: an action, its target and its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// The action.
    pub action: Action,
    /// The field acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_field: Option<String>,
    /// The component of that field acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_component: Option<String>,
    /// The search query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_query: Option<String>,
    /// The question for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_question: Option<String>,
    /// Suggested answers shown with the question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggested_answers: Vec<String>,
    /// Why.
    pub reasoning: String,
}

impl Decision {
    /// A decision to finish, for `reasoning`.
    pub fn finish(reasoning: impl Into<String>) -> Decision {
        Decision::bare(Action::Finish, reasoning)
    }

    /// A decision without target.
    pub fn bare(action: Action, reasoning: impl Into<String>) -> Decision {
        Decision {
            action,
            target_field: None,
            target_component: None,
            search_query: None,
            user_question: None,
            suggested_answers: Vec::new(),
            reasoning: reasoning.into(),
        }
    }
}

/// One search or question, and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// `search` or `ask_user`.
    pub action: Action,
    /// The field (or `region`, `currency`).
    pub field: String,
    /// The component, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The query or the question.
    pub query_or_question: String,
    /// What came of it.
    pub outcome: String,
}

/// How a calculator run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalcStatus {
    /// Every output computed.
    Success,
    /// Required inputs are missing.
    Blocked,
    /// A formula failed.
    Error,
}

/// One calculator run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calculation {
    /// How it ended.
    pub status: CalcStatus,
    /// Why it did not succeed; for a blocked run, `missing input: <field>` per missing input.
    pub errors: Vec<String>,
    /// The outputs, in calculator order.
    pub outputs: Vec<(String, Value)>,
    /// The inputs it ran on.
    pub inputs: BTreeMap<String, Value>,
}

/// Where the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still running.
    #[default]
    Running,
    /// Finished with a successful calculation, or every field collected.
    Completed,
    /// Finished without a result (iteration cap, model failure).
    Incomplete,
    /// Stopped by a cap that makes going on pointless.
    Aborted,
}

/// A document hit handed from `search` to `observe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// Document id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Publisher.
    pub source: String,
    /// Body text.
    pub body: String,
}

/// The state of an acquisition run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AcqState {
    /// The profile's name.
    pub profile: String,
    /// The idea.
    pub idea: Idea,
    /// Fields and components with their values.
    pub schema: Schema,
    /// Searches and questions so far.
    pub attempts: Vec<Attempt>,
    /// Notes from reflection and composition.
    pub notes: Vec<String>,
    /// Decompositions generated so far: field → component names (empty: none available).
    pub dynamic_decompositions: BTreeMap<String, Vec<String>>,
    /// Calculator runs so far.
    pub calculation_attempts: u32,
    /// The last calculator run.
    pub last_calculation: Option<Calculation>,
    /// The current decision.
    pub decision: Option<Decision>,
    /// Every decision acted on, in order.
    pub decisions: Vec<Decision>,
    /// Passes through `check_termination`.
    pub iterations: u32,
    /// Where the run stands.
    pub status: RunStatus,
    /// The hits of the last search, for `observe`.
    pub hits: Vec<Hit>,
    /// The user's last answer, for `observe_user`.
    pub answer: Option<String>,
}

impl AcqState {
    /// A fresh run of `profile` for `idea`.
    pub fn new(profile: &Profile, idea: Idea) -> AcqState {
        AcqState {
            profile: profile.name.clone(),
            idea,
            schema: Schema::empty(profile),
            ..AcqState::default()
        }
    }

    /// The status of the last calculator run.
    pub fn last_calculation_status(&self) -> Option<CalcStatus> {
        self.last_calculation.as_ref().map(|it| it.status)
    }

    /// The errors of the last calculator run.
    pub fn last_calculation_errors(&self) -> &[String] {
        self.last_calculation.as_ref().map_or(&[], |it| &it.errors)
    }

    /// The attempts on a field (and component), of one action.
    pub fn attempts_for(
        &self,
        field: &str,
        component: Option<&str>,
        action: Action,
    ) -> impl Iterator<Item = &Attempt> {
        self.attempts.iter().filter(move |it| {
            it.field == field && it.component.as_deref() == component && it.action == action
        })
    }
}

/// What a node changes. Absent parts leave the state as it is.
#[derive(Debug, Default)]
pub struct Update {
    /// Replaces the idea.
    pub idea: Option<Idea>,
    /// Replaces the schema.
    pub schema: Option<Schema>,
    /// Appended to the attempts.
    pub attempts: Vec<Attempt>,
    /// Appended to the notes.
    pub notes: Vec<String>,
    /// Replaces the decompositions.
    pub dynamic_decompositions: Option<BTreeMap<String, Vec<String>>>,
    /// Replaces the calculator run count.
    pub calculation_attempts: Option<u32>,
    /// Replaces the last calculator run.
    pub last_calculation: Option<Calculation>,
    /// Replaces the current decision.
    pub decision: Option<Decision>,
    /// Appended to the decision trace.
    pub decisions: Vec<Decision>,
    /// Replaces the iteration count.
    pub iterations: Option<u32>,
    /// Replaces the status.
    pub status: Option<RunStatus>,
    /// Replaces the hits.
    pub hits: Option<Vec<Hit>>,
    /// Replaces the pending answer (`Some(None)` clears it).
    pub answer: Option<Option<String>>,
}

impl Update {
    /// An update setting only the decision.
    pub fn decide(decision: Decision) -> Update {
        Update { decision: Some(decision), ..Update::default() }
    }
}

impl GraphState for AcqState {
    type Update = Update;

    fn apply(&mut self, update: Update) {
        reduce::replace(&mut self.idea, update.idea);
        reduce::replace(&mut self.schema, update.schema);
        reduce::append(&mut self.attempts, update.attempts);
        reduce::append(&mut self.notes, update.notes);
        reduce::replace(&mut self.dynamic_decompositions, update.dynamic_decompositions);
        reduce::replace(&mut self.calculation_attempts, update.calculation_attempts);
        reduce::replace(&mut self.last_calculation, update.last_calculation.map(Some));
        reduce::replace(&mut self.decision, update.decision.map(Some));
        reduce::append(&mut self.decisions, update.decisions);
        reduce::replace(&mut self.iterations, update.iterations);
        reduce::replace(&mut self.status, update.status);
        reduce::replace(&mut self.hits, update.hits);
        reduce::replace(&mut self.answer, update.answer);
    }
}
