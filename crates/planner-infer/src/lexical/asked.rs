//! What an ask asks for, and whether the registry knows it.
//!
//! An English question names what it wants in its first noun phrase, after the words that open
//! it ("what's the", "how many", "show me", "which"): "the *lease cost* of the east plant",
//! "how many *roof leaks* did ...", "*toll charges* on route 7". Every noun of that phrase
//! narrows what is asked: a "fax number" is not an account number, an "insurance premium" is
//! not a customer's premium. So when a noun of the phrase is a word the registry
//! does not know (no intent says it, no kind declares it, no value holds it), no intent returns
//! what the ask wants, whatever value it names: the ask is answered by nothing, not by the
//! intent its value or its other words point at.
//!
//! Which words are nouns comes from the general knowledge file (WordNet 3.0, `planner-knowledge`):
//! a word used mostly as a noun that denotes a thing is a noun; a word it does not know at all
//! (jargon, an acronym, a slip of the keyboard) says nothing either way, and adjectives
//! ("current", "residential") qualify without changing what is asked. Words that
//! only frame or count ("number", "total", "breakdown", "trend") and time words are no thing of
//! their own.

use planner_knowledge::{Knowledge, is_function_word};

/// Framing words that measure the noun before them ("the bag *rate*", "the reservoir *level*"):
/// like [`GENERIC`], never unknown things themselves.
const MEASURES: &[&str] = &[
    "number",
    "numbers",
    "count",
    "counts",
    "total",
    "totals",
    "amount",
    "share",
    "percent",
    "percentage",
    "pct",
    "rate",
    "rates",
    "level",
    "levels",
];

/// Words that open an ask without saying what it asks for, besides function words and verbs.
const OPENERS: &[&str] = &[
    "what",
    "whats",
    "which",
    "who",
    "whose",
    "how",
    "many",
    "much",
    "show",
    "give",
    "list",
    "tell",
    "get",
    "pull",
    "find",
    "see",
    "need",
    "want",
    "please",
    "lets",
    "top",
    "bottom",
    "best",
    "worst",
    "compare",
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank",
    "cheers",
    "ok",
    "okay",
    "quick",
    "question",
    "rank",
    "sort",
    "chart",
    "plot",
    "graph",
    "map",
    "order",
    "count",
    "total",
    "break",
    "track",
    "sum",
    "summarise",
    "summarize",
    "filter",
    "group",
    "split",
    "tally",
];

/// What the asked phrase names that the registry does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// The thing itself: an unknown noun that names it ("the *lease* cost", "the *insurance*
    /// premium", "*roof leaks*").
    Thing,
    /// Only its head, with no known noun before it ("the *budget* for the plant"): an aspect
    /// the registry may say in other words, so a word of the registry that decides an intent
    /// in the same ask outweighs it.
    Head,
}

/// Prepositions of place and time (not "of": "how many of the ...").
const PREPOSITIONS: &[&str] = &[
    "in", "on", "at", "inside", "within", "into", "under", "over", "near", "behind", "across",
    "through", "from", "with", "about", "around", "between", "among", "during", "since", "before",
    "after",
];

/// Forms of "be" and the auxiliaries that open a question ("did the team ...", "what's").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "do", "does", "did", "has", "have", "had", "whats", "hows",
    "wheres", "whos", "isnt", "arent", "didnt", "doesnt",
];

