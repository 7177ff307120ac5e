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
        // Nearly every value fits 64 bits, where dividing by ten is a multiplication; 128-bit
        // division is a library call.
        if let Ok(mut small) = i64::try_from(mantissa) {
            while small % 10 == 0 {
                small /= 10;
                scale -= 1;
            }
            return Num { mantissa: small.into(), scale };
        }
        while mantissa % 10 == 0 {
            mantissa /= 10;
            scale -= 1;
        }
        Num { mantissa, scale }
    }

    /// Parses plain digits with optional thousands separators and decimal part.
    pub(crate) fn parse(text: &str) -> Option<Num> {
        // Plain digits with at most one decimal point, at most 30 digits: read in one pass.
        if !text.is_empty() && text.len() <= 31 {
            let mut mantissa = 0i128;
            let mut point = None;
            let mut plain = true;
            for (at, byte) in text.bytes().enumerate() {
                match byte {
                    b'0'..=b'9' => mantissa = mantissa * 10 + i128::from(byte - b'0'),
                    b'.' if point.is_none() => point = Some(at),
                    _ => {
                        plain = false;
                        break;
                    }
                }
            }
            let digits = text.len() - usize::from(point.is_some());
            if plain && (1..=30).contains(&digits) {
                let scale = point.map_or(0, |at| text.len() - at - 1);
                return Some(Num { mantissa, scale: scale as i32 });
            }
        }
        Self::parse_general(text)
    }

    fn parse_general(text: &str) -> Option<Num> {
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
    /// Letters and digits together (UEI, PIID), as written: compared as [`ident_bytes`] reads
    /// them (upper-case letters and digits).
    Ident(&'a str),
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
    // Trailing dots off, then compared ignoring ASCII case (the names are lower-case ASCII):
    // the first three letters pick the month, the rest must be all or nothing.
    let word = word.trim_end_matches('.');
    let bytes = word.as_bytes();
    if !(3..=9).contains(&bytes.len()) {
        return None;
    }
    let prefix = [bytes[0], bytes[1], bytes[2]].map(|byte| byte.to_ascii_lowercase());
    let index = MONTHS.iter().position(|name| name.as_bytes()[..3] == prefix)?;
    let name = MONTHS[index];
    let whole = bytes.len() == 3
        || name.eq_ignore_ascii_case(word)
        || (index == 8 && word.eq_ignore_ascii_case("sept"));
    whole.then(|| u8::try_from(index + 1).ok()).flatten()
}

/// Parses `YYYY-MM-DD` or `MM/DD/YYYY`.
pub(crate) fn date(text: &str) -> Option<(u16, u8, u8)> {
    // The common form, `YYYY-MM-DD`, read directly.
    if let &[y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2] = text.as_bytes()
        && [y1, y2, y3, y4, m1, m2, d1, d2].iter().all(u8::is_ascii_digit)
    {
        let digit = |byte: u8| byte - b'0';
        let year =
            [y1, y2, y3, y4].iter().fold(0u16, |year, &byte| year * 10 + u16::from(digit(byte)));
        let month = digit(m1) * 10 + digit(m2);
        let day = digit(d1) * 10 + digit(d2);
        return ((1..=12).contains(&month) && (1..=31).contains(&day))
            .then_some((year, month, day));
    }
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

/// The character at byte `at` of `text` (a char boundary), and its length in bytes.
fn char_at(text: &str, at: usize) -> Option<(char, usize)> {
    let byte = *text.as_bytes().get(at)?;
    if byte.is_ascii() {
        return Some((char::from(byte), 1));
    }
    text[at..].chars().next().map(|ch| (ch, ch.len_utf8()))
}

/// One chunk of letters and digits as the scanner cut it, with its position.
struct Chunk<'a> {
    text: &'a str,
    sentence: u32,
    clause: u32,
    part: u32,
    starts: bool,
    /// Followed by `%`.
    percent: bool,
}

/// Cuts `text` into chunks: runs of letters and digits joined by inner separators
/// (`-` `/` `.` `,` `'` `’` `&` between two of them), each tagged with its sentence, clause and
/// part. One pass over the bytes; only non-ASCII characters are decoded.
fn chunks(text: &str) -> Vec<Chunk<'_>> {
    let bytes = text.as_bytes();
    let alphanumeric_at = |at: usize| char_at(text, at).is_some_and(|(ch, _)| ch.is_alphanumeric());
    let mut out = Vec::with_capacity(text.len() / 6 + 1);
    let (mut sentence, mut clause, mut part) = (0u32, 0u32, 0u32);
    let mut at_sentence_start = true;
    let mut at = 0;
    while at < bytes.len() {
        let (ch, width) = char_at(text, at).unwrap_or(('\0', 1));
        if ch.is_ascii()
            && !ch.is_ascii_alphanumeric()
            && !matches!(ch, '.' | '!' | '?' | '\n' | ';' | ':' | '(' | ')' | '|' | ',')
        {
            // Spaces and other ASCII marks: nothing to count.
            at += 1;
            continue;
        }
        if ch.is_alphanumeric() {
            let start = at;
            let mut end = at + width;
            loop {
                // ASCII letters and digits, the common case, without decoding.
                while bytes.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                    end += 1;
                }
                let Some((next, width)) = char_at(text, end) else { break };
                let joins = matches!(next, '-' | '/' | '.' | ',' | '\'' | '\u{2019}' | '&')
                    && alphanumeric_at(end + width);
                if !(next.is_alphanumeric() || joins) {
                    break;
                }
                end += width;
            }
            out.push(Chunk {
                text: &text[start..end],
                sentence,
                clause,
                part,
                starts: at_sentence_start,
                percent: bytes.get(end) == Some(&b'%'),
            });
            at_sentence_start = false;
            at = end;
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
            ',' if char_at(text, at + 1).is_none_or(|(next, _)| next.is_whitespace()) => {
                clause += 1
            }
            _ => {}
        }
        at += width;
    }
    out
}

