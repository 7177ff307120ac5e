//! The screen: rejects malformed input and refuses questions about protected attributes or
//! asking to score or rank people, before anything else runs.
//!
//! The guard list follows DOMAIN.md section 6 (EEO, OFCCP and NYC AEDT). Agency names found by
//! the extractors (for example "Department of Veterans Affairs") are masked first, so that an
//! agency is never mistaken for a protected attribute.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use planner_extract::Extraction;
use planner_registry::{IntentBody, KindType, ParamKind, Registry};

/// The longest question accepted, in characters.
pub const MAX_QUESTION_CHARS: usize = 2_000;

/// Why input was rejected before screening (a client error, not a refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Nothing but white space.
    #[error(
        "the question is empty: ask something, for example \"who are the incumbents for the Army under NAICS 541512?\""
    )]
    Empty,
    /// Over [`MAX_QUESTION_CHARS`].
    #[error("the question has {0} characters; the limit is 2000: shorten it")]
    TooLong(usize),
    /// A control character other than tab or newline.
    #[error("the question contains a control character (U+{0:04X}): remove it")]
    ControlCharacter(u32),
}

/// Checks the shape of the input: not empty, at most 2,000 characters, no control characters
/// other than tab, newline and carriage return.
pub fn check_input(question: &str) -> Result<(), InputError> {
    if question.trim().is_empty() {
        return Err(InputError::Empty);
    }
    let chars = question.chars().count();
    if chars > MAX_QUESTION_CHARS {
        return Err(InputError::TooLong(chars));
    }
    if let Some(c) = question.chars().find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
        return Err(InputError::ControlCharacter(c as u32));
    }
    Ok(())
}

/// Why a question was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    /// It asks about a protected attribute of people (the matched category).
    ProtectedAttribute(&'static str),
    /// It asks to score or rank people.
    RanksPeople,
}

impl Refusal {
    /// The reason shown to the user.
    pub fn reason(self) -> String {
        match self {
            Refusal::ProtectedAttribute(category) => format!(
                "this question asks about {category}, a protected attribute; the planner does not \
                 filter, group, count, rank or score people by protected attributes"
            ),
            Refusal::RanksPeople => {
                "this question asks to score or rank people; the planner reports \
                 bench counts only and never scores or ranks candidates"
                    .to_owned()
            }
        }
    }

    /// A stable label for audit and metrics.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::ProtectedAttribute(_) => "protected_attribute",
            Refusal::RanksPeople => "ranks_people",
        }
    }
}

