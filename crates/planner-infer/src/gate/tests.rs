//! The gate's rules by example, and its laws as properties: template narrations of any evidence
//! pass; changing a number or inventing an entity fails.

use proptest::prelude::*;

use super::*;
use crate::dash::find_dashes;
use planner_registry::{DurationUnit, WindowDirection};

use crate::evidence::{DroppedIntent, EvidenceTable, Window};
use crate::narrate::TemplateNarrator;

fn table(intent: &str, columns: &[&str], rows: Vec<Vec<Cell>>) -> EvidenceTable {
    EvidenceTable {
        intent: intent.to_owned(),
        columns: columns.iter().map(|c| (*c).to_owned()).collect(),
        rows,
        window: None,
        scope: Vec::new(),
    }
}

fn text(value: &str) -> Cell {
    Cell::Text(value.to_owned())
}

fn decimal(value: &str) -> Cell {
    Cell::Decimal(value.to_owned())
}

fn evidence() -> Evidence {
    Evidence {
        tables: vec![
            table(
                "top_incumbents",
                &["uei", "name", "obligations"],
                vec![
                    vec![
                        text("J7M9KLPQ2R45"),
                        text("Acme Federal Systems LLC"),
                        decimal("1234567.89"),
                    ],
                    vec![text("ABC123DEF456"), text("Blue Ridge Analytics"), decimal("250000.00")],
                ],
            ),
            table(
                "upcoming_recompetes",
                &["piid", "incumbent_name", "value", "end_date"],
                vec![vec![
                    text("W91QUZ-20-D-0012"),
                    text("Acme Federal Systems LLC"),
                    decimal("4500000"),
                    Cell::Date("2027-03-31".to_owned()),
                ]],
            ),
            table(
                "bench_clearance_counts",
                &["availability", "candidates"],
                vec![
                    vec![text("now"), Cell::Int(14)],
                    vec![text("within_30_days"), Cell::Suppressed { k: 11 }],
                    vec![text("later"), Cell::Int(23)],
                ],
            ),
            table(
                "naics_market_share",
                &["name", "share"],
                vec![vec![text("Acme Federal Systems LLC"), decimal("0.453")]],
            ),
        ],
        entities: vec![
            "Department of the Army".to_owned(),
            "541512".to_owned(),
            "ts_sci".to_owned(),
        ],
        dropped: Vec::new(),
    }
}

#[track_caller]
fn check(narration: &str, expected: &[Miss]) {
    let verdict = check_faithfulness(narration, &evidence(), &GateConfig::reference());
    assert_eq!(verdict.misses, expected, "narration: {narration}");
}

#[test]
fn faithful_prose_passes() {
    check(
        "At the Department of the Army under NAICS 541512, Acme Federal Systems LLC (UEI J7M9KLPQ2R45) \
         leads with $1,234,567.89 in obligations, ahead of Blue Ridge Analytics at $250,000.",
        &[],
    );
    check(
        "Contract W91QUZ-20-D-0012, held by Acme Federal Systems LLC, ends on March 31, 2027.",
        &[],
    );
    check("It is worth $4.5 million and ends 2027-03-31.", &[]);
    check("Acme Federal Systems LLC holds a 45.3% share.", &[]);
    check(
        "14 candidates are available now and 23 later; the count within 30 days is withheld (fewer than 11).",
        &[],
    );
}

#[test]
fn rounding_follows_the_stated_rule() {
    check("Obligations by Acme were about $1.2 million.", &[]);
    check("Obligations were about $1.2 million.", &[]);
    check("Obligations were about $1.23 million.", &[]);
    check("Obligations were $1,234,568.", &[]);
    check("Obligations were $1.3 million.", &[Miss::Number("1300000".to_owned())]);
    check("Obligations were $1,234,567.", &[Miss::Number("1234567".to_owned())]);
    check("The share is 45%.", &[]);
    check("The share is 46%.", &[Miss::Number("46".to_owned())]);
}

