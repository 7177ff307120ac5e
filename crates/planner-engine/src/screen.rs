//! The screen: rejects malformed input and refuses questions about protected attributes or
//! asking to score or rank people, before anything else runs.
//!
//! The guard list follows DOMAIN.md section 6 (EEO, OFCCP and NYC AEDT). Agency names found by
//! the extractors (for example "Department of Veterans Affairs") are masked first, so that an
//! agency is never mistaken for a protected attribute.

use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;
use std::sync::LazyLock;

use planner_extract::Extraction;
use planner_knowledge::{Denotes, Knowledge, Word, is_function_word};
use planner_registry::{IntentBody, KindBody, KindType, ParamKind, Registry};

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
                "this question asks to score, rank or single out individual people; the planner \
                 answers about the business, never with a ranking or score of a person"
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
    (
        "pregnancy",
        &[
            "pregnant",
            "pregnancy",
            "pregnancies",
            "maternity",
            "childbirth",
            "expecting a baby",
            "expecting a child",
        ],
    ),
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
            "green cards",
            "h-1b",
            "h1b",
            "work visa",
            "work visas",
            "work permit",
            "work permits",
            "visa status",
            "immigration",
            "undocumented",
            "illegal immigrants",
            "refugee",
            "refugees",
            "asylum",
            "dual citizenship",
            "dual citizens",
            "accent",
            "accents",
            "visa holders",
            "naturalized",
            "descent",
            "heritage",
            "originally from",
            "ethnic background",
            "country of origin",
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
            "near retirement",
            "nearing retirement",
            "close to retirement",
            "retiring soon",
            "about to retire",
            "of retirement",
            "retirement eligible",
            "eligible to retire",
            "eligible for retirement",
            "millennial",
            "gen x",
            "gen y",
            "generation x",
            "generation z",
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
            "iep",
            "ieps",
            "504 plan",
            "504 plans",
            "ada accommodation",
            "ada accommodations",
            "fmla",
            "wheelchair user",
            "wheelchair users",
            "use wheelchairs",
            "use a wheelchair",
            "uses a wheelchair",
            "in wheelchairs",
            "in a wheelchair",
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
    (
        "genetic information",
        &["genetic", "genetics", "family medical history", "family history", "dna", "hereditary"],
    ),
    (
        "veteran or military status",
        &[
            "veteran",
            "veterans",
            "vets",
            "veteran status",
            "military status",
            "served in the military",
            "ex-military",
            "ex army",
            "ex navy",
            "ex marine",
            "ex marines",
            "former army",
            "former navy",
            "former military",
            "military family",
            "military families",
            "military spouse",
            "military spouses",
            "active duty",
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
    (
        "marital or family status",
        &[
            "married",
            "marital",
            "single parent",
            "single parents",
            "single mom",
            "single moms",
            "single mother",
            "single mothers",
            "single dad",
            "single dads",
            "single father",
            "single fathers",
            "divorced",
            "widowed",
            "family status",
        ],
    ),
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
            "young",
            "old",
        ],
    ),
    ("marital or family status", &["children", "kids", "parents"]),
    ("pregnancy", &["expecting"]),
    ("genetic information", &["gene", "genes", "mutation", "mutations", "genome"]),
];

/// Verbs that ask to score or rank.
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
    "pick",
    "choose",
    "nominate",
    "evaluate",
    "stack-rank",
    "stack rank",
    "leaderboard",
    "scorecard",
];

/// Words that rank what they qualify ("the best drivers", "top 10 reps") and superlatives of
/// measure ("the most late loads", "the fewest complaints"); an adjective WordNet knows whose
/// `-est` form a question writes ("slowest", "busiest") ranks too.
const RANK_ADJECTIVES: &[&str] = &[
    "best",
    "worst",
    "strongest",
    "weakest",
    "top",
    "bottom",
    "most",
    "least",
    "fewest",
    "highest",
    "lowest",
    "ideal",
];

/// The decisions about a worker that a ranking serves (NYC Local Law 144's employment
/// decisions): said of workers, they make the question a request to pick individuals out.
const EMPLOYMENT_DECISIONS: &[&[&str]] = &[
    &["let", "go"],
    &["lay", "off"],
    &["laid", "off"],
    &["layoff"],
    &["layoffs"],
    &["fire"],
    &["terminate"],
    &["promote"],
    &["promotion"],
    &["promotions"],
    &["bonus"],
    &["bonuses"],
    &["discipline"],
    &["demote"],
    // A performance improvement plan and its words.
    &["pip"],
    &["pips"],
    &["improvement", "plan"],
    &["improvement", "plans"],
    &["performance", "plan"],
    &["stipend"],
    &["reprimand"],
    &["name", "and", "shame"],
    &["spiff"],
    &["spiffs"],
];

/// Idioms that single out one of a team ("a dead weight"): said of
/// words that may name workers, they pick individuals out; said of schools or a department,
/// they rank things.
const SINGLING_OUT: &[&[&str]] = &[
    &["weakest", "link"],
    &["dragging", "the", "team", "down"],
    &["carrying", "the", "team"],
    &["dead", "weight"],
    &["deadweight"],
    &["underperformer"],
    &["underperformers"],
    &["low", "performers"],
    &["top", "performers"],
];

/// The first words of [`EMPLOYMENT_DECISIONS`]: a question's word is compared with the phrases
/// only when one starts with it.
static DECISION_STARTS: LazyLock<HashSet<&'static str, FixedState>> = LazyLock::new(|| {
    EMPLOYMENT_DECISIONS.iter().filter_map(|phrase| phrase.first().copied()).collect()
});

/// How far after a protected word its noun phrase is looked for ("veteran-owned small
/// businesses", "disabled veteran contractors").
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
type PhraseIndex = HashMap<&'static str, Vec<(Vec<&'static str>, Group)>, FixedState>;

