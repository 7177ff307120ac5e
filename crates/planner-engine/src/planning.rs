//! The planning half of the graph, pure but for the proposer call: extract params (question and
//! clarification answers), route the question, propose, stabilize, validate and decide the
//! route. `planner plan` and `planner eval` use it without a database; the planner graph's nodes
//! call the same functions one step at a time.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use planner_extract::{Extraction, Extractor, Mention};
use planner_grammar::{
    Agreement, ConsensusOutcome, DropReason, Inputs, NodeOrigin, Plan, Validation, stabilize,
    validate,
};
use planner_infer::{Catalog, LexicalPick, LexicalProposer, ParamSpan, ProposeRequest, Proposer};
use planner_registry::{ParamId, ParamKind, Registry, Role, Value};
use serde::{Deserialize, Serialize};

use crate::screen::{Refusal, Screen};

/// The route of a question, as the spec names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Route {
    /// Exactly one intent binds: it runs without sampling.
    Single,
    /// A validated plan of 2 to 6 nodes.
    Plan,
    /// A relevant intent lacks a required param: the user is asked.
    Clarify,
    /// The question asks about protected attributes or to rank people.
    Refused,
    /// Nothing in the registry is relevant and bindable.
    Unplannable,
}

impl Route {
    /// The spec's name of the route.
    pub const fn as_str(self) -> &'static str {
        match self {
            Route::Single => "single",
            Route::Plan => "plan",
            Route::Clarify => "clarify",
            Route::Refused => "refused",
            Route::Unplannable => "unplannable",
        }
    }
}

/// The params found in the question and the clarification answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// The question's mentions, in order of position (for spans).
    pub mentions: Vec<ParamMention>,
    /// Kinds with two different values in the question and no answer settling them.
    pub ambiguous: BTreeSet<ParamKind>,
    /// Of those, the kinds one word of the question names several values of ("Denver" for
    /// two branches): asked about even where the value is optional.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub unsure: BTreeSet<ParamKind>,
    /// The available values, one per kind.
    pub available: BTreeMap<ParamKind, Value>,
    /// The values told apart by role ("from Seattle to Denver"), one per kind and role, for
    /// the kinds the registry gives roles: what params with a role bind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", with = "role_values")]
    pub roles: BTreeMap<(ParamKind, Role), Value>,
    /// The question refers back to what another of its asks names ("how reliable were they"):
    /// an optional param it leaves to its default binds through an edge instead (see
    /// `planner_grammar::Inputs::refers`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refers: bool,
}

/// One value found in the question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamMention {
    /// Its kind.
    pub kind: ParamKind,
    /// Its canonical value.
    pub value: Value,
    /// Byte range `[start, end)` in the question.
    pub span: (usize, usize),
    /// The end of a directed pair the question makes it, for a kind the registry gives roles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

impl Params {
    /// Runs the extractors over the question, then over each clarification answer in order: a
    /// kind found unambiguously in an answer replaces the question's value and settles its
    /// ambiguity. The user's words, never a model's, become values.
    pub fn extract(extractor: &Extractor, question: &str, answers: &[String]) -> Params {
        Params::extract_with(extractor, question, answers).0
    }

    /// As [`Params::extract`], also returning the question's own extraction.
    pub fn extract_with(
        extractor: &Extractor,
        question: &str,
        answers: &[String],
    ) -> (Params, Extraction) {
        let extraction = extractor.extract(question);
        (Params::extract_after(extractor, question, &extraction, answers), extraction)
    }

    /// As [`Params::extract`], from the question's own extraction (already made).
    pub(crate) fn extract_after(
        extractor: &Extractor,
        question: &str,
        extraction: &Extraction,
        answers: &[String],
    ) -> Params {
        let mut params = Params::from_extraction(extraction);
        params.refers = refers_back(question, extractor.kind_nouns());
        for answer in answers {
            let more = extractor.extract(answer);
            params.roles.extend(more.roles());
            for (kind, value) in more.available() {
                let asked = params.ambiguous.remove(&kind) | params.unsure.remove(&kind);
                // The one name the user was asked about means what the answer says ("Eastside"
                // is the compost site): the question's words are that value, not another.
                let mut spans = params.mentions.iter().filter(|m| m.kind == kind).map(|m| m.span);
                let one_name = spans.next().is_some_and(|first| spans.all(|it| it == first));
                if asked && one_name {
                    for mention in params.mentions.iter_mut().filter(|m| m.kind == kind) {
                        mention.value = value.clone();
                    }
                }
                params.available.insert(kind, value);
            }
            params.take_other_ends(&more);
        }
        params
    }

