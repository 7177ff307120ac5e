//! What a proposer knows about the registry: one card per intent.

use std::collections::BTreeSet;

use planner_registry::ParamKind;

/// One intent as the inference plane sees it: its name and the words that describe it, the
/// param kinds it needs, and the param kinds its output columns provide to other intents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntentCard {
    /// The intent's registry name (`top_incumbents`).
    pub name: String,
    /// The registry description.
    pub description: String,
    /// Registry keywords: extra words and phrases users say for this intent.
    pub keywords: Vec<String>,
    /// Registry examples: questions this intent answers, with the values in them marked.
    pub examples: Vec<Example>,
    /// The intent's plane (`market`, `graph`, `requirement`, `bench`, `composite`).
    pub plane: String,
    /// Param kinds the intent cannot run without.
    pub required: Vec<ParamKind>,
    /// Param kinds the intent accepts but can default.
    pub optional: Vec<ParamKind>,
    /// Param kinds the intent's output columns provide through dependency edges.
    pub provides: Vec<ParamKind>,
}

/// A question an intent answers (a registry `examples` entry), with where its param values
/// are: those words say which value, not which intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The question as written.
    pub text: String,
    /// Byte ranges `[start, end)` of the values the extractors read in it, in order.
    pub values: Vec<(usize, usize)>,
}

impl Example {
    /// The text with every value blanked out (same length, so offsets hold).
    pub fn without_values(&self) -> String {
        let mut text = self.text.clone().into_bytes();
        for &(start, end) in &self.values {
            if let Some(bytes) = text.get_mut(start..end) {
                bytes.fill(b' ');
            }
        }
        // Values end and start on character boundaries, so only whole characters were blanked.
        String::from_utf8(text).unwrap_or_default()
    }
}

/// The closed set of intents a proposer chooses from, in registry order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalog {
    cards: Vec<IntentCard>,
    /// Words the registry declares for its kinds (labels, cue and context words): the
    /// registry's own words, though no intent is described by them.
    kind_words: Vec<String>,
    /// Each code kind's cue words ("ticket", "incident"): the nouns of the things it names.
    cues: Vec<(ParamKind, Vec<String>)>,
    /// Each identifier (uuid) kind's label nouns ("order" of "order id"): what "that order"
    /// points at.
    nouns: Vec<(ParamKind, Vec<String>)>,
    /// Each dictionary or list kind's label head, lower case ("region", "tier" of "customer
    /// tier"): said right after a value of the kind ("the Northwest region"), part of it.
    heads: Vec<(ParamKind, String)>,
    /// The words of the list kinds' values and aliases ("online", "web"), lower case: said
    /// outside a list, still the registry's words.
    value_words: Vec<String>,
    /// Words that name one thing of a kind without giving its value, lower case: the words of
    /// a code kind's titles ("grinder" of "Conical Burr Grinder") and the last words of a
    /// dictionary's aliases ("level" of "gold level").
    things: Vec<(ParamKind, Vec<String>)>,
}

/// The words that place a value of a ranked dictionary ("gold and up", "silver or higher",
/// "bronze upward"): known words beside such a value, though no intent's.
const RANK_WORDS: &[&str] =
    &["up", "upward", "upwards", "higher", "above", "better", "lower", "below", "plus"];

impl Catalog {
    /// A catalog of these cards, in the given (registry) order. A card whose name repeats an
    /// earlier one is ignored, so names stay unique.
    pub fn new(cards: Vec<IntentCard>) -> Catalog {
        let mut seen = BTreeSet::new();
        let cards = cards.into_iter().filter(|card| seen.insert(card.name.clone())).collect();
        Catalog {
            cards,
            kind_words: Vec::new(),
            cues: Vec::new(),
            nouns: Vec::new(),
            heads: Vec::new(),
            value_words: Vec::new(),
            things: Vec::new(),
        }
    }

    /// This catalog, knowing `words` as the registry's words for its kinds.
    pub fn with_kind_words(mut self, words: impl IntoIterator<Item = String>) -> Catalog {
        self.kind_words = words.into_iter().collect();
        self
    }

    /// The words the registry declares for its kinds (labels, cue and context words).
    pub fn kind_words(&self) -> &[String] {
        &self.kind_words
    }

    /// This catalog, knowing each code kind's cue words.
    pub fn with_cues(mut self, cues: Vec<(ParamKind, Vec<String>)>) -> Catalog {
        self.cues = cues;
        self
    }

    /// Each code kind's cue words, in registry order.
    pub fn cues(&self) -> &[(ParamKind, Vec<String>)] {
        &self.cues
    }

