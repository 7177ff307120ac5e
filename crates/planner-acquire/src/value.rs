//! Typed values (money with currency, percent, count, duration, text) and their extraction
//! from free text: document hits and user answers.

use std::{fmt, sync::LazyLock};

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An amount in a currency.
    Money,
    /// A percentage; `12.5` means 12.5 %.
    Percent,
    /// A count of things.
    Count,
    /// A duration in months.
    Duration,
    /// Free text.
    Text,
}

impl Kind {
    /// The name used in profiles.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Money => "money",
            Kind::Percent => "percent",
            Kind::Count => "count",
            Kind::Duration => "duration",
            Kind::Text => "text",
        }
    }
}

/// A typed value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Value {
    /// An amount with its ISO 4217 currency code.
    Money {
        /// The amount.
        amount: f64,
        /// The currency code (`EUR`).
        currency: String,
    },
    /// A percentage (`12.5` is 12.5 %).
    Percent {
        /// The percentage.
        percent: f64,
    },
    /// A count.
    Count {
        /// The count.
        count: f64,
    },
    /// A duration in months.
    Duration {
        /// The months.
        months: f64,
    },
    /// Free text.
    Text {
        /// The text.
        text: String,
    },
}

impl Value {
    /// A value of `kind` from a formula result (percentages are fractions in formulas).
    pub fn from_number(kind: Kind, number: f64, currency: Option<&str>) -> Value {
        match kind {
            Kind::Money => Value::Money {
                amount: round(number, 2),
                currency: currency.unwrap_or_default().to_owned(),
            },
            Kind::Percent => Value::Percent { percent: round(number * 100.0, 4) },
            Kind::Count => Value::Count { count: round(number, 4) },
            Kind::Duration => Value::Duration { months: round(number, 4) },
            Kind::Text => Value::Text { text: format_number(number) },
        }
    }

    /// The number a formula sees: percentages as fractions; text has none.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Money { amount, .. } => Some(*amount),
            Value::Percent { percent } => Some(percent / 100.0),
            Value::Count { count } => Some(*count),
            Value::Duration { months } => Some(*months),
            Value::Text { .. } => None,
        }
    }

    /// The currency of a money value.
    pub fn currency(&self) -> Option<&str> {
        match self {
            Value::Money { currency, .. } => Some(currency),
            _ => None,
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Money { .. } => Kind::Money,
            Value::Percent { .. } => Kind::Percent,
            Value::Count { .. } => Kind::Count,
            Value::Duration { .. } => Kind::Duration,
            Value::Text { .. } => Kind::Text,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Money { amount, currency } => write!(f, "{currency} {amount:.2}"),
            Value::Percent { percent } => write!(f, "{} %", format_number(*percent)),
            Value::Count { count } => f.write_str(&format_number(*count)),
            // A time until something happens (a payback) that comes out negative never comes:
            // the quantity it waits on shrinks instead of growing.
            Value::Duration { months } if *months < 0.0 => {
                write!(f, "never (the formula gives {} months)", format_number(*months))
            }
            Value::Duration { months } => write!(f, "{} months", format_number(*months)),
            Value::Text { text } => f.write_str(text),
        }
    }
}

fn round(number: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    let out = (number * scale).round() / scale;
    if out == 0.0 { 0.0 } else { out }
}

fn format_number(number: f64) -> String {
    let rounded = round(number, 4);
    if rounded.fract() == 0.0 && rounded.abs() < 1e15 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

/// Currency codes the extractors know, with their symbols and names.
const CURRENCIES: &[(&str, &[&str])] = &[
    ("EUR", &["€", "eur", "euro", "euros"]),
    ("USD", &["$", "us$", "usd", "dollar", "dollars"]),
    ("GBP", &["£", "gbp", "pound", "pounds"]),
    ("CHF", &["chf", "franc", "francs"]),
    ("JPY", &["¥", "jpy", "yen"]),
];

/// The ISO code of a currency written as a code, symbol or name (`€`, `eur`, `Euro`).
pub fn currency_code(text: &str) -> Option<&'static str> {
    let text = text.trim().to_lowercase();
    CURRENCIES.iter().find_map(|(code, names)| {
        (text == code.to_lowercase() || names.contains(&text.as_str())).then_some(*code)
    })
}

