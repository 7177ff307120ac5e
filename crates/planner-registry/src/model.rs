//! The frozen registry: settings, planes, params and intents, addressed by validated ids.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::kinds::{DurationUnit, KindBody, KindSpec};
use crate::value::{KindType, ParamKind, Value, ValueShape};

/// A loaded, validated registry. Frozen: cloning shares one allocation, and nothing in it can
/// change after [`Registry::from_toml`] returned it.
#[derive(Debug, Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) settings: Settings,
    pub(crate) planes: Vec<Plane>,
    pub(crate) params: Vec<Param>,
    pub(crate) intents: Vec<Intent>,
    pub(crate) by_name: BTreeMap<String, IntentId>,
    /// Each param by its kind and role (`None`: no role).
    pub(crate) param_by_kind: ParamsByKind,
    /// The kinds the file declares (`[kinds]`), in name order.
    pub(crate) kinds: Vec<KindSpec>,
    /// What the registry answers, in one sentence (`[registry] help`).
    pub(crate) help: Option<String>,
    /// The query that reads the data's own "today" (`[registry] as_of`).
    pub(crate) as_of: Option<AsOf>,
    /// Per param (by index): the query intents with a column that provides it, in order.
    pub(crate) providers: Vec<Vec<IntentId>>,
}

/// The declared params by kind and role (`None`: no role).
pub(crate) type ParamsByKind = BTreeMap<(ParamKind, Option<Role>), ParamId>;

/// The id of an intent in one registry: its position in declaration order. Only a registry
/// makes one, so an id always names an intent of the registry that issued it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IntentId(pub(crate) u32);

/// The id of a declared param: its position in the `[params]` table, in name order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParamId(pub(crate) u16);

/// The id of a declared plane: its position in the `[planes]` table, in name order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlaneId(pub(crate) u16);

/// The fan-out cap of a registry that does not set `fan_out`.
pub const DEFAULT_FAN_OUT: usize = 10;

/// The largest `fan_out` a registry may set.
pub const MAX_FAN_OUT: usize = 100;

/// Registry-wide settings (`[registry]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The most nodes a plan may have.
    pub node_cap: usize,
    /// The most values one edge may fan out to: a downstream node runs once per distinct value
    /// of its upstream column, up to this many (`[registry] fan_out`, default
    /// [`DEFAULT_FAN_OUT`]; 1 runs only on a single value).
    pub fan_out: usize,
    /// The suppression threshold of count intents that do not set their own.
    pub default_k: u32,
    /// The schemas SQL may name, lower case.
    pub allowed_schemas: Vec<String>,
    /// The scope names intents and planes may require.
    pub scopes: Vec<String>,
}

/// The query that reads the date the data was taken, its own "today" (`[registry] as_of`): the
/// anchor of every intent window. One row, one `date` column; no params.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsOf {
    /// The plane it runs on (not a counting one).
    pub plane: PlaneId,
    /// The SQL, guarded like an intent's on its plane's schemas.
    pub sql: String,
}

/// Which way an intent's window of months runs from the data's "today" (an intent's `window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WindowDirection {
    /// `past`: the months up to it.
    Past,
    /// `ahead`: the months from it on.
    Ahead,
}

impl WindowDirection {
    /// The direction's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            WindowDirection::Past => "past",
            WindowDirection::Ahead => "ahead",
        }
    }
}

/// The unit of a numeric column (a column's `unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// `usd`: an amount of US dollars.
    Usd,
}

impl Unit {
    /// The unit's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            Unit::Usd => "usd",
        }
    }
}

