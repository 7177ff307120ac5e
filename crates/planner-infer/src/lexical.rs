//! The lexical proposer: the offline default. Deterministic, no model, no network.
//!
//! An index is built once from each intent's name, description, keywords, examples and plane,
//! all passed through the same [`Lexicon`] (stemming, stop words, a thesaurus of domain
//! phrasings, of which a registry hears only the entries whose concepts its own text speaks
//! of). Each term of an intent gets the weight `idf × field` (name 3, keyword 2, example 1.5,
//! description 1 with BM25 length normalisation, plane cue 0.6); the words of an example's
//! values are not its terms. A name, keyword or example term that a third of the intents'
//! texts use is weighed by the idf of how few intents name it, list it or ask with it, when
//! that is higher.
//!
//! A question is answered by greedy cover: repeatedly take the intent that explains the most
//! not-yet-explained question weight, scaled by a param factor, until nothing explains enough.
//! The param factor favours intents whose required params are available (or can be provided by
//! another intent bindable from the available params), and intents that use an available param
//! no chosen intent uses yet; a required param that nothing can provide costs a factor. One
//! chosen intent means a single question; several mean a compound one. When no term of the
//! question is distinctive and nothing qualifies, an intent may still be picked from a weaker
//! gain if the question gives a param kind at most three intents require, or one no intent
//! requires and at most three take (the value says what the question is about); likewise for an
//! ask with no distinctive term beside asks that pick, and for an ask whose decisive term picks
//! nothing when it says no word the registry does not know, and for an ask beside others whose
//! pick lacks a value the question does not give. A question of values alone ("platinum
//! members in the Southwest") is about the one intent that requires a distinctive kind it
//! gives, gets every param it requires and takes every value given (failing that, the one
//! taking a rare optional kind it gives); values beside an ask for something else entirely are
//! no such question. Time words inside a time value ("the past month") are not heard: they say
//! the window. An ask whose only known terms say a quantity ("the most", "how many") beside a
//! word the registry does not know asks about that unknown thing, and picks nothing. The words a
//! registry declares for its kinds (labels, cue and context words) are known words. An ask that
//! stood but needed a provider stands once a pick that gave way to a value provides it, and an
//! unanswered ask referring back ("what tickets have they raised") that names what it wants is
//! about what a chosen intent provides: the intent needing it joins (needing it as a required
//! param, or as an optional one the question leaves to its default: "how reliable were they"
//! rates the carriers just ranked). A thing pointed at by a
//! code kind's cue word ("my incident") with no value given is what a question with at most one
//! pick is about (the user is asked which); a quoted name's kind is pointed at by its label noun
//! and its plane's people nouns ("that buyer"). A lone pick gives way to the one intent taking
//! a rare value it does not, or, lacking a value, to the intent an identifier given requires;
//! a ranking ask is answered by an intent that ranks when one qualifies; a dictionary's label
//! head right after its value is part of it; an unknown measure of a known thing, a ranking of
//! staff and an ask for an outside party the registry does not name pick nothing; an identifier
//! only one intent requires decides among unknown words. A lone pick lacking a value of a
//! distinctive kind (one few intents require; one most require is simply asked for) that the
//! question names no one thing of (no noun of the kind in the singular, no word of its things:
//! a code's titles, a dictionary's alias heads, a list's values, a person noun for a name) gives
//! way to the intent requiring the one thing the question does name ("line items and status of
//! the order"); failing that, beside words the registry does not know and no pointer ("my",
//! "that"), it picks nothing: the question asks for something else ("the average shipping time
//! for online orders"), not which one. An ask whose pick takes a rare value said inside the ask
//! stands beside a stronger ask ("compare online vs store revenue in Q2, and daily sales").
//! A registry keyword of several words with a stop word among them ("new tickets") is also
//! heard whole, as a term of its own, where its other words are names' or keywords' of more
//! than three intents (dropping "new" would leave "ticket", which nearly every intent has).
//! A word inside a value the extractors read is that value, never a word the registry lacks.
//! A name word that names one of the intent's own param kinds ("region" of `sales_by_region`)
//! counts as mentioned when the question gives a value of that kind, and a decisive term that
//! only this intent names or lists ("daily" of `recent_sales_trend`) mentions at least half its
//! name.
//!
//! What each ask asks for is its first noun phrase (the `asked` module): a noun there that the
//! registry does not say names a thing no intent returns, and the ask is heard as nothing ("the
//! lease cost of the north plant" names a plant but asks for no intent's figure); the
//! question's first ask so read makes the question unplannable, and any such ask beside a pick
//! is reported unanswered.
//!
//! A word the normaliser does not know is corrected to the closest vocabulary stem (the
//! thesaurus and this index's terms) within a small edit distance, deterministically, so
//! misspellings and British spellings plan. An ask opening with a drafting, booking or sending
//! verb asks for something else entirely and is heard as nothing.

mod asked;
mod lexicon;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use planner_registry::{KindType, ParamKind};

use crate::{BoxFuture, Catalog, ParamSpan, Proposals, ProposeRequest, Proposer, Result};
use lexicon::Lexicon;

/// The most intents one proposal holds (the plan node cap).
const MAX_PICKS: usize = 6;
/// Field weights.
const NAME_WEIGHT: f32 = 3.0;
const KEYWORD_WEIGHT: f32 = 2.0;
const DESCRIPTION_WEIGHT: f32 = 1.0;
const EXAMPLE_WEIGHT: f32 = 1.5;
const PLANE_WEIGHT: f32 = 0.6;
/// BM25 length normalisation of descriptions.
const LENGTH_B: f32 = 0.75;
/// The least raw gain of a segment's pick; of a pick lacking a param nothing can provide; and
/// the least score of a pick beside the best one.
const FIRST_GAIN: f32 = 2.5;
const CLARIFY_GAIN: f32 = 3.5;
/// The least raw gain of a pick whose distinctive required param the question gives.
const ANCHORED_GAIN: f32 = 1.0;
const NEXT_SCORE: f32 = 2.5;
/// A term decides a pick only when at most this many intents have it in their name or keywords.
const DISTINCTIVE_DF: usize = 3;
/// A term in at least one in this many intents' own text is common: as a name or keyword it is
/// weighed by how few intents name it or list it.
const COMMON_SHARE: f32 = 3.0;
/// The factor per required param that neither the question nor a bindable provider supplies.
const MISSING_FACTOR: f32 = 0.3;
/// The factor when a required param can only come from a provider the question did not ask for.
const PROVIDER_FACTOR: f32 = 0.7;
/// The bonus per required param the question supplies, and per optional one.
const REQUIRED_BONUS: f32 = 0.5;
const OPTIONAL_BONUS: f32 = 0.05;
/// How much of the score rides on the share of the ask's decisive terms the intent explains.
const ANSWERED_SHARE: f32 = 0.5;
/// How much of the score rides on the share of the intent's own name the question mentions.
const COVERAGE_SHARE: f32 = 0.6;
/// The least name share of an intent the question names by a term no other intent has.
const OWN_TERM_COVERAGE: f32 = 0.5;
/// Terms that may add to a gain but never decide a pick: the nouns of the params themselves
/// (they say what the question is about, not what it asks) and counting words.
const GENERIC_TERMS: &[&str] =
    &["agency", "naics", "requirement", "vendor", "count", "next", "market"];
/// Terms that say how much or how many of something, not what: an ask whose only known terms
/// these are, beside a word the registry does not know, asks about that unknown thing ("which
/// email campaign brought in the most signups", "how many baristas are on staff").
const QUANTITY_TERMS: &[&str] = &["top", "many", "much", "most", "least"];

/// The offline proposer. Build it once per catalog; answering is pure.
#[derive(Debug)]
pub struct LexicalProposer {
    lexicon: Lexicon,
    /// Term → column of the weight rows (only looked up; columns follow first appearance).
    terms: HashMap<String, usize>,
    intents: Vec<Indexed>,
    /// Per term column: whether it may decide a pick (not generic, and distinctive).
    decisive: Vec<bool>,
    /// Per term column: whether it is decisive and exactly one intent has it in its name or
    /// keywords.
    unique: Vec<bool>,
    /// Per term column: its highest weight in any intent.
    importance: Vec<f32>,
    /// Per term column: whether it is one of [`QUANTITY_TERMS`].
    quantity: Vec<bool>,
    /// Kinds that at most [`DISTINCTIVE_DF`] intents require: a value of one in the question
    /// says which intents it is about, as a distinctive term would.
    distinctive_kinds: BTreeSet<ParamKind>,
    /// Kinds that no intent requires and at most [`DISTINCTIVE_DF`] take: a value of one says
    /// the same, as the anchor of a pick with no decisive term.
    rare_optional: BTreeSet<ParamKind>,
    /// The terms of the words the registry declares for its kinds ("compare", the context of a
    /// list): known words, though no intent's.
    kind_words: BTreeSet<String>,
    /// Each code kind's single-word cues, lower case ("incident" of a ticket number), and each
    /// identifier kind's label nouns ("order" of an order id): what "my incident" or "that
    /// order" points at.
    cues: Vec<(ParamKind, Vec<String>)>,
    /// Each dictionary or list kind's label head, as a term ("region"): said right after a
    /// value of the kind ("in the Northwest region"), it is part of the value, not an ask.
    heads: Vec<(ParamKind, String)>,
    /// The stems of the list kinds' value words ("onlin"), sorted: outside a list they are
    /// no measure the registry does not know.
    value_words: Vec<String>,
    /// The term columns of every code kind's cues, with the kind.
    thing_terms: Vec<(usize, ParamKind)>,
    /// The column of `top`, the term a superlative is heard as, if the registry has it.
    top: Option<usize>,
    /// The kinds exactly one intent requires.
    sole_required: BTreeSet<ParamKind>,
    /// Each kind's nouns, lower case, as written: its code cues, its identifier's label nouns
    /// and its dictionary's label head. "that region", "the item": one thing of the kind.
    naming: Vec<(ParamKind, Vec<String>)>,
    /// [`Catalog::things`]: words that name one thing of a kind, in the singular or plural.
    things: Vec<(ParamKind, Vec<String>)>,
    /// Of [`LexicalProposer::things`], the words that are no term, stop word or kind word.
    strange_things: Vec<(ParamKind, Vec<String>)>,
    /// [`STAFF`] and [`OUTSIDERS`], stemmed.
    staff: Vec<String>,
    outsiders: Vec<String>,
}

