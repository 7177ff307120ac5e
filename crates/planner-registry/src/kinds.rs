//! `[kinds]`: parameter kinds a registry file declares, each an instance of a generic extractor
//! type, checked at load (every mistake reported with its location).

use std::collections::{BTreeMap, BTreeSet};

use toml::Spanned;

use crate::value::{KindType, ParamKind, declare};

/// A declared kind's full declaration (`[kinds.<name>]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindSpec {
    /// The kind, as params and extractions name it.
    pub kind: ParamKind,
    /// The noun a clarifying question uses ("Which region do you mean?").
    pub label: String,
    /// What the extractor looks for.
    pub body: KindBody,
}

/// The per-type part of a declared kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindBody {
    /// `dictionary`: canonical values with aliases; `ordered` when listed lowest rank first.
    Dictionary {
        /// The entries, in file (or CSV) order.
        entries: Vec<Entry>,
        /// Whether the order is a rank.
        ordered: bool,
    },
    /// `code`: tokens of one shape, from a list or after a cue word.
    Code {
        /// `A` a letter, `9` a digit, `X` either; any other character stands for itself, and
        /// `\` makes the next one literal (`R\A-9999999`).
        shape: CodeShape,
        /// The valid codes (upper case) with their titles, when a list was given.
        codes: BTreeMap<String, String>,
        /// Words of which one must come within the two words before a code not in the list.
        cues: Vec<String>,
        /// `bare = "mixed"`: a code holding both a letter and a digit needs no cue (an
        /// identifier no word is spelled like, such as a UEI); one of letters or digits alone
        /// still does.
        bare_mixed: bool,
    },
    /// `list`: several values of one dictionary, only after a context word.
    List {
        /// The entries, in file (or CSV) order: the order of the value's items.
        entries: Vec<Entry>,
        /// Words after which a list is read.
        context: Vec<String>,
    },
    /// `uuid`.
    Uuid,
    /// `duration`: a length of time in its base unit.
    Duration {
        /// The unit of the value.
        unit: DurationUnit,
    },
    /// `date`: one day, as `YYYY-MM-DD`.
    Date,
    /// `date_range`: `[start, end)` as two ISO days, open ends `-infinity` and `infinity`.
    DateRange {
        /// The month (1..=12) a fiscal year starts; fiscal year *n* ends in calendar year *n*.
        fiscal_year_start: u8,
        /// Relative periods ("last year", "year to date", "the past 6 months") are read, as
        /// values resolved against the registry's `as_of` date when a plan runs (see
        /// [`crate::resolve_period`]).
        relative: bool,
    },
    /// `integer`: a whole number right after a cue word.
    Integer {
        /// The cue words or phrases.
        cues: Vec<String>,
    },
    /// `quoted_text`: free text, only inside quotes.
    QuotedText {
        /// The most characters a value may have.
        max_len: usize,
    },
}

impl KindBody {
    /// The generic type this body is an instance of.
    pub fn ty(&self) -> KindType {
        match self {
            KindBody::Dictionary { .. } => KindType::Dictionary,
            KindBody::Code { .. } => KindType::Code,
            KindBody::List { .. } => KindType::List,
            KindBody::Uuid => KindType::Uuid,
            KindBody::Duration { .. } => KindType::Duration,
            KindBody::Date => KindType::Date,
            KindBody::DateRange { .. } => KindType::DateRange,
            KindBody::Integer { .. } => KindType::Integer,
            KindBody::QuotedText { .. } => KindType::QuotedText,
        }
    }
}

/// The base unit of a `duration` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DurationUnit {
    /// Days: a week is 7, a month 30, a quarter 90, a year 365.
    Day,
    /// Months: a quarter is 3, a year 12; weeks and days are not months.
    Month,
}

/// One dictionary value and the ways people write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The canonical value.
    pub value: String,
    /// Its aliases; the canonical value itself is the first, matched in any case.
    pub aliases: Vec<Alias>,
    /// The words of the aliases it shares with other values of its kind (written `?Denver` on
    /// each): a question saying one names any of them, and the user is asked which. The first
    /// value to write such an alias also holds it among its `aliases`.
    pub shared: Vec<Vec<String>>,
    /// How a user is shown the value (a clarifying question's choices): its first alias as
    /// written, its case marker dropped ("Denver airport" of `den_airport`); `None` when no
    /// alias of its own is written.
    pub name: Option<String>,
}

/// One way of writing a dictionary value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// The words, lower case.
    pub words: Vec<String>,
    /// How strictly case is checked outside quotes.
    pub case: CaseRule,
    /// Whether the alias is written as a term no ordinary sentence says by accident (see
    /// [`is_term`]): a list reads such a value without its context word.
    pub term: bool,
}

