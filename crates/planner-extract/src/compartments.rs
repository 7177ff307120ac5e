//! SCI compartment lists: "SI/TK/G/HCS", "with SI, TK and G compartments", "HCS-O".
//!
//! Short codes are common letters ("G") or initials ("TK"), so a list counts only after a
//! clearance phrase, next to the word "compartment(s)", or as a slash list of at least two
//! upper-case codes. The canonical value is the sorted, deduplicated set of upper-case codes.

use planner_registry::{ParamKind, Value};

use crate::extraction::{Diagnostic, Problem};
use crate::scan::{Hit, Scan};
use crate::token::{HAS_DIGIT, HAS_LOWER, Tok};
use crate::vocab::{Kw, NO_WORD};

/// The supported codes in canonical (alphabetical) order; bit `n` of a mask is `CODES[n]`.
const CODES: [&str; 5] = ["G", "HCS", "KLM", "SI", "TK"];
const G: u8 = 1;
const HCS: u8 = 2;
const KLM: u8 = 4;
const SI: u8 = 8;
const TK: u8 = 16;
/// The longest list read as one; bounds the work per token on adversarial input.
const MAX_CODES: usize = 12;

/// A parsed list: the tokens it covers, its codes and its unsupported codes.
#[derive(Debug)]
pub(crate) struct List {
    first: usize,
    last: usize,
    mask: u8,
    count: usize,
    diagnostics: Vec<Diagnostic>,
}

/// How a list may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// Context makes it a list: any case, separated by `/`, `,`, `+`, blanks or "and".
    Relaxed,
    /// No context: upper-case codes separated by `/` only.
    Slashes,
}

impl List {
    /// Appends this list's mention (if it has supported codes) and diagnostics to `hit`, and
    /// extends the hit to cover it (and a trailing "compartment(s)").
    pub(crate) fn add_to(self, scan: &Scan<'_>, hit: &mut Hit) {
        let span = scan.span(self.first, self.last);
        let mut end = self.last + 1;
        if matches!(scan.kw(end), Some(Kw::Compartment | Kw::Compartments)) {
            end += 1;
        }
        hit.end = hit.end.max(end);
        if self.mask != 0 {
            let codes = CODES
                .iter()
                .enumerate()
                .filter(|&(n, _)| self.mask & (1 << n) != 0)
                .map(|(_, code)| (*code).to_owned())
                .collect();
            hit.push(crate::extraction::Mention {
                kind: ParamKind::Compartments,
                value: Value::List(codes),
                span,
                role: None,
            });
        }
        hit.diagnostics.extend(self.diagnostics);
    }
}

/// A list after a clearance phrase ending at token `last`: "TS/SCI w/ SI/TK",
/// "TS/SCI (SI, TK, G)", "Top Secret/SCI with HCS-O", or after up to two plain words and "with":
/// "TS/SCI candidates with SI/TK".
pub(crate) fn after_clearance(scan: &Scan<'_>, last: usize) -> Option<List> {
    if let Some(list) = right_after(scan, last) {
        return Some(list);
    }
    for connector in last + 2..=last + 3 {
        let plain = (last + 1..connector).all(|j| {
            scan.tok(j).is_some_and(|t| t.id == NO_WORD && !t.is(HAS_DIGIT))
                && short_gap(scan.gap_before(j), "")
        });
        if !plain {
            return None;
        }
        if matches!(scan.kw(connector), Some(Kw::W | Kw::With))
            && short_gap(scan.gap_before(connector), "")
            && short_gap(scan.gap_after(connector), "/:(")
        {
            return list(scan, connector + 1, Style::Relaxed);
        }
    }
    None
}

fn right_after(scan: &Scan<'_>, last: usize) -> Option<List> {
    let mut k = last + 1;
    if !short_gap(scan.gap_before(k), "/,(:+-") {
        return None;
    }
    if matches!(scan.kw(k), Some(Kw::W | Kw::With | Kw::Plus | Kw::Including | Kw::Incl | Kw::And))
    {
        k += 1;
        if !short_gap(scan.gap_before(k), "/:.(") {
            return None;
        }
    }
    if matches!(scan.kw(k), Some(Kw::Compartment | Kw::Compartments)) {
        k += 1;
        if !short_gap(scan.gap_before(k), ":(") {
            return None;
        }
    }
    list(scan, k, Style::Relaxed)
}

/// Whether a list may start with this keyword: a cue word or a code of `code_at`.
pub(crate) fn can_start(kw: Kw) -> bool {
    matches!(
        kw,
        Kw::Compartment
            | Kw::Compartments
            | Kw::Compartmented
            | Kw::Si
            | Kw::Tk
            | Kw::Hcs
            | Kw::Klm
            | Kw::G
            | Kw::Gamma
            | Kw::Comint
            | Kw::Kdk
            | Kw::Klondike
            | Kw::Klamath
            | Kw::Talent
            | Kw::Rsv
            | Kw::Bur
            | Kw::Mvl
    )
}