    /// This catalog, knowing each identifier kind's label nouns.
    pub fn with_nouns(mut self, nouns: Vec<(ParamKind, Vec<String>)>) -> Catalog {
        self.nouns = nouns;
        self
    }

    /// Each identifier (uuid) kind's label nouns ("order" of "order id"), in registry order.
    pub fn nouns(&self) -> &[(ParamKind, Vec<String>)] {
        &self.nouns
    }

    /// This catalog, knowing each dictionary or list kind's label head.
    pub fn with_heads(mut self, heads: Vec<(ParamKind, String)>) -> Catalog {
        self.heads = heads;
        self
    }

    /// Each dictionary or list kind's label head ("region"), in registry order.
    pub fn heads(&self) -> &[(ParamKind, String)] {
        &self.heads
    }

    /// This catalog, knowing the words of its list kinds' values.
    pub fn with_value_words(mut self, words: Vec<String>) -> Catalog {
        self.value_words = words;
        self
    }

    /// The words of the list kinds' values and aliases, sorted, each once.
    pub fn value_words(&self) -> &[String] {
        &self.value_words
    }

    /// This catalog, knowing the words that name one thing of each kind.
    pub fn with_things(mut self, things: Vec<(ParamKind, Vec<String>)>) -> Catalog {
        self.things = things;
        self
    }

    /// The words that name one thing of each kind without its value (titles, alias heads),
    /// in registry order.
    pub fn things(&self) -> &[(ParamKind, Vec<String>)] {
        &self.things
    }

    /// The cards, in registry order.
    pub fn cards(&self) -> &[IntentCard] {
        &self.cards
    }

    /// The intent names, in registry order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.cards.iter().map(|card| card.name.as_str())
    }

    /// Whether `name` is one of the catalog's intents.
    pub fn contains(&self, name: &str) -> bool {
        self.cards.iter().any(|card| card.name == name)
    }

    /// The card named `name`.
    pub fn get(&self, name: &str) -> Option<&IntentCard> {
        self.cards.iter().find(|card| card.name == name)
    }

    /// The number of intents.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether the catalog has no intents.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }
}

impl Catalog {
    /// The catalog of a loaded registry, in registry order. A composite intent's plane is
    /// `composite`; what an intent provides comes from its output columns' `provides`.
    pub fn from_registry(registry: &planner_registry::Registry) -> Catalog {
        // The extractors read a registry's examples: compiled only when it has some.
        if registry.intents().iter().any(|intent| !intent.examples.is_empty()) {
            Catalog::from_registry_with(registry, &planner_extract::Extractor::new(registry))
        } else {
            Catalog::from_registry_with(registry, &planner_extract::Extractor::default())
        }
    }

