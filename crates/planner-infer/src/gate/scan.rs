//! The narration scanner: numbers (with currency, magnitude words and percent signs), dates,
//! identifiers and words, each tagged with its sentence and clause.

/// A number as written: `mantissa × 10^-scale`, magnitude words folded into the scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Num {
    pub(crate) mantissa: i128,
    pub(crate) scale: i32,
}

impl Num {
    /// The same value with trailing zeros of the mantissa folded into the scale.
    pub(crate) fn canonical(self) -> Num {
        let Num { mut mantissa, mut scale } = self;
        if mantissa == 0 {
            return Num { mantissa: 0, scale: 0 };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            scale -= 1;
        }
        Num { mantissa, scale }
    }

    /// Parses plain digits with optional thousands separators and decimal part.
    pub(crate) fn parse(text: &str) -> Option<Num> {
        let text = text.trim_start_matches(['-', '+']);
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        if whole.contains(',') {
            let mut groups = whole.split(',');
            let first = groups.next()?;
            if first.is_empty() || first.len() > 3 || groups.any(|group| group.len() != 3) {
                return None;
            }
        }
        // The digits of both parts, separators left out: at most 30 of them, so the value fits
        // an i128 without overflow.
        let digits = whole.bytes().filter(|&byte| byte != b',').chain(fraction.bytes());
        let mut count = 0usize;
        let mut mantissa = 0i128;
        for byte in digits {
            if !byte.is_ascii_digit() || count == 30 {
                return None;
            }
            count += 1;
            mantissa = mantissa * 10 + i128::from(byte - b'0');
        }
        if count == 0 {
            return None;
        }
        Some(Num { mantissa, scale: i32::try_from(fraction.len()).ok()? })
    }
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind<'a> {
    /// A number; `percent` when followed by `%` or `percent`.
    Number { value: Num, percent: bool },
    /// A date: `(year, month, day)`; day 0 means a month-year.
    Date(u16, u8, u8),
    /// Letters and digits together, normalised to upper-case alphanumerics (UEI, PIID).
    Ident(String),
    /// A word of letters, as written (possessive `'s` removed), borrowed from the text.
    Word(&'a str),
}

/// One scanned token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Kind<'a>,
    /// The sentence it is in (0-based).
    pub(crate) sentence: u32,
    /// The clause it is in (0-based, across the narration).
    pub(crate) clause: u32,
    /// The part it is in: like a clause, but only `;` `:` brackets and sentence ends divide
    /// parts, not commas.
    pub(crate) part: u32,
    /// Whether it is the first word of its sentence.
    pub(crate) starts_sentence: bool,
}