/// Protected categories and the word sequences that name them. Matched on whole words of the
/// lower-cased question, agency names masked.
const PROTECTED: &[(&str, &[&str])] = &[
    (
        "race or ethnicity",
        &[
            "race",
            "races",
            "racial",
            "ethnicity",
            "ethnic",
            "ethnicities",
            "skin color",
            "skin colour",
            "black people",
            "white people",
            "hispanic",
            "latino",
            "latina",
            "latinos",
            "asian",
            "asians",
            "minority",
            "minorities",
            "native american",
            "native americans",
        ],
    ),
    (
        "religion",
        &[
            "religion",
            "religions",
            "religious",
            "creed",
            "christian",
            "christians",
            "muslim",
            "muslims",
            "jewish",
            "jews",
            "hindu",
            "hindus",
            "catholic",
            "catholics",
            "atheist",
            "atheists",
            "buddhist",
            "buddhists",
            "sikh",
            "sikhs",
            "mormon",
            "mormons",
            "protestant",
            "protestants",
            "evangelical",
            "evangelicals",
            "agnostic",
            "agnostics",
        ],
    ),
    (
        "sex or gender",
        &[
            "sex", "gender", "genders", "women", "woman", "female", "females", "male", "males",
            "men", "ladies", "girls", "boys", "mothers", "fathers",
        ],
    ),
    ("pregnancy", &["pregnant", "pregnancy", "pregnancies", "maternity", "childbirth"]),
    (
        "sexual orientation or gender identity",
        &[
            "sexual orientation",
            "gay",
            "lesbian",
            "lesbians",
            "bisexual",
            "lgbt",
            "lgbtq",
            "transgender",
            "trans people",
            "gender identity",
            "nonbinary",
            "non-binary",
        ],
    ),
    (
        "national origin or citizenship",
        &[
            "national origin",
            "nationality",
            "nationalities",
            "ancestry",
            "birthplace",
            "country of birth",
            "countries of birth",
            "place of birth",
            "birth country",
            "born abroad",
            "born outside",
            "born in",
            "foreign born",
            "foreign-born",
            "foreign national",
            "foreign nationals",
            "immigrant",
            "immigrants",
            "immigration status",
            "citizenship",
            "citizens",
            "non-citizens",
            "noncitizens",
            "green card",
            "dual citizenship",
            "dual citizens",
            "accent",
            "accents",
            "visa holders",
            "naturalized",
        ],
    ),
    (
        "age",
        &[
            "age",
            "ages",
            "aged",
            "how old",
            "date of birth",
            "birth date",
            "birthdate",
            "born before",
            "born after",
            "millennials",
            "boomers",
            "gen z",
            "retirement age",
            "elderly",
        ],
    ),
    (
        "disability or medical condition",
        &[
            "disability",
            "disabilities",
            "disabled",
            "handicapped",
            "medical condition",
            "medical conditions",
            "illness",
            "mental health",
            "chronic",
            "health condition",
            "health conditions",
            "health issue",
            "health issues",
            "health problem",
            "health problems",
            "health status",
            "medical history",
            "medical record",
            "medical records",
            "diagnosis",
            "diagnosed",
            "diabetes",
            "diabetic",
            "cancer",
            "hiv",
        ],
    ),
    ("genetic information", &["genetic", "genetics", "family medical history", "dna"]),
    (
        "veteran or military status",
        &[
            "veteran",
            "veterans",
            "vets",
            "veteran status",
            "military status",
            "served in the military",
            "prior service",
            "disabled veteran",
            "campaign badge",
            "service medal",
            "recently separated",
            "reservist",
            "reservists",
            "national guard",
            "guardsmen",
        ],
    ),
    ("marital or family status", &["married", "marital", "single parents", "family status"]),
    (
        "complaint or retaliation history",
        &[
            "complaint history",
            "filed complaints",
            "retaliation",
            "eeo complaint",
            "eeo complaints",
            "discrimination complaints",
        ],
    ),
    (
        "a demographic proxy",
        &[
            "graduation year",
            "photo",
            "photos",
            "zip code",
            "zip codes",
            "eeo",
            "demographic",
            "demographics",
            "self-identification",
            "self identification",
        ],
    ),
];

/// Phrases that name a protected attribute only when the question is about people ("awards
/// over 50 million" is not about age).
const PROTECTED_WITH_PEOPLE: &[(&str, &[&str])] = &[
    (
        "age",
        &[
            "over 40",
            "over 50",
            "over 60",
            "over 65",
            "under 30",
            "under 40",
            "older",
            "younger",
            "generation",
            "seniors",
            "young",
            "old",
        ],
    ),
    ("marital or family status", &["children", "kids", "parents"]),
];

/// Verbs that ask to score or rank, adjectives that rank when they qualify people, and nouns
/// for people.
const RANK_VERBS: &[&str] = &[
    "rank",
    "ranks",
    "ranked",
    "ranking",
    "score",
    "scores",
    "scored",
    "scoring",
    "rate",
    "rated",
    "rating",
    "grade",
    "grading",
    "shortlist",
    "evaluate",
    "stack-rank",
    "stack rank",
];
const RANK_ADJECTIVES: &[&str] = &[
    "best",
    "worst",
    "strongest",
    "weakest",
    "top",
    "bottom",
    "most qualified",
    "least qualified",
    "ideal",
];
/// Nouns for people: the subjects whose protected attributes are refused. A registry adds its
/// own (see [`Screen::new`]).
const PEOPLE: &[&str] = &[
    "candidate",
    "candidates",
    "people",
    "person",
    "persons",
    "staff",
    "employee",
    "employees",
    "applicant",
    "applicants",
    "engineer",
    "engineers",
    "bench",
    "individual",
    "individuals",
    "worker",
    "workers",
    "hire",
    "hires",
    "recruit",
    "recruits",
    "analyst",
    "analysts",
    "personnel",
    "folks",
    "consultants",
    "consultant",
    "workforce",
    "team members",
    "members",
];
/// Words that make a subject a firm, a contract or an award: general English, and with
/// [`SET_ASIDE`] the federal capture vocabulary. A registry adds its own (see [`Screen::new`]).
const FIRMS: &[&str] = &[
    "vendor",
    "vendors",
    "incumbent",
    "incumbents",
    "company",
    "companies",
    "firm",
    "firms",
    "competitor",
    "competitors",
    "partner",
    "partners",
    "contractor",
    "contractors",
    "prime",
    "primes",
    "sub",
    "subs",
    "subcontractor",
    "subcontractors",
    "awardee",
    "awardees",
    "business",
    "businesses",
    "enterprise",
    "enterprises",
    "supplier",
    "suppliers",
    "organisation",
    "organisations",
    "organization",
    "organizations",
    "contract",
    "contracts",
    "award",
    "awards",
    "recompete",
    "recompetes",
];