/// Nouns that frame, count or time an ask rather than name a thing: never unknown things;
/// with [`MEASURES`], the words that measure one.
const GENERIC: &[&str] = &[
    "average",
    "avg",
    "mean",
    "median",
    "sum",
    "breakdown",
    "summary",
    "overview",
    "trend",
    "trends",
    "report",
    "figure",
    "figures",
    "data",
    "detail",
    "details",
    "info",
    "information",
    "stat",
    "stats",
    "statistics",
    "list",
    "rundown",
    "snapshot",
    "picture",
    "view",
    "split",
    "today",
    "yesterday",
    "tomorrow",
    "tonight",
    "week",
    "weeks",
    "weekend",
    "month",
    "months",
    "quarter",
    "quarters",
    "year",
    "years",
    "day",
    "days",
    "morning",
    "afternoon",
    "evening",
    "night",
    "hour",
    "hours",
    "ytd",
    "mtd",
    "qtd",
    "fy",
    "status",
    "lot",
    "bunch",
    "kind",
    "kinds",
    "type",
    "types",
    "thing",
    "things",
    "stuff",
    "one",
    "ones",
    "everything",
    "anything",
    "something",
    "business",
    "performance",
    "result",
    "results",
    "activity",
    "volume",
    "volumes",
    "trade",
    "history",
    "record",
    "records",
    "content",
    "contents",
    "situation",
    "outlook",
    "state",
    "update",
    "updates",
    "look",
    "mix",
    "dollars",
    "money",
    "chart",
    "graph",
    "table",
    "timeline",
    "date",
    "dates",
    "time",
    "times",
];

/// Whether the first noun phrase of `text[start..end]` holds a noun the registry does not
/// know. `unknown(at)` says whether the word starting at byte `at` of `text` was heard as a
/// word the registry does not know (not a term, kind word or value).
pub(crate) fn names_unknown_thing(
    text: &str,
    start: usize,
    end: usize,
    unknown: impl Fn(usize) -> bool,
) -> Option<Unknown> {
    let span = text.get(start..end)?;
    // Each sentence of the ask opens its own phrase ("Hi! Could you ...", "is the depot busy?
    // its trips since May", "Context: the ask").
    let mut from = 0;
    for (at, c) in span.char_indices().chain(std::iter::once((span.len(), '.'))) {
        if matches!(c, '.' | '!' | '?' | ':' | ';') {
            // A parenthesis is an aside ("field services (repairs, installs) budget").
            let words: Vec<(String, usize)> = words(&span[from..at])
                .map(|(word, it)| (word, it + start + from))
                .filter(|&(_, it)| !in_parentheses(text, it))
                .collect();
            if let Some(found) = sentence_names_unknown_thing(text, &words, &unknown) {
                return Some(found);
            }
            from = at + c.len_utf8();
        }
    }
    None
}

/// [`names_unknown_thing`] of one sentence's words (lower case, with their offsets in `text`).
fn sentence_names_unknown_thing(
    text: &str,
    words: &[(String, usize)],
    unknown: &impl Fn(usize) -> bool,
) -> Option<Unknown> {
    let knowledge = Knowledge::english();
    // A statement ("it's crunch time before the audit") says no ask.
    if words.first().is_some_and(|(first, _)| {
        matches!(first.as_str(), "it" | "its" | "this" | "that" | "there" | "theres")
    }) {
        return None;
    }
    let Opening { at, wh } = opening(knowledge, words)?;
    // A question opening with an auxiliary asks whether its subject does something ("did the
    // north team miss targets"): the subject is no thing asked for.
    let auxiliary = words.first().is_some_and(|(first, _)| AUXILIARIES.contains(&first.as_str()));
    if auxiliary && !wh {
        return None;
    }
    // After a wh-word, a form of "be" and an -ing word is a verb ("what's trending").
    let after_wh = at.checked_sub(1).and_then(|it| words.get(it)).is_some_and(|(previous, _)| {
        AUXILIARIES.contains(&previous.as_str())
            || matches!(previous.as_str(), "what" | "who" | "how" | "where")
    });
    let ing_verb =
        |(word, _): &(String, usize)| word.ends_with("ing") && knowledge.verb(word).is_some();
    if wh && after_wh && words.get(at).is_some_and(ing_verb) {
        return None;
    }
    let mut nouns = phrase_nouns(knowledge, text, &words[at..], wh, unknown)?;
    if let Some(of) = nouns.of {
        nouns.unknown.rotate_left(of);
    }
    // An unknown word names the thing asked for unless it is the aspect (the last noun) of a
    // thing the registry knows: "the spending pattern" asks about spending, "the lease cost"
    // and "the insurance premium" about things no intent returns.
    // Money or a property the registry never says is a figure no intent holds, alone or after
    // a known thing ("the budget", "the broker commission", "the retail price"), as "the lease
    // cost" is: never an aspect.
    match nouns.unknown.split_last() {
        Some((_, before)) if before.contains(&true) => Some(Unknown::Thing),
        Some((&true, _)) if nouns.figure_last && nouns.of.is_none() => Some(Unknown::Thing),
        // A measure of a thing the registry never says is of no thing an intent returns ("the
        // bag rate", "the reservoir level"), whatever else the measure word picks.
        Some((&true, _)) if nouns.measured_last && nouns.of.is_none() => Some(Unknown::Thing),
        Some((&true, before)) if !before.contains(&false) => Some(Unknown::Head),
        _ => None,
    }
}

