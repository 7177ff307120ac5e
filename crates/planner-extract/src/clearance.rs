//! Clearance levels in every written variant, with the compartment list that may follow.
//!
//! Canonical values: `confidential`, `secret`, `top_secret`, `ts_sci`. "TS/SCI", "TS//SCI",
//! "TS-SCI", "TS SCI", "Top Secret/SCI", "Top Secret w/ SCI" are `ts_sci`; "Top Secret", "TS",
//! "DOE Q", "Q clearance" are `top_secret`; "Secret", "DoD Secret", "Secret/SCI", "DOE L",
//! "L clearance" are `secret`. The phrase is read as a whole, so the "secret" of "top secret" is
//! one value, not two.

use planner_registry::{ParamKind, Value};

use crate::compartments::{self, short_gap};
use crate::scan::{Hit, Scan};
use crate::vocab::Kw;

/// Whether a clearance phrase or a compartment list may start with this keyword: [`at`] finds
/// nothing at any other token.
pub(crate) fn can_start(kw: Kw) -> bool {
    matches!(
        kw,
        // The levels of `level_at`.
        Kw::Tssci
            | Kw::Ts
            | Kw::Topsecret
            | Kw::Top
            | Kw::Secret
            | Kw::Confidential
            | Kw::Dod
            | Kw::Doe
            | Kw::Q
            | Kw::L
    ) || compartments::can_start(kw)
}

/// A clearance phrase (and its compartments), or a compartment list alone, at token `i`.
pub(crate) fn at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let Some((level, first, last)) = level_at(scan, i) else {
        return compartments::at(scan, i);
    };
    let span = scan.span(first, last);
    let mut hit = Hit::one(last + 1, ParamKind::Clearance, Value::Text(level.to_owned()), span);
    if matches!(scan.kw(hit.end), Some(Kw::Clearance | Kw::Cleared | Kw::Clearances))
        && short_gap(scan.gap_before(hit.end), "-")
    {
        hit.end += 1;
    }
    if let Some(list) = compartments::after_clearance(scan, hit.end - 1) {
        list.add_to(scan, &mut hit);
    }
    Some(hit)
}

/// The level, first token and last token of a clearance phrase starting at token `i`.
fn level_at(scan: &Scan<'_>, i: usize) -> Option<(&'static str, usize, usize)> {
    let kw = scan.kw(i)?;
    let joined = |j: usize| short_gap(scan.gap_after(j), "-_");
    match kw {
        Kw::Tssci => Some(("ts_sci", i, i)),
        Kw::Ts => Some(with_sci(scan, i, "top_secret", i)),
        Kw::Topsecret => Some(with_sci(scan, i, "top_secret", i)),
        Kw::Top if joined(i) && scan.kw(i + 1) == Some(Kw::Secret) => {
            Some(with_sci(scan, i, "top_secret", i + 1))
        }
        Kw::Secret => Some(with_sci(scan, i, "secret", i)),
        Kw::Confidential => Some(("confidential", i, i)),
        Kw::Dod if joined(i) => {
            let (level, _, last) = level_at(scan, i + 1)?;
            Some((level, i, last))
        }
        Kw::Doe if joined(i) => match scan.kw(i + 1)? {
            Kw::Q => Some(("top_secret", i, i + 1)),
            Kw::L => Some(("secret", i, i + 1)),
            _ => None,
        },
        Kw::Q | Kw::L
            if joined(i)
                && matches!(scan.kw(i + 1), Some(Kw::Clearance | Kw::Cleared | Kw::Clearances)) =>
        {
            Some((if kw == Kw::Q { "top_secret" } else { "secret" }, i, i))
        }
        _ => None,
    }
}

/// `level` at `first..=last`, promoted to `ts_sci` (from `top_secret`) when "SCI" follows:
/// "TS/SCI", "TS//SCI", "TS w/ SCI", "Top Secret SCI". "Secret/SCI" stays `secret`.
fn with_sci(
    scan: &Scan<'_>,
    first: usize,
    level: &'static str,
    last: usize,
) -> (&'static str, usize, usize) {
    let promoted = if level == "top_secret" { "ts_sci" } else { level };
    let k = last + 1;
    if short_gap(scan.gap_before(k), "/-_+") && scan.kw(k) == Some(Kw::Sci) {
        return (promoted, first, k);
    }
    if short_gap(scan.gap_before(k), "")
        && matches!(scan.kw(k), Some(Kw::W | Kw::With | Kw::Plus))
        && short_gap(scan.gap_before(k + 1), "/")
        && scan.kw(k + 1) == Some(Kw::Sci)
    {
        return (promoted, first, k + 1);
    }
    (level, first, last)
}