/// How the intents of a plane run (`[planes]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plane {
    /// The plane's name.
    pub name: String,
    /// Rows belong to a tenant: run in a tenant transaction with row-level security.
    pub tenant: bool,
    /// Counts only: each intent has a suppression spec and runs through the suppressing executor.
    pub counts: bool,
    /// Whether its rows are the user's workforce (employees, candidates, drivers...), when the
    /// file says: `Some(true)`, no intent of it may return them ordered by a measure or cut to a
    /// top N unless the plane counts; `Some(false)`, its rows are not people at work; `None`,
    /// the file does not say (`planner registry check` then warns about an intent that ranks
    /// rows named by a word for workers).
    pub workforce: Option<bool>,
    /// The scope every intent of the plane needs.
    pub scope: Option<String>,
    /// The schemas its intents may read (lower case, each one of `allowed_schemas`): the guard
    /// rejects a table or function of any other schema.
    pub schemas: Vec<String>,
    /// Nouns for the people its rows are about (`people`, lower case): the screen refuses
    /// questions about their protected attributes.
    pub people: Vec<String>,
}

impl Plane {
    /// Whether the file declares its rows the user's workforce (`workforce = true`).
    pub fn is_workforce(&self) -> bool {
        self.workforce == Some(true)
    }
}

/// A declared param (`[params]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The param's name, as in `args` and edges.
    pub name: String,
    /// Its kind: the extractor that produces it and its SQL type.
    pub kind: ParamKind,
    /// The allowed canonical values of an enum kind; empty for the others.
    pub values: Vec<String>,
    /// Which end of a directed pair it is (`role`), for two params of one kind told apart by
    /// the question's words ("from Seattle to Denver"); `None` for an ordinary param.
    pub role: Option<Role>,
}

/// The end of a directed pair a param stands for (a param's `role`): the closed set of roles
/// by which an intent may hold two params of one kind. English names the ends with source
/// prepositions ("from", "out of", "leaving") and goal prepositions ("to", "into", "bound
/// for"); planner-extract reads them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// `from`: the source end (an origin).
    From,
    /// `to`: the goal end (a destination).
    To,
}

impl Role {
    /// Every role, in declaration order.
    pub const ALL: [Role; 2] = [Role::From, Role::To];

    /// The role's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::From => "from",
            Role::To => "to",
        }
    }

    /// The role named `name` as written in registry files.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == name)
    }

    /// The other end of the pair.
    pub const fn other(self) -> Role {
        match self {
            Role::From => Role::To,
            Role::To => Role::From,
        }
    }

    /// The noun for the end in questions to the user: `origin` or `destination`.
    pub const fn noun(self) -> &'static str {
        match self {
            Role::From => "origin",
            Role::To => "destination",
        }
    }

    /// Whether values of `kind` may be told apart by role. A role is read from the words
    /// around a value's position, so the value must name one thing that can be an end: a
    /// dictionary value (a place, a party), a code or a quoted name. Numbers and lengths
    /// (`integer`, `duration`, the built-in `months`) are quantities, where "from 3 to 5" is a
    /// range, not two ends; a `date` or `date_range` reads "from March to May" as one period
    /// itself; a `list` already gathers several values into one set, in its dictionary's order,
    /// not the question's; and a `uuid` is an opaque record id, claimed before the words around
    /// it are read, that no question routes between.
    pub const fn suits(kind: ParamKind) -> bool {
        match kind {
            ParamKind::Agency | ParamKind::Naics | ParamKind::Clearance | ParamKind::Uei => true,
            ParamKind::Uuid | ParamKind::Compartments | ParamKind::Months => false,
            ParamKind::Declared(kind) => {
                matches!(kind.ty, KindType::Dictionary | KindType::Code | KindType::QuotedText)
            }
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One intent (`[[intent]]`), query or composite.
#[derive(Debug, Clone, PartialEq)]
pub struct Intent {
    /// The intent's id in its registry.
    pub id: IntentId,
    /// The unique name.
    pub name: String,
    /// One sentence for people and proposers.
    pub description: String,
    /// Words that point at this intent.
    pub keywords: Vec<String>,
    /// Questions this intent answers, as its users ask them: what the proposer learns the
    /// domain's phrasings from (its values are read as values, not as words of the intent).
    pub examples: Vec<String>,
    /// The params, in placeholder order (entry `n - 1` binds `$n`).
    pub params: Vec<IntentParam>,
    /// What the intent is: a guarded query or a fixed sub-plan.
    pub body: IntentBody,
}

/// What an intent is.
#[derive(Debug, Clone, PartialEq)]
pub enum IntentBody {
    /// One guarded SQL query.
    Query(QueryIntent),
    /// A fixed sub-plan of other intents.
    Composite(Composite),
}

/// A query intent's definition.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryIntent {
    /// The plane it runs on.
    pub plane: PlaneId,
    /// The scopes it needs: its plane's and its own, sorted, without repeats.
    pub scopes: Vec<String>,
    /// The SQL text, with `$1..$n` placeholders, as written in the file.
    pub sql: String,
    /// The output columns, in `SELECT` order.
    pub columns: Vec<Column>,
    /// The suppression spec; present exactly when the plane counts.
    pub suppression: Option<Suppression>,
    /// The window of months the rows cover and which way it runs from the data's "today"; the
    /// intent's `months` param gives its length.
    pub window: Option<WindowDirection>,
}

/// A composite intent's fixed sub-plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composite {
    /// The member intents, as declared.
    pub members: Vec<IntentId>,
    /// The edges between members.
    pub edges: Vec<CompositeEdge>,
}