#[test]
fn invented_values_fail() {
    check("Obligations were $9,999.", &[Miss::Number("9999".to_owned())]);
    check("The contract ends on 2027-04-30.", &[Miss::Date("2027-04-30".to_owned())]);
    check("The contract ends in June 2027.", &[Miss::Date("2027-06-00".to_owned())]);
    check("Vendor ZZ9ZZ9ZZ9ZZ9 also bid.", &[Miss::Entity("ZZ9ZZ9ZZ9ZZ9".to_owned())]);
    check(
        "Leidos also holds work at the Department of the Navy.",
        &[Miss::Entity("Department of the Navy".to_owned())],
    );
    check("Booz Allen Hamilton is second.", &[Miss::Entity("Booz Allen Hamilton".to_owned())]);
    check("The work is at DHS.", &[Miss::Entity("DHS".to_owned())]);
}

#[test]
fn vocabulary_and_sentence_openers_are_not_entities() {
    check("Top incumbents follow. The bench holds TS/SCI candidates.", &[]);
    check("Under NAICS 541512 the Department of the Army spent money.", &[]);
}

#[test]
fn numbers_where_cells_are_suppressed_fail() {
    check(
        "Within 30 days, 5 candidates are available.",
        &[Miss::Number("5".to_owned()), Miss::SuppressedNumber("5".to_owned())],
    );
    check(
        "Within 30 days, 14 candidates are available.",
        &[Miss::SuppressedNumber("14".to_owned())],
    );
    check("Within 30 days: withheld, fewer than 11.", &[]);
}

#[test]
fn ranking_people_fails() {
    check(
        "The best candidates are available now.",
        &[Miss::RanksPeople("the best candidates are available now".to_owned())],
    );
    check(
        "We ranked the candidates by fit.",
        &[Miss::RanksPeople("we ranked the candidates by fit".to_owned())],
    );
    check("14 Top Secret candidates are available now.", &[]);
    check("Acme Federal Systems LLC is the top incumbent.", &[]);
}

#[test]
fn money_and_dates_as_the_template_writes_them_pass_and_others_fail() {
    let evidence = Evidence {
        tables: vec![EvidenceTable {
            intent: "top_incumbents".to_owned(),
            columns: vec!["name".to_owned(), "obligated".to_owned()],
            rows: vec![vec![
                text("Juniper Analytics Inc."),
                Cell::Money("4160091428.6".to_owned()),
            ]],
            window: Some(Window {
                length: 36,
                unit: DurationUnit::Month,
                direction: WindowDirection::Past,
                as_of: Some("2026-09-30".to_owned()),
            }),
            scope: Vec::new(),
        }],
        entities: Vec::new(),
        dropped: vec![DroppedIntent {
            intent: "vendor_awards".to_owned(),
            reason: "vendor_profile.uei gave 3 values".to_owned(),
        }],
    };
    let config = GateConfig::reference();
    let misses = |narration: &str| check_faithfulness(narration, &evidence, &config).misses;
    for faithful in [
        "Juniper Analytics Inc. obligated $4,160,091,428.60 over the 36 months to 2026-09-30.",
        "Juniper Analytics Inc. obligated $4,160,091,428.6 by September 30, 2026.",
        "Juniper Analytics Inc. obligated about $4.2 billion over the last 36 months.",
        "Juniper Analytics Inc. obligated 4160091428.60 dollars.",
        "Vendor awards was not answered: its uei gave 3 values.",
    ] {
        assert_eq!(misses(faithful), [], "{faithful}");
    }
    assert_eq!(
        misses("Juniper Analytics Inc. obligated $4,160,091,428.70."),
        [Miss::Number("4160091428.70".to_owned())]
    );
    assert_eq!(misses("It obligated $5 billion."), [Miss::Number("5000000000".to_owned())]);
    assert_eq!(misses("Over the 24 months to 2026-09-30."), [Miss::Number("24".to_owned())]);
    assert_eq!(misses("Over the 36 months to 2026-10-31."), [Miss::Date("2026-10-31".to_owned())]);
    let narration = TemplateNarrator::render(&evidence);
    assert!(narration.contains("$4,160,091,428.60"), "{narration}");
    assert!(narration.contains("over the 36 months to 2026-09-30"), "{narration}");
    assert!(narration.contains("vendor_awards was not answered"), "{narration}");
    assert_eq!(misses(&narration), [], "{narration}");
}

