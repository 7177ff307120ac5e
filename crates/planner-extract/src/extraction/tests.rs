//! Tests of the entry point: examples, laws and the question corpus snapshot.

use std::fmt::Write as _;

use planner_registry::{ParamKind, Value};
use proptest::prelude::*;

use super::*;
use crate::arbitrary;

/// Renders an extraction as one line per param, ambiguity and diagnostic.
fn render(question: &str, found: &Extraction) -> String {
    let mut out = String::new();
    for m in &found.params {
        let _ = writeln!(out, "  {} = {} ({:?})", m.kind, m.value, m.span.text(question));
    }
    for kind in &found.ambiguous {
        let _ = writeln!(out, "  ambiguous: {kind}");
    }
    for d in &found.diagnostics {
        let _ = writeln!(out, "  diagnostic {:?}: {}", d.span.text(question), d.problem);
    }
    out
}

/// Extracts `question` and compares the rendering with `expected` (one `kind = value ("span")`
/// line per param, as [`render`] writes them).
#[track_caller]
fn check(question: &str, expected: &str) {
    let found = extract(question);
    let actual = render(question, &found);
    let expected: String = expected.lines().map(|l| format!("  {}\n", l.trim())).collect();
    assert_eq!(actual, expected, "question: {question}");
    assert_laws(question, &found);
}

/// Laws every extraction obeys whatever the input.
#[track_caller]
fn assert_laws(question: &str, found: &Extraction) {
    let mut last_end = 0;
    for m in &found.params {
        let Span { start, end } = m.span;
        assert!(start < end && end <= question.len(), "span {start}..{end} out of bounds");
        assert!(question.is_char_boundary(start) && question.is_char_boundary(end));
        assert!(start >= last_end, "overlapping spans at {start}");
        last_end = end;
        assert_canonical(m.kind, &m.value);
    }
    for d in &found.diagnostics {
        assert!(question.is_char_boundary(d.span.start) && question.is_char_boundary(d.span.end));
    }
    let available = found.available();
    for kind in ParamKind::BUILTIN {
        let mut values: Vec<&Value> = found.mentions(kind).map(|m| &m.value).collect();
        values.dedup();
        values.sort();
        values.dedup();
        assert_eq!(found.is_ambiguous(kind), values.len() > 1, "{kind}");
        assert_eq!(available.get(&kind), if values.len() == 1 { Some(values[0]) } else { None });
        assert_eq!(found.value(kind), available.get(&kind));
    }
}

fn assert_canonical(kind: ParamKind, value: &Value) {
    let ok = match (kind, value) {
        (ParamKind::Agency, Value::Text(name)) => agency_names().any(|n| n == name),
        (ParamKind::Naics, Value::Text(code)) => {
            code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()) && has_naics_sector(code)
        }
        (ParamKind::Uuid, Value::Text(id)) => {
            id.len() == 36
                && id.bytes().all(|b| b == b'-' || b.is_ascii_digit() || b.is_ascii_lowercase())
        }
        (ParamKind::Clearance, Value::Text(level)) => {
            ["confidential", "secret", "top_secret", "ts_sci"].contains(&level.as_str())
        }
        (ParamKind::Compartments, Value::List(codes)) => {
            !codes.is_empty()
                && codes.windows(2).all(|w| w[0] < w[1])
                && codes.iter().all(|c| ["G", "HCS", "KLM", "SI", "TK"].contains(&c.as_str()))
        }
        (ParamKind::Uei, Value::Text(uei)) => {
            is_uei(uei) && !uei.bytes().any(|b| b.is_ascii_lowercase())
        }
        (ParamKind::Months, Value::Int(n)) => *n >= 0,
        _ => false,
    };
    assert!(ok, "{kind} = {value:?} is not canonical");
}

use crate::{agency_names, has_naics_sector, is_uei};

