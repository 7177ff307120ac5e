//! Agency names: a word trie over the dictionary, longest match wins.

use std::sync::LazyLock;

use planner_registry::{ParamKind, Value};

use crate::agencies::{AGENCIES, split_words};
use crate::pack::FastMap;
use crate::scan::{Hit, Scan, is_phrase_gap};
use crate::token::{FIRST_UPPER, HAS_LOWER, HAS_UPPER, Tok};
use crate::vocab::{self, Kw, NO_WORD};

/// The canonical names of the agency dictionary, in its fixed order.
pub fn agency_names() -> impl Iterator<Item = &'static str> {
    AGENCIES.iter().map(|&(name, _)| name)
}

/// The canonical name an agency alias stands for, matched the way [`crate::extract`] matches a
/// quoted name (any case, any punctuation between words).
pub fn canonical_agency(name: &str) -> Option<&'static str> {
    let quoted = format!("\"{name}\"");
    let scan = Scan::new(&quoted);
    let hit = at(&scan, 0)?;
    if hit.end != scan.len() {
        return None;
    }
    hit.mentions[0].as_ref().and_then(|m| match &m.value {
        Value::Text(text) => agency_names().find(|n| n == text),
        _ => None,
    })
}

/// How strictly a one-word alias checks case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Any,
    Upper,
    Acronym,
    Capitalised,
}

#[derive(Debug, Default)]
struct Trie {
    /// Per node: the agency index and case rule of the alias ending there.
    terminal: Vec<Option<(u16, Case)>>,
    /// `(node << 16 | word id)` to child node.
    edges: FastMap<u64, u32>,
    /// Per word id: whether some alias starts with that word.
    starts: Vec<bool>,
}

static TRIE: LazyLock<Trie> = LazyLock::new(build);

fn build() -> Trie {
    let mut trie = Trie { terminal: vec![None], edges: FastMap::default(), starts: Vec::new() };
    for (index, (name, aliases)) in AGENCIES.iter().enumerate() {
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        let mut spellings = vec![(split_words(name), Case::Any)];
        for alias in aliases {
            let case = match alias.as_bytes().first() {
                Some(b'=') => Case::Upper,
                Some(b'^') => Case::Acronym,
                Some(b'~') => Case::Capitalised,
                _ => Case::Any,
            };
            spellings.push((split_words(alias.trim_start_matches(['=', '^', '~'])), case));
        }
        for (words, case) in spellings {
            for variant in variants(&words, case) {
                insert(&mut trie, &variant, index, case);
            }
        }
    }
    trie
}

/// The "dept", optional "the" and "U.S." variants of one alias.
fn variants(words: &[String], case: Case) -> Vec<Vec<String>> {
    let mut out = vec![words.to_vec()];
    if words.len() >= 2 && words[0] == "department" && words[1] == "of" {
        let rest = &words[2..];
        let without_the = if rest.first().is_some_and(|w| w == "the") { &rest[1..] } else { rest };
        let mut bases = Vec::new();
        for head in ["department", "dept"] {
            bases.push([&[head.to_owned(), "of".to_owned()][..], without_the].concat());
            bases.push(
                [&[head.to_owned(), "of".to_owned(), "the".to_owned()][..], without_the].concat(),
            );
        }
        out = bases;
    }
    if case == Case::Any {
        let mut prefixed = Vec::new();
        for base in &out {
            for prefix in [&["us"][..], &["u", "s"], &["united", "states"]] {
                let mut words: Vec<String> = prefix.iter().map(|&w| w.to_owned()).collect();
                words.extend(base.iter().cloned());
                prefixed.push(words);
            }
        }
        out.extend(prefixed);
    }
    out
}

fn insert(trie: &mut Trie, words: &[String], index: u16, case: Case) {
    let mut node = 0u32;
    for word in words {
        let id = vocab::id_of(word);
        if id == NO_WORD {
            return;
        }
        if node == 0 {
            let at = usize::from(id);
            if trie.starts.len() <= at {
                trie.starts.resize(at + 1, false);
            }
            trie.starts[at] = true;
        }
        let key = (u64::from(node) << 16) | u64::from(id);
        node = match trie.edges.get(&key) {
            Some(&child) => child,
            None => {
                let child = u32::try_from(trie.terminal.len()).unwrap_or(u32::MAX);
                trie.terminal.push(None);
                trie.edges.insert(key, child);
                child
            }
        };
    }
    let slot = &mut trie.terminal[node as usize];
    if slot.is_none() {
        *slot = Some((index, case));
    }
}

