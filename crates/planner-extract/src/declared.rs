//! Extractors for the kinds a registry file declares (`[kinds]`): one generic matcher per type,
//! compiled once from the declarations into word tables, then run over a question's words.
//!
//! The question is split into words once; each word's id comes from an open-addressed table of
//! the declared words ([`PackedTable`], as the built-in vocabulary). One pass over the words
//! asks, at each word, only the matchers that may start there: a bit per matcher and word id
//! (dictionary and list aliases, context and cue words), the time matchers at words that may
//! start a time (an integer's too: "5 biggest"), the code and UUID matchers at words of the
//! length their shape requires; the quoted-text matchers read the text once. A word that is no
//! declared word but ends in `s` takes its singular's id when that ends an alias ("P1s"), and a
//! singular its plural's ("bean" of "beans"); a list's value whose alias ends in a word the
//! knowledge file says names a thing (a noun, or no English word) is read without its
//! context ([`NOUN`]). Each
//! match is a candidate (a run of words, a kind, the makings of its value); the question is
//! then read left to right, taking at each word the
//! longest candidate (ties go to the earlier type in [`KindType::ALL`] order, then to the kind
//! declared first), so no byte belongs to two params, and only the candidates taken get their
//! canonical value built. Words an identifier of a built-in kind owns are not read.
//! `reference.rs` (tests) keeps the straightforward path, every matcher at every word, which
//! a property test holds this one to.

use std::collections::BTreeMap;

use planner_registry::{
    CaseRule, CodeShape, DurationUnit, Entry, KindBody, KindSpec, KindType, ParamKind, Value,
    days_in,
};

use crate::mention::{Diagnostic, Mention, Problem, Span};
use crate::pack::{FastMap, PackedTable, pack_bytes};

/// One word of the question: a run of letters and digits, with its lower-case form (a range of
/// [`Words::lower_text`]) and its id in the compiled word table.
#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    lower: (u32, u32),
    id: u32,
    /// [`TIME`] when the word may start a date, a range or a duration.
    flags: u8,
}

/// A word that may start a date, a date range or a duration: a number, a month, a preposition
/// of time, a quarter, a fiscal or calendar year, a direction ("last", "next").
const TIME: u8 = 1;

/// A word that ends a dictionary's or list's alias: its plural ("P1s", "laptops") is read as
/// the word itself where the plural is no word of the table.
const PLURAL: u8 = 2;

/// A plural in `s` that ends a dictionary's or list's alias ("beans"): its singular is read as
/// the word itself where the singular is no word of the table, as English writes a noun that
/// modifies another ("bean contracts", "truck routes"). See [`is_plural_form`].
const SINGULAR: u8 = 4;

/// A word ending an alias that English uses mostly as a noun, or does not know ("mechanics",
/// "recycling", "Tdap"; not "open", "resolved" or "online"): a list's value ending so is read
/// wherever it stands, as a dictionary's is, for it names a thing. An adjective or a participle
/// ("open tickets") qualifies the thing an ask is about, and is a value only beside its
/// context. From the knowledge file (WordNet 3.0's tag counts).
const NOUN: u8 = 8;

/// Whether an alias among words `from..to` (values joined as one list) ends in a [`NOUN`]
/// written with a lower-case letter: one value that names a thing makes the others beside it
/// its list ("glass + paper"); a value in capitals ("HCS") is a code, read beside its
/// context.
fn names_a_thing(words: &Words<'_>, from: usize, to: usize) -> bool {
    (from..to).any(|j| {
        let flags = words.words[j].flags;
        flags & PLURAL != 0
            && flags & NOUN != 0
            && words.raw(j).bytes().any(|b| b.is_ascii_lowercase())
    })
}

/// Whether English uses `word` mostly as a noun, or does not know it ([`NOUN`]).
fn names_thing(word: &str) -> bool {
    let knowledge = planner_knowledge::Knowledge::english();
    !planner_knowledge::is_function_word(word)
        && knowledge.word(word).is_none_or(|known| known.usually_noun())
}

/// Whether an alias's last word is a plural in `s` whose singular is a word of its own: four
/// letters or more, not in `ss`, `us` or `is` ("address", "status", "analysis" are singular).
fn is_plural_form(word: &str) -> bool {
    word.len() >= 4
        && word.bytes().all(|b| b.is_ascii_lowercase())
        && word.ends_with('s')
        && !(word.ends_with("ss") || word.ends_with("us") || word.ends_with("is"))
}

/// The words that may start a time expression, besides numbers, number words, month names and
/// `FY2025`-like words.
const TIME_WORDS: &[&str] = &[
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
    "between",
    "from",
    "since",
    "starting",
    "after",
    "before",
    "until",
    "through",
    "till",
    "thru",
    "up",
    "in",
    "during",
    "for",
    "of",
    "throughout",
    "q1",
    "q2",
    "q3",
    "q4",
    "h1",
    "h2",
    "fy",
    "cy",
    "fiscal",
    "calendar",
    "last",
    "past",
    "next",
    "coming",
    "previous",
    "prior",
    "trailing",
    "upcoming",
    "following",
    "a",
    "an",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "first",
    "second",
    "third",
    "fourth",
    "this",
    "current",
    "year",
    "quarter",
    "month",
    "ytd",
    "qtd",
    "mtd",
    "week",
    "yesterday",
    "today",
];

/// Counts written as words, by value.
pub(crate) const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// The months' names, lower case, by number less one.
const MONTH_NAMES: [&str; 12] = [
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
];

/// How an open start and an open end of a date range are written.
const OPEN_START: &str = "-infinity";
const OPEN_END: &str = "infinity";

/// The id of a word no declared kind names.
const NO_WORD: u32 = u32::MAX;

/// The words of one question, with the text between them.
struct Words<'a> {
    text: &'a str,
    words: Vec<Word>,
    /// Every word's lower-case form: one allocation for the question.
    lower_text: String,
    /// Where a char that may open a quote stands (`"`, `'`, “, ‘, «), in order.
    quotes: Vec<usize>,
}

impl<'a> Words<'a> {
    fn new(text: &'a str, table: &WordTable) -> Words<'a> {
        if text.is_ascii() && u32::try_from(text.len()).is_ok() {
            return Words::new_ascii(text, table);
        }
        let bytes = text.as_bytes();
        let mut out = Words {
            text,
            words: Vec::with_capacity(text.len() / 5 + 1),
            lower_text: String::with_capacity(text.len()),
            quotes: Vec::new(),
        };
        let mut i = 0;
        while i < bytes.len() {
            let (alnum, len) = char_class(text, i);
            if !alnum {
                if text.get(i..).and_then(|rest| rest.chars().next()).and_then(closes).is_some() {
                    out.quotes.push(i);
                }
                if bytes[i] == b'&' {
                    let from = out.lower_text.len();
                    out.lower_text.push_str("and");
                    out.words.push(and_word(i, from, table));
                }
                i += len;
                continue;
            }
            let start = i;
            let mut ascii = len == 1;
            i += len;
            while i < bytes.len() {
                let (alnum, len) = char_class(text, i);
                if !alnum {
                    break;
                }
                ascii &= len == 1;
                i += len;
            }
            out.push(start, i, ascii, table);
        }
        out
    }

    /// [`Words::new`] for an ASCII text: lower-cased once as a whole, so each word's lower-case
    /// form lies at the same bytes as the word.
    fn new_ascii(text: &'a str, table: &WordTable) -> Words<'a> {
        let lower_text = text.to_ascii_lowercase();
        let bytes = lower_text.as_bytes();
        let mut words = Vec::with_capacity(text.len() / 5 + 1);
        let mut quotes = Vec::new();
        // The lower-case form of every `&`: the word "and", written once after the text.
        let and_at = text.len() + 1;
        let mut ands = false;
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_alphanumeric() {
                if matches!(bytes[i], b'"' | b'\'') {
                    quotes.push(i);
                }
                if bytes[i] == b'&' {
                    ands = true;
                    words.push(and_word(i, and_at, table));
                }
                i += 1;
                continue;
            }
            let start = i;
            while bytes.get(i).is_some_and(u8::is_ascii_alphanumeric) {
                i += 1;
            }
            let word = &bytes[start..i];
            let id = table.ascii_id(word);
            let flags = table.flags(id) | time_shape(word);
            let lower =
                (u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(i).unwrap_or(u32::MAX));
            words.push(Word { start, end: i, lower, id, flags });
        }
        let mut out = Words { text, words, lower_text, quotes };
        if ands {
            out.lower_text.push_str(" and");
        }
        out
    }

    fn push(&mut self, start: usize, end: usize, ascii: bool, table: &WordTable) {
        let from = self.lower_text.len();
        let raw = &self.text[start..end];
        let id = if ascii {
            self.lower_text.push_str(raw);
            let lower = &mut self.lower_text[from..];
            lower.make_ascii_lowercase();
            table.ascii_id(lower.as_bytes())
        } else {
            self.lower_text.extend(raw.chars().flat_map(char::to_lowercase));
            table.id(&self.lower_text[from..])
        };
        let to = self.lower_text.len();
        let lower = &self.lower_text[from..to];
        let flags = table.flags(id) | time_shape(lower.as_bytes());
        let range =
            (u32::try_from(from).unwrap_or(u32::MAX), u32::try_from(to).unwrap_or(u32::MAX));
        self.words.push(Word { start, end, lower: range, id, flags });
    }

    fn id(&self, i: usize) -> u32 {
        self.words.get(i).map_or(NO_WORD, |w| w.id)
    }

    fn len(&self) -> usize {
        self.words.len()
    }

    fn lower(&self, i: usize) -> &str {
        self.words.get(i).map_or("", |w| {
            self.lower_text.get(w.lower.0 as usize..w.lower.1 as usize).unwrap_or("")
        })
    }

    fn raw(&self, i: usize) -> &'a str {
        self.words.get(i).map_or("", |w| &self.text[w.start..w.end])
    }