#[test]
fn dash_punctuation_fails_unless_quoted_from_the_evidence() {
    let evidence = Evidence {
        tables: vec![table(
            "top_incumbents",
            &["name", "awards"],
            vec![vec![text("Acme - East LLC"), Cell::Int(4)]],
        )],
        entities: Vec::new(),
        dropped: Vec::new(),
    };
    let config = GateConfig::reference();
    let misses = |narration: &str| check_faithfulness(narration, &evidence, &config).misses;
    assert_eq!(misses("Acme - East LLC holds 4 awards."), []);
    assert_eq!(misses("Acme - East LLC holds 4 awards: a TS-SCI shop."), []);
    assert_eq!(
        misses("Acme - East LLC \u{2014} 4 awards."),
        [Miss::Dash("- East LLC \u{2014} 4 awards.".to_owned())]
    );
    assert_eq!(
        misses("The leader - Acme - East LLC."),
        [Miss::Dash("The leader - Acme - East".to_owned())]
    );
    assert_eq!(misses("- Acme - East LLC: 4 awards"), [Miss::Dash("- Acme - East".to_owned())]);
}

#[test]
fn template_narration_passes() {
    let evidence = evidence();
    let narration = TemplateNarrator::render(&evidence);
    let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
    assert!(verdict.passed(), "{narration}\n{:?}", verdict.misses);
}

#[test]
fn a_threshold_that_is_a_multiple_of_ten_may_be_stated() {
    let evidence = Evidence {
        tables: vec![table(
            "bench_clearance_counts",
            &["availability", "candidates"],
            vec![vec![text("now"), Cell::Int(14)], vec![text("later"), Cell::Suppressed { k: 10 }]],
        )],
        entities: Vec::new(),
        dropped: Vec::new(),
    };
    let verdict = check_faithfulness(
        "Later: fewer than 10 candidates (withheld).",
        &evidence,
        &GateConfig::reference(),
    );
    assert!(verdict.passed(), "{:?}", verdict.misses);
    let verdict = check_faithfulness("Later, 14 candidates.", &evidence, &GateConfig::reference());
    assert_eq!(verdict.misses, [Miss::SuppressedNumber("14".to_owned())]);
}

#[test]
fn a_withheld_column_named_by_a_function_word_is_not_every_sentence() {
    // A column called "to": the window's "over the 12 months to ..." says nothing of its cell,
    // while a column with a content word still guards every part that names it.
    let mut withheld = table("visits_by_day", &["to"], vec![vec![Cell::Suppressed { k: 3 }]]);
    withheld.window = Some(Window {
        length: 12,
        unit: DurationUnit::Month,
        direction: WindowDirection::Past,
        as_of: Some("2025-06-30".to_owned()),
    });
    let evidence = Evidence { tables: vec![withheld], entities: Vec::new(), dropped: Vec::new() };
    let narration = TemplateNarrator::render(&evidence);
    let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
    assert!(verdict.passed(), "{narration}\n{:?}", verdict.misses);
    let named = Evidence {
        tables: vec![table("visits_by_day", &["visitors"], vec![vec![Cell::Suppressed { k: 3 }]])],
        entities: Vec::new(),
        dropped: Vec::new(),
    };
    let verdict = check_faithfulness("There were 2 visitors.", &named, &GateConfig::reference());
    assert!(
        verdict.misses.contains(&Miss::SuppressedNumber("2".to_owned())),
        "{:?}",
        verdict.misses
    );
}

#[test]
fn identifiers_and_numbers_are_found_in_every_form() {
    // Long identifiers (past the packed key), a joined identifier, a month-year date, a
    // magnitude and a percentage of a fraction.
    let long = "ABCDEFGHJKLMNPQRSTUVWXYZ123456";
    let evidence = Evidence {
        tables: vec![table(
            "top_incumbents",
            &["piid", "uei", "obligations", "share", "end_date"],
            vec![vec![
                text("W91QUZ-20-D-0012"),
                text(long),
                decimal("1234567.89"),
                decimal("0.453"),
                Cell::Date("2027-03-31".to_owned()),
            ]],
        )],
        entities: Vec::new(),
        dropped: Vec::new(),
    };
    let config = GateConfig::reference();
    let narration = format!(
        "Order W91QUZ-20-D-0012 ({long}) holds $1.2 million, 45.3% of the market, until \
         March 2027."
    );
    let verdict = check_faithfulness(&narration, &evidence, &config);
    assert!(verdict.passed(), "{:?}", verdict.misses);
    let verdict = check_faithfulness(&format!("Vendor {long}Q bid."), &evidence, &config);
    assert_eq!(verdict.misses, [Miss::Entity(format!("{long}Q"))]);
}