/// A declared edge of a composite: `from`'s output `column` binds `to`'s `param`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompositeEdge {
    /// The providing member.
    pub from: IntentId,
    /// The index of the providing column in `from`'s columns.
    pub column: usize,
    /// The receiving member.
    pub to: IntentId,
    /// The bound param.
    pub param: ParamId,
}

/// An intent's use of a declared param.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntentParam {
    /// The declared param.
    pub param: ParamId,
    /// The param's kind (copied from the declaration).
    pub kind: ParamKind,
    /// The param's role (copied from the declaration).
    pub role: Option<Role>,
    /// Required, or optional with a default.
    pub requirement: Requirement,
}

/// Whether a param must be supplied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// The intent cannot run without it.
    Required,
    /// The default applies when the param is not available.
    Optional {
        /// The canonical default value.
        default: Value,
        /// The inclusive range a bound integer value is clamped into.
        range: Option<(i64, i64)>,
    },
}

/// An output column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's name, as the SQL returns it.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// The param its values can bind in other intents.
    pub provides: Option<ParamId>,
    /// The unit of a numeric column's values.
    pub unit: Option<Unit>,
}

/// The closed set of output column types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ColumnType {
    /// `text`.
    Text,
    /// `int`: a 64-bit integer.
    Int,
    /// `decimal`: an exact number.
    Decimal,
    /// `date`.
    Date,
    /// `timestamp`.
    Timestamp,
    /// `bool`.
    Bool,
    /// `uuid`.
    Uuid,
    /// `text_list`: an array of text.
    TextList,
}

/// A count intent's suppression spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// Indexes of the count columns in the intent's columns.
    pub count_columns: Vec<usize>,
    /// Counts from 1 to `k - 1` are suppressed.
    pub k: u32,
    /// Indexes of the text label columns that split each shown row into disjoint, fixed cells
    /// (empty: every row is its own cell). Each cell is suppressed on its own; a shown row sums
    /// its cells and is withheld when any of them is suppressed, and these columns are dropped.
    pub sum_over: Vec<usize>,
}

impl QueryIntent {
    /// The columns an answer shows: the output columns less the suppression's `sum_over` ones.
    pub fn shown_columns(&self) -> impl Iterator<Item = &Column> {
        let summed = self.suppression.as_ref().map_or(&[][..], |it| it.sum_over.as_slice());
        self.columns.iter().enumerate().filter(move |(i, _)| !summed.contains(i)).map(|(_, c)| c)
    }
}

impl IntentId {
    /// The position in declaration order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl ParamId {
    /// The position in the `[params]` table, in name order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl PlaneId {
    /// The position in the `[planes]` table, in name order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl ColumnType {
    /// Every type, in declaration order.
    pub const ALL: [ColumnType; 8] = [
        ColumnType::Text,
        ColumnType::Int,
        ColumnType::Decimal,
        ColumnType::Date,
        ColumnType::Timestamp,
        ColumnType::Bool,
        ColumnType::Uuid,
        ColumnType::TextList,
    ];

