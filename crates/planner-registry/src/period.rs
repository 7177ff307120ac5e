//! Relative periods: the bounds a `date_range` kind reads from "last year", "year to date" or
//! "the past 6 months", written relative to the data's own date and resolved against it when a
//! plan runs, so the same question over the same data always means the same days.
//!
//! A relative bound is `@` and an anchor, then offsets applied in order: `Y` the first day of
//! the `as_of` date's year, `Q` of its quarter, `M` of its month, `W` of its week (the Monday,
//! as ISO 8601 starts a week), `D` the `as_of` day itself, `L` and a month number the first day
//! of the latest such month that starts on or before the `as_of` day ("in August": `@L8`), `P`
//! and a month number the same strictly before the `as_of` day's month ("last August": `@P8`);
//! an offset is a sign, a count and `m` (months) or `d` (days). `["@Y-12m", "@Y"]` is last
//! calendar year; `["@Y", "@D+1d"]` is the year to date, the `as_of` day included (ranges are
//! `[start, end)`).

use crate::Value;

/// Whether `value` is a date range with a relative bound (one [`resolve_period`] resolves).
pub fn is_relative(value: &Value) -> bool {
    matches!(value, Value::List(items) if items.iter().any(|it| it.starts_with('@')))
}

/// The ISO day (`YYYY-MM-DD`) a relative bound names, given the data's date `as_of`
/// (`YYYY-MM-DD`); any other bound (an ISO day, `-infinity`, `infinity`) unchanged. `None` when
/// the bound or the date is malformed.
pub fn resolve_bound(bound: &str, as_of: &str) -> Option<String> {
    let Some(rest) = bound.strip_prefix('@') else { return Some(bound.to_owned()) };
    let mut day = Day::parse(as_of)?;
    let mut chars = rest.chars().peekable();
    match chars.next()? {
        'Y' => day = Day { month: 1, day: 1, ..day },
        'Q' => day = Day { month: (day.month - 1) / 3 * 3 + 1, day: 1, ..day },
        'M' => day = Day { day: 1, ..day },
        'W' => day = day.plus_days(-i32::from(day.weekday()))?,
        'D' => {}
        anchor @ ('L' | 'P') => {
            let mut month: u8 = 0;
            while let Some(digit) = chars.peek().and_then(|c| c.to_digit(10)) {
                month = month.checked_mul(10)?.checked_add(u8::try_from(digit).ok()?)?;
                chars.next();
            }
            if !(1..=12).contains(&month) {
                return None;
            }
            let this_year = if anchor == 'L' { month <= day.month } else { month < day.month };
            let year = if this_year { day.year } else { day.year.checked_sub(1)? };
            day = Day { year, month, day: 1 };
        }
        _ => return None,
    }
    while let Some(sign) = chars.next() {
        let negative = match sign {
            '+' => false,
            '-' => true,
            _ => return None,
        };
        let mut n: i32 = 0;
        while let Some(digit) = chars.peek().and_then(|c| c.to_digit(10)) {
            n = n.checked_mul(10)?.checked_add(i32::try_from(digit).ok()?)?;
            chars.next();
        }
        let n = if negative { -n } else { n };
        match chars.next()? {
            'm' => day = day.plus_months(n)?,
            'd' => day = day.plus_days(n)?,
            _ => return None,
        }
    }
    Some(day.iso())
}

/// A date range value with its relative bounds resolved against `as_of`; other values
/// unchanged. `None` when a bound is malformed.
pub fn resolve_period(value: &Value, as_of: &str) -> Option<Value> {
    match value {
        Value::List(items) if is_relative(value) => items
            .iter()
            .map(|item| resolve_bound(item, as_of))
            .collect::<Option<Vec<String>>>()
            .map(Value::List),
        other => Some(other.clone()),
    }
}

/// How long a period a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PeriodLength {
    /// A year: `2025`, `FY2025`.
    Year,
    /// A quarter: `2025 Q1`, `2025-Q1`, `Q1 2025`, `FY2025 Q1`.
    Quarter,
    /// A month: `2025-03`.
    Month,
    /// A day: `2025-03-31` (a date column's cells).
    Day,
}

/// A label that names one period of the calendar, as a time series' rows are labelled.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeriodLabel {
    /// How long the period is.
    pub length: PeriodLength,
    /// Whether it is written as a fiscal period (`FY2025 Q1`): its year is the fiscal year.
    pub fiscal: bool,
    /// Its year, quarter or month, and day, in that order (1 where the label is coarser), so
    /// that labels of one kind order as their periods do.
    pub start: (i32, u8, u8),
}

