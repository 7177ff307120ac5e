//! The lexical proposer: the offline default. Deterministic, no model, no network.
//!
//! The method, in the order a question meets it (each stage a module with its principles):
//!
//! 1. **Index** ([`index`]), once per registry: every intent's own words (name, keywords,
//!    description, examples, plane) through the registry's [`Lexicon`] (stemming, stop words,
//!    a thesaurus of which a registry hears only the entries its own text speaks of), each term
//!    weighed `idf × field`; which terms are distinctive enough to decide a pick; how many
//!    intents require or take each param kind.
//! 2. **Asks** ([`segment`]): the question split at connectives and punctuation into asks,
//!    framing phrases and modifiers marked as context; words the registry does not know
//!    noted; an ask naming a thing no intent returns ([`asked`]: its first noun phrase holds a
//!    noun the registry does not say) is not heard, and makes the question unplannable when it
//!    is the first.
//! 3. **Score** ([`score`]): each ask against every intent, by the weight of its terms the
//!    intent explains, the params the question gives, and how much of the intent's name it
//!    mentions.
//! 4. **Choose** ([`pick`]): a greedy cover of the asks, then the rules by which values say
//!    what a question is about, dependants join through the registry's edges, a pick whose ask
//!    points back is fed by the provider the question's other values ask for, and a lone pick
//!    lacking a value settles on asking which one, another thing named, or nothing.
//!
//! A word the normaliser does not know is corrected to the closest vocabulary stem (the
//! thesaurus and this index's terms) within a small edit distance, deterministically, so
//! misspellings and British spellings plan; a word WordNet does not know, of four or five
//! letters and not written in capitals, is heard as the one registry word it clips or drops the
//! vowels of ("util", "accts"), and an acronym written in capitals that no registry word is
//! as the registry's name or keyword of two to four words it abbreviates ("LR", "LOS"). An
//! ask opening with a drafting, booking or sending
//! verb asks for something else entirely and is heard as nothing.

// The proposer reads as stages, each function short enough to hold in one's head
// (`too-many-lines-threshold` in clippy.toml).
#![warn(clippy::too_many_lines)]

mod asked;
mod index;
mod lexicon;
mod pick;
mod score;
mod segment;

use std::collections::BTreeSet;

use planner_registry::{KindType, ParamKind};

use crate::{BoxFuture, ParamSpan, Proposals, ProposeRequest, Proposer, Result};
use lexicon::Lexicon;