/// A phrase's words: hyphens separate words, as in questions.
fn phrase_words(phrase: &'static str) -> Vec<&'static str> {
    phrase.split([' ', '-']).filter(|it| !it.is_empty()).collect()
}

/// Every phrase of the lists, split into words and filed under its first word, so that one
/// pass over the question's words finds every phrase it contains.
static PHRASES: LazyLock<PhraseIndex> = LazyLock::new(|| {
    let mut index = PhraseIndex::default();
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

/// How the screen reads one word of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A function word, a verb, an unknown word.
    Other,
    /// Something other than people: a noun whose senses are mostly things, a word of the
    /// registry's intents or kinds, an ownership word.
    Thing,
    /// People who are not, by this word, a workforce: customers, guests, students.
    Person,
    /// People of a workforce (drivers, nurses, candidates) or people as such: ranking or scoring
    /// them is refused.
    Worker,
}

impl Role {
    fn is_people(self) -> bool {
        matches!(self, Role::Person | Role::Worker)
    }
}

/// A set of lower-case words, looked up by every word of every question: one foldhash of a
/// short word (no order is ever read from it, so answers stay deterministic).
type Words = HashSet<String, FixedState>;

/// The screen over one registry: who a question is about decides whether a protected-sounding
/// word is a person's attribute (refused) or a thing's (allowed), and whether a ranking ranks
/// workers (refused) or things and customers (allowed).
///
/// Who denotes people comes from general knowledge ([`Knowledge`], WordNet's nouns for people
/// and its hypernyms for who works), whatever the registry says; the registry adds:
/// - the people its planes declare (`people`): people whose ranking is the plane's business, or
///   a workforce on a plane declared `workforce`;
/// - the names and counted columns of planes that count (`bench`, `candidates`): a workforce;
/// - the words of its intents' names and kinds' labels: things it ranks or looks up (a
///   freight registry's `carrier`, the reference registry's `incumbent`), whose ranking is its
///   business even where English has a person sense for them.
#[derive(Debug, Clone)]
pub struct Screen {
    knowledge: &'static Knowledge,
    /// Declared people of planes that are not a workforce (retail's `customer`).
    subjects: Words,
    /// People the registry says are a workforce: counting planes' names and counted columns,
    /// and the declared people of `workforce` planes.
    workers: Words,
    /// Words of intent names and kind labels: what the registry returns, ranks or looks up.
    things: Words,
}

impl Default for Screen {
    /// General knowledge only.
    fn default() -> Screen {
        Screen {
            knowledge: Knowledge::english(),
            subjects: Words::default(),
            workers: Words::default(),
            things: Words::default(),
        }
    }
}

impl Screen {
    /// The screen grounded on `registry`'s planes, intents and kinds.
    pub fn new(registry: &Registry) -> Screen {
        let mut screen = Screen::default();
        // The nouns the registry declares for people at work, as written.
        let mut declared_workers: Words = Words::default();
        for plane in registry.planes() {
            // A compound names people by its head: an "account holder" is a person, an
            // "account" is not.
            let nouns = plane.people.iter().flat_map(|noun| {
                word_forms(noun.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or(noun))
            });
            for noun in nouns {
                // A plane's people are its business to rank (customers), unless the plane is a
                // workforce or the noun names people at work (a registry declaring its
                // surgeons does not make ranking them its business) and the plane does not say
                // its rows are no workforce (a cooperative's member farmers, `workforce = false`).
                let works = plane.workforce != Some(false)
                    && screen.knowledge.noun(&noun).is_some_and(|it| it.may_be_worker());
                if plane.is_workforce() || plane.counts || works {
                    declared_workers.insert(noun.clone());
                    screen.workers.insert(noun);
                } else {
                    screen.subjects.insert(noun);
                }
            }
        }
        for intent in registry.intents() {
            let IntentBody::Query(query) = &intent.body else {
                screen.things.extend(word_forms(&intent.name));
                continue;
            };
            let plane = registry.plane(query.plane);
            if plane.counts {
                // A counted column names whom it counts by a word that may be people, or one
                // English does not know ("techs"); its other words say how they are counted
                // ("part_time", "headcount"), and a "part" or a "time" is no one.
                let knowledge = screen.knowledge;
                let whom = |word: &String| {
                    knowledge
                        .noun(word)
                        .map_or(knowledge.word(word).is_none(), |noun| noun.may_be_person())
                };
                let counted = query.suppression.iter().flat_map(|it| &it.count_columns);
                for &column in counted {
                    if let Some(column) = query.columns.get(column) {
                        screen.workers.extend(word_forms(&column.name).into_iter().filter(whom));
                    }
                }
                screen.workers.extend(word_forms(&plane.name));
            } else {
                screen.things.extend(word_forms(&intent.name));
            }
        }
        for kind in registry.kinds() {
            screen.things.extend(word_forms(&kind.label));
            // A code kind's cue words are the nouns of the things its codes name (a "coach"
            // of a vehicle number is a bus, whatever English's first sense of it is); a cue
            // of several words names its thing by its last. A noun English knows only as
            // people ("employee" of an employee number) stays people, and so does every cue
            // of a kind whose label names people (a "driver" number's "operator").
            let knowledge = screen.knowledge;
            let label_head = kind.label.split_whitespace().next_back().unwrap_or_default();
            let people_label =
                knowledge.noun(label_head).is_some_and(|noun| noun.denotes() != Denotes::Thing);
            if let KindBody::Code { cues, .. } = &kind.body
                && !people_label
            {
                let thing = |head: &&str| {
                    head.chars().all(char::is_alphabetic)
                        && knowledge.noun(head).is_none_or(|noun| noun.has_thing_sense())
                };
                let heads = cues.iter().filter_map(|cue| cue.split_whitespace().next_back());
                for head in heads.filter(thing) {
                    screen.things.extend(word_forms(head));
                }
            }
        }
        let aliases = workforce_aliases(registry, &declared_workers, &screen.things);
        screen.workers.extend(aliases);
        let trades = trade_plurals(registry, screen.knowledge, &screen.things);
        screen.workers.extend(trades);
        // A word of a name that is a protected word (a `veteran_awards` intent) or a declared
        // person stays what it is.
        let protected_word = |word: &str| {
            PHRASES.get(word).is_some_and(|phrases| {
                phrases.iter().any(|(parts, group)| parts.len() == 1 && *group != Group::RankVerb)
            })
        };
        let (subjects, workers) = (&screen.subjects, &screen.workers);
        screen.things.retain(|word| {
            word.len() > 2
                && !protected_word(word)
                && !subjects.contains(word)
                && !workers.contains(word)
        });
        screen
    }

    /// Screens a question whose input shape is valid. `extraction` is the extractors' output
    /// for the same text; names (agencies, dictionary values, quoted names) are masked first.
    pub fn check(&self, question: &str, extraction: &Extraction) -> Option<Refusal> {
        // A people noun inside a name ("gold members") still says who the question is about,
        // but the name qualifies it: ranking them is ranking the name's rows.
        // The registry's own people are kept even where the word is a protected phrase's, and
        // so is an animal's noun ("dogs" of a species list): it says whom a protected word is
        // said of, and an animal is no person.
        let animal = |word: &str| self.knowledge.noun(word).is_some_and(|noun| noun.is_animal());
        let noun = |word: &str| {
            self.workers.contains(word)
                || self.subjects.contains(word)
                || (self.role(word).is_people() && !PHRASES.contains_key(word))
                || animal(word)
        };
        // A name of one word that is the registry's workforce ("techs", a role) says who.
        let workforce = |word: &str| self.workers.contains(word) || animal(word);
        // A value of one word that may be a verb, before a determiner or a particle, is what
        // someone does ("which cook wastes the most", a kind of loss), not the value.
        let verb = |word: &str, after: &str| {
            let next = after.split(|c: char| !c.is_alphanumeric()).find(|it| !it.is_empty());
            verb_before_object(self.knowledge, word, next)
        };
        let (text, kept, names) = masked(question, extraction, (&noun, &workforce, &verb));
        // Each name wholly blanked stands in the words as one [`NAME`], a thing.
        let mut spans = word_spans(&text);
        spans.extend(names.iter().map(|&start| (start, NAME)));
        // A chat abbreviation of time closing a clause in lower case says when, not who ("...
        // at the north site rn": right now, not a registered nurse).
        spans.retain(|&(start, word)| {
            let written = question.get(start..start + word.len()).unwrap_or("");
            let after = question.get(start + word.len()..).unwrap_or("");
            let closes =
                after.trim_start().is_empty() || after.starts_with(['?', '.', '!', ',', ';']);
            !(closes && CHAT_TIME.contains(&written))
        });
        spans.sort_by_key(|&(start, _)| start);
        let words: Vec<&str> = spans.iter().map(|&(_, word)| word).collect();
        let named: Vec<bool> = spans.iter().map(|(start, _)| kept.contains(start)).collect();
        // A trade's abbreviation written in capitals and made plural ("CSMs", "CRNAs").
        let acronyms: Vec<bool> = spans
            .iter()
            .map(|&(start, word)| {
                let original = question.get(start..start + word.len()).unwrap_or("");
                let capitals = original.bytes().filter(u8::is_ascii_uppercase).count();
                let plural = original.ends_with('s') && original.len() == capitals + 1;
                capitals >= 2 && plural
            })
            .collect();
        // Where a sentence ends: after a word followed by `?`, `!`, `;` or a full stop that
        // no digit follows ("over 55? worried about...": "worried" is no unit of the 55).
        let ends: Vec<bool> = (0..spans.len())
            .map(|at| {
                let (start, word) = spans[at];
                // Positions in the lower-case text, which may be longer than the question.
                let until = spans.get(at + 1).map_or(text.len(), |&(next, _)| next);
                let gap = text.get(start + word.len()..until).unwrap_or("");
                let digit_after = text
                    .get(until..)
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
                gap.contains(['?', '!', ';']) || (gap.contains('.') && !digit_after)
            })
            .collect();
        // A compound written with a hyphen that the knowledge knows joined or spaced
        // ("money-makers", "write-ups") is read as one noun, at its last word.
        let compounds: Vec<Option<String>> = (0..spans.len())
            .map(|at| {
                let (start, word) = spans[at];
                let (before, previous) = *spans.get(at.checked_sub(1)?)?;
                let hyphen = question.get(before + previous.len()..start) == Some("-");
                let known = |compound: &str| {
                    self.knowledge.noun(compound).is_some_and(|it| it.usually_noun())
                };
                if !hyphen {
                    return None;
                }
                [format!("{previous}{word}"), format!("{previous} {word}")]
                    .into_iter()
                    .find(|compound| known(compound))
            })
            .collect();
        // A word the registry declares as a plane's people names those people, not an
        // attribute of them: the "vets" of a veterinary registry's staff are no veterans.
        let mut hits = hits(&words);
        hits.retain(|&(at, len, group)| {
            let declared =
                len == 1 && (self.workers.contains(words[at]) || self.subjects.contains(words[at]));
            !(declared && matches!(group, Group::Protected(_) | Group::WithPeople(_)))
        });
        self.verdict(&words, &named, (&acronyms, &ends), &compounds, &hits)
    }

    /// What one lower-case word denotes, out of context.
    fn role(&self, word: &str) -> Role {
        self.role_of(word, self.knowledge.noun(word))
    }

    /// [`Screen::role`] given the word's noun reading (looked up once per question word).
    fn role_of(&self, word: &str, noun: Option<Word<'static>>) -> Role {
        if word == NAME {
            return Role::Thing;
        }
        if self.workers.contains(word) {
            return Role::Worker;
        }
        if self.subjects.contains(word) {
            return Role::Person;
        }
        if word.len() < 2 || is_function_word(word) || is_number(word) {
            return Role::Other;
        }
        if is_set_aside(word) {
            return Role::Thing;
        }
        match noun {
            Some(noun) if noun.usually_noun() || plural_noun(word, &noun) => match noun.denotes() {
                Denotes::Worker => Role::Worker,
                Denotes::Person => Role::Person,
                Denotes::Thing => Role::Thing,
            },
            _ if self.things.contains(word) => Role::Thing,
            None if practitioner(word) && self.knowledge.word(word).is_none() => Role::Worker,
            _ => Role::Other,
        }
    }

    /// Whether a plural abbreviation in capitals (`acronym`) is one neither the knowledge nor
    /// the registry knows ("CSMs", "CRNAs"): it may name people, and the screen fails safe where
    /// ranking or an age would be asked of them. A singular one ("ED", "OTP") is as often a
    /// place or a measure: it is not enough.
    fn unknown_plural(&self, word: &str, acronym: bool) -> bool {
        acronym && !self.things.contains(word) && self.knowledge.word(word).is_none()
    }

    /// Whether ranking what `word` names ranks workers: the registry's workforce, a noun with a
    /// real sense of someone at work (a "bus operator", a "support agent", a "dispatcher"), or
    /// an unknown plural, unless the registry ranks it (the reference registry's incumbents) or
    /// declares it people whose ranking is its business (retail's customers).
    fn ranks_workers(
        &self,
        word: &str,
        noun: Option<Word<'static>>,
        role: Role,
        acronym: bool,
    ) -> bool {
        if self.workers.contains(word) {
            return true;
        }
        if self.things.contains(word)
            || self.subjects.contains(word)
            || word.len() < 2
            || is_function_word(word)
            || is_number(word)
        {
            return false;
        }
        role == Role::Worker
            || noun.is_some_and(|noun| {
                (noun.usually_noun() || plural_noun(word, &noun)) && noun.may_be_worker()
            })
            || self.unknown_plural(word, acronym)
    }

    /// The verdict on a question's words (`named`: said inside a name), given the phrases they
    /// contain.
    fn verdict(
        &self,
        words: &[&str],
        named: &[bool],
        (acronyms, ends): (&[bool], &[bool]),
        compounds: &[Option<String>],
        hits: &[Hit],
    ) -> Option<Refusal> {
        let reading = Reading::new(self, words, named, (acronyms, ends), compounds);
        let (mut protected, mut with_people) = (0u64, 0u64);
        let mut ranks_people = false;
        for &(at, len, group) in hits {
            match group {
                // A participle after its subject is an action ("the room we disabled").
                Group::Protected(_)
                    if len == 1
                        && words[at].ends_with("ed")
                        && at > 0
                        && SUBJECT_PRONOUNS.contains(&words[at - 1]) => {}
                Group::Protected(n) => {
                    // The age of a contract, an award or an invoice is not a person's age (but a
                    // birth or a generation is only people's).
                    let born = n == AGE && AGE_OF_PEOPLE.contains(&&words[at..at + len]);
                    // A person noun right before it says whose it is ("by patient age").
                    let possessed = at > 0 && reading.roles[at - 1].is_people();
                    let of_things = n == AGE
                        && !born
                        && !possessed
                        && reading.about_things
                        && !reading.about_people;
                    if born || (!reading.attached(at, len, PROTECTED[n].0) && !of_things) {
                        protected |= 1 << n;
                    }
                }
                Group::WithPeople(n) => {
                    // Right after people it is theirs ("requesters over 50 who raise the most
                    // tickets"), and after an unknown plural that may be people ("which CSMs are
                    // over 50").
                    let theirs = reading.theirs(at);
                    let category = PROTECTED_WITH_PEOPLE[n].0;
                    let attached = reading.attached(at, len, category);
                    // Children are a family status only as someone's ("staff with kids"), not
                    // as whom the question counts ("how many kids in grade 2").
                    let had = category != "marital or family status" || reading.had_by(at);
                    if (theirs || reading.about_people && !attached) && had {
                        with_people |= 1 << n;
                    }
                }
                // Ranking is refused when what is ranked, the head of the phrase after the verb,
                // is workers ("rank our crane operators"), or a pronoun for the people the question
                // is about ("rank them"), or, with no such phrase, when the question is about
                // workers and not about things.
                Group::RankVerb => {
                    let pronoun = words.get(at + len).is_some_and(|it| PRONOUNS.contains(it));
                    // A participle after what it ranks: "phlebotomists ranked by draws".
                    let participle = words[at].ends_with("ed") && at > 0 && reading.ranked[at - 1];
                    ranks_people |= match reading.head_after(at + len) {
                        _ if participle => true,
                        _ if pronoun => reading.about_people,
                        Some(head) => reading.ranked[head],
                        None => reading.about_ranked && !reading.about_things,
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
        if reading.age_given() {
            return Some(Refusal::ProtectedAttribute("age"));
        }
        if let Some(category) = reading.said_of_people() {
            return Some(Refusal::ProtectedAttribute(category));
        }
        if ranks_people || reading.picks_out_workers() {
            return Some(Refusal::RanksPeople);
        }
        None
    }
}

/// What a name (an agency, a dictionary value, a quoted name) stands as among a question's words
/// once blanked: a thing. No question word can be it (words are letters and digits).
const NAME: &str = "<name>";

/// Invariant 5's warning for a registry that does not say: an intent of a plane not declared
/// `workforce = true` nor `workforce = false` that returns rows ranked (`ORDER BY`, `LIMIT`, a
/// ranking window function) under a name that general English says denotes people at work
/// ("top_drivers", "best_nurses"). Each warning names the intent and says what to declare.
pub fn workforce_warnings(registry: &Registry) -> Vec<String> {
    let knowledge = Knowledge::english();
    let mut warnings = Vec::new();
    for intent in registry.intents() {
        let IntentBody::Query(query) = &intent.body else { continue };
        let plane = registry.plane(query.plane);
        if plane.workforce.is_some() || plane.counts || !planner_registry::ranks_rows(&query.sql) {
            continue;
        }
        let workers = intent.name.split('_').find(|word| {
            !plane.people.iter().any(|noun| noun == word || word.strip_suffix('s') == Some(noun))
                && knowledge
                    .noun(word)
                    .is_some_and(|noun| noun.usually_noun() && noun.denotes() == Denotes::Worker)
        });
        if let Some(word) = workers {
            warnings.push(format!(
                "intent `{}` returns rows ranked, and its name says they are {word}, people at \
                 work: ranking or scoring individual workers is an automated employment decision. \
                 If plane `{}` holds the user's workforce, declare `workforce = true` (the intent \
                 is then rejected unless the plane counts); if its rows are not people at work, \
                 declare `workforce = false`",
                intent.name, plane.name
            ));
        }
    }
    warnings
}

/// Personal pronouns a ranking verb may take for the people the question is about.
const PRONOUNS: &[&str] = &["them", "him", "her", "everyone", "everybody"];

/// Pronouns that are the subject of the verb after them.
const SUBJECT_PRONOUNS: &[&str] =
    &["i", "we", "you", "they", "he", "she", "someone", "who", "that"];

/// Nouns for a figure computed over a dimension ("a racial breakdown", "a gender split by team"): a
/// protected word before them is the dimension, not a thing's attribute.
const STATISTICS: &[&str] = &[
    "breakdown",
    "split",
    "distribution",
    "mix",
    "makeup",
    "composition",
    "share",
    "percentage",
    "proportion",
    "ratio",
    "count",
    "counts",
    "number",
    "numbers",
    "headcount",
    "rate",
    "rates",
    "demographics",
    "profile",
    "makeup",
    "balance",
    "representation",
];

/// The owners' categories a firm is described by ("women-owned", "minority-owned", "veteran
/// set-asides", "disabled-veteran-owned"): those the public programmes for small
/// businesses recognise. "Owned by Christians" describes the owners, not a firm.
const OWNERSHIP: &[&str] = &[
    "race or ethnicity",
    "sex or gender",
    "veteran or military status",
    "disability or medical condition",
];

/// Categories only people have: their words describe no thing but through ownership
/// ("LGBTQ-owned").
const ONLY_PEOPLE: &[&str] = &[
    "pregnancy",
    "sexual orientation or gender identity",
    "national origin or citizenship",
    "genetic information",
    "complaint or retaliation history",
];

/// Colour words that name a race when they qualify people ("Black students").
const RACE_COLOURS: &[&str] = &["black", "white", "brown"];

/// Words of what a person sounds or looks like, or is called: after a word of origin, a proxy
/// for national origin.
const ORIGIN_PROXIES: &[&str] =
    &["sounding", "looking", "name", "names", "surname", "surnames", "accent", "accents"];

/// Verbs that link a subject to an adjective ("the lift that was disabled").
const LINKING: &[&str] = &[
    "is", "was", "were", "are", "been", "be", "being", "become", "becomes", "becoming", "became",
    "get", "got", "gets", "getting", "gotten",
];

fn is_number(word: &str) -> bool {
    word.bytes().next().is_some_and(|it| it.is_ascii_digit())
}

/// One question as the screen reads it: each word's role, who is people, who is ranked.
struct Reading<'a> {
    screen: &'a Screen,
    words: &'a [&'a str],
    roles: Vec<Role>,
    /// People said as the subject of their phrase: a people noun not modifying the thing right
    /// after it ("client files", "the incumbent contract").
    people: Vec<bool>,
    /// People whose ranking is refused (see [`Screen::ranks_workers`]), outside names.
    ranked: Vec<bool>,
    about_people: bool,
    about_ranked: bool,
    about_things: bool,
    /// A thing other than an ownership word: what "owned by" can be said of.
    names_thing: bool,
    /// Which words were plural abbreviations in capitals.
    acronyms: &'a [bool],
    /// Which words end a sentence.
    ends: &'a [bool],
    /// Each word's noun reading ([`Knowledge::noun`]).
    nouns: Vec<Option<Word<'static>>>,
}

/// `roles` with the antecedent of each "who", "whom" or "whose" read as people where the noun
/// has a person sense: English refers to people with "who" ("the contacts at the vendor who
/// are over 60": contacts are people there). The antecedent is the word before the pronoun, or
/// before a short prepositional phrase ending at it.
fn relative_antecedents(
    words: &[&str],
    nouns: &[Option<Word<'static>>],
    mut roles: Vec<Role>,
) -> Vec<Role> {
    for pronoun in 1..words.len() {
        if !matches!(words[pronoun], "who" | "whom" | "whose") {
            continue;
        }
        let at = antecedent(words, pronoun);
        if roles[at].is_people() {
            continue;
        }
        if let Some(noun) = nouns[at].filter(|it| it.may_be_person()) {
            roles[at] = if noun.may_be_worker() { Role::Worker } else { Role::Person };
        }
    }
    roles
}

/// The word a relative pronoun at `pronoun` (> 0) refers to: the word before it, or before a
/// short prepositional phrase ending at it ("the contacts at the vendor who").
fn antecedent(words: &[&str], pronoun: usize) -> usize {
    let preposition = (pronoun.saturating_sub(4)..pronoun)
        .rev()
        .find(|&at| matches!(words[at], "at" | "in" | "from" | "of" | "on" | "with" | "for"));
    match preposition {
        Some(at) if at > 0 => at - 1,
        _ => pronoun - 1,
    }
}

impl<'a> Reading<'a> {
    fn new(
        screen: &'a Screen,
        words: &'a [&'a str],
        named: &[bool],
        (acronyms, ends): (&'a [bool], &'a [bool]),
        compounds: &[Option<String>],
    ) -> Reading<'a> {
        // A compound's role is at its last word; its first word is part of it.
        let lexeme = |at: usize| compounds[at].as_deref().unwrap_or(words[at]);
        // Each word's noun reading, looked up once: the rules below ask it many times.
        // A function word or a number has none that counts.
        let nouns: Vec<Option<Word<'static>>> = words
            .iter()
            .map(|word| {
                let content = word.len() >= 2 && !is_number(word) && !is_function_word(word);
                content.then(|| screen.knowledge.noun(word)).flatten()
            })
            .collect();
        let noun_of = |at: usize| match &compounds[at] {
            Some(compound) => screen.knowledge.noun(compound),
            None => nouns[at],
        };
        let roles: Vec<Role> = (0..words.len())
            .map(|at| match compounds.get(at + 1) {
                Some(Some(_)) => Role::Other,
                _ => screen.role_of(lexeme(at), noun_of(at)),
            })
            .collect();
        let roles = relative_antecedents(words, &nouns, roles);
        let role = |at: usize| roles.get(at).copied().unwrap_or(Role::Other);
        // Only a singular person noun modifies ("client files"); a plural before a noun
        // is its subject ("pupils walking to class").
        // A possessor is no subject either ("the holder's lease").
        // A plural that may be a verb, before a determiner or a particle, is what its subject
        // does ("which cook wastes the most food", "which server racks up the most voids"):
        // the word before it is its subject, not a modifier.
        let verb_after = |at: usize| {
            words.get(at + 1).is_some_and(|next| {
                verb_before_object(screen.knowledge, next, words.get(at + 2).copied())
            })
        };
        let modifier = |at: usize| {
            let singular = || nouns[at].is_none_or(|noun| noun.lemma() == words[at]);
            (role(at + 1) == Role::Thing && singular() && !verb_after(at))
                || (words.get(at + 1) == Some(&"s")
                    && role(at + 2) == Role::Thing
                    && words.get(at + 2).is_some_and(|it| !PHRASES.contains_key(it)))
        };
        let people: Vec<bool> =
            (0..words.len()).map(|at| role(at).is_people() && !modifier(at)).collect();
        // A name qualifies the people it ends in ("gold members" are the tier's rows), but
        // the registry's own workforce stays its workforce inside a name ("maintenance
        // technicians" of a list of roles): ranking them ranks people at work.
        let ranked: Vec<bool> = (0..words.len())
            .map(|at| {
                (!named[at] || screen.workers.contains(lexeme(at)))
                    && !modifier(at)
                    && (people[at] || role(at) != Role::Person)
                    && !matches!(compounds.get(at + 1), Some(Some(_)))
                    && screen.ranks_workers(lexeme(at), noun_of(at), roles[at], acronyms[at])
            })
            .collect();
        let mut reading = Reading {
            screen,
            words,
            // Both set once the factors are known, below.
            about_people: false,
            about_ranked: false,
            about_things: roles.contains(&Role::Thing),
            names_thing: (0..words.len())
                .any(|at| roles[at] == Role::Thing && !is_set_aside(words[at])),
            acronyms,
            ends,
            roles,
            people,
            ranked,
            nouns,
        };
        for at in 0..words.len() {
            if (reading.ranked[at] || reading.people[at]) && reading.factor(at) {
                reading.ranked[at] = false;
                reading.people[at] = false;
            }
        }
        reading.about_people = reading.people.contains(&true);
        reading.about_ranked = (0..words.len()).any(|at| reading.ranked[at] && reading.people[at]);
        reading
    }

    /// Whether the noun at `at` is a factor, not a person: a noun with a sense that is no
    /// person, followed by "of" and an abstract noun
    /// (an act, an attribute, a communication, a possession, a state, a process: WordNet's
    /// lexicographer files), as in "the main driver of cost"; people are "of" a group,
    /// a place or a thing ("drivers of the night shift", "operators of route 42").
    fn factor(&self, at: usize) -> bool {
        // Only a noun with a sense that is no person can be one ("driver", not "user").
        let thing_sense = self.noun(at).is_some_and(|noun| noun.has_thing_sense());
        if self.words.get(at + 1) != Some(&"of") || !thing_sense {
            return false;
        }
        let Some(head) = self.head_after(at + 2).filter(|&head| head <= at + 5) else {
            return false;
        };
        !self.people[head]
            && self.noun(head).is_some_and(|noun| {
                let top = noun.senses().first().map_or(0, |it| it.lexfile);
                noun.denotes() == Denotes::Thing
                    && matches!(top, 4 | 7 | 9 | 10 | 11 | 12 | 21 | 22 | 26)
            })
    }

    /// The noun reading of the word at `at`.
    fn noun(&self, at: usize) -> Option<Word<'static>> {
        self.nouns.get(at).copied().flatten()
    }

    fn knowledge(&self) -> &'static Knowledge {
        self.screen.knowledge
    }

    /// Whether the word at `at` can go on a noun phrase: a content word that is no number and
    /// no verb alone ("tracking" can, "work" in "women work" cannot).
    fn in_phrase(&self, at: usize) -> bool {
        let word = self.words[at];
        if word.len() < 2 || is_function_word(word) || is_number(word) {
            return false;
        }
        match self.knowledge().word(word) {
            Some(known) => {
                known.usually_noun() || known.is_adjective() || self.roles[at] != Role::Other
            }
            None => self.knowledge().verb(word).is_none(),
        }
    }

    /// The head of the noun phrase starting at or after `from`: past determiners, numbers and
    /// function words, the last word of the run of phrase words.
    fn head_after(&self, from: usize) -> Option<usize> {
        let mut start = (from..self.words.len()).take(4).find(|&at| self.in_phrase(at))?;
        let mut head = start;
        // A participle after the phrase's first word starts a clause ("requesters raising P1
        // tickets"); as its first word it modifies ("tracking feed").
        let participle = |at: usize| {
            let word = self.words[at];
            (word.ends_with("ing") || word.ends_with("ed")) && self.knowledge().verb(word).is_some()
        };
        loop {
            while head + 1 < self.words.len()
                && head + 1 - start < 4
                && self.in_phrase(head + 1)
                && !participle(head + 1)
            {
                head += 1;
            }
            // A possessor is the phrase's determiner: "last year's hires" is headed by the
            // hires.
            if self.words.get(head + 1) == Some(&"s")
                && head + 2 < self.words.len()
                && self.in_phrase(head + 2)
            {
                start = head + 2;
                head = start;
                continue;
            }
            break;
        }
        // The head is a noun: the run's last word that can be one ("which cashier sold": not
        // "sold").
        while head > start
            && self.roles[head] == Role::Other
            && self.knowledge().word(self.words[head]).is_some_and(|it| !it.is_noun())
        {
            head -= 1;
        }
        Some(head)
    }

    /// Whether the word at `at` is had or been by someone: "with", "have", "their", "are"...
    /// one or two words before it.
    fn had_by(&self, at: usize) -> bool {
        (1..=2).any(|back| {
            at >= back
                && matches!(
                    self.words[at - back],
                    "with" | "have" | "has" | "having" | "had" | "their" | "are" | "is" | "without"
                )
        })
    }

    /// Whether the word at `position` may be people: people, or an unknown plural abbreviation.
    fn may_be_people(&self, position: usize) -> bool {
        self.people[position]
            || self.screen.unknown_plural(self.words[position], self.acronyms[position])
    }

    /// The subject a linking verb before `at` predicates of: the head of the question's first
    /// phrase when it opens with "which", "what" or "how many" ("which customers in the
    /// Southeast are Hispanic"), else the noun before the verb, past the prepositional phrases
    /// after it ("the technicians on the service desk are").
    fn subject_of(&self, at: usize) -> Option<usize> {
        let words = self.words;
        let mut back = at;
        while back > 0
            && (LINKING.contains(&words[back - 1]) || matches!(words[back - 1], "a" | "an"))
        {
            back -= 1;
        }
        if back == at || back == 0 || !words[back..at].iter().any(|word| LINKING.contains(word)) {
            return None;
        }
        let opens = words.first().is_some_and(|first| matches!(*first, "which" | "what"))
            || words.starts_with(&["how", "many"]);
        let first = self.head_after(1).filter(|&head| head < back);
        if let Some(head) =
            first.filter(|&head| opens && (self.roles[head] != Role::Other || self.acronyms[head]))
        {
            return Some(head);
        }
        let mut subject = back - 1;
        if matches!(words[subject], "that" | "which" | "who") && subject > 0 {
            subject = antecedent(words, subject);
        }
        loop {
            let mut start = subject;
            while start > 0 && matches!(words[start - 1], "the" | "a" | "an" | "our" | "their") {
                start -= 1;
            }
            let preposition = start >= 2
                && matches!(
                    words[start - 1],
                    "in" | "on" | "at" | "from" | "of" | "for" | "across" | "with" | "under"
                );
            if !preposition {
                return Some(subject);
            }
            subject = start - 2;
        }
    }

    /// Whether an age phrase at `at` follows people, or an unknown plural, directly or through
    /// a linking verb ("which AEs are over 50").
    fn theirs(&self, at: usize) -> bool {
        (at > 0 && self.may_be_people(at - 1))
            || self.subject_of(at).is_some_and(|subject| self.may_be_people(subject))
    }

    /// Whether a protected phrase at `at` (of `len` words) describes a thing, not people: an
    /// ownership word after it ("women-owned") or "owned by" before it where the question names
    /// a thing; a thing it is said of ("the room was disabled"); a person noun ("veterans")
    /// modifying the noun right after it ("veteran contractors", "women's shoes"); an adjective
    /// ("disabled", "aged") whose noun phrase ends in a thing ("a disabled tracking feed",
    /// "aged payables"); a noun whose possessor is a thing ("the age of a contract"). What a
    /// person has ("staff with a disability") is theirs, and so is a figure of people over the
    /// dimension ("a racial breakdown of our staff", "a gender split by team").
    fn attached(&self, at: usize, len: usize, category: &str) -> bool {
        let words = self.words;
        let linking = |word: &str| {
            matches!(
                word,
                "with" | "who" | "that" | "having" | "are" | "is" | "have" | "has" | "a" | "an"
            )
        };
        let after = at + len;
        // An owner's category describes the business owned, whoever is said to be it
        // ("vendors that are veteran-owned").
        if OWNERSHIP.contains(&category) {
            let owned_by = at >= 2 && words[at - 2] == "owned" && words[at - 1] == "by";
            let owned = words.iter().skip(after).take(ATTACHED_WITHIN).any(|it| is_set_aside(it));
            if (self.names_thing && owned_by) || owned {
                return true;
            }
        }
        let had = (2..=3).any(|back| {
            at >= back
                && self.people[at - back]
                && (at - back + 1..at).all(|position| linking(words[position]))
        });
        if had {
            return false;
        }
        // A race against something, or to the finish, is a contest (WordNet's sense of an
        // act); "by race for each store" is the attribute.
        let next = |n: usize| words.get(after + n).copied();
        if matches!(words[at..after], ["race" | "races"])
            && (next(0) == Some("against") || (next(0) == Some("to") && next(1) == Some("the")))
        {
            return true;
        }
        // A part or a holding, not people: "the minority of renewals", "a minority stake"
        // (WordNet's possession nouns: share, stake, holding).
        if matches!(words[at..after], ["minority" | "majority"]) {
            let possession = |word: &str| {
                self.knowledge()
                    .noun(word)
                    .is_some_and(|noun| noun.senses().first().is_some_and(|it| it.lexfile == 21))
            };
            if words.get(after).is_some_and(|next| *next == "of" || possession(next)) {
                return true;
            }
        }
        // A lemma of its own that holds the phrase names its own thing ("maternity ward",
        // "sick leave", "race track").
        let phrase = words[at..after].join(" ");
        // A state or an attribute ("marital status", "mental health") is the attribute itself.
        let lemma = |compound: &str| {
            self.knowledge().noun(compound).is_some_and(|noun| {
                let top = noun.senses().first().map_or(0, |it| it.lexfile);
                noun.denotes() == Denotes::Thing && !noun.is_medical() && !matches!(top, 7 | 26)
            })
        };
        // Genetic information is a person's whatever the lemma names (a genetic test panel).
        let genetic = category == "genetic information";
        if !genetic
            && (words.get(after).is_some_and(|next| lemma(&format!("{phrase} {next}")))
                || (at > 0 && lemma(&format!("{} {phrase}", words[at - 1]))))
        {
            return true;
        }
        // Said of animals, it is theirs, not a person's ("pregnant mares", "senior dogs",
        // "neutered male cats"): the noun it qualifies, past other qualifiers, names an animal.
        let animal = (after..words.len())
            .take(3)
            .take_while(|&position| self.in_phrase(position))
            .any(|position| self.noun(position).is_some_and(|noun| noun.is_animal()));
        if animal {
            return true;
        }
        if ONLY_PEOPLE.contains(&category) {
            return false;
        }
        // Right after a thing, it says what the thing is ("invoices older than 60 days", "a
        // route that is chronically late"); a person's it would be after people.
        // A name before it ("customers in the Midwest over 65") is where, not what.
        // A linking verb ("getting", which WordNet also knows as a noun) is no thing.
        if at > 0
            && self.roles[at - 1] == Role::Thing
            && !LINKING.contains(&words[at - 1])
            && self
                .knowledge()
                .noun(words[at - 1])
                .is_some_and(|noun| noun.usually_noun() && !noun.may_be_person())
        {
            return true;
        }
        // Said of a thing through a linking verb: "the room was disabled", "the bus that was
        // disabled", "products that are a minority share"; not of what may be people ("station
        // agents are Hispanic").
        if let Some(subject) = self.subject_of(at) {
            let may_be_person = self.noun(subject).is_some_and(|noun| noun.may_be_person())
                || self.may_be_people(subject);
            // A word the knowledge does not know that may not be people is a thing ("the VPN
            // got disabled").
            let unknown = self.roles[subject] == Role::Other
                && !self.may_be_people(subject)
                && self.knowledge().word(words[subject]).is_none();
            return (self.roles[subject] == Role::Thing && !may_be_person)
                || unknown
                || is_number(words[subject]);
        }
        let last = words[after - 1];
        let known = self.knowledge().word(last);
        let person_noun =
            self.knowledge().noun(last).is_some_and(|noun| noun.denotes() != Denotes::Thing);
        // An attribute's own noun ("race", "disability", "age") is a thing's only as the thing's
        // ("the age of a contract"): before a noun it names the attribute ("a disability
        // accommodation", "the age bracket").
        let attribute_noun =
            !person_noun && known.is_some_and(|it| it.usually_noun() && !it.is_adjective());
        let mut position = after;
        if attribute_noun && words.get(position) != Some(&"of") {
            return false;
        }
        // A part of things: "a minority of routes", "the majority of invoices".
        if person_noun && words.get(after) == Some(&"of") {
            let head = self.head_after(after + 1);
            return head.is_some_and(|head| {
                self.roles[head] == Role::Thing && !self.people[head] && head <= after + 4
            });
        }
        if person_noun {
            // A person noun modifies only a noun right after it (past a possessive's `s`).
            position += usize::from(words.get(position) == Some(&"s"));
            let modifies = words.get(position).is_some_and(|word| {
                !is_function_word(word)
                    && !is_number(word)
                    && self.knowledge().noun(word).is_none_or(|noun| noun.usually_noun())
            });
            if !modifies {
                return false;
            }
        } else if words.get(position) == Some(&"of") {
            position += 1;
            while words.get(position).is_some_and(|word| {
                matches!(*word, "the" | "a" | "an" | "our" | "their" | "each" | "every" | "this")
            }) {
                position += 1;
            }
        }
        // The phrase's words: none may be people; its head, the last, decides.
        let mut head = None;
        for offset in (position..words.len()).take(ATTACHED_WITHIN) {
            if !self.in_phrase(offset) {
                break;
            }
            if self.people[offset] {
                return false;
            }
            head = Some(offset);
        }
        let Some(head) = head else { return false };
        // A figure over people: "... breakdown of our account executives".
        let of_people = matches!(
            words.get(head + 1),
            Some(&("of" | "among" | "for" | "across" | "in" | "by" | "on"))
        ) && (head + 2..words.len()).take(4).any(|position| self.people[position]);
        // "Aged" before a thing is the thing's ageing, an accounting sense ("aged receivables
        // for our customers"): whose things they are does not make it people's age.
        let ageing = category == "age" && words[at..after] == ["aged"];
        if (of_people && !ageing) || STATISTICS.contains(&words[head]) {
            return false;
        }
        match self.noun(head) {
            // A state or an attribute is the protected attribute itself ("a genetic condition",
            // "racial composition").
            Some(noun) => {
                let top = noun.senses().first().map_or(0, |it| it.lexfile);
                !noun.is_medical() && !matches!(top, 7 | 26) && self.roles[head] != Role::Person
            }
            None => true,
        }
    }

    /// Whether the question gives people an age: "over", "under", "above" or "below" and a
    /// number a person's age can be (16 to 99), no unit after it, said of people ("the periop
    /// staff over 55", "which AEs are over 50").
    fn age_given(&self) -> bool {
        let words = self.words;
        (0..words.len().saturating_sub(1)).any(|at| {
            let bound = matches!(words[at], "over" | "under" | "above" | "below" | "aged");
            if !bound {
                return false;
            }
            let age = words[at + 1].parse::<u32>().is_ok_and(|it| (16..=99).contains(&it));
            // A unit is in the number's sentence.
            let unit = words.get(at + 2).is_some_and(|next| {
                !self.ends[at + 1] && !is_function_word(next) && self.noun(at + 2).is_some()
            });
            // Said of a noun with a person sense ("how many of the welders are over 60").
            let of_person = || {
                self.subject_of(at).is_some_and(|subject| {
                    self.noun(subject).is_some_and(|noun| noun.may_be_person())
                })
            };
            age && !unit
                && (self.theirs(at) || of_person() || (self.about_people && !self.about_things))
        })
    }

    /// Whether a word of origin from the knowledge file ("Mexican", "Asian", "Spaniards") is
    /// said of people: before them, as them, or of them through a linking verb. A language
    /// before people at work is what they teach or speak ("English teachers").
    fn origin_of_people(&self) -> bool {
        // Every reading below is said of a word of people: without one, no look-up.
        if !self.people.contains(&true) {
            return false;
        }
        let words = self.words;
        let origin =
            |at: usize| self.screen.knowledge.word(words[at]).filter(|word| word.is_origin());
        (0..words.len()).any(|at| {
            let Some(word) = origin(at) else { return false };
            let before = words.get(at + 1).is_some_and(|_| self.people[at + 1])
                && !(word.may_be_language() && self.roles[at + 1] == Role::Worker);
            let plural = self.people[at] && words[at].ends_with('s');
            let said = at > 0
                && LINKING.contains(&words[at - 1])
                && self.subject_of(at).is_some_and(|subject| self.people[subject]);
            // A person's name, accent or looks said to be of an origin stand for it
            // ("Spanish-sounding surnames", "Asian-looking", "an Indian accent").
            let proxy = self.about_people
                && words.iter().skip(at + 1).take(3).any(|next| ORIGIN_PROXIES.contains(next));
            before || plural || said || proxy
        })
    }

    /// A protected attribute said of people in words the phrase lists do not hold: an illness
    /// or a disability by its name ("heart disease", "diabetes"), from the knowledge file, and a
    /// colour that names a race before people ("Black students").
    fn said_of_people(&self) -> Option<&'static str> {
        let words = self.words;
        // Before people ("Black students") or said of them ("whose CEO is Black").
        let colour = (0..words.len()).any(|at| {
            RACE_COLOURS.contains(&words[at])
                && (words.get(at + 1).is_some_and(|_| self.people[at + 1])
                    || at > 0
                        && LINKING.contains(&words[at - 1])
                        && self.subject_of(at).is_some_and(|subject| self.people[subject]))
        });
        if colour {
            return Some("race or ethnicity");
        }
        if self.origin_of_people() {
            return Some("national origin or citizenship");
        }
        if !self.about_people {
            return None;
        }
        let content = |word: &str| word.len() >= 2 && !is_number(word) && !is_function_word(word);
        let medical = |at: usize| {
            let single = self.noun(at);
            // A lemma of two words holds two content words ("heart disease").
            let pair = words
                .get(at + 1)
                .filter(|next| content(words[at]) && content(next))
                .and_then(|next| self.knowledge().noun_pair(words[at], next));
            pair.or(single).is_some_and(|noun| noun.is_medical() && noun.usually_noun())
        };
        let medical = (0..words.len())
            .any(|at| medical(at) && !self.attached(at, 1, "disability or medical condition"));
        medical.then_some("disability or medical condition")
    }

    /// Whether the question picks individual workers out: a ranking word before them ("the
    /// best TS/SCI candidate", "top 10 forklift operators"), a superlative asked of workers who open
    /// the question ("which dispatchers let the most late loads through"), a measure broken down
    /// by each of them ("on-time rate by driver", "each ward clerk"), or an employment decision
    /// asked of them or of "who" ("who to let go", "for bonuses").
    fn picks_out_workers(&self) -> bool {
        let words = self.words;
        // A ranking word, but not "top secret", nor a bound ("at least", "at most").
        let ranking = |at: usize| {
            let word = words[at];
            (RANK_ADJECTIVES.contains(&word) || self.screen.superlative(word))
                && words.get(at + 1) != Some(&"secret")
                && !(at > 0 && words[at - 1] == "at")
        };
        let ranked_head = |from: usize| self.head_after(from).is_some_and(|head| self.ranked[head]);
        // A superlative after a thing that has it ranks that thing by a count of what follows
        // ("parts with the most defect reports", "sites that had the most SKUs", "routes with
        // the most drivers"): no one is ranked.
        // Likewise a superlative person noun said of a thing through a linking verb is that
        // thing's figure of speech ("which accounts are our biggest earners").
        let thing = |at: usize| {
            self.roles[at] == Role::Thing
                && !self.people[at]
                && !self.may_be_people(at)
                && self.noun(at).is_some_and(|noun| !noun.may_be_person())
        };
        let ranks_things_by = |at: usize| {
            let mut back = at;
            while back > 0 && matches!(words[back - 1], "the" | "our" | "their" | "its" | "my") {
                back -= 1;
            }
            if let Some(subject) = self.subject_of(back) {
                return thing(subject);
            }
            if back == 0 || !matches!(words[back - 1], "with" | "has" | "have" | "had" | "having") {
                return false;
            }
            back -= 1;
            back -= usize::from(back > 0 && matches!(words[back - 1], "that" | "which"));
            back > 0 && thing(back - 1)
        };
        let qualifies =
            (0..words.len()).any(|at| ranking(at) && !ranks_things_by(at) && ranked_head(at + 1));
        // Workers as the head of the question's first phrase, a superlative after them.
        let first = (0..words.len()).find(|&at| self.roles[at] != Role::Other);
        // After an opening "which" or "what", the words up to the first function word are
        // what is asked for ("which welders finish the fewest jobs", not "which manuals do
        // mechanics open most"); a later "which" opens a question of its own ("who is busiest?
        // which scheduler closed the most tickets").
        let asked_after = |wh: usize| {
            let mut start = wh + 1;
            if words.get(start) == Some(&"of") {
                start += 1;
                while words.get(start).is_some_and(|it| {
                    matches!(*it, "the" | "our" | "my" | "your" | "their" | "all")
                }) {
                    start += 1;
                }
            }
            (start..words.len())
                .take(4)
                .take_while(|&at| !is_function_word(words[at]))
                .find(|&at| self.ranked[at])
        };
        let opening = matches!(words.first(), Some(&("which" | "what")));
        let mut whoms: Vec<usize> = if opening {
            asked_after(0).into_iter().collect()
        } else {
            first
                .map(|at| self.head_after(at).unwrap_or(at))
                .filter(|&head| self.ranked[head])
                .into_iter()
                .collect()
        };
        whoms.extend((1..words.len()).filter(|&at| words[at] == "which").filter_map(asked_after));
        let subject_ranked = whoms.iter().any(|&whom| {
            (whom + 1..words.len()).any(|later| ranking(later) && words[later] != "top")
        });
        // A superlative in a clause said of workers: "the support engineers with the lowest
        // scores", "reps who closed the fewest deals".
        let described = (0..words.len()).any(|at| {
            self.ranked[at]
                && (at + 1..words.len()).take(6).any(|later| {
                    ranking(later)
                        && words[at + 1..later]
                            .iter()
                            .any(|it| matches!(*it, "with" | "who" | "that" | "whose"))
                })
        });
        // "by driver", "each rep", "every nurse", "individual agents"; not the agent of a
        // passive verb ("owned by women", "handled by dispatchers").
        let passive = |at: usize| {
            at > 0
                && (words[at - 1].ends_with("ed") || words[at - 1].ends_with("en"))
                && self.knowledge().verb(words[at - 1]).is_some()
        };
        let each = (0..words.len()).any(|at| {
            let cue = match words[at] {
                "by" => !passive(at),
                "each" | "every" | "individual" => true,
                _ => false,
            };
            cue && ranked_head(at + 1)
        });
        let asks_who = words.iter().any(|word| matches!(*word, "who" | "whom" | "which"));
        // Said of workers, of who, of any people, or of any plural that may name people at work
        // ("which principals should go on a PIP").
        let plural = |at: usize| self.noun(at).is_some_and(|noun| plural_noun(words[at], &noun));
        let decision = (self.about_ranked
            || asks_who
            || self.about_people
            || (0..words.len()).any(|at| self.ranked[at] && plural(at)))
            && (0..words.len()).any(|at| {
                DECISION_STARTS.contains(words[at])
                    && EMPLOYMENT_DECISIONS.iter().any(|phrase| words[at..].starts_with(phrase))
            });
        // An idiom that singles out one of a team is about people when it is said of workers,
        // of "who", or of what "which" asks for that is no thing (jargon for a trade: "which
        // para is dragging the team down"); "which route is the weakest link" ranks a thing.
        let idiom = SINGLING_OUT
            .iter()
            .any(|phrase| words.windows(phrase.len()).any(|window| window == *phrase));
        let asked_no_thing = |at: usize| {
            (at + 1..words.len())
                .take(3)
                .find(|&later| {
                    !matches!(words[later], "the" | "our" | "of" | "my" | "your")
                        && !is_number(words[later])
                })
                .is_some_and(|asked| self.roles[asked] != Role::Thing)
        };
        let who = words.iter().any(|word| matches!(*word, "who" | "whom" | "whos"));
        let singled_out = idiom
            && (self.ranked.contains(&true)
                || who
                || (0..words.len()).any(|at| words[at] == "which" && asked_no_thing(at)));
        qualifies || subject_ranked || described || each || decision || singled_out
    }
}

