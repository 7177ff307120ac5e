//! Rendering snapshots and number formatting.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::*;
use crate::table::{Column, ColumnType};

fn sample() -> ResultTable {
    ResultTable {
        columns: vec![
            Column { name: "piid".into(), ty: ColumnType::Text },
            Column { name: "value".into(), ty: ColumnType::Decimal },
            Column { name: "awards".into(), ty: ColumnType::Int },
            Column { name: "end_date".into(), ty: ColumnType::Date },
            Column { name: "id".into(), ty: ColumnType::Uuid },
        ],
        rows: vec![
            vec![
                Cell::Text("W91QUZ-24-C-0001".into()),
                Cell::Decimal(Decimal::new(12_345_678_912, 2)),
                Cell::Int(1_204),
                Cell::Date(NaiveDate::from_ymd_opt(2027, 3, 31).unwrap()),
                Cell::Uuid(Uuid::from_u128(0x1234)),
            ],
            vec![
                Cell::Text("a|b".into()),
                Cell::Decimal(Decimal::new(-50, 2)),
                Cell::Suppressed { k: 11 },
                Cell::Null,
                Cell::Withheld,
            ],
        ],
    }
}

#[test]
fn text() {
    insta::assert_snapshot!(render_text(&sample()));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render_markdown(&sample()));
}

#[test]
fn empty_tables_say_so() {
    let table = ResultTable { columns: sample().columns, rows: Vec::new() };
    insta::assert_snapshot!(format!("{}\n{}", render_text(&table), render_markdown(&table)));
}

#[test]
fn thousands() {
    let cases = [
        (Cell::Int(0), "0"),
        (Cell::Int(999), "999"),
        (Cell::Int(1000), "1,000"),
        (Cell::Int(-1_234_567), "-1,234,567"),
        (Cell::Decimal(Decimal::new(100_000_000, 2)), "1,000,000.00"),
        (Cell::Decimal(Decimal::new(5, 1)), "0.5"),
        (Cell::Decimal(Decimal::new(-123_456, 0)), "-123,456"),
        (Cell::Suppressed { k: 11 }, "fewer than 11"),
        (Cell::TextList(vec!["SI".into(), "TK".into()]), "SI, TK"),
    ];
    for (cell, expected) in cases {
        assert_eq!(format_cell(&cell), expected);
    }
}

#[test]
fn a_time_claims_a_zone_only_when_its_column_has_one() {
    let at = NaiveDate::from_ymd_opt(2025, 3, 31).unwrap().and_hms_opt(14, 5, 0).unwrap();
    assert_eq!(format_cell(&Cell::Timestamp(at.and_utc())), "2025-03-31T14:05:00Z");
    assert_eq!(format_cell(&Cell::LocalTimestamp(at)), "2025-03-31T14:05:00");
}