fn cell() -> impl Strategy<Value = Cell> {
    prop_oneof![
        Just(Cell::Null),
        any::<bool>().prop_map(Cell::Bool),
        (-1_000_000i64..1_000_000_000).prop_map(Cell::Int),
        (0u64..10_000_000_000, 0u32..4).prop_map(|(mantissa, scale)| {
            let digits = format!("{mantissa:0>width$}", width = scale as usize + 1);
            let (whole, fraction) = digits.split_at(digits.len() - scale as usize);
            Cell::Decimal(if scale == 0 { whole.to_owned() } else { format!("{whole}.{fraction}") })
        }),
        (2000u16..2040, 1u8..=12, 1u8..=28)
            .prop_map(|(y, m, d)| Cell::Date(format!("{y:04}-{m:02}-{d:02}"))),
        (0u64..10_000_000_000, 0u32..4).prop_map(|(mantissa, scale)| {
            let digits = format!("{mantissa:0>width$}", width = scale as usize + 1);
            let (whole, fraction) = digits.split_at(digits.len() - scale as usize);
            Cell::Money(if scale == 0 { whole.to_owned() } else { format!("{whole}.{fraction}") })
        }),
        "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,3}( LLC| Inc)?".prop_map(Cell::Text),
        // A name holding a dash of its own: quoting it is not dash punctuation.
        "[A-Z][a-z]{2,8} (-|\u{2014}) [A-Z][a-z]{2,8}".prop_map(Cell::Text),
        "[A-HJ-NP-Z1-9][A-HJ-NP-Z0-9]{10}[0-9]".prop_map(Cell::Text),
        (2u32..20).prop_map(|k| Cell::Suppressed { k }),
    ]
}

fn window() -> impl Strategy<Value = Option<Window>> {
    prop::option::of(
        (
            1i64..121,
            any::<bool>(),
            prop::option::of(
                (2000u16..2040, 1u8..=12, 1u8..=28)
                    .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
            ),
        )
            .prop_map(|(length, past, as_of)| Window {
                length,
                unit: DurationUnit::Month,
                direction: if past { WindowDirection::Past } else { WindowDirection::Ahead },
                as_of,
            }),
    )
}

fn evidence_strategy() -> impl Strategy<Value = Evidence> {
    let table = (
        "[a-z]{3,8}(_[a-z]{3,8}){0,2}",
        prop::collection::vec("[a-z]{2,8}(_[a-z]{2,8}){0,2}", 1..5),
        window(),
    )
        .prop_flat_map(|(intent, columns, window)| {
            let width = columns.len();
            prop::collection::vec(prop::collection::vec(cell(), width), 0..8).prop_map(
                move |rows| EvidenceTable {
                    intent: intent.clone(),
                    columns: columns.clone(),
                    rows,
                    window: window.clone(),
                    scope: Vec::new(),
                },
            )
        });
    let dropped = ("[a-z]{3,8}(_[a-z]{3,8}){0,2}", "[a-z]{3,8}( [a-z]{2,8}){0,3}( [0-9]{1,3})?")
        .prop_map(|(intent, reason)| DroppedIntent { intent, reason });
    (
        prop::collection::vec(table, 0..5),
        prop::collection::vec("[A-Z][a-z]{3,8} [A-Z][a-z]{3,8}", 0..3),
        prop::collection::vec(dropped, 0..3),
    )
        .prop_map(|(tables, entities, dropped)| Evidence { tables, entities, dropped })
}

/// A number that no evidence value can round to: far larger than any generated value.
fn absent_number(_evidence: &Evidence) -> String {
    "9333333333333333337".to_owned()
}

