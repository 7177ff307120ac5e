//! Normalisation shared by the index and the questions: tokens, light stemming, stop words, and
//! a thesaurus that folds the many ways people say a thing into one concept word.
//!
//! The thesaurus speaks the reference domain (federal capture and a cleared bench); its concept
//! words are the words registry names and descriptions use (`incumbent`, `recompete`, `spend`,
//! `partner`, `bench`...). Registry text goes through the same normalisation, and an entry
//! applies only for a registry whose own text says one of its concept words, so a registry in
//! another domain matches on its own words ("customer" is not folded into "agency" for a shop).
//! Time and data words (`last`, `month`, `recent`...) are unheard unless an intent is named
//! with one or lists one alone as a keyword.

use std::borrow::Cow;

use planner_knowledge::is_function_word;

use super::Map;

/// Surface phrases and the concept words they become. Phrases are matched on stemmed tokens,
/// longest first; an empty concept list drops the phrase.
const THESAURUS: &[(&str, &[&str])] = &[
    // Connectives that join two asks: segment breaks.
    ("and", &[SPLIT]),
    ("plus", &[SPLIT]),
    ("also", &[SPLIT]),
    ("then", &[SPLIT]),
    ("as well as", &[SPLIT]),
    ("along with", &[SPLIT]),
    ("together with", &[SPLIT]),
    ("in addition to", &[SPLIT]),
    // Incumbency.
    ("incumbent", &["incumbent"]),
    ("incumbency", &["incumbent"]),
    ("hold the contract", &["incumbent"]),
    ("holds the contract", &["incumbent"]),
    ("holding the contract", &["incumbent"]),
    ("hold the work", &["incumbent"]),
    ("holds the work", &["incumbent"]),
    ("has the contract", &["incumbent"]),
    ("have the contract", &["incumbent"]),
    ("current contractor", &["incumbent"]),
    ("current holder", &["incumbent"]),
    ("current vendor", &["incumbent"]),
    ("sitting contractor", &["incumbent"]),
    ("who is doing the work", &["incumbent"]),
    ("doing the work", &["incumbent"]),
    ("predecessor", &["incumbent", "predecessor"]),
    ("predecessor contract", &["incumbent", "predecessor"]),
    ("predecessor award", &["incumbent", "predecessor"]),
    ("who holds", &["incumbent"]),
    ("who holds the contract", &["incumbent"]),
    ("who has the contract", &["incumbent"]),
    ("who holds the work", &["incumbent"]),
    ("who hold", &["incumbent"]),
    ("hold the most", &["incumbent", "top"]),
    ("holds the most", &["incumbent", "top"]),
    ("has the most", &["incumbent", "top"]),
    ("have the most", &["incumbent", "top"]),
    ("prior contract", &["incumbent", "predecessor"]),
    ("previous contract", &["incumbent", "predecessor"]),
    ("who wins", &["incumbent"]),
    ("holder", &["incumbent"]),
    ("holders", &["incumbent"]),
    ("winning the most", &["incumbent", "top"]),
    ("won the most", &["incumbent", "top"]),
    ("wins the most", &["incumbent", "top"]),
    ("most business", &["incumbent", "top"]),
    ("market leader", &["incumbent", "top"]),
    ("main vendor", &["incumbent", "top"]),
    ("who performs", &["incumbent"]),
    ("performing the work", &["incumbent"]),
    ("on the contract now", &["incumbent"]),
    ("winner", &["incumbent"]),
    ("who been win", &["incumbent"]),
    ("who has been win", &["incumbent"]),
    ("who have been win", &["incumbent"]),
    ("dominant", &["top"]),
    ("leading", &["top"]),
    ("leader", &["top"]),
    ("the most", &["top"]),
    ("biggest", &["top"]),
    ("largest", &["top"]),
    ("top", &["top"]),
    ("key player", &["top", "vendor"]),
    ("major player", &["top", "vendor"]),
    ("main player", &["top", "vendor"]),
    ("player", &["vendor"]),
    // Recompetes.
    ("recompete", &["recompete"]),
    ("re compete", &["recompete"]),
    ("recompetition", &["recompete"]),
    ("re competition", &["recompete"]),
    ("rebid", &["recompete"]),
    ("re bid", &["recompete"]),
    ("follow on", &["recompete"]),
    ("followon", &["recompete"]),
    ("expir", &["recompete"]),
    ("expiration", &["recompete"]),
    ("coming up", &["recompete"]),
    ("come up", &["recompete"]),
    ("up for grab", &["recompete"]),
    ("up for renewal", &["recompete"]),
    ("renewal", &["recompete"]),
    ("run out", &["recompete"]),
    ("runs out", &["recompete"]),
    ("wind down", &["recompete"]),
    ("lapse", &["recompete"]),
    ("end date", &["recompete"]),
    ("ending", &["recompete"]),
    ("end", &["recompete"]),
    ("ends", &["recompete"]),
    ("sunset", &["recompete"]),
    ("wrap up", &["recompete"]),
    ("wraps up", &["recompete"]),
    ("wrapping up", &["recompete"]),
    ("conclud", &["recompete"]),
    ("finish", &["recompete"]),
    ("close out", &["recompete"]),
    ("closeout", &["recompete"]),
    ("up for bid", &["recompete"]),
    ("out for bid", &["recompete"]),
    ("resolicit", &["recompete"]),
    ("resolicitation", &["recompete"]),
    ("re solicit", &["recompete"]),
    ("period of performance end", &["recompete"]),
    ("upcoming", &["next"]),
    ("soon", &["next"]),
    ("future", &["next"]),
    ("ahead", &["next"]),
    ("next", &["next"]),
    ("forthcoming", &["next"]),
    // Spend.
    ("spend", &["spend"]),
    ("spent", &["spend"]),
    ("spending", &["spend"]),
    ("obligation", &["spend"]),
    ("obligat", &["spend"]),
    ("outlay", &["spend"]),
    ("funding", &["spend"]),
    ("how much money", &["spend"]),
    ("how much", &["spend"]),
    ("dollar", &["spend"]),
    ("budget", &["spend"]),
    ("expenditure", &["spend"]),
    ("invest", &["spend"]),
    ("investment", &["spend"]),
    ("paid out", &["spend"]),
    ("quarterly", &["quarter"]),
    ("per quarter", &["quarter"]),
    ("by quarter", &["quarter"]),
    // Market share.
    ("market share", &["share"]),
    ("marketshare", &["share"]),
    ("share", &["share"]),
    ("concentrat", &["share"]),
    ("concentration", &["share"]),
    ("dominate", &["share"]),
    ("dominat", &["share"]),
    ("slice", &["share"]),
    ("portion", &["share"]),
    ("piece of the pie", &["share"]),
    ("share of wallet", &["share"]),
    ("percentage", &["share"]),
    ("percent", &["share"]),
    ("across all agency", &["market"]),
    ("across every agency", &["market"]),
    ("across the government", &["market"]),
    ("across government", &["market"]),
    ("across agency", &["market"]),
    ("government wide", &["market"]),
    ("governmentwide", &["market"]),
    ("whole market", &["market"]),
    ("overall market", &["market"]),
    ("marketplace", &["market"]),
    // Teaming.
    ("teaming partner", &["partner"]),
    ("teaming", &["partner"]),
    ("team with", &["partner"]),
    ("teamed with", &["partner"]),
    ("teammate", &["partner"]),
    ("partner", &["partner"]),
    ("partnership", &["partner"]),
    ("subcontractor", &["partner"]),
    ("subcontract", &["partner"]),
    ("sub", &["partner"]),
    ("prime sub", &["partner"]),
    ("primes and subs", &["partner"]),
    ("works with", &["partner"]),
    ("work with", &["partner"]),
    ("ally", &["partner"]),
    ("allies", &["partner"]),
    ("collaborat", &["partner"]),
    ("collaborator", &["partner"]),
    ("alliance", &["partner"]),
    ("mentor protege", &["partner"]),
    ("jv", &["partner"]),
    ("joint venture", &["partner"]),
    ("relationship", &["partner"]),
    // Competitors.
    ("competitor", &["competitor"]),
    ("compet", &["competitor"]),
    ("competitiv", &["competitor"]),
    ("competition", &["competitor"]),
    ("rival", &["competitor"]),
    ("contender", &["competitor"]),
    ("opponent", &["competitor"]),
    ("challenger", &["competitor"]),
    ("go up against", &["competitor"]),
    ("goes up against", &["competitor"]),
    ("bid against", &["competitor"]),
    ("bids against", &["competitor"]),
    ("up against", &["competitor"]),
    ("head to head", &["competitor"]),
    ("overlap", &["competitor"]),
    ("frenemy", &["partner", "competitor", "ratio"]),
    ("frenemie", &["partner", "competitor", "ratio"]),
    ("ratio", &["ratio"]),
    ("versus", &["ratio"]),
    ("vs", &["ratio"]),
    ("compared to", &["ratio"]),
    ("compared with", &["ratio"]),
    ("balance", &["ratio"]),
    ("proportion", &["ratio"]),
    // Vendors.
    ("profile", &["profile"]),
    ("overview", &["profile", "summary"]),
    ("tell me about", &["profile", "summary"]),
    ("background", &["profile"]),
    ("snapshot", &["profile", "summary"]),
    ("basics", &["profile", "summary"]),
    ("basic", &["profile", "summary"]),
    ("at a glance", &["profile", "summary"]),
    ("key fact", &["profile", "summary"]),
    ("size status", &["profile", "size"]),
    ("small business", &["size"]),
    ("size", &["size"]),
    ("parent", &["parent"]),
    ("corporate family", &["parent"]),
    ("vendor", &["vendor"]),
    ("company", &["vendor"]),
    ("firm", &["vendor"]),
    ("contractor", &["vendor"]),
    ("entity", &["vendor"]),
    ("uei", &["vendor"]),
    ("award", &["award"]),
    ("contract", &["award"]),
    ("task order", &["award"]),
    ("delivery order", &["award"]),
    ("won", &["award"]),
    ("win", &["award"]),
    ("book of business", &["award"]),
    ("portfolio", &["award"]),
    ("track record", &["award"]),
    ("past performance", &["award"]),
    // Requirements.
    ("requirement", &["requirement"]),
    ("req", &["requirement"]),
    ("rfp", &["requirement"]),
    ("rfq", &["requirement"]),
    ("rfi", &["requirement"]),
    ("solicitation", &["requirement"]),
    ("opportunity", &["requirement"]),
    ("pursuit", &["requirement"]),
    ("summary", &["summary"]),
    ("summariz", &["summary"]),
    ("summarys", &["summary"]),
    ("detail", &["summary", "detail"]),
    ("describe", &["summary"]),
    ("describ", &["summary"]),
    ("particular", &["summary"]),
    ("scope", &["summary"]),
    ("due date", &["summary"]),
    ("due", &["summary"]),
    ("what is it", &["summary"]),
    ("what does it need", &["summary"]),
    ("seat", &["summary"]),
    // Bench.
    ("bench", &["bench"]),
    ("candidate", &["bench"]),
    ("people", &["bench"]),
    ("person", &["bench"]),
    ("staff", &["bench"]),
    ("personnel", &["bench"]),
    ("folk", &["bench"]),
    ("employee", &["bench"]),
    ("talent", &["bench"]),
    ("workforce", &["bench"]),
    ("headcount", &["bench", "count"]),
    ("consultant", &["bench"]),
    // A kind of service a vendor sells, not people.
    ("staff augmentation", &[]),
    // Now.
    ("at the moment", &[]),
    ("at present", &[]),
    ("recruit", &["bench"]),
    ("cleared staff", &["bench", "clearance"]),
    ("cleared people", &["bench", "clearance"]),
    ("cleared folk", &["bench", "clearance"]),
    ("cleared", &["clearance"]),
    ("clearance", &["clearance"]),
    ("clearance level", &["clearance"]),
    ("ts sci", &["clearance", "sci"]),
    ("top secret", &["clearance"]),
    ("secret", &["clearance"]),
    ("confidential", &["clearance"]),
    ("ts", &["clearance"]),
    ("compartment", &["compartment"]),
    ("si tk", &["compartment"]),
    ("si", &["compartment"]),
    ("tk", &["compartment"]),
    ("hcs", &["compartment"]),
    ("klm", &["compartment"]),
    ("read in", &["compartment"]),
    ("read on", &["compartment"]),
    ("caveat", &["compartment"]),
    ("how many", &["count"]),
    ("count", &["count"]),
    ("number of", &["count"]),
    ("tally", &["count"]),
    ("fit", &["fit"]),
    ("qualif", &["fit"]),
    ("qualifi", &["fit"]),
    ("qualification", &["fit"]),
    ("qualify", &["fit"]),
    ("match", &["fit"]),
    ("meet", &["fit"]),
    ("meets", &["fit"]),
    ("eligible", &["fit"]),
    ("cover", &["fit"]),
    ("coverage", &["fit"]),
    ("staff it", &["fit", "bench"]),
    ("could staff", &["fit", "bench"]),
    ("can staff", &["fit", "bench"]),
    ("to staff", &["fit", "bench"]),
    ("staff the", &["fit", "bench"]),
    ("fill", &["fit"]),
    ("suitable", &["fit"]),
    ("suited", &["fit"]),
    ("match up", &["fit"]),
    ("right people", &["fit", "bench"]),
    ("labor category", &["fit", "category"]),
    ("labor categories", &["fit", "category"]),
    ("lcat", &["fit", "category"]),
    ("available", &["availability"]),
    ("availability", &["availability"]),
    ("free up", &["availability"]),
    ("freeing up", &["availability"]),
    ("frees up", &["availability"]),
    ("free", &["availability"]),
    ("roll off", &["availability"]),
    ("rolling off", &["availability"]),
    ("rolls off", &["availability"]),
    ("coming off", &["availability"]),
    ("come off", &["availability"]),
    ("comes off", &["availability"]),
    ("between assignment", &["availability"]),
    ("unstaffed", &["availability"]),
    ("ready to start", &["availability"]),
    ("available to start", &["availability"]),
    ("open up", &["availability"]),
    ("unassigned", &["availability"]),
    ("idle", &["availability"]),
    ("deployable", &["availability"]),
    ("start", &["availability"]),
    // The whole picture.
    ("capture picture", &["capture", "picture"]),
    ("capture brief", &["capture", "picture"]),
    ("capture", &["capture"]),
    ("full picture", &["picture"]),
    ("big picture", &["picture"]),
    ("whole picture", &["picture"]),
    ("picture", &["picture"]),
    ("everything", &["picture"]),
    ("whole story", &["picture"]),
    ("full rundown", &["picture"]),
    ("rundown", &["picture"]),
    ("brief me", &["picture"]),
    ("briefing", &["picture"]),
    ("one pager", &["picture"]),
    ("dossier", &["picture"]),
    ("end to end", &["picture"]),
    ("360", &["picture"]),
    // News of one thing ("what's the latest on INC-318842").
    ("latest on", &["updat"]),
    ("news on", &["updat"]),
    ("progress on", &["updat"]),
    ("word on", &["updat"]),
    // What is left of a thing ("are we running low on CF-1001").
    ("running low", &["stock"]),
    ("running short", &["stock"]),
    ("run low", &["stock"]),
    ("run short", &["stock"]),
    ("low on", &["stock"]),
    ("short on", &["stock"]),
    ("out of stock", &["stock"]),
    ("shelf", &["stock"]),
    ("how quickly", &["fast"]),
    ("how quick", &["fast"]),
    ("still have", &["stock"]),
    ("still hold", &["stock"]),
    ("still got", &["stock"]),
    ("have left", &["stock"]),
    ("got left", &["stock"]),
    ("shelves", &["stock"]),
    // Buying.
    ("picked up", &["buy"]),
    ("pick up", &["buy"]),
    // Money coming in ("how much did the Rockies bring in").
    ("bring in", &["revenu"]),
    ("brings in", &["revenu"]),
    ("brought in", &["revenu"]),
    ("bringing in", &["revenu"]),
    ("came in", &["revenu"]),
    ("come in", &["revenu"]),
    ("comes in", &["revenu"]),
    ("took in", &["revenu"]),
    ("take in", &["revenu"]),
    ("takings", &["revenu"]),
    ("income", &["revenu"]),
    ("money come from", &["revenu"]),
    ("money comes from", &["revenu"]),
    ("money came from", &["revenu"]),
    ("came through", &["revenu"]),
    ("come through", &["revenu"]),
    ("comes through", &["revenu"]),
    ("earn", &["revenu"]),
    ("earned", &["revenu"]),
    ("earns", &["revenu"]),
    ("earning", &["revenu"]),
    ("paid us", &["spend"]),
    ("pay us", &["spend"]),
    ("pays us", &["spend"]),
    // Selling ("is PA-5002 moving").
    ("move", &["sell"]),
    ("moved", &["sell"]),
    ("moves", &["sell"]),
    ("moving", &["sell"]),
    // Things sold, and where they are kept.
    ("goods", &["product"]),
    ("merchandise", &["product"]),
    ("depot", &["warehous"]),
    ("depots", &["warehous"]),
    ("storeroom", &["warehous"]),
    // Orders and what comes back.
    ("transaction", &["order"]),
    ("transactions", &["order"]),
    ("placed with us", &["order"]),
    ("give back", &["return"]),
    ("gave back", &["return"]),
    ("given back", &["return"]),
    ("hand back", &["return"]),
    ("handed back", &["return"]),
    ("refund", &["return"]),
    // Places, levels and days.
    ("territory", &["region"]),
    ("territories", &["region"]),
    ("area", &["region"]),
    ("areas", &["region"]),
    ("membership level", &["tier"]),
    ("loyalty level", &["tier"]),
    ("membership", &["tier"]),
    ("day to day", &["day"]),
    // Who buys.
    ("client", &["customer"]),
    ("clients", &["customer"]),
    ("worth the most", &["top"]),
    ("most valuable", &["top"]),
    // Places and codes.
    ("agency", &["agency"]),
    ("department", &["agency"]),
    ("customer", &["agency"]),
    ("naics", &["naics"]),
    ("industry", &["naics"]),
];

