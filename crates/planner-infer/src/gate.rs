//! The faithfulness gate: a deterministic check of a narration against the union of the
//! evidence.
//!
//! The rules, in order:
//!
//! 1. **Numbers.** Every number in the narration (integers, decimals, money, percentages) must
//!    match a number of the evidence: a cell, a number inside a text cell, entity or column name,
//!    a part of a date, a table's row count, or a suppression threshold. Separators and currency
//!    signs are ignored. *Rounding rule:* a narration number written with `d` decimal places
//!    matches an evidence number that, rounded half away from zero to `d` places, equals it; a
//!    magnitude word (`thousand`, `million`, `billion`, `K`, `M`, `B`) moves those places (so
//!    `$1.2 million` matches `1234567.89`). A percentage also matches a fraction (`45.3%`
//!    matches `0.453`). Signs are ignored.
//! 2. **Dates.** Every date (`2026-03-31`, `03/31/2026`, `March 31, 2026`, `31 March 2026`,
//!    `March 2026`) must be an evidence date (a month-year: any evidence date in that month).
//! 3. **Identifiers and named entities.** Every token mixing letters and digits (UEI, PIID) must
//!    be an identifier of the evidence; every acronym and every run of capitalised words
//!    (agency and vendor names), other than the configured vocabulary and a lone capitalised
//!    word opening a sentence, must appear as whole words in the evidence text.
//! 4. **Suppressed cells.** In a part of a sentence (up to `;`, `:`, a bracket or the sentence
//!    end) that names a suppressed cell's row label (and its column, when the row holds other
//!    numbers; only the column when the row has no label), the only numbers allowed are those
//!    inside the labels themselves and the threshold `k` ("fewer than 11").
//! 5. **People are not scored or ranked.** No clause may pair a word for people (candidate,
//!    staff, employee...) with a word of scoring or ranking (rank, score, best, top...).

mod scan;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::evidence::{Cell, Evidence};
use scan::{Kind, Num, Token, normalise, scan};

/// Settings of the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    /// Lower-case words that may be capitalised or written as acronyms without naming an entity
    /// (`ts`, `sci`, `naics`, month names...).
    pub vocabulary: BTreeSet<String>,
}

impl GateConfig {
    /// The vocabulary of the reference domain: clearance and compartment words, code names,
    /// months and days.
    pub fn reference() -> GateConfig {
        const WORDS: &[&str] = &[
            "i",
            "ts",
            "sci",
            "si",
            "tk",
            "g",
            "hcs",
            "klm",
            "top",
            "secret",
            "confidential",
            "naics",
            "uei",
            "piid",
            "fy",
            "usd",
            "us",
            "u",
            "s",
            "q",
            "ok",
            "note",
            "notes",
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
            "jan",
            "feb",
            "mar",
            "apr",
            "jun",
            "jul",
            "aug",
            "sep",
            "sept",
            "oct",
            "nov",
            "dec",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
            "evidence",
            "answer",
            "summary",
            "withheld",
            "suppressed",
            "none",
            "no",
            "yes",
            "total",
            "the",
            "a",
            "an",
        ];
        GateConfig { vocabulary: WORDS.iter().map(|word| (*word).to_owned()).collect() }
    }
}

/// Why a narration failed the gate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Miss {
    /// A number that matches nothing in the evidence.
    Number(String),
    /// A date that is not in the evidence.
    Date(String),
    /// An identifier or named entity that is not in the evidence.
    Entity(String),
    /// A number stated where the evidence has a suppressed cell.
    SuppressedNumber(String),
    /// A clause that scores or ranks people.
    RanksPeople(String),
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Every reason the narration failed, in narration order; empty when it passed.
    pub misses: Vec<Miss>,
}

impl Verdict {
    /// Whether the narration may ship.
    pub fn passed(&self) -> bool {
        self.misses.is_empty()
    }
}

/// The evidence, indexed for the checks.
struct Index {
    exact: BTreeSet<Num>,
    numbers: Vec<Num>,
    dates: BTreeSet<(u16, u8, u8)>,
    idents: BTreeSet<String>,
    /// Normalised evidence text (see [`normalise`]).
    text: String,
    suppressed: Vec<SuppressedCell>,
}

struct SuppressedCell {
    /// Normalised row label (` within 30 days `), when the row has a text cell.
    row: Option<String>,
    /// Normalised column label.
    column: String,
    /// Whether the row holds other numbers, so the column must be named too.
    several_numbers: bool,
    /// Numbers a clause about this cell may state: those inside its labels, and `k`.
    allowed: BTreeSet<Num>,
}