/// Whether `written` is a term of art by its shape: a word mixing letters and digits ("B2B",
/// "4K") or mixing case past its first letter ("OTAs", "eBay"). All-capital initialisms ("SI",
/// "IT") are not: a question in capitals, or a common word in capitals, writes them too.
///
/// ```
/// use planner_registry::is_term;
/// assert!(is_term("B2B") && is_term("OTAs") && is_term("eBay") && is_term("4K TVs"));
/// assert!(!is_term("SI") && !is_term("Web") && !is_term("agencies") && !is_term("2024"));
/// ```
pub fn is_term(written: &str) -> bool {
    written.split(|c: char| !c.is_alphanumeric()).any(|word| {
        let letters = word.chars().any(char::is_alphabetic);
        let digits = word.chars().any(|c| c.is_ascii_digit());
        let mut rest = word.chars().skip(1);
        let lower = word.chars().any(char::is_lowercase);
        let upper_later = rest.any(char::is_uppercase);
        (letters && digits) || (lower && upper_later)
    })
}

/// How strictly an alias checks case (a leading marker in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CaseRule {
    /// No marker: any case.
    Any,
    /// `=`: every letter upper case.
    Upper,
    /// `^`: first and last letter upper case.
    Acronym,
    /// `~`: capitalised, and not the first word of a sentence.
    Capitalised,
}

/// The case rule of a value or alias as written, and its text without the marker: a leading
/// `=`, `^` or `~`; else, unless `any_case`, a single ordinary English word written in capitals
/// ("SEA", "DEN", "LAX") matches only in capitals, so that "by sea" is no hub; else any case.
fn marked(written: &str, any_case: bool) -> (CaseRule, &str) {
    match written.as_bytes().first() {
        Some(b'=') => (CaseRule::Upper, &written[1..]),
        Some(b'^') => (CaseRule::Acronym, &written[1..]),
        Some(b'~') => (CaseRule::Capitalised, &written[1..]),
        _ if !any_case && ordinary_in_capitals(written) => (CaseRule::Upper, written),
        _ => (CaseRule::Any, written),
    }
}

/// Why a value or alias written `text` under `case` never matches the way it is written: `=` asks for
/// every letter in capitals, so `=RTDs`, written in mixed case, matches "RTDS" and never "RTDs"
/// (`None` when it can; `=cms`, in lower case, only says to match "CMS" in capitals).
fn never_as_written(case: CaseRule, text: &str) -> Option<String> {
    let mixed = text.chars().any(char::is_lowercase) && text.chars().any(char::is_uppercase);
    if case != CaseRule::Upper || !mixed {
        return None;
    }
    let letters: Vec<char> = text.chars().filter(|c| c.is_alphabetic()).collect();
    let ends_upper = letters.first().is_some_and(|c| c.is_uppercase())
        && letters.last().is_some_and(|c| c.is_uppercase());
    let fix = if ends_upper {
        format!("write `^{text}` (first and last letter in capitals)")
    } else {
        "drop the `=` (any case), or write `=` and the alias in capitals only".to_owned()
    };
    Some(format!(
        "`={text}` never matches as written: `=` matches only a word with every letter in \
         capitals (`{}`), and `{text}` has lower-case letters; {fix}",
        text.to_uppercase()
    ))
}

/// Ordinary English words of two to four letters (`data/short-english.txt`), sorted.
static SHORT_ENGLISH: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let mut words: Vec<&str> = include_str!("../data/short-english.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    words.sort_unstable();
    words
});

/// Whether `written` is one ordinary English word written in capitals ("SEA", not "Sea").
pub fn ordinary_in_capitals(written: &str) -> bool {
    written.len() >= 2
        && written.chars().all(|c| c.is_ascii_uppercase())
        && SHORT_ENGLISH.binary_search(&written.to_ascii_lowercase().as_str()).is_ok()
}

/// The words of an alias as the extractors split text: runs of letters and digits, lower case,
/// `&` read as "and".
pub fn alias_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if c == '&' {
                words.push("and".to_owned());
            }
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// How else a dictionary's aliases may be written (`prefixes`, `variants`, `optional`).
#[derive(Debug, Default)]
struct Spelling {
    /// Words that may come before an alias matched in any case ("U.S." before "Army").
    prefixes: Vec<Vec<String>>,
    /// A word of an alias and the words it may be written as instead ("dept" for "department").
    variants: BTreeMap<String, Vec<String>>,
    /// Words an alias may leave out ("Department of Navy").
    optional: Vec<String>,
}

/// The most spellings the rules make of one alias.
const MAX_FORMS: usize = 64;

impl Spelling {
    /// The other ways of writing `alias`, at most [`MAX_FORMS`], never `alias` itself.
    fn forms(&self, alias: &Alias) -> Vec<Alias> {
        let mut forms: Vec<Vec<String>> = vec![Vec::new()];
        for word in &alias.words {
            let mut next = Vec::new();
            for form in &forms {
                let choices =
                    std::iter::once(word).chain(self.variants.get(word).into_iter().flatten());
                for choice in choices {
                    let mut longer = form.clone();
                    longer.push(choice.clone());
                    next.push(longer);
                }
                if self.optional.contains(word) {
                    next.push(form.clone());
                }
            }
            next.truncate(MAX_FORMS);
            forms = next;
        }
        if alias.case == CaseRule::Any {
            let prefixed: Vec<Vec<String>> = forms
                .iter()
                .flat_map(|form| self.prefixes.iter().map(move |p| [p.as_slice(), form].concat()))
                .collect();
            forms.extend(prefixed);
        }
        forms.truncate(MAX_FORMS);
        forms
            .into_iter()
            .filter(|words| !words.is_empty() && *words != alias.words)
            .map(|words| Alias { words, case: alias.case, term: alias.term })
            .collect()
    }
}