/// The term that separates two segments (asks) of a question.
pub(crate) const SPLIT: &str = "|";
/// The term that opens a segment starting with a framing word (`for`, `regarding`...).
pub(crate) const FRAME: &str = "@frame";
/// The term that closes a segment ended by punctuation (`,` `:` `;` `?`).
pub(crate) const STOP: &str = "|.";

/// The term that opens a segment asking for something else entirely (drafting, booking...).
pub(crate) const FOREIGN: &str = "@foreign";

/// Words that open a verb's object: a determiner or a pronoun.
const OBJECT_OPENERS: &[&str] = &[
    "a", "an", "the", "my", "our", "your", "their", "me", "us", "them", "it", "this", "that",
    "some",
];

/// Verbs that, opening an ask, ask to produce or do something rather than to look something up:
/// the ask is nothing a registry of queries answers.
const FOREIGN_VERBS: &[&str] = &[
    "draft",
    "forecast",
    "predict",
    "writ",
    "compos",
    "translat",
    "book",
    "schedul",
    "email",
    "send",
    "remind",
    "reset",
    "edit",
    "rewrit",
    "proofread",
];

/// Words that may come before an ask's verb without being the ask ("please draft", "can you
/// write").
const POLITE: &[&str] = &[
    "please", "pleas", "can", "could", "would", "you", "kindly", "help", "me", "i", "want", "to",
    "pl",
];

