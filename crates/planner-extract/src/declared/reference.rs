//! The straightforward path the declared kinds' extraction must agree with: the question split
//! char by char, each word looked up by its text, every matcher tried at every word (the time
//! matchers at the words that may start a time) with its value built at once, then the same
//! left-to-right choice.

use planner_registry::Value;

use super::{
    Candidate, Declared, How, NO_WORD, PLURAL, Pending, Period, Relative, SINGULAR, TIME, Word,
    Words, asked_count, closes, code_at, compared, cue_ending, cue_ending_at, day_at, duration_at,
    list_start, list_values, names_a_thing, number, range_at, relative_at, slashed_capitals,
    superlative, uuid_at,
};
use crate::mention::{Diagnostic, Mention, Problem, Span};

/// The words of `text`, one char at a time.
pub(super) fn words<'a>(declared: &Declared, text: &'a str) -> Words<'a> {
    let mut out = Words { text, words: Vec::new(), lower_text: String::new(), quotes: Vec::new() };
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric() && at < text.len(), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                let lower_from = out.lower_text.len();
                out.lower_text.extend(text[from..at].chars().flat_map(char::to_lowercase));
                let lower = &out.lower_text[lower_from..];
                let mut id = declared.table.ids.get(lower).copied().unwrap_or(NO_WORD);
                // A plural in `s` of a word ending an alias, itself no word of the table.
                if id == NO_WORD
                    && lower.is_ascii()
                    && lower.len() >= 3
                    && let Some(singular) = lower.strip_suffix('s')
                    && let Some(&known) = declared.table.ids.get(singular)
                    && declared.table.flags(known) & PLURAL != 0
                {
                    id = known;
                }
                // A singular of a plural ending an alias, itself no word of the table.
                if id == NO_WORD
                    && lower.is_ascii()
                    && lower.len() >= 3
                    && let Some(&known) = declared.table.ids.get(format!("{lower}s").as_str())
                    && declared.table.flags(known) & SINGULAR != 0
                {
                    id = known;
                }
                let bytes = lower.as_bytes();
                let timed = bytes.first().is_some_and(u8::is_ascii_digit)
                    || (bytes.len() > 2
                        && matches!(&bytes[..2], b"fy" | b"cy")
                        && bytes[2..].iter().all(u8::is_ascii_digit));
                let flags = declared.table.flags(id) | if timed { TIME } else { 0 };
                let lower = (
                    u32::try_from(lower_from).unwrap_or(u32::MAX),
                    u32::try_from(out.lower_text.len()).unwrap_or(u32::MAX),
                );
                out.words.push(Word { start: from, end: at, lower, id, flags });
                start = None;
            }
            _ => {}
        }
        if c == '&' {
            let from = out.lower_text.len();
            out.lower_text.push_str("and");
            out.words.push(super::and_word(at, from, &declared.table));
        }
    }
    out
}