fn split(words: &str) -> Vec<String> {
    words.split(' ').map(str::to_owned).collect()
}

/// One `[kinds]` entry as written.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawKind {
    #[serde(rename = "type")]
    ty: Spanned<String>,
    label: Option<Spanned<String>>,
    values: Option<Spanned<Vec<Spanned<RawEntry>>>>,
    csv: Option<Spanned<String>>,
    ordered: Option<Spanned<bool>>,
    context: Option<Spanned<Vec<Spanned<String>>>>,
    shape: Option<Spanned<String>>,
    cues: Option<Spanned<Vec<Spanned<String>>>>,
    bare: Option<Spanned<String>>,
    prefixes: Option<Spanned<Vec<Spanned<String>>>>,
    variants: Option<Spanned<BTreeMap<String, Vec<String>>>>,
    optional: Option<Spanned<Vec<Spanned<String>>>>,
    unit: Option<Spanned<String>>,
    fiscal_year_start: Option<Spanned<i64>>,
    relative: Option<Spanned<bool>>,
    case: Option<Spanned<String>>,
    max_len: Option<Spanned<i64>>,
}

/// One inline dictionary entry.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    value: Spanned<String>,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
}

/// Where a problem is, and what it is.
pub(crate) type Found = (std::ops::Range<usize>, String);

/// Reads a file named beside the registry (a CSV), or says why it cannot.
pub type Files<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// The type a built-in kind is declared with, when a registry declares it (its extractor then
/// comes from the declaration, and the kind keeps its name and meaning).
fn builtin_type(kind: ParamKind) -> Option<KindType> {
    Some(match kind {
        ParamKind::Agency | ParamKind::Clearance => KindType::Dictionary,
        ParamKind::Naics | ParamKind::Uei => KindType::Code,
        ParamKind::Uuid => KindType::Uuid,
        ParamKind::Compartments => KindType::List,
        ParamKind::Months => KindType::Duration,
        ParamKind::Declared(_) => return None,
    })
}