/// `word` without trailing possessives (`'s`, `’s`).
fn strip_possessive(mut word: &str) -> &str {
    while let Some(rest) = word.strip_suffix("'s") {
        word = rest;
    }
    while let Some(rest) = word.strip_suffix("\u{2019}s") {
        word = rest;
    }
    word
}

/// Scans a narration into tokens.
pub(crate) fn scan<'a>(text: &'a str) -> Vec<Token<'a>> {
    let raw = chunks(text);
    let mut tokens = Vec::with_capacity(raw.len() + 4);
    let mut has_month = false;
    let mut position = 0;
    while position < raw.len() {
        let chunk = &raw[position];
        let token = |kind: Kind<'a>| Token {
            kind,
            sentence: chunk.sentence,
            clause: chunk.clause,
            part: chunk.part,
            starts_sentence: chunk.starts,
        };
        let text = chunk.text;
        let has_digit = text.bytes().any(|byte| byte.is_ascii_digit());
        if !has_digit && text.bytes().all(|byte| byte.is_ascii_alphabetic()) {
            // One plain word: nothing to split, strip or trim.
            has_month = has_month || month(text).is_some();
            tokens.push(token(Kind::Word(text)));
        } else if !has_digit {
            for (offset, word) in
                text.split(['-', '/', '&']).filter(|word| !word.is_empty()).enumerate()
            {
                let word = strip_possessive(word).trim_matches(|ch: char| !ch.is_alphanumeric());
                if !word.is_empty() {
                    has_month = has_month || month(word).is_some();
                    tokens.push(Token {
                        kind: Kind::Word(word),
                        sentence: chunk.sentence,
                        clause: chunk.clause,
                        part: chunk.part,
                        starts_sentence: chunk.starts && offset == 0,
                    });
                }
            }
        } else if let Some((year, month, day)) =
            text.bytes().any(|byte| matches!(byte, b'-' | b'/')).then(|| date(text)).flatten()
        {
            tokens.push(token(Kind::Date(year, month, day)));
        } else if !text.chars().any(char::is_alphabetic) {
            let number = |part: &'a str, position: &mut usize, tokens: &mut Vec<Token<'a>>| {
                let Some(mut value) = Num::parse(part) else {
                    if part.bytes().any(|byte| byte.is_ascii_digit()) {
                        // Too long to be a number: checked as an identifier, so it fails closed.
                        tokens.push(token(Kind::Ident(part)));
                    }
                    return;
                };
                let next_word = raw.get(*position + 1).filter(|next| next.clause == chunk.clause);
                if let Some(shift) = next_word.and_then(|next| magnitude(next.text)) {
                    value.scale -= shift;
                    *position += 1;
                }
                let percent = chunk.percent
                    || raw.get(*position + 1).is_some_and(|next| {
                        next.text.eq_ignore_ascii_case("percent")
                            || next.text.eq_ignore_ascii_case("pct")
                    });
                tokens.push(token(Kind::Number { value, percent }));
            };
            if Num::parse(text).is_some() {
                number(text, &mut position, &mut tokens);
            } else {
                for part in text.split([',', '-', '/']) {
                    number(part, &mut position, &mut tokens);
                }
            }
        } else {
            if mixed(text, |value| tokens.push(token(Kind::Number { value, percent: false }))) {
                tokens.push(token(Kind::Ident(text)));
            }
        }
        position += 1;
    }
    if has_month { fold_month_dates(tokens) } else { tokens }
}