/// The mentions and diagnostics of `question` outside `taken`.
pub(super) fn extract(
    declared: &Declared,
    question: &str,
    taken: &[Span],
) -> (Vec<Mention>, Vec<Diagnostic>) {
    let words = words(declared, question);
    let free: Vec<bool> = words
        .words
        .iter()
        .map(|w| !taken.iter().any(|t| t.start < w.end && w.start < t.end))
        .collect();
    let mut candidates: Vec<(Candidate, Value, Option<Problem>)> = Vec::new();
    for (m, matcher) in declared.matchers.iter().enumerate() {
        let mut push = |from: usize, to: usize, value: Value, problem: Option<Problem>| {
            let c = Candidate { from, to, matcher: m, value: Pending::Int(0) };
            candidates.push((c, value, problem));
        };
        let timed = (0..words.len()).filter(|&i| words.words[i].flags & TIME != 0);
        match &matcher.how {
            How::Dictionary { values, phrases } => {
                for i in 0..words.len() {
                    if let Some((index, end)) = phrases.at(&words, i) {
                        push(i, end, Value::Text(values[index].clone()), None);
                    }
                }
            }
            How::List { values, phrases, context } => {
                for c in 0..words.len() {
                    let Some(after) = cue_ending(&words, c, context) else { continue };
                    let start = list_start(&words, after);
                    let mut found: Vec<usize> = Vec::new();
                    if let Some(end) = list_values(&words, start, phrases, |at, _| found.push(at)) {
                        found.sort_unstable();
                        found.dedup();
                        let list = found.into_iter().map(|at| values[at].clone()).collect();
                        push(start, end, Value::List(list), None);
                    }
                }
                // A list no context cue precedes: one a context word follows, capitals joined
                // by slashes, values compared, terms written as terms, or values whose words
                // name things.
                for i in 0..words.len() {
                    let mut found: Vec<usize> = Vec::new();
                    let mut terms = true;
                    let Some(end) = list_values(&words, i, phrases, |at, term| {
                        found.push(at);
                        terms &= term;
                    }) else {
                        continue;
                    };
                    if cue_ending(&words, end, context).is_some()
                        || slashed_capitals(&words, i, end, found.len())
                        || compared(&words, i, end)
                        || terms
                        || names_a_thing(&words, i, end)
                    {
                        found.sort_unstable();
                        found.dedup();
                        let list = found.into_iter().map(|at| values[at].clone()).collect();
                        push(i, end, Value::List(list), None);
                    }
                }
            }
            How::Code { shape, codes, cues, bare_mixed, titles, titled } => {
                for i in 0..words.len() {
                    if let Some((index, end)) = titles.at(&words, i)
                        && words.quoted(i, end)
                    {
                        push(i, end, Value::Text(titled[index].clone()), None);
                    }
                    let Some((end, stop)) = code_at(&words, i, shape) else { continue };
                    let code = question[words.words[i].start..stop].to_ascii_uppercase();
                    let listed = codes.binary_search(&code).is_ok();
                    let cued = (0..3)
                        .any(|between| i > between && cue_ending_at(&words, i - between, cues));
                    let mixed = *bare_mixed
                        && code.chars().any(|c| c.is_ascii_alphabetic())
                        && code.chars().any(|c| c.is_ascii_digit());
                    let taken = (cues.is_empty() && codes.is_empty()) || listed || cued || mixed;
                    if taken {
                        let problem = (!codes.is_empty() && !listed)
                            .then(|| Problem::NotInList { kind: matcher.kind, code: code.clone() });
                        push(i, end, Value::Text(code), problem);
                    }
                }
            }
            How::Uuid => {
                for i in 0..words.len() {
                    if let Some(end) = uuid_at(&words, i) {
                        let span = words.span(i, end);
                        push(i, end, Value::Text(span.text(question).to_ascii_lowercase()), None);
                    }
                }
            }
            How::Duration { unit } => {
                for i in timed {
                    if let Some((end, n)) = duration_at(&words, i, *unit) {
                        push(i, end, Value::Int(n), None);
                    }
                }
            }
            How::Date => {
                for i in timed {
                    if let Some((end, Period { start, end: stop })) = day_at(&words, i)
                        && stop == start.next()
                    {
                        push(i, end, Value::Text(start.iso()), None);
                    }
                }
            }
            How::DateRange { fiscal_year_start, relative, rolling } => {
                for i in timed {
                    if let Some((end, (start, stop))) = range_at(&words, i, *fiscal_year_start) {
                        let start = start.map_or_else(|| "-infinity".to_owned(), |d| d.iso());
                        let stop = stop.map_or_else(|| "infinity".to_owned(), |d| d.iso());
                        push(i, end, Value::List(vec![start, stop]), None);
                    }
                    if *relative && let Some((end, start, stop)) = relative_at(&words, i) {
                        if matches!(stop, Relative::Past { .. }) && !*rolling {
                            continue;
                        }
                        push(i, end, Value::List(stop.bounds(start)), None);
                    }
                }
            }
            How::Integer { cues } => {
                for i in 0..words.len() {
                    let Some(n) = number(words.lower(i)) else { continue };
                    // After its cue ("top 5") or a superlative ("largest 3", no year), before
                    // it or a superlative ("5 biggest"), or asked for ("which 3 buyers spent
                    // the most").
                    let after_cue = i >= 1
                        && (cue_ending_at(&words, i, cues)
                            || (superlative(words.lower(i - 1)) && words.joined(i) && n < 1000));
                    let before_cue = !words.tail_of_previous(i)
                        && i + 1 < words.len()
                        && words.joined(i + 1)
                        && (cue_ending(&words, i + 1, cues).is_some()
                            || superlative(words.lower(i + 1))
                            || (matches!(words.lower(i + 1), "most" | "least") && n < 1000));
                    if after_cue || before_cue || asked_count(&words, i, cues) {
                        push(i, i + 1, Value::Int(n), None);
                    }
                }
            }
            How::QuotedText { max_len } => quoted(&words, *max_len, &mut push),
        }
    }
    candidates.retain(|(c, ..)| (c.from..c.to).all(|i| free.get(i).copied().unwrap_or(false)));
    // A month without its year only where its kind reads no other period.
    let starts = |value: &Value, anchors: &[&str]| {
        matches!(value, Value::List(items)
            if items.first().is_some_and(|it| anchors.iter().any(|a| it.starts_with(a))))
    };
    let yearless = |value: &Value| starts(value, &["@L", "@P"]);
    let dated: Vec<usize> =
        candidates.iter().filter(|(_, v, _)| !yearless(v)).map(|(c, ..)| c.matcher).collect();
    candidates.retain(|(c, v, _)| !yearless(v) || !dated.contains(&c.matcher));
    // A calendar period relative to the data's date wins over a duration in the same words.
    let calendar = |value: &Value| starts(value, &["@Y", "@Q", "@M", "@L", "@P"]);
    candidates.sort_by_key(|(c, value, _)| {
        (c.from, std::cmp::Reverse(c.to), !calendar(value), c.matcher)
    });
    let (mut mentions, mut diagnostics) = (Vec::new(), Vec::new());
    let mut next = 0;
    for (candidate, value, problem) in candidates {
        if candidate.from < next {
            continue;
        }
        next = candidate.to;
        let span = words.span(candidate.from, candidate.to);
        if let Some(problem) = problem {
            diagnostics.push(Diagnostic { span, problem });
        }
        mentions.push(Mention {
            kind: declared.matchers[candidate.matcher].kind,
            value,
            span,
            role: None,
        });
    }
    window_twin(declared, &words, &mut mentions);
    declared.day_twin(0, &mut mentions);
    (mentions, diagnostics)
}