/// Checks every `[kinds]` entry. A built-in kind's name may be declared with that kind's type
/// (and, for `months`, the unit month).
pub(crate) fn validate(
    raw: &BTreeMap<Spanned<String>, Spanned<RawKind>>,
    files: Files<'_>,
    has_as_of: bool,
    problems: &mut Vec<Found>,
) -> Vec<KindSpec> {
    let mut out = Vec::new();
    for (name, kind) in raw {
        let name_text = name.get_ref();
        let raw = kind.get_ref();
        let builtin = ParamKind::BUILTIN.iter().copied().find(|b| b.as_str() == name_text);
        if let Some(builtin) = builtin
            && let Some(expected) = builtin_type(builtin)
            && raw.ty.get_ref() != expected.as_str()
        {
            problems.push((
                raw.ty.span(),
                format!(
                    "kind `{name_text}` is built in: declare it with type {}, or choose another \
                     name",
                    expected.as_str()
                ),
            ));
            continue;
        }
        let Some(ty) = KindType::parse(raw.ty.get_ref()) else {
            let known: Vec<&str> = KindType::ALL.iter().map(|t| t.as_str()).collect();
            problems.push((
                raw.ty.span(),
                format!(
                    "unknown type `{}` of kind `{name_text}`: expected one of {}",
                    raw.ty.get_ref(),
                    known.join(", ")
                ),
            ));
            continue;
        };
        let label = match &raw.label {
            Some(label) if !label.get_ref().trim().is_empty() => label.get_ref().trim().to_owned(),
            Some(label) => {
                problems.push((label.span(), format!("kind `{name_text}`: empty label")));
                String::new()
            }
            None => name_text.replace('_', " "),
        };
        let mut check = KindCheck { name: name_text, ty, whole: kind.span(), problems, files };
        check.allowed(raw);
        let body = match ty {
            KindType::Dictionary => {
                let spelling = check.spelling(raw);
                let entries = check.entries(raw, &spelling);
                KindBody::Dictionary {
                    entries,
                    ordered: raw.ordered.as_ref().is_some_and(|o| *o.get_ref()),
                }
            }
            KindType::List => {
                let entries = check.entries(raw, &Spelling::default());
                let context = check.words(raw.context.as_ref(), "context", true);
                check.aliases_outside_context(&entries, &context, raw);
                KindBody::List { entries, context }
            }
            KindType::Code => check.code(raw, kind.span()),
            KindType::Uuid => KindBody::Uuid,
            KindType::Date => KindBody::Date,
            KindType::Duration => {
                let unit = match raw.unit.as_ref().map(|u| (u, u.get_ref().as_str())) {
                    Some((_, "day")) => DurationUnit::Day,
                    Some((_, "month")) => DurationUnit::Month,
                    Some((u, other)) => {
                        check.problems.push((
                            u.span(),
                            format!(
                                "kind `{name_text}`: unknown unit `{other}`: expected day or month"
                            ),
                        ));
                        DurationUnit::Day
                    }
                    None => {
                        check.problems.push((
                            kind.span(),
                            format!("kind `{name_text}` of type duration needs a `unit`"),
                        ));
                        DurationUnit::Day
                    }
                };
                KindBody::Duration { unit }
            }
            KindType::DateRange => {
                let start = raw.fiscal_year_start.as_ref().map_or(1, |s| *s.get_ref());
                let fiscal_year_start = match u8::try_from(start) {
                    Ok(month @ 1..=12) => month,
                    _ => {
                        let span = raw.fiscal_year_start.as_ref().map_or(kind.span(), |s| s.span());
                        check.problems.push((
                            span,
                            format!(
                                "kind `{name_text}`: fiscal_year_start {start} is not a month 1..12"
                            ),
                        ));
                        1
                    }
                };
                let relative = match &raw.relative {
                    None => has_as_of,
                    Some(relative) if *relative.get_ref() && !has_as_of => {
                        check.problems.push((
                            relative.span(),
                            format!(
                                "kind `{name_text}`: `relative = true` resolves \"last year\" \
                                 against the data's date, and the registry has no `as_of`: add \
                                 `as_of = {{ plane = \"...\", sql = \"SELECT ...\" }}` to \
                                 `[registry]`, or remove `relative`"
                            ),
                        ));
                        false
                    }
                    Some(relative) => *relative.get_ref(),
                };
                KindBody::DateRange { fiscal_year_start, relative }
            }
            KindType::Integer => {
                let cues = check.words(raw.cues.as_ref(), "cues", true);
                KindBody::Integer { cues }
            }
            KindType::QuotedText => {
                let max = raw.max_len.as_ref().map_or(80, |m| *m.get_ref());
                let max_len = match usize::try_from(max) {
                    Ok(len @ 1..=1000) => len,
                    _ => {
                        let span = raw.max_len.as_ref().map_or(kind.span(), |m| m.span());
                        check.problems.push((
                            span,
                            format!("kind `{name_text}`: max_len {max} is not in 1..=1000"),
                        ));
                        80
                    }
                };
                KindBody::QuotedText { max_len }
            }
        };
        if builtin == Some(ParamKind::Months)
            && !matches!(body, KindBody::Duration { unit: DurationUnit::Month })
        {
            check.problems.push((
                kind.span(),
                format!("kind `{name_text}` is built in: declare it with unit month"),
            ));
        }
        let kind = builtin.unwrap_or_else(|| ParamKind::Declared(declare(name_text, ty)));
        out.push(KindSpec { kind, label, body });
    }
    out
}

struct KindCheck<'p, 'f> {
    name: &'p str,
    ty: KindType,
    /// Where the kind is declared: the place of a problem with no key of its own.
    whole: std::ops::Range<usize>,
    problems: &'p mut Vec<Found>,
    files: Files<'f>,
}

impl KindCheck<'_, '_> {
    /// Reports every key the type does not take.
    fn allowed(&mut self, raw: &RawKind) {
        let dictionary = matches!(self.ty, KindType::Dictionary | KindType::List);
        let only_dictionary = self.ty == KindType::Dictionary;
        let keys: [(&str, Option<std::ops::Range<usize>>, bool); 15] = [
            ("case", raw.case.as_ref().map(Spanned::span), dictionary),
            ("prefixes", raw.prefixes.as_ref().map(Spanned::span), only_dictionary),
            ("variants", raw.variants.as_ref().map(Spanned::span), only_dictionary),
            ("optional", raw.optional.as_ref().map(Spanned::span), only_dictionary),
            ("values", raw.values.as_ref().map(Spanned::span), dictionary),
            ("csv", raw.csv.as_ref().map(Spanned::span), dictionary || self.ty == KindType::Code),
            ("ordered", raw.ordered.as_ref().map(Spanned::span), self.ty == KindType::Dictionary),
            ("context", raw.context.as_ref().map(Spanned::span), self.ty == KindType::List),
            ("shape", raw.shape.as_ref().map(Spanned::span), self.ty == KindType::Code),
            (
                "cues",
                raw.cues.as_ref().map(Spanned::span),
                matches!(self.ty, KindType::Code | KindType::Integer),
            ),
            ("bare", raw.bare.as_ref().map(Spanned::span), self.ty == KindType::Code),
            ("unit", raw.unit.as_ref().map(Spanned::span), self.ty == KindType::Duration),
            (
                "fiscal_year_start",
                raw.fiscal_year_start.as_ref().map(Spanned::span),
                self.ty == KindType::DateRange,
            ),
            ("relative", raw.relative.as_ref().map(Spanned::span), self.ty == KindType::DateRange),
            ("max_len", raw.max_len.as_ref().map(Spanned::span), self.ty == KindType::QuotedText),
        ];
        for (key, span, ok) in keys {
            if let (Some(span), false) = (span, ok) {
                self.problems.push((
                    span,
                    format!(
                        "kind `{}`: `{key}` does not apply to type {}",
                        self.name,
                        self.ty.as_str()
                    ),
                ));
            }
        }
    }

