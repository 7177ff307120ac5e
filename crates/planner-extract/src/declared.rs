//! Extractors for the kinds a registry file declares (`[kinds]`): one generic matcher per type,
//! compiled once from the declarations into word tables, then run over a question's words.
//!
//! Every matcher proposes candidates (a run of words, a kind, a canonical value); the question
//! is then read left to right, taking at each word the longest candidate (ties go to the
//! earlier type in [`KindType::ALL`] order, then to the kind declared first), so no byte
//! belongs to two params. Words an identifier of a built-in kind owns are not read.

use planner_registry::{
    CaseRule, DurationUnit, Entry, KindBody, KindSpec, KindType, ParamKind, Value, shape_matches,
};

use crate::extraction::{Diagnostic, Mention, Problem, Span};
use crate::vocab::FastMap;

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
    "in",
    "during",
    "for",
    "of",
    "throughout",
    "q1",
    "q2",
    "q3",
    "q4",
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
    "sixty",
    "ninety",
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

/// The id of a word no declared kind names.
const NO_WORD: u32 = u32::MAX;

/// The words of one question, with the text between them.
struct Words<'a> {
    text: &'a str,
    words: Vec<Word>,
    /// Every word's lower-case form, one after the other: one allocation for the question.
    lower_text: String,
}

