//! Building the index: [`LexicalProposer::new`], in steps.
//!
//! Each intent's name, keywords, description, examples (their values blanked) and plane words
//! pass through the registry's [`Lexicon`]; each term gets a column and, per intent, the weight
//! `idf × field` (name 3, keyword 2, example 1.5, description 1 with BM25 length normalisation,
//! plane word 0.6). A name, keyword or example term that a third of the intents' texts use is
//! weighed by the idf of how few intents name it, list it or ask with it, when that is higher.
//! A term decides a pick only when at most [`DISTINCTIVE_DF`] intents have it in a strong field
//! and it is no param noun or counting word ([`GENERIC_TERMS`]). The kinds' words (cues, label
//! heads, things, list value words) and how many intents require or take each kind are kept
//! for the stages of `pick`.

use std::collections::{BTreeMap, BTreeSet};

use planner_registry::ParamKind;

use super::lexicon::{self, Lexicon};
use super::{
    COMMON_SHARE, DESCRIPTION_WEIGHT, DISTINCTIVE_DF, EXAMPLE_WEIGHT, Field, GENERIC_TERMS,
    Indexed, KEYWORD_WEIGHT, LENGTH_B, LexicalProposer, Map, NAME_WEIGHT, OUTSIDERS, PLANE_WEIGHT,
    QUANTITY_TERMS, STAFF, plane_cues,
};
use crate::{Catalog, IntentCard};

/// Each intent's terms with their fields, and its description's length in terms.
struct Fields {
    entries: Vec<Vec<(String, Field)>>,
    description_lengths: Vec<usize>,
}

/// The term columns and how many intents use each.
struct Columns {
    /// Term → column.
    terms: Map<String, usize>,
    /// The terms by column, in order of first appearance.
    names: Vec<String>,
    /// How many intents say the term of themselves (plane words left out).
    document: Vec<usize>,
    /// How many intents have the term in a strong field (name, keyword, example).
    strong: Vec<usize>,
}

/// What weighing one intent's terms needs.
struct Weighing<'a> {
    columns: &'a Columns,
    decisive: &'a [bool],
    /// Keywords said whole that are not heard ([`decisive_terms`]).
    unheard: &'a [bool],
    intents: f32,
    mean_length: f32,
}

/// How many intents require, or take as an optional param, each kind.
struct KindCounts {
    sole_required: BTreeSet<ParamKind>,
    distinctive: BTreeSet<ParamKind>,
    rare_optional: BTreeSet<ParamKind>,
}

impl LexicalProposer {
    /// Builds the index over `catalog`.
    pub fn new(catalog: &Catalog) -> LexicalProposer {
        let mut lexicon = registry_lexicon(catalog);
        let fields = fields(catalog, &lexicon);
        let columns = columns(&fields);
        let (decisive, unheard) = decisive_terms(&columns, &mut lexicon);
        let unique: Vec<bool> = decisive
            .iter()
            .zip(&columns.strong)
            .map(|(&decisive, &df)| decisive && df == 1)
            .collect();
        let weighing = Weighing {
            columns: &columns,
            decisive: &decisive,
            unheard: &unheard,
            intents: fields.entries.len() as f32,
            mean_length: fields.description_lengths.iter().sum::<usize>() as f32
                / fields.description_lengths.len().max(1) as f32,
        };
        let mut intents: Vec<Indexed> = catalog
            .cards()
            .iter()
            .zip(&fields.entries)
            .zip(&fields.description_lengths)
            .map(|((card, entries), &length)| weighing.weigh(card, entries, length, &lexicon))
            .collect();
        let thing_terms = thing_terms(catalog, &lexicon, &columns.terms);
        for intent in &mut intents {
            intent.cued = thing_terms
                .iter()
                .filter(|(_, kind)| intent.required.contains(kind))
                .copied()
                .collect();
        }
        let mut importance = vec![0.0f32; columns.names.len()];
        for intent in &intents {
            for (column, weight) in intent.weights.iter().enumerate() {
                importance[column] = importance[column].max(*weight);
            }
        }
        lexicon.learn(columns.names.iter().map(String::as_str));
        lexicon.name_intents_by(
            columns
                .names
                .iter()
                .zip(&columns.strong)
                .filter(|(_, df)| **df > 0)
                .map(|(term, _)| term.as_str()),
        );
        learn_acronyms(catalog, &mut lexicon);
        let kind_words = kind_words(catalog, &lexicon);
        let counts = kind_counts(&intents);
        let (things, strange_things) = things(catalog, &lexicon, &columns.terms, &kind_words);
        LexicalProposer {
            heads: heads(catalog, &lexicon),
            value_words: value_words(catalog),
            top: columns.terms.get("top").copied(),
            quantity: columns
                .names
                .iter()
                .map(|term| QUANTITY_TERMS.contains(&term.as_str()))
                .collect(),
            naming: naming(catalog),
            staff: STAFF.iter().map(|noun| lexicon::stem(noun)).collect(),
            outsiders: OUTSIDERS.iter().map(|noun| lexicon::stem(noun)).collect(),
            lexicon,
            terms: columns.terms,
            intents,
            decisive,
            importance,
            distinctive_kinds: counts.distinctive,
            rare_optional: counts.rare_optional,
            sole_required: counts.sole_required,
            unique,
            kind_words,
            thing_terms,
            things,
            strange_things,
        }
    }
}