fn add_text_numbers(text: &str, index: &mut Index) {
    // Numbers, dates and identifiers all hold a digit.
    if !text.bytes().any(|byte| byte.is_ascii_digit()) {
        return;
    }
    // Chunks of letters and digits joined by inner separators, as the narration scanner reads
    // them, without building tokens.
    let is_joiner = |byte: u8| matches!(byte, b'-' | b'/' | b'.' | b',' | b'&');
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_alphanumeric() {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len()
            && (bytes[at].is_ascii_alphanumeric()
                || (is_joiner(bytes[at])
                    && bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric)))
        {
            at += 1;
        }
        let chunk = &text[start..at];
        if !chunk.bytes().any(|byte| byte.is_ascii_digit()) {
            continue;
        }
        if let Some((year, month, day)) = scan::date(chunk) {
            index.dates.insert((year, month, day));
            index.numbers.extend([year.into(), month.into(), day.into()].map(int));
        } else if chunk.bytes().any(|byte| byte.is_ascii_alphabetic()) {
            // Identifiers, and numbers with a magnitude suffix: the scanner decides. A chunk of
            // letters and digits alone is one scanner token, read without scanning.
            let mut add = |kind: Kind<'_>| match kind {
                Kind::Number { value, .. } => index.numbers.push(value),
                Kind::Ident(ident) => {
                    index.idents.insert(ident);
                }
                Kind::Date(..) | Kind::Word(_) => {}
            };
            if chunk.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
                scan::mixed(chunk, &mut add);
            } else {
                scan(chunk).into_iter().for_each(|token| add(token.kind));
            }
        } else if let Some(value) = Num::parse(chunk) {
            index.numbers.push(value);
        } else {
            for part in chunk.split([',', '-', '/']) {
                if let Some(value) = Num::parse(part) {
                    index.numbers.push(value);
                }
            }
        }
    }
}

fn int(value: i128) -> Num {
    Num { mantissa: value, scale: 0 }
}

fn label_numbers(label: &str) -> impl Iterator<Item = Num> {
    scan(label).into_iter().filter_map(|token| match token.kind {
        Kind::Number { value, .. } => Some(value.canonical()),
        _ => None,
    })
}

impl Index {
    fn new(evidence: &Evidence) -> Index {
        let mut index = Index {
            exact: BTreeSet::new(),
            numbers: Vec::new(),
            dates: BTreeSet::new(),
            idents: BTreeSet::new(),
            text: String::with_capacity(1024),
            suppressed: Vec::new(),
        };
        for entity in &evidence.entities {
            add_text_numbers(entity, &mut index);
            normalise(entity, &mut index.text);
        }
        for table in &evidence.tables {
            index.numbers.push(int(table.rows.len() as i128));
            add_text_numbers(&table.intent, &mut index);
            normalise(&table.intent, &mut index.text);
            for column in &table.columns {
                add_text_numbers(column, &mut index);
                normalise(column, &mut index.text);
            }
            for row in &table.rows {
                let label = row.iter().find_map(|cell| match cell {
                    Cell::Text(text) => Some(text.as_str()),
                    _ => None,
                });
                let counts = row
                    .iter()
                    .filter(|cell| {
                        matches!(cell, Cell::Int(_) | Cell::Decimal(_) | Cell::Suppressed { .. })
                    })
                    .count();
                for (position, cell) in row.iter().enumerate() {
                    match cell {
                        Cell::Null | Cell::Bool(_) => {}
                        Cell::Int(value) => index.numbers.push(int((*value).into())),
                        Cell::Decimal(text) => match Num::parse(text) {
                            Some(value) => index.numbers.push(value),
                            None => add_text_numbers(text, &mut index),
                        },
                        Cell::Date(text) | Cell::Text(text) => {
                            add_text_numbers(text, &mut index);
                            normalise(text, &mut index.text);
                        }
                        Cell::Suppressed { k } => {
                            index.numbers.push(int((*k).into()));
                            let column = table.columns.get(position).map_or("", String::as_str);
                            let mut allowed: BTreeSet<Num> = label_numbers(column).collect();
                            allowed.extend(label.map(label_numbers).into_iter().flatten());
                            allowed.insert(int((*k).into()));
                            let mut column_text = String::new();
                            normalise(&column.replace('_', " "), &mut column_text);
                            index.suppressed.push(SuppressedCell {
                                row: label.map(|label| {
                                    let mut row = String::new();
                                    normalise(&label.replace('_', " "), &mut row);
                                    row
                                }),
                                column: column_text,
                                several_numbers: counts > 1,
                                allowed,
                            });
                        }
                    }
                }
            }
        }
        index.exact = index.numbers.iter().map(|value| value.canonical()).collect();
        index
    }

    fn knows_number(&self, written: Num, percent: bool) -> bool {
        if self.exact.contains(&written.canonical()) {
            return true;
        }
        let fraction_shift = if percent { 2 } else { 0 };
        self.numbers.iter().any(|&evidence| {
            rounds_to(evidence, written)
                || (percent
                    && rounds_to(
                        Num { scale: evidence.scale - fraction_shift, ..evidence },
                        written,
                    ))
        })
    }