#[derive(Debug)]
struct Indexed {
    name: String,
    /// Weight of each term (dense, by term column).
    weights: Vec<f32>,
    /// Whether the term comes from the name or a keyword.
    strong: Vec<bool>,
    /// The decisive term columns of the name, with their weights.
    name_terms: Vec<(usize, f32)>,
    /// Every term column of the name, decisive or not.
    named: Vec<usize>,
    /// The name terms that name one of the intent's own param kinds ("region" of
    /// `sales_by_region`): a value of that kind in the question mentions them.
    valued: Vec<(usize, ParamKind)>,
    required: Vec<ParamKind>,
    optional: Vec<ParamKind>,
    provides: Vec<ParamKind>,
    /// The terms of the cue words of a kind the intent requires ("product" of a SKU, for
    /// `product_sales`): they name the thing, not what is asked of it, so without a value of
    /// the kind they name no dependant ("what was on order X, and how much of each product is
    /// in stock": the stock of the order's products, not their sales too).
    cued: Vec<(usize, ParamKind)>,
}

/// What scoring a question's asks needs besides their terms.
struct Scoring {
    /// Per intent: its param factor, and whether it lacks a param nothing can provide.
    factors: Vec<(f32, bool)>,
    /// The kinds provided by an intent that the question's values bind.
    provided: BTreeSet<ParamKind>,
}

impl Indexed {
    /// Whether the intent takes a param of `kind`, required or optional.
    fn takes(&self, kind: &ParamKind) -> bool {
        self.required.contains(kind) || self.optional.contains(kind)
    }

    /// Whether the question gives every param the intent requires.
    fn given(&self, available: &BTreeSet<ParamKind>) -> bool {
        self.required.iter().all(|kind| available.contains(kind))
    }

    /// The kinds the intent requires, not given in the question, whose cue word the term at
    /// `column` is.
    fn missing_cued<'a>(
        &'a self,
        column: usize,
        available: &'a BTreeSet<ParamKind>,
    ) -> impl Iterator<Item = ParamKind> + 'a {
        self.cued
            .iter()
            .filter(move |&&(cued, kind)| cued == column && !available.contains(&kind))
            .map(|&(_, kind)| kind)
    }

    /// Whether the term at `column` is a cue word of a kind the intent requires that the
    /// question gives no value of.
    fn names_missing(&self, column: usize, available: &BTreeSet<ParamKind>) -> bool {
        self.missing_cued(column, available).next().is_some()
    }

    /// Whether the term at `column` is a cue word of a kind the intent requires that the
    /// question gives no value of but an intent its values bind provides: the ask names what
    /// that intent lists ("order X, and how much of each product is left": the stock of the
    /// order's products), so the term does not decide this intent.
    fn names_provided(
        &self,
        column: usize,
        available: &BTreeSet<ParamKind>,
        scoring: &Scoring,
    ) -> bool {
        self.missing_cued(column, available).any(|kind| scoring.provided.contains(&kind))
    }
}

/// Where an indexed term comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Keyword,
    Description,
    /// A registry example, its values blanked out.
    Example,
    Plane,
}

impl Field {
    /// Whether a term from this field names the intent: its name, its keywords and the words
    /// its users ask it with (examples). Such a term decides a pick when few intents have it.
    fn is_strong(self) -> bool {
        matches!(self, Field::Name | Field::Keyword | Field::Example)
    }
}

/// One ask of a question: the terms between connectives and punctuation.
#[derive(Debug, Default)]
struct Segment {
    columns: Vec<usize>,
    /// Byte offsets in the question: where its first term starts, and where the connective or
    /// punctuation that closes it starts (the question's length for the last).
    start: usize,
    end: usize,
    opens_with_frame: bool,
    opens_with_modifier: bool,
    closed_by_stop: bool,
    /// It says a word the registry does not ("weather").
    unknown: bool,
    /// It asks for something else entirely ("draft a cover letter"): nothing in it is heard.
    foreign: bool,
    /// It asks for a thing no intent returns (a noun of its asked phrase the registry does not
    /// know: the `asked` module): nothing in it is heard.
    elsewhere: bool,
    /// A framing phrase ("For the Army recompete under 541512, ...") or a modifier ("by
    /// availability"): context, not an ask, when the question has other asks.
    context: bool,
    /// Where its first term starts, and its last unknown word before that term (not a list
    /// value's word).
    first_known: Option<usize>,
    last_unknown: Option<usize>,
    /// What it asks for is the business's own staff, a word the registry does not know
    /// ("which agent ...").
    asks_staff: bool,
    /// What it asks for is a party outside the business the registry does not know
    /// ("which supplier ...").
    asks_outsider: bool,
    /// It asks for a measure the registry does not know of a thing it knows: an unknown
    /// word first, then a preposition with no unknown word after it (a list value's aside)
    /// before the terms ("average delivery time for online orders", "gross margin by product
    /// category"; not "enough of the oat milk in the warehouses").
    measured: bool,
}

/// A question's asks: those heard, and where the asks for a thing no intent returns are.
struct Asks {
    segments: Vec<Segment>,
    elsewhere: Vec<Range>,
}

/// What the lexical proposer makes of a question.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexicalPick {
    /// The chosen intent names, in catalog (registry) order.
    pub names: Vec<String>,
    /// Whether the question asks for more than one thing.
    pub compound: bool,
    /// Byte ranges of the question's asks that no chosen intent answers: a segment with a
    /// decisive term whose best intent was not chosen and in which no chosen intent has a
    /// strong term. In question order.
    pub unanswered: Vec<(usize, usize)>,
}