/// Words of a registry's names and columns too general to say who a question is about.
const GENERIC_COLUMN_WORDS: &[&str] = &[
    "name",
    "top",
    "end",
    "date",
    "value",
    "count",
    "fiscal",
    "quarter",
    "share",
    "ratio",
    "depth",
    "level",
    "agency",
    "naics",
    "total",
    "id",
    "title",
    "due",
    "seats",
    "clearance",
    "compartments",
    "requirement",
    "summary",
    "picture",
    "capture",
    "fit",
    "availability",
    "available",
    "now",
    "later",
    "within",
    "days",
    "category",
    "labor",
    "spend",
    "upcoming",
    "market",
    "profile",
    "size",
    "status",
    "parent",
    "hops",
    "direction",
    "start",
    "potential",
];

/// How far after a protected word a firm word makes it a firm's attribute ("veteran-owned
/// small businesses", "disabled veteran businesses").
const ATTACHED_WITHIN: usize = 4;

/// Which phrase list a phrase belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    /// `PROTECTED[n]`.
    Protected(usize),
    /// `PROTECTED_WITH_PEOPLE[n]`.
    WithPeople(usize),
    RankVerb,
}

/// First word → the phrases starting with it (as words) and their lists.
type PhraseIndex = HashMap<&'static str, Vec<(Vec<&'static str>, Group)>>;

/// A phrase's words: hyphens separate words, as in questions.
fn phrase_words(phrase: &'static str) -> Vec<&'static str> {
    phrase.split([' ', '-']).filter(|it| !it.is_empty()).collect()
}

/// Every phrase of the lists, split into words and filed under its first word, so that one
/// pass over the question's words finds every phrase it contains.
static PHRASES: LazyLock<PhraseIndex> = LazyLock::new(|| {
    let mut index = PhraseIndex::new();
    let mut add = |phrase: &'static str, group: Group| {
        let parts = phrase_words(phrase);
        if let Some(&first) = parts.first() {
            index.entry(first).or_default().push((parts, group));
        }
    };
    for (n, (_, phrases)) in PROTECTED.iter().enumerate() {
        phrases.iter().for_each(|phrase| add(phrase, Group::Protected(n)));
    }
    for (n, (_, phrases)) in PROTECTED_WITH_PEOPLE.iter().enumerate() {
        phrases.iter().for_each(|phrase| add(phrase, Group::WithPeople(n)));
    }
    RANK_VERBS.iter().for_each(|phrase| add(phrase, Group::RankVerb));
    index
});

/// One phrase found in a question: its first word, its length in words, its list.
type Hit = (usize, usize, Group);

/// Every phrase of the lists the words contain: a phrase occurs when its words appear
/// consecutively.
fn hits(words: &[&str]) -> Vec<Hit> {
    let mut found = Vec::new();
    for (at, word) in words.iter().enumerate() {
        let Some(candidates) = PHRASES.get(word) else { continue };
        for (parts, group) in candidates {
            if words.get(at..at + parts.len()).is_some_and(|window| window == parts.as_slice()) {
                found.push((at, parts.len(), *group));
            }
        }
    }
    found
}