    /// A list's value or alias may not hold one of its context words: "family rooms" read as
    /// the value `family` takes the word "rooms" that tells every other value of the list
    /// ("family and deluxe rooms"), so they are no longer read.
    fn aliases_outside_context(&mut self, entries: &[Entry], context: &[String], raw: &RawKind) {
        let place = raw.context.as_ref().map_or_else(|| self.whole.clone(), Spanned::span);
        for entry in entries {
            for alias in &entry.aliases {
                if let Some(word) = alias.words.iter().find(|word| context.contains(word)) {
                    self.problems.push((
                        place.clone(),
                        format!(
                            "kind `{}`: `{}` (of `{}`) holds the context word `{word}`, which \
                             then tells no other value: write it without `{word}`",
                            self.name,
                            alias.words.join(" "),
                            entry.value
                        ),
                    ));
                }
            }
        }
    }

    /// Non-empty lower-case cue or context words.
    fn words(
        &mut self,
        raw: Option<&Spanned<Vec<Spanned<String>>>>,
        key: &str,
        required: bool,
    ) -> Vec<String> {
        let Some(raw) = raw else {
            if required {
                self.problems.push((
                    self.whole.clone(),
                    format!("kind `{}` of type {} needs `{key}`", self.name, self.ty.as_str()),
                ));
            }
            return Vec::new();
        };
        if required && raw.get_ref().is_empty() {
            self.problems.push((raw.span(), format!("kind `{}`: `{key}` is empty", self.name)));
        }
        let mut out = Vec::new();
        for word in raw.get_ref() {
            let words = alias_words(word.get_ref());
            if words.is_empty() {
                self.problems.push((
                    word.span(),
                    format!("kind `{}`: `{key}` entry `{}` has no word", self.name, word.get_ref()),
                ));
            } else {
                out.push(words.join(" "));
            }
        }
        out
    }

    /// A dictionary's spelling rules: `prefixes`, `variants` (one word for one word) and
    /// `optional` words.
    fn spelling(&mut self, raw: &RawKind) -> Spelling {
        let prefixes =
            self.words(raw.prefixes.as_ref(), "prefixes", false).iter().map(|p| split(p)).collect();
        let optional = self.words(raw.optional.as_ref(), "optional", false);
        let mut variants = BTreeMap::new();
        if let Some(raw) = &raw.variants {
            for (word, alternatives) in raw.get_ref() {
                let one = |text: &str| match alias_words(text).as_slice() {
                    [word] => Some(word.clone()),
                    _ => None,
                };
                let Some(key) = one(word) else {
                    self.problems.push((
                        raw.span(),
                        format!(
                            "kind `{}`: variants of `{word}`: `{word}` is not one word",
                            self.name
                        ),
                    ));
                    continue;
                };
                let mut spelled = Vec::new();
                for alternative in alternatives {
                    match one(alternative) {
                        Some(alternative) if alternative != key => spelled.push(alternative),
                        _ => self.problems.push((
                            raw.span(),
                            format!(
                                "kind `{}`: variant `{alternative}` of `{word}` is not one other word",
                                self.name
                            ),
                        )),
                    }
                }
                variants.insert(key, spelled);
            }
        }
        Spelling { prefixes, variants, optional }
    }