    /// After an answer: of a kind with exactly one end told, the one value the question or the
    /// answer gives without a cue (other than the told one) is the other end, as it would be in
    /// one question ("from Seattle", then "Denver" when asked for the destination; "Seattle
    /// volume", then "to Reno").
    fn take_other_ends(&mut self, answer: &Extraction) {
        let kinds: BTreeSet<ParamKind> = self.roles.keys().map(|&(kind, _)| kind).collect();
        for kind in kinds {
            let told: Vec<(Role, &Value)> = self
                .roles
                .iter()
                .filter(|((k, _), _)| *k == kind)
                .map(|(&(_, role), value)| (role, value))
                .collect();
            let [(role, told)] = told.as_slice() else { continue };
            let mut unmarked: Vec<&Value> = Vec::new();
            let question = self.mentions.iter().map(|m| (m.kind, m.role, &m.value));
            let answered = answer.params.iter().map(|m| (m.kind, m.role, &m.value));
            for (_, _, value) in
                question.chain(answered).filter(|&(k, r, _)| k == kind && r.is_none())
            {
                if value != *told && !unmarked.contains(&value) {
                    unmarked.push(value);
                }
            }
            if let [value] = unmarked.as_slice() {
                let entry = ((kind, role.other()), (*value).clone());
                self.roles.insert(entry.0, entry.1);
            }
        }
    }

    /// The kinds the question gives a value the plan may bind: available ones, and those told
    /// apart by role; not a kind whose values are only second readings of words another kind
    /// read first ([`Params::second_readings`]): the proposer hears those words once.
    pub fn kinds(&self) -> BTreeSet<ParamKind> {
        let mut kinds: BTreeSet<ParamKind> = self.available.keys().copied().collect();
        kinds.extend(self.roles.keys().map(|&(kind, _)| kind));
        let second = self.second_readings();
        kinds.retain(|kind| !second.contains(kind));
        kinds
    }

    /// Whether mention `at` is the second reading of words another kind read first: the
    /// extractors give a window a duration kind took ("over the past 9 weeks") also as the period
    /// it ends at the data's date, on the same span; the period is the second reading.
    fn is_second_reading(&self, at: usize) -> bool {
        let mention = &self.mentions[at];
        mention.kind.is_period()
            && self.mentions.iter().any(|it| it.span == mention.span && !it.kind.is_period())
    }

    /// The kinds whose every value is a second reading: an intent taking one binds it, but it
    /// neither picks intents nor counts as a value the question gives beside the first.
    pub fn second_readings(&self) -> BTreeSet<ParamKind> {
        let kinds: BTreeSet<ParamKind> = self.mentions.iter().map(|it| it.kind).collect();
        kinds
            .into_iter()
            .filter(|&kind| {
                (0..self.mentions.len())
                    .filter(|&at| self.mentions[at].kind == kind)
                    .all(|at| self.is_second_reading(at))
            })
            .collect()
    }

    fn from_extraction(extraction: &Extraction) -> Params {
        let mentions = extraction
            .params
            .iter()
            .map(|Mention { kind, value, span, role }| ParamMention {
                kind: *kind,
                value: value.clone(),
                span: (span.start, span.end),
                role: *role,
            })
            .collect();
        Params {
            mentions,
            ambiguous: extraction.ambiguous.clone(),
            unsure: extraction.unsure.clone(),
            available: extraction.available(),
            roles: extraction.roles(),
            refers: false,
        }
    }

    /// The distinct values the question gave for an ambiguous kind, in order of position.
    pub fn candidates(&self, kind: ParamKind) -> Vec<Value> {
        let mut seen = Vec::new();
        for mention in self.mentions.iter().filter(|it| it.kind == kind) {
            if !seen.contains(&mention.value) {
                seen.push(mention.value.clone());
            }
        }
        seen
    }

    fn spans(&self) -> Vec<ParamSpan> {
        self.mentions
            .iter()
            .map(|it| ParamSpan { kind: it.kind, start: it.span.0, end: it.span.1, role: it.role })
            .collect()
    }
}

/// What the proposer step produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposed {
    /// K proposals of raw names.
    pub samples: Vec<Vec<String>>,
    /// Names outside the closed set a model returned (dropped, counted).
    pub dropped_names: usize,
    /// Replies that were unusable and became empty proposals.
    pub unusable_replies: usize,
    /// The configured proposer failed, and how; the lexical proposer answered instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<ProposerFailure>,
    /// With K > 1 model samples, the lexical proposer's names: the deterministic path taken
    /// when the samples share no majority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical: Option<Vec<String>>,
}

