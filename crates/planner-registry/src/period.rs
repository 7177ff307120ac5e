//! Relative periods: the bounds a `date_range` kind reads from "last year", "year to date" or
//! "the past 6 months", written relative to the data's own date and resolved against it when a
//! plan runs, so the same question over the same data always means the same days.
//!
//! A relative bound is `@` and an anchor, then offsets applied in order: `Y` the first day of
//! the `as_of` date's year, `Q` of its quarter, `M` of its month, `D` the `as_of` day itself;
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
        'D' => {}
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
        assert_eq!(at("@Q-3m"), "2025-04-01");
        assert_eq!(at("@Q"), "2025-07-01");
        assert_eq!(at("@M-1m"), "2025-07-01");
        assert_eq!(at("@D+1d-6m"), "2025-02-16");
        assert_eq!(at("@D+1d-14d"), "2025-08-02");
        assert_eq!(at("2024-03-01"), "2024-03-01");
        assert_eq!(at("infinity"), "infinity");
        assert_eq!(resolve_bound("@D+1d", "2024-12-31").unwrap(), "2025-01-01");
        assert_eq!(resolve_bound("@D+1d-1m", "2025-03-31").unwrap(), "2025-03-01");
        for bad in ["@", "@X", "@Y+", "@Y+3", "@Y*3m", "@Y+99999999999m"] {
            assert_eq!(resolve_bound(bad, "2025-08-15"), None, "{bad}");
        }
        assert_eq!(resolve_bound("@Y", "2025-02-30"), None);
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