impl LexicalProposer {
    /// Builds the index over `catalog`.
    pub fn new(catalog: &Catalog) -> LexicalProposer {
        let mut lexicon = Lexicon::for_registry(
            catalog.cards().iter().flat_map(|card| {
                [card.name.as_str(), card.description.as_str()]
                    .into_iter()
                    .chain(card.keywords.iter().map(String::as_str))
                    .chain(card.examples.iter().map(|example| example.text.as_str()))
                    .chain(plane_cues(&card.plane))
            }),
            catalog.cards().iter().flat_map(|card| {
                card.name.split('_').chain(card.keywords.iter().map(String::as_str))
            }),
        );
        let mut fields: Vec<Vec<(String, Field)>> = Vec::new();
        let mut description_lengths = Vec::new();
        for card in catalog.cards() {
            let mut entries: Vec<(String, Field)> = Vec::new();
            let add = |text: &str, field: Field, entries: &mut Vec<(String, Field)>| {
                let words: Vec<String> = lexicon
                    .terms(text, &[], &[])
                    .into_iter()
                    .filter(|term| !term.starts_with(['|', '@']))
                    .map(std::borrow::Cow::into_owned)
                    .collect();
                let length = words.len();
                entries.extend(words.into_iter().map(|term| (term, field)));
                length
            };
            add(&card.name.replace('_', " "), Field::Name, &mut entries);
            for keyword in &card.keywords {
                add(keyword, Field::Keyword, &mut entries);
            }
            description_lengths.push(add(&card.description, Field::Description, &mut entries));
            for example in &card.examples {
                add(&example.without_values(), Field::Example, &mut entries);
            }
            for cue in plane_cues(&card.plane) {
                add(cue, Field::Plane, &mut entries);
            }
            fields.push(entries);
        }
        let mut terms = HashMap::new();
        // The terms by column, in order of first appearance.
        let mut columns: Vec<&str> = Vec::new();
        for entries in &fields {
            for (term, _) in entries {
                let next = terms.len();
                terms.entry(term.clone()).or_insert_with(|| {
                    columns.push(term.as_str());
                    next
                });
            }
        }
        // Document frequency over what intents say of themselves (plane cues left out), and
        // how many intents have the term in their name or keywords.
        let mut document_frequency = vec![0usize; terms.len()];
        let mut strong_frequency = vec![0usize; terms.len()];
        for entries in &fields {
            let own: BTreeSet<usize> = entries
                .iter()
                .filter(|(_, field)| *field != Field::Plane)
                .map(|(term, _)| terms[term])
                .collect();
            for column in own {
                document_frequency[column] += 1;
            }
            let strong: BTreeSet<usize> = entries
                .iter()
                .filter(|(_, field)| field.is_strong())
                .map(|(term, _)| terms[term])
                .collect();
            for column in strong {
                strong_frequency[column] += 1;
            }
        }
        let mut decisive = vec![false; terms.len()];
        for (column, term) in columns.iter().enumerate() {
            decisive[column] = !GENERIC_TERMS.contains(term)
                && (1..=DISTINCTIVE_DF).contains(&strong_frequency[column]);
        }
        // A keyword said whole is heard only where its other words are names' or keywords' of
        // many intents ("new tickets": "ticket" is nearly every intent's), never where they
        // would say something alone ("who won", "how many partners"): the lexicon forgets it.
        let mut unheard = vec![false; terms.len()];
        for (column, term) in columns.iter().enumerate() {
            if let Some(mut content) = lexicon::keyword_content(term)
                && !content.all(|stem| {
                    terms.get(stem).is_some_and(|&c| strong_frequency[c] > DISTINCTIVE_DF)
                })
            {
                decisive[column] = false;
                unheard[column] = true;
                lexicon.forget_keyword(term);
            }
        }
        let unique: Vec<bool> = decisive
            .iter()
            .zip(&strong_frequency)
            .map(|(&decisive, &df)| decisive && df == 1)
            .collect();
        let count = fields.len() as f32;
        let idf_of = |df: usize| {
            let df = df.max(1) as f32;
            (1.0 + (count - df + 0.5) / (df + 0.5)).ln()
        };
        let mean_length = description_lengths.iter().sum::<usize>() as f32
            / description_lengths.len().max(1) as f32;
        let mut intents: Vec<Indexed> = catalog
            .cards()
            .iter()
            .zip(&fields)
            .zip(&description_lengths)
            .map(|((card, entries), &length)| {
                let mut weights = vec![0.0f32; terms.len()];
                // The weights by the plain idf: what the name coverage is measured in.
                let mut plain = vec![0.0f32; terms.len()];
                let mut strong = vec![false; terms.len()];
                let norm = 1.0 - LENGTH_B + LENGTH_B * length as f32 / mean_length.max(1.0);
                let mut name_columns = BTreeSet::new();
                let mut named = BTreeSet::new();
                for (term, field) in entries {
                    let column = terms[term];
                    if unheard[column] {
                        continue;
                    }
                    let idf = idf_of(document_frequency[column]);
                    let field_weight = match field {
                        Field::Name => NAME_WEIGHT,
                        Field::Keyword => KEYWORD_WEIGHT,
                        Field::Description => DESCRIPTION_WEIGHT / norm,
                        Field::Example => EXAMPLE_WEIGHT,
                        Field::Plane => PLANE_WEIGHT,
                    };
                    // A name or keyword term that many descriptions also use is weighed by how
                    // few intents name it or list it: "revenue" in a third of the descriptions
                    // still says which intent a question wants when only two list it.
                    let strong_field = field.is_strong();
                    let boosted = if strong_field
                        && COMMON_SHARE * document_frequency[column] as f32 >= count
                    {
                        idf.max(idf_of(strong_frequency[column]))
                    } else {
                        idf
                    };
                    weights[column] = weights[column].max(boosted * field_weight);
                    plain[column] = plain[column].max(idf * field_weight);
                    strong[column] |= strong_field;
                    if *field == Field::Name {
                        named.insert(column);
                        if decisive[column] {
                            name_columns.insert(column);
                        }
                    }
                }
                let mut valued = Vec::new();
                for &kind in card.required.iter().chain(&card.optional) {
                    for term in lexicon.terms(&kind.as_str().replace('_', " "), &[], &[]) {
                        if let Some(&column) = terms.get(term.as_ref())
                            && name_columns.contains(&column)
                            && !valued.contains(&(column, kind))
                        {
                            valued.push((column, kind));
                        }
                    }
                }
                let name_terms =
                    name_columns.into_iter().map(|column| (column, plain[column])).collect();
                Indexed {
                    name: card.name.clone(),
                    weights,
                    strong,
                    name_terms,
                    named: named.into_iter().collect(),
                    valued,
                    required: card.required.clone(),
                    optional: card.optional.clone(),
                    provides: card.provides.clone(),
                    cued: Vec::new(),
                }
            })
            .collect();
        let mut thing_terms: Vec<(usize, ParamKind)> = Vec::new();
        for (kind, cues) in catalog.cues() {
            for cue in cues {
                for term in lexicon.terms(cue, &[], &[]) {
                    if let Some(&column) = terms.get(term.as_ref())
                        && !thing_terms.contains(&(column, *kind))
                    {
                        thing_terms.push((column, *kind));
                    }
                }
            }
        }
        for intent in &mut intents {
            intent.cued = thing_terms
                .iter()
                .filter(|(_, kind)| intent.required.contains(kind))
                .copied()
                .collect();
        }
        let mut importance = vec![0.0f32; terms.len()];
        for intent in &intents {
            for (column, weight) in intent.weights.iter().enumerate() {
                importance[column] = importance[column].max(*weight);
            }
        }
        lexicon.learn(columns.iter().copied());
        let kind_words: BTreeSet<String> = catalog
            .kind_words()
            .iter()
            .flat_map(|words| lexicon.terms(words, &[], &[]))
            .filter(|term| !term.starts_with(['|', '@']))
            .map(std::borrow::Cow::into_owned)
            .collect();
        let heads = catalog
            .heads()
            .iter()
            .filter_map(|(kind, head)| {
                let term = lexicon.terms(head, &[], &[]).into_iter().next()?;
                Some((*kind, term.into_owned()))
            })
            .collect();
        let mut value_words: Vec<String> =
            catalog.value_words().iter().map(|word| lexicon::stem(word)).collect();
        value_words.sort_unstable();
        value_words.dedup();
        let mut requiring: BTreeMap<ParamKind, usize> = BTreeMap::new();
        for intent in &intents {
            for &kind in &intent.required {
                *requiring.entry(kind).or_default() += 1;
            }
        }
        let top = terms.get("top").copied();
        let sole_required =
            requiring.iter().filter(|(_, count)| **count == 1).map(|(&kind, _)| kind).collect();
        let distinctive_kinds = requiring
            .iter()
            .filter(|(_, count)| (1..=DISTINCTIVE_DF).contains(*count))
            .map(|(&kind, _)| kind)
            .collect();
        let mut taking: BTreeMap<ParamKind, usize> = BTreeMap::new();
        for intent in &intents {
            for &kind in &intent.optional {
                *taking.entry(kind).or_default() += 1;
            }
        }
        let rare_optional = taking
            .into_iter()
            .filter(|&(kind, count)| {
                (1..=DISTINCTIVE_DF).contains(&count) && !requiring.contains_key(&kind)
            })
            .map(|(kind, _)| kind)
            .collect();
        // The words of things that are no stop word ("the" of a title says nothing).
        let things: Vec<(ParamKind, Vec<String>)> = catalog
            .things()
            .iter()
            .map(|(kind, words)| {
                let said = words.iter().filter(|word| {
                    let said = lexicon.terms(word, &[], &[]);
                    said.len() == 1 && !said[0].starts_with('@')
                });
                (*kind, said.cloned().collect())
            })
            .collect();
        let strange_things: Vec<(ParamKind, Vec<String>)> = catalog
            .things()
            .iter()
            .map(|(kind, words)| {
                // The words no intent uses and no stop word: said, they are unknown words.
                let strange = words.iter().filter(|word| {
                    let said = lexicon.terms(word, &[], &[]);
                    said.len() == 1
                        && !said.iter().any(|term| {
                            term.starts_with('@')
                                || terms.contains_key(term.as_ref())
                                || kind_words.contains(term.as_ref())
                        })
                });
                (*kind, strange.cloned().collect())
            })
            .collect();
        LexicalProposer {
            lexicon,
            terms,
            intents,
            decisive,
            importance,
            distinctive_kinds,
            rare_optional,
            unique,
            kind_words,
            cues: catalog
                .cues()
                .iter()
                .chain(catalog.nouns())
                .map(|(kind, cues)| {
                    let words = cues
                        .iter()
                        .filter(|cue| !cue.contains(' '))
                        .map(|cue| cue.to_lowercase())
                        .collect();
                    (*kind, words)
                })
                .collect(),
            quantity: columns.iter().map(|term| QUANTITY_TERMS.contains(term)).collect(),
            thing_terms,
            naming: {
                let mut naming: Vec<(ParamKind, Vec<String>)> = Vec::new();
                let all =
                    catalog.cues().iter().chain(catalog.nouns()).cloned().chain(
                        catalog.heads().iter().map(|(kind, head)| (*kind, vec![head.clone()])),
                    );
                for (kind, words) in all {
                    let words = words.iter().filter(|w| !w.contains(' ')).map(|w| w.to_lowercase());
                    match naming.iter_mut().find(|(k, _)| *k == kind) {
                        Some((_, known)) => known.extend(words),
                        None => naming.push((kind, words.collect())),
                    }
                }
                naming
            },
            things,
            strange_things,
            heads,
            value_words,
            top,
            sole_required,
            staff: STAFF.iter().map(|noun| lexicon::stem(noun)).collect(),
            outsiders: OUTSIDERS.iter().map(|noun| lexicon::stem(noun)).collect(),
        }
    }