/// Whether some alias starts with this token's word.
pub(crate) fn can_start(tok: &Tok) -> bool {
    TRIE.starts.get(usize::from(tok.id)).copied().unwrap_or(false)
}

/// The longest agency alias starting at token `i`.
pub(crate) fn at(scan: &Scan<'_>, i: usize) -> Option<Hit> {
    let trie = &*TRIE;
    let first = scan.tok(i)?;
    if !trie.starts.get(usize::from(first.id)).copied().unwrap_or(false) {
        return None;
    }
    let mut node = 0u32;
    let mut best: Option<(usize, u16)> = None;
    let mut j = i;
    while let Some(tok) = scan.tok(j) {
        if j > i && !is_phrase_gap(scan.gap_before(j)) {
            break;
        }
        let key = (u64::from(node) << 16) | u64::from(tok.id);
        let Some(&child) = trie.edges.get(&key) else { break };
        node = child;
        if let Some((index, case)) = trie.terminal[node as usize]
            && case_fits(scan, i, j, case)
        {
            best = Some((j, index));
        }
        j += 1;
    }
    let (last, index) = best?;
    // A contraction is a word, not an acronym: "DON'T" is not the Department of the Navy.
    if matches!(scan.gap_after(last), "'" | "’")
        && scan.raw(last + 1).is_some_and(|_| !scan.word(last + 1).eq_ignore_ascii_case("s"))
    {
        return None;
    }
    let name = AGENCIES.get(usize::from(index))?.0;
    Some(Hit::one(last + 1, ParamKind::Agency, Value::Text(name.to_owned()), scan.span(i, last)))
}

fn case_fits(scan: &Scan<'_>, i: usize, last: usize, case: Case) -> bool {
    if case == Case::Any || quoted(scan, i, last) {
        return true;
    }
    let Some(tok) = scan.tok(i) else { return false };
    match case {
        Case::Any => true,
        Case::Upper => is_upper(tok),
        Case::Acronym => {
            let word = scan.word(i).as_bytes();
            tok.is(FIRST_UPPER) && word.last().is_some_and(u8::is_ascii_uppercase)
        }
        Case::Capitalised => {
            let before = scan.text()[..tok.start].trim_end();
            let sentence_start = before.is_empty() || before.ends_with(['.', '?', '!', ':', ';']);
            let stop = matches!(
                scan.kw(last + 1),
                Some(Kw::Of | Kw::Local | Kw::Level | Kw::Government | Kw::Governments | Kw::Wide)
            ) || (matches!(scan.kw(last + 1), Some(Kw::And | Kw::Or))
                && scan.kw(last + 2) == Some(Kw::Local));
            tok.is(FIRST_UPPER) && !sentence_start && !stop
        }
    }
}

fn is_upper(tok: &Tok) -> bool {
    tok.is(HAS_UPPER) && !tok.is(HAS_LOWER)
}

/// Whether tokens `i..=last` are exactly enclosed in a pair of quotes.
fn quoted(scan: &Scan<'_>, i: usize, last: usize) -> bool {
    let (Some(first), Some(end)) = (scan.raw(i), scan.raw(last)) else { return false };
    let before = scan.text()[..first.start].chars().next_back();
    let after = scan.text()[end.end..].chars().next();
    matches!(
        (before, after),
        (Some('"'), Some('"'))
            | (Some('\''), Some('\''))
            | (Some('“'), Some('”'))
            | (Some('‘'), Some('’'))
            | (Some('«'), Some('»'))
    )
}

#[cfg(test)]
mod tests {
    //! Dictionary lookups through `canonical_agency`.

    use super::*;

    #[test]
    fn aliases_resolve_to_canonical_names() {
        let cases = [
            ("Army", "Department of the Army"),
            ("department of veterans affairs", "Department of Veterans Affairs"),
            ("Dept. of the Navy", "Department of the Navy"),
            ("U.S. Army", "Department of the Army"),
            ("Health & Human Services", "Department of Health and Human Services"),
            ("state", "Department of State"),
            ("DHS", "Department of Homeland Security"),
        ];
        for (alias, name) in cases {
            assert_eq!(canonical_agency(alias), Some(name), "{alias}");
        }
        assert_eq!(canonical_agency("Department of Nothing"), None);
        assert_eq!(canonical_agency("DON'T"), None);
    }

    #[test]
    fn every_canonical_name_resolves_to_itself() {
        for name in agency_names() {
            assert_eq!(canonical_agency(name), Some(name));
        }
    }
}