/// The lexicon of the registry: the thesaurus entries its own words speak of, its intent
/// names' words its own.
fn registry_lexicon(catalog: &Catalog) -> Lexicon {
    let mut lexicon = Lexicon::for_registry(
        catalog.cards().iter().flat_map(|card| {
            [card.name.as_str(), card.description.as_str()]
                .into_iter()
                .chain(card.keywords.iter().map(String::as_str))
                .chain(card.examples.iter().map(|example| example.text.as_str()))
                .chain(plane_cues(&card.plane))
        }),
        catalog
            .cards()
            .iter()
            .flat_map(|card| card.name.split('_').chain(card.keywords.iter().map(String::as_str))),
    );
    lexicon.keep_name_words(catalog.cards().iter().flat_map(|card| card.name.split('_')));
    lexicon
}

/// Teaches `lexicon` the acronyms of the registry's intent names and keywords once the index is
/// built: the registry's own texts are read as written ("MRR by month" in an example stays the
/// term its keyword makes), a question's acronyms as the phrases they stand for.
fn learn_acronyms(catalog: &Catalog, lexicon: &mut Lexicon) {
    let names: Vec<String> =
        catalog.cards().iter().map(|card| card.name.replace('_', " ")).collect();
    lexicon.learn_acronyms(
        names.iter().map(String::as_str).chain(
            catalog.cards().iter().flat_map(|card| card.keywords.iter().map(String::as_str)),
        ),
    );
}

/// The terms of `text` as the index hears them (no segment or control marks).
fn index_terms(lexicon: &Lexicon, text: &str) -> Vec<String> {
    lexicon
        .terms(text, &[], &[])
        .into_iter()
        .filter(|term| !term.starts_with(['|', '@']))
        .map(std::borrow::Cow::into_owned)
        .collect()
}

/// Each intent's terms by field.
fn fields(catalog: &Catalog, lexicon: &Lexicon) -> Fields {
    let mut fields = Fields { entries: Vec::new(), description_lengths: Vec::new() };
    for card in catalog.cards() {
        let mut entries: Vec<(String, Field)> = Vec::new();
        let mut add = |text: &str, field: Field| {
            let words = index_terms(lexicon, text);
            let length = words.len();
            entries.extend(words.into_iter().map(|term| (term, field)));
            length
        };
        add(&card.name.replace('_', " "), Field::Name);
        for keyword in &card.keywords {
            add(keyword, Field::Keyword);
        }
        let length = add(&card.description, Field::Description);
        for example in &card.examples {
            add(&example.without_values(), Field::Example);
        }
        for cue in plane_cues(&card.plane) {
            add(cue, Field::Plane);
        }
        fields.description_lengths.push(length);
        fields.entries.push(entries);
    }
    fields
}

/// The term columns, in order of first appearance, with their document frequencies.
fn columns(fields: &Fields) -> Columns {
    let mut terms = Map::default();
    let mut names: Vec<String> = Vec::new();
    for (term, _) in fields.entries.iter().flatten() {
        let next = terms.len();
        terms.entry(term.clone()).or_insert_with(|| {
            names.push(term.clone());
            next
        });
    }
    let mut document = vec![0usize; terms.len()];
    let mut strong = vec![0usize; terms.len()];
    for entries in &fields.entries {
        let columns_where = |keep: &dyn Fn(Field) -> bool| -> BTreeSet<usize> {
            entries.iter().filter(|(_, field)| keep(*field)).map(|(term, _)| terms[term]).collect()
        };
        for column in columns_where(&|field| field != Field::Plane) {
            document[column] += 1;
        }
        for column in columns_where(&Field::is_strong) {
            strong[column] += 1;
        }
    }
    Columns { terms, names, document, strong }
}