    /// The text between word `i - 1` (or the start) and word `i` (or the end).
    fn gap_before(&self, i: usize) -> &'a str {
        let start =
            if i == 0 { 0 } else { self.words.get(i - 1).map_or(self.text.len(), |w| w.end) };
        let end = self.words.get(i).map_or(self.text.len(), |w| w.start);
        self.text.get(start..end).unwrap_or("")
    }

    /// Whether the gap before word `i` is a light one inside a phrase: blanks, dots, hyphens,
    /// apostrophes, underscores and slashes ("TS/SCI", "w/").
    fn joined(&self, i: usize) -> bool {
        let gap = self.gap_before(i);
        gap.len() <= 6
            && gap
                .chars()
                .all(|c| c.is_whitespace() || matches!(c, '.' | '-' | '\'' | '’' | '_' | '/'))
    }

    /// Whether word `i` is a part of a larger number written with a decimal point or a
    /// thousands separator ("1.5", "1,541,512", "541512.5"): no part of such a number is a
    /// count, a length or a code of its own.
    fn in_larger_number(&self, i: usize) -> bool {
        let Some(w) = self.words.get(i) else { return false };
        let mark = |c: Option<char>| matches!(c, Some('.' | ','));
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let mut before = self.text[..w.start].chars().rev();
        let mut after = self.text[w.end..].chars();
        (mark(before.next()) && digit(before.next())) || (mark(after.next()) && digit(after.next()))
    }

    /// Whether word `i` is hyphenated or slashed to the word before it, so part of it (the
    /// "2005" of "TE-2005").
    fn tail_of_previous(&self, i: usize) -> bool {
        i > 0 && self.gap_before(i).ends_with(['-', '/'])
    }

    fn span(&self, from: usize, to: usize) -> Span {
        let start = self.words.get(from).map_or(0, |w| w.start);
        let end = self.words.get(to.saturating_sub(1)).map_or(start, |w| w.end);
        Span { start, end }
    }

    /// Whether words `from..to` follow one another with light gaps.
    fn phrase(&self, from: usize, to: usize) -> bool {
        to <= self.len() && (from + 1..to).all(|i| self.joined(i))
    }

    /// Whether the words `from..to` are exactly enclosed in one pair of quotes.
    fn quoted(&self, from: usize, to: usize) -> bool {
        let (Some(first), Some(last)) = (self.words.get(from), self.words.get(to.wrapping_sub(1)))
        else {
            return false;
        };
        let before = self.text[..first.start].chars().next_back();
        let after = self.text[last.end..].chars().next();
        before.zip(after).is_some_and(|(b, a)| closes(b) == Some(a))
    }
}

/// The word "and" written `&` at `at`, its lower-case form at `from` of the lower-case text:
/// "R&D", "Parks & Recreation", as [`planner_registry::alias_words`] reads an alias's `&`.
fn and_word(at: usize, from: usize, table: &WordTable) -> Word {
    let id = table.ascii_id(b"and");
    let lower =
        (u32::try_from(from).unwrap_or(u32::MAX), u32::try_from(from + 3).unwrap_or(u32::MAX));
    Word { start: at, end: at + 1, lower, id, flags: table.flags(id) }
}

/// [`TIME`] for a lower-case word that is a number or a year after `fy` or `cy` ("fy2025").
fn time_shape(word: &[u8]) -> u8 {
    let numeric = word.first().is_some_and(u8::is_ascii_digit);
    let prefixed_year = word.len() > 2
        && matches!(&word[..2], b"fy" | b"cy")
        && word[2..].iter().all(u8::is_ascii_digit);
    if numeric || prefixed_year { TIME } else { 0 }
}

/// Whether the char at byte `at` (a char boundary) is alphanumeric, and its length in bytes.
fn char_class(text: &str, at: usize) -> (bool, usize) {
    match text.as_bytes().get(at) {
        Some(&b) if b < 0x80 => (b.is_ascii_alphanumeric(), 1),
        Some(_) => text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
        None => (false, 1),
    }
}

/// The closing quote of an opening one.
fn closes(open: char) -> Option<char> {
    match open {
        '"' => Some('"'),
        '\'' => Some('\''),
        '“' => Some('”'),
        '‘' => Some('’'),
        '«' => Some('»'),
        _ => None,
    }
}

/// Every word the declared kinds' aliases, cues and context words use, with a dense id.
///
/// Words of ASCII letters and digits up to 16 bytes, the ones a question's ASCII words can be,
/// are looked up packed ([`PackedTable`]); the others by their text.
#[derive(Debug, Default)]
struct WordTable {
    /// Every word by its text, while the kinds compile.
    ids: BTreeMap<Box<str>, u32>,
    /// The packed words, built by [`WordTable::freeze`].
    packed: Option<PackedTable<u32>>,
    /// The other words (longer, or not ASCII letters and digits).
    other: FastMap<Box<str>, u32>,
    /// Per id: the word's flags.
    flags: Vec<u8>,
}

/// Whether a lower-case word is looked up packed.
fn packs(word: &str) -> bool {
    !word.is_empty()
        && word.len() <= 16
        && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

impl WordTable {
    fn add(&mut self, word: &str) -> u32 {
        let next = u32::try_from(self.ids.len()).unwrap_or(NO_WORD - 1);
        let id = *self.ids.entry(word.into()).or_insert(next);
        if self.flags.len() <= id as usize {
            self.flags.resize(id as usize + 1, 0);
        }
        id
    }

    fn mark(&mut self, word: &str, flag: u8) {
        let id = self.add(word);
        if let Some(flags) = self.flags.get_mut(id as usize) {
            *flags |= flag;
        }
    }

    /// Builds the lookup tables once every word is added.
    fn freeze(&mut self) {
        let packed: Vec<(u128, u32)> = self
            .ids
            .iter()
            .filter(|(word, _)| packs(word))
            .map(|(word, &id)| (pack_bytes(word.as_bytes()), id))
            .collect();
        self.packed = Some(PackedTable::new(packed.into_iter(), NO_WORD));
        self.other = self
            .ids
            .iter()
            .filter(|(word, _)| !packs(word))
            .map(|(word, &id)| (word.clone(), id))
            .collect();
    }

    /// The id of a lower-case word.
    fn id(&self, word: &str) -> u32 {
        if packs(word) {
            self.packed_id(pack_bytes(word.as_bytes()))
        } else {
            self.other.get(word).copied().unwrap_or(NO_WORD)
        }
    }

    /// The id of a packed lower-case word of ASCII letters and digits.
    fn packed_id(&self, packed: u128) -> u32 {
        self.packed.as_ref().map_or(NO_WORD, |table| table.get(packed))
    }

    /// The id of a lower-case word of ASCII letters and digits: its own, or, for a plural in
    /// `s` that is no word of the table, its singular's where that ends an alias ([`PLURAL`]).
    /// The same, for a singular that is no word of the table, gives its plural's where that
    /// ends an alias ([`SINGULAR`]).
    fn ascii_id(&self, word: &[u8]) -> u32 {
        let id = self.ascii_id_exact(word);
        if id != NO_WORD || word.len() < 3 {
            return id;
        }
        if word.last() == Some(&b's') {
            let singular = self.ascii_id_exact(&word[..word.len() - 1]);
            if self.flags(singular) & PLURAL != 0 {
                return singular;
            }
        }
        let mut plural = [0u8; 16];
        let Some(room) = plural.get_mut(..=word.len()) else { return NO_WORD };
        room[..word.len()].copy_from_slice(word);
        room[word.len()] = b's';
        let id = self.ascii_id_exact(room);
        if self.flags(id) & SINGULAR != 0 { id } else { NO_WORD }
    }

    fn ascii_id_exact(&self, word: &[u8]) -> u32 {
        if word.len() <= 16 {
            self.packed_id(pack_bytes(word))
        } else {
            std::str::from_utf8(word).map_or(NO_WORD, |word| self.id(word))
        }
    }

    /// The number of distinct words.
    fn len(&self) -> usize {
        self.ids.len()
    }

    fn flags(&self, id: u32) -> u8 {
        self.flags.get(id as usize).copied().unwrap_or(0)
    }

    fn phrase(&mut self, words: &[String]) -> Vec<u32> {
        words.iter().map(|w| self.add(w)).collect()
    }
}

/// A word trie over a dictionary's aliases: longest alias wins.
#[derive(Debug)]
struct Phrases {
    /// Per node: the entry, case rule and term flag ([`planner_registry::is_term`]) of the
    /// alias ending there.
    terminal: Vec<Option<(usize, CaseRule, bool)>>,
    /// [`edge`] of a node and a word id to the child node.
    edges: PackedTable<u32>,
    /// Per word id: whether some alias starts with it.
    starts: Vec<bool>,
}

/// The key of the trie edge from `node` by word `id` (never 0).
fn edge(node: u32, id: u32) -> u128 {
    (1u128 << 64) | (u128::from(node) << 32) | u128::from(id)
}

/// The node no edge leads to.
const NO_NODE: u32 = u32::MAX;

impl Phrases {
    fn new(entries: &[Entry], table: &mut WordTable) -> Phrases {
        let mut terminal = vec![None];
        let mut edges: BTreeMap<u128, u32> = BTreeMap::new();
        let mut starts = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            for alias in &entry.aliases {
                let mut node = 0u32;
                let ids = table.phrase(&alias.words);
                if let Some(last) = alias.words.last() {
                    table.mark(last, PLURAL);
                    if is_plural_form(last) {
                        table.mark(last, SINGULAR);
                    }
                    if names_thing(last) {
                        table.mark(last, NOUN);
                    }
                }
                if let Some(&first) = ids.first() {
                    let at = first as usize;
                    if starts.len() <= at {
                        starts.resize(at + 1, false);
                    }
                    starts[at] = true;
                }
                for id in ids {
                    let next = u32::try_from(terminal.len()).unwrap_or(NO_NODE - 1);
                    node = *edges.entry(edge(node, id)).or_insert_with(|| {
                        terminal.push(None);
                        next
                    });
                }
                if let Some(slot) = terminal.get_mut(node as usize)
                    && slot.is_none()
                {
                    *slot = Some((index, alias.case, alias.term));
                }
            }
        }
        Phrases { terminal, edges: PackedTable::new(edges.into_iter(), NO_NODE), starts }
    }

    /// Whether some alias starts with the word id.
    fn starts_with(&self, id: u32) -> bool {
        self.starts.get(id as usize).copied().unwrap_or(false)
    }

    /// The longest alias at word `i`: (entry, one past its last word).
    fn at(&self, words: &Words<'_>, i: usize) -> Option<(usize, usize)> {
        self.matched(words, i).map(|(index, end, _)| (index, end))
    }

    /// The longest alias at word `i`: (entry, one past its last word, whether it is a term
    /// written as one: an alias shaped as a term whose words in the question are too).
    fn matched(&self, words: &Words<'_>, i: usize) -> Option<(usize, usize, bool)> {
        if !self.starts_with(words.id(i)) {
            return None;
        }
        let mut node = 0u32;
        let mut best = None;
        let mut end = i;
        while end < words.len() {
            if end > i && !words.joined(end) {
                break;
            }
            let child = self.edges.get(edge(node, words.id(end)));
            if child == NO_NODE {
                break;
            }
            node = child;
            end += 1;
            if let Some(Some((index, case, term))) = self.terminal.get(node as usize)
                && case_fits(words, i, end, *case)
            {
                let written = || (i..end).any(|j| planner_registry::is_term(words.raw(j)));
                best = Some((*index, end, *term && written()));
            }
        }
        best
    }
}

fn case_fits(words: &Words<'_>, from: usize, to: usize, case: CaseRule) -> bool {
    if case == CaseRule::Any || words.quoted(from, to) {
        return true;
    }
    let raw = words.raw(from);
    let first_upper = raw.chars().next().is_some_and(char::is_uppercase);
    match case {
        CaseRule::Any => true,
        CaseRule::Upper => {
            (from..to).all(|i| words.raw(i).chars().all(|c| !c.is_lowercase()))
                && raw.chars().any(char::is_uppercase)
        }
        CaseRule::Acronym => first_upper && raw.chars().next_back().is_some_and(char::is_uppercase),
        CaseRule::Capitalised => {
            let before = words.text[..words.words.get(from).map_or(0, |w| w.start)].trim_end();
            let sentence_start = before.is_empty() || before.ends_with(['.', '?', '!', ':', ';']);
            first_upper && !sentence_start
        }
    }
}