    fn knows_date(&self, year: u16, month: u8, day: u8) -> bool {
        if day == 0 {
            return self.dates.range((year, month, 0)..=(year, month, 31)).next().is_some();
        }
        self.dates.contains(&(year, month, day))
    }

    fn knows_phrase(&self, phrase: &str) -> bool {
        let mut needle = String::with_capacity(phrase.len() + 2);
        normalise(phrase, &mut needle);
        needle.len() <= 2 || self.text.contains(&needle)
    }
}

/// Whether `evidence`, rounded half away from zero to `written`'s scale, equals `written`.
fn rounds_to(evidence: Num, written: Num) -> bool {
    let evidence_value = evidence.mantissa.abs();
    let written_value = written.mantissa.abs();
    if evidence.scale <= written.scale {
        let Some(factor) = pow10(written.scale - evidence.scale) else { return false };
        return evidence_value.checked_mul(factor) == Some(written_value);
    }
    let Some(factor) = pow10(evidence.scale - written.scale) else { return written_value == 0 };
    let rounded = (evidence_value + factor / 2) / factor;
    rounded == written_value
}

fn pow10(exponent: i32) -> Option<i128> {
    u32::try_from(exponent).ok().and_then(|exponent| 10i128.checked_pow(exponent))
}

const PEOPLE: &[&str] = &[
    "candidate",
    "candidates",
    "person",
    "people",
    "persons",
    "staff",
    "staffer",
    "staffers",
    "employee",
    "employees",
    "applicant",
    "applicants",
    "individual",
    "individuals",
    "worker",
    "workers",
    "personnel",
    "hire",
    "hires",
    "recruit",
    "recruits",
    "engineer",
    "engineers",
    "analyst",
    "analysts",
];
const RANKING: &[&str] = &[
    "rank",
    "ranks",
    "ranked",
    "ranking",
    "rankings",
    "score",
    "scores",
    "scored",
    "scoring",
    "rate",
    "rated",
    "rating",
    "ratings",
    "best",
    "top",
    "strongest",
    "weakest",
    "worst",
    "ideal",
    "preferred",
    "recommend",
    "recommended",
    "shortlist",
    "shortlisted",
    "first-choice",
    "likeliest",
    "better",
    "stronger",
    "weaker",
];

/// Checks `narration` against `evidence`.
pub fn check_faithfulness(narration: &str, evidence: &Evidence, config: &GateConfig) -> Verdict {
    let index = Index::new(evidence);
    let tokens = scan(narration);
    let mut misses = Vec::new();
    check_values(&tokens, &index, &mut misses);
    check_entities(&tokens, &index, config, &mut misses);
    check_suppressed(&tokens, &index, &mut misses);
    check_people(&tokens, &mut misses);
    Verdict { misses }
}

fn render(value: Num) -> String {
    if value.scale <= 0 {
        let zeros = usize::try_from(-value.scale).unwrap_or(0);
        return format!("{}{}", value.mantissa, "0".repeat(zeros));
    }
    let digits = format!("{:0>width$}", value.mantissa.abs(), width = value.scale as usize + 1);
    let (whole, fraction) = digits.split_at(digits.len() - value.scale as usize);
    format!("{}{whole}.{fraction}", if value.mantissa < 0 { "-" } else { "" })
}