    /// A dictionary's entries, inline or from its CSV, each alias also in the ways `spelling`
    /// allows: every alias written claimed by one value only (one the rules make, claimed
    /// already, stays with the value that claimed it first).
    fn entries(&mut self, raw: &RawKind, spelling: &Spelling) -> Vec<Entry> {
        let mut written: Vec<(String, Vec<String>, std::ops::Range<usize>)> = Vec::new();
        match (&raw.values, &raw.csv) {
            (Some(_), Some(csv)) => {
                self.problems.push((
                    csv.span(),
                    format!("kind `{}`: write `values` or `csv`, not both", self.name),
                ));
            }
            (None, None) => {
                self.problems.push((
                    self.whole.clone(),
                    format!(
                        "kind `{}` of type {} needs `values` or `csv`",
                        self.name,
                        self.ty.as_str()
                    ),
                ));
            }
            (Some(values), None) => {
                for entry in values.get_ref() {
                    let entry = entry.get_ref();
                    written.push((
                        entry.value.get_ref().clone(),
                        entry.aliases.iter().map(|a| a.get_ref().clone()).collect(),
                        entry.value.span(),
                    ));
                }
            }
            (None, Some(csv)) => {
                if let Some(rows) = self.csv(csv, &["value", "aliases"]) {
                    for (line, row) in rows {
                        let aliases = row
                            .get(1)
                            .map(|a| {
                                a.split('|')
                                    .map(str::trim)
                                    .filter(|a| !a.is_empty())
                                    .map(str::to_owned)
                                    .collect()
                            })
                            .unwrap_or_default();
                        let value = row.first().cloned().unwrap_or_default();
                        if value.trim().is_empty() {
                            self.problems.push((
                                csv.span(),
                                format!(
                                    "kind `{}`: {}:{line}: empty value",
                                    self.name,
                                    csv.get_ref()
                                ),
                            ));
                            continue;
                        }
                        written.push((value, aliases, csv.span()));
                    }
                }
            }
        }
        if written.is_empty() && raw.values.is_some() {
            self.problems.push((self.whole.clone(), format!("kind `{}` has no values", self.name)));
        }
        let any_case = match &raw.case {
            None => false,
            Some(case) if case.get_ref() == "any" => true,
            Some(case) => {
                self.problems.push((
                    case.span(),
                    format!(
                        "kind `{}`: unknown `case = \"{}\"`: expected \"any\" (every value and \
                         alias without a marker matches in any case, ordinary English words \
                         written in capitals too)",
                        self.name,
                        case.get_ref()
                    ),
                ));
                false
            }
        };
        let mut claimed: BTreeMap<Vec<String>, String> = BTreeMap::new();
        // The aliases written shared (`?Denver`): every value writing one so may claim it.
        let mut shareable: BTreeSet<Vec<String>> = BTreeSet::new();
        let mut entries: Vec<Entry> = Vec::new();
        let mut made: Vec<Vec<Alias>> = Vec::new();
        for (value, aliases, span) in written {
            if value.is_empty() || value.trim() != value {
                self.problems
                    .push((span, format!("kind `{}`: malformed value `{value}`", self.name)));
                continue;
            }
            if entries.iter().any(|e| e.value == value) {
                self.problems
                    .push((span, format!("kind `{}`: duplicate value `{value}`", self.name)));
                continue;
            }
            let mut spelled = Vec::new();
            let mut shares: Vec<Vec<String>> = Vec::new();
            let mut name = None;
            for alias in aliases {
                let (alias, shared) = match alias.strip_prefix('?') {
                    Some(rest) => (rest.to_owned(), true),
                    None => (alias, false),
                };
                let (case, text) = marked(&alias, any_case);
                if !shared && name.is_none() && !text.trim().is_empty() {
                    name = Some(text.trim().to_owned());
                }
                if let Some(problem) = never_as_written(case, text) {
                    let problem = format!("kind `{}`: alias {problem}", self.name);
                    self.problems.push((span.clone(), problem));
                }
                let words = alias_words(text);
                // Punctuation is no word: an alias of digits alone reads every such number.
                if !words.is_empty() && words.iter().all(|w| w.bytes().all(|b| b.is_ascii_digit()))
                {
                    let number = words.join(" ");
                    self.problems.push((
                        span.clone(),
                        format!(
                            "kind `{}`: alias `{text}` of `{value}` is the number {number} once \
                             its punctuation is dropped, so every \"{number}\" of a question (a \
                             top {number}, a {number}-day window) would read as `{value}`; write \
                             it with a word (`no {number}`, `grade {number}`)",
                            self.name
                        ),
                    ));
                }
                if shared {
                    shares.push(words.clone());
                }
                spelled.push(Alias { words, case, term: is_term(text) });
            }
            // The canonical value matches in any case, unless it carries a marker ("=SEA"), is
            // an ordinary English word written in capitals, or an alias of the same words
            // restricts it ("~South" for the value "south").
            let (case, bare) = marked(&value, any_case);
            if let Some(problem) = never_as_written(case, bare) {
                let problem = format!("kind `{}`: value {problem}", self.name);
                self.problems.push((span.clone(), problem));
            }
            let value = bare.to_owned();
            let canonical = alias_words(&value);
            if !spelled.iter().any(|a| a.words == canonical) {
                spelled.insert(0, Alias { words: canonical, case, term: is_term(&value) });
            }
            made.push(spelled.iter().flat_map(|alias| spelling.forms(alias)).collect::<Vec<_>>());
            let mut aliases = Vec::new();
            let mut shared = Vec::new();
            for alias in spelled {
                if alias.words.is_empty() {
                    self.problems.push((
                        span.clone(),
                        format!("kind `{}`: an alias of `{value}` has no word", self.name),
                    ));
                    continue;
                }
                let shares = shares.contains(&alias.words);
                match claimed.get(&alias.words) {
                    Some(owner) if *owner != value => {
                        if shares && shareable.contains(&alias.words) {
                            shared.push(alias.words);
                        } else {
                            self.problems.push((
                                span.clone(),
                                format!(
                                    "kind `{}`: alias `{}` is claimed by both `{owner}` and \
                                     `{value}` (a name several values share is written `?{}` \
                                     on each, and the user is asked which)",
                                    self.name,
                                    alias.words.join(" "),
                                    alias.words.join(" ")
                                ),
                            ));
                        }
                    }
                    Some(_) => {}
                    None => {
                        claimed.insert(alias.words.clone(), value.clone());
                        if shares {
                            shareable.insert(alias.words.clone());
                            shared.push(alias.words.clone());
                        }
                        aliases.push(alias);
                    }
                }
            }
            entries.push(Entry { value, aliases, shared, name });
        }
        // The spellings the rules make, after every alias written has its value.
        for (entry, made) in entries.iter_mut().zip(made) {
            for alias in made {
                if !claimed.contains_key(&alias.words) {
                    claimed.insert(alias.words.clone(), entry.value.clone());
                    entry.aliases.push(alias);
                }
            }
        }
        entries
    }