impl<'a> Words<'a> {
    fn new(text: &'a str, table: &WordTable) -> Words<'a> {
        let mut out =
            Words { text, words: Vec::with_capacity(text.len() / 5), lower_text: String::new() };
        out.lower_text.reserve(text.len());
        let mut start = None;
        for (at, c) in text.char_indices() {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    out.push(from, at, table);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            out.push(from, text.len(), table);
        }
        out
    }

    fn push(&mut self, start: usize, end: usize, table: &WordTable) {
        let from = self.lower_text.len();
        let raw = &self.text[start..end];
        if raw.is_ascii() {
            self.lower_text.extend(raw.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            self.lower_text.extend(raw.chars().flat_map(char::to_lowercase));
        }
        let to = self.lower_text.len();
        let lower = &self.lower_text[from..to];
        let id = table.id(lower);
        let bytes = lower.as_bytes();
        let numeric = bytes.first().is_some_and(u8::is_ascii_digit);
        let prefixed_year = bytes.len() > 2
            && matches!(&bytes[..2], b"fy" | b"cy")
            && bytes[2..].iter().all(u8::is_ascii_digit);
        let flags = table.flags(id) | if numeric || prefixed_year { TIME } else { 0 };
        let range =
            (u32::try_from(from).unwrap_or(u32::MAX), u32::try_from(to).unwrap_or(u32::MAX));
        self.words.push(Word { start, end, lower: range, id, flags });
    }

    /// Whether word `i` may start a time expression.
    fn timely(&self, i: usize) -> bool {
        self.words.get(i).is_some_and(|w| w.flags & TIME != 0)
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

    /// Whether the gap before word `i` is a light one inside a phrase.
    fn joined(&self, i: usize) -> bool {
        let gap = self.gap_before(i);
        gap.len() <= 6
            && gap.chars().all(|c| c.is_whitespace() || matches!(c, '.' | '-' | '\'' | '’' | '_'))
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
#[derive(Debug, Default)]
struct WordTable {
    ids: FastMap<Box<str>, u32>,
    /// Per id: the word's flags.
    flags: Vec<u8>,
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

    fn id(&self, word: &str) -> u32 {
        self.ids.get(word).copied().unwrap_or(NO_WORD)
    }

    fn flags(&self, id: u32) -> u8 {
        self.flags.get(id as usize).copied().unwrap_or(0)
    }

    fn phrase(&mut self, words: &[String]) -> Vec<u32> {
        words.iter().map(|w| self.add(w)).collect()
    }
}

/// A word trie over a dictionary's aliases: longest alias wins.
#[derive(Debug, Default)]
struct Phrases {
    /// Per node: the entry and case rule of the alias ending there.
    terminal: Vec<Option<(usize, CaseRule)>>,
    /// `(node << 32 | word id)` to child node.
    edges: FastMap<u64, u32>,
    /// Per word id: whether some alias starts with it.
    starts: Vec<bool>,
}

impl Phrases {
    fn new(entries: &[Entry], table: &mut WordTable) -> Phrases {
        let mut out =
            Phrases { terminal: vec![None], edges: FastMap::default(), starts: Vec::new() };
        for (index, entry) in entries.iter().enumerate() {
            for alias in &entry.aliases {
                let mut node = 0u32;
                let ids = table.phrase(&alias.words);
                if let Some(&first) = ids.first() {
                    let at = first as usize;
                    if out.starts.len() <= at {
                        out.starts.resize(at + 1, false);
                    }
                    out.starts[at] = true;
                }
                for id in ids {
                    let key = (u64::from(node) << 32) | u64::from(id);
                    node = match out.edges.get(&key) {
                        Some(&child) => child,
                        None => {
                            let child = u32::try_from(out.terminal.len()).unwrap_or(u32::MAX);
                            out.terminal.push(None);
                            out.edges.insert(key, child);
                            child
                        }
                    };
                }
                if let Some(slot) = out.terminal.get_mut(node as usize)
                    && slot.is_none()
                {
                    *slot = Some((index, alias.case));
                }
            }
        }
        out
    }

    /// The longest alias at word `i`: (entry, one past its last word).
    fn at(&self, words: &Words<'_>, i: usize) -> Option<(usize, usize)> {
        if !self.starts.get(words.id(i) as usize).copied().unwrap_or(false) {
            return None;
        }
        let mut node = 0u32;
        let mut best = None;
        let mut end = i;
        while end < words.len() {
            if end > i && !words.joined(end) {
                break;
            }
            let key = (u64::from(node) << 32) | u64::from(words.id(end));
            let Some(&child) = self.edges.get(&key) else { break };
            node = child;
            end += 1;
            if let Some(Some((index, case))) = self.terminal.get(node as usize)
                && case_fits(words, i, end, *case)
            {
                best = Some((*index, end));
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
    Dictionary { values: Vec<String>, phrases: Phrases, ordered: bool },
    Code { shape: String, codes: Vec<String>, cues: Vec<Vec<u32>> },
    List { values: Vec<String>, phrases: Phrases, context: Vec<Vec<u32>> },
    Uuid,
    Duration { unit: DurationUnit },
    Date,
    DateRange { fiscal_year_start: u8 },
    Integer { cues: Vec<Vec<u32>> },
    QuotedText { max_len: usize },
}

/// A proposed param: words `from..to`, the matcher that found it, its value.
struct Candidate {
    from: usize,
    to: usize,
    span: Span,
    matcher: usize,
    value: Value,
    problem: Option<Problem>,
}

/// The compiled matchers of a registry's declared kinds.
#[derive(Debug, Default)]
pub(crate) struct Declared {
    matchers: Vec<Matcher>,
    table: WordTable,
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
                let ParamKind::Declared(declared) = spec.kind else {
                    unreachable!("only declared kinds have a KindSpec")
                };
                let rank = KindType::ALL.iter().position(|t| *t == declared.ty()).unwrap_or(0);
                Matcher { kind: spec.kind, rank, how: compile(&spec.body, &mut table) }
            })
            .collect();
        matchers.sort_by_key(|m| m.rank);
        Declared { matchers, table }
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
        let free: Vec<bool> = words
            .words
            .iter()
            .map(|w| !taken.iter().any(|t| t.start < w.end && w.start < t.end))
            .collect();
        let mut candidates = Vec::new();
        for (index, matcher) in self.matchers.iter().enumerate() {
            matcher.candidates(&words, index, &mut candidates);
        }
        candidates.retain(|c| (c.from..c.to).all(|i| free.get(i).copied().unwrap_or(false)));
        // Longest at each word, then the matcher listed first.
        candidates.sort_by_key(|c| (c.from, std::cmp::Reverse(c.to), c.matcher));
        let mut next = 0;
        for candidate in candidates {
            if candidate.from < next {
                continue;
            }
            next = candidate.to;
            if let Some(problem) = candidate.problem {
                diagnostics.push(Diagnostic { span: candidate.span, problem });
            }
            mentions.push(Mention {
                kind: self.matchers[candidate.matcher].kind,
                value: candidate.value,
                span: candidate.span,
            });
        }
    }
}

fn compile(body: &KindBody, table: &mut WordTable) -> How {
    let mut words = |list: &[String]| -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> =
            list.iter().map(|w| w.split(' ').map(|w| table.add(w)).collect()).collect();
        out.sort_by_key(|w| std::cmp::Reverse(w.len()));
        out
    };
    match body {
        KindBody::Dictionary { entries, ordered } => How::Dictionary {
            values: entries.iter().map(|e| e.value.clone()).collect(),
            phrases: Phrases::new(entries, table),
            ordered: *ordered,
        },
        KindBody::Code { shape, codes, cues } => How::Code {
            shape: shape.clone(),
            codes: codes.keys().cloned().collect(),
            cues: words(cues),
        },
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
        KindBody::DateRange { fiscal_year_start } => {
            How::DateRange { fiscal_year_start: *fiscal_year_start }
        }
        KindBody::Integer { cues } => How::Integer { cues: words(cues) },
        KindBody::QuotedText { max_len } => How::QuotedText { max_len: *max_len },
    }
}

impl Matcher {
    fn candidates(&self, words: &Words<'_>, matcher: usize, out: &mut Vec<Candidate>) {
        let mut push = |from: usize, to: usize, value: Value, problem: Option<Problem>| {
            out.push(Candidate { from, to, span: words.span(from, to), matcher, value, problem });
        };
        match &self.how {
            How::Dictionary { values, phrases, ordered } => {
                for i in 0..words.len() {
                    if let Some((index, mut end)) = phrases.at(words, i) {
                        if *ordered {
                            end = or_above(words, end);
                        }
                        push(i, end, Value::Text(values[index].clone()), None);
                    }
                }
            }
            How::List { values, phrases, context } => {
                for c in 0..words.len() {
                    if !context.iter().any(|cue| cue.first() == Some(&words.id(c))) {
                        continue;
                    }
                    let Some(after) = cue_ending(words, c, context) else { continue };
                    let mut i = after;
                    if matches!(words.lower(i), "the" | "a" | "an") {
                        i += 1;
                    }
                    let start = i;
                    let mut found: Vec<usize> = Vec::new();
                    let mut last = None;
                    while let Some((index, end)) = phrases.at(words, i) {
                        found.push(index);
                        last = Some(end);
                        let mut j = end;
                        let gap = words.gap_before(j).trim();
                        let separated = matches!(gap, "," | "/" | "&" | "+");
                        if matches!(words.lower(j), "and" | "or") && gap.is_empty() {
                            j += 1;
                        } else if !separated {
                            break;
                        }
                        if matches!(words.lower(j), "and" | "or") {
                            j += 1;
                        }
                        i = j;
                    }
                    if let Some(end) = last {
                        found.sort_unstable();
                        found.dedup();
                        let list = found.into_iter().map(|at| values[at].clone()).collect();
                        push(start, end, Value::List(list), None);
                    }
                }
            }
            How::Code { shape, codes, cues } => {
                for i in 0..words.len() {
                    let Some((end, code)) = code_at(words, i, shape) else { continue };
                    let listed = codes.binary_search(&code).is_ok();
                    // A cue right before the code, or with one or two words between ("SKU
                    // number AB-1234", "product code no. AB-1234").
                    let cued = (0..3)
                        .any(|between| i > between && cue_ending_at(words, i - between, cues));
                    let taken =
                        if cues.is_empty() { codes.is_empty() || listed } else { listed || cued };
                    if taken {
                        let problem = (!codes.is_empty() && !listed)
                            .then(|| Problem::NotInList { kind: self.kind, code: code.clone() });
                        push(i, end, Value::Text(code), problem);
                    }
                }
            }
            How::Uuid => {
                for i in 0..words.len() {
                    if let Some((end, value)) = uuid_at(words, i) {
                        push(i, end, Value::Text(value), None);
                    }
                }
            }
            How::Duration { unit } => {
                for i in (0..words.len()).filter(|&i| words.timely(i)) {
                    if let Some((end, n)) = duration_at(words, i, *unit) {
                        push(i, end, Value::Int(n), None);
                    }
                }
            }
            How::Date => {
                for i in (0..words.len()).filter(|&i| words.timely(i)) {
                    if let Some((end, Period { start, end: stop })) = day_at(words, i)
                        && stop == start.next()
                    {
                        push(i, end, Value::Text(start.iso()), None);
                    }
                }
            }
            How::DateRange { fiscal_year_start } => {
                for i in (0..words.len()).filter(|&i| words.timely(i)) {
                    if let Some((end, range)) = range_at(words, i, *fiscal_year_start) {
                        push(i, end, Value::List(vec![range.0, range.1]), None);
                    }
                }
            }
            How::Integer { cues } => {
                for i in 1..words.len() {
                    if cue_ending_at(words, i, cues)
                        && let Some(n) = number(words.lower(i))
                    {
                        push(i, i + 1, Value::Int(n), None);
                    }
                }
            }
            How::QuotedText { max_len } => quoted_texts(words, *max_len, &mut push),
        }
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

/// "gold or above", "gold and up": the ranking words after an ordered value join it.
fn or_above(words: &Words<'_>, end: usize) -> usize {
    if matches!(words.lower(end), "or" | "and")
        && matches!(words.lower(end + 1), "above" | "higher" | "better" | "up" | "more")
    {
        end + 2
    } else {
        end
    }
}

/// A code of `shape` starting at word `i`: one past its last word and the code, upper case.
fn code_at(words: &Words<'_>, i: usize, shape: &str) -> Option<(usize, String)> {
    let w = words.words.get(i)?;
    let text = words.text.get(w.start..w.start + shape.len())?;
    let fits = shape.len() == text.len()
        && shape.bytes().zip(text.bytes()).all(|(s, c)| match s {
            b'A' => c.is_ascii_alphabetic(),
            b'9' => c.is_ascii_digit(),
            b'X' => c.is_ascii_alphanumeric(),
            other => other == c.to_ascii_uppercase(),
        });
    if !fits {
        return None;
    }
    let code = text.to_ascii_uppercase();
    debug_assert!(shape_matches(shape, &code));
    let stop = w.start + shape.len();
    if words.text[stop..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '-') {
        return None;
    }
    if words.text[..w.start].chars().next_back().is_some_and(|c| c == '-') {
        return None;
    }
    let end = (i..words.len()).find(|&j| words.words[j].end >= stop)? + 1;
    (words.words[end - 1].end == stop).then_some((end, code))
}

fn uuid_at(words: &Words<'_>, i: usize) -> Option<(usize, String)> {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let ok = GROUPS.iter().enumerate().all(|(n, &len)| {
        let raw = words.raw(i + n);
        raw.len() == len
            && raw.bytes().all(|b| b.is_ascii_hexdigit())
            && (n == 0 || words.gap_before(i + n) == "-")
    });
    (ok && !words.gap_before(i).ends_with('-') && !words.gap_before(i + 5).starts_with('-')).then(
        || {
            (
                i + 5,
                words.text[words.span(i, i + 5).start..words.span(i, i + 5).end]
                    .to_ascii_lowercase(),
            )
        },
    )
}

/// A count written in digits or in words.
fn number(word: &str) -> Option<i64> {
    if !word.is_empty() && word.len() <= 9 && word.bytes().all(|b| b.is_ascii_digit()) {
        return word.parse().ok();
    }
    if let Some(n) = NUMBER_WORDS.iter().position(|w| *w == word) {
        return i64::try_from(n).ok();
    }
    match word {
        "thirty" => Some(30),
        "sixty" => Some(60),
        "ninety" => Some(90),
        _ => None,
    }
}

/// The length of one time unit word in the base unit, if it converts.
fn unit_length(word: &str, unit: DurationUnit) -> Option<Option<i64>> {
    let days = match word {
        "day" | "days" => 1,
        "week" | "weeks" | "wk" | "wks" => 7,
        "month" | "months" | "mo" | "mos" | "mth" | "mths" => 30,
        "quarter" | "quarters" | "qtr" | "qtrs" => 90,
        "year" | "years" | "yr" | "yrs" => 365,
        _ => return None,
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
    let count = match words.lower(j) {
        "a" | "an" => Some(1),
        other => number(other),
    };
    let n = match count {
        Some(n) => {
            j += 1;
            // "18-month", "30 days": only a light gap between the number and the unit.
            if !words.joined(j) {
                return None;
            }
            n
        }
        None if directed => 1,
        None => return None,
    };
    let length = unit_length(words.lower(j), unit)??;
    Some((j + 1, n.checked_mul(length)?))
}

/// A calendar day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Day {
    year: i32,
    month: u8,
    day: u8,
}

fn days_in(year: i32, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
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

/// A half-open run of days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Period {
    start: Day,
    end: Day,
}

fn month_of(word: &str) -> Option<u8> {
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

fn quarter_of(word: &str) -> Option<u8> {
    match word {
        "q1" => Some(1),
        "q2" => Some(2),
        "q3" => Some(3),
        "q4" => Some(4),
        _ => None,
    }
}

/// One time expression at word `i`, with whether it stands on its own (a bare year does not).
fn period_at(words: &Words<'_>, i: usize, fy_start: u8) -> Option<(usize, Period, bool)> {
    let fiscal_year = |year: i32| {
        let end = Day::first(year, fy_start);
        let end = if fy_start == 1 { Day::first(year + 1, 1) } else { end };
        Period { start: end.plus_months(-12), end }
    };
    let calendar_year =
        |year: i32| Period { start: Day::first(year, 1), end: Day::first(year + 1, 1) };
    let quarter = |year: Period, q: u8| {
        let start = year.start.plus_months(3 * (i32::from(q) - 1));
        Period { start, end: start.plus_months(3) }
    };
    if let Some((end, period)) = day_at(words, i) {
        return Some((end, period, true));
    }
    // "Q3 2024", "Q1 FY2025".
    if let Some(q) = quarter_of(words.lower(i)) {
        if let Some(year) = year_of(words.lower(i + 1)) {
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
        && let Some(year) = year_of(words.lower(i + 1))
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
        return Some((i + 1, calendar_year(year), false));
    }
    None
}

/// A date range at word `i`: `(one past its last word, [start, end))`.
fn range_at(words: &Words<'_>, i: usize, fy_start: u8) -> Option<(usize, (String, String))> {
    const OPEN_START: &str = "-infinity";
    const OPEN_END: &str = "infinity";
    let head = words.lower(i);
    let iso = |d: Day| d.iso();
    match head {
        "between" | "from" => {
            if let Some((mid, first, _)) = period_at(words, i + 1, fy_start) {
                if matches!(words.lower(mid), "and" | "to" | "through" | "until" | "till" | "thru")
                    && let Some((end, last, _)) = period_at(words, mid + 1, fy_start)
                {
                    return Some((end, (iso(first.start), iso(last.end))));
                }
                if head == "from" {
                    let end = if matches!(words.lower(mid), "on" | "onward" | "onwards") {
                        mid + 1
                    } else {
                        mid
                    };
                    return Some((end, (iso(first.start), OPEN_END.to_owned())));
                }
            }
            None
        }
        "since" | "starting" => {
            let (end, p, _) = period_at(words, i + 1, fy_start)?;
            Some((end, (iso(p.start), OPEN_END.to_owned())))
        }
        "after" => {
            let (end, p, _) = period_at(words, i + 1, fy_start)?;
            Some((end, (iso(p.end), OPEN_END.to_owned())))
        }
        "before" => {
            let (end, p, _) = period_at(words, i + 1, fy_start)?;
            Some((end, (OPEN_START.to_owned(), iso(p.start))))
        }
        "until" | "through" | "till" | "thru" => {
            let (end, p, _) = period_at(words, i + 1, fy_start)?;
            Some((end, (OPEN_START.to_owned(), iso(p.end))))
        }
        "in" | "during" | "for" | "of" | "throughout" => {
            let (end, p, _) = period_at(words, i + 1, fy_start)?;
            Some((end, (iso(p.start), iso(p.end))))
        }
        _ => {
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
                    return Some((end, (iso(first.start), iso(last.end))));
                }
            }
            alone.then(|| (mid, (iso(first.start), iso(first.end))))
        }
    }
}

/// Every run of text inside a pair of quotes, trimmed, at most `max_len` characters.
fn quoted_texts(
    words: &Words<'_>,
    max_len: usize,
    push: &mut impl FnMut(usize, usize, Value, Option<Problem>),
) {
    let text = words.text;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let Some(close) = closes(c) else { continue };
        // An apostrophe inside a word is not a quote.
        if c == '\'' && text[..at].chars().next_back().is_some_and(char::is_alphanumeric) {
            continue;
        }
        let inner_start = at + c.len_utf8();
        let Some(rel) = text[inner_start..].find(close) else { continue };
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
        let inner = &text[inner_start..inner_end];
        let trimmed = inner.trim();
        let from = words.words.iter().position(|w| w.start >= inner_start && w.end <= inner_end);
        let to = words.words.iter().rposition(|w| w.start >= inner_start && w.end <= inner_end);
        if let (Some(from), Some(to)) = (from, to)
            && !trimmed.is_empty()
            && trimmed.chars().count() <= max_len
        {
            push(from, to + 1, Value::Text(trimmed.to_owned()), None);
        }
        while chars.peek().is_some_and(|&(i, _)| i <= inner_end) {
            chars.next();
        }
    }
}

#[cfg(test)]
mod tests;