/// One compiled kind.
#[derive(Debug)]
struct Matcher {
    kind: ParamKind,
    rank: usize,
    how: How,
}

#[derive(Debug)]
enum How {
    Dictionary {
        values: Vec<String>,
        phrases: Phrases,
    },
    Code {
        shape: CodeShape,
        codes: Vec<String>,
        cues: Vec<Vec<u32>>,
        bare_mixed: bool,
        /// The titles of the list's codes, read as a dictionary's aliases are, and the code of
        /// each title entry.
        titles: Phrases,
        titled: Vec<String>,
    },
    List {
        values: Vec<String>,
        phrases: Phrases,
        context: Vec<Vec<u32>>,
    },
    Uuid,
    Duration {
        unit: DurationUnit,
    },
    Date,
    /// `relative`: calendar periods relative to the data's date; `rolling`: "the past 6
    /// months" too (off when a duration kind reads those words).
    DateRange {
        fiscal_year_start: u8,
        relative: bool,
        rolling: bool,
    },
    Integer {
        cues: Vec<Vec<u32>>,
    },
    QuotedText {
        max_len: usize,
    },
}

/// A proposed param: words `from..to`, the matcher that found it, and what its value is made
/// of (the value itself is built only for the candidates taken).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Candidate {
    from: usize,
    to: usize,
    matcher: usize,
    value: Pending,
}

/// The makings of a candidate's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// A dictionary's entry.
    Entry(usize),
    /// A list's entries, `len` of them from `at` in the scratch list, as found.
    List { at: usize, len: usize },
    /// A code: the bytes `start..end` upper-cased, and whether the kind's list holds it.
    Code { start: usize, end: usize, listed: bool },
    /// The bytes `start..end` lower-cased (a UUID).
    Lower { start: usize, end: usize },
    /// The bytes `start..end` as written (a quoted text).
    Text { start: usize, end: usize },
    /// A whole number.
    Int(i64),
    /// A day.
    Day(Day),
    /// `[start, end)`, `None` for an open end.
    Range(Option<Day>, Option<Day>),
    /// A period relative to the data's date: its two bounds as `planner_registry::resolve_bound`
    /// reads them.
    Relative(&'static str, Relative),
}

/// The end bound of a relative period, `(anchor and offsets)`: a fixed one, or "the past N
/// units" ending with the data's date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relative {
    /// A fixed end bound.
    To(&'static str),
    /// The `n` units (months, or days when `days`) up to and including the data's date.
    Past { n: i64, days: bool },
    /// A run of `span` months named without a year that ends with month `last`, the latest such
    /// run begun by the data's date (`anchor` `L`) or ended before its month (`P`); the start
    /// bound this carries beside it is unused, both bounds are counted from the last month.
    Months { anchor: char, last: u8, span: u8 },
}

impl Relative {
    /// The two bounds of the period that ends here and starts at `start`, as
    /// `planner_registry::resolve_bound` reads them.
    fn bounds(self, start: &str) -> Vec<String> {
        match self {
            Relative::To(end) => vec![start.to_owned(), end.to_owned()],
            Relative::Past { n, days } => {
                let unit = if days { 'd' } else { 'm' };
                vec![format!("{start}-{n}{unit}"), start.to_owned()]
            }
            Relative::Months { anchor, last, span } => {
                let first = match span {
                    0 | 1 => format!("@{anchor}{last}"),
                    _ => format!("@{anchor}{last}-{}m", span - 1),
                };
                vec![first, format!("@{anchor}{last}+1m")]
            }
        }
    }
}

/// The compiled matchers of a registry's declared kinds.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    matchers: Vec<Matcher>,
    table: WordTable,
    /// `lanes` words of bits per word id: the matchers that may start at a word with that id
    /// (a dictionary's or list's alias or context word, the word before an integer's number).
    starts: Vec<u64>,
    lanes: usize,
    /// The duration, date and date-range matchers, asked at words that may start a time.
    timed: Vec<usize>,
    /// The code and UUID matchers, asked at words of the length their first word must have
    /// (`None`: any length).
    shaped: Vec<(usize, Option<usize>)>,
    /// The quoted-text matchers, which read the text once each.
    quoted: Vec<usize>,
}

impl Declared {
    pub(crate) fn new(kinds: &[KindSpec]) -> Declared {
        let mut table = WordTable::default();
        let timed = kinds.iter().any(|k| {
            matches!(
                k.body,
                KindBody::Duration { .. } | KindBody::Date | KindBody::DateRange { .. }
            )
        });
        if timed {
            for word in TIME_WORDS.iter().chain(&NUMBER_WORDS).chain(&MONTH_NAMES) {
                table.mark(word, TIME);
            }
        }
        let mut matchers: Vec<Matcher> = kinds
            .iter()
            .map(|spec| {
                let ty = spec.body.ty();
                let rank = KindType::ALL.iter().position(|t| *t == ty).unwrap_or(0);
                Matcher { kind: spec.kind, rank, how: compile(&spec.body, &mut table) }
            })
            .collect();
        matchers.sort_by_key(|m| m.rank);
        // "The past 6 months" is a duration's words when a kind reads durations.
        if kinds.iter().any(|k| matches!(k.body, KindBody::Duration { .. })) {
            for matcher in &mut matchers {
                if let How::DateRange { rolling, .. } = &mut matcher.how {
                    *rolling = false;
                }
            }
        }
        table.freeze();
        let lanes = matchers.len().div_ceil(64).max(1);
        let mut out = Declared {
            starts: vec![0; table.len() * lanes],
            lanes,
            table,
            timed: Vec::new(),
            shaped: Vec::new(),
            quoted: Vec::new(),
            matchers: Vec::new(),
        };
        let ids = u32::try_from(out.table.len()).unwrap_or(u32::MAX);
        // The word ids an alias of `phrases` starts with.
        let phrase_starts = |phrases: &Phrases| {
            (0..ids).filter(|&id| phrases.starts_with(id)).collect::<Vec<u32>>()
        };
        for (m, matcher) in matchers.iter().enumerate() {
            let mut mark = |id: u32| {
                if let Some(lane) = out.starts.get_mut(id as usize * lanes + m / 64) {
                    *lane |= 1 << (m % 64);
                }
            };
            match &matcher.how {
                How::Dictionary { phrases, .. } => {
                    phrase_starts(phrases).into_iter().for_each(mark)
                }
                How::List { context, phrases, .. } => {
                    // A list is read from its context word, or from its first value.
                    context.iter().filter_map(|c| c.first()).for_each(|&id| mark(id));
                    phrase_starts(phrases).into_iter().for_each(mark);
                }
                How::Integer { cues } => {
                    cues.iter().filter_map(|c| c.last()).for_each(|&id| mark(id));
                    // A number may also come before its cue or a superlative ("5 biggest").
                    out.timed.push(m);
                }
                How::Code { shape, titles, .. } => {
                    out.shaped.push((m, shape.head_len()));
                    phrase_starts(titles).into_iter().for_each(mark);
                }
                How::Uuid => out.shaped.push((m, Some(8))),
                How::Duration { .. } | How::Date | How::DateRange { .. } => out.timed.push(m),
                How::QuotedText { .. } => out.quoted.push(m),
            }
        }
        out.matchers = matchers;
        out
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }

    /// The mentions and diagnostics of the declared kinds in `question`, outside `taken`.
    pub(crate) fn extract(
        &self,
        question: &str,
        taken: &[Span],
        mentions: &mut Vec<Mention>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let words = Words::new(question, &self.table);
        let mut candidates = Vec::with_capacity(words.len() / 2 + 4);
        let mut scratch = Vec::new();
        self.candidates(&words, &mut candidates, &mut scratch);
        let first = mentions.len();
        self.choose(&words, taken, candidates, &scratch, mentions, diagnostics);
        self.window_twins(&words, first, mentions);
        self.day_twin(first, mentions);
    }

    /// A day that a date range kind took ("as of 2025-03-01", "on 1 March 2025": a range of
    /// that one day, its words longer by the preposition) is also a date, which a date kind
    /// reads: given as both (the same span), as a window is, so an intent taking a day binds
    /// what the question said. Only where the question gives one such day and no date.
    pub(super) fn day_twin(&self, first: usize, mentions: &mut Vec<Mention>) {
        let Some(date) = self.matchers.iter().find(|m| matches!(m.how, How::Date)) else {
            return;
        };
        if mentions.iter().any(|m| m.kind == date.kind) {
            return;
        }
        let is_range = |kind| {
            self.matchers.iter().any(|m| m.kind == kind && matches!(m.how, How::DateRange { .. }))
        };
        let days: Vec<(usize, String)> = (first..mentions.len())
            .filter(|&at| is_range(mentions[at].kind))
            .filter_map(|at| one_day(&mentions[at].value).map(|day| (at, day)))
            .collect();
        let [(at, ref day)] = days[..] else { return };
        let twin = Mention {
            kind: date.kind,
            value: Value::Text(day.clone()),
            span: mentions[at].span,
            role: None,
        };
        mentions.insert(at + 1, twin);
    }

    /// A window said as a length ("over the past 9 weeks", "last week") that a duration kind took
    /// is also a period ending at the data's date, which a date range kind reads: one value
    /// two kinds can read, given as both (the same span), so an intent taking a period, not a
    /// length, still binds what the question said. Only where the question says no other
    /// period of that kind.
    fn window_twins(&self, words: &Words<'_>, first: usize, mentions: &mut Vec<Mention>) {
        let Some(range) = self
            .matchers
            .iter()
            .find(|m| matches!(m.how, How::DateRange { relative: true, rolling: false, .. }))
        else {
            return;
        };
        if mentions.iter().any(|m| m.kind == range.kind) {
            return;
        }
        let durations: Vec<usize> = (first..mentions.len())
            .filter(|&at| {
                self.matchers
                    .iter()
                    .any(|m| m.kind == mentions[at].kind && matches!(m.how, How::Duration { .. }))
            })
            .collect();
        let [at] = durations[..] else { return };
        let span = mentions[at].span;
        let Some(to) = (0..words.len()).find(|&i| words.span(i, i + 1).end == span.end) else {
            return;
        };
        let from = (0..words.len()).find(|&i| words.span(i, i + 1).start == span.start);
        let Some(from) = from else { return };
        // The window's words start at the duration's, or one word before ("past", "last").
        let twin = [from.checked_sub(1), Some(from)]
            .into_iter()
            .flatten()
            .find_map(|start| relative_at(words, start).filter(|(end, ..)| *end == to + 1));
        if let Some((_, start, stop)) = twin {
            let value = Value::List(stop.bounds(start));
            mentions.insert(at + 1, Mention { kind: range.kind, value, span, role: None });
        }
    }