/// The term that opens a segment starting with a modifier (`by availability`, `per quarter`).
pub(crate) const MODIFIER: &str = "@modifier";

/// Words that open a modifier phrase: a breakdown of another ask, not an ask.
const MODIFIERS: &[&str] = &["by", "per", "sort", "sorted", "group", "grouped", "broken", "split"];

/// Words that open a framing phrase ("For the Army recompete under 541512, ...").
const FRAMING: &[&str] =
    &["for", "regarding", "about", "on", "given", "across", "at", "in", "with", "re"];

/// Stems that negate the verb after them, within three words ("hasn't been touched").
const NEGATIONS: &[&str] = &[
    "not", "never", "hasnt", "havent", "hadnt", "isnt", "wasnt", "werent", "dont", "doesnt",
    "didnt", "nobody",
];

/// Words that open an ask: inside a framing phrase ("For the service desk in FY2025 show ticket
/// volume, ..."), the frame ends before one.
const ASK_OPENERS: &[&str] =
    &["show", "list", "give", "get", "pull", "tell", "what", "which", "who", "how", "need", "want"];

/// Superlatives of time, not of size: no "top" of anything.
const RECENCY: &[&str] = &["latest", "earliest", "newest", "oldest"];

/// Words that carry no meaning for intent choice.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "across",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "being",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "doe",
    "does",
    "each",
    "else",
    "for",
    "from",
    "get",
    "give",
    "go",
    "had",
    "has",
    "have",
    "hav",
    "here",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "list",
    "look",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "my",
    "need",
    "new",
    "now",
    "of",
    "off",
    "on",
    "one",
    "or",
    "our",
    "ours",
    "out",
    "over",
    "pl",
    "pleas",
    "please",
    "pls",
    "plz",
    "pull",
    "right",
    "see",
    "should",
    "show",
    "so",
    "some",
    "tell",
    "thank",
    "thx",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "ther",
    "thes",
    "they",
    "thi",
    "this",
    "thos",
    "to",
    "up",
    "us",
    "via",
    "wa",
    "want",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "wher",
    "which",
    "whil",
    "who",
    "whos",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "would",
    "you",
    "your",
    "s",
    "t",
    "there",
    "own",
    "get",
    "got",
    "find",
    "quick",
    "quickly",
    "currently",
    "current",
    "same",
    "under",
    "per",
    // Everyone and everything: all of what the rest of the ask names.
    "everyon",
    "everybody",
    "anyon",
    "anybody",
    "everyth",
    "anyth",
    "nothing",
    "noth",
];

/// Words of time and data that say nothing of which intent a question wants in most
/// registries (the window and the codes are params): unheard like stop words, unless an intent
/// of the registry is named with one or lists one alone as a keyword (`recent_sales_trend`,
/// "lately").
const CONTEXT_WORDS: &[&str] = &[
    "last",
    "past",
    "month",
    "year",
    "week",
    "day",
    "time",
    "period",
    "window",
    "lately",
    "recent",
    "recently",
    "code",
    "data",
    "info",
    "information",
    // How a thing is doing, said of the thing alone ("how's TE-2005 doing", "TE-2005
    // performance in Q2"): its values say which intent.
    "doing",
    "perform",
    "performanc",
    "mov",
    "figur",
    "number",
    "stat",
    "statistic",
    "metric",
    "kpi",
    "kpis",
    "story",
    "stori",
];