/// The proposer's look-up tables (terms, thesaurus phrases, keywords), keyed by a question's
/// words: foldhash's fixed hasher, not SipHash, as the knowledge file's table (SipHash was
/// 1.7 % of a dev question's planning instructions under callgrind); no table is iterated into
/// an answer.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

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
    terms: Map<String, usize>,
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
    /// [`Catalog::things`]: words that name one thing of a kind, in the singular or plural
    /// (each kind's sorted).
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
    /// Its columns said as a kind's label pointed back at ("its elevator"): see
    /// [`LexicalProposer::segments`].
    pointed: Vec<usize>,
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

    /// Whether `question` names one thing of `kind`: by one of its nouns in the singular and not
    /// distributed ("per order", "each product"; "one of our customers" is one), by a word of
    /// its things ([`Catalog::things`]: "the kettle"), or, a quoted-text kind, by a possessive
    /// name ("Blue Harbor Cafe's orders"). `naming` says which of these count.
    fn names_one(&self, question: &str, kind: ParamKind, naming: Naming) -> bool {
        let nouns = words_of(&self.naming, kind);
        let things =
            words_of(if naming == Naming::Any { &self.things } else { &self.strange_things }, kind);
        let quoted = matches!(kind, ParamKind::Declared(k) if k.ty() == KindType::QuotedText);
        let (mut distributed, mut one_of, mut previous) = (false, false, String::new());
        let words = question.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}');
        for word in words.filter(|word| !word.is_empty()) {
            let lower = word.to_lowercase();
            let bare = lower.trim_end_matches("'s").trim_end_matches("\u{2019}s");
            let singular = bare.strip_suffix('s').unwrap_or(bare);
            if (!distributed && nouns.iter().any(|noun| noun == bare))
                || (one_of && nouns.iter().any(|noun| noun == singular))
                || sorted_holds(things, bare)
                || sorted_holds(things, singular)
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
        self.things
            .iter()
            .any(|(_, words)| sorted_holds(words, &word) || sorted_holds(words, singular))
    }

    /// Whether `term`, said at byte `at`, is the label head of the kind of a value that ends
    /// right before it ("the Northwest region").
    fn labels_value(&self, question: &str, masks: &Masks, term: &str, at: usize) -> bool {
        self.heads.iter().any(|(kind, head)| {
            head == term
                && (masks.ends.iter().any(|&(end, valued)| {
                    valued == *kind
                        && question.get(end..at).is_some_and(|gap| gap.trim().is_empty())
                }) || self.labels_unknown_name(question, at))
        })
    }

    /// Whether `term`, said at byte `at`, is a kind's label head pointed back at after a value
    /// that identifies one thing ([`points_back`]).
    fn points_at_value(&self, question: &str, masks: &Masks, term: &str, at: usize) -> bool {
        self.heads.iter().any(|(_, head)| head == term)
            && points_back(question, at)
            && masks.ends.iter().any(|&(end, kind)| end <= at && identifies(kind))
    }

    /// Whether the kind's label head at byte `at` follows a place phrase's name the registry
    /// does not know ("in the uptown warehouse", "at the riverside store"): it labels one value the
    /// user names in words of their own, as "the Columbus warehouse" labels a known one; it
    /// says where the ask is, not what it asks for.
    fn labels_unknown_name(&self, question: &str, at: usize) -> bool {
        let Some(before) = question.get(..at) else { return false };
        let mut words = before.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
        let (Some(name), Some(the), Some(place)) =
            (words.next_back(), words.next_back(), words.next_back())
        else {
            return false;
        };
        let name = name.to_lowercase();
        let singular = name.strip_suffix('s').unwrap_or(&name);
        the.eq_ignore_ascii_case("the")
            && ["in", "at", "from"].iter().any(|it| place.eq_ignore_ascii_case(it))
            && name.chars().all(char::is_alphabetic)
            && !self.terms.contains_key(name.as_str())
            && !self.terms.contains_key(singular)
            && !planner_knowledge::is_function_word(&name)
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

    /// Whether a required param of the intent is not available (so its factor counted a
    /// provider).
    fn needs_provider(&self, index: usize, available: &BTreeSet<ParamKind>) -> bool {
        self.intents[index].required.iter().any(|kind| !available.contains(kind))
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

/// The words of `question`, as [`pointed_at`] reads them.
fn pointing_words(question: &str) -> Vec<&str> {
    question.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).collect()
}

/// Whether the `words` of a question ([`pointing_words`]) point at a thing by one of `cues`
/// after a possessive or demonstrative ("my incident", "that case", "our latest ticket"), the
/// cue not qualifying a word of the intent named `picked` ("our weekly parcel volume" asks for
/// `parcel_volume`), or after
/// "the" where the cue ends its phrase ("is the claim in suit"; not "the claim count").
fn pointed_at(words: &[&str], cues: &[String], picked: Option<&str>) -> bool {
    let qualifies = |word: &str| {
        let word = word.trim_end_matches('s');
        !word.is_empty()
            && picked
                .is_some_and(|name| name.split('_').any(|part| part.eq_ignore_ascii_case(word)))
    };
    // "the case I opened", "the ticket we raised": pointed at by what the user did with it.
    let cue = |word: &str| cues.iter().any(|cue| word.eq_ignore_ascii_case(cue));
    if words.windows(3).any(|w| {
        w[0].eq_ignore_ascii_case("the")
            && cue(w[1])
            && (w[2].eq_ignore_ascii_case("i") || w[2].eq_ignore_ascii_case("we"))
    }) {
        return true;
    }
    // "the claim" ending its phrase ("what's the status on the claim?", "is the claim in
    // suit"): the one the user has in mind, with no value said. Before a noun it qualifies
    // ("the claim count").
    let ends_phrase = |next: Option<&&str>| {
        next.is_none_or(|next| {
            planner_knowledge::is_function_word(&next.to_ascii_lowercase())
                || next.eq_ignore_ascii_case("s")
        })
    };
    if words.iter().enumerate().any(|(at, word)| {
        at > 0
            && words[at - 1].eq_ignore_ascii_case("the")
            && cue(word)
            && ends_phrase(words.get(at + 1))
    }) {
        return true;
    }
    // How many words ago a possessive or demonstrative was said, if within two; and whether
    // the word before was a cue so pointed at.
    let mut since: Option<usize> = None;
    let mut pointed = false;
    for &word in words {
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

/// Whether `text` refers back to something named before it ("they", "its", "the same"), or
/// points at one thing of a kind by "that" or "this" and a noun of the kind (`naming`: "that
/// vendor", "this depot").
fn refers_back(text: &str, naming: &[(ParamKind, Vec<String>)]) -> bool {
    let mut words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
    let mut previous = "";
    words.any(|word| {
        let pointed = (previous.eq_ignore_ascii_case("that")
            || previous.eq_ignore_ascii_case("this"))
            && naming.iter().any(|(_, nouns)| nouns.iter().any(|n| word.eq_ignore_ascii_case(n)));
        previous = word;
        pointed
            || [
                "they", "them", "their", "theirs", "it", "its", "those", "these", "same", "he",
                "she", "his", "her", "each",
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

/// Keeps in `slot` the intent with the highest score so far (the first of equals).
fn keep_best(slot: &mut Option<(usize, f32)>, index: usize, score: f32) {
    if slot.is_none_or(|(_, top)| score > top) {
        *slot = Some((index, score));
    }
}

/// Whether the word at byte `at` follows a word that points back at a value already in hand:
/// "its", "their", "that", "those", "the same", or a possessive ("that order's warehouse").
/// A kind's label said so after a value that identifies one thing (a code) names the value an
/// edge hands over from that thing ("SO-104: the stock at its warehouse"); with no such value it
/// points at one the user has not given ("that region"): a question.
fn points_back(question: &str, at: usize) -> bool {
    let Some(before) = question.get(..at) else { return false };
    let before = before.trim_end();
    let possessive = ["'s", "\u{2019}s"].iter().any(|it| before.ends_with(it));
    let word = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
    possessive
        || ["its", "their", "that", "those", "same"].iter().any(|it| word.eq_ignore_ascii_case(it))
}

/// Whether `sorted` (sorted, as [`LexicalProposer::things`] is) holds `word`.
fn sorted_holds(sorted: &[String], word: &str) -> bool {
    sorted.binary_search_by(|it| it.as_str().cmp(word)).is_ok()
}

/// The words `all` keeps for `kind` (none when it keeps none): borrowed, as every question asks.
fn words_of(all: &[(ParamKind, Vec<String>)], kind: ParamKind) -> &[String] {
    all.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, words)| words.as_slice())
}

#[cfg(test)]
mod tests {
    use super::{pointed_at, pointing_words};

    #[test]
    fn a_thing_is_pointed_at_by_a_possessive_or_by_the_ending_its_phrase() {
        let cues = ["claim".to_owned()];
        for question in [
            "what's the status on my claim",
            "what's the status on the claim?",
            "is the claim in litigation and what's the reserve on it",
            "the claim's reserve",
        ] {
            assert!(pointed_at(&pointing_words(question), &cues, None), "{question}");
        }
        for question in ["the claim count by region", "claims by status", "the claims this year"] {
            assert!(!pointed_at(&pointing_words(question), &cues, None), "{question}");
        }
    }
}