fn check_values(tokens: &[Token<'_>], index: &Index, misses: &mut Vec<Miss>) {
    for token in tokens {
        match &token.kind {
            Kind::Number { value, percent } if !index.knows_number(*value, *percent) => {
                misses.push(Miss::Number(render(*value)));
            }
            Kind::Date(year, month, day) if !index.knows_date(*year, *month, *day) => {
                misses.push(Miss::Date(format!("{year:04}-{month:02}-{day:02}")));
            }
            Kind::Ident(ident) if !index.idents.contains(ident) => {
                misses.push(Miss::Entity(ident.clone()));
            }
            _ => {}
        }
    }
}

const CONNECTORS: &[&str] = &["of", "the", "and", "for", "de", "on"];
const OPENERS: &[&str] = &[
    "the", "in", "for", "over", "at", "of", "on", "a", "an", "this", "these", "its", "their",
    "across", "during", "from", "with", "by", "among", "per", "since", "as", "both", "all",
    "under", "within", "after", "before", "between", "to", "into", "about", "around", "through",
    "while", "when", "where", "if", "and", "but", "so", "yes", "no", "each", "every", "here",
    "there", "our", "your", "we", "they", "it", "only", "also", "however", "overall", "note",
];

fn check_entities(
    tokens: &[Token<'_>],
    index: &Index,
    config: &GateConfig,
    misses: &mut Vec<Miss>,
) {
    let capitalised = |token: &Token<'_>| match &token.kind {
        Kind::Word(word) => word.chars().next().is_some_and(char::is_uppercase),
        _ => false,
    };
    let mut at = 0;
    while at < tokens.len() {
        if !capitalised(&tokens[at]) {
            at += 1;
            continue;
        }
        // A run of capitalised words, joined by lower-case connectors within one clause.
        let clause = tokens[at].clause;
        let mut end = at + 1;
        loop {
            if end < tokens.len() && tokens[end].clause == clause && capitalised(&tokens[end]) {
                end += 1;
                continue;
            }
            let mut probe = end;
            while probe < tokens.len()
                && tokens[probe].clause == clause
                && matches!(&tokens[probe].kind, Kind::Word(word) if CONNECTORS.contains(word))
            {
                probe += 1;
            }
            if probe > end
                && probe < tokens.len()
                && tokens[probe].clause == clause
                && capitalised(&tokens[probe])
            {
                end = probe + 1;
                continue;
            }
            break;
        }
        let mut words: Vec<&str> = tokens[at..end]
            .iter()
            .filter_map(|token| match token.kind {
                Kind::Word(word) => Some(word),
                _ => None,
            })
            .collect();
        let opens_sentence = tokens[at].starts_sentence;
        if opens_sentence && words.first().is_some_and(|word| OPENERS.contains(&&*lower(word))) {
            words.remove(0);
        }
        while words.first().is_some_and(|word| CONNECTORS.contains(&&*lower(word))) {
            words.remove(0);
        }
        let meaningful = words.iter().any(|word| !config.vocabulary.contains(&*lower(word)));
        let lone_opener =
            opens_sentence && end - at == 1 && !is_acronym(words.first().copied().unwrap_or(""));
        if meaningful && !lone_opener {
            let phrase = words.join(" ");
            if !index.knows_phrase(&phrase) {
                // Accept a run whose every non-vocabulary word is known on its own only when it
                // is a single word; a multi-word name must appear as written.
                misses.push(Miss::Entity(phrase));
            }
        }
        at = end;
    }
}

/// `word` in lower case, borrowed when it already is.
fn lower(word: &str) -> Cow<'_, str> {
    if word.bytes().all(|byte| byte.is_ascii() && !byte.is_ascii_uppercase()) {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(word.to_lowercase())
    }
}

fn is_acronym(word: &str) -> bool {
    word.len() >= 2 && word.chars().all(|ch| ch.is_ascii_uppercase())
}

/// The words and numbers of a run of tokens, normalised as in [`normalise`].
fn words_text(tokens: &[Token<'_>]) -> String {
    let mut text = String::from(" ");
    for token in tokens {
        if let Kind::Word(word) = &token.kind {
            text.push_str(&lower(word));
            text.push(' ');
        } else if let Kind::Number { value, .. } = &token.kind {
            text.push_str(&render(*value));
            text.push(' ');
        }
    }
    text
}

fn check_suppressed(tokens: &[Token<'_>], index: &Index, misses: &mut Vec<Miss>) {
    if index.suppressed.is_empty() {
        return;
    }
    // Tokens come in narration order, so each part is one run of them.
    for part in tokens.chunk_by(|a, b| a.part == b.part) {
        let numbers: Vec<Num> = part
            .iter()
            .filter_map(|token| match token.kind {
                Kind::Number { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        if numbers.is_empty() {
            continue;
        }
        let text = words_text(part);
        for cell in &index.suppressed {
            let about = match (&cell.row, cell.several_numbers) {
                (Some(row), false) => text.contains(row.as_str()),
                (Some(row), true) => text.contains(row.as_str()) && text.contains(&cell.column),
                (None, _) => text.contains(&cell.column),
            };
            if !about {
                continue;
            }
            for number in &numbers {
                if !cell.allowed.contains(&number.canonical()) {
                    misses.push(Miss::SuppressedNumber(render(*number)));
                }
            }
        }
    }
}

fn check_people(tokens: &[Token<'_>], misses: &mut Vec<Miss>) {
    for clause in tokens.chunk_by(|a, b| a.clause == b.clause) {
        let words: Vec<Cow<'_, str>> = clause
            .iter()
            .filter_map(|token| match token.kind {
                Kind::Word(word) => Some(lower(word)),
                _ => None,
            })
            .collect();
        let people = words.iter().any(|word| PEOPLE.contains(&&**word));
        let ranking = words.iter().enumerate().any(|(at, word)| {
            // `top secret` is a clearance level, not a ranking.
            RANKING.contains(&&**word)
                && !(word == "top" && words.get(at + 1).is_some_and(|next| next == "secret"))
        });
        if people && ranking {
            misses.push(Miss::RanksPeople(words.join(" ")));
        }
    }
}