    /// Chooses intents for `question`, given the available param kinds and where the param
    /// values were found (pass `&[]` when unknown).
    ///
    /// Each segment of the question (an ask between connectives or punctuation) proposes its
    /// best intent; framing phrases and modifiers give way to asks that stand. The best ask
    /// always stands; another stands when it scores enough and every param it needs is
    /// available or provided by an intent already chosen. Finally, an intent named outright in
    /// a heard ask that needs what a chosen intent provides ("the incumbent's awards") joins.
    pub fn pick(
        &self,
        question: &str,
        available: &BTreeSet<ParamKind>,
        spans: &[ParamSpan],
    ) -> LexicalPick {
        let (Asks { mut segments, elsewhere }, unknown, foreign) =
            self.segments(question, &Masks::of(spans));
        // Beside other asks, an ask of quantity words around a count ("Largest buyers in the
        // Midwest, top 6") says how many of them, not what.
        if segments.len() > 1 {
            segments.retain(|segment| {
                !(segment.columns.iter().all(|&c| self.quantity[c]) && spans.iter().any(|span| {
                    matches!(span.kind, ParamKind::Declared(kind) if kind.ty() == KindType::Integer)
                        && segment.start <= span.start
                        && span.start < segment.end
                }))
            });
        }
        let factors = self.factors(available);
        // (intent, score, context, segment)
        let mut asks: Vec<(usize, f32, bool, usize)> = segments
            .iter()
            .enumerate()
            .filter_map(|(position, segment)| {
                let (index, score) = self.best(&segment.columns, available, &factors, false)?;
                // A measure the registry does not know, of a thing whose value is not given,
                // is not that thing's intent (asking which one would not answer it).
                if segment.measured && !self.intents[index].given(available) {
                    return None;
                }
                // A ranking of staff the registry does not know ("which agent closed the
                // most tickets") is no ranking an intent makes.
                let ranks = self.top.is_some_and(|top| segment.columns.contains(&top));
                if (segment.asks_staff && ranks) || segment.asks_outsider {
                    return None;
                }
                Some((index, score, segment.context, position))
            })
            .collect();
        // An ask with no decisive term and no pick of its own may be decided by a distinctive
        // param of the question, below the gain: beside asks that pick (framing phrases and
        // modifiers aside), or when nothing picks and no term of the question is a decisive one
        // (which the clarification reads instead).
        let picked = !asks.is_empty();
        // The asks beside picks decided so: what their value says stands without the score.
        let mut anchored_asks: Vec<usize> = Vec::new();
        // An ask whose pick takes a rare value said inside the ask ("compare online vs store
        // revenue in Q2") is anchored by it: it stands beside other asks without the score.
        for &(index, _, context, position) in &asks {
            let Some(segment) = segments.get(position) else { continue };
            let anchored = spans.iter().any(|span| {
                self.rare_optional.contains(&span.kind)
                    && self.intents[index].takes(&span.kind)
                    && segment.start <= span.start
                    && span.start < segment.end
            });
            if anchored && !context {
                anchored_asks.push(position);
            }
        }
        let decisive = segments.iter().any(|s| s.columns.iter().any(|&c| self.decisive[c]));
        if picked || !decisive || segments.iter().all(|segment| !segment.unknown) {
            for (position, segment) in segments.iter().enumerate() {
                // A decisive ask that picks nothing may fall back too, alone or beside picks,
                // if it says no word the registry does not know ("How is CF-1002 selling").
                let decisive_ask = segment.columns.iter().any(|&c| self.decisive[c]);
                // An ask beside others whose pick lacks a value the question does not give
                // ("Stock levels and monthly sales for CF-1002": sales by region, and no
                // region) may fall back to what a given distinctive value decides.
                let own = asks.iter().position(|ask| ask.3 == position);
                let lacking = own.filter(|&at| {
                    asks.iter().any(|ask| ask.3 != position)
                        && !self.intents[asks[at].0]
                            .required
                            .iter()
                            .all(|kind| available.contains(kind))
                });
                if (own.is_some() && lacking.is_none())
                    || (picked && segment.context)
                    || (decisive_ask && segment.unknown)
                {
                    continue;
                }
                if let Some((index, score)) = self.best(&segment.columns, available, &factors, true)
                {
                    // An ask every term of which a pick's intent weighs, whose own fallback
                    // takes no value that pick does not, is answered by that pick ("tier
                    // customers in the Midwest, with their lifetime spend").
                    let answered = lacking.is_none()
                        && asks.iter().any(|ask| {
                            let pick = &self.intents[ask.0];
                            segment.columns.iter().all(|&column| pick.weights[column] > 0.0)
                                && available.iter().all(|kind| {
                                    !self.intents[index].takes(kind) || pick.takes(kind)
                                })
                        });
                    if answered {
                        continue;
                    }
                    if let Some(at) = lacking {
                        if self.intents[index].given(available) {
                            asks[at] = (index, score, segment.context, position);
                            anchored_asks.push(position);
                        }
                        continue;
                    }
                    asks.push((index, score, segment.context, position));
                    if picked {
                        anchored_asks.push(position);
                    }
                }
            }
        }
        // A question of values alone ("platinum members in the Southwest", no other word the
        // registry knows or not), or whose known words pick nothing ("monthly numbers for
        // BR-3003 in Q2 2024": "monthly" is another intent's, which lacks a value): the one
        // intent that requires a distinctive kind the question gives, gets every param it
        // requires and takes every value given is what it asks for.
        // Failing that, the one intent taking a rare optional kind the question gives ("online
        // and marketplace compared in the Northeast"), on the same terms.
        // An identifier only one intent requires ("what's inside <order id>") says what a
        // question of words the registry does not know asks for, unless it asks to do
        // something else.
        let identified = !foreign
            && available.iter().any(|kind| identifies(*kind) && self.sole_required.contains(kind));
        if asks.is_empty() && (!unknown || identified) {
            let takes_all = |intent: &Indexed| {
                intent.given(available) && available.iter().all(|kind| intent.takes(kind))
            };
            let anchored_by = |anchor: &dyn Fn(&Indexed) -> bool| {
                let mut anchored = self
                    .intents
                    .iter()
                    .enumerate()
                    .filter(|(_, intent)| takes_all(intent) && anchor(intent));
                match (anchored.next(), anchored.next()) {
                    (Some((index, _)), None) => Some(index),
                    _ => None,
                }
            };
            // Of several, the one taking exactly the values given: the thing itself ("who has
            // LT-20566 now": the asset, not its tickets over time).
            let exact =
                |intent: &Indexed| intent.required.len() + intent.optional.len() == available.len();
            let anchored = anchored_by(&|intent| {
                intent.required.iter().any(|kind| self.distinctive_kinds.contains(kind))
            })
            .or_else(|| {
                anchored_by(&|intent| {
                    exact(intent)
                        && intent.required.iter().any(|kind| self.distinctive_kinds.contains(kind))
                })
            })
            .or_else(|| {
                anchored_by(&|intent| {
                    intent
                        .optional
                        .iter()
                        .any(|kind| self.rare_optional.contains(kind) && available.contains(kind))
                })
            });
            if let Some(index) = anchored {
                asks.push((index, 0.0, false, usize::MAX));
            }
        }
        // Each segment's best intent, by the segment's start.
        let best: Vec<(usize, usize)> = asks
            .iter()
            .filter_map(|&(index, _, _, position)| Some((segments.get(position)?.start, index)))
            .collect();
        // Framing phrases and modifiers give way to asks that stand ("per department hardware
        // ticket counts since March, with how many are still open": the weak second ask is no
        // reason to drop the first).
        if asks.iter().any(|ask| !ask.2 && (ask.1 >= NEXT_SCORE || anchored_asks.contains(&ask.3)))
        {
            asks.retain(|ask| !ask.2);
        }
        asks.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut chosen: Vec<usize> = Vec::new();
        let mut heard: Vec<usize> = Vec::new();
        // Each chosen intent with the position of the ask that chose it.
        let mut origins: Vec<(usize, usize)> = Vec::new();
        // Asks that stood but needed what no chosen intent provided yet.
        let mut deferred: Vec<(usize, usize)> = Vec::new();
        for (index, score, _, position) in asks {
            // An ask that only names a thing a chosen intent lists ("which products" beside
            // an order's lines) is answered by that intent.
            if segments
                .get(position)
                .is_some_and(|segment| self.names_only_provided(segment, &chosen))
            {
                continue;
            }
            let supplied = self.supplied(index, available, &chosen);
            // A pick whose required param only a provider gives was scored down for that
            // provider; not when the provider is chosen.
            let score = if supplied && self.needs_provider(index, available) {
                score / PROVIDER_FACTOR
            } else {
                score
            };
            let stands = score >= NEXT_SCORE || anchored_asks.contains(&position);
            if stands && !supplied && !chosen.contains(&index) {
                deferred.push((index, position));
            }
            if chosen.contains(&index) || chosen.is_empty() || (stands && supplied) {
                heard.extend(
                    segments.get(position).into_iter().flat_map(|s| s.columns.iter().copied()),
                );
                if !chosen.contains(&index) {
                    chosen.push(index);
                    origins.push((index, position));
                }
            }
        }

        // A lone pick that needs no provider but takes none of the question's values of a
        // distinctive required kind ("what is the status of request REQ-100233": a ticket
        // number, and ticket counts by status picked) gives way to the intent requiring that
        // kind the question's terms weigh most for, when every param it requires is given:
        // the value says what the question is about (the one taking most of the question's
        // values first: "what has gone wrong with printer PR-50011 since January" is about
        // the printer's tickets over time, not the printer). It stays beside that intent when
        // it takes a distinctive or rare value the other does not ("urgent tickets not closed
        // yet, and anything with no update in 3 weeks"). In a pick of several, the ask whose
        // segment holds such a value naming what it is about (an anchor: a code, a name) gives
        // way the same way, to the intent its own terms weigh most for ("..., and what's the
        // status of ticket REQ-120455?").
        let takes = |index: usize, kind: &ParamKind| self.intents[index].takes(kind);
        let given = |index: usize| self.intents[index].given(available);
        let telling = |kind: &ParamKind| {
            self.distinctive_kinds.contains(kind) || self.rare_optional.contains(kind)
        };
        let instead = |unused: &[&ParamKind], columns: &[usize]| {
            let mut instead: Option<(usize, usize, f32)> = None;
            for (index, intent) in self.intents.iter().enumerate() {
                if !unused.iter().any(|kind| intent.required.contains(kind)) || !given(index) {
                    continue;
                }
                let values = available.iter().filter(|kind| takes(index, kind)).count();
                let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
                if instead.is_none_or(|(_, most, top)| (values, weight) > (most, top)) {
                    instead = Some((index, values, weight));
                }
            }
            instead.map(|(index, ..)| index)
        };
        // Whether `pick` takes a telling value of the question that `other` does not.
        let keeps = |pick: usize, other: usize| {
            available.iter().any(|kind| telling(kind) && takes(pick, kind) && !takes(other, kind))
        };
        // A lone pick lacking a value gives way the same way to an identifier's intent
        // ("Sales history for CF-1001": the SKU's sales, not some customer's order history).
        if let [only] = chosen[..] {
            let unused: Vec<&ParamKind> = available
                .iter()
                .filter(|kind| self.distinctive_kinds.contains(kind) && !takes(only, kind))
                .filter(|kind| given(only) || identifies(**kind))
                .collect();
            let columns: Vec<usize> =
                segments.iter().flat_map(|s| s.columns.iter().copied()).collect();
            if let Some(index) = instead(&unused, &columns) {
                let both = given(only) && keeps(only, index);
                chosen = if both { vec![only, index] } else { vec![index] };
            } else if let Some(index) =
                self.taking_rare(only, available, &columns).filter(|_| given(only))
            {
                chosen = vec![index];
            }
        } else if chosen.len() > 1 {
            for kind in available {
                if !self.distinctive_kinds.contains(kind)
                    || !kind.is_anchor()
                    || chosen.iter().any(|&index| takes(index, kind))
                {
                    continue;
                }
                for span in spans.iter().filter(|span| span.kind == *kind) {
                    let Some(&(pick, position)) = origins.iter().find(|(_, position)| {
                        segments
                            .get(*position)
                            .is_some_and(|s| s.start <= span.start && span.start < s.end)
                    }) else {
                        continue;
                    };
                    let provides = chosen.iter().any(|&other| {
                        self.intents[other].required.iter().any(|kind| {
                            !available.contains(kind) && self.intents[pick].provides.contains(kind)
                        })
                    });
                    if !given(pick) || provides {
                        continue;
                    }
                    if let Some(index) = instead(&[kind], &segments[position].columns)
                        && !chosen.contains(&index)
                        && !keeps(pick, index)
                        && let Some(slot) = chosen.iter_mut().find(|slot| **slot == pick)
                    {
                        *slot = index;
                    }
                }
            }
        }

        // A thing pointed at by its cue word ("my incident", "that machine") with no value of
        // its kind given is what a question with at most one pick is about: the intent
        // requiring that kind the question's terms weigh most for (the user is then asked
        // which one).
        if chosen.len() <= 1 {
            let columns: Vec<usize> =
                segments.iter().flat_map(|s| s.columns.iter().copied()).collect();
            for (kind, cues) in &self.cues {
                if available.contains(kind)
                    || !self.distinctive_kinds.contains(kind)
                    || chosen.iter().any(|&index| self.intents[index].required.contains(kind))
                    || !pointed_at(
                        question,
                        cues,
                        chosen.first().map(|&i| self.intents[i].name.as_str()),
                    )
                {
                    continue;
                }
                let mut about: Option<(usize, f32)> = None;
                for (index, intent) in self.intents.iter().enumerate() {
                    if !intent.required.contains(kind) {
                        continue;
                    }
                    let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
                    if about.is_none_or(|(_, top)| weight > top) {
                        about = Some((index, weight));
                    }
                }
                if let Some((index, _)) = about {
                    chosen = vec![index];
                    break;
                }
            }
        }

        // An ask that stood but needed a provider stands once an intent that gives way chose one
        // ("For ticket INC-271904: what's the status, and what else has been logged against the
        // same machine?": the ticket provides its machine).
        for (index, position) in deferred {
            let supplied = self.supplied(index, available, &chosen);
            if supplied && !chosen.contains(&index) {
                heard.extend(segments[position].columns.iter().copied());
                chosen.push(index);
            }
        }

        // Dependants, best first: each must be named by a decisive name term no chosen intent
        // has in its name or keywords.
        let all = heard;
        loop {
            let mut best: Option<(usize, f32)> = None;
            for (index, intent) in self.intents.iter().enumerate() {
                // It needs what a chosen intent provides, or takes it as an optional param the
                // question leaves to its default ("how reliable were they": those carriers).
                let needs = self.depends(index, available, &chosen)
                    || intent.optional.iter().any(|kind| {
                        !available.contains(kind)
                            && chosen
                                .iter()
                                .any(|&other| self.intents[other].provides.contains(kind))
                    });
                if !needs || chosen.contains(&index) {
                    continue;
                }
                let gain: f32 = intent
                    .name_terms
                    .iter()
                    .filter(|(column, _)| {
                        all.contains(column)
                            && !intent.names_missing(*column, available)
                            && chosen.iter().all(|&other| !self.intents[other].strong[*column])
                    })
                    .map(|(_, weight)| weight)
                    .sum();
                if gain > 0.0 && best.is_none_or(|(_, top)| gain > top) {
                    best = Some((index, gain));
                }
            }
            let Some((index, _)) = best else { break };
            chosen.push(index);
        }
        // An ask no chosen intent answers that refers back ("..., and what tickets have they
        // raised?") is about what a chosen intent provides: the intent needing it that the ask's
        // decisive terms, strong for it, weigh most for joins.
        let mut from = 0;
        for segment in &segments {
            // The ask's words, and the words before them since the previous ask.
            let said = question.get(from..segment.end).unwrap_or("");
            from = segment.end;
            // Answered by its own best pick, the ask may still say a term only one intent
            // names or lists, that no chosen intent has ("and what was in each of those
            // orders?").
            let unheard: Vec<usize> = segment
                .columns
                .iter()
                .copied()
                .filter(|&column| {
                    self.decisive[column]
                        && self.unique[column]
                        && chosen.iter().all(|&index| !self.intents[index].strong[column])
                })
                .collect();
            let unanswered = self.unanswered_segment(segment, &chosen, &best);
            if segment.context || !refers_back(said) || (unheard.is_empty() && !unanswered) {
                continue;
            }
            let mut dependant: Option<(usize, f32)> = None;
            for (index, intent) in self.intents.iter().enumerate() {
                // It needs what a chosen intent provides, or takes it as an optional param the
                // question leaves to its default ("how reliable were they": those carriers).
                let needs = self.depends(index, available, &chosen)
                    || intent.optional.iter().any(|kind| {
                        !available.contains(kind)
                            && chosen
                                .iter()
                                .any(|&other| self.intents[other].provides.contains(kind))
                    });
                // The ask names what it wants of the dependant ("tickets"), not only how it
                // relates ("who raised it" asks for the ticket's requester, a provided value).
                // A term only this intent names or lists says it as its name would.
                let names = if unanswered {
                    segment.columns.iter().any(|&column| {
                        intent.named.contains(&column)
                            || (self.unique[column] && intent.strong[column])
                    })
                } else {
                    unheard.iter().any(|&column| intent.strong[column])
                };
                if !needs || !names || chosen.contains(&index) {
                    continue;
                }
                let weight: f32 = segment
                    .columns
                    .iter()
                    .filter(|&&column| self.decisive[column] && intent.strong[column])
                    .map(|&column| intent.weights[column])
                    .sum();
                if weight > 0.0 && dependant.is_none_or(|(_, top)| weight > top) {
                    dependant = Some((index, weight));
                }
            }
            if let Some((index, _)) = dependant {
                chosen.push(index);
            }
        }
        // A lone pick lacking a required value the question names no one thing of: the
        // question may name one thing another intent requires ("line items and status of the
        // order"), and is about it: the intent requiring it that the question's terms weigh
        // most for (the user is then asked which one).
        // Failing that, a lone pick lacking such a value in a question that says words the
        // registry does not know, and points at nothing, asks for something the registry does
        // not hold ("the average shipping time for online orders": no one order is meant):
        // nothing is picked, rather than asking which one.
        // Only a distinctive kind: one most intents require (a market, a period) is simply
        // asked for.
        let lacking = |index: usize| {
            let mut missing =
                self.intents[index].required.iter().filter(|kind| !available.contains(kind));
            missing.clone().next().is_some()
                && missing.clone().all(|kind| self.distinctive_kinds.contains(kind))
                && !missing.any(|kind| self.names_one(question, *kind, Naming::Any))
        };
        if let [only] = chosen[..]
            && !foreign
            && lacking(only)
        {
            let columns: Vec<usize> =
                segments.iter().flat_map(|s| s.columns.iter().copied()).collect();
            let mut about: Option<(usize, f32)> = None;
            for (index, intent) in self.intents.iter().enumerate() {
                let names = intent.required.iter().any(|kind| {
                    !available.contains(kind) && self.names_one(question, *kind, Naming::Known)
                });
                if !names || !available.iter().all(|kind| intent.takes(kind)) {
                    continue;
                }
                let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
                if weight > 0.0 && about.is_none_or(|(_, top)| weight > top) {
                    about = Some((index, weight));
                }
            }
            let pointing = question.split(|c: char| !c.is_alphanumeric()).any(|word| {
                ["my", "our", "this", "that"]
                    .iter()
                    .any(|pointer| word.eq_ignore_ascii_case(pointer))
            });
            if let Some((index, _)) = about {
                chosen = vec![index];
            } else if unknown && !pointing {
                chosen.clear();
            }
        }
        chosen.sort_unstable();
        chosen.truncate(MAX_PICKS);
        let unanswered = self.unanswered_ranges(&segments, &elsewhere, &chosen, &best);
        LexicalPick {
            compound: chosen.len() > 1,
            names: chosen.iter().map(|&index| self.intents[index].name.clone()).collect(),
            unanswered,
        }
    }

