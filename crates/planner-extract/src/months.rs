//! Time windows in months: "last 18 months", "two years", "1.5 years", "next quarter".

use planner_registry::{ParamKind, Value};

use crate::mention::Problem;
use crate::scan::{Hit, Scan, is_blank_or_hyphen};
use crate::token::{DIGITS, HAS_DIGIT, Tok};
use crate::vocab::{self, Kw};

/// Months in one unit, when `kw` names a unit of time.
fn unit_months(kw: Option<Kw>) -> Option<u64> {
    match kw? {
        Kw::Month | Kw::Months | Kw::Mo | Kw::Mos | Kw::Mth | Kw::Mths => Some(1),
        Kw::Quarter | Kw::Quarters | Kw::Qtr | Kw::Qtrs => Some(3),
        Kw::Year | Kw::Years | Kw::Yr | Kw::Yrs => Some(12),
        Kw::Decade | Kw::Decades => Some(120),
        _ => None,
    }
}

fn is_relative(kw: Option<Kw>) -> bool {
    matches!(
        kw,
        Some(
            Kw::Last
                | Kw::Past
                | Kw::Next
                | Kw::Previous
                | Kw::Prior
                | Kw::Coming
                | Kw::Upcoming
                | Kw::Trailing
                | Kw::Following
        )
    )
}

/// Whether a window may start with this token (of keyword `kw`): a count in digits, a number
/// word, a relative word or an article. [`at`] finds nothing at any other token.
pub(crate) fn can_start(tok: &Tok, kw: Option<Kw>) -> bool {
    tok.is(HAS_DIGIT) || tok.num > 0 || is_relative(kw) || matches!(kw, Some(Kw::A | Kw::An))
}

/// A window starting at token `i`.
pub(crate) fn at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let tok = scan.tok(i)?;
    if tok.is(HAS_DIGIT) {
        return if tok.is(DIGITS) { digits_at(scan, i) } else { glued_at(scan, i) };
    }
    let kw = tok.kw();
    if is_relative(kw) {
        // "last year", "next fiscal quarter": one unit.
        let (unit, last) = unit_after(scan, i)?;
        return Some(window(scan, i, last, Some(unit)));
    }
    let count = if tok.num > 0 {
        u64::from(tok.num)
    } else if matches!(kw, Some(Kw::A | Kw::An)) && i >= 1 && cue_before_article(scan.kw(i - 1)) {
        1
    } else {
        return None;
    };
    // "twenty-four", "twenty four".
    let (count, head) = match scan.tok(i + 1) {
        Some(next)
            if count >= 20
                && (1..=9).contains(&next.num)
                && is_blank_or_hyphen(scan.gap_after(i)) =>
        {
            (count + u64::from(next.num), i + 1)
        }
        _ => (count, i),
    };
    let (unit, last) = unit_after(scan, head)?;
    Some(window(scan, i, last, count.checked_mul(unit)))
}

/// A digit count: "18 months", "1.5 years".
fn digits_at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let glued_before = i >= 1
        && scan.raw(i - 1).is_some_and(|t| t.is(DIGITS))
        && matches!(scan.gap_before(i), "." | ",");
    if glued_before || scan.gap_before(i).contains('$') {
        return None;
    }
    let whole = scan.word(i);
    let decimal = scan.gap_after(i) == "." && scan.tok(i + 1).is_some_and(|t| t.is(DIGITS));
    let (head, tenths) = if decimal { (i + 1, Some(scan.word(i + 1))) } else { (i, None) };
    if !decimal && scan.gap_after(i) == "," && scan.tok(i + 1).is_some_and(|t| t.is(DIGITS)) {
        return None;
    }
    let (unit, last) = unit_after(scan, head)?;
    let months = match tenths {
        None => parse(whole).and_then(|n| n.checked_mul(unit)),
        Some(frac) => {
            if frac.len() > 3 {
                return None;
            }
            let scale = 10u64.pow(u32::try_from(frac.len()).unwrap_or(3));
            let scaled = parse(whole).and_then(|w| w.checked_mul(scale)?.checked_add(parse(frac)?));
            match scaled.and_then(|s| s.checked_mul(unit)) {
                Some(total) if total % scale == 0 => Some(total / scale),
                Some(_) => return None,
                None => None,
            }
        }
    };
    Some(window(scan, i, last, months))
}

/// A count glued to its unit in one token: "18mo", "2yrs", "12months".
fn glued_at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let word = scan.word(i);
    let split = word.bytes().take_while(u8::is_ascii_digit).count();
    if split == 0 || split == word.len() || scan.gap_before(i).contains('$') {
        return None;
    }
    let rest = &word[split..];
    if !rest.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let unit = unit_months(vocab::keyword(vocab::id_of(&rest.to_ascii_lowercase())))?;
    Some(window(scan, i, i, parse(&word[..split]).and_then(|n| n.checked_mul(unit))))
}

/// The unit word after token `j`, optionally after "fiscal" or "calendar".
fn unit_after(scan: &Scan<'_>, j: usize) -> Option<(u64, usize)> {
    let mut k = j + 1;
    if !is_blank_or_hyphen(scan.gap_before(k)) {
        return None;
    }
    if matches!(scan.kw(k), Some(Kw::Fiscal | Kw::Calendar)) {
        k += 1;
        if !is_blank_or_hyphen(scan.gap_before(k)) {
            return None;
        }
    }
    Some((unit_months(scan.kw(k))?, k))
}

fn cue_before_article(kw: Option<Kw>) -> bool {
    is_relative(kw) || matches!(kw, Some(Kw::Within | Kw::In | Kw::Over | Kw::For))
}

fn parse(digits: &str) -> Option<u64> {
    if digits.len() > 18 { None } else { digits.parse().ok() }
}

fn window(scan: &Scan<'_>, first: usize, last: usize, months: Option<u64>) -> Hit {
    let span = scan.span(first, last);
    match months.and_then(|m| i64::try_from(m).ok()) {
        Some(m) => Hit::one(last + 1, ParamKind::Months, Value::Int(m), span),
        None => Hit::problem(last + 1, span, Problem::WindowTooLarge),
    }
}