    /// [`Catalog::from_registry`] with the registry's extractors already compiled (a planner
    /// holds them), which mark the values in its examples.
    pub fn from_registry_with(
        registry: &planner_registry::Registry,
        extractor: &planner_extract::Extractor,
    ) -> Catalog {
        let cards = registry
            .intents()
            .iter()
            .map(|intent| {
                let mut required = Vec::new();
                let mut optional = Vec::new();
                for param in &intent.params {
                    match param.requirement {
                        planner_registry::Requirement::Required => required.push(param.kind),
                        planner_registry::Requirement::Optional { .. } => optional.push(param.kind),
                    }
                }
                let plane = match &intent.body {
                    planner_registry::IntentBody::Query(query) => {
                        registry.plane(query.plane).name.clone()
                    }
                    planner_registry::IntentBody::Composite(_) => "composite".to_owned(),
                };
                let mut provides: Vec<ParamKind> = intent
                    .columns()
                    .iter()
                    .filter_map(|column| column.provides)
                    .map(|param| registry.param(param).kind)
                    .collect();
                provides.sort_unstable();
                provides.dedup();
                IntentCard {
                    name: intent.name.clone(),
                    description: intent.description.clone(),
                    keywords: intent.keywords.clone(),
                    examples: intent
                        .examples
                        .iter()
                        .map(|text| Example {
                            text: text.clone(),
                            values: extractor
                                .extract(text)
                                .params
                                .iter()
                                .map(|mention| (mention.span.start, mention.span.end))
                                .collect(),
                        })
                        .collect(),
                    plane,
                    required,
                    optional,
                    provides,
                }
            })
            .collect();
        let mut words = Vec::new();
        let mut code_cues = Vec::new();
        let mut nouns = Vec::new();
        let mut heads = Vec::new();
        let mut value_words: Vec<String> = Vec::new();
        let mut things = Vec::new();
        for spec in registry.kinds() {
            let mut named: Vec<String> = Vec::new();
            match &spec.body {
                planner_registry::KindBody::Code { codes, .. } => named.extend(
                    codes
                        .values()
                        .flat_map(|title| title.split(|c: char| !c.is_alphabetic()))
                        .filter(|word| word.len() > 2)
                        .map(str::to_lowercase),
                ),
                planner_registry::KindBody::Dictionary { entries, .. } => named.extend(
                    entries
                        .iter()
                        .flat_map(|entry| &entry.aliases)
                        .filter(|alias| alias.words.len() > 1)
                        .filter_map(|alias| alias.words.last())
                        .filter(|word| word.len() > 2 && word.chars().all(char::is_alphabetic))
                        .cloned(),
                ),
                // A list's values said outside its context still name the kind.
                planner_registry::KindBody::List { entries, .. } => named.extend(
                    entries
                        .iter()
                        .flat_map(|entry| &entry.aliases)
                        .flat_map(|alias| &alias.words)
                        .filter(|word| word.chars().all(char::is_alphanumeric))
                        .cloned(),
                ),
                _ => {}
            }
            if let planner_registry::KindBody::Code { cues, .. } = &spec.body {
                code_cues.push((spec.kind, cues.clone()));
            }
            if let planner_registry::KindBody::Uuid
            | planner_registry::KindBody::QuotedText { .. } = &spec.body
            {
                let mut label: Vec<String> = spec
                    .label
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|word| {
                        !word.is_empty()
                            && !matches!(
                                word.to_lowercase().as_str(),
                                "id" | "ids"
                                    | "identifier"
                                    | "uuid"
                                    | "number"
                                    | "its"
                                    | "the"
                                    | "of"
                                    | "name"
                                    | "title"
                                    | "text"
                            )
                    })
                    .map(str::to_lowercase)
                    .collect();
                // A name a plane's people go by: they are pointed at by the plane's nouns
                // for them too ("that buyer", "this employee"), and named by any noun for a
                // person ("my colleague", "the new hire").
                if let planner_registry::KindBody::QuotedText { .. } = &spec.body {
                    for plane in people_planes(registry, spec.kind) {
                        for noun in &registry.plane(plane).people {
                            if !label.contains(noun) {
                                label.push(noun.clone());
                            }
                            if named.is_empty() {
                                named.extend(PERSONS.iter().map(|&noun| noun.to_owned()));
                            }
                        }
                    }
                }
                nouns.push((spec.kind, label));
            }
            if let planner_registry::KindBody::Dictionary { .. }
            | planner_registry::KindBody::List { .. } = &spec.body
                && let Some(head) =
                    spec.label.split(|c: char| !c.is_alphanumeric()).rfind(|word| !word.is_empty())
            {
                heads.push((spec.kind, head.to_lowercase()));
            }
            if let planner_registry::KindBody::List { entries, .. } = &spec.body {
                let aliases = entries.iter().flat_map(|entry| &entry.aliases);
                value_words.extend(aliases.flat_map(|alias| alias.words.iter().cloned()));
            }
            named.sort_unstable();
            named.dedup();
            things.push((spec.kind, named));
            words.push(spec.label.clone());
            match &spec.body {
                planner_registry::KindBody::Code { cues, .. }
                | planner_registry::KindBody::Integer { cues } => {
                    words.extend(cues.iter().cloned())
                }
                planner_registry::KindBody::List { context, .. } => {
                    words.extend(context.iter().cloned())
                }
                planner_registry::KindBody::Dictionary { ordered: true, .. } => {
                    words.extend(RANK_WORDS.iter().map(|&word| word.to_owned()))
                }
                _ => {}
            }
        }
        Catalog::new(cards)
            .with_kind_words(words)
            .with_cues(code_cues)
            .with_nouns(nouns)
            .with_heads(heads)
            .with_things(things)
            .with_value_words({
                value_words.sort_unstable();
                value_words.dedup();
                value_words
            })
    }
}

/// Nouns for a person in any business: a name its people go by is pointed at by them too.
const PERSONS: &[&str] = &[
    "person",
    "user",
    "colleague",
    "coworker",
    "teammate",
    "manager",
    "boss",
    "hire",
    "starter",
    "client",
    "someone",
    "somebody",
];

/// The planes of the query intents that require a param of `kind`, each once, in registry
/// order.
fn people_planes(
    registry: &planner_registry::Registry,
    kind: ParamKind,
) -> Vec<planner_registry::PlaneId> {
    let mut planes = Vec::new();
    for intent in registry.intents() {
        let planner_registry::IntentBody::Query(query) = &intent.body else { continue };
        let requires = intent.params.iter().any(|param| {
            param.kind == kind
                && matches!(param.requirement, planner_registry::Requirement::Required)
        });
        if requires && !planes.contains(&query.plane) {
            planes.push(query.plane);
        }
    }
    planes
}
