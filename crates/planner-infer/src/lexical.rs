//! The lexical proposer: the offline default. Deterministic, no model, no network.
//!
//! An index is built once from each intent's name, description, keywords and plane, all passed
//! through the same [`Lexicon`] (stemming, stop words, a thesaurus of domain phrasings). Each
//! term of an intent gets the weight `idf × field` (name 3, keyword 2, description 1 with BM25
//! length normalisation, plane cue 0.6).
//!
//! A question is answered by greedy cover: repeatedly take the intent that explains the most
//! not-yet-explained question weight, scaled by a param factor, until nothing explains enough.
//! The param factor favours intents whose required params are available (or can be provided by
//! another intent bindable from the available params), and intents that use an available param
//! no chosen intent uses yet; a required param that nothing can provide costs a factor. One
//! chosen intent means a single question; several mean a compound one.

mod lexicon;

use std::collections::BTreeSet;

use planner_registry::ParamKind;

use crate::{BoxFuture, Catalog, ParamSpan, Proposals, ProposeRequest, Proposer, Result};
use lexicon::Lexicon;

/// The most intents one proposal holds (the plan node cap).
const MAX_PICKS: usize = 6;
/// Field weights.
const NAME_WEIGHT: f32 = 3.0;
const KEYWORD_WEIGHT: f32 = 2.0;
const DESCRIPTION_WEIGHT: f32 = 1.0;
const PLANE_WEIGHT: f32 = 0.6;
/// BM25 length normalisation of descriptions.
const LENGTH_B: f32 = 0.75;
/// The least raw gain of a segment's pick.
const FIRST_GAIN: f32 = 2.0;
/// The least score of a pick beside the best one.
const NEXT_SCORE: f32 = 2.5;
/// The factor per required param that neither the question nor a bindable provider supplies.
const MISSING_FACTOR: f32 = 0.3;
/// The bonus per required param the question supplies, and per optional one.
const REQUIRED_BONUS: f32 = 0.5;
const OPTIONAL_BONUS: f32 = 0.05;
/// Terms that may add to a gain but never decide a pick on their own: the nouns of the params
/// themselves (they say what the question is about, not what it asks) and counting words.
const GENERIC_TERMS: &[&str] =
    &["agency", "naics", "requirement", "vendor", "count", "next", "market", "award"];

/// The offline proposer. Build it once per catalog; answering is allocation-light and pure.
#[derive(Debug)]
pub struct LexicalProposer {
    lexicon: Lexicon,
    /// Term → column of the weight rows.
    terms: std::collections::BTreeMap<String, usize>,
    intents: Vec<Indexed>,
    /// Per term column: whether it is one of [`GENERIC_TERMS`].
    generic: Vec<bool>,
}

/// Where an indexed term comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Keyword,
    Description,
    Plane,
}

#[derive(Debug, Default)]
struct Segment {
    columns: Vec<usize>,
    opens_with_frame: bool,
    closed_by_stop: bool,
    framing: bool,
}

#[derive(Debug)]
struct Indexed {
    name: String,
    /// Weight of each term (dense, by term column).
    weights: Vec<f32>,
    /// Whether the term comes from the name or a keyword.
    strong: Vec<bool>,
    /// Whether the term comes from the name.
    name_terms: Vec<bool>,
    required: Vec<ParamKind>,
    optional: Vec<ParamKind>,
    provides: Vec<ParamKind>,
}

/// What the lexical proposer makes of a question.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexicalPick {
    /// The chosen intent names, in catalog (registry) order.
    pub names: Vec<String>,
    /// Whether the question asks for more than one thing.
    pub compound: bool,
}