proptest! {
    #[test]
    fn template_narrations_pass(evidence in evidence_strategy()) {
        let narration = TemplateNarrator::render(&evidence);
        let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
        prop_assert!(verdict.passed(), "{}\n{:?}", narration, verdict.misses);
    }

    #[test]
    fn template_narrations_write_no_dash_of_their_own(evidence in evidence_strategy()) {
        let narration = TemplateNarrator::render(&evidence);
        // Blank out every evidence text the template quotes: what is left is its own prose.
        let mut own = narration.clone();
        for table in &evidence.tables {
            for cell in table.rows.iter().flatten() {
                if let Cell::Text(text) = cell {
                    own = own.replace(text.as_str(), "x");
                }
            }
        }
        prop_assert!(find_dashes(&own).is_empty(), "{}", narration);
    }

    #[test]
    fn a_dash_added_to_a_template_narration_fails(evidence in evidence_strategy()) {
        let narration = format!("{}That is all \u{2014} nothing more.\n", TemplateNarrator::render(&evidence));
        let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
        prop_assert!(verdict.misses.iter().any(|miss| matches!(miss, Miss::Dash(_))), "{:?}", verdict.misses);
    }

    #[test]
    fn a_changed_number_fails(evidence in evidence_strategy(), pick in any::<prop::sample::Index>()) {
        let narration = TemplateNarrator::render(&evidence);
        let numbers: Vec<(usize, usize)> = number_spans(&narration);
        prop_assume!(!numbers.is_empty());
        let (start, end) = numbers[pick.index(numbers.len())];
        let changed = format!("{}{}{}", &narration[..start], absent_number(&evidence), &narration[end..]);
        let verdict = check_faithfulness(&changed, &evidence, &GateConfig::reference());
        prop_assert!(!verdict.passed(), "{}", changed);
    }

    #[test]
    fn an_invented_entity_fails(evidence in evidence_strategy(), name in "[A-Z][a-z]{4,8}") {
        let invented = format!("Zq{name} Holdings");
        let narration = format!("{}{invented} also holds awards.\n", TemplateNarrator::render(&evidence));
        let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
        prop_assert!(verdict.misses.contains(&Miss::Entity(invented.clone())), "{:?}", verdict.misses);
    }

    #[test]
    fn an_invented_identifier_fails(evidence in evidence_strategy()) {
        let narration = format!("{}Vendor Q9Q9Q9Q9Q9Q9 also bid.\n", TemplateNarrator::render(&evidence));
        let verdict = check_faithfulness(&narration, &evidence, &GateConfig::reference());
        prop_assert!(verdict.misses.contains(&Miss::Entity("Q9Q9Q9Q9Q9Q9".to_owned())), "{:?}", verdict.misses);
    }

    #[test]
    fn never_panics(narration in "\\PC{0,200}", evidence in evidence_strategy()) {
        let _ = check_faithfulness(&narration, &evidence, &GateConfig::reference());
    }
}

/// Byte ranges of the standalone numbers of a template narration (digits, separators, a
/// decimal part), outside identifiers, dates and words.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts_token = at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || matches!(bytes[at - 1], b'-' | b'_' | b'.'));
        if bytes[at].is_ascii_digit() && starts_token {
            let mut end = at;
            while end < bytes.len()
                && (bytes[end].is_ascii_digit()
                    || (bytes[end] == b'.'
                        && end + 1 < bytes.len()
                        && bytes[end + 1].is_ascii_digit()))
            {
                end += 1;
            }
            let ends_token = end == bytes.len()
                || !(bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'-' | b'_'));
            if ends_token {
                spans.push((at, end));
            }
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    spans
}

#[test]
fn numbers_are_written_in_plain_decimal() {
    let written = |mantissa: i128, scale: i32| render(Num { mantissa, scale });
    assert_eq!(written(-5, 3), "-0.005");
    assert_eq!(written(12_345, 2), "123.45");
    assert_eq!(written(7, -3), "7000");
    assert_eq!(written(0, 0), "0");
    assert_eq!(written(i128::MIN, 0), i128::MIN.to_string());
}