    /// The asks of `question` (byte ranges, in question order) that none of the intents named
    /// in `names` answers, by the rule of [`LexicalPick::unanswered`]: for a plan chosen by
    /// another proposer. Empty when `names` is.
    pub fn unanswered(
        &self,
        question: &str,
        available: &BTreeSet<ParamKind>,
        spans: &[ParamSpan],
        names: &[String],
    ) -> Vec<(usize, usize)> {
        let chosen: Vec<usize> = self
            .intents
            .iter()
            .enumerate()
            .filter(|(_, intent)| names.contains(&intent.name))
            .map(|(index, _)| index)
            .collect();
        let (Asks { segments, elsewhere }, ..) = self.segments(question, &Masks::of(spans));
        let factors = self.factors(available);
        let best: Vec<(usize, usize)> = segments
            .iter()
            .filter_map(|segment| {
                let (index, _) = self.best(&segment.columns, available, &factors, false)?;
                Some((segment.start, index))
            })
            .collect();
        self.unanswered_ranges(&segments, &elsewhere, &chosen, &best)
    }

    /// The byte ranges of the asks among `segments` that none of `chosen` answers (framing
    /// phrases and modifiers count only when nothing else asks), and of the asks for a thing no
    /// intent returns (`elsewhere`), in question order; empty when nothing is chosen, since the
    /// route (clarify or unplannable) says so. `best` holds each segment's best intent, by its
    /// start.
    fn unanswered_ranges(
        &self,
        segments: &[Segment],
        elsewhere: &[Range],
        chosen: &[usize],
        best: &[(usize, usize)],
    ) -> Vec<Range> {
        if chosen.is_empty() {
            return Vec::new();
        }
        let asks_only = segments.iter().any(|segment| !segment.context);
        let mut ranges: Vec<Range> = segments
            .iter()
            .filter(|segment| !(asks_only && segment.context))
            .filter(|segment| self.unanswered_segment(segment, chosen, best))
            .map(|segment| (segment.start, segment.end))
            .chain(elsewhere.iter().copied())
            .collect();
        ranges.sort_unstable();
        ranges
    }

