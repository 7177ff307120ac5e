//! Parameter kinds and canonical parameter values.

use std::fmt;
use std::str::FromStr;

/// A parameter kind: one of the built-in kinds of the reference registry, or a kind a registry
/// file declares in `[kinds]` as an instance of a generic extractor type ([`KindType`]).
///
/// Each kind has exactly one deterministic extractor (`planner-extract`) and one SQL bind type.
/// Kinds order as the built-in ones are listed here, then declared ones in file order, so maps
/// keyed by kind iterate the same way for the same registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ParamKind {
    /// A government agency, canonicalised through a dictionary (`Department of the Army`).
    Agency,
    /// A six-digit NAICS code with a valid sector prefix (`541512`).
    Naics,
    /// A lower-case hyphenated UUID.
    Uuid,
    /// A clearance level: `confidential`, `secret`, `top_secret`, `ts_sci`.
    Clearance,
    /// A sorted, deduplicated set of SCI compartment codes (`SI`, `TK`, `G`, `HCS`, `KLM`).
    Compartments,
    /// A SAM.gov Unique Entity ID: 12 upper-case characters.
    Uei,
    /// A window in months.
    Months,
    /// A kind declared by a registry file (`[kinds]`).
    Declared(DeclaredKind),
}

/// A kind declared in a registry file's `[kinds]`: its name and its type. Only a registry makes
/// one (the full declaration is [`crate::Registry::kind_spec`]); kinds are equal, ordered and
/// hashed by name, so a map keyed by kind iterates declared kinds in name order, their order in
/// the registry.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredKind {
    pub(crate) name: &'static str,
    pub(crate) ty: KindType,
}

impl DeclaredKind {
    /// Its name as written in the registry file.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// Its extractor type.
    pub fn ty(self) -> KindType {
        self.ty
    }
}

impl PartialEq for DeclaredKind {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for DeclaredKind {}

impl PartialOrd for DeclaredKind {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DeclaredKind {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name.cmp(other.name)
    }
}

impl std::hash::Hash for DeclaredKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

/// The generic extractor types a registry file declares its kinds with (`[kinds] type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KindType {
    /// Canonical values with aliases and case rules, optionally ranked.
    Dictionary,
    /// A code of a fixed shape, optionally from a list, with cue words.
    Code,
    /// Several values of one dictionary, only after a context word.
    List,
    /// A lower-case hyphenated UUID.
    Uuid,
    /// A length of time in a base unit (days or months).
    Duration,
    /// A day.
    Date,
    /// A half-open range of days.
    DateRange,
    /// A whole number after a cue word.
    Integer,
    /// Free text, only when quoted.
    QuotedText,
}

impl KindType {
    /// Every type, in declaration order.
    pub const ALL: [KindType; 9] = [
        KindType::Dictionary,
        KindType::Code,
        KindType::List,
        KindType::Uuid,
        KindType::Duration,
        KindType::Date,
        KindType::DateRange,
        KindType::Integer,
        KindType::QuotedText,
    ];

    /// The type's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            KindType::Dictionary => "dictionary",
            KindType::Code => "code",
            KindType::List => "list",
            KindType::Uuid => "uuid",
            KindType::Duration => "duration",
            KindType::Date => "date",
            KindType::DateRange => "date_range",
            KindType::Integer => "integer",
            KindType::QuotedText => "quoted_text",
        }
    }

    /// The type named `name`.
    pub fn parse(name: &str) -> Option<KindType> {
        KindType::ALL.into_iter().find(|it| it.as_str() == name)
    }
}

/// The shape of a kind's canonical value, which decides its SQL bind type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueShape {
    /// [`Value::Text`], bound as `text`.
    Text,
    /// [`Value::Text`] holding a UUID, bound as `uuid`.
    Uuid,
    /// [`Value::Text`] holding an ISO day, bound as `text` (cast to `date` in SQL).
    Date,
    /// [`Value::Int`], bound as `int8`.
    Int,
    /// [`Value::List`], bound as `text[]`.
    List,
}

impl ParamKind {
    /// Every built-in kind, in declaration order.
    pub const BUILTIN: [ParamKind; 7] = [
        ParamKind::Agency,
        ParamKind::Naics,
        ParamKind::Uuid,
        ParamKind::Clearance,
        ParamKind::Compartments,
        ParamKind::Uei,
        ParamKind::Months,
    ];