const NUMBER: &str = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)";
const SCALE: &str = r"(?:\s?(k|thousand|m|million)\b)?";

static MONEY_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(€|\$|£|¥|\b(?:eur|usd|gbp|chf|jpy)\b)\s?{NUMBER}{SCALE}"))
        .expect("valid regex")
});
static MONEY_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i){NUMBER}{SCALE}\s?(€|£|¥|\b(?:eur|usd|gbp|chf|jpy|euros?|dollars?|pounds?|francs?|yen)\b)"
    ))
    .expect("valid regex")
});
static PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i){NUMBER}\s?(?:%|\bper ?cent\b)")).expect("valid regex")
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i){NUMBER}\s?(months?|years?|weeks?)\b")).expect("valid regex")
});
static PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?:^|[^\w.,]){NUMBER}{SCALE}")).expect("valid regex")
});

fn number(digits: &str, scale: Option<&str>) -> Option<f64> {
    let base: f64 = digits.replace(',', "").parse().ok()?;
    let factor = match scale.map(str::to_lowercase).as_deref() {
        Some("k" | "thousand") => 1e3,
        Some("m" | "million") => 1e6,
        _ => 1.0,
    };
    let out = base * factor;
    out.is_finite().then_some(out)
}

/// One value found in a text, with its byte span.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The value.
    pub value: Value,
    /// Where it was written.
    pub span: (usize, usize),
}