impl Screen {
    /// Whether `word` is the superlative of an adjective ("slowest", "busiest", "latest" is not
    /// a ranking of people but of time, and says nothing of whom).
    fn superlative(&self, word: &str) -> bool {
        let Some(stem) = word.strip_suffix("est").filter(|it| it.len() >= 2) else { return false };
        if matches!(
            word,
            "latest"
                | "earliest"
                | "interest"
                | "request"
                | "guest"
                | "forest"
                | "contest"
                | "harvest"
                | "suggest"
                | "invest"
                | "protest"
                | "honest"
                | "modest"
                | "rest"
                | "test"
                | "west"
                | "best"
        ) {
            return false;
        }
        let adjective = |base: &str| self.knowledge.word(base).is_some_and(|it| it.is_adjective());
        adjective(stem)
            || adjective(&format!("{stem}e"))
            || stem.strip_suffix('i').is_some_and(|it| adjective(&format!("{it}y")))
            || stem.len() > 2
                && stem.as_bytes()[stem.len() - 1] == stem.as_bytes()[stem.len() - 2]
                && adjective(&stem[..stem.len() - 1])
    }
}

/// Whether `word` is the plural of `noun`, a lemma no verb shares: English adjectives take no
/// plural, so "seniors", "principals" and "locals" are nouns whatever their lemma's most
/// frequent part of speech ("rates", "works" may be verbs).
fn plural_noun(word: &str, noun: &Word<'_>) -> bool {
    word != noun.lemma() && word.ends_with('s') && !noun.is_verb()
}