#[test]
fn agencies_in_the_ways_people_write_them() {
    check("For the Army's recompete", "agency = Department of the Army (\"Army\")");
    check(
        "awards at the dept. of the navy",
        "agency = Department of the Navy (\"dept. of the navy\")",
    );
    check(
        "Department of Veterans Affairs spend",
        "agency = Department of Veterans Affairs (\"Department of Veterans Affairs\")",
    );
    check("what did the U.S. Army buy", "agency = Department of the Army (\"U.S. Army\")");
    check(
        "For the 'Department of the Army' recompete",
        "agency = Department of the Army (\"Department of the Army\")",
    );
    check("quoted \"dhs\" only", "agency = Department of Homeland Security (\"dhs\")");
    check(
        "Health & Human Services",
        "agency = Department of Health and Human Services (\"Health & Human Services\")",
    );
    check(
        "work at State last year",
        "agency = Department of State (\"State\")\nmonths = 12 (\"last year\")",
    );
    check("State the top vendors", "");
    check("state and local awards at VA", "agency = Department of Veterans Affairs (\"VA\")");
    check("the va is not VA-shaped", "agency = Department of Veterans Affairs (\"VA\")");
    check("John Doe at DOE", "agency = Department of Energy (\"DOE\")");
    check(
        "Army Corps of Engineers",
        "agency = Corps of Engineers - Civil Works (\"Army Corps of Engineers\")",
    );
    check("U.S. Secret Service work", "agency = U.S. Secret Service (\"U.S. Secret Service\")");
}

#[test]
fn naics_codes_and_numbers_that_are_not() {
    check("NAICS 541512 awards", "naics = 541512 (\"541512\")");
    check(
        "under 541330 and naics code 541330",
        "naics = 541330 (\"541330\")\nnaics = 541330 (\"541330\")",
    );
    check("worth $450000 or 1,541,512 or 541512.5", "");
    check(
        "codes 541512,541511",
        "naics = 541512 (\"541512\")\nnaics = 541511 (\"541511\")\nambiguous: naics",
    );
    check(
        "NAICS 511210 before 2022",
        "naics = 511210 (\"511210\")\ndiagnostic \"511210\": NAICS code 511210 is not in the 2022 list; kept as written",
    );
    check("NAICS 54151 typo", "diagnostic \"54151\": NAICS codes have six digits, found 54151");
    check("NAICS 991234", "diagnostic \"991234\": 991234 does not start with a NAICS sector");
    check("order 100000 units", "");
}

#[test]
fn uuids_claim_their_digits() {
    check(
        "requirement 3F2A9C1D-4E5B-4A6C-8D7E-541512ABCDEF now",
        "uuid = 3f2a9c1d-4e5b-4a6c-8d7e-541512abcdef (\"3F2A9C1D-4E5B-4A6C-8D7E-541512ABCDEF\")",
    );
    check("not a uuid 3f2a9c1d-4e5b-4a6c-8d7e-541512abcdef-01", "");
}

#[test]
fn clearances_and_compartments() {
    check(
        "TS/SCI with SI/TK",
        "clearance = ts_sci (\"TS/SCI\")\ncompartments = SI, TK (\"SI/TK\")",
    );
    check("top secret clearance", "clearance = top_secret (\"top secret\")");
    check(
        "TS//SCI w/ HCS-O and G",
        "clearance = ts_sci (\"TS//SCI\")\ncompartments = G, HCS (\"HCS-O and G\")",
    );
    check("Top Secret/SCI", "clearance = ts_sci (\"Top Secret/SCI\")");
    check("TS w/ SCI eligibility", "clearance = ts_sci (\"TS w/ SCI\")");
    check("DoD Secret holders", "clearance = secret (\"DoD Secret\")");
    check("DOE Q-cleared staff", "clearance = top_secret (\"DOE Q\")");
    check(
        "Secret or Top Secret",
        "clearance = secret (\"Secret\")\nclearance = top_secret (\"Top Secret\")\nambiguous: clearance",
    );
    check("with SI, TK and G compartments", "compartments = G, SI, TK (\"SI, TK and G\")");
    check("analyst TK and a G-wagon", "");
    check("SI/TK only", "compartments = SI, TK (\"SI/TK\")");
    check("TS/SCI w/ Poly", "clearance = ts_sci (\"TS/SCI\")");
    check(
        "TS/SCI with SI/RSV",
        "clearance = ts_sci (\"TS/SCI\")\ncompartments = SI (\"SI/RSV\")\ndiagnostic \"RSV\": compartment RSV is not one of SI, TK, G, HCS, KLM",
    );
}