/// Every money amount in `text`, in order.
pub fn money_in(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    for caps in MONEY_BEFORE.captures_iter(text) {
        let (Some(whole), Some(cur), Some(digits)) = (caps.get(0), caps.get(1), caps.get(2)) else {
            continue;
        };
        let (Some(code), Some(amount)) = (
            currency_code(cur.as_str()),
            number(digits.as_str(), caps.get(3).map(|it| it.as_str())),
        ) else {
            continue;
        };
        let value = Value::Money { amount, currency: code.to_owned() };
        out.push(Found { value, span: (whole.start(), whole.end()) });
    }
    for caps in MONEY_AFTER.captures_iter(text) {
        let (Some(whole), Some(digits), Some(cur)) = (caps.get(0), caps.get(1), caps.get(3)) else {
            continue;
        };
        if out.iter().any(|it| overlaps(it.span, (whole.start(), whole.end()))) {
            continue;
        }
        let (Some(code), Some(amount)) = (
            currency_code(cur.as_str()),
            number(digits.as_str(), caps.get(2).map(|it| it.as_str())),
        ) else {
            continue;
        };
        let value = Value::Money { amount, currency: code.to_owned() };
        out.push(Found { value, span: (whole.start(), whole.end()) });
    }
    out.sort_by_key(|it| it.span.0);
    out
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Every percentage in `text`, in order.
pub fn percents_in(text: &str) -> Vec<Found> {
    PERCENT
        .captures_iter(text)
        .filter_map(|caps| {
            let whole = caps.get(0)?;
            let percent = number(caps.get(1)?.as_str(), None)?;
            Some(Found { value: Value::Percent { percent }, span: (whole.start(), whole.end()) })
        })
        .collect()
}

/// Every duration in `text`, in months, in order.
pub fn durations_in(text: &str) -> Vec<Found> {
    DURATION
        .captures_iter(text)
        .filter_map(|caps| {
            let whole = caps.get(0)?;
            let n = number(caps.get(1)?.as_str(), None)?;
            let unit = caps.get(2)?.as_str().to_lowercase();
            let months = if unit.starts_with("year") {
                n * 12.0
            } else if unit.starts_with("week") {
                n * 12.0 / 52.0
            } else {
                n
            };
            Some(Found { value: Value::Duration { months }, span: (whole.start(), whole.end()) })
        })
        .collect()
}

/// Every count in `text`: numbers that are not money, percentages, durations or years.
pub fn counts_in(text: &str) -> Vec<Found> {
    let taken: Vec<(usize, usize)> = money_in(text)
        .into_iter()
        .chain(percents_in(text))
        .chain(durations_in(text))
        .map(|it| it.span)
        .collect();
    PLAIN
        .captures_iter(text)
        .filter_map(|caps| {
            let digits = caps.get(1)?;
            let end = caps.get(2).map_or(digits.end(), |it| it.end());
            let span = (digits.start(), end);
            if taken.iter().any(|it| overlaps(*it, span)) {
                return None;
            }
            let raw = digits.as_str();
            let is_year = raw.len() == 4
                && caps.get(2).is_none()
                && raw.parse::<u32>().is_ok_and(|y| (1900..=2100).contains(&y));
            if is_year {
                return None;
            }
            let count = number(raw, caps.get(2).map(|it| it.as_str()))?;
            Some(Found { value: Value::Count { count }, span })
        })
        .collect()
}

/// The first value of `kind` in a document text; for money, the first in `currency` when one is
/// expected.
pub fn extract(kind: Kind, text: &str, currency: Option<&str>) -> Option<Value> {
    match kind {
        Kind::Money => {
            let all = money_in(text);
            match currency {
                Some(code) => all.into_iter().find(|it| it.value.currency() == Some(code)),
                None => all.into_iter().next(),
            }
            .map(|it| it.value)
        }
        Kind::Percent => percents_in(text).into_iter().next().map(|it| it.value),
        Kind::Count => counts_in(text).into_iter().next().map(|it| it.value),
        Kind::Duration => durations_in(text).into_iter().next().map(|it| it.value),
        Kind::Text => {
            let text = text.trim();
            (!text.is_empty()).then(|| Value::Text { text: text.to_owned() })
        }
    }
}

/// Why a user's answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerError {
    /// Nothing of the expected type was found.
    NoValue(Kind),
    /// A money answer was in another currency than the reporting one.
    WrongCurrency {
        /// The currency of the answer.
        found: String,
        /// The reporting currency.
        expected: String,
    },
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerError::NoValue(kind) => write!(f, "no {} value in the answer", kind.name()),
            AnswerError::WrongCurrency { found, expected } => {
                write!(f, "the answer is in {found}, the reporting currency is {expected}")
            }
        }
    }
}