/// Whether `stem` is one of the time and data words ([`CONTEXT_WORDS`]).
pub(crate) fn is_time_word(stem: &str) -> bool {
    CONTEXT_WORDS.contains(&stem)
}

/// A thesaurus phrase as stems, and the concepts it becomes.
type Phrase = (Vec<String>, &'static [&'static str]);

/// The normaliser: stemmer, stop words and thesaurus, built once.
#[derive(Debug)]
pub(crate) struct Lexicon {
    /// First stem of a phrase → (phrase stems, concepts), longest phrase first. Only looked
    /// up, never iterated.
    phrases: Map<String, Vec<Phrase>>,
    stop: Vec<&'static str>,
    /// The stems a misspelt word may be corrected to, by first letter, each list sorted. Only
    /// looked up, never iterated as a map.
    vocabulary: Map<char, Vec<String>>,
    /// First stem of a registry keyword of several words, one of them a stop word ("new
    /// tickets", "how many left") → the keywords' stems. Said whole, such a keyword is also
    /// heard as one term of its own ([`keyword_term`]): its stop word, dropped, would leave a
    /// word every intent shares. Only looked up, never iterated.
    keywords: Map<String, Vec<Vec<String>>>,
    /// The initials of the registry's names and keywords of two to four words, with and without
    /// their stop words ("ls", "los" of "length of stay") → the phrase's stems; an acronym two
    /// phrases share is left out. Only looked up, never iterated.
    acronyms: Map<String, Vec<String>>,
    /// The stems the registry names its intents by (names, keywords, examples), sorted: a verb
    /// among them is the registry's word, not a request for something else ("schedule
    /// slippage" of a `schedule_slippage` intent).
    named: Vec<String>,
}

/// The words other than stop words of a term a keyword said whole is heard as, `None` for
/// any other term.
pub(crate) fn keyword_content(term: &str) -> Option<impl Iterator<Item = &str>> {
    let stems = term.strip_prefix("kw:")?;
    Some(stems.split(' ').filter(|stem| !STOP_WORDS.contains(stem)))
}

/// The term a registry keyword of several words said whole is heard as.
fn keyword_term(stems: &[String]) -> String {
    let mut term = String::from("kw:");
    for (n, stem) in stems.iter().enumerate() {
        if n > 0 {
            term.push(' ');
        }
        term.push_str(stem);
    }
    term
}

impl Lexicon {
    /// The whole thesaurus: every entry applies.
    #[cfg(test)]
    pub(crate) fn new() -> Lexicon {
        Lexicon::with_entries(THESAURUS.iter(), &[], Map::default())
    }