impl LexicalProposer {
    /// Builds the index over `catalog`.
    pub fn new(catalog: &Catalog) -> LexicalProposer {
        let lexicon = Lexicon::new();
        let mut fields: Vec<Vec<(String, Field)>> = Vec::new();
        let mut description_lengths = Vec::new();
        for card in catalog.cards() {
            let mut entries: Vec<(String, Field)> = Vec::new();
            let add = |text: &str, field: Field, entries: &mut Vec<(String, Field)>| {
                let terms = lexicon.terms(text, &[]);
                let words: Vec<String> =
                    terms.into_iter().filter(|term| !term.starts_with(['|', '@'])).collect();
                let length = words.len();
                entries.extend(words.into_iter().map(|term| (term, field)));
                length
            };
            add(&card.name.replace('_', " "), Field::Name, &mut entries);
            for keyword in &card.keywords {
                add(keyword, Field::Keyword, &mut entries);
            }
            description_lengths.push(add(&card.description, Field::Description, &mut entries));
            for cue in plane_cues(&card.plane) {
                add(cue, Field::Plane, &mut entries);
            }
            fields.push(entries);
        }
        let mut terms = std::collections::BTreeMap::new();
        for entries in &fields {
            for (term, _) in entries {
                let next = terms.len();
                terms.entry(term.clone()).or_insert(next);
            }
        }
        let mut document_frequency = vec![0usize; terms.len()];
        for entries in &fields {
            let seen: BTreeSet<usize> = entries.iter().map(|(term, _)| terms[term]).collect();
            for column in seen {
                document_frequency[column] += 1;
            }
        }
        let count = fields.len() as f32;
        let mean_length = description_lengths.iter().sum::<usize>() as f32
            / description_lengths.len().max(1) as f32;
        let intents = catalog
            .cards()
            .iter()
            .zip(&fields)
            .zip(&description_lengths)
            .map(|((card, entries), &length)| {
                let mut weights = vec![0.0f32; terms.len()];
                let mut strong = vec![false; terms.len()];
                let mut name_terms = vec![false; terms.len()];
                let norm = 1.0 - LENGTH_B + LENGTH_B * length as f32 / mean_length.max(1.0);
                for (term, field) in entries {
                    let column = terms[term];
                    let df = document_frequency[column] as f32;
                    let idf = (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
                    let weight = match field {
                        Field::Name => NAME_WEIGHT,
                        Field::Keyword => KEYWORD_WEIGHT,
                        Field::Description => DESCRIPTION_WEIGHT / norm,
                        Field::Plane => PLANE_WEIGHT,
                    };
                    weights[column] = weights[column].max(idf * weight);
                    strong[column] |= matches!(field, Field::Name | Field::Keyword);
                    name_terms[column] |= *field == Field::Name;
                }
                Indexed {
                    name: card.name.clone(),
                    weights,
                    strong,
                    name_terms,
                    required: card.required.clone(),
                    optional: card.optional.clone(),
                    provides: card.provides.clone(),
                }
            })
            .collect();
        let mut generic = vec![false; terms.len()];
        for (term, &column) in &terms {
            generic[column] = GENERIC_TERMS.contains(&term.as_str());
        }
        LexicalProposer { lexicon, terms, intents, generic }
    }

    /// Chooses intents for `question`, given the available param kinds and where the param
    /// values were found (pass `&[]` when unknown).
    pub fn pick(
        &self,
        question: &str,
        available: &BTreeSet<ParamKind>,
        spans: &[ParamSpan],
    ) -> LexicalPick {
        let masked: Vec<(usize, usize)> = spans
            .iter()
            .filter(|span| {
                matches!(
                    span.kind,
                    ParamKind::Agency | ParamKind::Naics | ParamKind::Uuid | ParamKind::Uei
                )
            })
            .map(|span| (span.start, span.end))
            .collect();
        let segments = self.segments(question, &masked);
        let bindable: Vec<bool> = self
            .intents
            .iter()
            .map(|intent| intent.required.iter().all(|kind| available.contains(kind)))
            .collect();
        let factors: Vec<f32> = (0..self.intents.len())
            .map(|index| self.param_factor(index, available, &bindable))
            .collect();

        // The best intent of each segment (an ask), framing phrases apart.
        let mut asks: Vec<(usize, f32, bool)> = Vec::new();
        for segment in &segments {
            if let Some((index, score)) = self.best(&segment.columns, &factors, &[]) {
                asks.push((index, score, segment.framing));
            }
        }
        let direct: Vec<(usize, f32)> =
            asks.iter().filter(|ask| !ask.2).map(|&(index, score, _)| (index, score)).collect();
        let asks: Vec<(usize, f32)> = if direct.is_empty() {
            asks.iter().map(|&(index, score, _)| (index, score)).collect()
        } else {
            direct
        };
        let mut chosen: Vec<usize> = Vec::new();
        let top = asks.iter().map(|ask| ask.1).fold(0.0f32, f32::max);
        for (index, score) in asks {
            if (score >= top || score >= NEXT_SCORE) && !chosen.contains(&index) {
                chosen.push(index);
            }
        }

        // Dependants: an intent that needs what a chosen one provides, named outright.
        let all: Vec<usize> = {
            let mut all: Vec<usize> =
                segments.iter().flat_map(|segment| segment.columns.iter().copied()).collect();
            all.sort_unstable();
            all.dedup();
            all
        };
        let mut dependants = Vec::new();
        for &provider in &chosen {
            for (index, intent) in self.intents.iter().enumerate() {
                let needs = intent.required.iter().any(|kind| {
                    !available.contains(kind) && self.intents[provider].provides.contains(kind)
                });
                if !needs || chosen.contains(&index) || dependants.contains(&index) {
                    continue;
                }
                let named = all.iter().any(|&column| {
                    intent.name_terms[column]
                        && !self.generic[column]
                        && chosen.iter().all(|&other| !self.intents[other].strong[column])
                });
                if named {
                    dependants.push(index);
                }
            }
        }
        chosen.extend(dependants);
        chosen.sort_unstable();
        chosen.truncate(MAX_PICKS);
        LexicalPick {
            compound: chosen.len() > 1,
            names: chosen.iter().map(|&index| self.intents[index].name.clone()).collect(),
        }
    }

    /// The question's segments: asks separated by connectives and punctuation, as term columns.
    fn segments(&self, question: &str, masked: &[(usize, usize)]) -> Vec<Segment> {
        let mut segments = vec![Segment::default()];
        for term in self.lexicon.terms(question, masked) {
            let current = segments.last_mut().unwrap_or_else(|| unreachable!("never empty"));
            match term.as_str() {
                lexicon::SPLIT | lexicon::STOP => {
                    current.closed_by_stop = term == lexicon::STOP;
                    if !current.columns.is_empty() || current.opens_with_frame {
                        segments.push(Segment::default());
                    }
                }
                lexicon::FRAME => current.opens_with_frame = current.columns.is_empty(),
                _ => {
                    if let Some(&column) = self.terms.get(&term)
                        && !current.columns.contains(&column)
                    {
                        current.columns.push(column);
                    }
                }
            }
        }
        let count = segments.len();
        for (position, segment) in segments.iter_mut().enumerate() {
            segment.framing =
                segment.opens_with_frame && segment.closed_by_stop && position + 1 < count;
        }
        segments.retain(|segment| !segment.columns.is_empty());
        segments
    }

    /// The intent with the best score on these columns: a raw gain of at least [`FIRST_GAIN`]
    /// including a term that is not generic and is strong for the intent (name or keyword).
    fn best(&self, columns: &[usize], factors: &[f32], skip: &[usize]) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (index, intent) in self.intents.iter().enumerate() {
            if skip.contains(&index) {
                continue;
            }
            let mut gain = 0.0;
            let mut qualifies = false;
            for &column in columns {
                if intent.weights[column] > 0.0 {
                    gain += intent.weights[column];
                    qualifies |= intent.strong[column] && !self.generic[column];
                }
            }
            if gain < FIRST_GAIN || !qualifies {
                continue;
            }
            let score = gain * factors[index];
            if best.is_none_or(|(_, top)| score > top) {
                best = Some((index, score));
            }
        }
        best
    }

    fn param_factor(
        &self,
        index: usize,
        available: &BTreeSet<ParamKind>,
        bindable: &[bool],
    ) -> f32 {
        let intent = &self.intents[index];
        let mut factor = 1.0;
        for kind in &intent.required {
            if available.contains(kind) {
                factor += REQUIRED_BONUS;
            } else if !self.providable(index, *kind, bindable) {
                factor *= MISSING_FACTOR;
            }
        }
        for kind in &intent.optional {
            if available.contains(kind) {
                factor += OPTIONAL_BONUS;
            }
        }
        factor
    }

    /// Whether another intent, bindable from the available params, provides `kind`.
    fn providable(&self, index: usize, kind: ParamKind, bindable: &[bool]) -> bool {
        self.intents.iter().enumerate().any(|(other, intent)| {
            other != index && bindable[other] && intent.provides.contains(&kind)
        })
    }
}

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
