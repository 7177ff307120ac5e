//! The screen: rejects malformed input and refuses questions about protected attributes or
//! asking to score or rank people, before anything else runs.
//!
//! The guard list follows DOMAIN.md section 6 (EEO, OFCCP and NYC AEDT). Agency names found by
//! the extractors (for example "Department of Veterans Affairs") are masked first, so that an
//! agency is never mistaken for a protected attribute.

use std::collections::HashMap;
use std::sync::LazyLock;

use planner_extract::Extraction;
use planner_registry::ParamKind;

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
            "born abroad",
            "born outside",
            "born in",
            "foreign born",
            "foreign-born",
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
    "cleared staff",
    "consultants",
];
const COMPANIES: &[&str] = &[
    "vendor",
    "vendors",
    "incumbent",
    "incumbents",
    "companies",
    "company",
    "firms",
    "firm",
    "competitors",
    "partners",
    "contractors",
    "primes",
    "awardees",
];

/// Which phrase list a phrase belongs to.
#[derive(Debug, Clone, Copy)]
enum Group {
    /// `PROTECTED[n]`.
    Protected(usize),
    /// `PROTECTED_WITH_PEOPLE[n]`.
    WithPeople(usize),
    People,
    Companies,
    RankVerb,
}

/// First word → the phrases starting with it (as words) and their lists.
type PhraseIndex = HashMap<&'static str, Vec<(Vec<&'static str>, Group)>>;

/// Every phrase of the lists, split into words and filed under its first word, so that one
/// pass over the question's words finds every phrase it contains.
static PHRASES: LazyLock<PhraseIndex> = LazyLock::new(|| {
    let mut index = PhraseIndex::new();
    let mut add = |phrase: &'static str, group: Group| {
        let parts: Vec<&'static str> = phrase.split(' ').collect();
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
    PEOPLE.iter().for_each(|phrase| add(phrase, Group::People));
    COMPANIES.iter().for_each(|phrase| add(phrase, Group::Companies));
    RANK_VERBS.iter().for_each(|phrase| add(phrase, Group::RankVerb));
    index
});

/// The phrase lists a question's words contain.
#[derive(Debug, Default)]
struct Found {
    /// Bit `n`: some phrase of `PROTECTED[n]` occurs.
    protected: u64,
    /// Bit `n`: some phrase of `PROTECTED_WITH_PEOPLE[n]` occurs.
    with_people: u64,
    people: bool,
    companies: bool,
    ranks: bool,
}

impl Found {
    /// Matches every phrase against the words: a phrase occurs when its words appear
    /// consecutively.
    fn of(words: &[&str]) -> Found {
        let mut found = Found::default();
        for (at, word) in words.iter().enumerate() {
            let Some(candidates) = PHRASES.get(word) else { continue };
            for (parts, group) in candidates {
                if words.get(at..at + parts.len()).is_none_or(|window| window != parts.as_slice()) {
                    continue;
                }
                match *group {
                    Group::Protected(n) => found.protected |= 1 << n,
                    Group::WithPeople(n) => found.with_people |= 1 << n,
                    Group::People => found.people = true,
                    Group::Companies => found.companies = true,
                    Group::RankVerb => found.ranks = true,
                }
            }
        }
        found
    }
}