    /// Every candidate: one pass over the words, asking at each only the matchers that may
    /// start there, then the quoted texts.
    fn candidates(&self, words: &Words<'_>, out: &mut Vec<Candidate>, scratch: &mut Vec<usize>) {
        for (i, w) in words.words.iter().enumerate() {
            if w.id != NO_WORD {
                let at = w.id as usize * self.lanes;
                for (lane, &bits) in
                    self.starts.get(at..at + self.lanes).unwrap_or(&[]).iter().enumerate()
                {
                    let mut bits = bits;
                    while bits != 0 {
                        let m = lane * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        self.ask(m, words, i, out, scratch);
                    }
                }
            }
            if w.flags & TIME != 0 {
                for &m in &self.timed {
                    self.ask(m, words, i, out, scratch);
                }
            }
            for &(m, len) in &self.shaped {
                if len.is_none_or(|len| w.end - w.start == len) {
                    self.ask(m, words, i, out, scratch);
                }
            }
        }
        for &m in &self.quoted {
            if let Some(Matcher { how: How::QuotedText { max_len }, .. }) = self.matchers.get(m) {
                quoted_texts(words, *max_len, &mut |from, to, value| {
                    out.push(Candidate { from, to, matcher: m, value });
                });
            }
        }
    }

    /// Asks matcher `m` at word `i`.
    fn ask(
        &self,
        m: usize,
        words: &Words<'_>,
        i: usize,
        out: &mut Vec<Candidate>,
        scratch: &mut Vec<usize>,
    ) {
        let Some(matcher) = self.matchers.get(m) else { return };
        let mut push = |from: usize, to: usize, value: Pending| {
            out.push(Candidate { from, to, matcher: m, value });
        };
        match &matcher.how {
            How::Dictionary { phrases, .. } => {
                if let Some((index, end)) = phrases.at(words, i) {
                    push(i, end, Pending::Entry(index));
                }
            }
            How::List { phrases, context, .. } => {
                if let Some((start, end, found)) = list_at(words, i, phrases, context, scratch) {
                    push(start, end, found);
                }
                if let Some((end, found)) = bare_list_at(words, i, phrases, context, scratch) {
                    push(i, end, found);
                }
            }
            How::Code { shape, codes, cues, bare_mixed, titles, .. } => {
                if let Some((end, value)) = code_value(words, i, shape, codes, cues, *bare_mixed) {
                    push(i, end, value);
                }
                if let Some((index, end)) = titles.at(words, i)
                    && words.quoted(i, end)
                {
                    push(i, end, Pending::Entry(index));
                }
            }
            How::Uuid => {
                if let Some(end) = uuid_at(words, i) {
                    let span = words.span(i, end);
                    push(i, end, Pending::Lower { start: span.start, end: span.end });
                }
            }
            How::Duration { unit } => {
                if let Some((end, n)) = duration_at(words, i, *unit) {
                    push(i, end, Pending::Int(n));
                }
            }
            How::Date => {
                if let Some((end, Period { start, end: stop })) = day_at(words, i)
                    && stop == start.next()
                {
                    push(i, end, Pending::Day(start));
                }
            }
            How::DateRange { fiscal_year_start, relative, rolling } => {
                if let Some((end, (start, stop))) = range_at(words, i, *fiscal_year_start) {
                    push(i, end, Pending::Range(start, stop));
                }
                // Where a duration kind reads lengths, "last week" is the past 7 days as people
                // mostly mean it, the duration's words, not the calendar week.
                if *relative
                    && let Some((end, start, stop)) = relative_at(words, i)
                    && (*rolling
                        || matches!(stop, Relative::Months { .. })
                        || (matches!(stop, Relative::To(_)) && !start.starts_with("@W")))
                {
                    push(i, end, Pending::Relative(start, stop));
                }
            }
            How::Integer { cues } => {
                // Asked at the cue's last word, the number being the next word ("top 5"); and
                // at a number, before a cue or a superlative ("the 5 best", "10 biggest"),
                // after a superlative ("the largest 3") or asked for by "which" ("which 3
                // buyers spent the most").
                let n = i + 1;
                if n < words.len()
                    && cue_ending_at(words, n, cues)
                    && !words.in_larger_number(n)
                    && let Some(value) = number(words.lower(n))
                {
                    push(n, n + 1, Pending::Int(value));
                }
                if (number_before_cue(words, i, cues)
                    || asked_count(words, i, cues)
                    || superlative_before(words, i))
                    && !words.in_larger_number(i)
                    && let Some(value) = number(words.lower(i))
                {
                    push(i, n, Pending::Int(value));
                }
            }
            How::QuotedText { .. } => {}
        }
    }

    /// Takes the candidates on free words left to right, the longest at each word (ties go to
    /// the matcher listed first), and builds their values.
    fn choose(
        &self,
        words: &Words<'_>,
        taken: &[Span],
        mut candidates: Vec<Candidate>,
        scratch: &[usize],
        mentions: &mut Vec<Mention>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let free = |i: usize| {
            words
                .words
                .get(i)
                .is_some_and(|w| !taken.iter().any(|t| t.start < w.end && w.start < t.end))
        };
        if taken.is_empty() {
            candidates.retain(|c| c.from >= c.to || c.to <= words.len());
        } else {
            candidates.retain(|c| (c.from..c.to).all(free));
        }
        // A month said without its year is read only where no other period of its kind is
        // said: beside "2023" or "since March 2023", it is a part of that period, not a
        // second one ("in 2024, mostly in March").
        let yearless = |c: &Candidate| match c.value {
            Pending::Relative(_, Relative::Months { .. }) => true,
            // "since August": from a month named without its year.
            Pending::Relative(start, _) => start.starts_with("@L"),
            _ => false,
        };
        if candidates.iter().any(yearless) {
            let dated: Vec<usize> =
                candidates.iter().filter(|c| !yearless(c)).map(|c| c.matcher).collect();
            candidates.retain(|c| !yearless(c) || !dated.contains(&c.matcher));
        }
        // A calendar period relative to the data's date ("last year") is read as that period,
        // not as the length a duration kind would read in the same words (365 days).
        let calendar = |c: &Candidate| {
            matches!(c.value, Pending::Relative(_, Relative::To(_) | Relative::Months { .. }))
        };
        candidates.sort_by_key(|c| (c.from, std::cmp::Reverse(c.to), !calendar(c), c.matcher));
        let mut next = 0;
        for candidate in candidates {
            if candidate.from < next {
                continue;
            }
            next = candidate.to;
            let Some(matcher) = self.matchers.get(candidate.matcher) else { continue };
            let span = words.span(candidate.from, candidate.to);
            let (value, problem) = matcher.value(words.text, candidate.value, scratch);
            if let Some(problem) = problem {
                diagnostics.push(Diagnostic { span, problem });
            }
            mentions.push(Mention { kind: matcher.kind, value, span, role: None });
        }
    }
}

impl Matcher {
    /// The canonical value of a taken candidate, and its problem if it has one.
    fn value(&self, text: &str, pending: Pending, scratch: &[usize]) -> (Value, Option<Problem>) {
        let slice = |start: usize, end: usize| text.get(start..end).unwrap_or("");
        let value = match (pending, &self.how) {
            (Pending::Entry(index), How::Dictionary { values, .. }) => {
                Value::Text(values.get(index).cloned().unwrap_or_default())
            }
            (Pending::List { at, len }, How::List { values, .. }) => {
                let mut found: Vec<usize> = scratch.get(at..at + len).unwrap_or(&[]).to_vec();
                found.sort_unstable();
                found.dedup();
                Value::List(found.into_iter().filter_map(|at| values.get(at).cloned()).collect())
            }
            (Pending::Entry(index), How::Code { titled, .. }) => {
                Value::Text(titled.get(index).cloned().unwrap_or_default())
            }
            (Pending::Code { start, end, listed }, How::Code { codes, .. }) => {
                let code = slice(start, end).to_ascii_uppercase();
                let problem = (!codes.is_empty() && !listed)
                    .then(|| Problem::NotInList { kind: self.kind, code: code.clone() });
                return (Value::Text(code), problem);
            }
            (Pending::Lower { start, end }, _) => {
                Value::Text(slice(start, end).to_ascii_lowercase())
            }
            (Pending::Text { start, end }, _) => Value::Text(slice(start, end).to_owned()),
            (Pending::Int(n), _) => Value::Int(n),
            (Pending::Day(day), _) => Value::Text(day.iso()),
            (Pending::Relative(start, end), _) => Value::List(end.bounds(start)),
            (Pending::Range(start, end), _) => Value::List(vec![
                start.map_or_else(|| OPEN_START.to_owned(), Day::iso),
                end.map_or_else(|| OPEN_END.to_owned(), Day::iso),
            ]),
            // A value made by one type and read by another: not built by this file.
            (Pending::Entry(_) | Pending::List { .. } | Pending::Code { .. }, _) => {
                Value::Text(String::new())
            }
        };
        (value, None)
    }
}

/// The codes of a list whose titles name them: each title of two words or more, written whole
/// in quotes, in any case ("'Copper Kettle'"), stands for its code, as people name a record by
/// what it is called rather than by its number; so does the title without a part in brackets,
/// which qualifies it ("Espresso Maker (6 cup)": an edition, a size). Quotes say the words are
/// a name: unquoted, a title's words are as often the question's own description ("the
/// downtown express"), and a title of one word is an ordinary word.
pub(crate) fn titled_codes(codes: &std::collections::BTreeMap<String, String>) -> Vec<Entry> {
    codes
        .iter()
        .filter_map(|(code, title)| {
            let mut aliases: Vec<planner_registry::Alias> = Vec::new();
            for written in [title.as_str(), brackets(title).0.as_str()] {
                let words = planner_registry::alias_words(written);
                if words.len() >= 2 && aliases.iter().all(|it| it.words != words) {
                    aliases.push(planner_registry::Alias {
                        words,
                        case: CaseRule::Any,
                        term: false,
                    });
                }
            }
            (!aliases.is_empty()).then(|| Entry {
                value: code.clone(),
                aliases,
                shared: Vec::new(),
                name: None,
            })
        })
        .collect()
}

/// `text` without its parts in round brackets, and those parts joined by a blank.
pub(crate) fn brackets(text: &str) -> (String, String) {
    let (mut outside, mut inside) = (String::with_capacity(text.len()), String::new());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                inside.push(' ');
            }
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => inside.push(c),
        }
    }
    (outside, inside)
}

/// A list after a context cue starting at word `c`: its words and the entries found (pushed on
/// `scratch`).
fn list_at(
    words: &Words<'_>,
    c: usize,
    phrases: &Phrases,
    context: &[Vec<u32>],
    scratch: &mut Vec<usize>,
) -> Option<(usize, usize, Pending)> {
    if !context.iter().any(|cue| cue.first() == Some(&words.id(c))) {
        return None;
    }
    let start = list_start(words, cue_ending(words, c, context)?);
    let at = scratch.len();
    let end = list_values(words, start, phrases, |index, _| scratch.push(index))?;
    Some((start, end, Pending::List { at, len: scratch.len() - at }))
}