    /// Whether `segment` asks for something (it has a decisive term) that none of `chosen`
    /// answers: its own best intent was not chosen, and no chosen intent has a strong term in
    /// it. `best` holds each segment's best intent, by its start.
    fn unanswered_segment(
        &self,
        segment: &Segment,
        chosen: &[usize],
        best: &[(usize, usize)],
    ) -> bool {
        let asks = segment.columns.iter().any(|&column| self.decisive[column]);
        let own = best.iter().find(|(start, _)| *start == segment.start).map(|&(_, index)| index);
        asks && own.is_none_or(|index| !chosen.contains(&index))
            && !chosen.iter().any(|&index| {
                segment.columns.iter().any(|&column| {
                    self.decisive[column] && self.intents[index].weights[column] > 0.0
                })
            })
    }

    /// The question's segments, as term columns; whether it says a word the registry does not
    /// or asks for something else entirely; and whether it asks for something else entirely.
    fn segments(&self, question: &str, masks: &Masks) -> (Asks, bool, bool) {
        let mut segments = vec![Segment { end: question.len(), ..Segment::default() }];
        // Where each word the registry does not know starts.
        let mut unheard: Vec<usize> = Vec::new();
        let mut opened = false;
        let in_time = |at: usize| inside(&masks.times, at);
        // A word inside a value the extractors read is that value, known or not.
        let in_value = |at: usize| inside(&masks.protected, at);
        self.lexicon.terms_at(question, &masks.masked, &masks.protected, |term, at| {
            let Some(current) = segments.last_mut() else { return };
            if !opened {
                current.start = at;
                opened = true;
            }
            match term.as_ref() {
                lexicon::SPLIT | lexicon::STOP => {
                    current.closed_by_stop = term == lexicon::STOP;
                    if !current.columns.is_empty()
                        || current.opens_with_frame
                        || current.opens_with_modifier
                    {
                        current.end = at;
                        segments.push(Segment { end: question.len(), ..Segment::default() });
                    }
                    opened = false;
                }
                lexicon::FRAME => current.opens_with_frame = current.columns.is_empty(),
                lexicon::MODIFIER => current.opens_with_modifier = current.columns.is_empty(),
                lexicon::FOREIGN => current.foreign = true,
                _ if self.labels_value(question, masks, &term, at) => {}
                _ => match self.terms.get(term.as_ref()) {
                    Some(&column) => {
                        current.first_known.get_or_insert(at);
                        if !current.columns.contains(&column)
                            && (!in_time(at) || !lexicon::is_time_word(&term))
                        {
                            current.columns.push(column);
                        }
                    }
                    None => {
                        let unknown = !in_value(at) && !self.kind_words.contains(term.as_ref());
                        if unknown {
                            // Said right after "which": what the ask asks for.
                            let asked = question.get(..at).is_some_and(|before| {
                                before
                                    .split(|c: char| !c.is_alphanumeric())
                                    .rfind(|word| !word.is_empty())
                                    .is_some_and(|word| word.eq_ignore_ascii_case("which"))
                            });
                            current.asks_staff |= asked && self.staff.iter().any(|it| *it == term);
                            current.asks_outsider |=
                                asked && self.outsiders.iter().any(|it| *it == term);
                            if current.first_known.is_none()
                                && self
                                    .value_words
                                    .binary_search_by(|w| w.as_str().cmp(&term))
                                    .is_err()
                            {
                                current.last_unknown = Some(at);
                            }
                        }
                        // A word of the registry's things ("tumblers" of a product's
                        // title) names one of them.
                        if unknown && !self.thing_word(question, at) {
                            unheard.push(at);
                        }
                        current.unknown |= unknown
                    }
                },
            }
        });
        let count = segments.len();
        for (position, segment) in segments.iter_mut().enumerate() {
            segment.context = segment.opens_with_modifier
                || (segment.opens_with_frame && segment.closed_by_stop && position + 1 < count);
        }
        for segment in &mut segments {
            if segment.unknown && segment.columns.iter().all(|&c| self.quantity[c]) {
                segment.columns.clear();
            }
            if let (Some(unknown), Some(known)) = (segment.last_unknown, segment.first_known) {
                segment.measured = question.get(unknown..known).is_some_and(|between| {
                    between.split(|c: char| !c.is_alphanumeric()).any(|word| {
                        ["for", "of", "per", "by", "on"]
                            .iter()
                            .any(|preposition| word.eq_ignore_ascii_case(preposition))
                    })
                });
            }
        }
        // An ask for a thing no intent returns is an ask for something else.
        // Each ask is read from where the one before it ends (its opening words are its own).
        let mut from = 0;
        for segment in &mut segments {
            if segment.unknown {
                let decided = segment.columns.iter().any(|&column| self.decisive[column]);
                match asked::names_unknown_thing(question, from, segment.end, |at| {
                    unheard.contains(&at)
                }) {
                    Some(asked::Unknown::Thing) => segment.elsewhere = true,
                    Some(asked::Unknown::Head) => segment.elsewhere = !decided,
                    None => {}
                }
            }
            from = segment.end;
        }
        // The question's first ask asking for such a thing asks for something else entirely;
        // a later one is only not heard, and is named as unanswered ("... unit 12: its paint
        // scheme and mileage").
        let foreign = segments.iter().any(|segment| segment.foreign)
            || segments.first().is_some_and(|segment| segment.elsewhere);
        let unknown = foreign || segments.iter().any(|segment| segment.unknown);
        let elsewhere: Vec<Range> = segments
            .iter()
            .filter(|segment| segment.elsewhere)
            .map(|segment| (segment.start, segment.end))
            .collect();
        segments.retain(|segment| {
            !segment.columns.is_empty() && !segment.foreign && !segment.elsewhere
        });
        (Asks { segments, elsewhere }, unknown, foreign)
    }