#[test]
fn ueis_need_a_digit_or_a_cue() {
    check("vendor J7M9KLPQ2R45's awards", "uei = J7M9KLPQ2R45 (\"J7M9KLPQ2R45\")");
    check("UEI ABCDEFGHJKLM", "uei = ABCDEFGHJKLM (\"ABCDEFGHJKLM\")");
    check("DEPARTMENTAL awards", "");
    check("uei abcdefghjklm", "");
    check("TS1234567ABC is one", "uei = TS1234567ABC (\"TS1234567ABC\")");
    check("contract N00178191C4A", "");
    check("id 123456789ABC has nine digits", "");
}

#[test]
fn month_windows() {
    check("last 18 months", "months = 18 (\"18 months\")");
    check("over the past two years", "months = 24 (\"two years\")");
    check("next quarter", "months = 3 (\"next quarter\")");
    check("eighteen months", "months = 18 (\"eighteen months\")");
    check("a twenty-four month window", "months = 24 (\"twenty-four month\")");
    check("1.5 years", "months = 18 (\"1.5 years\")");
    check("2.5 quarters", "");
    check("within a year", "months = 12 (\"a year\")");
    check("a quarter of awards", "");
    check("18mo", "months = 18 (\"18mo\")");
    check(
        "99999999999999999999 years",
        "diagnostic \"99999999999999999999 years\": time window too large",
    );
    check(
        "last 12 months then next 6 months",
        "months = 12 (\"12 months\")\nmonths = 6 (\"6 months\")\nambiguous: months",
    );
}

#[test]
fn long_runs_of_keywords_extract_in_one_pass() {
    let codes = "SI ".repeat(200_000);
    let found = extract(&codes);
    assert!(found.params.is_empty(), "a bare run of codes is no explicit list");
    let slashes = "SI/".repeat(200_000);
    let found = extract(&slashes);
    assert_eq!(
        found.available().get(&ParamKind::Compartments),
        Some(&Value::List(vec!["SI".into()]))
    );
    let phrases = "department of the ".repeat(100_000) + "Army";
    assert_eq!(extract(&phrases).params.len(), 1);
}

