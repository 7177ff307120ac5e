//! SAM Unique Entity IDs, per the GSA rules quoted in DOMAIN.md.
//!
//! A UEI is 12 characters from `A-H J-N P-Z 0-9` (no `I`, no `O`), not starting with `0`, with no
//! run of nine digits; it is not case sensitive. Ordinary words can pass those rules
//! (`DEPARTMENTAL`), so a candidate must also hold a digit, or be written in capitals right after a
//! cue word ("UEI", "vendor", "incumbent"...). Letters must be all upper-case or all lower-case.

use planner_registry::{ParamKind, Value};

use crate::scan::{Hit, Scan};
use crate::token::{HAS_DIGIT, HAS_LOWER, HAS_UPPER};
use crate::vocab::Kw;

/// Claims every UEI.
pub(crate) fn claim(scan: &mut Scan<'_>, hits: &mut Vec<Hit>) {
    for i in 0..scan.len() {
        let Some(tok) = scan.tok(i) else { continue };
        if tok.len() != 12 || (tok.is(HAS_UPPER) && tok.is(HAS_LOWER)) {
            continue;
        }
        let word = scan.word(i);
        // A piece of a hyphenated identifier ("...-8d7e-541512abcdef-01") is not a UEI.
        let hyphenated = (i > 0 && scan.gap_before(i) == "-") || scan.gap_after(i) == "-";
        if hyphenated || !is_uei(word) {
            continue;
        }
        let cued = cue_near(scan, i);
        let accepted = if tok.is(HAS_DIGIT) {
            cued != Cue::Against
        } else {
            cued == Cue::For && !tok.is(HAS_LOWER)
        };
        if accepted {
            let span = scan.span(i, i);
            hits.push(Hit::one(
                i + 1,
                ParamKind::Uei,
                Value::Text(word.to_ascii_uppercase()),
                span,
            ));
            scan.claim(i, i + 1);
        }
    }
}

/// Whether `word` passes the SAM format rules (case-insensitive).
pub fn is_uei(word: &str) -> bool {
    let bytes = word.as_bytes();
    if bytes.len() != 12 || bytes[0] == b'0' {
        return false;
    }
    let mut run = 0;
    for &b in bytes {
        let c = b.to_ascii_uppercase();
        if c.is_ascii_digit() {
            run += 1;
            if run >= 9 {
                return false;
            }
        } else if c.is_ascii_uppercase() && c != b'I' && c != b'O' {
            run = 0;
        } else {
            return false;
        }
    }
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    For,
    Against,
    None,
}

/// A UEI cue among the three words before the candidate or the word after it; a contract-number
/// cue right before it speaks against.
fn cue_near(scan: &Scan<'_>, i: usize) -> Cue {
    let is_for = |kw| {
        matches!(
            kw,
            Some(
                Kw::Uei
                    | Kw::Ueis
                    | Kw::Vendor
                    | Kw::Entity
                    | Kw::Contractor
                    | Kw::Company
                    | Kw::Incumbent
                    | Kw::Recipient
                    | Kw::Awardee
                    | Kw::Sam
                    | Kw::Firm
                    | Kw::Prime
                    | Kw::Sub
                    | Kw::Subcontractor
                    | Kw::Partner
            )
        )
    };
    let raw_kw = |j: usize| scan.raw(j).and_then(|t| t.kw());
    if (1..=3).any(|d| i >= d && is_for(raw_kw(i - d))) || is_for(raw_kw(i + 1)) {
        return Cue::For;
    }
    let against = i >= 1
        && matches!(
            raw_kw(i - 1),
            Some(
                Kw::Piid
                    | Kw::Contract
                    | Kw::Award
                    | Kw::Order
                    | Kw::Solicitation
                    | Kw::Idv
                    | Kw::Gwac
                    | Kw::Bpa
            )
        );
    if against { Cue::Against } else { Cue::None }
}