/// The first category of `table` whose bit is set in `mask`.
fn first_category(mask: u64, table: &[(&'static str, &[&str])]) -> Option<&'static str> {
    table.iter().enumerate().find(|(n, _)| mask & (1 << n) != 0).map(|(_, (category, _))| *category)
}

// One bit per category.
const _: () = assert!(PROTECTED.len() <= 64 && PROTECTED_WITH_PEOPLE.len() <= 64);

/// Screens a question whose input shape is valid. `extraction` is the extractors' output for the
/// same text; agency spans are masked before matching.
pub fn screen(question: &str, extraction: &Extraction) -> Option<Refusal> {
    let mut text = question.to_lowercase();
    if text.len() == question.len() {
        for mention in extraction.params.iter().filter(|it| it.kind == ParamKind::Agency) {
            if text.is_char_boundary(mention.span.start) && text.is_char_boundary(mention.span.end)
            {
                text.replace_range(
                    mention.span.start..mention.span.end,
                    &" ".repeat(mention.span.end - mention.span.start),
                );
            }
        }
    }
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|it| !it.is_empty())
        .collect();
    let found = Found::of(&words);
    if let Some(category) = first_category(found.protected, PROTECTED) {
        return Some(Refusal::ProtectedAttribute(category));
    }
    let about_people = found.people;
    if about_people && let Some(category) = first_category(found.with_people, PROTECTED_WITH_PEOPLE)
    {
        return Some(Refusal::ProtectedAttribute(category));
    }
    // "Rank the vendors" ranks companies, which is allowed; ranking is refused when the
    // question is about people and not about companies, or when a ranking word qualifies a
    // people noun directly ("the best candidates").
    if found.ranks && about_people && !found.companies {
        return Some(Refusal::RanksPeople);
    }
    // A ranking adjective qualifying a people noun within a few words ("the best TS/SCI
    // candidate"), but not "top secret".
    let qualifies_people = words.iter().enumerate().any(|(i, word)| {
        RANK_ADJECTIVES.contains(word)
            && words.get(i + 1) != Some(&"secret")
            && words.iter().skip(i + 1).take(4).any(|next| PEOPLE.contains(next))
    }) || words.windows(3).any(|w| {
        RANK_ADJECTIVES.iter().any(|adjective| adjective.split_once(' ') == Some((w[0], w[1])))
            && PEOPLE.contains(&w[2])
    });
    if qualifies_people {
        return Some(Refusal::RanksPeople);
    }
    None
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

    /// The phrase matching of [`screen`] written the plain way: every phrase against every
    /// window of words. The indexed matcher must agree with it on every question.
    fn screen_plainly(question: &str, extraction: &Extraction) -> Option<Refusal> {
        let mut text = question.to_lowercase();
        if text.len() == question.len() {
            for mention in extraction.params.iter().filter(|it| it.kind == ParamKind::Agency) {
                if text.is_char_boundary(mention.span.start)
                    && text.is_char_boundary(mention.span.end)
                {
                    text.replace_range(
                        mention.span.start..mention.span.end,
                        &" ".repeat(mention.span.end - mention.span.start),
                    );
                }
            }
        }
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .filter(|it| !it.is_empty())
            .collect();
        let has_phrase = |phrase: &str| {
            let parts: Vec<&str> = phrase.split(' ').collect();
            words.windows(parts.len()).any(|window| window == parts.as_slice())
        };
        for (category, phrases) in PROTECTED {
            if phrases.iter().any(|phrase| has_phrase(phrase)) {
                return Some(Refusal::ProtectedAttribute(category));
            }
        }
        let about_people = PEOPLE.iter().any(|noun| has_phrase(noun));
        if about_people {
            for (category, phrases) in PROTECTED_WITH_PEOPLE {
                if phrases.iter().any(|phrase| has_phrase(phrase)) {
                    return Some(Refusal::ProtectedAttribute(category));
                }
            }
        }
        let about_companies = COMPANIES.iter().any(|noun| has_phrase(noun));
        let ranks = RANK_VERBS.iter().any(|verb| has_phrase(verb));
        if ranks && about_people && !about_companies {
            return Some(Refusal::RanksPeople);
        }
        let qualifies_people = words.iter().enumerate().any(|(i, word)| {
            RANK_ADJECTIVES.contains(word)
                && words.get(i + 1) != Some(&"secret")
                && words.iter().skip(i + 1).take(4).any(|next| PEOPLE.contains(next))
        }) || words.windows(3).any(|w| {
            RANK_ADJECTIVES.contains(&[w[0], w[1]].join(" ").as_str()) && PEOPLE.contains(&w[2])
        });
        qualifies_people.then_some(Refusal::RanksPeople)
    }

    #[test]
    fn indexed_phrases_agree_with_plain_matching() {
        let corpus = [
            include_str!("../../../fixtures/eval/dev.jsonl"),
            include_str!("../../../fixtures/eval/dev-late.jsonl"),
        ];
        let mut questions: Vec<String> = corpus
            .iter()
            .flat_map(|text| text.lines())
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter_map(|json| json["question"].as_str().map(str::to_owned))
            .collect();
        assert!(questions.len() > 100);
        // Every phrase of every list, alone and inside a question, with the neighbours that
        // change the verdict.
        let lists = PROTECTED
            .iter()
            .chain(PROTECTED_WITH_PEOPLE)
            .flat_map(|(_, phrases)| phrases.iter())
            .chain(PEOPLE)
            .chain(COMPANIES)
            .chain(RANK_VERBS)
            .chain(RANK_ADJECTIVES);
        for phrase in lists {
            questions.push((*phrase).to_owned());
            questions.push(format!("How many candidates are {phrase}?"));
            questions.push(format!("{phrase} the vendors in 541512 for the Army"));
            questions.push(format!("Which {phrase} staff are cleared"));
        }
        questions.push("the most qualified TS/SCI candidates".to_owned());
        questions.push("Rank our bench; vendors too".to_owned());
        for question in &questions {
            let extraction = planner_extract::extract(question);
            assert_eq!(
                screen(question, &extraction),
                screen_plainly(question, &extraction),
                "{question}"
            );
        }
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