/// The one duration taken, where the registry's relative date range does not read rolling
/// windows and the question says no period: the same words read as that period, after it.
fn window_twin(declared: &Declared, words: &Words<'_>, mentions: &mut Vec<Mention>) {
    let is = |kind, duration: bool| {
        declared.matchers.iter().any(|m| {
            m.kind == kind
                && if duration {
                    matches!(m.how, How::Duration { .. })
                } else {
                    matches!(m.how, How::DateRange { relative: true, rolling: false, .. })
                }
        })
    };
    let Some(range) = declared.matchers.iter().map(|m| m.kind).find(|&k| is(k, false)) else {
        return;
    };
    let lengths: Vec<usize> =
        (0..mentions.len()).filter(|&at| is(mentions[at].kind, true)).collect();
    let [at] = lengths[..] else { return };
    if mentions.iter().any(|m| m.kind == range) {
        return;
    }
    let span = mentions[at].span;
    for start in 0..words.len() {
        let Some((end, from, stop)) = relative_at(words, start) else { continue };
        let whole = words.span(start, end);
        let same_end = whole.end == span.end;
        let starts = whole.start == span.start
            || (start + 1 < words.len() && words.span(start + 1, end).start == span.start);
        if same_end && starts {
            let value = Value::List(stop.bounds(from));
            mentions.insert(at + 1, Mention { kind: range, value, span, role: None });
            return;
        }
    }
}

/// Every run of text inside a pair of quotes, trimmed, at most `max_len` characters, one char
/// at a time.
fn quoted(
    words: &Words<'_>,
    max_len: usize,
    push: &mut impl FnMut(usize, usize, Value, Option<Problem>),
) {
    let text = words.text;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let Some(close) = closes(c) else { continue };
        if c == '\'' && text[..at].chars().next_back().is_some_and(char::is_alphanumeric) {
            continue;
        }
        let inner_start = at + c.len_utf8();
        let Some(rel) = text[inner_start..].find(close) else { continue };
        let mut inner_end = inner_start + rel;
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