const MONTHS: [&str; 12] = [
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

pub(crate) fn month(word: &str) -> Option<u8> {
    // Trailing dots off, then compared ignoring ASCII case (the names are lower-case ASCII).
    let word = word.trim_end_matches('.');
    let index = MONTHS.iter().position(|name| {
        name.eq_ignore_ascii_case(word)
            || (word.len() == 3 && name.as_bytes()[..3].eq_ignore_ascii_case(word.as_bytes()))
            || (word.eq_ignore_ascii_case("sept") && *name == "september")
    })?;
    u8::try_from(index + 1).ok()
}

/// Parses `YYYY-MM-DD` or `MM/DD/YYYY`.
pub(crate) fn date(text: &str) -> Option<(u16, u8, u8)> {
    let mut parts = text.split(['-', '/']);
    let (Some(first), Some(second), Some(third), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if ![first, second, third]
        .iter()
        .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
    {
        return None;
    }
    let (year, month, day) = if first.len() == 4 {
        (first, second, third)
    } else if third.len() == 4 && text.contains('/') {
        (third, first, second)
    } else {
        return None;
    };
    let year: u16 = year.parse().ok()?;
    let month: u8 = month.parse().ok()?;
    let day: u8 = day.parse().ok()?;
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((year, month, day))
}

fn magnitude(word: &str) -> Option<i32> {
    const WORDS: &[(&str, i32)] = &[
        ("thousand", 3),
        ("k", 3),
        ("million", 6),
        ("millions", 6),
        ("m", 6),
        ("mm", 6),
        ("mn", 6),
        ("billion", 9),
        ("billions", 9),
        ("b", 9),
        ("bn", 9),
        ("trillion", 12),
    ];
    // Words longer than any magnitude word skip the comparisons.
    if word.len() > 8 {
        return None;
    }
    WORDS.iter().find(|(name, _)| name.eq_ignore_ascii_case(word)).map(|&(_, shift)| shift)
}

/// Scans a narration into tokens.
pub(crate) fn scan(text: &str) -> Vec<Token<'_>> {
    // (chunk, sentence, clause, part, starts a sentence, followed by `%`)
    let mut raw: Vec<(&str, u32, u32, u32, bool, bool)> = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut sentence = 0u32;
    let mut clause = 0u32;
    let mut part = 0u32;
    let mut at_sentence_start = true;
    let mut index = 0;
    while index < chars.len() {
        let ch = chars[index].1;
        if ch.is_alphanumeric() {
            let start = index;
            let mut end = index + 1;
            while end < chars.len() {
                let next = chars[end].1;
                if next.is_alphanumeric() {
                    end += 1;
                } else if matches!(next, '-' | '/' | '.' | ',' | '\'' | '\u{2019}' | '&')
                    && end + 1 < chars.len()
                    && chars[end + 1].1.is_alphanumeric()
                {
                    end += 2;
                } else {
                    break;
                }
            }
            let from = chars[start].0;
            let to = chars.get(end).map_or(text.len(), |&(at, _)| at);
            let percent = chars.get(end).is_some_and(|&(_, next)| next == '%');
            raw.push((&text[from..to], sentence, clause, part, at_sentence_start, percent));
            at_sentence_start = false;
            index = end;
            continue;
        }
        match ch {
            '.' | '!' | '?' | '\n' => {
                sentence += 1;
                clause += 1;
                part += 1;
                at_sentence_start = true;
            }
            ';' | ':' | '(' | ')' | '|' => {
                clause += 1;
                part += 1;
            }
            ',' if chars.get(index + 1).is_none_or(|&(_, next)| next.is_whitespace()) => {
                clause += 1
            }
            _ => {}
        }
        index += 1;
    }
    let mut tokens = Vec::with_capacity(raw.len());
    let mut position = 0;
    while position < raw.len() {
        let (chunk, sentence, clause, part, starts, percent) = &raw[position];
        let token = |kind| Token {
            kind,
            sentence: *sentence,
            clause: *clause,
            part: *part,
            starts_sentence: *starts,
        };
        let chunk: &str = chunk;
        let has_digit = chunk.chars().any(|ch| ch.is_ascii_digit());
        let has_letter = chunk.chars().any(char::is_alphabetic);
        if let Some((year, month, day)) = date(chunk) {
            tokens.push(token(Kind::Date(year, month, day)));
        } else if has_digit && !has_letter {
            let mut parts: Vec<&str> = vec![chunk];
            if Num::parse(chunk).is_none() {
                parts = chunk.split([',', '-', '/']).collect();
            }
            for part in parts {
                if Num::parse(part).is_none() && part.chars().any(|ch| ch.is_ascii_digit()) {
                    // Too long to be a number: checked as an identifier, so it fails closed.
                    let ident: String = part.chars().filter(char::is_ascii_alphanumeric).collect();
                    tokens.push(token(Kind::Ident(ident)));
                }
                if let Some(mut value) = Num::parse(part) {
                    let next_word = raw.get(position + 1).filter(|next| next.2 == *clause);
                    if let Some(shift) = next_word.and_then(|next| magnitude(next.0)) {
                        value.scale -= shift;
                        position += 1;
                    }
                    let percent = *percent
                        || raw.get(position + 1).is_some_and(|next| {
                            next.0.eq_ignore_ascii_case("percent")
                                || next.0.eq_ignore_ascii_case("pct")
                        });
                    tokens.push(token(Kind::Number { value, percent }));
                }
            }
        } else if has_digit {
            mixed(chunk, |kind| tokens.push(token(kind)));
        } else {
            for (offset, word) in
                chunk.split(['-', '/', '&']).filter(|word| !word.is_empty()).enumerate()
            {
                let word = word.trim_end_matches("'s").trim_end_matches("\u{2019}s");
                let word = word.trim_matches(|ch: char| !ch.is_alphanumeric());
                if !word.is_empty() {
                    tokens.push(Token {
                        kind: Kind::Word(word),
                        sentence: *sentence,
                        clause: *clause,
                        part: *part,
                        starts_sentence: *starts && offset == 0,
                    });
                }
            }
        }
        position += 1;
    }
    fold_month_dates(tokens)
}

/// The tokens of a chunk holding both digits and letters: a number with a magnitude suffix
/// (`12M`), an identifier of at least four letters and digits (upper-cased), or else the runs
/// of digits as numbers.
pub(crate) fn mixed(chunk: &str, mut emit: impl FnMut(Kind<'static>)) {
    let split = chunk.find(|ch: char| ch.is_alphabetic()).unwrap_or(0);
    let (digits, suffix) = chunk.split_at(split);
    if let (Some(mut value), Some(shift)) = (Num::parse(digits), magnitude(suffix)) {
        value.scale -= shift;
        emit(Kind::Number { value, percent: false });
        return;
    }
    let ident: String =
        chunk.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_uppercase();
    if ident.len() >= 4 {
        emit(Kind::Ident(ident));
    } else {
        for run in chunk.split(|ch: char| !ch.is_ascii_digit()).filter(|run| !run.is_empty()) {
            if let Some(value) = Num::parse(run) {
                emit(Kind::Number { value, percent: false });
            }
        }
    }
}

/// Folds `March 31, 2026`, `31 March 2026` and `March 2026` into dates.
fn fold_month_dates(mut tokens: Vec<Token<'_>>) -> Vec<Token<'_>> {
    let small =
        |token: Option<&Token<'_>>, range: std::ops::RangeInclusive<i128>| -> Option<i128> {
            match token.map(|token| &token.kind) {
                Some(Kind::Number { value, percent: false })
                    if value.scale == 0 && range.contains(&value.mantissa) =>
                {
                    Some(value.mantissa)
                }
                _ => None,
            }
        };
    let has_month =
        tokens.iter().any(|token| matches!(&token.kind, Kind::Word(word) if month(word).is_some()));
    if !has_month {
        return tokens;
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut index = 0;
    while index < tokens.len() {
        if let Kind::Word(word) = &tokens[index].kind
            && let Some(month) = month(word)
        {
            let base = tokens[index].clone();
            let date = |year: i128, day: i128| Token {
                kind: Kind::Date(
                    u16::try_from(year).unwrap_or(0),
                    month,
                    u8::try_from(day).unwrap_or(0),
                ),
                ..base.clone()
            };
            if let (Some(day), Some(year)) =
                (small(tokens.get(index + 1), 1..=31), small(tokens.get(index + 2), 1900..=2200))
            {
                out.push(date(year, day));
                index += 3;
                continue;
            }
            if let Some(year) = small(tokens.get(index + 1), 1900..=2200) {
                if let Some(day) = out.last().and_then(|last: &Token<'_>| small(Some(last), 1..=31))
                {
                    out.pop();
                    out.push(date(year, day));
                } else {
                    out.push(date(year, 0));
                }
                index += 2;
                continue;
            }
        }
        let placeholder = tokens[index].clone_position();
        out.push(std::mem::replace(&mut tokens[index], placeholder));
        index += 1;
    }
    out
}

impl<'a> Token<'a> {
    /// A copy of the position fields, with an empty word.
    fn clone_position(&self) -> Token<'a> {
        Token {
            kind: Kind::Word(""),
            sentence: self.sentence,
            clause: self.clause,
            part: self.part,
            starts_sentence: self.starts_sentence,
        }
    }
}

/// Lower-case alphanumeric words joined by single spaces, with a space at each end, so that
/// `contains(" word ")` tests whole words.
pub(crate) fn normalise(text: &str, out: &mut String) {
    out.push(' ');
    let mut in_word = false;
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
            in_word = true;
        } else if ch.is_ascii() || !ch.is_alphanumeric() {
            if in_word {
                out.push(' ');
                in_word = false;
            }
        } else {
            out.extend(ch.to_lowercase());
            in_word = true;
        }
    }
    if in_word {
        out.push(' ');
    }
}