/// The first category of `table` whose bit is set in `mask`.
fn first_category(mask: u64, table: &[(&'static str, &[&str])]) -> Option<&'static str> {
    table.iter().enumerate().find(|(n, _)| mask & (1 << n) != 0).map(|(_, (category, _))| *category)
}

// One bit per category.
const _: () = assert!(PROTECTED.len() <= 64 && PROTECTED_WITH_PEOPLE.len() <= 64);

/// The screen over one registry: who a question is about decides whether a protected-sounding
/// word is a person's attribute (refused) or a firm's, a contract's or an award's (allowed).
///
/// People are the built-in people nouns plus, from the registry, the names of the planes that
/// count (`bench`) and their intents' count columns (`candidates`). Firms, contracts and awards
/// are the built-in firm nouns plus the words of the names and output columns of intents on the
/// other planes (`vendor`, `incumbent`, `awards`, `uei`...), general words left out.
#[derive(Debug, Clone)]
pub struct Screen {
    people: BTreeSet<String>,
    /// Nouns a registry's planes declare for the people their rows are about (`people`): their
    /// protected attributes are refused like anyone's, but ranking them (customers by spend)
    /// is the business the plane exists for.
    subjects: BTreeSet<String>,
    firms: BTreeSet<String>,
}

impl Default for Screen {
    /// The built-in vocabulary only.
    fn default() -> Screen {
        Screen {
            people: PEOPLE.iter().flat_map(|it| phrase_words(it)).map(str::to_owned).collect(),
            subjects: BTreeSet::new(),
            firms: FIRMS.iter().chain(SET_ASIDE).map(|&it| it.to_owned()).collect(),
        }
    }
}

impl Screen {
    /// The screen grounded on `registry`'s planes, intent names and columns.
    pub fn new(registry: &Registry) -> Screen {
        let mut screen = Screen::default();
        let mut firm_words = BTreeSet::new();
        for plane in registry.planes() {
            for noun in &plane.people {
                screen.subjects.extend(word_forms(noun));
            }
        }
        for intent in registry.intents() {
            let IntentBody::Query(query) = &intent.body else { continue };
            let plane = registry.plane(query.plane);
            if plane.counts {
                let counted = query.suppression.iter().flat_map(|it| &it.count_columns);
                for &column in counted {
                    if let Some(column) = query.columns.get(column) {
                        screen.people.extend(word_forms(&column.name));
                    }
                }
                screen.people.extend(word_forms(&plane.name));
            } else {
                firm_words.extend(word_forms(&intent.name));
                for column in &query.columns {
                    firm_words.extend(word_forms(&column.name));
                }
            }
        }
        // A column named by a protected word (a ticket's `age_days`) does not make that word a
        // firm's: "requesters by age" stays about the requesters' age.
        let protected_word = |word: &str| {
            PHRASES.get(word).is_some_and(|phrases| {
                phrases.iter().any(|(parts, group)| parts.len() == 1 && *group != Group::RankVerb)
            })
        };
        firm_words.retain(|word| {
            word.len() > 2
                && !protected_word(word)
                && !GENERIC_COLUMN_WORDS.contains(&word.as_str())
                && !GENERIC_COLUMN_WORDS.contains(&word.trim_end_matches('s'))
                && !screen.people.contains(word)
                && !screen.subjects.contains(word)
        });
        screen.firms.extend(firm_words);
        screen
    }

    /// Screens a question whose input shape is valid. `extraction` is the extractors' output
    /// for the same text; agency spans are masked before matching.
    pub fn check(&self, question: &str, extraction: &Extraction) -> Option<Refusal> {
        // A people noun inside a name ("gold members") still says who the question is about,
        // but the name qualifies it: ranking them is ranking the name's rows.
        let noun = |word: &str| self.people.contains(word) || self.subjects.contains(word);
        let (text, kept) = masked(question, extraction, &noun);
        let spans = word_spans(&text);
        let words: Vec<&str> = spans.iter().map(|&(_, word)| word).collect();
        let named: Vec<bool> = spans.iter().map(|(start, _)| kept.contains(start)).collect();
        self.verdict(&words, &named, &hits(&words))
    }

    /// The verdict on a question's words (`named`: said inside a name), given the phrases they
    /// contain.
    fn verdict(&self, words: &[&str], named: &[bool], hits: &[Hit]) -> Option<Refusal> {
        let firm = |word: &&str| self.firms.contains(*word);
        // A people noun followed closely by a firm word modifies it ("staff augmentation
        // vendors", "staffing firms"): the subject is the firm.
        let subject = |at: usize, nouns: &BTreeSet<String>| {
            nouns.contains(words[at]) && !words.iter().skip(at + 1).take(2).any(&firm)
        };
        // `ranked` holds the people nouns whose ranking is refused; `people` adds the plane
        // subjects, whose protected attributes are.
        let ranked: Vec<bool> =
            (0..words.len()).map(|at| !named[at] && subject(at, &self.people)).collect();
        let people: Vec<bool> = (0..words.len())
            .map(|at| subject(at, &self.people) || subject(at, &self.subjects))
            .collect();
        let about_people = people.contains(&true);
        let about_ranked = ranked.contains(&true);
        let about_firms = words.iter().any(firm);
        // "owned by" describes a firm the question names ("vendors owned by women"), not
        // anyone's accounts ("customers owned by Christians").
        let names_firm = words.iter().any(|word| firm(word) && !SET_ASIDE.contains(word));
        // A protected word followed closely by a firm word, no person or relative pronoun
        // between, describes the firm ("women-owned", "veteran set-asides", "disabled veteran
        // businesses"), as does one after "owned by"; "requesters by age who opened tickets" is
        // about the requesters' age.
        // A protected word that a person has ("staff members with a disability", "employees
        // who are veterans") is that person's, whatever follows it.
        let had = |at: usize| {
            let linking = |word: &str| {
                matches!(
                    word,
                    "with" | "who" | "that" | "having" | "are" | "is" | "have" | "has" | "a" | "an"
                )
            };
            (2..=3).any(|back| {
                at >= back
                    && people[at - back]
                    && (at - back + 1..at).all(|position| linking(words[position]))
            })
        };
        let attached = |at: usize, len: usize| {
            if had(at) {
                return false;
            }
            let after = at + len;
            let followed = words
                .iter()
                .enumerate()
                .skip(after)
                .take(ATTACHED_WITHIN)
                .take_while(|(position, word)| {
                    !people[*position] && !matches!(**word, "who" | "whom" | "whose")
                })
                // A firm word just before a person qualifies the person ("the gender of the
                // assigned agent").
                .any(|(position, word)| {
                    firm(word) && !people.get(position + 1).is_some_and(|&p| p)
                });
            followed || (names_firm && at >= 2 && words[at - 2] == "owned" && words[at - 1] == "by")
        };
        let (mut protected, mut with_people) = (0u64, 0u64);
        let mut ranks_people = false;
        for &(at, len, group) in hits {
            match group {
                Group::Protected(n) => {
                    // The age of a contract, an award or a vendor is not a person's age.
                    let of_firms = n == AGE && about_firms && !about_people;
                    if !attached(at, len) && !of_firms {
                        protected |= 1 << n;
                    }
                }
                Group::WithPeople(n) => {
                    // Right after a people noun it is theirs ("requesters over 50 who raise
                    // the most tickets").
                    let theirs = at > 0 && people[at - 1];
                    if about_people && (theirs || !attached(at, len)) {
                        with_people |= 1 << n;
                    }
                }
                // Ranking is refused when what is ranked, the first subject noun after the
                // verb, is people ("rank our TS/SCI candidates for the recompete"), or, with no
                // such noun, when the question is about people and not about firms.
                Group::RankVerb => {
                    let object = words
                        .iter()
                        .enumerate()
                        .skip(at + len)
                        .take(RANKED_WITHIN)
                        .find(|(position, word)| people[*position] || firm(word));
                    ranks_people |= match object {
                        Some((position, _)) => ranked[position],
                        None => about_ranked && !about_firms,
                    };
                }
            }
        }
        if let Some(category) = first_category(protected, PROTECTED) {
            return Some(Refusal::ProtectedAttribute(category));
        }
        if let Some(category) = first_category(with_people, PROTECTED_WITH_PEOPLE) {
            return Some(Refusal::ProtectedAttribute(category));
        }
        // "Rank the vendors" ranks companies, which is allowed.
        if ranks_people {
            return Some(Refusal::RanksPeople);
        }
        // A ranking adjective qualifying a people noun within a few words ("the best TS/SCI
        // candidate"), but not "top secret".
        let qualifies_people = words.iter().enumerate().any(|(i, word)| {
            RANK_ADJECTIVES.contains(word)
                && words.get(i + 1) != Some(&"secret")
                && ranked.iter().skip(i + 1).take(4).any(|&it| it)
        }) || words.windows(3).enumerate().any(|(i, w)| {
            RANK_ADJECTIVES.iter().any(|adjective| adjective.split_once(' ') == Some((w[0], w[1])))
                && ranked[i + 2]
        });
        qualifies_people.then_some(Refusal::RanksPeople)
    }
}

/// How far after a ranking verb the ranked noun is looked for.
const RANKED_WITHIN: usize = 6;

/// The index of the age category in [`PROTECTED`].
const AGE: usize = 6;
const _: () = assert!(matches!(PROTECTED[AGE].0.as_bytes(), b"age"));

/// A name's words (`incumbent_uei` → `incumbent`, `uei`) and their plurals or singulars.
fn word_forms(name: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for word in name.split(|c: char| !c.is_alphanumeric()).filter(|it| !it.is_empty()) {
        let word = word.to_lowercase();
        match word.strip_suffix('s') {
            Some(singular) => forms.push(singular.to_owned()),
            None => forms.push(format!("{word}s")),
        }
        forms.push(word);
    }
    forms
}

/// Whether a mention names something by its own words (an agency, a dictionary value, a quoted
/// name), which say nothing about people: "Veterans Affairs", a shop called "Black Bear Diner".
fn is_name(kind: ParamKind) -> bool {
    match kind {
        ParamKind::Agency => true,
        ParamKind::Declared(declared) => {
            matches!(declared.ty(), KindType::Dictionary | KindType::QuotedText)
        }
        _ => false,
    }
}

/// The lower-cased question with the names (agencies, dictionary values, quoted names) blanked
/// out, but for their words `keep` holds, whose starts are returned too.
fn masked(
    question: &str,
    extraction: &Extraction,
    keep: &dyn Fn(&str) -> bool,
) -> (String, Vec<usize>) {
    let mut text = question.to_lowercase();
    let mut kept = Vec::new();
    if text.len() == question.len() {
        for mention in extraction.params.iter().filter(|it| is_name(it.kind)) {
            let (start, end) = (mention.span.start, mention.span.end);
            let Some(name) = text.get(start..end) else { continue };
            let mut blanked = String::with_capacity(name.len());
            for (at, word) in word_spans(name) {
                blanked.extend(std::iter::repeat_n(' ', at - blanked.len()));
                if keep(word) {
                    kept.push(start + at);
                    blanked.push_str(word);
                } else {
                    blanked.extend(std::iter::repeat_n(' ', word.len()));
                }
            }
            blanked.extend(std::iter::repeat_n(' ', name.len() - blanked.len()));
            text.replace_range(start..end, &blanked);
        }
    }
    (text, kept)
}

/// The words of a lower-cased question: runs of letters and digits.
fn question_words(text: &str) -> Vec<&str> {
    word_spans(text).into_iter().map(|(_, word)| word).collect()
}

/// The words of a text with the byte offsets they start at.
fn word_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                spans.push((from, &text[from..at]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        spans.push((from, &text[from..]));
    }
    spans
}

/// Words that qualify firms or awards by a set-aside programme or an ownership category.
const SET_ASIDE: &[&str] = &[
    "owned",
    "aside",
    "asides",
    "setaside",
    "setasides",
    "hubzone",
    "sdvosb",
    "sdvosbs",
    "vosb",
    "wosb",
    "edwosb",
    "sdb",
    "disadvantaged",
];

/// The qualifiers a question asks for that no param of any registry can apply (params filter by
/// agency, NAICS code, requirement, clearance, compartments, vendor and window only): each is
/// named with what the answer does instead.
pub fn unapplied_qualifiers(question: &str) -> Vec<String> {
    let text = question.to_lowercase();
    let words = question_words(&text);
    let eight_a = words.windows(2).any(|pair| pair == ["8", "a"]);
    if eight_a || words.iter().any(|word| SET_ASIDE.contains(word)) {
        vec![
            "the registry has no set-aside or ownership data: the results are not filtered by \
             set-aside or ownership category"
                .to_owned(),
        ]
    } else {
        Vec::new()
    }
}

/// The screen of the built-in vocabulary, for callers without a registry.
static DEFAULT_SCREEN: LazyLock<Screen> = LazyLock::new(Screen::default);

/// Screens a question with the built-in vocabulary (see [`Screen::check`]; the planner uses
/// the screen of its registry).
pub fn screen(question: &str, extraction: &Extraction) -> Option<Refusal> {
    DEFAULT_SCREEN.check(question, extraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(question: &str) -> Option<&'static str> {
        check_input(question).unwrap();
        screen(question, &planner_extract::extract(question)).map(Refusal::label)
    }

    #[test]
    fn refuses_protected_attributes() {
        for question in [
            "How many of our bench are women?",
            "How many TS/SCI candidates are over 50?",
            "Which cleared engineers were born abroad?",
            "Count bench candidates who are veterans",
            "Break down the bench by race",
            "how many candidates with a disability hold a secret clearance",
            "list candidates by religion",
            "How many of our cleared staff are US citizens by birth?",
            // What a person has is theirs, even with a firm word after it.
            "Which staff with a disability worked on the most Army contracts?",
            "Which candidates who are veterans hold awards with the Navy?",
        ] {
            assert_eq!(check(question), Some("protected_attribute"), "{question}");
        }
    }

    #[test]
    fn refuses_ranking_people() {
        for question in [
            "Rank our TS/SCI candidates for the Army recompete",
            "Who are the best candidates for requirement 6f1c2a4e-1b2c-4d5e-8f90-123456789abc?",
            "score the bench for this requirement",
            "Who is the best TS/SCI candidate on our bench?",
        ] {
            assert_eq!(check(question), Some("ranks_people"), "{question}");
        }
    }

    #[test]
    fn allows_agencies_vendors_and_counts() {
        for question in [
            "How much has the Department of Veterans Affairs spent under NAICS 541512?",
            "Who are the top incumbents for the VA under 541519?",
            "How many of our bench hold TS/SCI with SI/TK?",
            "Who are the top vendors by market share in 541330?",
            "Which candidates fit requirement 6f1c2a4e-1b2c-4d5e-8f90-123456789abc?",
            "What is the agency's spend for the Army in 541512?",
            "How many of our bench hold Top Secret?",
            "How many top secret candidates do we have available now?",
            "Which Army awards over 50 million end in the next 6 months under 541512?",
            "Top vendors by market share in NAICS 541512",
        ] {
            assert_eq!(check(question), None, "{question}");
        }
    }

    /// The phrase matching of [`hits`] written the plain way: every phrase against every
    /// window of words.
    fn hits_plainly(words: &[&str]) -> Vec<Hit> {
        let mut found = Vec::new();
        let lists = PROTECTED
            .iter()
            .enumerate()
            .flat_map(|(n, (_, phrases))| phrases.iter().map(move |it| (*it, Group::Protected(n))))
            .chain(PROTECTED_WITH_PEOPLE.iter().enumerate().flat_map(|(n, (_, phrases))| {
                phrases.iter().map(move |it| (*it, Group::WithPeople(n)))
            }))
            .chain(RANK_VERBS.iter().map(|it| (*it, Group::RankVerb)));
        for (phrase, group) in lists {
            let parts = phrase_words(phrase);
            for (at, window) in words.windows(parts.len()).enumerate() {
                if window == parts.as_slice() {
                    found.push((at, parts.len(), group));
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    #[test]
    fn indexed_phrases_agree_with_plain_matching() {
        let corpus = [
            include_str!("../../../fixtures/eval/dev.jsonl"),
            include_str!("../../../fixtures/eval/dev-late.jsonl"),
            include_str!("../../../fixtures/eval/first-sight.jsonl"),
        ];
        let mut questions: Vec<String> = corpus
            .iter()
            .flat_map(|text| text.lines())
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter_map(|json| json["question"].as_str().map(str::to_owned))
            .collect();
        assert!(questions.len() > 300);
        // Every phrase of every list, alone and inside a question.
        let lists = PROTECTED
            .iter()
            .chain(PROTECTED_WITH_PEOPLE)
            .flat_map(|(_, phrases)| phrases.iter())
            .chain(PEOPLE)
            .chain(FIRMS)
            .chain(SET_ASIDE)
            .chain(RANK_VERBS)
            .chain(RANK_ADJECTIVES);
        for phrase in lists {
            questions.push((*phrase).to_owned());
            questions.push(format!("How many candidates are {phrase}?"));
            questions.push(format!("{phrase} the vendors in 541512 for the Army"));
            questions.push(format!("Which {phrase} staff are cleared"));
        }
        for question in &questions {
            let (text, _) = masked(question, &planner_extract::extract(question), &|_| false);
            let words = question_words(&text);
            let mut indexed = hits(&words);
            indexed.sort_unstable();
            indexed.dedup();
            assert_eq!(indexed, hits_plainly(&words), "{question}");
        }
    }

    #[test]
    fn the_registry_grounds_people_and_firms() {
        let registry = planner_registry::reference::registry().unwrap();
        let screen = Screen::new(&registry);
        for word in ["candidates", "candidate", "bench"] {
            assert!(screen.people.contains(word), "{word}");
        }
        for word in ["vendor", "incumbent", "uei", "piid", "awards", "obligated"] {
            assert!(screen.firms.contains(word), "{word}: {:?}", screen.firms);
        }
        assert!(screen.firms.is_disjoint(&screen.people));
    }

    /// A registry over schema `shop`: the settings, then `body`.
    fn shop_toml(body: &str) -> String {
        format!("[registry]\nnode_cap = 6\ndefault_k = 11\nallowed_schemas = [\"shop\"]\n\n{body}")
    }

    #[test]
    fn a_plane_names_the_people_its_rows_are_about() {
        let text = &shop_toml(
            r#"[planes]
shop = { tenant = false, schemas = ["shop"], people = ["customer"] }

[params]

[[intent]]
name = "top_customers"
description = "The customers who spent the most."
plane = "shop"
sql = "SELECT c.name, c.spent FROM shop.customer AS c ORDER BY c.spent DESC LIMIT 10"
columns = [{ name = "name", type = "text" }, { name = "spent", type = "decimal" }]
"#,
        );
        let registry = Registry::from_toml(text, "shop.toml").unwrap();
        assert_eq!(registry.planes()[0].people, ["customer"]);
        let screen = Screen::new(&registry);
        let check = |question: &str| {
            screen.check(question, &planner_extract::extract(question)).map(Refusal::label)
        };
        // Their protected attributes are refused, as anyone's ...
        assert!(check("Which customers are over 65?").is_some());
        assert!(check("List our customers by religion").is_some());
        // A relative clause after the attribute is about the people, not the column it names.
        assert!(check("List customers by age who spent the most").is_some());
        // ... but ranking them by what they buy is the plane's business.
        assert_eq!(check("Top 10 customers by spend"), None);
        // Without the declaration "customers" is a word of the registry's intents: a firm.
        let plain =
            Registry::from_toml(&text.replace(r#", people = ["customer"]"#, ""), "shop.toml")
                .unwrap();
        let question = "Which customers are over 65?";
        assert_eq!(Screen::new(&plain).check(question, &planner_extract::extract(question)), None);
        // A column named by a protected word does not make the word a firm's.
        let aged = Registry::from_toml(
            &text
                .replace(
                    r#"{ name = "spent", type = "decimal" }"#,
                    r#"{ name = "age_days", type = "int" }"#,
                )
                .replace("SELECT c.name, c.spent FROM", "SELECT c.name, c.age_days FROM"),
            "shop.toml",
        )
        .unwrap();
        let question = "List customers by age";
        assert!(Screen::new(&aged).check(question, &planner_extract::extract(question)).is_some());
        // An age right after them is theirs, whatever firm word follows.
        assert!(check("Which customers over 50 spent the most?").is_some());
    }

    #[test]
    fn a_people_noun_inside_a_name_still_says_who_is_asked_about() {
        let text = &shop_toml(
            r#"[planes]
shop = { tenant = false, schemas = ["shop"] }

[kinds.tier]
type = "dictionary"
label = "tier"
values = [{ value = "gold", aliases = ["gold members"] }]

[params]
tier = { kind = "tier" }

[[intent]]
name = "tier_customers"
description = "Customers in one tier."
plane = "shop"
params = [{ name = "tier" }]
sql = "SELECT c.name FROM shop.customer AS c WHERE c.tier = $1::text"
columns = [{ name = "name", type = "text" }]
"#,
        );
        let registry = Registry::from_toml(text, "shop.toml").unwrap();
        let screen = Screen::new(&registry);
        let check = |question: &str| {
            let extraction = planner_extract::Extractor::new(&registry).extract(question);
            screen.check(question, &extraction).map(Refusal::label)
        };
        assert!(check("How many of our gold members are over 65?").is_some());
        // The name qualifies them: listing or ranking a tier's rows is no ranking of people.
        assert_eq!(check("top 5 gold members"), None);
        assert_eq!(check("List the gold members"), None);
    }

    #[test]
    fn firms_and_contracts_are_never_people() {
        for question in [
            "Which veteran owned firms win Navy 541330 work?",
            "What is the average age of the Army's 541512 contracts?",
            "How old is the incumbent contract at the Army under 541512?",
            "Top 5 staff augmentation vendors at DISA in 541519?",
            "How much did the Army spend with disabled veteran businesses in 541512 last year?",
            "Which service-disabled veteran-owned small businesses hold VA 541512 work?",
            "Market share of women-owned firms in 541330",
            "Which contracts are owned by women at the Army under 541512?",
            "Minority-owned incumbents at HHS under 541611",
        ] {
            assert_eq!(check(question), None, "{question}");
        }
        for question in [
            "How many women on our bench hold TS/SCI?",
            "How old are our Top Secret candidates?",
            "Which of our staff are disabled veterans?",
            "How many of our people are minorities?",
            "How many of our analysts are reservists in the National Guard?",
        ] {
            assert_eq!(check(question), Some("protected_attribute"), "{question}");
        }
    }

    #[test]
    fn set_aside_qualifiers_are_named_as_unapplied() {
        for question in [
            "Top 5 women-owned incumbents at the Army under 541512",
            "Which 8(a) contracts at the VA under 541512 expire next year?",
            "HUBZone awards at DLA in 541614",
        ] {
            assert_eq!(unapplied_qualifiers(question).len(), 1, "{question}");
        }
        assert!(unapplied_qualifiers("Top incumbents at the Army under 541512 in 2018").is_empty());
    }

    #[test]
    fn rejects_bad_input_with_a_reason() {
        assert_eq!(check_input("   "), Err(InputError::Empty));
        assert_eq!(check_input(&"a".repeat(2001)), Err(InputError::TooLong(2001)));
        assert_eq!(check_input("a\u{7}b"), Err(InputError::ControlCharacter(7)));
        assert!(check_input("line one\nline two\t").is_ok());
        assert!(InputError::TooLong(2001).to_string().contains("2000"));
    }
}