/// Per column, whether the term decides a pick, and whether it is a keyword said whole that is
/// not heard: one whose other words would say something alone ("who won", "how many branches")
/// rather than being names' or keywords' of many intents ("new tickets": "ticket" is nearly
/// every intent's). The lexicon forgets such a keyword.
fn decisive_terms(columns: &Columns, lexicon: &mut Lexicon) -> (Vec<bool>, Vec<bool>) {
    let mut decisive: Vec<bool> = columns
        .names
        .iter()
        .zip(&columns.strong)
        .map(|(term, &df)| {
            !GENERIC_TERMS.contains(&term.as_str()) && (1..=DISTINCTIVE_DF).contains(&df)
        })
        .collect();
    let mut unheard = vec![false; columns.names.len()];
    for (column, term) in columns.names.iter().enumerate() {
        if let Some(mut content) = lexicon::keyword_content(term)
            && !content.all(|stem| {
                columns.terms.get(stem).is_some_and(|&c| columns.strong[c] > DISTINCTIVE_DF)
            })
        {
            decisive[column] = false;
            unheard[column] = true;
            lexicon.forget_keyword(term);
        }
    }
    (decisive, unheard)
}

impl Weighing<'_> {
    /// The inverse document frequency of a term `df` intents use.
    fn idf(&self, df: usize) -> f32 {
        let df = df.max(1) as f32;
        (1.0 + (self.intents - df + 0.5) / (df + 0.5)).ln()
    }

    /// The indexed form of one intent.
    fn weigh(
        &self,
        card: &IntentCard,
        entries: &[(String, Field)],
        length: usize,
        lexicon: &Lexicon,
    ) -> Indexed {
        let count = self.columns.names.len();
        let mut weights = vec![0.0f32; count];
        // The weights by the plain idf: what the name coverage is measured in.
        let mut plain = vec![0.0f32; count];
        let mut strong = vec![false; count];
        let norm = 1.0 - LENGTH_B + LENGTH_B * length as f32 / self.mean_length.max(1.0);
        let mut name_columns = BTreeSet::new();
        let mut named = BTreeSet::new();
        for (term, field) in entries {
            let column = self.columns.terms[term];
            if self.unheard[column] {
                continue;
            }
            let idf = self.idf(self.columns.document[column]);
            let field_weight = match field {
                Field::Name => NAME_WEIGHT,
                Field::Keyword => KEYWORD_WEIGHT,
                Field::Description => DESCRIPTION_WEIGHT / norm,
                Field::Example => EXAMPLE_WEIGHT,
                Field::Plane => PLANE_WEIGHT,
            };
            // A strong term that many descriptions also use is weighed by how few intents name
            // it or list it: "revenue" in a third of the descriptions still says which intent a
            // question wants when only two list it.
            let common = COMMON_SHARE * self.columns.document[column] as f32 >= self.intents;
            let boosted = if field.is_strong() && common {
                idf.max(self.idf(self.columns.strong[column]))
            } else {
                idf
            };
            weights[column] = weights[column].max(boosted * field_weight);
            plain[column] = plain[column].max(idf * field_weight);
            strong[column] |= field.is_strong();
            if *field == Field::Name {
                named.insert(column);
                if self.decisive[column] {
                    name_columns.insert(column);
                }
            }
        }
        Indexed {
            name: card.name.clone(),
            valued: self.valued(card, &name_columns, lexicon),
            name_terms: name_columns.into_iter().map(|column| (column, plain[column])).collect(),
            weights,
            strong,
            named: named.into_iter().collect(),
            required: card.required.clone(),
            optional: card.optional.clone(),
            provides: card.provides.clone(),
            cued: Vec::new(),
        }
    }

    /// The decisive name terms of `card` that name one of its own param kinds ("region" of
    /// `sales_by_region`).
    fn valued(
        &self,
        card: &IntentCard,
        name_columns: &BTreeSet<usize>,
        lexicon: &Lexicon,
    ) -> Vec<(usize, ParamKind)> {
        let mut valued = Vec::new();
        for &kind in card.required.iter().chain(&card.optional) {
            for term in lexicon.terms(&kind.as_str().replace('_', " "), &[], &[]) {
                if let Some(&column) = self.columns.terms.get(term.as_ref())
                    && name_columns.contains(&column)
                    && !valued.contains(&(column, kind))
                {
                    valued.push((column, kind));
                }
            }
        }
        valued
    }
}

/// The term columns of every code kind's cues, with the kind.
fn thing_terms(
    catalog: &Catalog,
    lexicon: &Lexicon,
    terms: &Map<String, usize>,
) -> Vec<(usize, ParamKind)> {
    let mut thing_terms: Vec<(usize, ParamKind)> = Vec::new();
    for (kind, cues) in catalog.cues() {
        for term in cues.iter().flat_map(|cue| lexicon.terms(cue, &[], &[])) {
            if let Some(&column) = terms.get(term.as_ref())
                && !thing_terms.contains(&(column, *kind))
            {
                thing_terms.push((column, *kind));
            }
        }
    }
    thing_terms
}