/// A list starting at word `i` with no context cue before it: one a context word follows
/// ("SI, TK and G compartments", "web and store channels"), two values or more in capitals
/// joined by slashes ("SI/TK"), values compared, or values that are all terms written as terms
/// ("B2B", "OTAs": no ordinary word has that shape, so no context is needed). Its entries are
/// pushed on `scratch`.
fn bare_list_at(
    words: &Words<'_>,
    i: usize,
    phrases: &Phrases,
    context: &[Vec<u32>],
    scratch: &mut Vec<usize>,
) -> Option<(usize, Pending)> {
    if !phrases.starts_with(words.id(i)) {
        return None;
    }
    let at = scratch.len();
    let mut terms = true;
    let end = list_values(words, i, phrases, |index, term| {
        scratch.push(index);
        terms &= term;
    })?;
    let len = scratch.len() - at;
    if cue_ending(words, end, context).is_some()
        || slashed_capitals(words, i, end, len)
        || compared(words, i, end)
        || terms
        || names_a_thing(words, i, end)
    {
        return Some((end, Pending::List { at, len }));
    }
    scratch.truncate(at);
    None
}

/// Where a list after a context cue ending before word `i` starts: after "of" and an article
/// ("breakdown of the open, pending and closed").
fn list_start(words: &Words<'_>, mut i: usize) -> usize {
    if words.lower(i) == "of" {
        i += 1;
    }
    if matches!(words.lower(i), "the" | "a" | "an") {
        i += 1;
    }
    i
}

/// Whether the values of a list at words `from..to` are compared ("pending versus in
/// progress"): a comparison is a list wherever it stands.
fn compared(words: &Words<'_>, from: usize, to: usize) -> bool {
    (from..to).any(|j| is_versus(words.lower(j)))
}

fn is_versus(word: &str) -> bool {
    matches!(word, "vs" | "versus" | "compared" | "compare" | "compares" | "against")
}

/// Whether words `from..to`, holding `values` list values, are two values or more written in
/// capitals with a slash between each two words.
fn slashed_capitals(words: &Words<'_>, from: usize, to: usize, values: usize) -> bool {
    values >= 2
        && (from + 1..to).all(|j| words.gap_before(j).trim() == "/")
        && (from..to).all(|j| !words.raw(j).chars().any(char::is_lowercase))
}

/// The values of a list starting at word `i`, each handed to `found` (an index into
/// `phrases`), joined by `,` `/` `&` `+`, "and", "or", "vs" or "versus": the word after the last
/// value, or `None` when no value starts at `i`.
fn list_values(
    words: &Words<'_>,
    mut i: usize,
    phrases: &Phrases,
    mut found: impl FnMut(usize, bool),
) -> Option<usize> {
    let mut last = None;
    while let Some((index, end, term)) = phrases.matched(words, i) {
        found(index, term);
        last = Some(end);
        let mut j = end;
        // A noun after a value compared with others ("b2b accounts compared with e-commerce").
        if phrases.at(words, j).is_none()
            && words.gap_before(j).trim().is_empty()
            && words.gap_before(j + 1).trim().is_empty()
            && is_versus(words.lower(j + 1))
        {
            j += 1;
        }
        let gap = words.gap_before(j).trim();
        let separated = matches!(gap, "," | "/" | "&" | "+");
        let joiner = |word: &str| matches!(word, "and" | "or") || is_versus(word);
        if joiner(words.lower(j)) && gap.is_empty() {
            j += 1;
        } else if !separated {
            break;
        }
        if joiner(words.lower(j)) {
            j += 1;
        }
        // "the web versus the marketplaces".
        if words.lower(j) == "the" && phrases.at(words, j + 1).is_some() {
            j += 1;
        }
        // "compared with the web shop", "compared to store", "compare to marketplace".
        if is_versus(words.lower(j.saturating_sub(1)))
            && matches!(words.lower(j), "with" | "to" | "against")
        {
            j += 1;
            if words.lower(j) == "the" {
                j += 1;
            }
        }
        i = j;
    }
    last
}

/// A code of `shape` at word `i` that its list holds, a cue announces or, with `bare_mixed`,
/// its mix of letters and digits tells.
fn code_value(
    words: &Words<'_>,
    i: usize,
    shape: &CodeShape,
    codes: &[String],
    cues: &[Vec<u32>],
    bare_mixed: bool,
) -> Option<(usize, Pending)> {
    let (end, stop) = code_at(words, i, shape)?;
    let start = words.words.get(i)?.start;
    let code = words.text.get(start..stop)?.as_bytes();
    let listed =
        codes.binary_search_by(|c| c.bytes().cmp(code.iter().map(u8::to_ascii_uppercase))).is_ok();
    // A cue right before the code, or with one or two words between ("SKU number AB-1234",
    // "product code no. AB-1234").
    let cued = (0..3).any(|between| i > between && cue_ending_at(words, i - between, cues));
    let mixed = bare_mixed
        && code.iter().any(u8::is_ascii_alphabetic)
        && code.iter().any(u8::is_ascii_digit);
    // Without cues, a kind without a list takes every code of its shape.
    let taken = (cues.is_empty() && codes.is_empty()) || listed || cued || mixed;
    taken.then_some((end, Pending::Code { start, end: stop, listed }))
}

fn compile(body: &KindBody, table: &mut WordTable) -> How {
    let mut words = |list: &[String]| -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> =
            list.iter().map(|w| w.split(' ').map(|w| table.add(w)).collect()).collect();
        out.sort_by_key(|w| std::cmp::Reverse(w.len()));
        out
    };
    match body {
        KindBody::Dictionary { entries, .. } => How::Dictionary {
            values: entries.iter().map(|e| e.value.clone()).collect(),
            phrases: Phrases::new(entries, table),
        },
        KindBody::Code { shape, codes, cues, bare_mixed } => {
            let cues = words(cues);
            let entries = titled_codes(codes);
            How::Code {
                shape: shape.clone(),
                codes: codes.keys().cloned().collect(),
                cues,
                bare_mixed: *bare_mixed,
                titles: Phrases::new(&entries, table),
                titled: entries.into_iter().map(|entry| entry.value).collect(),
            }
        }
        KindBody::List { entries, context } => {
            let context = words(context);
            How::List {
                values: entries.iter().map(|e| e.value.clone()).collect(),
                phrases: Phrases::new(entries, table),
                context,
            }
        }
        KindBody::Uuid => How::Uuid,
        KindBody::Duration { unit } => How::Duration { unit: *unit },
        KindBody::Date => How::Date,
        KindBody::DateRange { fiscal_year_start, relative } => How::DateRange {
            fiscal_year_start: *fiscal_year_start,
            relative: *relative,
            rolling: *relative,
        },
        KindBody::Integer { cues } => How::Integer { cues: words(cues) },
        KindBody::QuotedText { max_len } => How::QuotedText { max_len: *max_len },
    }
}

/// Whether one of `cues` ends right before word `i`.
fn cue_ending_at(words: &Words<'_>, i: usize, cues: &[Vec<u32>]) -> bool {
    cues.iter().any(|cue| {
        i >= cue.len()
            && cue.iter().enumerate().all(|(n, &w)| words.id(i - cue.len() + n) == w)
            && words.phrase(i - cue.len(), i)
    })
}

/// One past the last word of the cue starting at word `c`, if one does.
fn cue_ending(words: &Words<'_>, c: usize, cues: &[Vec<u32>]) -> Option<usize> {
    cues.iter().find_map(|cue| {
        let end = c + cue.len();
        (cue.iter().enumerate().all(|(n, &w)| words.id(c + n) == w) && words.phrase(c, end))
            .then_some(end)
    })
}

/// A code of `shape` starting at word `i`: one past its last word and the byte where it ends.
fn code_at(words: &Words<'_>, i: usize, shape: &CodeShape) -> Option<(usize, usize)> {
    let w = words.words.get(i)?;
    let text = words.text.get(w.start..w.start + shape.len())?;
    if !shape.matches(text.as_bytes()) {
        return None;
    }
    let stop = w.start + shape.len();
    if words.text[stop..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '-') {
        return None;
    }
    if words.text[..w.start].chars().next_back().is_some_and(|c| c == '-') {
        return None;
    }
    // A code is no part of a larger number ("541512.5", "1,541,512") nor an amount ("$541512").
    let mut after = words.text[stop..].chars();
    let decimal =
        matches!(after.next(), Some('.' | ',')) && after.next().is_some_and(|c| c.is_ascii_digit());
    let money = words.text[..w.start]
        .chars()
        .next_back()
        .is_some_and(|c| matches!(c, '$' | '€' | '£' | '¥'));
    if decimal || money || (words.in_larger_number(i) && w.end == stop) {
        return None;
    }
    let end = (i..words.len()).find(|&j| words.words[j].end >= stop)? + 1;
    (words.words[end - 1].end == stop).then_some((end, stop))
}

/// A UUID at word `i`: one past its last word.
fn uuid_at(words: &Words<'_>, i: usize) -> Option<usize> {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let ok = GROUPS.iter().enumerate().all(|(n, &len)| {
        let raw = words.raw(i + n);
        raw.len() == len
            && raw.bytes().all(|b| b.is_ascii_hexdigit())
            && (n == 0 || words.gap_before(i + n) == "-")
    });
    (ok && !words.gap_before(i).ends_with('-') && !words.gap_before(i + 5).starts_with('-'))
        .then_some(i + 5)
}

/// Whether word `i`, a word of its own (not the tail of a code such as "CF-1001"), comes right
/// before a cue of `cues` or a superlative ("5 best", "10 biggest").
fn number_before_cue(words: &Words<'_>, i: usize, cues: &[Vec<u32>]) -> bool {
    !words.tail_of_previous(i)
        && words.phrase(i, i + 2)
        && (cue_ending(words, i + 1, cues).is_some()
            || superlative(words.lower(i + 1))
            || (most(words.lower(i + 1)) && number(words.lower(i)).is_some_and(|n| n < 1000)))
}

/// "most" and "least", that make a superlative of the word after them ("the 20 most popular").
fn most(word: &str) -> bool {
    matches!(word, "most" | "least")
}

/// A number asked for after "which", "what" or "the" whose phrase goes on to a cue or a
/// superlative ("which 3 buyers spent the most", "what 5 products sold best", "the 7 customers
/// that spent the most"), and is no year: word `i` is the number.
fn asked_count(words: &Words<'_>, i: usize, cues: &[Vec<u32>]) -> bool {
    i >= 1
        && matches!(words.lower(i - 1), "which" | "what" | "the")
        && words.joined(i)
        && number(words.lower(i)).is_some_and(|n| n < 1000)
        && (i + 1..words.len()).take_while(|&j| words.joined(j)).any(|j| {
            cue_ending(words, j, cues).is_some()
                || superlative(words.lower(j))
                || most(words.lower(j))
        })
}

/// Whether word `n`, a count, follows a superlative in one phrase ("the largest 3 accounts"),
/// and is no year ("the latest 2024 orders").
fn superlative_before(words: &Words<'_>, n: usize) -> bool {
    n >= 1
        && superlative(words.lower(n - 1))
        && words.phrase(n - 1, n + 1)
        && number(words.lower(n)).is_some_and(|count| count < 1000)
}