/// A list without a clearance phrase before it, starting at token `i`.
pub(crate) fn at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let tok = scan.tok(i)?;
    let cued = matches!(tok.kw(), Some(Kw::Compartment | Kw::Compartments | Kw::Compartmented));
    let list = if cued {
        if !short_gap(scan.gap_after(i), ":(") {
            return None;
        }
        list(scan, i + 1, Style::Relaxed)
    } else {
        code_at(scan, i, Style::Relaxed)?;
        match list(scan, i, Style::Relaxed) {
            Some(l) if matches!(scan.kw(l.last + 1), Some(Kw::Compartment | Kw::Compartments)) => {
                Some(l)
            }
            _ => list(scan, i, Style::Slashes).filter(|l| l.count >= 2),
        }
    }?;
    let mut hit = Hit { end: i + 1, mentions: [None, None], diagnostics: Vec::new() };
    list.add_to(scan, &mut hit);
    Some(hit)
}

fn list(scan: &Scan<'_>, first: usize, style: Style) -> Option<List> {
    let (code, mut last) = code_at(scan, first, style)?;
    let mut out = List { first, last, mask: 0, count: 0, diagnostics: Vec::new() };
    add(scan, &mut out, code, first, last);
    while out.count < MAX_CODES {
        let k = last + 1;
        let gap = scan.gap_before(k);
        let next = match style {
            Style::Slashes => {
                (gap == "/").then(|| code_at(scan, k, style)).flatten().map(|c| (c, k))
            }
            Style::Relaxed if short_gap(gap, "/,+") => match code_at(scan, k, style) {
                Some(c) => Some((c, k)),
                None if matches!(scan.kw(k), Some(Kw::And)) && short_gap(scan.gap_after(k), "") => {
                    code_at(scan, k + 1, style).map(|c| (c, k + 1))
                }
                None => None,
            },
            Style::Relaxed => None,
        };
        let Some(((code, end), start)) = next else { break };
        add(scan, &mut out, code, start, end);
        last = end;
    }
    out.last = last;
    Some(out)
}

fn add(scan: &Scan<'_>, list: &mut List, code: Code, first: usize, last: usize) {
    list.count += 1;
    match code {
        Code::Supported(bit) => list.mask |= bit,
        Code::Unsupported(code) => list.diagnostics.push(Diagnostic {
            span: scan.span(first, last),
            problem: Problem::UnsupportedCompartment { code: code.to_owned() },
        }),
    }
}

#[derive(Debug, Clone, Copy)]
enum Code {
    Supported(u8),
    Unsupported(&'static str),
}

/// One code at token `j` with its sub-designator ("HCS-O", "SI-G", "TK-BLFH"): the code and the
/// last token it covers.
fn code_at(scan: &Scan<'_>, j: usize, style: Style) -> Option<(Code, usize)> {
    let tok = scan.tok(j)?;
    let kw = tok.kw()?;
    let short = |bit| {
        if style == Style::Slashes && !upper(tok) { None } else { Some(Code::Supported(bit)) }
    };
    let sub = |allowed: &[Kw]| {
        let k = j + 1;
        (scan.gap_before(k) == "-" && scan.kw(k).is_some_and(|s| allowed.contains(&s))).then_some(k)
    };
    let (code, last) = match kw {
        Kw::Si => match sub(&[Kw::G, Kw::Eu, Kw::Nk]) {
            Some(k) if scan.kw(k) == Some(Kw::G) => (short(G)?, k),
            Some(k) => (short(SI)?, k),
            None => (short(SI)?, j),
        },
        Kw::Tk => (short(TK)?, sub(&[Kw::Blfh, Kw::Idit, Kw::Kand]).unwrap_or(j)),
        Kw::Hcs => (short(HCS)?, sub(&[Kw::O, Kw::P, Kw::X]).unwrap_or(j)),
        Kw::Klm => (short(KLM)?, sub(&[Kw::R]).unwrap_or(j)),
        Kw::G => (short(G)?, j),
        Kw::Gamma => (Code::Supported(G), j),
        Kw::Comint => (Code::Supported(SI), j),
        Kw::Kdk | Kw::Klondike => (Code::Supported(TK), j),
        Kw::Klamath => (Code::Supported(KLM), j),
        Kw::Talent if scan.kw(j + 1) == Some(Kw::Keyhole) && short_gap(scan.gap_after(j), "-") => {
            (Code::Supported(TK), j + 1)
        }
        Kw::Rsv if style == Style::Relaxed || upper(tok) => (Code::Unsupported("RSV"), j),
        Kw::Bur if style == Style::Relaxed || upper(tok) => (Code::Unsupported("BUR"), j),
        Kw::Mvl if style == Style::Relaxed || upper(tok) => (Code::Unsupported("MVL"), j),
        _ => return None,
    };
    Some((code, last))
}

fn upper(tok: &Tok) -> bool {
    !tok.is(HAS_LOWER)
}

/// A gap of at most four bytes made of blanks and the given punctuation, not empty unless it
/// touches punctuation.
pub(crate) fn short_gap(gap: &str, punctuation: &str) -> bool {
    gap.len() <= 4
        && !gap.is_empty()
        && gap.chars().all(|c| c.is_whitespace() || punctuation.contains(c))
}