    /// The kind's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            ParamKind::Agency => "agency",
            ParamKind::Naics => "naics",
            ParamKind::Uuid => "uuid",
            ParamKind::Clearance => "clearance",
            ParamKind::Compartments => "compartments",
            ParamKind::Uei => "uei",
            ParamKind::Months => "months",
            ParamKind::Declared(kind) => kind.name,
        }
    }

    /// The position of a built-in kind in [`ParamKind::BUILTIN`], or `None` for a declared one.
    pub const fn builtin_index(self) -> Option<usize> {
        Some(match self {
            ParamKind::Agency => 0,
            ParamKind::Naics => 1,
            ParamKind::Uuid => 2,
            ParamKind::Clearance => 3,
            ParamKind::Compartments => 4,
            ParamKind::Uei => 5,
            ParamKind::Months => 6,
            ParamKind::Declared(_) => return None,
        })
    }

    /// The shape of the kind's canonical value.
    pub const fn shape(self) -> ValueShape {
        match self {
            ParamKind::Months => ValueShape::Int,
            ParamKind::Compartments => ValueShape::List,
            ParamKind::Uuid => ValueShape::Uuid,
            ParamKind::Agency | ParamKind::Naics | ParamKind::Clearance | ParamKind::Uei => {
                ValueShape::Text
            }
            ParamKind::Declared(kind) => match kind.ty {
                KindType::Dictionary | KindType::Code | KindType::QuotedText => ValueShape::Text,
                KindType::Uuid => ValueShape::Uuid,
                KindType::Date => ValueShape::Date,
                KindType::Duration | KindType::Integer => ValueShape::Int,
                KindType::List | KindType::DateRange => ValueShape::List,
            },
        }
    }

    /// Whether the kind names what the question is about (an agency, a code, an id, a
    /// dictionary value or a declared list of them, a quoted name), as opposed to a window, a
    /// count or a qualifier: its words are the value, not the ask ("open vs resolved" says
    /// which statuses, not that resolution times are wanted).
    pub const fn is_anchor(self) -> bool {
        match self {
            ParamKind::Agency | ParamKind::Naics | ParamKind::Uuid | ParamKind::Uei => true,
            ParamKind::Clearance | ParamKind::Compartments | ParamKind::Months => false,
            ParamKind::Declared(kind) => matches!(
                kind.ty,
                KindType::Dictionary
                    | KindType::Code
                    | KindType::Uuid
                    | KindType::QuotedText
                    | KindType::List
            ),
        }
    }

    /// Whether values of the kind are periods: a declared date range.
    pub const fn is_period(self) -> bool {
        matches!(self, ParamKind::Declared(kind) if matches!(kind.ty, KindType::DateRange))
    }

    /// Whether values of the kind are times: durations (the months window too), dates and date
    /// ranges.
    pub const fn is_time(self) -> bool {
        match self {
            ParamKind::Months => true,
            ParamKind::Declared(kind) => {
                matches!(kind.ty, KindType::Duration | KindType::Date | KindType::DateRange)
            }
            _ => false,
        }
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ParamKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for ParamKind {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some(
                "A param kind: agency, naics, uuid, clearance, compartments, uei, months, or a \
                 kind the registry file declares in [kinds].",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for ParamKind {}

/// The error of parsing an unknown kind name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown parameter kind `{}`", self.0)
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for ParamKind {
    type Err = UnknownKind;

    /// A built-in kind by name; declared kinds are found through their registry.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ParamKind::BUILTIN
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

/// The declared kinds' names and types seen in this process. Kinds are `Copy` and printable
/// without their registry, and a checkpointed state names its kinds: a name read back resolves
/// to the type its registry declared. The set grows only by distinct names, a handful per
/// registry file ever loaded.
static DECLARED: std::sync::Mutex<std::collections::BTreeMap<&'static str, KindType>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The declared kind `name` of type `ty`, its name interned.
pub(crate) fn declare(name: &str, ty: KindType) -> DeclaredKind {
    let mut names = DECLARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((&known, seen)) = names.get_key_value(name) {
        if *seen != ty {
            names.insert(known, ty);
        }
        return DeclaredKind { name: known, ty };
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked, ty);
    DeclaredKind { name: leaked, ty }
}

impl<'de> serde::Deserialize<'de> for ParamKind {
    /// A built-in kind by name, or a kind some registry loaded in this process declared.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        if let Ok(builtin) = name.parse::<ParamKind>() {
            return Ok(builtin);
        }
        let names = DECLARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match names.get_key_value(name.as_ref()) {
            Some((&known, &ty)) => Ok(ParamKind::Declared(DeclaredKind { name: known, ty })),
            None => Err(serde::de::Error::custom(format!("unknown parameter kind `{name}`"))),
        }
    }
}

/// A canonical parameter value. Serialises as plain JSON: text as a string, ints as numbers,
/// lists as arrays.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Value {
    /// An integer (months).
    Int(i64),
    /// Text: agency names, NAICS codes, UUIDs, UEIs, enum values.
    Text(String),
    /// A sorted, deduplicated list of enum values (compartments).
    List(Vec<String>),
}

/// [`Value`] under a name that schema derives do not take for `serde_json::Value` (utoipa reads
/// a type named `Value` as any JSON): wire types name it in `value_type`.
pub type ParamValue = Value;

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(s) => f.write_str(s),
            Value::List(items) => f.write_str(&items.join(", ")),
        }
    }
}