    /// Whether `question` names one thing of `kind`: by one of its nouns in the singular and not
    /// distributed ("per order", "each product"; "one of our customers" is one), by a word of
    /// its things ([`Catalog::things`]: "the kettle"), or, a quoted-text kind, by a possessive
    /// name ("Blue Harbor Cafe's orders"). `naming` says which of these count.
    fn names_one(&self, question: &str, kind: ParamKind, naming: Naming) -> bool {
        let empty = Vec::new();
        let find = |all: &'_ [(ParamKind, Vec<String>)]| {
            all.iter().find(|(k, _)| *k == kind).map_or(&empty, |(_, words)| words).clone()
        };
        let nouns = find(&self.naming);
        let things = find(if naming == Naming::Any { &self.things } else { &self.strange_things });
        let quoted = matches!(kind, ParamKind::Declared(k) if k.ty() == KindType::QuotedText);
        let (mut distributed, mut one_of, mut previous) = (false, false, String::new());
        let words = question.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}');
        for word in words.filter(|word| !word.is_empty()) {
            let lower = word.to_lowercase();
            let bare = lower.trim_end_matches("'s").trim_end_matches("\u{2019}s");
            let singular = bare.strip_suffix('s').unwrap_or(bare);
            if (!distributed && nouns.iter().any(|noun| noun == bare))
                || (one_of && nouns.iter().any(|noun| noun == singular))
                || things.iter().any(|thing| thing == bare || thing == singular)
            {
                return true;
            }
            // A capitalised name's possessive, not a contraction ("What's", "It's").
            if quoted
                && bare.len() != lower.len()
                && word.starts_with(char::is_uppercase)
                && !CONTRACTED.contains(&bare)
            {
                return true;
            }
            distributed = matches!(lower.as_str(), "each" | "per" | "every" | "all");
            one_of = (previous == "one" && lower == "of")
                || (one_of && matches!(lower.as_str(), "our" | "the" | "your" | "my"));
            previous = lower;
        }
        false
    }

    /// Whether the word at byte `at` of `question` is a word of one of the registry's things
    /// ([`Catalog::things`]), in the singular or plural.
    fn thing_word(&self, question: &str, at: usize) -> bool {
        let Some(rest) = question.get(at..) else { return false };
        let word: String =
            rest.chars().take_while(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        let singular = word.strip_suffix('s').unwrap_or(&word);
        self.things.iter().any(|(_, words)| words.iter().any(|it| *it == word || it == singular))
    }

    /// Whether `term`, said at byte `at`, is the label head of the kind of a value that ends
    /// right before it ("the Northwest region").
    fn labels_value(&self, question: &str, masks: &Masks, term: &str, at: usize) -> bool {
        self.heads.iter().any(|(kind, head)| {
            head == term
                && masks.ends.iter().any(|&(end, valued)| {
                    valued == *kind
                        && question.get(end..at).is_some_and(|gap| gap.trim().is_empty())
                })
        })
    }

    /// The intent with the best score on these columns. A candidate needs a decisive term that
    /// is strong for it (name or keyword), and a raw gain of [`FIRST_GAIN`] ([`CLARIFY_GAIN`]
    /// when it lacks a param nothing can provide). The score is the gain times the param factor
    /// times the share of the intent's name the question mentions.
    fn best(
        &self,
        columns: &[usize],
        available: &BTreeSet<ParamKind>,
        scoring: &Scoring,
        anchored_fallback: bool,
    ) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        let mut anchored_best: Option<(usize, f32)> = None;
        // An ask that ranks ("which items brought in the most", a superlative heard as
        // `top`) is answered by an intent that ranks, when one qualifies: a total that
        // takes more of the question's values does not rank anything.
        let ranking = self.top.filter(|column| columns.contains(column));
        let mut ranked_best: Option<(usize, f32)> = None;
        for (index, intent) in self.intents.iter().enumerate() {
            let mut gain = 0.0;
            let mut decided = false;
            // A strong term decides with a distinctive param the question gives.
            let anchored = intent
                .required
                .iter()
                .any(|kind| available.contains(kind) && self.distinctive_kinds.contains(kind))
                || intent
                    .optional
                    .iter()
                    .any(|kind| available.contains(kind) && self.rare_optional.contains(kind));
            // The intent's whole name said ("product sales"), its cue words decide too.
            let named_whole = intent.named.iter().all(|column| columns.contains(column));
            for &column in columns {
                if intent.weights[column] > 0.0 {
                    gain += intent.weights[column];
                    decided |= intent.strong[column]
                        && (named_whole || !intent.names_provided(column, available, scoring))
                        && (self.decisive[column] || (anchored_fallback && anchored));
                }
            }
            let (factor, missing) = scoring.factors[index];
            let partial = intent.required.iter().any(|kind| available.contains(kind));
            // A value only a few intents require, with a strong term of one of them, is
            // enough: in a small registry a common term's weight alone may not reach the gain.
            let least = if missing && !partial { CLARIFY_GAIN } else { FIRST_GAIN };
            // Below the gain, an anchored intent is only a fallback for when nothing else
            // qualifies.
            let fallback = gain < least;
            if !decided || (fallback && !(anchored_fallback && anchored && gain >= ANCHORED_GAIN)) {
                continue;
            }
            let explained: f32 = columns
                .iter()
                .filter(|&&column| self.decisive[column] && intent.weights[column] > 0.0)
                .map(|&column| self.importance[column])
                .sum();
            let asked: f32 = columns
                .iter()
                .filter(|&&column| self.decisive[column])
                .map(|&column| self.importance[column])
                .sum();
            let answered = if asked > 0.0 { explained / asked } else { 1.0 };
            let total: f32 = intent.name_terms.iter().map(|(_, weight)| weight).sum();
            let named: f32 = intent
                .name_terms
                .iter()
                .filter(|(column, _)| {
                    columns.contains(column)
                        || intent
                            .valued
                            .iter()
                            .any(|&(named, kind)| named == *column && available.contains(&kind))
                })
                .map(|(_, weight)| weight)
                .sum();
            let coverage = if total > 0.0 { named / total } else { 1.0 };
            // A term only this intent names or lists says it as a part of its name would.
            let own = columns.iter().any(|&column| self.unique[column] && intent.strong[column]);
            let coverage = if own { coverage.max(OWN_TERM_COVERAGE) } else { coverage };
            let score = gain
                * factor
                * (1.0 - COVERAGE_SHARE + COVERAGE_SHARE * coverage)
                * (1.0 - ANSWERED_SHARE + ANSWERED_SHARE * answered);
            let slot = if fallback { &mut anchored_best } else { &mut best };
            if slot.is_none_or(|(_, top)| score > top) {
                *slot = Some((index, score));
            }
            if !fallback
                && ranking.is_some_and(|column| intent.weights[column] > 0.0)
                && ranked_best.is_none_or(|(_, top)| score > top)
            {
                ranked_best = Some((index, score));
            }
        }
        ranked_best.or(best).or(anchored_best)
    }

    /// The one intent that, instead of the lone pick `only`, takes a rare optional value the
    /// question gives and `only` does not ("compare online vs marketplace sales in the
    /// Northwest": the channels given say channel mix, not sales by region): every param it
    /// requires is given, it takes every value of the question `only` takes, and the
    /// question's terms weigh for it.
    fn taking_rare(
        &self,
        only: usize,
        available: &BTreeSet<ParamKind>,
        columns: &[usize],
    ) -> Option<usize> {
        let lone = &self.intents[only];
        let mut taking = self.intents.iter().enumerate().filter(|(index, intent)| {
            *index != only
                && available.iter().any(|kind| {
                    self.rare_optional.contains(kind) && intent.takes(kind) && !lone.takes(kind)
                })
                && intent.given(available)
                && available.iter().all(|kind| !lone.takes(kind) || intent.takes(kind))
                && columns.iter().any(|&column| intent.weights[column] > 0.0)
        });
        match (taking.next(), taking.next()) {
            (Some((index, _)), None) => Some(index),
            _ => None,
        }
    }

    /// Whether every decisive term of `segment` is a cue word of a kind one of `chosen`
    /// provides.
    fn names_only_provided(&self, segment: &Segment, chosen: &[usize]) -> bool {
        let mut decisive =
            segment.columns.iter().filter(|&&column| self.decisive[column]).peekable();
        decisive.peek().is_some()
            && decisive.all(|&column| {
                self.thing_terms.iter().any(|&(term, kind)| {
                    term == column
                        && chosen.iter().any(|&index| self.intents[index].provides.contains(&kind))
                })
            })
    }

    /// Whether every param intent `index` requires is given or provided by one of `chosen`.
    fn supplied(&self, index: usize, available: &BTreeSet<ParamKind>, chosen: &[usize]) -> bool {
        self.intents[index].required.iter().all(|kind| {
            available.contains(kind)
                || chosen.iter().any(|&other| self.intents[other].provides.contains(kind))
        })
    }

    /// Whether intent `index` requires a param not given that one of `chosen` provides.
    fn depends(&self, index: usize, available: &BTreeSet<ParamKind>, chosen: &[usize]) -> bool {
        self.intents[index].required.iter().any(|kind| {
            !available.contains(kind)
                && chosen.iter().any(|&other| self.intents[other].provides.contains(kind))
        })
    }

    /// Whether a required param of the intent is not available (so its factor counted a
    /// provider).
    fn needs_provider(&self, index: usize, available: &BTreeSet<ParamKind>) -> bool {
        self.intents[index].required.iter().any(|kind| !available.contains(kind))
    }

    /// Every intent's param factor, and whether it lacks a param nothing can provide.
    fn factors(&self, available: &BTreeSet<ParamKind>) -> Scoring {
        // The kinds an intent anchored by the question's values provides ("order X" gives its
        // products).
        let provided = self
            .intents
            .iter()
            .filter(|intent| {
                !intent.required.is_empty()
                    && intent.required.iter().all(|kind| available.contains(kind))
            })
            .flat_map(|intent| intent.provides.iter().copied())
            .collect();
        let bindable: Vec<bool> = self
            .intents
            .iter()
            .map(|intent| intent.required.iter().all(|kind| available.contains(kind)))
            .collect();
        // Per kind: how many bindable intents provide it.
        let mut providers: BTreeMap<ParamKind, usize> = BTreeMap::new();
        for (intent, _) in self.intents.iter().zip(&bindable).filter(|(_, bindable)| **bindable) {
            for &kind in &intent.provides {
                *providers.entry(kind).or_default() += 1;
            }
        }
        let factors = (0..self.intents.len())
            .map(|index| self.param_factor(index, available, &bindable, &providers))
            .collect();
        Scoring { factors, provided }
    }

    /// The param factor of an intent, and whether it lacks a param nothing can provide.
    fn param_factor(
        &self,
        index: usize,
        available: &BTreeSet<ParamKind>,
        bindable: &[bool],
        providers: &BTreeMap<ParamKind, usize>,
    ) -> (f32, bool) {
        let intent = &self.intents[index];
        let mut factor = 1.0;
        let mut missing = false;
        let mut provided = false;
        for kind in &intent.required {
            if available.contains(kind) {
                factor += REQUIRED_BONUS;
            } else if self.providable(index, *kind, bindable, providers) {
                provided = true;
            } else {
                missing = true;
            }
        }
        if provided {
            factor *= PROVIDER_FACTOR;
        }
        for kind in &intent.optional {
            if available.contains(kind) {
                factor += OPTIONAL_BONUS;
            }
        }
        if missing {
            factor *= MISSING_FACTOR;
        }
        (factor, missing)
    }

    /// Whether another intent, bindable from the available params, provides `kind`:
    /// `providers` counts the bindable providers of each kind, this one included.
    fn providable(
        &self,
        index: usize,
        kind: ParamKind,
        bindable: &[bool],
        providers: &BTreeMap<ParamKind, usize>,
    ) -> bool {
        let own = usize::from(bindable[index] && self.intents[index].provides.contains(&kind));
        providers.get(&kind).copied().unwrap_or(0) > own
    }
}