impl Proposed {
    /// The configured proposer failed and the lexical proposer answered instead.
    pub fn fell_back(&self) -> bool {
        self.failure.is_some()
    }
}

/// How the configured proposer failed when the lexical proposer had to answer instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ProposerFailure {
    /// No reply within the proposer timeout.
    Timeout,
    /// The model server could not be reached, answered an error status after its retries, or
    /// its circuit breaker is open.
    Unavailable,
    /// A reply came but named nothing of the closed set, or could not be used at all.
    Garbage,
    /// The proposer's configuration is unusable.
    Config,
    /// The K samples share no majority (the design's deterministic fallback).
    NoMajority,
}

impl ProposerFailure {
    /// Every kind, in order.
    pub const ALL: [ProposerFailure; 5] = [
        ProposerFailure::Timeout,
        ProposerFailure::Unavailable,
        ProposerFailure::Garbage,
        ProposerFailure::Config,
        ProposerFailure::NoMajority,
    ];

    /// The kind's name (`timeout`, `unavailable`, `garbage`, `config`, `no_majority`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ProposerFailure::Timeout => "timeout",
            ProposerFailure::Unavailable => "unavailable",
            ProposerFailure::Garbage => "garbage",
            ProposerFailure::Config => "config",
            ProposerFailure::NoMajority => "no_majority",
        }
    }

    /// The kind of an inference error.
    pub fn of(err: &planner_infer::Error) -> ProposerFailure {
        use planner_infer::Error;
        match err {
            Error::Timeout(_) => ProposerFailure::Timeout,
            Error::Status { .. } | Error::CircuitOpen | Error::Transport(_) => {
                ProposerFailure::Unavailable
            }
            Error::UnusableReply(_) => ProposerFailure::Garbage,
            Error::Config(_) => ProposerFailure::Config,
        }
    }
}

/// The planning components shared by every run: the frozen registry, the lexical index (used
/// for routing and as the deterministic fallback) and the configured proposer.
#[derive(Debug, Clone)]
pub struct Planner {
    registry: Registry,
    /// The screen grounded on the registry's vocabulary.
    screen: Arc<Screen>,
    /// The extractors of the registry's kinds, compiled once.
    extractor: Arc<Extractor>,
    lexical: Arc<LexicalProposer>,
    /// The configured model proposer; `None` when the lexical proposer is the proposer.
    model: Option<Arc<dyn Proposer>>,
    samples: usize,
    timeout: Duration,
}

/// Everything planning decided, for `planner plan --json`, `planner eval` and the answer.
#[derive(Debug, Clone)]
pub struct Planning {
    /// The route.
    pub route: Route,
    /// Why the question was refused.
    pub refusal: Option<Refusal>,
    /// The params.
    pub params: Params,
    /// The proposals (one sample, the single intent, on the single route).
    pub proposed: Proposed,
    /// The validated, stabilized plan and what was dropped.
    pub validation: Validation,
    /// The self-consistency outcome (absent on the single and refused routes).
    pub consensus: Option<ConsensusOutcome>,
    /// The params a relevant intent lacks (route clarify), in registry order.
    pub missing: Vec<ParamId>,
    /// The lexical pick's names and its unanswered asks, when planning made one: reused by
    /// [`Planner::unanswered`] when the plan holds exactly those names.
    pub(crate) pick: Option<LexicalPick>,
}

impl Planner {
    /// A planner over `registry` with `proposer` asked for `samples` proposals (K). The lexical
    /// proposer routes questions and answers whenever the configured proposer fails.
    pub fn new(registry: Registry, proposer: Option<Arc<dyn Proposer>>, samples: usize) -> Planner {
        let extractor = Arc::new(Extractor::new(&registry));
        let catalog = Catalog::from_registry_with(&registry, &extractor);
        let lexical = Arc::new(LexicalProposer::new(&catalog));
        let samples = if proposer.is_some() { samples.max(1) } else { 1 };
        let screen = Arc::new(Screen::new(&registry));
        Planner {
            registry,
            screen,
            extractor,
            lexical,
            model: proposer,
            samples,
            timeout: Duration::from_secs(10),
        }
    }

