//! Proptest strategies: questions planted with known params, shared with other crates' tests.
//!
//! A [`Fragment`] is a piece of text that names one param (two for a clearance with
//! compartments) in one of many phrasings, with the canonical values and their byte ranges.
//! [`planted_question`] joins fragments of different kinds with neutral filler words, so the
//! expected extraction of the whole question is known exactly.

use std::ops::Range;

use planner_registry::{ParamKind, Value};
use proptest::prelude::*;
use proptest::sample::select;

use crate::extraction::{Mention, Span};
use crate::naics;

/// Text naming one or two params, with the expected values and byte ranges inside `text`.
#[derive(Debug, Clone)]
pub struct Fragment {
    /// The fragment text.
    pub text: String,
    /// `(kind, canonical value, range in text)`.
    pub expected: Vec<(ParamKind, Value, Range<usize>)>,
}

impl Fragment {
    fn one(before: &str, surface: &str, after: &str, kind: ParamKind, value: Value) -> Fragment {
        let start = before.len();
        Fragment {
            text: format!("{before}{surface}{after}"),
            expected: vec![(kind, value, start..start + surface.len())],
        }
    }

    /// The kind this fragment is about (its first param).
    pub fn kind(&self) -> Option<ParamKind> {
        self.expected.first().map(|e| e.0)
    }
}

/// A question and the exact mentions [`crate::extract`] must return for it, in order.
#[derive(Debug, Clone)]
pub struct Planted {
    /// The question.
    pub text: String,
    /// The expected mentions, in order of position.
    pub expected: Vec<Mention>,
}

/// Words that never form part of a param, whatever their neighbours.
pub const FILLER: &[&str] = &[
    "show",
    "me",
    "who",
    "are",
    "incumbents",
    "please",
    "how",
    "many",
    "bench",
    "candidates",
    "hold",
    "awards",
    "spend",
    "obligations",
    "which",
    "vendors",
    "won",
    "work",
    "at",
    "on",
    "to",
    "is",
    "what",
    "recompetes",
    "list",
    "team",
    "with",
    "and",
    "our",
    "people",
    "expiring",
    "Who",
    "How",
    "What",
    "market",
    "share",
    "ceiling",
    "value",
    "largest",
    "first",
    "then",
];

/// One to four filler words.
pub fn filler() -> impl Strategy<Value = String> {
    prop::collection::vec(select(FILLER), 1..=4).prop_map(|words| words.join(" "))
}

/// Agency names and aliases with their canonical names.
pub fn agency() -> impl Strategy<Value = Fragment> {
    let spellings: &[(&str, &str)] = &[
        ("Department of the Army", "Department of the Army"),
        ("Army", "Department of the Army"),
        ("U.S. Army", "Department of the Army"),
        ("Dept. of the Navy", "Department of the Navy"),
        ("Navy", "Department of the Navy"),
        ("Air Force", "Department of the Air Force"),
        ("USAF", "Department of the Air Force"),
        ("Marine Corps", "U.S. Marine Corps"),
        ("DoD", "Department of Defense"),
        ("Department of Defense", "Department of Defense"),
        ("DHS", "Department of Homeland Security"),
        ("Department of Veterans Affairs", "Department of Veterans Affairs"),
        ("Veterans Affairs", "Department of Veterans Affairs"),
        ("Health and Human Services", "Department of Health and Human Services"),
        ("Health & Human Services", "Department of Health and Human Services"),
        ("HHS", "Department of Health and Human Services"),
        ("NASA", "National Aeronautics and Space Administration"),
        ("GSA", "General Services Administration"),
        ("DOJ", "Department of Justice"),
        ("Treasury", "Department of the Treasury"),
        ("DISA", "Defense Information Systems Agency"),
        ("DLA", "Defense Logistics Agency"),
        ("USCIS", "U.S. Citizenship and Immigration Services"),
        ("CBP", "U.S. Customs and Border Protection"),
        ("FBI", "Federal Bureau of Investigation"),
        ("Army Corps of Engineers", "Corps of Engineers - Civil Works"),
        ("Secret Service", "U.S. Secret Service"),
    ];
    let fixed_case: &[(&str, &str)] = &[
        ("VA", "Department of Veterans Affairs"),
        ("DOE", "Department of Energy"),
        ("State", "Department of State"),
        ("State Department", "Department of State"),
    ];
    let any_case = (select(spellings), 0..3usize).prop_map(|((s, c), n)| {
        let surface = match n {
            0 => s.to_owned(),
            1 => s.to_ascii_lowercase(),
            _ => s.to_ascii_uppercase(),
        };
        (surface, c)
    });
    let fixed = select(fixed_case).prop_map(|(s, c)| (s.to_owned(), c));
    let wrap = select(&[("", ""), ("", "'s"), ("'", "'"), ("\"", "\""), ("the ", "'s")][..]);
    (prop_oneof![3 => any_case, 1 => fixed], wrap).prop_map(|((surface, canonical), (b, a))| {
        Fragment::one(b, &surface, a, ParamKind::Agency, Value::Text(canonical.to_owned()))
    })
}