/// "biggest", "highest", "busiest": an English superlative of a word of three letters or more
/// (`word` in lower case).
pub fn superlative(word: &str) -> bool {
    word.len() >= 6 && word.ends_with("est") && !NOT_SUPERLATIVES.contains(&word)
}

/// Words in `-est` that are no superlatives.
const NOT_SUPERLATIVES: &[&str] = &[
    "arrest",
    "attest",
    "behest",
    "bequest",
    "conquest",
    "contest",
    "detest",
    "digest",
    "dishonest",
    "divest",
    "earnest",
    "forest",
    "harvest",
    "honest",
    "infest",
    "ingest",
    "inquest",
    "interest",
    "invest",
    "manifest",
    "midwest",
    "modest",
    "northwest",
    "pretest",
    "priest",
    "protest",
    "request",
    "retest",
    "southwest",
    "suggest",
    "unrest",
];

/// A count written in digits or in words.
fn number(word: &str) -> Option<i64> {
    if !word.is_empty() && word.len() <= 9 && word.bytes().all(|b| b.is_ascii_digit()) {
        return word.parse().ok();
    }
    // Every number word has 3 to 9 letters.
    if !(3..=9).contains(&word.len()) {
        return None;
    }
    if let Some(n) = NUMBER_WORDS.iter().position(|w| *w == word) {
        return i64::try_from(n).ok();
    }
    match word {
        "thirty" => Some(30),
        "forty" => Some(40),
        "fifty" => Some(50),
        "sixty" => Some(60),
        "seventy" => Some(70),
        "eighty" => Some(80),
        "ninety" => Some(90),
        _ => None,
    }
}

/// The length of one time unit word in the base unit, if it converts.
fn unit_length(word: &str, unit: DurationUnit) -> Option<Option<i64>> {
    let days = match time_unit(word)?.0 {
        TimeUnit::Day => 1,
        TimeUnit::Week => 7,
        TimeUnit::Month => 30,
        TimeUnit::Quarter => 90,
        TimeUnit::Year => 365,
    };
    Some(match unit {
        DurationUnit::Day => Some(days),
        DurationUnit::Month => match days {
            30 => Some(1),
            90 => Some(3),
            365 => Some(12),
            _ => None,
        },
    })
}

/// A unit of time a period or a length is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeUnit {
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

/// The unit a word names, as written in full or abbreviated ("yr", "qtr", "mo", "wk"), and
/// whether it is singular ("month", "mo": a calendar unit after "last" or "this").
fn time_unit(word: &str) -> Option<(TimeUnit, bool)> {
    Some(match word {
        "day" => (TimeUnit::Day, true),
        "days" => (TimeUnit::Day, false),
        "week" | "wk" => (TimeUnit::Week, true),
        "weeks" | "wks" => (TimeUnit::Week, false),
        "month" | "mo" | "mth" => (TimeUnit::Month, true),
        "months" | "mos" | "mths" => (TimeUnit::Month, false),
        "quarter" | "qtr" => (TimeUnit::Quarter, true),
        "quarters" | "qtrs" => (TimeUnit::Quarter, false),
        "year" | "yr" => (TimeUnit::Year, true),
        "years" | "yrs" => (TimeUnit::Year, false),
        _ => return None,
    })
}

/// A count and a unit abbreviation written as one word ("18mo", "30d", "6wks", "2y"): the
/// count and the unit's word as [`time_unit`] reads it.
fn glued(word: &str) -> Option<(i64, &'static str)> {
    let split = word.find(|c: char| !c.is_ascii_digit())?;
    let (digits, suffix) = word.split_at(split);
    let unit = match suffix {
        "d" | "day" | "days" => "days",
        "w" | "wk" | "wks" => "weeks",
        "mo" | "mos" | "mth" | "mths" => "months",
        "y" | "yr" | "yrs" => "years",
        _ => return None,
    };
    Some((number(digits)?, unit))
}

/// "last 30 days", "past 2 weeks", "next quarter", "18 months", "a year".
fn duration_at(words: &Words<'_>, i: usize, unit: DurationUnit) -> Option<(usize, i64)> {
    let directed = matches!(
        words.lower(i),
        "last"
            | "past"
            | "next"
            | "coming"
            | "previous"
            | "prior"
            | "trailing"
            | "upcoming"
            | "following"
    );
    let mut j = if directed { i + 1 } else { i };
    // A count and its unit written as one word ("18mo", "30d", "2yrs"), asked at it.
    if let Some((n, glued_unit)) = glued(words.lower(j)) {
        if directed {
            return None;
        }
        let length = unit_length(glued_unit, unit)??;
        return Some((j + 1, n.checked_mul(length)?));
    }
    let count = match words.lower(j) {
        "a" | "an" => Some(1),
        _ if words.in_larger_number(j) => {
            return if directed { None } else { decimal_duration(words, j, unit) };
        }
        other => number(other),
    };
    // A tens word and a unit word make one number ("twenty-four", "thirty six").
    let count = match count {
        Some(tens) if tens >= 20 && !words.lower(j).starts_with(|c: char| c.is_ascii_digit()) => {
            let unit_word = words.lower(j + 1);
            match number(unit_word) {
                Some(ones @ 1..=9)
                    if !unit_word.starts_with(|c: char| c.is_ascii_digit())
                        && matches!(words.gap_before(j + 1), "-" | " ") =>
                {
                    j += 1;
                    Some(tens + ones)
                }
                _ => count,
            }
        }
        _ => count,
    };
    let n = match count {
        // "last 18 months" is the count's: the span starts at it ("18 months"), asked there.
        Some(_) if directed => return None,
        Some(n) => {
            j += 1;
            // "18-month", "30 days": only a light gap between the number and the unit; a
            // plus after the number says at least that many ("60+ days"), still that length.
            let plus = words
                .gap_before(j)
                .trim_start()
                .strip_prefix('+')
                .is_some_and(|rest| rest.chars().all(char::is_whitespace) && rest.len() <= 1);
            if !words.joined(j) && !plus {
                return None;
            }
            n
        }
        None if directed => 1,
        None => return None,
    };
    // "A quarter of our accounts" is a fraction, one in four, not a length of time.
    if matches!(words.lower(i), "a" | "an")
        && words.lower(j) == "quarter"
        && words.lower(j + 1) == "of"
    {
        return None;
    }
    let length = unit_length(words.lower(j), unit)??;
    Some((j + 1, n.checked_mul(length)?))
}

/// A length written with a decimal point at word `i` ("1.5 years"): where it is a whole
/// number of the kind's unit (18 months; not "2.5 quarters" of months), one past the unit
/// word and that number. Any other part of a larger number is no length.
fn decimal_duration(words: &Words<'_>, i: usize, unit: DurationUnit) -> Option<(usize, i64)> {
    let (whole, fraction) = (words.lower(i), words.lower(i + 1));
    if words.gap_before(i + 1) != "."
        || words.in_larger_number(i.wrapping_sub(1))
        || !(1..=3).contains(&fraction.len())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || !words.joined(i + 2)
    {
        return None;
    }
    let scale = 10_i64.pow(u32::try_from(fraction.len()).ok()?);
    let tenths = number(whole)?.checked_mul(scale)?.checked_add(fraction.parse::<i64>().ok()?)?;
    let total = tenths.checked_mul(unit_length(words.lower(i + 2), unit)??)?;
    (total % scale == 0).then_some((i + 3, total / scale))
}

/// A calendar day (month lengths from [`planner_registry::days_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Day {
    year: i32,
    month: u8,
    day: u8,
}

impl Day {
    fn new(year: i32, month: u8, day: u8) -> Option<Day> {
        ((1900..=2100).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in(year, month))
        .then_some(Day { year, month, day })
    }

    fn first(year: i32, month: u8) -> Day {
        Day { year, month, day: 1 }
    }

    fn next(self) -> Day {
        if self.day < days_in(self.year, self.month) {
            Day { day: self.day + 1, ..self }
        } else {
            self.plus_months(1)
        }
    }

    /// The first day of the month `months` after this day's month.
    fn plus_months(self, months: i32) -> Day {
        let total = self.year * 12 + i32::from(self.month) - 1 + months;
        Day::first(total.div_euclid(12), u8::try_from(total.rem_euclid(12) + 1).unwrap_or(1))
    }

    fn iso(self) -> String {
        let digit = |n: u32| char::from(b'0' + u8::try_from(n % 10).unwrap_or(0));
        let year = u32::try_from(self.year).unwrap_or(0);
        let mut out = String::with_capacity(10);
        out.extend([year / 1000, year / 100, year / 10, year].map(digit));
        out.push('-');
        out.extend([u32::from(self.month) / 10, u32::from(self.month)].map(digit));
        out.push('-');
        out.extend([u32::from(self.day) / 10, u32::from(self.day)].map(digit));
        out
    }
}

/// The day of a range of one day (`["2025-03-01", "2025-03-02"]`), as written: its end is the
/// day after its start by the registry's own day arithmetic (an open or relative start is none).
fn one_day(value: &Value) -> Option<String> {
    let Value::List(bounds) = value else { return None };
    let [start, end] = &bounds[..] else { return None };
    (planner_registry::resolve_bound("@D+1d", start)? == *end).then(|| start.clone())
}

/// A half-open run of days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Period {
    start: Day,
    end: Day,
}

fn month_of(word: &str) -> Option<u8> {
    // Every month name and abbreviation has 3 to 9 letters and starts with one of these.
    if !(3..=9).contains(&word.len())
        || !matches!(word.as_bytes()[0], b'j' | b'f' | b'm' | b'a' | b's' | b'o' | b'n' | b'd')
    {
        return None;
    }
    let at = MONTH_NAMES.iter().position(|name| {
        *name == word
            || (word.len() >= 3 && name.starts_with(word) && (word.len() == 3 || word == "sept"))
    })?;
    u8::try_from(at + 1).ok()
}

fn year_of(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
        .filter(|y| (1900..=2100).contains(y))
}

/// A year written with its century elided by an apostrophe ("Jan '25", "Q3 ’24"): two digits
/// right after the apostrophe, this century's.
fn elided_year(words: &Words<'_>, i: usize) -> Option<i32> {
    let gap = words.gap_before(i);
    let elided = gap.ends_with(['\'', '\u{2019}'])
        && gap.trim_end_matches(['\'', '\u{2019}']).trim().is_empty();
    (elided && i < words.len()).then(|| two_digit(words.lower(i))).flatten()
}