/// Where a sentence's asked phrase starts, and whether a wh-word opened it.
struct Opening {
    at: usize,
    wh: bool,
}

/// Whether `word` may be a verb.
fn is_verb(knowledge: &Knowledge, word: &str) -> bool {
    knowledge.verb(word).is_some()
}

/// Whether `word` is mostly a verb.
fn mostly_verb(knowledge: &Knowledge, word: &str) -> bool {
    knowledge.word(word).is_some_and(|it| it.is_verb() && !it.usually_noun())
        || (knowledge.word(word).is_none() && knowledge.verb(word).is_some())
}

/// Past the opening: function words, openers and numbers, and a verb that opens an imperative
/// (first, or after "can you", "please": "rank carriers", "can you plot ...", "count how
/// many"). `None` when the sentence names no asked phrase: a verb after the opening (the ask's
/// subject was a function word: "who rolls off ...", "what's trending"), or an opening through
/// a place ("what's in the box", "who is at the north hub": the wh-word stands for what is
/// there).
fn opening(knowledge: &Knowledge, words: &[(String, usize)]) -> Option<Opening> {
    let mut at = 0;
    let mut opened = false;
    let mut wh = false;
    while let Some((word, _)) = words.get(at) {
        let word = word.as_str();
        let previous = at.checked_sub(1).and_then(|it| words.get(it));
        let imperative = !opened
            || previous.is_some_and(|(previous, _)| {
                matches!(previous.as_str(), "you" | "please" | "lets" | "let" | "us" | "me")
            });
        if wh && PREPOSITIONS.contains(&word) {
            return None;
        }
        if is_function_word(word) || OPENERS.contains(&word) || is_number(word) {
            wh |= matches!(word, "what" | "which" | "who" | "whose" | "how" | "whats");
            opened |= !matches!(word, "can" | "could" | "would" | "will" | "you" | "please");
            at += 1;
            continue;
        }
        // A word mostly a noun opens an imperative only before a function word ("track how
        // many", not "phone number") or, first in the sentence, before a plural ("rank
        // customers by ...").
        let next_is_function = words.get(at + 1).is_some_and(|(next, _)| {
            is_function_word(next) || (at == 0 && next.ends_with('s') && !next.ends_with("ss"))
        });
        let verb = mostly_verb(knowledge, word)
            || (is_verb(knowledge, word)
                && (next_is_function || !knowledge.word(word).is_some_and(|it| it.usually_noun())));
        if verb && (imperative || mostly_verb(knowledge, word)) {
            if !imperative {
                return None;
            }
            opened = true;
            at += 1;
            continue;
        }
        break;
    }
    Some(Opening { at, wh })
}

/// WordNet's lexicographer file of `noun.possession`: money, its amounts and transfers.
const POSSESSION_LEXFILE: u8 = 21;

/// WordNet's lexicographer file of `noun.attribute`: a property a thing has ("price", "size",
/// "temperature"): one the registry never says is a figure no intent holds, as money is.
const ATTRIBUTE_LEXFILE: u8 = 7;