    /// The lexicon for a registry whose own words (names, keywords, descriptions) are
    /// `texts`: a thesaurus entry applies only where the registry says one of its concept
    /// words itself, plainly, so that a phrasing is folded into a concept only for a registry
    /// that speaks of that concept. Connectives and dropped phrases always apply. A registry
    /// in another domain keeps its own words ("customer" stays "customer" where no intent
    /// speaks of an agency).
    ///
    /// `own` are the registry's names and keywords: a context word among them that stands
    /// alone (a name's word, a one-word keyword) is heard.
    pub(crate) fn for_registry<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        own: impl IntoIterator<Item = &'a str>,
    ) -> Lexicon {
        let mut spoken: Vec<String> = texts
            .into_iter()
            .flat_map(words)
            .map(|(word, _)| word)
            .flat_map(|word| {
                let stemmed = stem(&word);
                [word, stemmed]
            })
            .collect();
        spoken.sort_unstable();
        spoken.dedup();
        let says = |concept: &str| {
            spoken.binary_search_by(|it| it.as_str().cmp(concept)).is_ok()
                || spoken.binary_search(&stem(concept)).is_ok()
        };
        let own: Vec<&str> = own.into_iter().collect();
        // A keyword of several words with a stop word among them, heard whole as a term.
        let mut keywords: Map<String, Vec<Vec<String>>> = Map::default();
        for text in &own {
            let stems: Vec<String> = words(text).into_iter().map(|(word, _)| stem(&word)).collect();
            let stop = |stem: &String| STOP_WORDS.contains(&stem.as_str());
            // One of stop words alone is heard when it is a phrase of three ("what was in").
            if stems.len() >= 2
                && stems.iter().any(stop)
                && (!stems.iter().all(stop) || stems.len() >= 3)
                && !stems.iter().any(|stem| stem == STOP)
            {
                let entries = keywords.entry(stems[0].clone()).or_default();
                if !entries.contains(&stems) {
                    entries.push(stems);
                }
            }
        }
        // A keyword heard alone: one word once its stop words are left ("by month").
        let heard: Vec<String> = own
            .into_iter()
            .filter_map(|text| {
                let mut stems: Vec<String> = words(text)
                    .into_iter()
                    .map(|(word, _)| stem(&word))
                    .filter(|word| !STOP_WORDS.contains(&word.as_str()))
                    .collect();
                if stems.len() == 1 { stems.pop() } else { None }
            })
            .collect();
        let entries = THESAURUS.iter().filter(|(_, concepts)| {
            concepts.is_empty()
                || concepts.first() == Some(&SPLIT)
                || concepts.iter().any(|c| says(c))
        });
        Lexicon::with_entries(entries, &heard, keywords)
    }

    fn with_entries<'a>(
        entries: impl Iterator<Item = &'a (&'static str, &'static [&'static str])>,
        heard: &[String],
        keywords: Map<String, Vec<Vec<String>>>,
    ) -> Lexicon {
        let kept: Vec<&(&'static str, &'static [&'static str])> = entries.collect();
        let mut phrases: Map<String, Vec<Phrase>> = Map::default();
        for &&(surface, concepts) in &kept {
            let stems: Vec<String> =
                words(surface).into_iter().map(|(word, _)| stem(&word)).collect();
            if let Some(first) = stems.first() {
                let entries = phrases.entry(first.clone()).or_default();
                entries.push((stems, concepts));
                // Stable: longest first, equal lengths in thesaurus order.
                entries.sort_by_key(|entry| std::cmp::Reverse(entry.0.len()));
            }
        }
        let mut stop: Vec<&'static str> = STOP_WORDS.to_vec();
        stop.extend(CONTEXT_WORDS.iter().filter(|word| !heard.iter().any(|it| it == *word)));
        stop.sort_unstable();
        stop.dedup();
        let mut lexicon = Lexicon {
            phrases,
            stop,
            vocabulary: Map::default(),
            keywords,
            acronyms: Map::default(),
            named: Vec::new(),
        };
        let stems: Vec<String> = kept
            .iter()
            .flat_map(|(surface, _)| words(surface))
            .map(|(word, _)| stem(&word))
            .collect();
        lexicon.learn(stems.iter().map(String::as_str));
        lexicon
    }

    /// Stops hearing whole the keyword whose term ([`keyword_term`]) is `term`: it is never
    /// emitted again.
    pub(crate) fn forget_keyword(&mut self, term: &str) {
        let Some(stems) = term.strip_prefix("kw:") else { return };
        let stems: Vec<&str> = stems.split(' ').collect();
        let Some(keywords) = stems.first().and_then(|first| self.keywords.get_mut(*first)) else {
            return;
        };
        keywords.retain(|keyword| !keyword.iter().eq(&stems));
        if keywords.is_empty() {
            self.keywords.remove(stems[0]);
        }
    }

    /// Learns the acronyms of `phrases` (the registry's intent names, words apart, and
    /// keywords): the initials of a phrase of two to four words, with its stop words and
    /// without, stand for its stems ("LR" for "loss ratio", "LOS" for "length of stay").
    pub(crate) fn learn_acronyms<'a>(&mut self, phrases: impl IntoIterator<Item = &'a str>) {
        let mut found: std::collections::BTreeMap<String, Option<Vec<String>>> =
            std::collections::BTreeMap::new();
        for phrase in phrases {
            let all: Vec<String> = words(phrase).into_iter().map(|(word, _)| word).collect();
            let content: Vec<&String> =
                all.iter().filter(|word| !STOP_WORDS.contains(&stem(word).as_str())).collect();
            if !(2..=4).contains(&content.len())
                || all.len() > 5
                || all.iter().any(|word| !word.starts_with(|c: char| c.is_ascii_lowercase()))
            {
                continue;
            }
            let stems: Vec<String> = content.iter().map(|word| stem(word)).collect();
            let initials = |words: &mut dyn Iterator<Item = &String>| -> String {
                words.filter_map(|word| word.chars().next()).collect()
            };
            for acronym in [initials(&mut all.iter()), initials(&mut content.iter().copied())] {
                let entry = found.entry(acronym).or_insert_with(|| Some(stems.clone()));
                if entry.as_ref() != Some(&stems) {
                    *entry = None;
                }
            }
        }
        self.acronyms =
            found.into_iter().filter_map(|(acronym, stems)| Some((acronym, stems?))).collect();
    }

    /// Adds words (already stemmed: a registry's index terms) to the vocabulary: a known word is
    /// never corrected, and misspellings are corrected to one of four letters or more.
    pub(crate) fn learn<'a>(&mut self, stems: impl IntoIterator<Item = &'a str>) {
        for stem in stems {
            let Some(first) = stem.chars().next() else { continue };
            if !stem.chars().all(|ch| ch.is_ascii_lowercase())
                || self.stop.binary_search(&stem).is_ok()
            {
                continue;
            }
            let bucket = self.vocabulary.entry(first).or_default();
            if let Err(at) = bucket.binary_search_by(|it| it.as_str().cmp(stem)) {
                bucket.insert(at, stem.to_owned());
            }
        }
    }

    /// Keeps each word of the registry's intent names (of three letters or more) its own term:
    /// a thesaurus entry folding one such word into another concept is dropped ("budget" of a
    /// `budget_vs_actual` intent is not heard as spend, whatever a registry of spend would make
    /// of it). A connective still joins asks: the "and" of a `joins_and_cancellations` intent
    /// names nothing of its own.
    pub(crate) fn keep_name_words<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        // A connective of two or fewer letters ("vs", "by") names nothing of its own.
        for word in names.into_iter().filter(|word| word.len() > 2) {
            let own = stem(word);
            if let Some(entries) = self.phrases.get_mut(&own) {
                entries.retain(|(stems, concepts)| {
                    stems.len() > 1
                        || concepts.is_empty()
                        || concepts.first() == Some(&SPLIT)
                        || concepts.iter().any(|c| stem(c) == own)
                });
            }
        }
    }

    /// Marks `stems` as the words the registry names its intents by: a verb among them opens
    /// no request for something else.
    pub(crate) fn name_intents_by<'a>(&mut self, stems: impl IntoIterator<Item = &'a str>) {
        self.named.extend(stems.into_iter().map(str::to_owned));
        self.named.sort_unstable();
        self.named.dedup();
    }

    /// Whether a stem means something to the lexicon as it is.
    fn knows(&self, stem: &str) -> bool {
        self.phrases.contains_key(stem)
            || self.stop.binary_search(&stem).is_ok()
            || FOREIGN_VERBS.contains(&stem)
            || self.learned(stem)
    }

    /// Whether `stem` is one of the registry's own terms (learned), not a thesaurus word.
    fn learned(&self, stem: &str) -> bool {
        stem.chars()
            .next()
            .and_then(|first| self.vocabulary.get(&first))
            .is_some_and(|bucket| bucket.binary_search_by(|it| it.as_str().cmp(stem)).is_ok())
    }

    /// The vocabulary stem closest to an unknown stem, within the edits its word's length
    /// allows (one for words of six letters, two from seven), with the same first
    /// letter; ties go to the first in alphabetical order, so a correction is deterministic.
    /// Catches misspellings ("incumbant", "recompeat", "obligatons") and British spellings
    /// ("labour", "summarise").
    fn correct(&self, stem: &str, word_length: usize) -> Option<&str> {
        if word_length < MIN_CORRECTED_WORD || !stem.chars().all(|ch| ch.is_ascii_lowercase()) {
            return None;
        }
        let allowed = if word_length >= 7 { 2 } else { 1 };
        let bucket = self.vocabulary.get(&stem.chars().next()?)?;
        let mut best: Option<(usize, &str)> = None;
        for known in bucket {
            // A short stem is known (so never corrected) but never a correction: "log" is
            // not one edit from "long" for a question that says "logged".
            if known.len() < MIN_CORRECTED_STEM || known.len().abs_diff(stem.len()) > allowed {
                continue;
            }
            let distance = edit_distance(stem.as_bytes(), known.as_bytes());
            if distance <= allowed && best.is_none_or(|(top, _)| distance < top) {
                best = Some((distance, known));
            }
        }
        best.map(|(_, known)| known)
    }

    /// The one vocabulary stem an abbreviation stands for: a stem of four or five letters whose
    /// word (`original`) is no English word (the knowledge file, WordNet 3.0, does not know it
    /// in any inflection it reads) and that either starts the registry stem, as a clipped word
    /// does ("util", "corp"), or holds its first and last letters and others of it in order, as
    /// a word with its vowels dropped does ("acct", "mgmt"); a word written in capitals is an
    /// acronym, not a clipping ("ISO"). Only when one word of the registry fits, two letters
    /// longer at least (its spellings and forms count as one): an abbreviation two words share
    /// is not read.
    fn expand(&self, stem: &str, original: &str) -> Option<&str> {
        if !(4..=5).contains(&stem.len())
            || !original.bytes().all(|b| b.is_ascii_lowercase())
            || planner_knowledge::Knowledge::english().word(original).is_some()
            || is_function_word(original)
        {
            return None;
        }
        let bucket = self.vocabulary.get(&stem.chars().next()?)?;
        let fits = bucket.iter().filter(|known| {
            let contracted = || {
                let mut letters = known.bytes();
                stem.bytes().all(|b| letters.any(|k| k == b))
                    && known.ends_with(&stem[stem.len() - 1..])
            };
            known.len() >= stem.len() + 2 && (known.starts_with(stem) || contracted())
        });
        // One word's spellings and forms ("utilis", "utiliz", "utilisation") are one fit: the
        // shortest (the first in order among equals), which starts every other within an edit.
        let fits: Vec<&String> = fits.collect();
        let base = fits.iter().min_by_key(|fit| fit.len())?;
        fits.iter()
            .all(|other| {
                other
                    .get(..base.len())
                    .is_some_and(|head| edit_distance(base.as_bytes(), head.as_bytes()) <= 1)
            })
            .then_some(base.as_str())
    }

    /// The concept and content words of `text`, in order, repeats kept, with segment marks.
    /// Words inside `masked` ranges (identifier-like param values) are skipped; inside
    /// `protected` ranges (any param value: "SI, TK and G") nothing splits a segment.
    pub(crate) fn terms(
        &self,
        text: &str,
        masked: &[(usize, usize)],
        protected: &[(usize, usize)],
    ) -> Vec<Cow<'static, str>> {
        let mut terms = Vec::new();
        self.terms_at(text, masked, protected, |term, _| terms.push(term));
        terms
    }

    /// [`Lexicon::terms`], each term handed to `emit` with the byte offset in `text` of the word
    /// it starts at.
    pub(crate) fn terms_at(
        &self,
        text: &str,
        masked: &[(usize, usize)],
        protected: &[(usize, usize)],
        mut emit: impl FnMut(Cow<'static, str>, usize),
    ) {
        let (stems, positions) = self.stems(text, masked, protected);
        let mut at = 0;
        let mut segment_start = true;
        // Still among the polite words that open an ask ("please", "can you").
        let mut opening = true;
        // Inside a segment opened by a framing word, past that word.
        let mut framed = false;
        while at < stems.len() {
            let stem = stems[at].as_str();
            if segment_start {
                framed = false;
                opening = true;
                if FRAMING.contains(&stem) {
                    emit(Cow::Borrowed(FRAME), positions[at]);
                    framed = true;
                }
                if MODIFIERS.contains(&stem) {
                    emit(Cow::Borrowed(MODIFIER), positions[at]);
                }
            } else if framed && ASK_OPENERS.contains(&stem) {
                emit(Cow::Borrowed(SPLIT), positions[at]);
                framed = false;
            }
            // A verb is used as one before its object's determiner or pronoun ("schedule a
            // call"); the registry's own noun before a noun is its noun ("schedule slippage").
            let object =
                stems.get(at + 1).is_some_and(|next| OBJECT_OPENERS.contains(&next.as_str()));
            let registry_noun =
                !object && self.named.binary_search_by(|it| it.as_str().cmp(stem)).is_ok();
            if opening && FOREIGN_VERBS.contains(&stem) && !registry_noun {
                emit(Cow::Borrowed(FOREIGN), positions[at]);
            }
            opening &= POLITE.contains(&stem);
            segment_start = false;
            if stem == STOP {
                emit(Cow::Borrowed(STOP), positions[at]);
                segment_start = true;
                at += 1;
                continue;
            }
            if let Some(keywords) = self.keywords.get(stem) {
                for keyword in keywords.iter().filter(|keyword| stems[at..].starts_with(keyword)) {
                    emit(Cow::Owned(keyword_term(keyword)), positions[at]);
                }
            }
            if let Some((end, split)) = self.phrase_at(&stems, &positions, at, protected, &mut emit)
            {
                segment_start = split;
                at = end;
                continue;
            }
            // A negation is no word the registry lacks: it turns the verb after it ("hasn't
            // closed"), heard or not.
            let is_noise = self.stop.binary_search(&stem).is_ok()
                || NEGATIONS.contains(&stem)
                || stem.chars().any(|ch| ch.is_ascii_digit());
            if !is_noise {
                emit(Cow::Owned(stem.to_owned()), positions[at]);
            }
            at += 1;
        }
    }

    /// The thesaurus phrase starting at stem `at`, if any: its concepts emitted (none for a
    /// split inside a param value or between two: "the gold and silver tiers"), with where it ends and
    /// whether it splits the segment.
    fn phrase_at(
        &self,
        stems: &[String],
        positions: &[usize],
        at: usize,
        protected: &[(usize, usize)],
        emit: &mut impl FnMut(Cow<'static, str>, usize),
    ) -> Option<(usize, bool)> {
        let (phrase, concepts) = self.phrases.get(&stems[at])?.iter().find(|(phrase, _)| {
            let end = at + phrase.len();
            end <= stems.len() && stems[at..end] == phrase[..]
        })?;
        let end = at + phrase.len();
        let split = concepts.first() == Some(&SPLIT);
        let joins_values = at > 0
            && inside(protected, positions[at - 1])
            && positions.get(end).is_some_and(|&next| inside(protected, next));
        if split && (inside(protected, positions[at]) || joins_values) {
            return Some((end, false));
        }
        for concept in concepts.iter() {
            emit(Cow::Borrowed(*concept), positions[at]);
        }
        Some((end, split))
    }

    /// The stems of `text`'s words (those in `masked` ranges left out, and a sentence stop
    /// inside a `protected` one), with their byte offsets: a word the lexicon does not know
    /// heard as what it most likely says ([`Lexicon::heard_as`]).
    fn stems(
        &self,
        text: &str,
        masked: &[(usize, usize)],
        protected: &[(usize, usize)],
    ) -> (Vec<String>, Vec<usize>) {
        let words = words(text);
        let mut stems: Vec<String> = Vec::with_capacity(words.len());
        let mut positions: Vec<usize> = Vec::with_capacity(words.len());
        let mut words = words.into_iter().peekable();
        // The buffer the next stem is spelled in: the previous word's, so that keeping the word
        // as written beside its stem allocates nothing.
        let mut spare = String::new();
        while let Some((word, at)) = words.next() {
            if inside(masked, at) || (word == STOP && inside(protected, at)) {
                continue;
            }
            if word == STOP {
                stems.push(word);
                positions.push(at);
                continue;
            }
            let mut stemmed = std::mem::take(&mut spare);
            stemmed.clear();
            stemmed.push_str(&word);
            stem_in_place(&mut stemmed);
            if !self.knows(&stemmed) {
                let written = text.get(at..at + word.len()).unwrap_or("");
                // An acronym is read as written, a word as it is lower case.
                let original =
                    if !written.is_empty() && written.bytes().all(|b| b.is_ascii_uppercase()) {
                        written
                    } else {
                        word.as_str()
                    };
                // An acronym of the registry's own phrase is that phrase ("LR").
                if original.len() <= 4
                    && original != stemmed
                    && !is_function_word(&stemmed)
                    && let Some(expansion) = self.acronyms.get(&original.to_ascii_lowercase())
                {
                    stems.extend(expansion.iter().cloned());
                    positions.extend(expansion.iter().map(|_| at));
                    spare = word;
                    continue;
                }
                let next = words.peek().map(|(next, _)| next.as_str());
                self.heard_as(&mut stemmed, original, &stems, next);
            }
            stems.push(stemmed);
            positions.push(at);
            spare = word;
        }
        (stems, positions)
    }

    /// What an unknown stem `word` (of a word `length` bytes long, after `before`, before
    /// `next`) is heard as: a negated verb the registry knows only with "un-" ("hasn't touched"
    /// is "untouched"); else the closest known stem; else, a superlative the registry does not
    /// say, `top` ("the heaviest spenders", "our busiest region"), unless it orders ("highest
    /// first"). Otherwise it stays.
    fn heard_as(&self, word: &mut String, original: &str, before: &[String], next: Option<&str>) {
        let length = original.len();
        let negated = before
            .iter()
            .rev()
            .take(3)
            .take_while(|stem| !stem.starts_with('|'))
            .any(|stem| NEGATIONS.contains(&stem.as_str()));
        let prefixed = format!("un{word}");
        if negated && self.knows(&prefixed) {
            *word = prefixed;
        } else if let Some(known) = self.correct(word, length) {
            known.clone_into(word);
        } else if let Some(known) = self.expand(word, original) {
            known.clone_into(word);
        } else if planner_extract::superlative(word)
            && !RECENCY.contains(&word.as_str())
            && self.knows("top")
            && next.is_none_or(|next| !matches!(next, "first" | "last"))
        {
            "top".clone_into(word);
        }
    }
}

/// Whether byte `at` lies in one of `ranges`.
fn inside(ranges: &[(usize, usize)], at: usize) -> bool {
    ranges.iter().any(|&(start, end)| at >= start && at < end)
}

/// Lower-case alphanumeric words with their byte offsets; apostrophes are dropped (`vendor's`
/// → `vendors`). Sentence and clause punctuation (`?` `!` `;` `:`, and `,` `.` before a space)
/// becomes [`STOP`]; `&` or `+` between spaces, the word "and".
fn words(text: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::with_capacity(text.len() / 5 + 4);
    let mut word = String::with_capacity(WORD_CAPACITY);
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        if ch.is_ascii_alphanumeric() {
            if word.is_empty() {
                start = at;
            }
            word.push(ch.to_ascii_lowercase());
            continue;
        }
        if ch.is_alphanumeric() {
            if word.is_empty() {
                start = at;
            }
            word.extend(ch.to_lowercase());
            continue;
        }
        if ch == '\'' || ch == '\u{2019}' {
            // "I'd", "I'm", "I've", "I'll": the pronoun, not the words "id" or "im".
            if word == "i" {
                while chars.peek().is_some_and(|(_, next)| next.is_ascii_alphabetic()) {
                    chars.next();
                }
            }
            continue;
        }
        if !word.is_empty() {
            out.push((std::mem::replace(&mut word, String::with_capacity(WORD_CAPACITY)), start));
        }
        let next_is_space = chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        // A sign standing for "and" between spaces joins asks as the word does ("turnover +
        // rent growth", "sales & margin"); inside a word ("R&D", "P&L") it is part of a name.
        let before_is_space = text[..at].chars().next_back().is_none_or(char::is_whitespace);
        if matches!(ch, '&' | '+') && before_is_space && next_is_space {
            out.push(("and".to_owned(), at));
            continue;
        }
        let breaks = matches!(ch, '?' | '!' | ';' | ':' | '\n')
            || (matches!(ch, ',' | '.') && next_is_space);
        if breaks && out.last().is_some_and(|(last, _)| last != STOP) {
            out.push((STOP.to_owned(), at));
        }
    }
    if !word.is_empty() {
        out.push((word, start));
    }
    out
}