    /// A `code` kind: a shape some code can match, the list's codes all of that shape.
    fn code(&mut self, raw: &RawKind, whole: std::ops::Range<usize>) -> KindBody {
        let shape = match &raw.shape {
            Some(shape) => {
                let text = shape.get_ref();
                match CodeShape::parse(text) {
                    Err(err) => {
                        self.problems.push((shape.span(), format!("kind `{}`: {err}", self.name)));
                        CodeShape::default()
                    }
                    Ok(parsed) if !parsed.varies() || text.len() > 64 => {
                        self.problems.push((
                            shape.span(),
                            format!(
                                "kind `{}`: shape `{text}` has no `A`, `9` or `X`: no code can \
                                 match it (a literal A, 9 or X is written `\\A`)",
                                self.name
                            ),
                        ));
                        parsed
                    }
                    Ok(_) if text.chars().any(char::is_whitespace) => {
                        self.problems.push((
                            shape.span(),
                            format!(
                                "kind `{}`: shape `{text}` has a blank: a code is one word",
                                self.name
                            ),
                        ));
                        CodeShape::default()
                    }
                    Ok(parsed) => parsed,
                }
            }
            None => {
                self.problems.push((
                    whole.clone(),
                    format!("kind `{}` of type code needs a `shape`", self.name),
                ));
                CodeShape::default()
            }
        };
        let cues = self.words(raw.cues.as_ref(), "cues", false);
        let mut codes = BTreeMap::new();
        if let Some(csv) = &raw.csv
            && let Some(rows) = self.csv(csv, &["code", "title"])
        {
            for (line, row) in rows {
                let code = row.first().map(|c| c.trim().to_uppercase()).unwrap_or_default();
                if !shape.is_empty() && !shape.matches(code.as_bytes()) {
                    self.problems.push((
                        csv.span(),
                        format!(
                            "kind `{}`: {}:{line}: code `{code}` does not have the shape `{shape}`",
                            self.name,
                            csv.get_ref()
                        ),
                    ));
                    continue;
                }
                if codes.insert(code.clone(), row.get(1).cloned().unwrap_or_default()).is_some() {
                    self.problems.push((
                        csv.span(),
                        format!(
                            "kind `{}`: {}:{line}: code `{code}` listed twice",
                            self.name,
                            csv.get_ref()
                        ),
                    ));
                }
            }
        }
        if cues.is_empty() && raw.csv.is_none() && raw.cues.is_some() {
            self.problems.push((whole.clone(), format!("kind `{}`: `cues` is empty", self.name)));
        }
        let bare_mixed = match &raw.bare {
            None => false,
            Some(bare) if bare.get_ref() == "mixed" => {
                // A shape whose every position is a letter, or every one a digit, never mixes.
                // Literal letters and digits count: every code of `SH-999999` holds both.
                let can_mix = shape.can_mix() || shape.is_empty();
                if !can_mix {
                    let only = if shape.holds_letters() { "letters" } else { "digits" };
                    self.problems.push((
                        bare.span(),
                        format!(
                            "kind `{}`: `bare = \"mixed\"` reads codes holding letters and digits, \
                             and every code of shape `{shape}` holds only {only}: remove `bare` and \
                             list the codes (`csv`) or give the words that announce one (`cues = \
                             [\"{}\"]`)",
                            self.name,
                            self.name.replace('_', " ")
                        ),
                    ));
                }
                true
            }
            Some(bare) => {
                self.problems.push((
                    bare.span(),
                    format!(
                        "kind `{}`: unknown `bare = \"{}\"`: expected \"mixed\"",
                        self.name,
                        bare.get_ref()
                    ),
                ));
                false
            }
        };
        KindBody::Code { shape, codes, cues, bare_mixed }
    }