/// Parses a user's answer as a value of `kind`. A bare number is taken as money in `currency`,
/// a percentage, a count or months.
///
/// # Errors
/// No value of the kind, or money in another currency.
pub fn parse_answer(kind: Kind, text: &str, currency: Option<&str>) -> Result<Value, AnswerError> {
    let text = text.trim();
    let explicit = match kind {
        Kind::Money => money_in(text).into_iter().next(),
        Kind::Percent => percents_in(text).into_iter().next(),
        Kind::Duration => durations_in(text).into_iter().next(),
        Kind::Count | Kind::Text => None,
    };
    if let Some(found) = explicit {
        if let (Some(found), Some(expected)) = (found.value.currency(), currency)
            && found != expected
        {
            return Err(AnswerError::WrongCurrency {
                found: found.to_owned(),
                expected: expected.to_owned(),
            });
        }
        return Ok(found.value);
    }
    if kind == Kind::Text {
        return extract(Kind::Text, text, None).ok_or(AnswerError::NoValue(kind));
    }
    let bare = PLAIN
        .captures_iter(text)
        .find_map(|caps| number(caps.get(1)?.as_str(), caps.get(2).map(|it| it.as_str())))
        .ok_or(AnswerError::NoValue(kind))?;
    Ok(match kind {
        Kind::Money => {
            Value::Money { amount: bare, currency: currency.unwrap_or_default().to_owned() }
        }
        Kind::Percent => Value::Percent { percent: bare },
        Kind::Duration => Value::Duration { months: bare },
        _ => Value::Count { count: bare },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(amount: f64, currency: &str) -> Value {
        Value::Money { amount, currency: currency.into() }
    }

    #[test]
    fn a_negative_duration_never_comes() {
        let payback = Value::from_number(Kind::Duration, 45_000.0 / -4_942.3, None);
        assert_eq!(payback.to_string(), "never (the formula gives -9.1051 months)");
        assert_eq!(Value::from_number(Kind::Duration, 9.5, None).to_string(), "9.5 months");
        assert_eq!(Value::from_number(Kind::Duration, 0.0, None).to_string(), "0 months");
    }

    #[test]
    fn money_before_and_after_the_number_with_scales() {
        let text = "Rent is €3,800 a month; fit-out costs EUR 45k, about 52,000 dollars.";
        let found: Vec<_> = money_in(text).into_iter().map(|it| it.value).collect();
        assert_eq!(found, [money(3800.0, "EUR"), money(45000.0, "EUR"), money(52000.0, "USD")]);
        assert_eq!(extract(Kind::Money, text, Some("USD")), Some(money(52000.0, "USD")));
        assert_eq!(extract(Kind::Money, "GBP 14.50 per walk", None), Some(money(14.5, "GBP")));
    }

    #[test]
    fn percents_durations_and_counts_do_not_overlap() {
        let text = "In 2025, 31% of 1,240 households spent £20 over 18 months; 420 cafés.";
        assert_eq!(extract(Kind::Percent, text, None), Some(Value::Percent { percent: 31.0 }));
        assert_eq!(extract(Kind::Duration, text, None), Some(Value::Duration { months: 18.0 }));
        let counts: Vec<_> = counts_in(text).into_iter().map(|it| it.value).collect();
        assert_eq!(counts, [Value::Count { count: 1240.0 }, Value::Count { count: 420.0 }]);
        assert_eq!(
            extract(Kind::Duration, "a 2 year lease", None),
            Some(Value::Duration { months: 24.0 })
        );
    }

    #[test]
    fn answers_take_bare_numbers_in_the_reporting_currency() {
        assert_eq!(parse_answer(Kind::Money, "about 4200", Some("EUR")), Ok(money(4200.0, "EUR")));
        assert_eq!(parse_answer(Kind::Money, "€4.2k", Some("EUR")), Ok(money(4200.0, "EUR")));
        assert_eq!(
            parse_answer(Kind::Money, "$4200", Some("EUR")),
            Err(AnswerError::WrongCurrency { found: "USD".into(), expected: "EUR".into() })
        );
        assert_eq!(parse_answer(Kind::Percent, "12", None), Ok(Value::Percent { percent: 12.0 }));
        assert_eq!(parse_answer(Kind::Count, "26 days", None), Ok(Value::Count { count: 26.0 }));
        assert_eq!(
            parse_answer(Kind::Count, "no idea", None),
            Err(AnswerError::NoValue(Kind::Count))
        );
        assert_eq!(parse_answer(Kind::Text, "  ", None), Err(AnswerError::NoValue(Kind::Text)));
    }

    #[test]
    fn currency_names_symbols_and_codes() {
        assert_eq!(currency_code("€"), Some("EUR"));
        assert_eq!(currency_code(" gbp "), Some("GBP"));
        assert_eq!(currency_code("Pounds"), Some("GBP"));
        assert_eq!(currency_code("doubloons"), None);
    }

    #[test]
    fn formula_numbers_round_trip_through_kinds() {
        assert_eq!(
            Value::from_number(Kind::Percent, 0.125, None),
            Value::Percent { percent: 12.5 }
        );
        assert_eq!(Value::Percent { percent: 12.5 }.number(), Some(0.125));
        assert_eq!(Value::from_number(Kind::Money, 10.005, Some("EUR")).to_string(), "EUR 10.01");
    }
}