/// The period `text` names, when it is the label of one: a year (`2025`, `FY2025`), a quarter
/// (`2025 Q1`, `2025-Q1`, `Q1 2025`, `FY2025 Q1`, `FY 2025 Q1`), a month (`2025-03`) or a day
/// (`2025-03-31`, with or without a time after it). Years run from 1000 to 9999, months and
/// days must exist. Anything else, names and codes included, is `None`.
pub fn period_label(text: &str) -> Option<PeriodLabel> {
    let text = text.trim();
    let year = |word: &str| -> Option<i32> {
        (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
            .then(|| word.parse().ok())
            .flatten()
            .filter(|year| *year >= 1000)
    };
    let quarter = |word: &str| -> Option<u8> {
        let digit = word.strip_prefix(['Q', 'q'])?;
        let n: u8 = (digit.len() == 1).then(|| digit.parse().ok()).flatten()?;
        (1..=4).contains(&n).then_some(n)
    };
    let label = |length, fiscal, start| Some(PeriodLabel { length, fiscal, start });
    // A date, perhaps with a time: the day is what a series is by.
    let bytes = text.as_bytes();
    if bytes.len() >= 10 && bytes[4] == b'-' && bytes[7] == b'-' {
        let (Some(head), Some(rest)) = (text.get(..10), text.get(10..)) else { return None };
        if !head.bytes().enumerate().all(|(at, b)| at == 4 || at == 7 || b.is_ascii_digit())
            || !(rest.is_empty() || rest.starts_with(['T', ' ']))
        {
            return None;
        }
        let day = Day::parse(head)?;
        return label(PeriodLength::Day, false, (day.year, day.month, day.day));
    }
    let (fiscal, body) = match text.strip_prefix("FY") {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text),
    };
    if let Some(year) = year(body) {
        return label(PeriodLength::Year, fiscal, (year, 1, 1));
    }
    if let (false, Some(y), Some(b'-'), Some(m)) =
        (fiscal, body.get(..4).and_then(year), body.as_bytes().get(4), body.get(5..))
        && m.len() == 2
        && m.bytes().all(|b| b.is_ascii_digit())
    {
        let m: u8 = m.parse().ok()?;
        return (1..=12).contains(&m).then_some(PeriodLabel {
            length: PeriodLength::Month,
            fiscal,
            start: (y, m, 1),
        });
    }
    let words: Vec<&str> = body.split([' ', '-']).filter(|word| !word.is_empty()).collect();
    match words.as_slice() {
        [first, second] => {
            let (y, q) = match (year(first), quarter(second)) {
                (Some(y), Some(q)) => (y, q),
                _ if !fiscal => (year(second)?, quarter(first)?),
                _ => return None,
            };
            label(PeriodLength::Quarter, fiscal, (y, q, 1))
        }
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Day {
    year: i32,
    month: u8,
    day: u8,
}

/// The days of `month` (1 to 12) of `year`, in the Gregorian calendar: the one calendar rule the
/// registry's relative periods and the extractors' dates share.
pub fn days_in(year: i32, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Day {
    fn parse(text: &str) -> Option<Day> {
        let mut parts = text.trim().splitn(3, '-');
        let year = parts.next()?.parse().ok()?;
        let month: u8 = parts.next()?.parse().ok()?;
        let day: u8 = parts.next()?.get(..2)?.parse().ok()?;
        ((1..=12).contains(&month) && (1..=days_in(year, month)).contains(&day)).then_some(Day {
            year,
            month,
            day,
        })
    }

    /// `n` months later (earlier when negative), the day kept within the month.
    fn plus_months(self, n: i32) -> Option<Day> {
        let index = self.year.checked_mul(12)?.checked_add(i32::from(self.month) - 1)?;
        let index = index.checked_add(n)?;
        let year = index.div_euclid(12);
        let month = u8::try_from(index.rem_euclid(12) + 1).ok()?;
        Some(Day { year, month, day: self.day.min(days_in(year, month)) })
    }

    /// `n` days later (earlier when negative).
    fn plus_days(mut self, n: i32) -> Option<Day> {
        if n.unsigned_abs() > 400 * 366 {
            return None;
        }
        for _ in 0..n.unsigned_abs() {
            self = if n > 0 { self.next() } else { self.previous() };
        }
        Some(self)
    }

    fn next(self) -> Day {
        if self.day < days_in(self.year, self.month) {
            Day { day: self.day + 1, ..self }
        } else if self.month < 12 {
            Day { month: self.month + 1, day: 1, ..self }
        } else {
            Day { year: self.year + 1, month: 1, day: 1 }
        }
    }

    fn previous(self) -> Day {
        if self.day > 1 {
            Day { day: self.day - 1, ..self }
        } else if self.month > 1 {
            let month = self.month - 1;
            Day { month, day: days_in(self.year, month), ..self }
        } else {
            Day { year: self.year - 1, month: 12, day: 31 }
        }
    }

    /// Days since the week's Monday: 0 on a Monday, 6 on a Sunday (Sakamoto's method).
    fn weekday(self) -> u8 {
        const OFFSETS: [i32; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
        let year = if self.month < 3 { self.year - 1 } else { self.year };
        let sunday_first = (year + year.div_euclid(4) - year.div_euclid(100)
            + year.div_euclid(400)
            + OFFSETS[usize::from(self.month - 1)]
            + i32::from(self.day))
        .rem_euclid(7);
        u8::try_from((sunday_first + 6) % 7).unwrap_or(0)
    }

    fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_resolve_against_the_data_date() {
        let at = |bound: &str| resolve_bound(bound, "2025-08-15").unwrap();
        assert_eq!(at("@Y-12m"), "2024-01-01");
        assert_eq!(at("@Y"), "2025-01-01");
        assert_eq!(at("@D+1d"), "2025-08-16");
        // 2025-08-15 is a Friday: its week began on Monday the 11th.
        assert_eq!(at("@W"), "2025-08-11");
        assert_eq!(at("@W-7d"), "2025-08-04");
        assert_eq!(resolve_bound("@W", "2025-08-11").unwrap(), "2025-08-11");
        assert_eq!(resolve_bound("@W", "2024-01-07").unwrap(), "2024-01-01");
        assert_eq!(at("@Q-3m"), "2025-04-01");
        assert_eq!(at("@Q"), "2025-07-01");
        assert_eq!(at("@M-1m"), "2025-07-01");
        assert_eq!(at("@D+1d-6m"), "2025-02-16");
        assert_eq!(at("@D+1d-14d"), "2025-08-02");
        assert_eq!(at("2024-03-01"), "2024-03-01");
        assert_eq!(at("infinity"), "infinity");
        assert_eq!(resolve_bound("@D+1d", "2024-12-31").unwrap(), "2025-01-01");
        assert_eq!(resolve_bound("@D+1d-1m", "2025-03-31").unwrap(), "2025-03-01");
        // A month named without its year: the latest one begun by the data's date ("in
        // August"), or the latest one before the data's month ("last August").
        assert_eq!(at("@L8"), "2025-08-01");
        assert_eq!(at("@L8+1m"), "2025-09-01");
        assert_eq!(at("@L9"), "2024-09-01");
        assert_eq!(at("@L12-5m"), "2024-07-01");
        assert_eq!(at("@P8"), "2024-08-01");
        assert_eq!(at("@P7"), "2025-07-01");
        assert_eq!(at("@L1"), "2025-01-01");
        for bad in ["@", "@X", "@Y+", "@Y+3", "@Y*3m", "@Y+99999999999m", "@L", "@L13", "@P0"] {
            assert_eq!(resolve_bound(bad, "2025-08-15"), None, "{bad}");
        }
        assert_eq!(resolve_bound("@Y", "2025-02-30"), None);
    }

    #[test]
    fn period_labels_are_years_quarters_months_and_days() {
        let length = |text: &str| period_label(text).map(|it| it.length);
        assert_eq!(length("2025"), Some(PeriodLength::Year));
        assert_eq!(length("FY2025"), Some(PeriodLength::Year));
        for quarter in ["2025 Q1", "2025-Q1", "Q1 2025", "FY2025 Q1", "FY 2025 Q1", "2025 q4"] {
            assert_eq!(length(quarter), Some(PeriodLength::Quarter), "{quarter}");
        }
        assert_eq!(length("2025-03"), Some(PeriodLength::Month));
        assert_eq!(length("2025-03-31"), Some(PeriodLength::Day));
        assert_eq!(length("2025-03-31T10:00:00Z"), Some(PeriodLength::Day));
        for other in [
            "",
            "541512",
            "0999",
            "2025-13",
            "2025-02-30",
            "Q5 2025",
            "FYQ1",
            "CF-1001",
            "TTP4GAUL56CU",
            "Department of the Army",
            "2025-03-31x",
            "Q1 FY2025",
            "é",
            "2025-3",
            "2025-03-€1",
            "2025-03-0€",
            "+025-03-01",
        ] {
            assert_eq!(period_label(other), None, "{other}");
        }
        let order = |text: &str| period_label(text).unwrap().start;
        assert!(order("FY2024 Q4") < order("FY2025 Q1"));
        assert!(order("Q4 2024") < order("Q1 2025"));
        assert!(order("2024-12") < order("2025-01"));
    }

    #[test]
    fn a_period_value_resolves_whole() {
        let value = Value::List(vec!["@Y-12m".to_owned(), "@Y".to_owned()]);
        assert!(is_relative(&value));
        assert_eq!(
            resolve_period(&value, "2026-01-01"),
            Some(Value::List(vec!["2025-01-01".to_owned(), "2026-01-01".to_owned()]))
        );
        let fixed = Value::List(vec!["2024-01-01".to_owned(), "2025-01-01".to_owned()]);
        assert!(!is_relative(&fixed));
        assert_eq!(resolve_period(&fixed, "2026-01-01"), Some(fixed));
    }
}