/// The nouns of an asked phrase, the thing first and its aspect last ("the inflow of orders"
/// is order inflow), each with whether the registry does not know it.
struct Nouns {
    unknown: Vec<bool>,
    /// Whether the last noun is money or a property by its most frequent sense (WordNet's
    /// `noun.possession`: "commission", "fee", "payroll"; `noun.attribute`: "price", "size").
    figure_last: bool,
    /// Whether a measure word came after the last noun ("bag *rate*", "reservoir *level*"):
    /// the phrase asks for a measure of that noun.
    measured_last: bool,
    /// Where "of" was passed: the nouns before it are the aspect of those after it.
    of: Option<usize>,
}

/// The nouns of the phrase `words` opens with (after a wh-word when `wh`). `None` when the
/// phrase opens a statement, a verb after it: who speaks, not what is asked ("the board
/// wants ...").
fn phrase_nouns(
    knowledge: &Knowledge,
    text: &str,
    words: &[(String, usize)],
    wh: bool,
    unknown: &impl Fn(usize) -> bool,
) -> Option<Nouns> {
    let mut nouns =
        Nouns { unknown: Vec::new(), figure_last: false, measured_last: false, of: None };
    for (at, (current, position)) in words.iter().enumerate() {
        let current = current.as_str();
        if is_function_word(current) {
            if current != "of" || nouns.of.is_some() {
                break;
            }
            nouns.of = Some(nouns.unknown.len());
            continue;
        }
        let known = knowledge.word(current);
        // A verb or an adverb ends the phrase ("leaks *did* ...", "slots *left*"), and so does
        // a word that may be a verb after a plural ("customers *flood* support").
        let plural_before = at > 0 && words[at - 1].0.ends_with('s');
        let verb = is_verb(knowledge, current);
        if known.is_some_and(|it| !it.is_noun() && !it.is_adjective())
            || (plural_before && verb)
            || (at > 0 && !wh && mostly_verb(knowledge, current))
        {
            if !wh && at > 0 && (mostly_verb(knowledge, current) || current.ends_with('s') && verb)
            {
                return None;
            }
            break;
        }
        let written = text.get(*position..*position + current.len()).unwrap_or("");
        // A capitalised word past the question's first is a name ("Harbour Lane Deli").
        // People the registry does not name ("shoppers", "kids") are who a figure is about,
        // not the figure; people it names are a known thing ("the vendor's revenue"). A word
        // WordNet does not know (jargon, an acronym, a slip of the keyboard) says nothing
        // either way.
        let name = *position > 0 && written.starts_with(char::is_uppercase);
        let noun = known.is_some()
            && knowledge.noun(current).is_some_and(|it| {
                it.usually_noun()
                    && (it.denotes() == planner_knowledge::Denotes::Thing || !unknown(*position))
            });
        if MEASURES.contains(&current) && !nouns.unknown.is_empty() {
            nouns.measured_last = true;
        }
        if noun && !name && !GENERIC.contains(&current) && !MEASURES.contains(&current) {
            nouns.unknown.push(unknown(*position));
            nouns.measured_last = false;
            nouns.figure_last = knowledge.noun(current).is_some_and(|it| {
                it.senses().iter().max_by_key(|sense| sense.count).is_some_and(|sense| {
                    matches!(sense.lexfile, POSSESSION_LEXFILE | ATTRIBUTE_LEXFILE)
                        && sense.count > 0
                })
            });
        }
    }
    Some(nouns)
}