/// A NAICS code, from the 2022 list or an older vintage, in several phrasings.
pub fn naics() -> impl Strategy<Value = Fragment> {
    let listed = (0usize..1012).prop_map(|n| naics::code_2022(n).unwrap_or(541_512).to_string());
    let older = (select(&[11u32, 23, 33, 42, 51, 54, 56, 92][..]), 0u32..10_000)
        .prop_map(|(sector, rest)| format!("{sector}{rest:04}"));
    let code = prop_oneof![3 => listed, 1 => older];
    let before = select(&["NAICS ", "naics code ", "under ", "", "NAICS: ", "in NAICS "][..]);
    (code, before).prop_map(|(code, before)| {
        Fragment::one(before, &code, "", ParamKind::Naics, Value::Text(code.clone()))
    })
}

/// A hyphenated UUID in lower, upper or mixed case.
pub fn uuid() -> impl Strategy<Value = Fragment> {
    (any::<[u8; 16]>(), 0..3usize).prop_map(|(bytes, case)| {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let canonical = format!(
            "{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        );
        let surface = match case {
            0 => canonical.clone(),
            1 => canonical.to_ascii_uppercase(),
            _ => canonical
                .char_indices()
                .map(|(n, c)| if n % 2 == 0 { c.to_ascii_uppercase() } else { c })
                .collect(),
        };
        let before = if case == 2 { "requirement " } else { "" };
        Fragment::one(before, &surface, "", ParamKind::Uuid, Value::Text(canonical))
    })
}

/// A clearance level in one of its written variants.
pub fn clearance() -> impl Strategy<Value = Fragment> {
    let variants: &[(&str, &str)] = &[
        ("TS/SCI", "ts_sci"),
        ("TS//SCI", "ts_sci"),
        ("TS-SCI", "ts_sci"),
        ("TS SCI", "ts_sci"),
        ("TS / SCI", "ts_sci"),
        ("ts/sci", "ts_sci"),
        ("Top Secret/SCI", "ts_sci"),
        ("Top Secret SCI", "ts_sci"),
        ("Top Secret w/ SCI", "ts_sci"),
        ("TS w/ SCI", "ts_sci"),
        ("Top Secret", "top_secret"),
        ("top-secret", "top_secret"),
        ("TS", "top_secret"),
        ("Secret", "secret"),
        ("secret", "secret"),
        ("Confidential", "confidential"),
        ("DOE Q", "top_secret"),
        ("DoD Secret", "secret"),
    ];
    (select(variants), select(&["", "interim ", "active "][..])).prop_map(|((s, c), before)| {
        Fragment::one(before, s, " clearance", ParamKind::Clearance, Value::Text(c.to_owned()))
    })
}

/// A TS/SCI clearance followed by a compartment list.
pub fn clearance_with_compartments() -> impl Strategy<Value = Fragment> {
    let codes: &[(&str, &str)] = &[
        ("SI", "SI"),
        ("TK", "TK"),
        ("G", "G"),
        ("HCS", "HCS"),
        ("KLM", "KLM"),
        ("HCS-O", "HCS"),
        ("HCS-P", "HCS"),
        ("GAMMA", "G"),
        ("COMINT", "SI"),
        ("TK-BLFH", "TK"),
    ];
    let level = select(&["TS/SCI", "TS//SCI", "Top Secret/SCI", "TS-SCI"][..]);
    let joiner = select(&[" w/ ", " with ", " ", " ("][..]);
    let list = prop::collection::vec((select(codes), any::<bool>()), 1..=4);
    let sep = select(&["/", ", ", " "][..]);
    (level, joiner, list, sep).prop_map(|(level, joiner, list, sep)| {
        let mut text = format!("{level}{joiner}");
        let start = text.len();
        let mut set: Vec<String> = Vec::new();
        for (n, ((surface, code), lower)) in list.iter().enumerate() {
            if n > 0 {
                text.push_str(sep);
            }
            text.push_str(&if *lower {
                surface.to_ascii_lowercase()
            } else {
                (*surface).to_owned()
            });
            set.push((*code).to_owned());
        }
        let end = text.len();
        if joiner == " (" {
            text.push(')');
        }
        set.sort();
        set.dedup();
        Fragment {
            text,
            expected: vec![
                (ParamKind::Clearance, Value::Text("ts_sci".to_owned()), 0..level.len()),
                (ParamKind::Compartments, Value::List(set), start..end),
            ],
        }
    })
}

/// Letters and digits a UEI may use.
const UEI_CHARS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";

/// A SAM-valid UEI with at least one digit, bare or after a cue, in upper or lower case; or a
/// UEI of letters only, in capitals after the cue "UEI".
pub fn uei() -> impl Strategy<Value = Fragment> {
    let body = prop::collection::vec(select(UEI_CHARS), 12)
        .prop_map(|chars| String::from_utf8(chars).unwrap_or_default())
        .prop_filter("SAM rules", |u| crate::uei::is_uei(u));
    let with_digit = (body.clone(), 1usize..12, 0u8..10).prop_map(|(u, at, d)| {
        let mut bytes = u.into_bytes();
        bytes[at] = b'0' + d;
        String::from_utf8(bytes).unwrap_or_default()
    });
    let with_digit = with_digit.prop_filter("SAM rules", |u| crate::uei::is_uei(u));
    let digits = (
        with_digit,
        select(&["UEI ", "vendor ", "", "uei: ", "incumbent "][..]),
        any::<bool>(),
        select(&["", "'s"][..]),
    )
        .prop_map(|(u, before, lower, after)| {
            let surface = if lower { u.to_ascii_lowercase() } else { u.clone() };
            Fragment::one(before, &surface, after, ParamKind::Uei, Value::Text(u))
        });
    let letters = body
        .prop_map(|u| u.chars().map(|c| if c.is_ascii_digit() { 'K' } else { c }).collect())
        .prop_filter("SAM rules", |u: &String| crate::uei::is_uei(u))
        .prop_map(|u: String| {
            Fragment::one("UEI ", &u, "", ParamKind::Uei, Value::Text(u.clone()))
        });
    prop_oneof![3 => digits, 1 => letters]
}

/// A month window in digits or words, months, quarters or years.
pub fn months() -> impl Strategy<Value = Fragment> {
    const WORDS: &[&str] = crate::declared::NUMBER_WORDS.split_at(20).0;
    let number = (1u32..=60, 0..3usize).prop_map(|(n, style)| {
        let spelled = match (style, n) {
            (1, 1..=19) => WORDS[n as usize].to_owned(),
            (2, 21..=29) => format!("twenty-{}", WORDS[(n - 20) as usize]),
            (1, 20) => "twenty".to_owned(),
            _ => n.to_string(),
        };
        (n, spelled)
    });
    let units: &[(&str, u32)] = &[
        (" months", 1),
        (" month", 1),
        ("-month", 1),
        (" mos", 1),
        (" years", 12),
        (" yrs", 12),
        (" quarters", 3),
    ];
    let counted = (number, select(units), select(&["", "last ", "next ", "past ", "within "][..]))
        .prop_map(|((n, spelled), (unit, per), before)| {
            let surface = format!("{spelled}{unit}");
            Fragment::one(before, &surface, "", ParamKind::Months, Value::Int(i64::from(n * per)))
        });
    let relative: &[(&str, i64)] = &[
        ("last year", 12),
        ("past year", 12),
        ("next quarter", 3),
        ("last fiscal year", 12),
        ("Past Year", 12),
    ];
    let relative = (select(relative), select(&["", "over the ", "in the "][..])).prop_map(
        |((s, v), before)| Fragment::one(before, s, "", ParamKind::Months, Value::Int(v)),
    );
    prop_oneof![3 => counted, 1 => relative]
}

/// A fragment of any kind.
pub fn fragment() -> impl Strategy<Value = Fragment> {
    prop_oneof![
        agency(),
        naics(),
        uuid(),
        clearance(),
        clearance_with_compartments(),
        uei(),
        months(),
    ]
}

/// Fragments joined by filler words, keeping only the first fragment of each kind (a clearance
/// with compartments counts as a clearance).
pub fn planted_question() -> impl Strategy<Value = Planted> {
    (prop::collection::vec((fragment(), filler()), 1..=5), filler(), select(&["", "?", "."][..]))
        .prop_map(|(parts, lead, end)| {
            let mut seen = Vec::new();
            let parts: Vec<(Fragment, String)> = parts
                .into_iter()
                .filter(|(f, _)| match f.kind() {
                    Some(kind) if !seen.contains(&kind) => {
                        seen.push(kind);
                        true
                    }
                    _ => false,
                })
                .collect();
            join(&lead, parts, end)
        })
}

/// Two fragments of the same kind (drawn from `first` and `second`, two copies of one strategy)
/// with different values, joined by filler.
pub fn two_values(
    first: impl Strategy<Value = Fragment>,
    second: impl Strategy<Value = Fragment>,
) -> impl Strategy<Value = (Planted, ParamKind)> {
    (first, filler(), second, filler())
        .prop_filter("different values", |(a, _, b, _)| {
            a.expected.last().map(|e| &e.1) != b.expected.last().map(|e| &e.1)
        })
        .prop_map(|(a, gap, b, lead)| {
            let kind = a.expected.last().map_or(ParamKind::Agency, |e| e.0);
            (join(&lead, vec![(a, gap), (b, String::new())], ""), kind)
        })
}

fn join(lead: &str, parts: Vec<(Fragment, String)>, end: &str) -> Planted {
    let mut text = lead.to_owned();
    let mut expected = Vec::new();
    for (fragment, after) in parts {
        text.push(' ');
        let offset = text.len();
        text.push_str(&fragment.text);
        for (kind, value, range) in fragment.expected {
            let span = Span { start: offset + range.start, end: offset + range.end };
            expected.push(Mention { kind, value, span, role: None });
        }
        if !after.is_empty() {
            text.push(' ');
            text.push_str(&after);
        }
    }
    text.push_str(end);
    Planted { text, expected }
}

/// Words of random letters in random case, never a param.
pub fn random_words() -> impl Strategy<Value = String> {
    let word = ("[a-zA-Z]{1,15}", 0..3usize).prop_map(|(w, case)| match case {
        0 => w.to_ascii_lowercase(),
        1 => w.to_ascii_uppercase(),
        _ => w,
    });
    prop::collection::vec(word, 0..40).prop_map(|words| words.join(" "))
}

/// Text mixing extractor keywords, digits, punctuation and arbitrary characters: a stress input.
pub fn keyword_soup() -> impl Strategy<Value = String> {
    let pieces: &[&str] = &[
        "TS",
        "/",
        "//",
        "SCI",
        "w/",
        "SI",
        "TK",
        "-",
        "G",
        "HCS",
        "O",
        "KLM",
        "Top",
        "Secret",
        "secret",
        "541512",
        "511210",
        "months",
        "month",
        "last",
        "year",
        "a",
        "next",
        "quarter",
        "1",
        ".",
        "5",
        ",",
        "$",
        "Army",
        "'s",
        "DoD",
        "DOE",
        "Q",
        "L",
        "State",
        "of",
        "the",
        "Department",
        "U.S.",
        "&",
        "compartments",
        "and",
        "UEI",
        "J7M9KLPQ2R45",
        "twenty",
        "four",
        "3f2a9c1d",
        "4e5b",
        "ABCD",
        "0123456789ab",
        "\"",
        "'",
        "é",
        "日本",
        "\u{a0}",
        "\n",
        "NAICS",
        "with",
        "vendor",
        "eighteen",
        "99999999999999999999",
        "secret service",
        "Veterans",
        "Affairs",
        "\u{202e}",
        "ǅ",
        "𝟙",
    ];
    prop::collection::vec((select(pieces), select(&["", " ", "  ", "-", "/"][..])), 0..200)
        .prop_map(|parts| parts.into_iter().flat_map(|(a, b)| [a, b]).collect())
}