    /// Bounds the time the configured proposer may take; past it the lexical proposer answers.
    /// The default is 10 s.
    pub fn with_proposer_timeout(mut self, timeout: Duration) -> Planner {
        self.timeout = timeout;
        self
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The extractors of the registry's kinds.
    pub fn extractor(&self) -> &Extractor {
        &self.extractor
    }

    /// The screen over the registry.
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// K.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Plans a question without running anything. `rounds_left` says whether the planner may
    /// still ask the user (at most 2 rounds); when it may not, unbindable intents are dropped
    /// and the plan goes on without them.
    pub async fn plan(
        &self,
        question: &str,
        answers: &[String],
        scopes: &[String],
        rounds_left: bool,
    ) -> Planning {
        let (params, extraction) = Params::extract_with(&self.extractor, question, answers);
        if let Some(refusal) = self.screen.check(question, &extraction) {
            return Planning {
                route: Route::Refused,
                refusal: Some(refusal),
                params,
                proposed: Proposed::default(),
                validation: Validation::default(),
                consensus: None,
                missing: Vec::new(),
                pick: None,
            };
        }
        let pick = self.lexical_pick(question, &params);
        let (proposed, single) = match self.single_of(&pick, &params, scopes) {
            Some(name) => (Proposed { samples: vec![vec![name]], ..Proposed::default() }, true),
            // The lexical proposer would pick the same names again: reuse them.
            None if self.is_lexical() => {
                (Proposed { samples: vec![pick.names.clone()], ..Proposed::default() }, false)
            }
            None => (self.propose(question, &params).await, false),
        };
        let mut planning = self.decide(params, proposed, scopes, single, rounds_left);
        planning.pick = Some(pick);
        planning
    }

    fn lexical_pick(&self, question: &str, params: &Params) -> LexicalPick {
        self.lexical.pick(question, &self.kinds(params), &params.spans())
    }

    fn single_of(&self, pick: &LexicalPick, params: &Params, scopes: &[String]) -> Option<String> {
        let [name] = pick.names.as_slice() else { return None };
        if pick.compound {
            return None;
        }
        let inputs = Inputs {
            available: &params.available,
            roles: &params.roles,
            scopes,
            refers: params.refers,
        };
        let validation = validate(&self.registry, &inputs, std::slice::from_ref(name));
        (validation.plan.nodes.len() == 1 && validation.dropped.is_empty()).then(|| name.clone())
    }

    /// The single route: the lexical index finds exactly one relevant intent in a question that
    /// asks one thing, and it binds. Returns its name.
    pub fn route_single(
        &self,
        question: &str,
        params: &Params,
        scopes: &[String],
    ) -> Option<String> {
        self.route_single_with_pick(question, params, scopes).0
    }

    /// [`Planner::route_single`], with the lexical pick it was decided from (which
    /// [`Planner::unanswered`] reuses when the plan holds exactly its names).
    pub(crate) fn route_single_with_pick(
        &self,
        question: &str,
        params: &Params,
        scopes: &[String],
    ) -> (Option<String>, LexicalPick) {
        let pick = self.lexical_pick(question, params);
        (self.single_of(&pick, params, scopes), pick)
    }

    /// Asks the configured proposer for K proposals; on error, the lexical proposer answers.
    pub async fn propose(&self, question: &str, params: &Params) -> Proposed {
        let kinds = self.kinds(params);
        let spans = params.spans();
        let request =
            ProposeRequest { question, available: &kinds, spans: &spans, samples: self.samples };
        let answer = match &self.model {
            None => self.lexical.propose(request).await,
            Some(model) => match tokio::time::timeout(self.timeout, model.propose(request)).await {
                Ok(answer) => answer,
                Err(_) => Err(planner_infer::Error::Timeout(self.timeout)),
            },
        };
        match answer {
            // A reply naming nothing of the closed set is garbage: the lexical proposer answers.
            Ok(proposals)
                if self.is_lexical()
                    || proposals
                        .samples
                        .iter()
                        .flatten()
                        .any(|name| self.registry.intent_id(name).is_some()) =>
            {
                let several = !self.is_lexical() && proposals.samples.len() > 1;
                Proposed {
                    samples: proposals.samples,
                    dropped_names: proposals.dropped_names,
                    unusable_replies: proposals.unusable_replies,
                    failure: None,
                    lexical: several.then(|| self.lexical.pick(question, &kinds, &spans).names),
                }
            }
            outcome => {
                let failure = match &outcome {
                    Err(err) => {
                        tracing::warn!("proposer failed, the lexical proposer answers: {err}");
                        ProposerFailure::of(err)
                    }
                    Ok(_) => {
                        tracing::warn!(
                            "the proposer named nothing of the registry, the lexical proposer \
                             answers"
                        );
                        ProposerFailure::Garbage
                    }
                };
                let (dropped_names, unusable_replies) =
                    outcome.map(|it| (it.dropped_names, it.unusable_replies)).unwrap_or((0, 0));
                let pick = self.lexical.pick(question, &kinds, &spans);
                Proposed {
                    samples: vec![pick.names],
                    dropped_names,
                    unusable_replies,
                    failure: Some(failure),
                    lexical: None,
                }
            }
        }
    }

    /// The values the question gave that no planned node binds (routes `single` and `plan`;
    /// empty otherwise), each named with why, in question order: the words, the kind, and
    /// that no planned intent takes a value of it, or that the question gave two.
    pub fn not_applied(&self, question: &str, planning: &Planning) -> Vec<String> {
        if !matches!(planning.route, Route::Single | Route::Plan) {
            return Vec::new();
        }
        let plan = &planning.validation.plan;
        // The values the plan's nodes took from the question, by kind (an intent's range may
        // have clamped one: "top 500" under `max = 50`).
        let applied = |kind: ParamKind| {
            plan.nodes.iter().flat_map(|node| &node.args).filter_map(move |arg| match &arg.source {
                planner_grammar::ArgSource::Available(value) if arg.kind == kind => Some(value),
                _ => None,
            })
        };
        let mut out: Vec<String> = Vec::new();
        let mut push = |line: String| {
            if !out.contains(&line) {
                out.push(line);
            }
        };
        let mentions = &planning.params.mentions;
        // Words two kinds read are one value: applied when either reading is, said once when
        // neither is.
        let read_too = |at: usize| {
            mentions.iter().enumerate().filter(move |&(other, it)| {
                other != at && it.span == mentions[at].span && it.kind != mentions[at].kind
            })
        };
        for (at, mention) in mentions.iter().enumerate() {
            if planning.params.is_second_reading(at)
                || read_too(at).any(|(_, other)| applied(other.kind).next().is_some())
            {
                continue;
            }
            let words = question.get(mention.span.0..mention.span.1).unwrap_or_default().trim();
            let noun = kind_noun(&self.registry, mention.kind);
            if let Some(first) = applied(mention.kind).next() {
                if !applied(mention.kind).any(|value| *value == mention.value) {
                    push(format!(
                        "\"{words}\" ({noun}) was applied as {first}: the nearest the planned \
                         intent takes"
                    ));
                }
                continue;
            }
            let why = if planning.params.ambiguous.contains(&mention.kind) {
                format!("the question gives more than one {noun}")
            } else {
                format!("no planned intent takes a {noun}")
            };
            push(format!("\"{words}\" ({noun}) was not applied: {why}"));
        }
        out
    }

    /// The parts of `question` that `planning`'s plan does not answer (routes `single` and
    /// `plan`; empty otherwise): each ask of the question in which no planned intent (a
    /// composite counted by its own name) has a strong term and whose best intent was not
    /// planned, as the question words it, in question order.
    pub fn unanswered(&self, question: &str, planning: &Planning) -> Vec<String> {
        if !matches!(planning.route, Route::Single | Route::Plan) {
            return Vec::new();
        }
        let names: Vec<String> =
            intent_set(&self.registry, &planning.validation.plan).into_iter().collect();
        let ranges = match &planning.pick {
            // The pick's names are in catalog order, the plan's sorted: compare as sets.
            Some(pick)
                if pick.names.len() == names.len()
                    && pick.names.iter().all(|it| names.contains(it)) =>
            {
                pick.unanswered.clone()
            }
            _ => {
                let kinds = self.kinds(&planning.params);
                self.lexical.unanswered(question, &kinds, &planning.params.spans(), &names)
            }
        };
        ranges
            .into_iter()
            .filter_map(|(start, end)| question.get(start..end))
            .map(|part| part.trim_matches(|ch: char| ch.is_whitespace() || ",.;:?!".contains(ch)))
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The kinds the proposer hears the question give: [`Params::kinds`], a kind the registry
    /// gives roles written with two values not yet told apart (what a lane intent takes, once
    /// the user says which end each is), and an unsure kind (one value, the user to say which).
    fn kinds(&self, params: &Params) -> BTreeSet<ParamKind> {
        let mut kinds = params.kinds();
        kinds.extend(params.ambiguous.iter().copied().filter(|&k| self.registry.has_roles(k)));
        kinds.extend(params.unsure.iter().copied());
        kinds
    }

    fn is_lexical(&self) -> bool {
        self.model.is_none()
    }

    /// Stabilizes the proposals, validates, and decides the route. When K > 1 model samples
    /// share no majority, the lexical proposer's names are planned instead (the design's
    /// deterministic fallback), marked `no_majority`; the consensus outcome stays the samples'.
    pub fn decide(
        &self,
        params: Params,
        mut proposed: Proposed,
        scopes: &[String],
        single: bool,
        rounds_left: bool,
    ) -> Planning {
        let inputs = Inputs {
            available: &params.available,
            roles: &params.roles,
            scopes,
            refers: params.refers,
        };
        let mut consensus = stabilize(&self.registry, &inputs, &proposed.samples);
        if consensus.outcome.agreement == Agreement::NoMajority
            && proposed.failure.is_none()
            && let Some(lexical) = proposed.lexical.take()
        {
            tracing::info!("the samples share no majority, the lexical proposer answers");
            let outcome = consensus.outcome;
            proposed.samples = vec![lexical];
            proposed.failure = Some(ProposerFailure::NoMajority);
            consensus = stabilize(&self.registry, &inputs, &proposed.samples);
            consensus.outcome = outcome;
        }
        let mut validation = consensus.validation;
        let missing = self.missing_params(&inputs, &proposed.samples, &validation, &params.unsure);
        let route = if !missing.is_empty() && rounds_left {
            Route::Clarify
        } else if validation.plan.is_empty() {
            Route::Unplannable
        } else if single || intent_set(&self.registry, &validation.plan).len() == 1 {
            Route::Single
        } else {
            Route::Plan
        };
        if route == Route::Unplannable {
            validation.plan = Default::default();
        }
        let consensus = (!single).then_some(consensus.outcome);
        Planning {
            route,
            refusal: None,
            params,
            proposed,
            validation,
            consensus,
            missing,
            pick: None,
        }
    }

    /// The required params that relevant intents lack: those of intents dropped as unbindable
    /// in a strict majority of the validated samples (with one sample, in that sample); and
    /// any param of an `unsure` kind a planned node takes.
    fn missing_params(
        &self,
        inputs: &Inputs<'_>,
        samples: &[Vec<String>],
        stabilized: &Validation,
        unsure: &BTreeSet<ParamKind>,
    ) -> Vec<ParamId> {
        let mut votes: BTreeMap<ParamId, usize> = BTreeMap::new();
        let per_sample: Vec<Validation> = if samples.len() == 1 {
            vec![stabilized.clone()]
        } else {
            samples.iter().map(|sample| validate(&self.registry, inputs, sample)).collect()
        };
        for validation in &per_sample {
            let mut seen = BTreeSet::new();
            for dropped in &validation.dropped {
                if let DropReason::Unbindable { missing } = &dropped.reason {
                    seen.extend(missing.iter().copied());
                }
            }
            for param in seen {
                *votes.entry(param).or_default() += 1;
            }
        }
        let mut missing: Vec<ParamId> = votes
            .into_iter()
            .filter(|&(_, count)| 2 * count > per_sample.len())
            .map(|(param, _)| param)
            .collect();
        // A value one word names several of ("Denver": two branches) is asked about wherever
        // a planned node takes it, required or not: its default would answer another question.
        for node in &stabilized.plan.nodes {
            for arg in &node.args {
                if unsure.contains(&arg.kind) && !missing.contains(&arg.param) {
                    missing.push(arg.param);
                }
            }
        }
        missing.sort_by_key(|param| param.index());
        missing
    }

    /// The question to ask the user for the missing params, and suggestions (the candidates of
    /// an ambiguous kind).
    pub fn clarification(&self, params: &Params, missing: &[ParamId]) -> (String, Vec<String>) {
        let mut asks = Vec::new();
        let mut suggestions = Vec::new();
        for &param in missing {
            let kind = self.registry.param(param).kind;
            if let Some(role) = self.registry.param(param).role {
                self.ask_for_end(params, missing, param, role, &mut asks, &mut suggestions);
                continue;
            }
            let candidates = params.candidates(kind);
            if params.ambiguous.contains(&kind) && candidates.len() > 1 {
                let listed: Vec<String> = candidates.iter().map(Value::to_string).collect();
                let named: Vec<String> =
                    listed.iter().map(|value| value_name(&self.registry, kind, value)).collect();
                asks.push(format!(
                    "{} do you mean: {}?",
                    which(&self.registry, kind),
                    named.join(" or ")
                ));
                suggestions.extend(listed);
            } else {
                asks.push(format!("{} do you mean?", which(&self.registry, kind)));
                suggestions.extend(examples_of(&self.registry, kind));
            }
        }
        (asks.join(" "), suggestions)
    }

    /// The question for a missing param with a role. When both ends of its kind are missing
    /// and the question gave values of the kind without saying which end each is, it names
    /// them and says how to tell them apart (once for the pair); otherwise it asks for the one
    /// end, as for any missing value.
    fn ask_for_end(
        &self,
        params: &Params,
        missing: &[ParamId],
        param: ParamId,
        role: Role,
        asks: &mut Vec<String>,
        suggestions: &mut Vec<String>,
    ) {
        let kind = self.registry.param(param).kind;
        let other = missing.iter().copied().find(|&other| {
            other != param
                && self.registry.param(other).kind == kind
                && self.registry.param(other).role == Some(role.other())
        });
        let label = kind_noun(&self.registry, kind);
        let Some(other) = other else {
            asks.push(format!("Which {} {label} do you mean?", role.noun()));
            return;
        };
        if other.index() < param.index() {
            return; // asked with the other end
        }
        let given: Vec<String> = params.candidates(kind).iter().map(Value::to_string).collect();
        let (from, to) = (Role::From.noun(), Role::To.noun());
        match given.as_slice() {
            [] => {
                asks.push(format!("Which {from} {label} do you mean? Which {to} {label}?"));
            }
            [one] => asks.push(format!(
                "Is {one} the {from} or the {to}, and which {label} is the other end? Say \
                 \"from {one} to\" or \"to {one} from\" the other {label}."
            )),
            [first, second] => {
                asks.push(format!(
                    "Which {label} is the {from} and which the {to}: {first} or {second}? Say \
                     \"from {first} to {second}\" or \"from {second} to {first}\"."
                ));
                suggestions.push(format!("from {first} to {second}"));
                suggestions.push(format!("from {second} to {first}"));
            }
            [first, second, ..] => {
                let (last, rest) = given.split_last().unwrap_or((first, &[]));
                asks.push(format!(
                    "Which {label} is the {from} and which the {to}: {} or {last}? Say, for \
                     example, \"from {first} to {second}\".",
                    rest.join(", ")
                ));
            }
        }
    }
}

/// The most values of a kind a clarifying question lists as suggestions: a vocabulary larger
/// than this is no list to choose from.
const SUGGESTED: usize = 12;

/// Every value of a declared kind with a small closed vocabulary, to suggest with a clarifying
/// question: a dictionary's values in its order, a code list's codes sorted. Nothing for an
/// open kind or one of more than [`SUGGESTED`] values.
fn examples_of(registry: &Registry, kind: ParamKind) -> Vec<String> {
    let Some(spec) = registry.kind_spec(kind) else { return Vec::new() };
    // Counted before anything is copied: a long list (an agency dictionary) suggests nothing.
    match &spec.body {
        planner_registry::KindBody::Dictionary { entries, .. } if entries.len() <= SUGGESTED => {
            entries.iter().map(|entry| entry.value.clone()).collect()
        }
        planner_registry::KindBody::Code { codes, .. } if codes.len() <= SUGGESTED => {
            codes.keys().cloned().collect()
        }
        _ => Vec::new(),
    }
}

/// How a user is shown `value` of `kind`: a dictionary value written as an identifier (lower
/// case, no space: `oak_park_north`) by its name, its first alias as written ("oak park
/// north"), with the value a script answers by beside it when their words differ ("Denver
/// airport (den_airport)"); a value written as a name ("Department of the Army") and any
/// other value as it is.
fn value_name(registry: &Registry, kind: ParamKind, value: &str) -> String {
    if value.contains(' ') || value.chars().any(char::is_uppercase) {
        return value.to_owned();
    }
    let Some(spec) = registry.kind_spec(kind) else { return value.to_owned() };
    let planner_registry::KindBody::Dictionary { entries, .. } = &spec.body else {
        return value.to_owned();
    };
    let name = entries.iter().find(|entry| entry.value == value).and_then(|it| it.name.as_ref());
    let words = planner_registry::alias_words;
    match name {
        Some(name) if words(name) == words(value) => name.clone(),
        Some(name) => format!("{name} ({value})"),
        None => value.to_owned(),
    }
}

/// The noun of a kind: its declared label, or the built-in kind's noun.
fn kind_noun(registry: &Registry, kind: ParamKind) -> String {
    if let Some(spec) = registry.kind_spec(kind) {
        return spec.label.clone();
    }
    which(registry, kind).trim_start_matches("Which ").to_owned()
}

/// The start of the question that asks for a value of `kind`: a declared kind's label, or the
/// built-in kind's noun.
fn which(registry: &Registry, kind: ParamKind) -> String {
    let noun = match kind {
        ParamKind::Agency => "agency",
        ParamKind::Naics => "NAICS code",
        ParamKind::Uuid => "requirement (its id)",
        ParamKind::Clearance => "clearance level",
        ParamKind::Compartments => "compartments",
        ParamKind::Uei => "vendor (its UEI)",
        ParamKind::Months => "time window",
        ParamKind::Declared(_) => {
            let label = registry.kind_spec(kind).map_or(kind.as_str(), |spec| spec.label.as_str());
            return format!("Which {label}");
        }
    };
    format!("Which {noun}")
}

/// Whether a question refers back to what another of its asks names: a pronoun for things
/// named before ("they", "them", "their", "those", "these", "its"), "each of them", "the
/// same" ("its vendor", "the same vendor": the one the other ask gives), or "that" or "this"
/// before a noun a kind of the registry is called by (`nouns`: "that vendor", "this depot's").
fn refers_back(question: &str, nouns: &[String]) -> bool {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let names_a_kind = |word: &str| {
        let singular = word.strip_suffix('s').unwrap_or(word);
        nouns.iter().any(|noun| noun == word || noun == singular)
    };
    words.iter().enumerate().any(|(i, word)| {
        matches!(word.as_str(), "they" | "them" | "their" | "theirs" | "those" | "these" | "its")
            || (word == "each" && words.get(i + 1).is_some_and(|next| next == "of"))
            || (word == "same" && i > 0 && words[i - 1] == "the")
            || (matches!(word.as_str(), "that" | "this")
                && words.get(i + 1).is_some_and(|next| names_a_kind(next)))
    })
}

/// [`Params::roles`] as JSON (in checkpoints): a list of `[kind, role, value]`, since JSON
/// object keys are strings.
mod role_values {
    use std::collections::BTreeMap;

    use planner_registry::{ParamKind, Role, Value};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(
        roles: &BTreeMap<(ParamKind, Role), Value>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let list: Vec<(&ParamKind, &Role, &Value)> =
            roles.iter().map(|((kind, role), value)| (kind, role, value)).collect();
        list.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<(ParamKind, Role), Value>, D::Error> {
        let list: Vec<(ParamKind, Role, Value)> = Vec::deserialize(deserializer)?;
        Ok(list.into_iter().map(|(kind, role, value)| ((kind, role), value)).collect())
    }
}

/// The set of plan node intents, a composite's members counted under the composite's name.
pub fn intent_set(registry: &Registry, plan: &Plan) -> BTreeSet<String> {
    plan.nodes
        .iter()
        .map(|node| match node.origin {
            NodeOrigin::Composite(composite) => registry.intent(composite).name.clone(),
            NodeOrigin::Proposed | NodeOrigin::Provider => {
                registry.intent(node.intent).name.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod suggestion_tests {
    use std::path::Path;

    use planner_registry::Registry;

    use super::examples_of;

    #[test]
    fn a_small_vocabulary_is_suggested_whole_and_a_large_one_not_at_all() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains/property");
        let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
        let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
        let registry = Registry::from_toml_with(&text, "registry.toml", &files).unwrap();
        let kind = |label: &str| {
            registry.kinds().iter().find(|spec| spec.label == label).map(|spec| spec.kind).unwrap()
        };
        assert_eq!(examples_of(&registry, kind("priority")), ["routine", "urgent", "emergency"]);
        // 290 unit codes: no list to choose from.
        assert!(examples_of(&registry, kind("unit")).is_empty());
    }

    /// A name two values share is asked about by each value's name, with the value a script
    /// answers by beside it where their words differ; the suggestions stay the values.
    #[test]
    fn a_shared_name_is_asked_about_by_each_values_name() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains/fitness");
        let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
        let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
        let registry = Registry::from_toml_with(&text, "registry.toml", &files).unwrap();
        let planner = super::Planner::new(registry, None, 1);
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let ask = |question: &str| {
            let planning = runtime.block_on(planner.plan(question, &[], &[], true));
            planner.clarification(&planning.params, &planning.missing)
        };
        let (question, suggestions) = ask("visits at Oak Park last month");
        assert_eq!(question, "Which club do you mean: oak park north or oak park south?");
        assert_eq!(suggestions, ["oak_park_north", "oak_park_south"]);
        let (question, _) = ask("visits at Harbor City last month");
        assert_eq!(
            question,
            "Which club do you mean: downtown club (downtown) or riverside club (riverside)?"
        );
    }
}