/// Room for most words without growing.
const WORD_CAPACITY: usize = 16;

/// The shortest word that is corrected, and the shortest stem corrected to.
const MIN_CORRECTED_WORD: usize = 6;
const MIN_CORRECTED_STEM: usize = 4;

/// The optimal string alignment distance (insertions, deletions, substitutions and swaps of two
/// neighbours) between two short ASCII words.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let width = b.len() + 1;
    let mut rows = vec![0usize; 3 * width];
    let (mut before, mut previous, mut current) = (0, width, 2 * width);
    for (j, cell) in rows[previous..previous + width].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[current] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[previous + j] + 1)
                .min(rows[current + j - 1] + 1)
                .min(rows[previous + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[before + j - 2] + 1);
            }
            rows[current + j] = best;
        }
        (before, previous, current) = (previous, current, before);
    }
    rows[previous + b.len()]
}

/// Irregular past forms of verbs, sorted: the stem of the form is its verb's (`sold` meets
/// `selling` at `sell`).
const IRREGULAR: &[(&str, &str)] = &[
    ("annually", "year"),
    ("bought", "buy"),
    ("brought", "bring"),
    ("built", "build"),
    ("daily", "day"),
    ("kept", "keep"),
    ("monthly", "month"),
    ("paid", "pay"),
    ("quarterly", "quarter"),
    ("sent", "send"),
    ("sold", "sell"),
    ("spent", "spend"),
    ("taught", "teach"),
    ("weekly", "week"),
    ("yearly", "year"),
];