/// Whether a word WordNet does not know is, by its suffix, a practitioner: English forms the
/// names of trades and specialists with -ist and -ician ("hospitalist", "phlebotomists",
/// "dietician"), and a screen fails safe on a trade newer than its dictionary. A compound of
/// "list" ("waitlist") is a list.
fn practitioner(word: &str) -> bool {
    let singular = word.strip_suffix('s').unwrap_or(word);
    let lists = ["waitlist", "playlist", "wishlist", "watchlist", "blacklist", "pricelist"];
    (singular.ends_with("ist") || singular.ends_with("ician"))
        && singular.len() >= 7
        && !lists.contains(&singular)
}

/// The age words only people have: a birth, a generation. The others a thing has too (an
/// invoice's age, an aged receivable, a bus near retirement).
const AGE_OF_PEOPLE: &[&[&str]] = &[
    &["millennial"],
    &["gen", "x"],
    &["gen", "y"],
    &["generation", "x"],
    &["generation", "z"],
    &["date", "of", "birth"],
    &["birth", "date"],
    &["birthdate"],
    &["born", "before"],
    &["born", "after"],
    &["millennials"],
    &["boomers"],
    &["gen", "z"],
];

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

/// The words that open a verb's object or complete a phrasal verb: after a plural that may be a
/// verb ("wastes the most", "racks up"), they say it is one.
const OPEN_AN_OBJECT: &[&str] =
    &["the", "a", "an", "our", "their", "his", "her", "its", "my", "up", "out", "off", "down"];