/// The terms of the words the registry declares for its kinds.
fn kind_words(catalog: &Catalog, lexicon: &Lexicon) -> BTreeSet<String> {
    catalog.kind_words().iter().flat_map(|words| index_terms(lexicon, words)).collect()
}

/// Each dictionary or list kind's label head, as a term.
fn heads(catalog: &Catalog, lexicon: &Lexicon) -> Vec<(ParamKind, String)> {
    catalog
        .heads()
        .iter()
        .filter_map(|(kind, head)| {
            let term = lexicon.terms(head, &[], &[]).into_iter().next()?;
            Some((*kind, term.into_owned()))
        })
        .collect()
}

/// The stems of the list kinds' value words, sorted and without repeats.
fn value_words(catalog: &Catalog) -> Vec<String> {
    let mut value_words: Vec<String> =
        catalog.value_words().iter().map(|word| lexicon::stem(word)).collect();
    value_words.sort_unstable();
    value_words.dedup();
    value_words
}

/// The kinds exactly one intent requires; those at most [`DISTINCTIVE_DF`] require; those no
/// intent requires and at most [`DISTINCTIVE_DF`] take.
fn kind_counts(intents: &[Indexed]) -> KindCounts {
    let mut requiring: BTreeMap<ParamKind, usize> = BTreeMap::new();
    let mut taking: BTreeMap<ParamKind, usize> = BTreeMap::new();
    for intent in intents {
        for &kind in &intent.required {
            *requiring.entry(kind).or_default() += 1;
        }
        for &kind in &intent.optional {
            *taking.entry(kind).or_default() += 1;
        }
    }
    let few = |count: &usize| (1..=DISTINCTIVE_DF).contains(count);
    KindCounts {
        sole_required: requiring
            .iter()
            .filter(|(_, count)| **count == 1)
            .map(|(&k, _)| k)
            .collect(),
        distinctive: requiring.iter().filter(|(_, count)| few(count)).map(|(&k, _)| k).collect(),
        rare_optional: taking
            .into_iter()
            .filter(|(kind, count)| few(count) && !requiring.contains_key(kind))
            .map(|(kind, _)| kind)
            .collect(),
    }
}

/// Each kind's thing words that are no stop word ("the" of a title says nothing), and of
/// those, the ones no intent uses and no kind word is: said, they are unknown words.
#[expect(clippy::type_complexity, reason = "two parallel lists, built together")]
fn things(
    catalog: &Catalog,
    lexicon: &Lexicon,
    terms: &Map<String, usize>,
    kind_words: &BTreeSet<String>,
) -> (Vec<(ParamKind, Vec<String>)>, Vec<(ParamKind, Vec<String>)>) {
    let keep = |words: &[String], strange: bool| -> Vec<String> {
        let said = |word: &String| {
            let said = lexicon.terms(word, &[], &[]);
            said.len() == 1
                && if strange {
                    !said.iter().any(|term| {
                        term.starts_with('@')
                            || terms.contains_key(term.as_ref())
                            || kind_words.contains(term.as_ref())
                    })
                } else {
                    !said[0].starts_with('@')
                }
        };
        // Sorted, so a question's word is looked up, not compared with each.
        let mut kept: Vec<String> = words.iter().filter(|word| said(word)).cloned().collect();
        kept.sort_unstable();
        kept.dedup();
        kept
    };
    let things = catalog.things();
    (
        things.iter().map(|(kind, words)| (*kind, keep(words, false))).collect(),
        things.iter().map(|(kind, words)| (*kind, keep(words, true))).collect(),
    )
}

/// Each kind's nouns, lower case: its code cues, its identifier's label nouns and its
/// dictionary's label head.
fn naming(catalog: &Catalog) -> Vec<(ParamKind, Vec<String>)> {
    let mut naming: Vec<(ParamKind, Vec<String>)> = Vec::new();
    let all = catalog
        .cues()
        .iter()
        .chain(catalog.nouns())
        .cloned()
        .chain(catalog.heads().iter().map(|(kind, head)| (*kind, vec![head.clone()])));
    for (kind, words) in all {
        let words = words.iter().filter(|w| !w.contains(' ')).map(|w| w.to_lowercase());
        match naming.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, known)) => known.extend(words),
            None => naming.push((kind, words.collect())),
        }
    }
    naming
}