/// A light suffix stripper: plurals, `-ing`, `-ed`, then a final `e`, so that `expires`,
/// `expiring` and `expired` meet at `expir`.
pub(crate) fn stem(word: &str) -> String {
    let mut stem = word.to_owned();
    stem_in_place(&mut stem);
    stem
}

/// [`stem`] without a new string: the word is cut (or its `ies` made `y`) where it lies.
pub(crate) fn stem_in_place(word: &mut String) {
    if let Ok(at) = IRREGULAR.binary_search_by(|(form, _)| (*form).cmp(word.as_str())) {
        IRREGULAR[at].1.clone_into(word);
        return;
    }
    if word.len() > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
        return;
    }
    let end = stem_end(word);
    word.truncate(end);
}

/// The length of `word`'s stem (everything but the `ies` rule).
fn stem_end(word: &str) -> usize {
    let mut stem = word;
    if stem.len() > 3
        && stem.ends_with('s')
        && !stem.ends_with("ss")
        && !stem.ends_with("us")
        && !stem.ends_with("is")
    {
        stem = &stem[..stem.len() - 1];
    }
    let mut stripped = false;
    if stem.len() > 5 && stem.ends_with("ing") {
        stem = &stem[..stem.len() - 3];
        stripped = true;
    } else if stem.len() > 4 && stem.ends_with("ed") {
        stem = &stem[..stem.len() - 2];
        stripped = true;
    }
    // `winning` → `win`, `planned` → `plan`. Only an ASCII letter is doubled: equal trailing
    // bytes of a multi-byte character (`ꀀ` ends in 0x80 0x80) are not a doubled letter.
    let bytes = stem.as_bytes();
    if stripped
        && bytes.len() >= 3
        && bytes[bytes.len() - 1].is_ascii()
        && bytes[bytes.len() - 1] == bytes[bytes.len() - 2]
        && !matches!(bytes[bytes.len() - 1], b'l' | b's' | b'z' | b'e' | b'o' | b'f')
    {
        stem = &stem[..stem.len() - 1];
    }
    if stem.len() > 4 && stem.ends_with('e') {
        stem = &stem[..stem.len() - 1];
    }
    stem.len()
}