    /// The rows of a CSV beside the registry, after a header that must start with `header`,
    /// each with its 1-based line number. `None` (reported) when it does not load.
    fn csv(&mut self, csv: &Spanned<String>, header: &[&str]) -> Option<Vec<(usize, Vec<String>)>> {
        let name = csv.get_ref();
        let text = match (self.files)(name) {
            Ok(text) => text,
            Err(why) => {
                self.problems.push((
                    csv.span(),
                    format!("kind `{}`: the CSV `{name}` does not load: {why}", self.name),
                ));
                return None;
            }
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let found: Vec<String> = match reader.headers() {
            Ok(found) => found.iter().map(str::to_owned).collect(),
            Err(err) => {
                self.problems.push((
                    csv.span(),
                    format!("kind `{}`: the CSV `{name}` does not load: {err}", self.name),
                ));
                return None;
            }
        };
        if found.first().map(String::as_str) != header.first().copied() {
            self.problems.push((
                csv.span(),
                format!(
                    "kind `{}`: the CSV `{name}` does not load: its header must be `{}`, found `{}`",
                    self.name,
                    header.join(","),
                    found.join(",")
                ),
            ));
            return None;
        }
        let mut rows = Vec::new();
        for record in reader.records() {
            match record {
                Ok(record) => {
                    let line = record.position().map_or(0, |p| p.line());
                    let line = usize::try_from(line).unwrap_or(usize::MAX);
                    rows.push((line, record.iter().map(str::to_owned).collect()));
                }
                Err(err) => {
                    self.problems.push((
                        csv.span(),
                        format!("kind `{}`: the CSV `{name}` does not load: {err}", self.name),
                    ));
                    return None;
                }
            }
        }
        Some(rows)
    }
}

/// A code kind's shape, read once: each byte of a code a letter (`A`), a digit (`9`), either
/// (`X`) or itself; `\` before a character makes it literal, so a shape can hold the letters
/// `A` and `X` and the digit `9` (`R\A-9999999` is every code of `RA-` and seven digits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeShape {
    /// As the registry wrote it.
    text: String,
    /// One slot per byte of a code.
    slots: Box<[Slot]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Letter,
    Digit,
    Either,
    Literal(u8),
}

impl CodeShape {
    /// Reads `text`; a trailing `\` with nothing to escape is an error.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut slots = Vec::with_capacity(text.len());
        let mut bytes = text.bytes();
        while let Some(b) = bytes.next() {
            slots.push(match b {
                b'A' => Slot::Letter,
                b'9' => Slot::Digit,
                b'X' => Slot::Either,
                b'\\' => match bytes.next() {
                    Some(escaped) => Slot::Literal(escaped.to_ascii_uppercase()),
                    None => {
                        return Err(format!(
                            "shape `{text}` ends in `\\`: escape a character (`\\A`)"
                        ));
                    }
                },
                other => Slot::Literal(other.to_ascii_uppercase()),
            });
        }
        Ok(Self { text: text.to_owned(), slots: slots.into() })
    }

    /// The shape as the registry wrote it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The length in bytes of every code of this shape.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no code can have this shape (it is empty).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Whether `code` has the shape, its letters in any case.
    pub fn matches(&self, code: &[u8]) -> bool {
        self.slots.len() == code.len()
            && self.slots.iter().zip(code).all(|(slot, &c)| match *slot {
                Slot::Letter => c.is_ascii_alphabetic(),
                Slot::Digit => c.is_ascii_digit(),
                Slot::Either => c.is_ascii_alphanumeric(),
                Slot::Literal(l) => l == c.to_ascii_uppercase(),
            })
    }

    /// Whether the shape has a position for a letter, a digit or either (else it is one fixed
    /// text, and no code varies).
    pub fn varies(&self) -> bool {
        self.slots.iter().any(|s| !matches!(s, Slot::Literal(_)))
    }

    /// Whether every code of the shape holds a letter and a digit, or could (an `X`): what
    /// `bare = "mixed"` reads. Literal letters and digits count: every code of `SH-999999` mixes.
    pub fn can_mix(&self) -> bool {
        self.slots.contains(&Slot::Either) || (self.holds_letters() && self.holds_digits())
    }

    /// Whether every code of the shape holds a letter (else digits alone).
    pub fn holds_letters(&self) -> bool {
        self.slots.iter().any(|s| {
            matches!(s, Slot::Letter) || matches!(s, Slot::Literal(l) if l.is_ascii_alphabetic())
        })
    }

    /// Whether every code of the shape holds a digit.
    fn holds_digits(&self) -> bool {
        self.slots.iter().any(|s| {
            matches!(s, Slot::Digit) || matches!(s, Slot::Literal(l) if l.is_ascii_digit())
        })
    }

    /// The length in bytes of a code's first word, when the shape decides it: its leading run of
    /// letters and digits, followed by an ASCII separator or the end.
    pub fn head_len(&self) -> Option<usize> {
        let len = self
            .slots
            .iter()
            .take_while(|s| !matches!(s, Slot::Literal(l) if !l.is_ascii_alphanumeric()))
            .count();
        let next_ascii = match self.slots.get(len) {
            None => true,
            Some(Slot::Literal(l)) => l.is_ascii(),
            Some(_) => true,
        };
        (len > 0 && next_ascii).then_some(len)
    }
}

impl std::fmt::Display for CodeShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}