/// The lower-case words of `text` with their byte offsets: letters, digits, inner hyphens and
/// apostrophes.
fn words(text: &str) -> impl Iterator<Item = (String, usize)> + '_ {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let inner = (c == '\'' || c == '\u{2019}' || c == '-') && start.is_some();
        match (c.is_alphanumeric() || inner, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                start = None;
                let word = text[from..at].trim_end_matches(['\'', '\u{2019}', '-']);
                let word =
                    word.strip_suffix("'s").or(word.strip_suffix("\u{2019}s")).unwrap_or(word);
                out.push((word.to_lowercase(), from));
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// Whether byte `at` of `text` is inside parentheses.
fn in_parentheses(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or("");
    before.rfind('(').is_some_and(|open| before.rfind(')').is_none_or(|close| close < open))
}

fn is_number(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the asked phrase names that is unknown: every content word but those listed.
    fn unknown_in(text: &str, known: &[&str]) -> Option<Unknown> {
        names_unknown_thing(text, 0, text.len(), |at| {
            let word: String = text[at..].chars().take_while(|c| c.is_alphanumeric()).collect();
            !known.contains(&word.to_lowercase().as_str())
        })
    }

    #[test]
    fn an_unknown_noun_naming_the_thing_asked_for_is_an_unknown_thing() {
        let thing = Some(Unknown::Thing);
        // A measure of an unknown thing ("the reservoir level", "the bag rate").
        assert_eq!(unknown_in("what's the reservoir level at the east plant", &["plant"]), thing);
        assert_eq!(unknown_in("bag rate at the north hub", &["rate", "hub"]), thing);
        assert_eq!(unknown_in("what's the reservoir inflow at the plant", &["inflow"]), thing);
        assert_eq!(unknown_in("How many sewer blockages did the plant report", &[]), thing);
        assert_eq!(unknown_in("diesel cost per mile on route 7", &["cost", "mile"]), thing);
        assert_eq!(unknown_in("the power bill for the north campus", &["bill", "campus"]), thing);
        assert_eq!(unknown_in("Show me the number of sewer blockages", &[]), thing);
        // A head alone is weighed against the ask's other words by the proposer, unless it is
        // money the registry never says.
        assert_eq!(
            unknown_in("the capital budget for the north campus", &["campus"]),
            Some(Unknown::Thing)
        );
        assert_eq!(
            unknown_in("the reservoir for the north campus", &["campus"]),
            Some(Unknown::Head)
        );
        assert_eq!(unknown_in("the budget for the north campus", &["campus"]), thing);
        // Money the registry never says is no aspect of the thing before it.
        assert_eq!(unknown_in("the vendor fee for the north campus", &["vendor", "campus"]), thing);
        assert_eq!(unknown_in("the vendor payroll this year", &["vendor"]), thing);
        assert_eq!(unknown_in("the vendor pattern this year", &["vendor"]), None);
    }

    #[test]
    fn known_nouns_adjectives_and_framing_words_ask_for_known_things() {
        assert_eq!(unknown_in("what's the residential usage", &["usage"]), None);
        assert_eq!(unknown_in("Show me the number of breaks by material", &["breaks"]), None);
        assert_eq!(unknown_in("Top 5 customers by spend last quarter", &["customers"]), None);
        assert_eq!(unknown_in("rank carriers by on-time", &["carriers"]), None);
        // What follows the phrase is not what is asked ("... for the weather station").
        assert_eq!(unknown_in("breaks last month for the weather station", &["breaks"]), None);
        assert_eq!(unknown_in("How reliable were they?", &[]), None);
        // An unknown aspect of a known thing is asked of that thing.
        assert_eq!(unknown_in("what does the spending pattern look like", &["spending"]), None);
        assert_eq!(unknown_in("monthly intake of tickets for the desk", &["tickets"]), None);
        // A name, people, a statement, a yes-or-no question's subject, an aside.
        assert_eq!(unknown_in("Show me Copper Kettle Bakery's orders", &["orders"]), None);
        assert_eq!(unknown_in("why are shoppers sending stuff back", &[]), None);
        assert_eq!(
            unknown_in("it's crunch time before the audit: admissions", &["admissions"]),
            None
        );
        assert_eq!(
            unknown_in("is the north zone shrinking? enrollment trend", &["enrollment"]),
            None
        );
        assert_eq!(unknown_in("spend (grants, gifts) by month", &["spend"]), None);
        assert_eq!(unknown_in("What's in the box for order 7?", &["order"]), None);
    }
}