#[cfg(test)]
mod tests {
    //! Normalisation examples.

    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &[&str]) {
        assert_eq!(Lexicon::new().terms(text, &[], &[]), expected, "terms of {text:?}");
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("expires"), stem("expiring"));
        assert_eq!(stem("expired"), stem("expire"));
        assert_eq!(stem("incumbents"), "incumbent");
        assert_eq!(stem("competitors"), "competitor");
        assert_eq!(stem("companies"), "company");
        assert_eq!(stem("winning"), "win");
        // A multi-byte character whose last two bytes are equal is not a doubled letter.
        assert_eq!(stem("\u{a000}ing"), "\u{a000}");
        assert_eq!(stem("studies"), "study");
        // Irregular past forms meet their verbs.
        assert_eq!(stem("sold"), stem("selling"));
        assert_eq!(stem("bought"), stem("buys"));
        assert!(IRREGULAR.windows(2).all(|pair| pair[0].0 < pair[1].0), "sorted");
    }

    #[test]
    fn stop_words_are_listed_as_stems() {
        // The list is looked up by stem: "those" is heard as "thos".
        for word in ["these", "those", "there", "where", "while", "having", "please", "this", "was"]
        {
            assert!(STOP_WORDS.contains(&stem(word).as_str()), "{word} is a stop word");
        }
    }

    #[test]
    fn phrases_fold_to_concepts() {
        check("Who holds the contract?", &["incumbent", "|."]);
        check("Which re-competes are coming up?", &["recompete", "recompete", "|."]);
        check("our teaming partners and subs", &["partner", "|", "partner"]);
        check("For the Army, who holds it", &["@frame", "army", "|.", "incumbent"]);
        // An ask opening inside a framing phrase ends it.
        check("For the Army show who holds it", &["@frame", "army", "|", "incumbent"]);
        check(
            "How many cleared staff are free in the next quarter",
            &["count", "bench", "clearance", "availability", "next", "quarter"],
        );
        check("Army spend, and who holds it?", &["army", "spend", "|.", "|", "incumbent", "|."]);
    }

    #[test]
    fn misspellings_and_british_spellings_are_corrected() {
        check("incumbants", &["incumbent"]);
        check("recompeats", &["recompete"]);
        check("obligatons", &["spend"]);
        check("labour category", &["fit", "category"]);
        check("summarise", &["summary"]);
        // Short or unrelated words stay as they are.
        check("weather", &["weather"]);
        // A short word the registry knows is never corrected to a longer one.
        let mut desk = Lexicon::for_registry(["Tickets logged against one asset"], ["how long"]);
        desk.learn(["log", "long", "ticket"]);
        assert_eq!(desk.terms("tickets logged", &[], &[]), ["ticket", "log"]);
        assert_eq!(edit_distance(b"profiel", b"profil"), 1);
        assert_eq!(edit_distance(b"teh", b"the"), 1);
        assert_eq!(edit_distance(b"", b"abc"), 3);
    }

    #[test]
    fn clipped_words_and_dropped_vowels_are_heard_as_the_registry_word() {
        let mut fleet = Lexicon::for_registry(
            ["fleet utilisation", "fleet utilization", "utilised", "corporate accounts by revenue"],
            ["utilisation"],
        );
        let stems: Vec<String> =
            ["fleet", "utilisation", "utilization", "utilised", "corporate", "account", "revenue"]
                .iter()
                .map(|word| stem(word))
                .collect();
        fleet.learn(stems.iter().map(String::as_str));
        assert_eq!(fleet.terms("fleet util", &[], &[]), ["fleet", stem("utilised").as_str()]);
        assert_eq!(fleet.terms("accts", &[], &[]), [stem("account").as_str()]);
        // An acronym is no clipping; an English word is no abbreviation.
        assert_eq!(fleet.terms("UTIL", &[], &[]), ["util"]);
        assert_eq!(fleet.terms("corps", &[], &[]), ["corp"]);
    }

    #[test]
    fn an_acronym_of_the_registry_s_phrase_is_that_phrase() {
        let mut insurer = Lexicon::for_registry(["loss ratio", "length of stay"], ["loss ratio"]);
        insurer.learn_acronyms(["loss ratio", "length of stay", "open claims", "overtime cost"]);
        assert_eq!(insurer.terms("LR by quarter", &[], &[]), ["loss", "ratio", "quarter"]);
        assert_eq!(insurer.terms("avg LOS", &[], &[]), ["avg", "length", "stay"]);
        assert_eq!(insurer.terms("avg LS", &[], &[]), ["avg", "length", "stay"]);
        // Only written in capitals, and never a function word ("IT", "US").
        assert_eq!(insurer.terms("lr by quarter", &[], &[]), ["lr", "quarter"]);
        // Two phrases with the same initials ("open claims", "overtime cost"): neither.
        assert_eq!(insurer.terms("OC", &[], &[]), ["oc"]);
    }

    #[test]
    fn requests_for_something_else_are_marked() {
        for text in ["Draft a cover letter", "please write an email", "Can you book a room"] {
            assert_eq!(
                Lexicon::new().terms(text, &[], &[]).first().map(|it| it.as_ref()),
                Some(FOREIGN)
            );
        }
        // A verb the registry names an intent by is its noun before a noun ("schedule
        // slippage"), and still a request before its object ("schedule a call").
        let mut site = Lexicon::for_registry(["schedule slippage"], ["schedule slippage"]);
        site.name_intents_by(["schedul"]);
        let first = |text: &str| site.terms(text, &[], &[]).first().map(|it| it.to_string());
        assert_eq!(first("schedule slippage on the tower").as_deref(), Some("schedul"));
        assert_eq!(first("schedule a call with the owner").as_deref(), Some(FOREIGN));
    }

    #[test]
    fn a_word_of_an_intent_name_is_its_own_term() {
        let texts = ["budget vs actual", "subcontractor spend"];
        let mut site = Lexicon::for_registry(texts, ["budget", "vs", "actual", "spend"]);
        // The thesaurus folds "budget" into spend, a concept this registry speaks of ...
        assert_eq!(site.terms("over budget", &[], &[]), ["spend"]);
        // ... but the registry names an intent by it.
        site.keep_name_words(["budget", "vs", "actual", "subcontractor", "spend"]);
        assert_eq!(site.terms("over budget", &[], &[]), ["budget"]);
    }

    #[test]
    fn a_registry_hears_only_the_concepts_it_speaks_of() {
        // The reference thesaurus folds "customer" into "agency": not for a registry that
        // never speaks of an agency.
        let shop = Lexicon::for_registry(
            ["top customers", "Customers who spent the most over a period."],
            ["top customers"],
        );
        assert_eq!(shop.terms("biggest customers", &[], &[]), ["top", "customer"]);
        // A superlative says "top" in any registry that speaks of it.
        assert_eq!(
            shop.terms("customers who spent the most", &[], &[]),
            ["customer", "spend", "top"]
        );
        let capture = Lexicon::for_registry(["Awards of one agency", "top vendors"], ["top"]);
        assert_eq!(capture.terms("biggest customers", &[], &[]), ["top", "agency"]);
        // Connectives split whatever the registry says.
        assert_eq!(shop.terms("orders and refunds", &[], &[]), ["order", "|", "refund"]);
    }

    #[test]
    fn context_words_are_heard_where_an_intent_is_named_with_them() {
        let text = "recent sales lately";
        assert_eq!(Lexicon::new().terms(text, &[], &[]), ["sale"]);
        let shop = Lexicon::for_registry(
            ["recent_sales_trend", "Daily sales over the last days."],
            ["recent", "sales", "trend", "lately", "last days"],
        );
        // "last" stands in a two-word keyword only: still unheard.
        assert_eq!(
            shop.terms("recent sales lately, last week", &[], &[]),
            ["recent", "sale", "lately", "|."]
        );
        // A keyword whose other words are stop words stands alone; periodic adjectives meet
        // their period.
        let desk = Lexicon::for_registry(["ticket_volume"], ["by month", "tickets"]);
        assert_eq!(desk.terms("tickets each month", &[], &[]), ["ticket", "month"]);
        assert_eq!(desk.terms("monthly tickets", &[], &[]), ["month", "ticket"]);
        assert_eq!(Lexicon::new().terms("monthly tickets", &[], &[]), ["ticket"]);
        assert_eq!(stem("daily"), "day");
    }

    #[test]
    fn a_pronoun_contracted_with_its_verb_is_the_pronoun() {
        for text in ["I'd like the backlog", "I\u{2019}m after the backlog", "I've got the backlog"]
        {
            let said: Vec<String> = words(text).into_iter().map(|(word, _)| word).collect();
            assert_eq!(said.first().map(String::as_str), Some("i"), "{text}");
            assert_eq!(said.last().map(String::as_str), Some("backlog"), "{text}");
            assert_eq!(said.len(), 4, "{text}: {said:?}");
        }
        // Any other apostrophe is dropped, its word kept whole.
        assert_eq!(words("the vendor's awards")[1].0, "vendors");
    }

    #[test]
    fn a_sign_for_and_between_spaces_splits_asks() {
        let split =
            |text: &str| Lexicon::new().terms(text, &[], &[]).contains(&Cow::Borrowed(SPLIT));
        assert!(split("churn + retention"));
        assert!(split("churn & retention"));
        assert!(!split("R&D spend"));
        assert!(!split("churn+retention"));
    }

    #[test]
    fn a_connective_in_an_intent_name_still_joins_asks() {
        let mut lexicon = Lexicon::new();
        lexicon.keep_name_words(["joins", "and", "cancellations", "plus", "then"]);
        for text in ["class attendance and peak hours", "dues plus arrears", "dues then arrears"] {
            assert!(lexicon.terms(text, &[], &[]).contains(&Cow::Borrowed(SPLIT)), "{text}");
        }
    }

    #[test]
    fn param_values_do_not_split() {
        let text = "TS/SCI with SI, TK and G compartments";
        assert_eq!(
            Lexicon::new().terms(text, &[], &[(0, 24)]),
            ["clearance", "sci", "compartment", "g", "compartment"]
        );
    }

    #[test]
    fn masks_param_spans() {
        let text = "profile of UEI ABC123DEF456";
        assert_eq!(Lexicon::new().terms(text, &[(15, 27)], &[]), ["profile", "vendor"]);
    }
}