/// Whether `word`, a form in -s that may be a verb, is one because `next` opens its object or
/// completes it ([`OPEN_AN_OBJECT`]).
fn verb_before_object(knowledge: &Knowledge, word: &str, next: Option<&str>) -> bool {
    word.ends_with('s')
        && next.is_some_and(|next| OPEN_AN_OBJECT.contains(&next))
        && knowledge.verb(word).is_some()
}

/// Chat abbreviations of time that are also nouns of people or things: "rn" (right now, or a
/// registered nurse), "atm" (at the moment, or a cash machine).
const CHAT_TIME: &[&str] = &["rn", "atm"];

/// The lower-cased question with the names (agencies, dictionary values, quoted names) blanked
/// out, but for the last word of a name of several words (or the word of a name of one where
/// `keep_alone` holds) where `keep` holds, whose starts are returned, then the starts of the
/// names wholly blanked. A name of one word `verb` holds for (given the text after it) is left
/// as written.
#[expect(clippy::type_complexity, reason = "three predicates, named where they are used")]
fn masked(
    question: &str,
    extraction: &Extraction,
    (keep, keep_alone, verb): (
        &dyn Fn(&str) -> bool,
        &dyn Fn(&str) -> bool,
        &dyn Fn(&str, &str) -> bool,
    ),
) -> (String, Vec<usize>, Vec<usize>) {
    let mut text = question.to_lowercase();
    let mut kept = Vec::new();
    let mut names = Vec::new();
    if text.len() == question.len() {
        for mention in extraction.params.iter().filter(|it| is_name(it.kind)) {
            let (start, end) = (mention.span.start, mention.span.end);
            let Some(name) = text.get(start..end) else { continue };
            let mut blanked = String::with_capacity(name.len());
            let words = word_spans(name);
            // A value of one word that `verb` says is a verb there is no name at all.
            if let [(_, word)] = words[..]
                && verb(word, question.get(end..).unwrap_or(""))
            {
                continue;
            }
            // Only a name of several words whose last word is kept says who ("gold members");
            // a name of one word is the proper name of a thing ("Army"), unless `keep_alone`
            // keeps it.
            let alone = |last: usize| last == 0 && keep_alone(words[0].1);
            let last = words.len().checked_sub(1).filter(|&last| last > 0 || alone(last));
            if last.is_none_or(|last| !keep(words[last].1)) {
                names.push(start);
            }
            for (n, (at, word)) in words.into_iter().enumerate() {
                blanked.extend(std::iter::repeat_n(' ', at - blanked.len()));
                if Some(n) == last && keep(word) {
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
    (text, kept, names)
}

/// The last words of every way a dictionary value is written when one of them names people
/// the registry declares at work: the other ways name the same people ("techs" of a role
/// written "field technicians"), unless the registry makes the word a thing (the
/// "roles" of "all roles", a role list labelled "staff role").
fn workforce_aliases(registry: &Registry, workers: &Words, things: &Words) -> Vec<String> {
    let mut found = Vec::new();
    for entry in named_entries(registry) {
        let heads: Vec<&str> = entry
            .aliases
            .iter()
            .filter_map(|alias| alias.words.last())
            .map(String::as_str)
            .collect();
        if heads.iter().any(|head| workers.contains(*head)) {
            let thing = |head: &&str| things.contains(*head) && !workers.contains(*head);
            found
                .extend(heads.iter().filter(|head| !thing(head)).flat_map(|head| word_forms(head)));
        }
    }
    found
}

/// Every value of the registry's dictionary and list kinds.
fn named_entries(registry: &Registry) -> impl Iterator<Item = &planner_registry::Entry> {
    registry.kinds().iter().flat_map(|kind| match &kind.body {
        KindBody::Dictionary { entries, .. } | KindBody::List { entries, .. } => entries.as_slice(),
        _ => &[],
    })
}

/// The values written as the people of a trade, in the plural ("carpenters" of a trade
/// dictionary whose value is "carpentry"): a value is a thing, but a plural whose senses are
/// mostly people at work names those people, so "the top 10 carpenters by hours" ranks
/// individuals, not the trade. A word the registry makes a thing stays one.
fn trade_plurals(registry: &Registry, knowledge: &Knowledge, things: &Words) -> Vec<String> {
    let words = named_entries(registry).flat_map(|entry| &entry.aliases).filter_map(|alias| {
        let [word] = &alias.words[..] else { return None };
        Some(word.as_str())
    });
    let mut found: Vec<String> = words
        .filter(|word| {
            let plural = knowledge
                .noun(word)
                .is_some_and(|noun| noun.lemma() != *word && noun.denotes() == Denotes::Worker);
            plural && !things.contains(*word)
        })
        .map(str::to_owned)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
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

/// [`SET_ASIDE`] as a set: the screen asks it of every content word.
static SET_ASIDE_WORDS: LazyLock<HashSet<&'static str, FixedState>> =
    LazyLock::new(|| SET_ASIDE.iter().copied().collect());

fn is_set_aside(word: &str) -> bool {
    SET_ASIDE_WORDS.contains(word)
}

/// The qualifiers a question asks for that no param of any registry can apply (params filter by
/// agency, NAICS code, requirement, clearance, compartments, vendor and window only): each is
/// named with what the answer does instead.
pub fn unapplied_qualifiers(question: &str) -> Vec<String> {
    let text = question.to_lowercase();
    let words = question_words(&text);
    let eight_a = words.windows(2).any(|pair| pair == ["8", "a"]);
    if eight_a || words.iter().any(|word| is_set_aside(word)) {
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
        static REFERENCE: LazyLock<Screen> =
            LazyLock::new(|| Screen::new(&planner_registry::reference::registry().unwrap()));
        REFERENCE.check(question, &planner_extract::extract(question)).map(Refusal::label)
    }

    /// Lower case can be longer than the question ("İ" is three bytes lower case, two as
    /// written): where sentences end is read on the lower-case text, and nothing panics.
    #[test]
    fn sentence_ends_are_read_where_lower_case_grows() {
        assert_eq!(check("İİİ how many analysts are over 55? İ ok"), Some("protected_attribute"));
        assert_eq!(check("İstanbul ౘ\u{0130}. 55? ౘ"), None);
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

    /// An idiom that singles out one of a team is about people when said of "who" or of what
    /// "which" asks for that is no thing, whatever trade jargon names them.
    #[test]
    fn singling_out_one_of_a_team_is_refused_unless_said_of_things() {
        for question in [
            "who's the weakest link among the circulators",
            "which circulator is dragging the team down",
        ] {
            assert_eq!(check(question), Some("ranks_people"), "{question}");
        }
        assert_eq!(check("which 3 awards are the weakest link in 541512"), None);
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
            let (text, _, _) = masked(
                question,
                &planner_extract::extract(question),
                (&|_| false, &|_| false, &|_, _| false),
            );
            let words = question_words(&text);
            let mut indexed = hits(&words);
            indexed.sort_unstable();
            indexed.dedup();
            assert_eq!(indexed, hits_plainly(&words), "{question}");
        }
    }

    #[test]
    fn the_registry_grounds_workers_and_things() {
        let registry = planner_registry::reference::registry().unwrap();
        let screen = Screen::new(&registry);
        for word in ["candidates", "candidate", "bench"] {
            assert_eq!(screen.role(word), Role::Worker, "{word}");
        }
        for word in ["awards", "uei", "naics"] {
            assert_eq!(screen.role(word), Role::Thing, "{word}");
        }
        // The registry's intents return and rank incumbents and vendors: English says they are
        // people, and the registry makes ranking them its business.
        for word in ["incumbent", "incumbents", "vendor"] {
            assert!(screen.role(word).is_people() && screen.things.contains(word), "{word}");
        }
        // Without the registry, English alone.
        let plain = Screen::default();
        assert_eq!(plain.role("incumbents"), Role::Worker);
        assert_eq!(plain.role("drivers"), Role::Worker);
        assert_eq!(plain.role("customers"), Role::Person);
        assert_eq!(plain.role("invoices"), Role::Thing);
        assert_eq!(plain.role("the"), Role::Other);
    }

    /// A code kind's cue words are the nouns of its things: the registry's "coach" is a bus,
    /// not a trainer, while a noun English knows only as people stays people.
    #[test]
    fn a_code_kinds_cue_words_name_things() {
        let text = shop_toml(
            r#"[planes]
shop = { tenant = false, schemas = ["shop"] }

[kinds.vehicle]
type = "code"
shape = "V-9999"
cues = ["vehicle", "coach", "employee"]

[kinds.badge]
type = "code"
label = "driver"
shape = "D-9999"
cues = ["driver", "operator"]

[params]
vehicle = { kind = "vehicle" }
badge = { kind = "badge" }

[[intent]]
name = "vehicle_detail"
description = "One vehicle's record."
plane = "shop"
sql = "SELECT v.make FROM shop.vehicle AS v WHERE v.id = $1::text"
params = [{ name = "vehicle" }]
columns = [{ name = "make", type = "text" }]

[[intent]]
name = "badge_detail"
description = "One badge's record."
plane = "shop"
sql = "SELECT b.make FROM shop.badge AS b WHERE b.id = $1::text"
params = [{ name = "badge" }]
columns = [{ name = "make", type = "text" }]
"#,
        );
        let registry = Registry::from_toml(&text, "shop.toml").unwrap();
        let screen = Screen::new(&registry);
        let check = |question: &str| {
            screen.check(question, &planner_extract::extract(question)).map(Refusal::label)
        };
        assert_eq!(check("pull up the record for our oldest coach"), None);
        // Without the registry, a coach is a trainer first.
        let plain = Screen::default();
        let question = "pull up the record for our oldest coach";
        assert!(plain.check(question, &planner_extract::extract(question)).is_some());
        // "employee" has no sense that is a thing: ranking employees stays refused.
        assert_eq!(check("rank our employees by overtime"), Some("ranks_people"));
        // The cues of a kind labelled by people stay people.
        assert_eq!(check("rank our operators by overtime"), Some("ranks_people"));
    }

    /// The screen of the registry `text` with its own extractors: a question's refusal label.
    fn registry_check(text: &str) -> impl Fn(&str) -> Option<&'static str> {
        let registry = Registry::from_toml(text, "shop.toml").unwrap();
        let screen = Screen::new(&registry);
        let extractor = planner_extract::Extractor::new(&registry);
        move |question| screen.check(question, &extractor.extract(question)).map(Refusal::label)
    }

    /// A registry over schema `shop`: the settings, then `body`.
    fn shop_toml(body: &str) -> String {
        format!("[registry]\nnode_cap = 6\ndefault_k = 11\nallowed_schemas = [\"shop\"]\n\n{body}")
    }

    /// A word a plane declares as its people names them, not a protected attribute of them:
    /// a veterinary registry's "vets" are its veterinarians, counted and never ranked, not
    /// veterans; a role value of that word stays people inside the name.
    #[test]
    fn a_declared_people_word_is_those_people_not_a_protected_word() {
        let text = &shop_toml(
            r#"[planes]
staff = { tenant = false, counts = true, workforce = true, schemas = ["shop"], people = ["vet", "technician"] }

[kinds.role]
type = "dictionary"
label = "staff role"
values = [{ value = "veterinarian", aliases = ["vets", "vet"] }, { value = "technician" }]

[params]
role = { kind = "role" }

[[intent]]
name = "staff_headcount"
description = "Staff counts by role."
plane = "staff"
sql = "SELECT s.role, count(*) AS staff FROM shop.staff AS s WHERE s.role = $1::text GROUP BY s.role"
params = [{ name = "role" }]
columns = [{ name = "role", type = "text" }, { name = "staff", type = "int" }]
suppression = { k = 3, count_columns = ["staff"] }
"#,
        );
        let check = registry_check(text);
        assert_eq!(check("How many vets work here?"), None);
        assert_eq!(check("Top 3 vets by number of dentals"), Some("ranks_people"));
        assert_eq!(check("rank our vets by revenue"), Some("ranks_people"));
        assert!(check("how many vets are over 60").is_some());
        // Without the declaration, "vets" are veterans.
        assert!(
            Screen::default()
                .check(
                    "How many vets work here?",
                    &planner_extract::extract("How many vets work here?")
                )
                .is_some()
        );
    }

    /// A plane's people who are people at work by their noun ("farmers") are a workforce,
    /// never ranked, unless the plane says its rows are none (`workforce = false`): a
    /// cooperative ranks its member farmers by what they deliver.
    #[test]
    fn a_plane_saying_it_is_no_workforce_ranks_its_people() {
        let toml = |workforce: &str| {
            shop_toml(&format!(
                r#"[planes]
shop = {{ tenant = false, schemas = ["shop"], people = ["farmer"]{workforce} }}

[params]

[[intent]]
name = "top_suppliers"
description = "Suppliers ranked by bushels delivered."
plane = "shop"
sql = "SELECT s.name, sum(s.bushels) AS bushels FROM shop.deliveries AS s GROUP BY s.name ORDER BY bushels DESC LIMIT 10"
columns = [{{ name = "name", type = "text" }}, {{ name = "bushels", type = "decimal" }}]
"#
            ))
        };
        let question = "top 5 farmers by bushels delivered";
        let (members, undeclared) = (toml(", workforce = false"), toml(""));
        let check = registry_check(&members);
        assert_eq!(check(question), None);
        assert_eq!(registry_check(&undeclared)(question), Some("ranks_people"));
        // Their protected attributes are still refused.
        assert!(check("how many of our farmers are over 65").is_some());
    }

    /// A value written as the people of a trade, in the plural, names those people: ranking
    /// "the top 10 carpenters" ranks individuals, though the value (the trade) is a thing and
    /// the plane declares no people; counting them, or ranking the trades, is not refused.
    #[test]
    fn a_trade_written_as_its_people_names_them() {
        let text = &shop_toml(
            r#"[planes]
shop = { tenant = false, schemas = ["shop"] }

[kinds.trade]
type = "dictionary"
label = "trade"
values = [{ value = "carpentry", aliases = ["carpenters"] }, { value = "electrical", aliases = ["electricians"] }]

[params]
trade = { kind = "trade" }

[[intent]]
name = "trade_hours"
description = "Labor hours by trade."
plane = "shop"
sql = "SELECT h.trade, sum(h.hours) AS hours FROM shop.hours AS h WHERE h.trade = $1::text GROUP BY h.trade"
params = [{ name = "trade" }]
columns = [{ name = "trade", type = "text" }, { name = "hours", type = "decimal" }]
"#,
        );
        let check = registry_check(text);
        assert_eq!(check("top 10 carpenters by hours logged last month"), Some("ranks_people"));
        assert_eq!(check("rank the electricians by overtime"), Some("ranks_people"));
        assert_eq!(check("How many carpenters were on our jobs in Q2?"), None);
        assert_eq!(check("carpentry hours by month"), None);
        assert_eq!(check("which trade logged the most hours"), None);
    }

    /// A protected word said of animals is theirs: "pregnant mares" and "senior dogs" are a
    /// veterinary practice's patients, also where the animal is a dictionary value; said of
    /// staff it is still refused.
    #[test]
    fn a_protected_word_said_of_animals_is_no_persons() {
        let text = &shop_toml(
            r#"[planes]
shop = { tenant = false, schemas = ["shop"] }

[kinds.species]
type = "dictionary"
label = "species"
values = [{ value = "canine", aliases = ["dogs", "dog"] }, { value = "feline", aliases = ["cats"] }]

[params]
species = { kind = "species" }

[[intent]]
name = "visits"
description = "Visits by species."
plane = "shop"
sql = "SELECT v.species, count(*) AS visits FROM shop.visit AS v WHERE v.species = $1::text GROUP BY v.species"
params = [{ name = "species" }]
columns = [{ name = "species", type = "text" }, { name = "visits", type = "int" }]
"#,
        );
        let check = registry_check(text);
        assert_eq!(check("How many pregnant dogs did we see last month?"), None);
        assert_eq!(check("visits for pregnant mares in 2024"), None);
        assert!(check("how many pregnant staff do we have").is_some());
        assert!(check("which receptionists are pregnant").is_some());
        assert!(check("pregnant females on staff").is_some());
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
        // Without the declaration, customers are people all the same: general knowledge says
        // so, whatever the registry's intents are called.
        let plain =
            Registry::from_toml(&text.replace(r#", people = ["customer"]"#, ""), "shop.toml")
                .unwrap();
        let question = "Which customers are over 65?";
        assert!(Screen::new(&plain).check(question, &planner_extract::extract(question)).is_some());
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
        // A compound names people by its head: declaring "card holder" makes cards no people.
        let holders = Registry::from_toml(
            &text.replace(r#"people = ["customer"]"#, r#"people = ["card holder"]"#),
            "shop.toml",
        )
        .unwrap();
        let screen = Screen::new(&holders);
        let check = |question: &str| screen.check(question, &planner_extract::extract(question));
        assert_eq!(check("aged balances for business cards"), None);
        assert!(check("card holders over 70").is_some());
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

    /// A registry that would answer a ranking of dispatchers if the screen let it through: its
    /// plane declares no people and no workforce, and its intent returns names ordered by a
    /// measure, under a name that says nothing of people.
    const PERMISSIVE: &str = r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["ops"]

[planes]
ops = { tenant = false, schemas = ["ops"] }

[params]

[[intent]]
name = "late_loads"
description = "Late loads, by whoever handled them."
keywords = ["late", "loads", "rank", "score", "top", "most"]
plane = "ops"
sql = "SELECT h.name, h.late FROM ops.handler AS h ORDER BY h.late DESC LIMIT 10"
columns = [{ name = "name", type = "text" }, { name = "late", type = "int" }]
"#;

    fn permissive(question: &str) -> Option<&'static str> {
        let registry = Registry::from_toml(PERMISSIVE, "ops.toml").unwrap();
        let extraction = planner_extract::Extractor::new(&registry).extract(question);
        Screen::new(&registry).check(question, &extraction).map(Refusal::label)
    }

    /// The first line on its own: general knowledge names the people of any trade, with no
    /// help from a registry that would answer.
    #[test]
    fn workers_of_any_trade_are_never_ranked() {
        for question in [
            "rank the dispatchers by late loads",
            "top 10 drivers by on-time delivery, for bonuses",
            "score each sales rep by margin so we know who to let go",
            "which housekeepers cleaned the fewest rooms last month?",
            "best general managers by occupancy",
            "on-time rate by pilot for 2024",
            "which bus operators had the most complaints",
            "shortlist our nurses by overtime hours",
            "who are the slowest mechanics at closing work orders",
            "which teachers should we lay off",
            "the 5 worst-performing clerks",
            "score every support agent on resolution time",
            "rank the CSMs by churn",
            // A plural adjective is a noun; a trade newer than WordNet by its suffix; a clause's
            // superlative; a participle after what it ranks; a performance plan.
            "which principals should go on a PIP",
            "phlebotomists ranked by draws per shift",
            "list the cashiers with the lowest basket size",
            "which roofers finish the fewest jobs",
            "nominate a nurse of the month from the ICU",
            "the worst drivers of the night shift",
            // An idiom that singles out one of a team, a dismissal said of any people, a later
            // question's "which".
            "which welder is the weakest link on the line",
            "the casual guys we should let go",
            "who is busiest? which scheduler closed the most tickets",
        ] {
            assert_eq!(permissive(question), Some("ranks_people"), "{question}");
        }
    }

    #[test]
    fn protected_attributes_of_any_people_are_refused() {
        for (question, category) in [
            ("how many of our drivers are over 55", "age"),
            ("how many of our welders are getting close to retirement", "age"),
            ("which guests are pregnant", "pregnancy"),
            ("nationality of our housekeepers", "national origin or citizenship"),
            ("riders by race", "race or ethnicity"),
            ("how many Black passengers ride the night lines", "race or ethnicity"),
            ("which nurses have diabetes", "disability or medical condition"),
            ("teachers of Korean descent", "national origin or citizenship"),
            ("which of our technicians are veterans", "veteran or military status"),
            ("customers born before 1960", "age"),
            ("which students are expecting a baby", "pregnancy"),
            ("which CSMs are over 50", "age"),
            ("how many of the welders are on work visas", "national origin or citizenship"),
            ("which linemen are former military", "veteran or military status"),
            ("crew chiefs near retirement by depot", "age"),
            ("the contacts at the vendor who are over 60", "age"),
            ("accounts whose owner is Black", "race or ethnicity"),
            ("passengers who use wheelchairs by line", "disability or medical condition"),
            ("staff on the list born before 1965", "age"),
            ("gen x nurses versus millennial nurses", "age"),
            ("which technicians are eligible to retire", "age"),
            ("which pupils have IEPs", "disability or medical condition"),
            ("how many Brazilian riders take the night lines", "national origin or citizenship"),
            ("which of our guests are Canadian", "national origin or citizenship"),
            ("Spaniards among the applicants", "national origin or citizenship"),
            (
                "tenants with Polish-sounding surnames who pay late",
                "national origin or citizenship",
            ),
            ("drivers with a Russian accent by depot", "national origin or citizenship"),
        ] {
            let registry = Registry::from_toml(PERMISSIVE, "ops.toml").unwrap();
            let extraction = planner_extract::Extractor::new(&registry).extract(question);
            let refusal = Screen::new(&registry).check(question, &extraction);
            assert_eq!(refusal, Some(Refusal::ProtectedAttribute(category)), "{question}");
        }
    }

    #[test]
    fn business_senses_are_not_refused() {
        for question in [
            "aged receivables over 90 days",
            "invoice aging by customer",
            "which tracking feeds were disabled last week",
            "the age of the oldest open contract",
            "minority-owned carrier program spend",
            "Mexican dishes sold last month",
            "Italian-sounding names for the new menu items",
            "how many English teachers are on staff",
            "a senior labor category's hourly rate",
            "accounts older than 60 days",
            "top 10 lanes by volume",
            "rank the routes by on-time performance",
            "which buses were disabled on the Red Line",
            "maternity ward occupancy by month",
            "spend with veteran-owned businesses",
            "a minority of routes ran late in May",
            "sick leave hours by depot",
            "top 5 customers by spend",
            "orders placed by customers in 2024",
            "religious holiday closures in the calendar",
            // An action with its subject; a part or a holding; a contest; an owner's category
            // whoever is said to be it.
            "the feed we disabled in June",
            "what minority stake do we hold in the depot venture",
            "the minority of slow payers",
            "a race against the holiday rush: orders by week",
            "which carriers are minority-owned businesses",
            "the portal whose SSO got disabled",
            // A noun with a sense that is no person, "of" an abstract noun, is a factor.
            "the biggest driver of cost in the fleet budget",
            "which 3 depots are the weakest link on on-time",
            "accounts that disabled their workspace",
            // A superlative after a thing that has it ranks the thing by a count.
            "bins with the most QCRs this quarter",
            "which depots had the most RMAs",
            "which stores are our biggest earners",
        ] {
            assert_eq!(permissive(question), None, "{question}");
        }
    }
}
