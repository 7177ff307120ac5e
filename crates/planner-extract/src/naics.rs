//! NAICS codes: six digits with a valid sector prefix, checked against the 2022 list.

use std::sync::LazyLock;

use planner_registry::{ParamKind, Value};

use crate::mention::Problem;
use crate::scan::{Hit, Scan};
use crate::token::DIGITS;
use crate::vocab::Kw;

/// The valid two-digit sector prefixes (DOMAIN.md, NAICS structure).
const SECTORS: [u8; 24] = [
    11, 21, 22, 23, 31, 32, 33, 42, 44, 45, 48, 49, 51, 52, 53, 54, 55, 56, 61, 62, 71, 72, 81, 92,
];

/// The 2022 list, the file the reference registry's `naics` kind reads.
const CSV: &str = planner_registry::reference::NAICS;

/// `(code, title)` of the 1,012 six-digit 2022 codes, sorted by code.
static CODES: LazyLock<Vec<(u32, &'static str)>> = LazyLock::new(|| {
    let mut codes: Vec<(u32, &'static str)> = CSV
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (code, title) = line.split_once(',')?;
            let title = title.trim().trim_matches('"');
            Some((code.trim().parse().ok()?, title))
        })
        .collect();
    codes.sort_unstable();
    codes
});

/// The 2022 title of a six-digit NAICS code, `None` when the code is not in the 2022 list.
pub fn naics_2022_title(code: &str) -> Option<&'static str> {
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let code: u32 = code.parse().ok()?;
    let codes = &*CODES;
    codes.binary_search_by_key(&code, |&(c, _)| c).ok().map(|n| codes[n].1)
}

/// The `n`-th six-digit 2022 code in ascending order (for test strategies).
#[cfg(any(test, feature = "proptest"))]
pub(crate) fn code_2022(n: usize) -> Option<u32> {
    CODES.get(n).map(|&(code, _)| code)
}

/// Whether a six-digit string starts with a NAICS sector.
pub fn has_naics_sector(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && SECTORS.contains(&((b[0] - b'0') * 10 + (b[1] - b'0')))
}

/// A NAICS code at token `i`: six digits, not part of a larger number or an amount of money.
pub(crate) fn at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let tok = scan.tok(i)?;
    if !tok.is(DIGITS) || in_larger_number(scan, i) {
        return None;
    }
    let digits = scan.word(i);
    let cued = i >= 1
        && (matches!(scan.kw(i - 1), Some(Kw::Naics))
            || (matches!(scan.kw(i - 1), Some(Kw::Code | Kw::Codes))
                && i >= 2
                && scan.kw(i - 2) == Some(Kw::Naics)));
    let span = scan.span(i, i);
    if digits.len() != 6 {
        return cued.then(|| {
            Hit::problem(i + 1, span, Problem::NaicsNotSixDigits { digits: digits.to_owned() })
        });
    }
    if !has_naics_sector(digits) {
        return cued.then(|| {
            Hit::problem(i + 1, span, Problem::NaicsInvalidSector { code: digits.to_owned() })
        });
    }
    if scan.gap_before(i).contains('$') || matches!(scan.kw(i + 1), Some(Kw::Dollars | Kw::Usd)) {
        return None;
    }
    let mut hit = Hit::one(i + 1, ParamKind::Naics, Value::Text(digits.to_owned()), span);
    if naics_2022_title(digits).is_none() {
        hit.diagnostics.push(crate::mention::Diagnostic {
            span,
            problem: Problem::NaicsNotIn2022 { code: digits.to_owned() },
        });
    }
    Some(hit)
}

/// Whether digit token `i` is glued to neighbouring digits by a decimal point or a thousands
/// separator (`1,541,512`, `541512.5`).
pub(crate) fn in_larger_number(scan: &Scan<'_>, i: usize) -> bool {
    let digits_len = |j: usize| scan.raw(j).filter(|t| t.is(DIGITS)).map(|t| t.len());
    let glued = |gap: &str, group: Option<usize>| match gap {
        "." => group.is_some(),
        "," => group == Some(3),
        _ => false,
    };
    let before = i >= 1 && digits_len(i - 1).is_some() && glued(scan.gap_before(i), digits_len(i));
    let after = glued(scan.gap_after(i), digits_len(i + 1));
    before || after
}

#[cfg(test)]
mod tests {
    //! The 2022 list loads whole.

    use super::*;

    #[test]
    fn list_has_every_six_digit_code() {
        assert_eq!(CODES.len(), 1012);
        assert_eq!(naics_2022_title("541512"), Some("Computer Systems Design Services"));
        assert_eq!(naics_2022_title("511210"), None);
        assert!(CODES.iter().all(|&(c, _)| has_naics_sector(&c.to_string())));
    }
}
