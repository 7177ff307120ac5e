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
//! 6. **No dash punctuation** (the design's writing rule, see [`crate::find_dashes`]): an em or en
//!    dash, a hyphen between spaces or a double hyphen fails, outside identifiers, codes and URLs
//!    and outside text copied from the evidence (a vendor named `Acme - East`).
//!
//! The evidence's numbers are its cells (money as its amount, so `$4,160,091,428.60` matches
//! `4160091428.6`), each table's row count, count of withheld cells and window of months, and the
//! numbers inside its texts, its scope's values and the reasons of dropped nodes; its dates are
//! its date cells, each window's anchor date and the dates of its scope (a period's first and
//! last days).

mod scan;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Range;

use crate::dash::find_dashes;
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
    /// Dash punctuation, with the words around it.
    Dash(String),
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

/// The evidence, indexed for the checks. Values are kept as integer keys (see [`number_key`],
/// [`date_key`], [`ident_key`]) in plain vectors: an answer holds a few hundred values, and a
/// linear scan of packed keys costs less than sorting, hashing or building trees for them.
struct Index {
    /// The key of every number.
    exact: KeySet<u128>,
    numbers: Vec<Num>,
    dates: Vec<u32>,
    /// Identifiers of up to 24 characters, as keys.
    idents: KeySet<IdentKey>,
    /// The same, as read (the set is built from it once all are read).
    ident_list: Vec<IdentKey>,
    /// Longer identifiers.
    long_idents: Vec<String>,
    /// Normalised evidence text (see [`normalise`]).
    text: Vec<u8>,
    suppressed: Vec<SuppressedCell>,
    /// The normalised labels of the suppressed cells, one after another.
    labels: Vec<u8>,
    /// The numbers the suppressed cells allow, one run after another.
    allowed: Vec<Num>,
}

/// A number's value as one integer: equal keys, equal values. The mantissa has at most 30
/// digits (below 2^100) and the scale stays within ±60, so the fields never overlap.
fn number_key(value: Num) -> u128 {
    let Num { mantissa, scale } = value.canonical();
    let scale = u128::from(scale.wrapping_add(0x8000) as u16);
    (scale << 101) | (u128::from(mantissa < 0) << 100) | mantissa.unsigned_abs()
}

fn date_key(year: u16, month: u8, day: u8) -> u32 {
    (u32::from(year) << 16) | (u32::from(month) << 8) | u32::from(day)
}

/// An identifier (see [`scan::ident_bytes`]) of up to 24 characters as three words, padded
/// with zeros; `None` when longer.
fn ident_key(ident: impl Iterator<Item = u8>) -> Option<IdentKey> {
    let mut bytes = [0u8; 24];
    for (count, byte) in ident.enumerate() {
        *bytes.get_mut(count)? = byte;
    }
    Some(pack(&bytes))
}

fn pack(bytes: &[u8; 24]) -> IdentKey {
    let word = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    [word(0), word(8), word(16)]
}

type IdentKey = [u64; 3];

/// A set of small keys: open addressing over a power-of-two table, the all-zero key marking a
/// free slot (no number, date or identifier key is zero). Membership only: nothing iterates
/// it, so its layout never shows in a verdict.
#[derive(Default)]
struct KeySet<K> {
    slots: Vec<K>,
}

trait Key: Copy + Default + Eq {
    fn hash(&self) -> u64;
}