/// A day written out: "2025-03-14", "March 14, 2025", "14 March 2025".
fn day_at(words: &Words<'_>, i: usize) -> Option<(usize, Period)> {
    let one = |d: Day| Period { start: d, end: d.next() };
    if let Some(year) = year_of(words.lower(i))
        && words.gap_before(i + 1) == "-"
        && words.gap_before(i + 2) == "-"
        && words.raw(i + 1).len() == 2
        && words.raw(i + 2).len() == 2
    {
        let month = words.lower(i + 1).parse().ok()?;
        let day = words.lower(i + 2).parse().ok()?;
        return Some((i + 3, one(Day::new(year, month, day)?)));
    }
    if let Some(month) = month_of(words.lower(i))
        && let Some(day) = small_day(words.lower(i + 1))
        && let Some(year) = year_of(words.lower(i + 2))
    {
        return Some((i + 3, one(Day::new(year, month, day)?)));
    }
    if let Some(day) = small_day(words.lower(i))
        && let Some(month) = month_of(words.lower(i + 1))
        && let Some(year) = year_of(words.lower(i + 2))
    {
        return Some((i + 3, one(Day::new(year, month, day)?)));
    }
    None
}

/// "14", "14th", "1st".
fn small_day(word: &str) -> Option<u8> {
    if !word.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// "FY2025", "FY 2025", "FY25" (fiscal), "CY2024" (calendar): the year and whether fiscal.
fn prefixed_year(words: &Words<'_>, i: usize) -> Option<(usize, i32, bool)> {
    let word = words.lower(i);
    // "fy", "cy", "fiscal", "calendar".
    if !matches!(word.as_bytes().first(), Some(b'f' | b'c')) {
        return None;
    }
    for (prefix, fiscal) in [("fy", true), ("cy", false)] {
        if let Some(rest) = word.strip_prefix(prefix) {
            if rest.is_empty() {
                if let Some(year) =
                    year_of(words.lower(i + 1)).or_else(|| two_digit(words.lower(i + 1)))
                {
                    return Some((i + 2, year, fiscal));
                }
            } else if let Some(year) = year_of(rest).or_else(|| two_digit(rest)) {
                return Some((i + 1, year, fiscal));
            }
        }
    }
    let (fiscal, mut j) = match word {
        "fiscal" => (true, i + 1),
        "calendar" => (false, i + 1),
        _ => return None,
    };
    if words.lower(j) == "year" {
        j += 1;
    }
    year_of(words.lower(j)).map(|year| (j + 1, year, fiscal))
}

fn two_digit(word: &str) -> Option<i32> {
    (word.len() == 2 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse::<i32>().ok().map(|y| 2000 + y))
        .flatten()
}

/// A part of a year: a quarter ("q3": the third of 3 months) or a half ("h1": the first of 6).
fn quarter_of(word: &str) -> Option<(u8, i32)> {
    match word {
        "q1" => Some((1, 3)),
        "q2" => Some((2, 3)),
        "q3" => Some((3, 3)),
        "q4" => Some((4, 3)),
        "h1" => Some((1, 6)),
        "h2" => Some((2, 6)),
        _ => None,
    }
}

/// One time expression at word `i`, with whether it stands on its own (a bare year does not).
fn period_at(words: &Words<'_>, i: usize, fy_start: u8) -> Option<(usize, Period, bool)> {
    // Every time expression starts with a number, a month, a quarter or a year word, all of
    // them marked as words that may start a time.
    if words.words.get(i).is_none_or(|w| w.flags & TIME == 0) {
        return None;
    }
    let fiscal_year = |year: i32| {
        let end = Day::first(year, fy_start);
        let end = if fy_start == 1 { Day::first(year + 1, 1) } else { end };
        Period { start: end.plus_months(-12), end }
    };
    let calendar_year =
        |year: i32| Period { start: Day::first(year, 1), end: Day::first(year + 1, 1) };
    let quarter = |year: Period, (q, months): (u8, i32)| {
        let start = year.start.plus_months(months * (i32::from(q) - 1));
        Period { start, end: start.plus_months(months) }
    };
    if let Some((end, period)) = day_at(words, i) {
        return Some((end, period, true));
    }
    // "Q3 2024", "Q1 FY2025".
    if let Some(q) = quarter_of(words.lower(i)) {
        if let Some(year) = year_of(words.lower(i + 1)).or_else(|| elided_year(words, i + 1)) {
            return Some((i + 2, quarter(calendar_year(year), q), true));
        }
        if let Some((end, year, fiscal)) = prefixed_year(words, i + 1) {
            let base = if fiscal { fiscal_year(year) } else { calendar_year(year) };
            return Some((end, quarter(base, q), true));
        }
        return None;
    }
    if let Some((end, year, fiscal)) = prefixed_year(words, i) {
        let base = if fiscal { fiscal_year(year) } else { calendar_year(year) };
        if let Some(q) = quarter_of(words.lower(end)) {
            return Some((end + 1, quarter(base, q), true));
        }
        return Some((end, base, true));
    }
    if let Some(month) = month_of(words.lower(i))
        && let Some(year) = year_of(words.lower(i + 1)).or_else(|| elided_year(words, i + 1))
    {
        let start = Day::first(year, month);
        return Some((i + 2, Period { start, end: start.plus_months(1) }, true));
    }
    if let Some(year) = year_of(words.lower(i)) {
        if words.gap_before(i + 1) == "-" && i + 1 < words.len() {
            // "2025-02-30": a day that does not exist, not the year 2025.
            return None;
        }
        if let Some(q) = quarter_of(words.lower(i + 1)) {
            return Some((i + 2, quarter(calendar_year(year), q), true));
        }
        // A bare year stands on its own when punctuation sets it apart ("Southwest, 2024:
        // revenue") or it qualifies the word after it ("2025 sales"); after a ranking word it
        // is a count ("top 2024 sellers").
        let counted = i > 0
            && matches!(words.lower(i - 1), "top" | "bottom" | "best" | "worst" | "first" | "last");
        return Some((i + 1, calendar_year(year), set_apart(words, i) || !counted));
    }
    None
}

/// Whether word `i` is the question's first or last, or punctuation parts it from a
/// neighbour.
fn set_apart(words: &Words<'_>, i: usize) -> bool {
    let parts = |gap: &str| gap.contains([',', ':', ';', '?', '!', '(', ')']);
    if words.tail_of_previous(i) {
        return false;
    }
    i == 0 || i + 1 >= words.len() || parts(words.gap_before(i)) || parts(words.gap_before(i + 1))
}

/// A run of months of which only the last names its year ("April and June 2024", "June to
/// August 2024") at word `i`, with `joins` the words that may stand between the two months:
/// `(one past its last word, [start, end))`. A first month after the last one is in the year
/// before ("November to February 2025").
fn month_run_at(words: &Words<'_>, i: usize, joins: &[&str]) -> Option<(usize, Bounds)> {
    let first = month_of(words.lower(i))?;
    let next = if joins.contains(&words.lower(i + 1)) {
        i + 2
    } else if words.gap_before(i + 1).trim() == "-" {
        i + 1
    } else {
        return None;
    };
    let last = month_of(words.lower(next))?;
    let year = year_of(words.lower(next + 1))?;
    let start_year = if first <= last { year } else { year - 1 };
    let end = Day::first(year, last).plus_months(1);
    Some((next + 2, (Some(Day::first(start_year, first)), Some(end))))
}

/// A period at word `i` that may be written with an article and a part of it: "the first half
/// of 2025", "the third quarter of FY2024" (a half or quarter of a year), "the start of 2025" (its
/// first day, as an empty period there) and "the end of 2025" (an empty period at its end); else
/// [`period_at`]. Whether the period stands on its own, as [`period_at`] says.
fn period_part_at(words: &Words<'_>, i: usize, fy_start: u8) -> Option<(usize, Period, bool)> {
    if let Some(found) = period_at(words, i, fy_start) {
        return Some(found);
    }
    enum Part {
        Start,
        End,
        /// The `n`th run of `months` months.
        Of(i32, i32),
    }
    let j = if words.lower(i) == "the" { i + 1 } else { i };
    let (part, of) = match (words.lower(j), words.lower(j + 1)) {
        ("start" | "beginning", "of") => (Part::Start, j + 2),
        ("end", "of") => (Part::End, j + 2),
        (ordinal, "half" | "quarter") if words.lower(j + 2) == "of" => {
            let months = if words.lower(j + 1) == "half" { 6 } else { 3 };
            let n = match ordinal {
                "first" | "1st" => 1,
                "second" | "2nd" => 2,
                "third" | "3rd" => 3,
                "fourth" | "4th" => 4,
                "last" => 12 / months,
                _ => return None,
            };
            if n * months > 12 {
                return None;
            }
            (Part::Of(n, months), j + 3)
        }
        _ => return None,
    };
    let (end, whole, _) = period_at(words, of, fy_start)?;
    let period = match part {
        Part::Start => Period { start: whole.start, end: whole.start },
        Part::End => Period { start: whole.end, end: whole.end },
        Part::Of(n, months) => {
            // Only a year is split into halves and quarters.
            if whole.start.plus_months(12) != whole.end || whole.start.day != 1 {
                return None;
            }
            let start = whole.start.plus_months(months * (n - 1));
            Period { start, end: start.plus_months(months) }
        }
    };
    Some((end, period, false))
}

/// A date range's `[start, end)`, `None` for an open end.
type Bounds = (Option<Day>, Option<Day>);

/// A date range at word `i`: `(one past its last word, [start, end))`, `None` for an open end.
fn range_at(words: &Words<'_>, i: usize, fy_start: u8) -> Option<(usize, Bounds)> {
    let head = words.lower(i);
    match head {
        "between" | "from" => {
            let joins: &[&str] = if head == "between" {
                &["and"]
            } else {
                &["to", "through", "thru", "until", "till"]
            };
            if let Some(run) = month_run_at(words, i + 1, joins) {
                return Some(run);
            }
            if let Some((mid, first, _)) = period_part_at(words, i + 1, fy_start) {
                if matches!(words.lower(mid), "and" | "to" | "through" | "until" | "till" | "thru")
                    && let Some((end, last, _)) = period_part_at(words, mid + 1, fy_start)
                {
                    return Some((end, (Some(first.start), Some(last.end))));
                }
                if head == "from" {
                    let end = if matches!(words.lower(mid), "on" | "onward" | "onwards") {
                        mid + 1
                    } else {
                        mid
                    };
                    return Some((end, (Some(first.start), None)));
                }
            }
            None
        }
        "since" | "starting" => {
            let (end, p, _) = period_part_at(words, i + 1, fy_start)?;
            Some((end, (Some(p.start), None)))
        }
        "after" => {
            let (end, p, _) = period_part_at(words, i + 1, fy_start)?;
            Some((end, (Some(p.end), None)))
        }
        "before" => {
            let (end, p, _) = period_part_at(words, i + 1, fy_start)?;
            Some((end, (None, Some(p.start))))
        }
        "until" | "through" | "till" | "thru" => {
            let (end, p, _) = period_part_at(words, i + 1, fy_start)?;
            Some((end, (None, Some(p.end))))
        }
        // "up to the end of September 2024", "up until March".
        "up" if matches!(words.lower(i + 1), "to" | "until" | "till" | "through") => {
            let (end, p, _) = period_part_at(words, i + 2, fy_start)?;
            Some((end, (None, Some(p.end))))
        }
        "in" | "during" | "for" | "of" | "throughout" => {
            // A run of months whose last names the year ("in May and June 2024"): both months.
            if let Some(run) = month_run_at(words, i + 1, &["and", "to", "through", "thru"]) {
                return Some(run);
            }
            let (end, p, _) = period_part_at(words, i + 1, fy_start)?;
            // "in the start of 2025" names a moment, not a range.
            (p.start != p.end).then_some((end, (Some(p.start), Some(p.end))))
        }
        _ => {
            if let Some(run) = month_run_at(words, i, &["to", "through", "thru"]) {
                return Some(run);
            }
            // "first half of 2024": a part of a year, said without a preposition.
            if matches!(
                words.lower(i),
                "first" | "second" | "third" | "fourth" | "1st" | "2nd" | "3rd" | "4th"
            ) && period_at(words, i, fy_start).is_none()
                && let Some((end, part, _)) = period_part_at(words, i, fy_start)
                && part.start != part.end
            {
                return Some((end, (Some(part.start), Some(part.end))));
            }
            let (mid, first, alone) = period_at(words, i, fy_start)?;
            if matches!(words.lower(mid), "to" | "through" | "thru")
                || (words.gap_before(mid).trim() == "-" && alone)
            {
                let next = if words.gap_before(mid).trim() == "-"
                    && !matches!(words.lower(mid), "to" | "through" | "thru")
                {
                    mid
                } else {
                    mid + 1
                };
                if let Some((end, last, _)) = period_at(words, next, fy_start) {
                    return Some((end, (Some(first.start), Some(last.end))));
                }
            }
            alone.then_some((mid, (Some(first.start), Some(first.end))))
        }
    }
}

/// A period relative to the data's date at word `i`: "last year", "this quarter", "year to
/// date", "YTD", "the past 6 months", "last 2 years", "previous month", "last week" (the
/// calendar week before the data's, Monday to Sunday), "yesterday", "today". One past its last word,
/// the start bound and the end (see `planner_registry::resolve_bound`). A rolling period's start
/// is the end's offset, so `Relative::Past` carries its length.
fn relative_at(words: &Words<'_>, i: usize) -> Option<(usize, &'static str, Relative)> {
    const TO_DATE: &str = "@D+1d";
    let unit = |word: &str| match time_unit(word)? {
        (TimeUnit::Year, true) => Some(('Y', 12)),
        (TimeUnit::Quarter, true) => Some(('Q', 3)),
        (TimeUnit::Month, true) => Some(('M', 1)),
        (TimeUnit::Week, true) => Some(('W', 0)),
        _ => None,
    };
    let calendar = |anchor: char, last: bool| -> (&'static str, Relative) {
        match (anchor, last) {
            ('Y', true) => ("@Y-12m", Relative::To("@Y")),
            ('Q', true) => ("@Q-3m", Relative::To("@Q")),
            ('M', true) => ("@M-1m", Relative::To("@M")),
            ('W', true) => ("@W-7d", Relative::To("@W")),
            ('Y', false) => ("@Y", Relative::To(TO_DATE)),
            ('Q', false) => ("@Q", Relative::To(TO_DATE)),
            ('W', false) => ("@W", Relative::To(TO_DATE)),
            _ => ("@M", Relative::To(TO_DATE)),
        }
    };
    let head = words.lower(i);
    if let Some(months) = months_without_year(words, i) {
        return Some(months);
    }
    // "yesterday", "today": one day.
    match head {
        "yesterday" => return Some((i + 1, "@D-1d", Relative::To("@D"))),
        "today" => return Some((i + 1, "@D", Relative::To(TO_DATE))),
        _ => {}
    }
    // "YTD", "QTD", "MTD".
    let to_date = match head {
        "ytd" => Some('Y'),
        "qtd" => Some('Q'),
        "mtd" => Some('M'),
        _ => None,
    };
    if let Some(anchor) = to_date {
        let (start, end) = calendar(anchor, false);
        return Some((i + 1, start, end));
    }
    // "year to date".
    if let Some((anchor, _)) = unit(head)
        && words.lower(i + 1) == "to"
        && words.lower(i + 2) == "date"
        && words.phrase(i, i + 3)
    {
        let (start, end) = calendar(anchor, false);
        return Some((i + 3, start, end));
    }
    let last = match head {
        "last" | "previous" | "prior" => true,
        "this" | "current" => false,
        "past" | "trailing" => {
            // Only a count makes "past" a period: "the past 6 months".
            return rolling(words, i + 1);
        }
        _ => return None,
    };
    if let Some((anchor, _)) = unit(words.lower(i + 1))
        && words.phrase(i, i + 2)
    {
        // "last year to date" is not a period this reads.
        if words.lower(i + 2) == "to" {
            return None;
        }
        let (start, end) = calendar(anchor, last);
        return Some((i + 2, start, end));
    }
    if last { rolling(words, i + 1) } else { None }
}

/// A month or a run of months named without a year at word `i`, after a word that makes it a
/// period: "in August", "during July and August", "from May to July", "last March", "this
/// June". Said without a year, a month is the latest one the data has reached ("last" and
/// "previous": the latest before the data's month), as people mean it in speech. Not when a
/// number follows the month, a day or a year read as a date instead ("in August 5", "in May
/// 2025"), nor before a capitalised word, the month then being a name ("for June Park").
fn months_without_year(words: &Words<'_>, i: usize) -> Option<(usize, &'static str, Relative)> {
    if matches!(words.lower(i), "since" | "starting") {
        return since_month(words, i);
    }
    let anchor = match words.lower(i) {
        "in" | "during" | "for" | "throughout" | "from" | "between" | "this" => 'L',
        "last" | "previous" | "prior" => 'P',
        _ => return None,
    };
    let first = month_of(words.lower(i + 1))?;
    let (end, last) = match words.lower(i + 2) {
        "to" | "through" | "thru" | "and" | "until" | "till" => {
            month_of(words.lower(i + 3)).map_or((i + 2, first), |last| (i + 4, last))
        }
        _ if words.gap_before(i + 2).trim() == "-" => {
            month_of(words.lower(i + 2)).map_or((i + 2, first), |last| (i + 3, last))
        }
        _ => (i + 2, first),
    };
    // A joined run reads only after words that may open one; a lone month after any of them
    // but "from" and "between", which open a range the next words must close.
    if end == i + 2 && matches!(words.lower(i), "from" | "between") {
        return None;
    }
    if !yearless_run(words, i, end) {
        return None;
    }
    let span = u8::try_from((i32::from(last) - i32::from(first)).rem_euclid(12) + 1).ok()?;
    Some((end, "@L", Relative::Months { anchor, last, span }))
}

/// Whether words `i..end`, a month or a run of months after the word that opens it, stand as a
/// period without a year: one phrase, no day or year after it ("in March of 2024", "in May,
/// 2025": a dated period reads those), and not a capitalised month before a capitalised word
/// (a name: "for April Novak").
fn yearless_run(words: &Words<'_>, i: usize, end: usize) -> bool {
    let capital = |at: usize| words.raw(at).starts_with(|c: char| c.is_uppercase());
    number(words.lower(end)).is_none()
        && year_of(words.lower(end + 1)).is_none()
        && words.phrase(i, end)
        && !(end < words.len() && capital(end - 1) && capital(end))
}

/// The latest start of each month the data's date has reached, by month (`@L8`: the latest
/// August begun).
const LATEST_MONTH_STARTS: [&str; 12] =
    ["@L1", "@L2", "@L3", "@L4", "@L5", "@L6", "@L7", "@L8", "@L9", "@L10", "@L11", "@L12"];

/// "since August", "starting March" at word `i`: from the latest such month the data has
/// reached, open-ended, as "since May 2023" is from that month's first day. Not before a
/// day or a year (a dated period reads those), nor a capitalised month before a capitalised
/// word (a name).
fn since_month(words: &Words<'_>, i: usize) -> Option<(usize, &'static str, Relative)> {
    let month = month_of(words.lower(i + 1))?;
    let end = i + 2;
    if !yearless_run(words, i, end) {
        return None;
    }
    let start = LATEST_MONTH_STARTS.get(usize::from(month).checked_sub(1)?)?;
    Some((end, start, Relative::To("infinity")))
}

/// "6 months", "2 years", "14 days", "3 weeks", "2 quarters" at word `i`, after "past" or "last":
/// the period of that length ending with the data's date.
fn rolling(words: &Words<'_>, i: usize) -> Option<(usize, &'static str, Relative)> {
    let n = number(words.lower(i))?;
    if n <= 0 || !words.phrase(i - 1, i + 2) {
        return None;
    }
    let (n, days) = match time_unit(words.lower(i + 1))?.0 {
        TimeUnit::Month => (n, false),
        TimeUnit::Year => (n.checked_mul(12)?, false),
        TimeUnit::Quarter => (n.checked_mul(3)?, false),
        TimeUnit::Week => (n.checked_mul(7)?, true),
        TimeUnit::Day => (n, true),
    };
    Some((i + 2, "@D+1d", Relative::Past { n, days }))
}

/// Every run of text inside a pair of quotes, trimmed, at most `max_len` characters: its words
/// and the trimmed text's bytes.
fn quoted_texts(words: &Words<'_>, max_len: usize, push: &mut impl FnMut(usize, usize, Pending)) {
    let text = words.text;
    // Chars past this byte are outside the last quote read.
    let mut next = 0;
    for &at in &words.quotes {
        if at < next {
            continue;
        }
        let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else { break };
        let Some(inner_end) = quote_at(text, at, c) else { continue };
        let inner_start = at + c.len_utf8();
        let inner = &text[inner_start..inner_end];
        let trimmed = inner.trim();
        // The words lie in order and do not overlap: the first word starting inside the quotes
        // is in them if any is, and so is every word up to the last one ending inside.
        let from = words.words.partition_point(|w| w.start < inner_start);
        let to = words.words.partition_point(|w| w.end <= inner_end);
        if from < to && !trimmed.is_empty() && trimmed.chars().count() <= max_len {
            let start = inner_start + (inner.len() - inner.trim_start().len());
            push(from, to, Pending::Text { start, end: start + trimmed.len() });
        }
        next = inner_end + 1;
    }
}

/// Where the text quoted by the char `c` at byte `at` ends, if `c` opens a quote there.
fn quote_at(text: &str, at: usize, c: char) -> Option<usize> {
    let close = closes(c)?;
    // An apostrophe inside a word is not a quote.
    if c == '\'' && text[..at].chars().next_back().is_some_and(char::is_alphanumeric) {
        return None;
    }
    let inner_start = at + c.len_utf8();
    let rel = text[inner_start..].find(close)?;
    let mut inner_end = inner_start + rel;
    // "Joe's" inside single quotes: skip apostrophes followed by a letter.
    if close == '\'' {
        let mut search = inner_start;
        while let Some(rel) = text[search..].find('\'') {
            let candidate = search + rel;
            if text[candidate + 1..].chars().next().is_some_and(char::is_alphanumeric) {
                search = candidate + 1;
                continue;
            }
            inner_end = candidate;
            break;
        }
    }
    Some(inner_end)
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