#[test]
fn the_reference_example() {
    check(
        "For the 'Department of the Army' recompete under NAICS 541512, who are the incumbents \
         and how many of our bench hold TS/SCI with SI/TK, over the last 18 months?",
        "agency = Department of the Army (\"Department of the Army\")
         naics = 541512 (\"541512\")
         clearance = ts_sci (\"TS/SCI\")
         compartments = SI, TK (\"SI/TK\")
         months = 18 (\"18 months\")",
    );
}

#[test]
fn corpus() {
    let text = include_str!("../../../../fixtures/extract/questions.txt");
    let mut out = String::new();
    let mut count = 0;
    for question in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let found = extract(question);
        assert_laws(question, &found);
        let _ = writeln!(out, "{question}\n{}", render(question, &found));
        count += 1;
    }
    assert!(count >= 60, "the corpus has {count} questions");
    insta::assert_snapshot!(out);
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(chars in prop::collection::vec(any::<char>(), 0..2048)) {
        let text: String = chars.into_iter().collect();
        assert_laws(&text, &extract(&text));
    }

    #[test]
    fn keyword_soup_keeps_the_laws(text in arbitrary::keyword_soup()) {
        assert_laws(&text, &extract(&text));
    }

    #[test]
    fn planted_params_come_back_exactly(q in arbitrary::planted_question()) {
        let found = extract(&q.text);
        // The filler may put a role word before a value: roles are the `roles` module's tests.
        let params: Vec<Mention> =
            found.params.iter().map(|m| Mention { role: None, ..m.clone() }).collect();
        prop_assert_eq!(&params, &q.expected, "question: {}", q.text);
        prop_assert!(found.ambiguous.is_empty());
    }

    #[test]
    fn random_words_never_yield_a_uei(text in arbitrary::random_words()) {
        prop_assert_eq!(extract(&text).mentions(ParamKind::Uei).count(), 0, "{}", text);
    }

    #[test]
    fn two_values_make_a_kind_ambiguous((q, kind) in prop_oneof![
        arbitrary::two_values(arbitrary::agency(), arbitrary::agency()),
        arbitrary::two_values(arbitrary::naics(), arbitrary::naics()),
        arbitrary::two_values(arbitrary::uuid(), arbitrary::uuid()),
        arbitrary::two_values(arbitrary::clearance(), arbitrary::clearance()),
        arbitrary::two_values(arbitrary::clearance_with_compartments(), arbitrary::clearance_with_compartments()),
        arbitrary::two_values(arbitrary::uei(), arbitrary::uei()),
        arbitrary::two_values(arbitrary::months(), arbitrary::months()),
    ]) {
        let found = extract(&q.text);
        prop_assert!(found.is_ambiguous(kind), "{}: {:?}", q.text, found);
        prop_assert!(!found.available().contains_key(&kind));
    }

    #[test]
    fn a_repeated_value_is_not_ambiguous(f in arbitrary::fragment(), gap in arbitrary::filler()) {
        let text = format!("show {} {gap} {}", f.text, f.text);
        let found = extract(&text);
        prop_assert!(found.ambiguous.is_empty(), "{}: {:?}", text, found);
        let available = found.available();
        for (kind, value, _) in &f.expected {
            prop_assert_eq!(available.get(kind), Some(value));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn a_megabyte_of_arbitrary_text_never_panics(
        chunk in prop::collection::vec(any::<char>(), 1..4096),
        soup in arbitrary::keyword_soup(),
    ) {
        let piece: String = chunk.into_iter().collect::<String>() + &soup;
        let text = piece.repeat((1 << 20) / piece.len().max(1));
        assert_laws(&text, &extract(&text));
    }
}

/// The main loop asks a matcher only at tokens its `can_start` admits: at every other token of
/// the input the matcher must find nothing.
fn assert_matchers_start_where_admitted(question: &str) {
    let scan = Scan::new(question);
    for i in 0..scan.len() {
        let Some(tok) = scan.tok(i) else { continue };
        let kw = tok.kw();
        if !agency::can_start(tok) {
            assert!(agency::at(&scan, i).is_none(), "agency at token {i} of {question:?}");
        }
        if !kw.is_some_and(clearance::can_start) {
            assert!(clearance::at(&scan, i).is_none(), "clearance at token {i} of {question:?}");
        }
        if !months::can_start(tok, kw) {
            assert!(months::at(&scan, i).is_none(), "months at token {i} of {question:?}");
        }
        if !tok.is(DIGITS) {
            assert!(naics::at(&scan, i).is_none(), "naics at token {i} of {question:?}");
        }
    }
}

#[test]
fn matchers_start_only_where_admitted_on_the_corpus() {
    let text = include_str!("../../../../fixtures/extract/questions.txt");
    for line in text.lines() {
        assert_matchers_start_where_admitted(line);
    }
}

proptest! {
    #[test]
    fn matchers_start_only_where_admitted(question in arbitrary::keyword_soup()) {
        assert_matchers_start_where_admitted(&question);
    }

    #[test]
    fn matchers_start_only_where_admitted_around_values(planted in arbitrary::planted_question()) {
        assert_matchers_start_where_admitted(&planted.text);
    }
}