impl Key for u128 {
    fn hash(&self) -> u64 {
        let folded = (*self as u64) ^ ((*self >> 64) as u64).rotate_left(29);
        folded.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl Key for IdentKey {
    fn hash(&self) -> u64 {
        (self[0] ^ self[1].rotate_left(21) ^ self[2].rotate_left(42))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl<K: Key> KeySet<K> {
    fn new(keys: impl ExactSizeIterator<Item = K>) -> KeySet<K> {
        let size = (keys.len() * 2).next_power_of_two().max(8);
        let mut set = KeySet { slots: vec![K::default(); size] };
        for key in keys {
            let slot = set.slot(&key);
            set.slots[slot] = key;
        }
        set
    }

    /// The slot holding `key`, or the free slot where it would go.
    fn slot(&self, key: &K) -> usize {
        let mask = self.slots.len() - 1;
        // The top bits of a multiplicative hash depend on every bit of the key.
        let mut at = (key.hash() >> (64 - mask.count_ones())) as usize;
        while self.slots[at] != K::default() && self.slots[at] != *key {
            at = (at + 1) & mask;
        }
        at
    }

    fn contains(&self, key: &K) -> bool {
        !self.slots.is_empty() && *key != K::default() && self.slots[self.slot(key)] == *key
    }
}

/// A suppressed cell; its labels and numbers live in the index's arenas.
struct SuppressedCell {
    /// Normalised row label (` within 30 days `), when the row has a text cell.
    row: Option<Range<usize>>,
    /// Normalised column label.
    column: Range<usize>,
    /// Whether the row holds other numbers, so the column must be named too.
    several_numbers: bool,
    /// Numbers a clause about this cell may state (canonical): those inside its labels, and `k`.
    allowed: Range<usize>,
}

/// Reads one evidence text in a single pass over its bytes: appends it, normalised, to the
/// index text (when `words`), and adds the numbers, dates and identifiers of its chunks (runs
/// of ASCII letters and digits joined by inner separators, as the narration scanner reads them).
fn read_text(text: &str, index: &mut Index, words: bool) {
    let bytes = text.as_bytes();
    if words {
        index.text.reserve(text.len() + 2);
        index.text.push(b' ');
    }
    let mut in_word = false;
    // The chunk being read: its start, and whether it holds a digit.
    let mut chunk: Option<(usize, bool)> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if !byte.is_ascii() {
            // Ends any chunk; a letter or digit outside ASCII is part of a word.
            if let Some((start, true)) = chunk.take() {
                index.read_chunk(&text[start..at]);
            }
            chunk = None;
            let ch = text[at..].chars().next().unwrap_or(' ');
            if words {
                if ch.is_alphanumeric() {
                    for lower in ch.to_lowercase() {
                        index.text.extend_from_slice(lower.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    in_word = true;
                } else if in_word {
                    index.text.push(b' ');
                    in_word = false;
                }
            }
            at += ch.len_utf8();
            continue;
        }
        if byte.is_ascii_alphanumeric() {
            // A run of ASCII letters and digits: found first, then copied and lower-cased at once.
            let start = at;
            at += bytes[at..]
                .iter()
                .position(|byte| !byte.is_ascii_alphanumeric())
                .unwrap_or(bytes.len() - at);
            let digit = bytes[start..at].iter().any(u8::is_ascii_digit);
            if words {
                index.text.extend(bytes[start..at].iter().map(u8::to_ascii_lowercase));
                in_word = true;
            }
            match &mut chunk {
                Some((_, held)) => *held |= digit,
                None => chunk = Some((start, digit)),
            }
            continue;
        } else {
            if words && in_word {
                index.text.push(b' ');
                in_word = false;
            }
            let joins = matches!(byte, b'-' | b'/' | b'.' | b',' | b'&')
                && bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric);
            if !joins
                && let Some((start, digit)) = chunk.take()
                && digit
            {
                index.read_chunk(&text[start..at]);
            }
        }
        at += 1;
    }
    if let Some((start, true)) = chunk {
        index.read_chunk(&text[start..]);
    }
    if words && in_word {
        index.text.push(b' ');
    }
}

fn int(value: i128) -> Num {
    Num { mantissa: value, scale: 0 }
}

/// The numbers written in a label, canonical.
fn label_numbers(label: &str, out: &mut Vec<Num>) {
    // Most labels are names: when every word holding a digit is a plain identifier (a letter,
    // then letters and digits, four or more), the scanner would read no number, so the full
    // scan is skipped; any other label is scanned.
    let identifier = |word: &str| {
        word.len() >= 4
            && word.as_bytes()[0].is_ascii_alphabetic()
            && word.bytes().all(|byte| byte.is_ascii_alphanumeric())
    };
    if label
        .split_ascii_whitespace()
        .filter(|word| word.bytes().any(|byte| byte.is_ascii_digit()))
        .all(identifier)
    {
        return;
    }
    out.extend(scan(label).into_iter().filter_map(|token| match token.kind {
        Kind::Number { value, .. } => Some(value.canonical()),
        _ => None,
    }));
}

impl Index {
    fn new(evidence: &Evidence) -> Index {
        let mut index = Index {
            exact: KeySet::default(),
            numbers: Vec::with_capacity(256),
            dates: Vec::with_capacity(64),
            idents: KeySet::default(),
            ident_list: Vec::with_capacity(128),
            long_idents: Vec::new(),
            text: Vec::with_capacity(4096),
            suppressed: Vec::with_capacity(16),
            labels: Vec::with_capacity(512),
            allowed: Vec::with_capacity(32),
        };
        for entity in &evidence.entities {
            read_text(entity, &mut index, true);
        }
        for dropped in &evidence.dropped {
            read_text(&dropped.intent, &mut index, true);
            read_text(&dropped.reason, &mut index, true);
        }
        for table in &evidence.tables {
            index.numbers.push(int(table.rows.len() as i128));
            let withheld = table
                .rows
                .iter()
                .flatten()
                .filter(|cell| matches!(cell, Cell::Suppressed { .. }))
                .count();
            if withheld > 0 {
                index.numbers.push(int(withheld as i128));
            }
            if let Some(window) = &table.window {
                index.numbers.push(int(window.length.into()));
                if let Some(date) = &window.as_of {
                    read_text(date, &mut index, false);
                }
            }
            read_text(&table.intent, &mut index, true);
            for column in &table.columns {
                read_text(column, &mut index, true);
            }
            for bound in &table.scope {
                read_text(&bound.param, &mut index, true);
                read_text(&bound.value, &mut index, true);
            }
            for row in &table.rows {
                let label = row.iter().find_map(|cell| match cell {
                    Cell::Text(text) => Some(text.as_str()),
                    _ => None,
                });
                let counts = row
                    .iter()
                    .filter(|cell| {
                        matches!(
                            cell,
                            Cell::Int(_)
                                | Cell::Decimal(_)
                                | Cell::Money(_)
                                | Cell::Suppressed { .. }
                        )
                    })
                    .count();
                for (position, cell) in row.iter().enumerate() {
                    match cell {
                        Cell::Null | Cell::Bool(_) => {}
                        Cell::Int(value) => index.numbers.push(int((*value).into())),
                        Cell::Decimal(text) | Cell::Money(text) => match Num::parse(text) {
                            Some(value) => index.numbers.push(value),
                            None => read_text(text, &mut index, false),
                        },
                        Cell::Date(text) | Cell::Text(text) => {
                            read_text(text, &mut index, true);
                        }
                        Cell::Suppressed { k } => {
                            index.numbers.push(int((*k).into()));
                            let column = table.columns.get(position).map_or("", String::as_str);
                            let start = index.allowed.len();
                            index.allowed.push(int((*k).into()).canonical());
                            label_numbers(column, &mut index.allowed);
                            label_numbers(label.unwrap_or(""), &mut index.allowed);
                            let allowed = start..index.allowed.len();
                            // `normalise` reads `_` as a space.
                            let mut label_range = |text: &str| {
                                let start = index.labels.len();
                                normalise(text, &mut index.labels);
                                start..index.labels.len()
                            };
                            let column = label_range(column);
                            let row = label.map(&mut label_range);
                            index.suppressed.push(SuppressedCell {
                                row,
                                column,
                                several_numbers: counts > 1,
                                allowed,
                            });
                        }
                    }
                }
            }
        }
        index.exact = KeySet::new(index.numbers.iter().map(|&value| number_key(value)));
        index.idents = KeySet::new(index.ident_list.drain(..));
        index
    }

    /// Adds the numbers, date or identifier of one chunk holding a digit.
    fn read_chunk(&mut self, chunk: &str) {
        let joined = chunk.bytes().any(|byte| matches!(byte, b'-' | b'/'));
        if let Some((year, month, day)) = joined.then(|| scan::date(chunk)).flatten() {
            self.dates.push(date_key(year, month, day));
            self.numbers.extend([year.into(), month.into(), day.into()].map(int));
        } else if chunk.bytes().any(|byte| byte.is_ascii_alphabetic()) {
            // Identifiers, and numbers with a magnitude suffix: the scanner decides. A chunk of
            // letters and digits alone is one scanner token, read without scanning.
            if chunk.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
                if scan::mixed(chunk, |value| self.numbers.push(value)) {
                    let mut key = [0u8; 24];
                    if let Some(prefix) = key.get_mut(..chunk.len()) {
                        // Letters and digits only: the identifier is the chunk, upper-cased.
                        prefix.copy_from_slice(chunk.as_bytes());
                        prefix.make_ascii_uppercase();
                        self.ident_list.push(pack(&key));
                    } else {
                        self.add_ident(chunk);
                    }
                }
            } else {
                for token in scan(chunk) {
                    match token.kind {
                        Kind::Number { value, .. } => self.numbers.push(value),
                        Kind::Ident(ident) => self.add_ident(ident),
                        Kind::Date(..) | Kind::Word(_) => {}
                    }
                }
            }
        } else if let Some(value) = Num::parse(chunk) {
            self.numbers.push(value);
        } else {
            for part in chunk.split([',', '-', '/']) {
                if let Some(value) = Num::parse(part) {
                    self.numbers.push(value);
                }
            }
        }
    }

    /// Adds the identifier written as `chunk` (see [`scan::ident_bytes`]).
    fn add_ident(&mut self, chunk: &str) {
        match ident_key(scan::ident_bytes(chunk)) {
            Some(key) => self.ident_list.push(key),
            None => self.long_idents.push(scan::ident_bytes(chunk).map(char::from).collect()),
        }
    }

    /// Whether `ident` (already upper-case letters and digits) is an evidence identifier.
    /// Whether the identifier written as `chunk` is an evidence identifier.
    fn knows_ident(&self, chunk: &str) -> bool {
        match ident_key(scan::ident_bytes(chunk)) {
            Some(key) => self.idents.contains(&key),
            None => self.long_idents.iter().any(|known| known.bytes().eq(scan::ident_bytes(chunk))),
        }
    }

    fn knows_number(&self, written: Num, percent: bool) -> bool {
        if self.exact.contains(&number_key(written)) {
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
            // Any day of that month.
            let month = date_key(year, month, 0) >> 8;
            return self.dates.iter().any(|&date| date >> 8 == month);
        }
        self.dates.contains(&date_key(year, month, day))
    }

    /// Whether `words`, joined by spaces, appear as whole words in the evidence text.
    fn knows_phrase(&self, words: &[&str]) -> bool {
        let mut needle = Vec::with_capacity(64);
        needle.push(b' ');
        for word in words {
            // As `normalise` writes it: words are letters and digits already.
            normalise(word, &mut needle);
            needle.pop();
        }
        needle.push(b' ');
        needle.dedup_by(|a, b| *a == b' ' && *b == b' ');
        needle.len() <= 2 || memchr::memmem::find(&self.text, &needle).is_some()
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

/// Whether a lower-case word names people.
fn is_people(word: &str) -> bool {
    matches!(
        word,
        "analyst"
            | "analysts"
            | "applicant"
            | "applicants"
            | "candidate"
            | "candidates"
            | "employee"
            | "employees"
            | "engineer"
            | "engineers"
            | "hire"
            | "hires"
            | "individual"
            | "individuals"
            | "people"
            | "person"
            | "personnel"
            | "persons"
            | "recruit"
            | "recruits"
            | "staff"
            | "staffer"
            | "staffers"
            | "worker"
            | "workers"
    )
}
/// Whether a lower-case word scores or ranks.
fn is_ranking(word: &str) -> bool {
    matches!(
        word,
        "best"
            | "better"
            | "first-choice"
            | "ideal"
            | "likeliest"
            | "preferred"
            | "rank"
            | "ranked"
            | "ranking"
            | "rankings"
            | "ranks"
            | "rate"
            | "rated"
            | "rating"
            | "ratings"
            | "recommend"
            | "recommended"
            | "score"
            | "scored"
            | "scores"
            | "scoring"
            | "shortlist"
            | "shortlisted"
            | "stronger"
            | "strongest"
            | "top"
            | "weaker"
            | "weakest"
            | "worst"
    )
}

/// Checks `narration` against `evidence`.
pub fn check_faithfulness(narration: &str, evidence: &Evidence, config: &GateConfig) -> Verdict {
    let index = Index::new(evidence);
    let tokens = scan(narration);
    let mut misses = Vec::new();
    check_values(&tokens, &index, &mut misses);
    check_entities(&tokens, &index, config, &mut misses);
    check_suppressed(&tokens, &index, &mut misses);
    check_people(&tokens, &mut misses);
    check_dashes(narration, evidence, &mut misses);
    Verdict { misses }
}

/// Rule 6: dash punctuation, unless it is inside text copied from the evidence.
fn check_dashes(narration: &str, evidence: &Evidence, misses: &mut Vec<Miss>) {
    let dashes = find_dashes(narration);
    if dashes.is_empty() {
        return;
    }
    // Where the narration quotes an evidence text that holds a dash itself.
    let mut quoted: Vec<Range<usize>> = Vec::new();
    let texts = evidence
        .entities
        .iter()
        .chain(evidence.dropped.iter().flat_map(|it| [&it.intent, &it.reason]))
        .chain(evidence.tables.iter().flat_map(|table| {
            table.rows.iter().flatten().filter_map(|cell| match cell {
                Cell::Text(text) => Some(text),
                _ => None,
            })
        }));
    for text in texts {
        if text.is_empty() || find_dashes(text).is_empty() {
            continue;
        }
        for start in memchr::memmem::find_iter(narration.as_bytes(), text.as_bytes()) {
            quoted.push(start..start + text.len());
        }
    }
    for dash in dashes {
        if quoted.iter().any(|it| it.start <= dash.start && dash.end <= it.end) {
            continue;
        }
        misses.push(Miss::Dash(around(narration, dash)));
    }
}

/// The dash at `range` with up to 12 bytes of text either side (on character boundaries).
fn around(text: &str, range: Range<usize>) -> String {
    let mut start = range.start.saturating_sub(12);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (range.end + 12).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text[start..end].trim().to_owned()
}

fn render(value: Num) -> String {
    let mut out = Vec::new();
    render_into(value, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes `value` in plain decimal notation (ASCII).
fn render_into(value: Num, out: &mut Vec<u8>) {
    // The digits of the mantissa, least significant first (at most 39 for an i128).
    let mut buffer = [0u8; 40];
    let mut count = 0;
    let mut rest = value.mantissa.unsigned_abs();
    // Above 64 bits the digits come by 128-bit division (a library call), below by 64-bit.
    while u64::try_from(rest).is_err() {
        buffer[count] = b'0' + (rest % 10) as u8;
        count += 1;
        rest /= 10;
    }
    let mut small = rest as u64;
    loop {
        buffer[count] = b'0' + (small % 10) as u8;
        count += 1;
        small /= 10;
        if small == 0 {
            break;
        }
    }
    buffer[..count].reverse();
    let digits = &buffer[..count];
    if value.scale <= 0 {
        if value.mantissa < 0 {
            out.push(b'-');
        }
        out.extend_from_slice(digits);
        for _ in 0..(-i64::from(value.scale)) {
            out.push(b'0');
        }
        return;
    }
    let scale = usize::try_from(value.scale).unwrap_or(0);
    if value.mantissa < 0 {
        out.push(b'-');
    }
    let whole = digits.len().saturating_sub(scale);
    if whole == 0 {
        out.push(b'0');
    } else {
        out.extend_from_slice(&digits[..whole]);
    }
    out.push(b'.');
    for _ in digits.len()..scale {
        out.push(b'0');
    }
    out.extend_from_slice(&digits[whole..]);
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
            Kind::Ident(ident) if !index.knows_ident(ident) => {
                misses.push(Miss::Entity(scan::ident_bytes(ident).map(char::from).collect()));
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
    let mut words: Vec<&str> = Vec::new();
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
        words.clear();
        words.extend(tokens[at..end].iter().filter_map(|token| match token.kind {
            Kind::Word(word) => Some(word),
            _ => None,
        }));
        let opens_sentence = tokens[at].starts_sentence;
        if opens_sentence
            && words.first().is_some_and(|word| with_lower(word, |word| OPENERS.contains(&word)))
        {
            words.remove(0);
        }
        while words.first().is_some_and(|word| with_lower(word, |word| CONNECTORS.contains(&word)))
        {
            words.remove(0);
        }
        let meaningful =
            words.iter().any(|word| with_lower(word, |word| !config.vocabulary.contains(word)));
        let lone_opener =
            opens_sentence && end - at == 1 && !is_acronym(words.first().copied().unwrap_or(""));
        // A multi-word name must appear as written.
        if meaningful && !lone_opener && !index.knows_phrase(&words) {
            misses.push(Miss::Entity(words.join(" ")));
        }
        at = end;
    }
}

/// Calls `f` with `word` in lower case, without allocating for a short ASCII word.
fn with_lower<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    if word.bytes().all(|byte| byte.is_ascii() && !byte.is_ascii_uppercase()) {
        return f(word);
    }
    let mut buffer = [0u8; 32];
    if word.is_ascii()
        && let Some(short) = buffer.get_mut(..word.len())
    {
        short.copy_from_slice(word.as_bytes());
        short.make_ascii_lowercase();
        return f(std::str::from_utf8(short).unwrap_or_default());
    }
    f(&lower(word))
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

/// The words and numbers of a run of tokens, normalised as in [`normalise`], into `text`.
fn words_text(tokens: &[Token<'_>], text: &mut Vec<u8>, digits: bool) {
    text.clear();
    text.push(b' ');
    for token in tokens {
        if let Kind::Word(word) = &token.kind {
            text.extend_from_slice(lower(word).as_bytes());
            text.push(b' ');
        } else if let Kind::Number { value, .. } = &token.kind {
            if digits {
                render_into(*value, text);
            } else {
                text.push(b'#');
            }
            text.push(b' ');
        }
    }
}

fn check_suppressed(tokens: &[Token<'_>], index: &Index, misses: &mut Vec<Miss>) {
    if index.suppressed.is_empty() {
        return;
    }
    // Parts are short: a plain window scan beats building a searcher.
    let contains = |text: &[u8], needle: &[u8]| {
        needle.is_empty() || text.windows(needle.len()).any(|it| it == needle)
    };
    // Numbers are written out only when some label holds a digit; else a mark that no label
    // holds keeps the words around a number apart just the same.
    let digits = index.labels.iter().any(u8::is_ascii_digit);
    let label = |range: &Range<usize>| &index.labels[range.clone()];
    // A label of function words only (a column named "to" or "in") cannot tell which part
    // speaks of its cell: every sentence says it ("over the 12 months to 2025-06-30").
    let names_something = |range: &Range<usize>| {
        std::str::from_utf8(label(range))
            .unwrap_or_default()
            .split(' ')
            .any(|word| !word.is_empty() && !planner_knowledge::is_function_word(word))
    };
    let mentions =
        |text: &[u8], range: &Range<usize>| names_something(range) && contains(text, label(range));
    let mut text = Vec::new();
    // Tokens come in narration order, so each part is one run of them.
    for part in tokens.chunk_by(|a, b| a.part == b.part) {
        let numbers = || {
            part.iter().filter_map(|token| match token.kind {
                Kind::Number { value, .. } => Some(value),
                _ => None,
            })
        };
        if numbers().next().is_none() {
            continue;
        }
        words_text(part, &mut text, digits);
        for cell in &index.suppressed {
            let about = match (&cell.row, cell.several_numbers) {
                (Some(row), false) => mentions(&text, row),
                (Some(row), true) => mentions(&text, row) && mentions(&text, &cell.column),
                (None, _) => mentions(&text, &cell.column),
            };
            if !about {
                continue;
            }
            for number in numbers() {
                if !index.allowed[cell.allowed.clone()].contains(&number.canonical()) {
                    misses.push(Miss::SuppressedNumber(render(number)));
                }
            }
        }
    }
}

fn check_people(tokens: &[Token<'_>], misses: &mut Vec<Miss>) {
    for clause in tokens.chunk_by(|a, b| a.clause == b.clause) {
        let (mut people, mut ranking) = (false, false);
        // `top` ranks unless `secret` follows (a clearance level).
        let mut top = false;
        for token in clause {
            let Kind::Word(word) = token.kind else { continue };
            with_lower(word, |word| {
                people |= is_people(word);
                ranking |= top && word != "secret";
                top = word == "top";
                ranking |= !top && is_ranking(word);
            });
        }
        ranking |= top;
        if people && ranking {
            let words: Vec<Cow<'_, str>> = clause
                .iter()
                .filter_map(|token| match token.kind {
                    Kind::Word(word) => Some(lower(word)),
                    _ => None,
                })
                .collect();
            misses.push(Miss::RanksPeople(words.join(" ")));
        }
    }
}