/// A byte range `[start, end)` of the question.
type Range = (usize, usize);

/// Where the proposer reads a question differently: the words of identifier-like values
/// (agency, NAICS, UUID and UEI; declared dictionaries, codes and quoted text) are not read;
/// inside a time value ("the past month") a time word says the window, not what to compute,
/// so it is not heard even where the registry hears it ("by month"); and nothing splits a
/// segment inside any value ("SI, TK and G").
struct Masks {
    masked: Vec<Range>,
    times: Vec<Range>,
    protected: Vec<Range>,
    /// Where each value ends, with its kind.
    ends: Vec<(usize, ParamKind)>,
}

impl Masks {
    fn of(spans: &[ParamSpan]) -> Masks {
        let ranges = |keep: &dyn Fn(&ParamSpan) -> bool| {
            spans.iter().filter(|span| keep(span)).map(|span| (span.start, span.end)).collect()
        };
        Masks {
            masked: ranges(&|span| span.kind.is_anchor()),
            times: ranges(&|span| span.kind.is_time()),
            protected: ranges(&|_| true),
            ends: spans.iter().map(|span| (span.end, span.kind)).collect(),
        }
    }
}

/// Which words [`LexicalProposer::names_one`] counts as naming one thing of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// Nouns and every word of the kind's things.
    Any,
    /// Nouns, and the words of its things that are no term or stop word.
    Known,
}

/// Words that end in `'s` as a contraction, not a possessive ("What's").
const CONTRACTED: &[&str] =
    &["what", "who", "it", "that", "there", "here", "let", "where", "how", "when", "he", "she"];

/// Whether `question` points at a thing by one of `cues` after a possessive or demonstrative
/// ("my incident", "that case", "our latest ticket"), the cue not qualifying a word of the
/// intent named `picked` ("our monthly ticket volume" asks for `ticket_volume`).
fn pointed_at(question: &str, cues: &[String], picked: Option<&str>) -> bool {
    let qualifies = |word: &str| {
        let word = word.trim_end_matches('s');
        !word.is_empty()
            && picked
                .is_some_and(|name| name.split('_').any(|part| part.eq_ignore_ascii_case(word)))
    };
    // How many words ago a possessive or demonstrative was said, if within two; and whether
    // the word before was a cue so pointed at.
    let words: Vec<&str> =
        question.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).collect();
    // "the case I opened", "the ticket we raised": pointed at by what the user did with it.
    let cue = |word: &str| cues.iter().any(|cue| word.eq_ignore_ascii_case(cue));
    if words.windows(3).any(|w| {
        w[0].eq_ignore_ascii_case("the")
            && cue(w[1])
            && (w[2].eq_ignore_ascii_case("i") || w[2].eq_ignore_ascii_case("we"))
    }) {
        return true;
    }
    let mut since: Option<usize> = None;
    let mut pointed = false;
    for &word in &words {
        if pointed {
            if !qualifies(word) {
                return true;
            }
            pointed = false;
        }
        if since.is_some() && cue(word) {
            pointed = true;
        }
        let pointer = ["my", "our", "that", "this"].iter().any(|p| word.eq_ignore_ascii_case(p));
        since = if pointer { Some(0) } else { since.map(|n| n + 1).filter(|&n| n < 2) };
    }
    pointed
}

/// The people who work for a business, whom a registry's intents rank only if they name
/// them.
const STAFF: &[&str] = &[
    "agent",
    "technician",
    "tech",
    "employee",
    "staffer",
    "worker",
    "rep",
    "representative",
    "cashier",
    "clerk",
    "associate",
    "salesperson",
    "manager",
];

/// Parties outside a business it deals with, whom a registry's intents are about only if
/// they name them.
const OUTSIDERS: &[&str] = &[
    "supplier",
    "vendor",
    "competitor",
    "carrier",
    "courier",
    "distributor",
    "manufacturer",
    "contractor",
    "landlord",
];

/// Whether a value of `kind` names one thing of its own (an id, a code, a quoted name), not a
/// category of things.
fn identifies(kind: ParamKind) -> bool {
    match kind {
        ParamKind::Uuid | ParamKind::Uei => true,
        ParamKind::Declared(kind) => {
            matches!(kind.ty(), KindType::Uuid | KindType::Code | KindType::QuotedText)
        }
        _ => false,
    }
}

/// Whether `text` refers back to something named before it ("they", "its", "the same").
fn refers_back(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric()).any(|word| {
        [
            "they", "them", "their", "theirs", "it", "its", "those", "these", "same", "he", "she",
            "his", "her", "each",
        ]
        .iter()
        .any(|pronoun| word.eq_ignore_ascii_case(pronoun))
    })
}

/// Whether byte `at` lies in one of `ranges`.
fn inside(ranges: &[Range], at: usize) -> bool {
    ranges.iter().any(|&(start, end)| at >= start && at < end)
}

/// Deterministic: one proposal whatever `samples` asks (K copies would add nothing).
impl Proposer for LexicalProposer {
    fn propose<'a>(&'a self, request: ProposeRequest<'a>) -> BoxFuture<'a, Result<Proposals>> {
        let pick = self.pick(request.question, request.available, request.spans);
        Box::pin(std::future::ready(Ok(Proposals {
            samples: vec![pick.names],
            dropped_names: 0,
            unusable_replies: 0,
        })))
    }
}

/// Words that a plane implies, beyond its own name.
fn plane_cues(plane: &str) -> Vec<&str> {
    let cues: &[&str] = match plane {
        "market" => &["award spend vendor"],
        "graph" => &["vendor relationship"],
        "requirement" => &["requirement"],
        "bench" => &["bench candidates cleared staff"],
        "composite" => &["capture picture"],
        _ => &[],
    };
    let mut all = vec![plane];
    all.extend_from_slice(cues);
    all
}