    /// The type's name as written in registry files.
    pub const fn as_str(self) -> &'static str {
        match self {
            ColumnType::Text => "text",
            ColumnType::Int => "int",
            ColumnType::Decimal => "decimal",
            ColumnType::Date => "date",
            ColumnType::Timestamp => "timestamp",
            ColumnType::Bool => "bool",
            ColumnType::Uuid => "uuid",
            ColumnType::TextList => "text_list",
        }
    }

    /// Parses a type name as written in registry files.
    pub fn from_name(name: &str) -> Option<ColumnType> {
        ColumnType::ALL.into_iter().find(|ty| ty.as_str() == name)
    }

    /// Whether a column of this type can provide a param of `kind`.
    pub const fn can_provide(self, kind: ParamKind) -> bool {
        match kind.shape() {
            ValueShape::Text => matches!(self, ColumnType::Text),
            ValueShape::Uuid => matches!(self, ColumnType::Uuid | ColumnType::Text),
            ValueShape::Date => matches!(self, ColumnType::Date | ColumnType::Text),
            ValueShape::Int => matches!(self, ColumnType::Int),
            ValueShape::List => matches!(self, ColumnType::TextList),
        }
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Registry {
    pub(crate) fn from_inner(inner: Inner) -> Registry {
        Registry { inner: Arc::new(inner) }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The query that reads the date the data was taken, when the registry declares one.
    pub fn as_of(&self) -> Option<&AsOf> {
        self.inner.as_of.as_ref()
    }

    /// The most nodes a plan may have.
    pub fn node_cap(&self) -> usize {
        self.inner.settings.node_cap
    }

    /// The most values one edge may fan out to (see [`Settings::fan_out`]).
    pub fn fan_out(&self) -> usize {
        self.inner.settings.fan_out
    }

    /// The id of the intent with this exact name. This is the one place a raw name becomes an
    /// id: call it at the boundary.
    pub fn intent_id(&self, name: &str) -> Option<IntentId> {
        self.inner.by_name.get(name).copied()
    }

    /// The intent with this id.
    pub fn intent(&self, id: IntentId) -> &Intent {
        &self.inner.intents[id.index()]
    }

    /// Every intent, in declaration order.
    pub fn intents(&self) -> &[Intent] {
        &self.inner.intents
    }

    /// The number of intents.
    pub fn len(&self) -> usize {
        self.inner.intents.len()
    }

    /// Whether the registry has no intent.
    pub fn is_empty(&self) -> bool {
        self.inner.intents.is_empty()
    }

    /// The declared param with this id.
    pub fn param(&self, id: ParamId) -> &Param {
        &self.inner.params[id.index()]
    }

    /// Every declared param, in name order.
    pub fn params(&self) -> &[Param] {
        &self.inner.params
    }

    /// The kinds the file declares in `[kinds]`, in name order (built-in kinds are not listed).
    pub fn kinds(&self) -> &[KindSpec] {
        &self.inner.kinds
    }

    /// The unit of a kind that measures a length of time (what an intent's window is bound
    /// with): months for the built-in `months`, a `duration` kind's own unit; `None` for any
    /// other kind.
    pub fn duration_unit(&self, kind: ParamKind) -> Option<DurationUnit> {
        match kind {
            ParamKind::Months => Some(DurationUnit::Month),
            ParamKind::Declared(_) => match self.kind_spec(kind)?.body {
                KindBody::Duration { unit } => Some(unit),
                _ => None,
            },
            _ => None,
        }
    }

    /// The declaration of a kind this registry declares (a kind of its own, or a built-in
    /// kind it declares with that kind's type); `None` for a built-in kind it does not declare.
    pub fn kind_spec(&self, kind: ParamKind) -> Option<&KindSpec> {
        self.inner
            .kinds
            .binary_search_by(|spec| spec.kind.as_str().cmp(kind.as_str()))
            .ok()
            .and_then(|at| self.inner.kinds.get(at))
            .filter(|spec| spec.kind == kind)
    }

    /// The kind named `name`: built in, or declared by this registry.
    pub fn kind_named(&self, name: &str) -> Option<ParamKind> {
        name.parse::<ParamKind>()
            .ok()
            .or_else(|| self.inner.kinds.iter().map(|k| k.kind).find(|k| k.as_str() == name))
    }

    /// What the registry answers, in one sentence (`[registry] help`), if the file says.
    pub fn help(&self) -> Option<&str> {
        self.inner.help.as_deref()
    }

    /// The param declared with this kind and no role, if any (each kind has at most one).
    pub fn param_of_kind(&self, kind: ParamKind) -> Option<ParamId> {
        self.inner.param_by_kind.get(&(kind, None)).copied()
    }

    /// The param declared with this kind and this role (`None`: no role), if any: each kind
    /// has at most one param per role, and at most one without.
    pub fn param_of_role(&self, kind: ParamKind, role: Option<Role>) -> Option<ParamId> {
        self.inner.param_by_kind.get(&(kind, role)).copied()
    }

    /// Whether some param of `kind` carries a role: the question's role words matter for it.
    pub fn has_roles(&self, kind: ParamKind) -> bool {
        Role::ALL.into_iter().any(|role| self.param_of_role(kind, Some(role)).is_some())
    }

    /// The id of the param with this exact name.
    pub fn param_id(&self, name: &str) -> Option<ParamId> {
        self.inner
            .params
            .iter()
            .position(|param| param.name == name)
            .and_then(|index| u16::try_from(index).ok())
            .map(ParamId)
    }

    /// The plane with this id.
    pub fn plane(&self, id: PlaneId) -> &Plane {
        &self.inner.planes[id.index()]
    }

    /// Every declared plane, in name order.
    pub fn planes(&self) -> &[Plane] {
        &self.inner.planes
    }

    /// The query intents with an output column that provides `param`, in registry order.
    pub fn providers_of(&self, param: ParamId) -> &[IntentId] {
        self.inner.providers.get(param.index()).map_or(&[], Vec::as_slice)
    }

    /// Whether two handles share the same frozen registry.
    pub fn ptr_eq(&self, other: &Registry) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Intent {
    /// Whether this is a composite intent.
    pub fn is_composite(&self) -> bool {
        matches!(self.body, IntentBody::Composite(_))
    }

    /// The query definition, for a query intent.
    pub fn query(&self) -> Option<&QueryIntent> {
        match &self.body {
            IntentBody::Query(query) => Some(query),
            IntentBody::Composite(_) => None,
        }
    }

    /// The sub-plan, for a composite intent.
    pub fn composite(&self) -> Option<&Composite> {
        match &self.body {
            IntentBody::Query(_) => None,
            IntentBody::Composite(composite) => Some(composite),
        }
    }

    /// The output columns (none for a composite).
    pub fn columns(&self) -> &[Column] {
        self.query().map_or(&[], |query| query.columns.as_slice())
    }

    /// The scopes a query intent needs (none for a composite: its members carry theirs).
    pub fn scopes(&self) -> &[String] {
        self.query().map_or(&[], |query| query.scopes.as_slice())
    }

    /// The intent's use of `param`, if it has that param.
    pub fn param(&self, param: ParamId) -> Option<&IntentParam> {
        self.params.iter().find(|p| p.param == param)
    }

    /// The index of the first output column that provides `param`.
    pub fn providing_column(&self, param: ParamId) -> Option<usize> {
        self.columns().iter().position(|column| column.provides == Some(param))
    }

    /// The intent's use of the param of `kind`, if it has one (the first, when it holds two
    /// told apart by role).
    pub fn param_of_kind(&self, kind: ParamKind) -> Option<&IntentParam> {
        self.params.iter().find(|p| p.kind == kind)
    }
}