/// Reads a chunk holding both digits and letters: a number with a magnitude suffix (`12M`),
/// an identifier of at least four letters and digits (then it returns `true`, and the caller
/// reads the identifier with [`ident_bytes`]), or else the runs of digits as numbers.
pub(crate) fn mixed(chunk: &str, mut number: impl FnMut(Num)) -> bool {
    let split = chunk.find(|ch: char| ch.is_alphabetic()).unwrap_or(0);
    let (digits, suffix) = chunk.split_at(split);
    if split > 0
        && let Some(mut value) = Num::parse(digits)
        && let Some(shift) = magnitude(suffix)
    {
        value.scale -= shift;
        number(value);
        return false;
    }
    if ident_bytes(chunk).nth(3).is_some() {
        return true;
    }
    for run in chunk.split(|ch: char| !ch.is_ascii_digit()).filter(|run| !run.is_empty()) {
        if let Some(value) = Num::parse(run) {
            number(value);
        }
    }
    false
}

/// An identifier as compared: the chunk's ASCII letters and digits, upper-cased.
pub(crate) fn ident_bytes(chunk: &str) -> impl Iterator<Item = u8> + '_ {
    chunk.bytes().filter(u8::is_ascii_alphanumeric).map(|byte| byte.to_ascii_uppercase())
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

/// For each ASCII byte: its lower-case form when a letter or digit, else 0 (a separator).
const FOLD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0u8;
    while byte < 128 {
        if byte.is_ascii_alphanumeric() {
            table[byte as usize] = byte.to_ascii_lowercase();
        }
        byte += 1;
    }
    table
};

/// Lower-case alphanumeric words joined by single spaces, with a space at each end, so that
/// a search for ` word ` tests whole words. UTF-8 in, UTF-8 out (as bytes).
pub(crate) fn normalise(text: &str, out: &mut Vec<u8>) {
    out.reserve(text.len() + 2);
    out.push(b' ');
    let bytes = text.as_bytes();
    let mut in_word = false;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let (folded, width) = if byte.is_ascii() {
            (FOLD[usize::from(byte)], 1)
        } else {
            let ch = text[at..].chars().next().unwrap_or(' ');
            if ch.is_alphanumeric() {
                for lower in ch.to_lowercase() {
                    out.extend_from_slice(lower.encode_utf8(&mut [0; 4]).as_bytes());
                }
                in_word = true;
            } else if in_word {
                out.push(b' ');
                in_word = false;
            }
            at += ch.len_utf8();
            continue;
        };
        if folded != 0 {
            out.push(folded);
            in_word = true;
        } else if in_word {
            out.push(b' ');
            in_word = false;
        }
        at += width;
    }
    if in_word {
        out.push(b' ');
    }
}
