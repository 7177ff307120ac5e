//! The guarded executor: one read-only tenant transaction per intent.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use rust_decimal::Decimal;
use sqlx::postgres::{PgPool, PgRow, PgTypeInfo, Postgres};
use sqlx::{
    AssertSqlSafe, Column as _, Executor as _, Row as _, SqlSafeStr as _, Statement as _,
    TypeInfo as _,
};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::suppress::apply_counts;
use crate::table::{Cell, Column, ColumnType, ResultTable};

/// A tenant's id: the key of row-level security.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TenantId(pub Uuid);

/// A typed bind value for one `$n` placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bind {
    /// A UUID (`$n::uuid`).
    Uuid(Uuid),
    /// Text (`$n::text`).
    Text(String),
    /// An integer (`$n::int`), sent as `int8`.
    Int(i64),
    /// A list of text values (`$n::text[]`).
    TextList(Vec<String>),
}

impl Bind {
    fn type_info(&self) -> PgTypeInfo {
        match self {
            Bind::Uuid(_) => <Uuid as sqlx::Type<Postgres>>::type_info(),
            Bind::Text(_) => <String as sqlx::Type<Postgres>>::type_info(),
            Bind::Int(_) => <i64 as sqlx::Type<Postgres>>::type_info(),
            Bind::TextList(_) => <Vec<String> as sqlx::Type<Postgres>>::type_info(),
        }
    }
}

/// How a result is guarded on its way out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guard {
    /// Rows as the query returned them (market, graph and requirement intents).
    Rows,
    /// Counts of people, suppressed (bench intents).
    Counts(CountSpec),
}

/// The suppression spec of a count intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountSpec {
    /// The `int` columns that hold counts of people. Every other column must be a text, date or
    /// boolean label.
    pub count_columns: Vec<String>,
    /// The threshold: a count from 1 to k-1 is suppressed; zero is shown.
    pub k: u32,
    /// Append a `Total` row with each count column's sum (itself subject to suppression).
    pub total_row: bool,
    /// Text label columns that split each shown row into disjoint, fixed cells (empty: each row
    /// is one cell). Each cell is suppressed on its own; the rows that agree on every other label
    /// are summed into one shown row, withheld when any of its cells is suppressed, and these
    /// columns are dropped. No shown count is then a function of a suppressed cell, whatever
    /// the params: see docs/reliability.md.
    pub sum_over: Vec<String>,
}

impl Guard {
    /// The guard a registry query declares: its suppression spec's count columns, `k` and
    /// `sum_over` when it has one (no total row), else the rows as they are.
    pub fn for_query(query: &planner_registry::QueryIntent) -> Guard {
        match &query.suppression {
            None => Guard::Rows,
            Some(spec) => Guard::Counts(CountSpec {
                count_columns: spec
                    .count_columns
                    .iter()
                    .map(|&column| query.columns[column].name.clone())
                    .collect(),
                k: spec.k,
                total_row: false,
                sum_over: spec
                    .sum_over
                    .iter()
                    .map(|&column| query.columns[column].name.clone())
                    .collect(),
            }),
        }
    }
}

/// The database role an intent's statement runs as: one reader per kind of plane, each with
/// SELECT on its own schemas only (migration `0010_least_privilege.sql`). The second line of
/// defence behind the SQL guard: a statement that names a schema outside its plane is refused by
/// PostgreSQL even when the guard is bypassed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reader {
    /// Planes without tenant rows (`market`, `graph`): the market and graph schemas.
    Public,
    /// Tenant planes that are not counts (requirements): market, graph and capture, tenant rows
    /// through forced row-level security.
    Tenant,
    /// Count planes (the bench): market, capture and bench, tenant rows through forced
    /// row-level security.
    Bench,
}

impl Reader {
    /// The reader of a registry plane: counts read as [`Reader::Bench`], other tenant planes as
    /// [`Reader::Tenant`], the rest as [`Reader::Public`].
    pub fn for_plane(plane: &planner_registry::Plane) -> Reader {
        match (plane.counts, plane.tenant) {
            (true, _) => Reader::Bench,
            (false, true) => Reader::Tenant,
            (false, false) => Reader::Public,
        }
    }

    /// The role's name.
    pub fn role(self) -> &'static str {
        match self {
            Reader::Public => "planner_read_public",
            Reader::Tenant => "planner_read_tenant",
            Reader::Bench => "planner_read_bench",
        }
    }
}

/// One intent to run.
#[derive(Debug, Clone)]
pub struct ExecRequest<'a> {
    /// One SQL query with placeholders `$1..$n`, from a validated registry. Never built from
    /// input.
    pub sql: &'a str,
    /// The values of `$1..$n`, in order.
    pub binds: &'a [Bind],
    /// The tenant whose rows row-level security shows; `None` shows no tenant rows.
    pub tenant: Option<TenantId>,
    /// The role the statement runs as.
    pub reader: Reader,
    /// The statement timeout.
    pub timeout: Duration,
    /// How the result is guarded.
    pub guard: Guard,
}

/// The opening of every intent's transaction, sent as one simple query (one round trip): a
/// read-only transaction as the plane's reader role, with the statement timeout and the tenant
/// set locally. JIT compilation is off: registry queries run in milliseconds, and compiling one
/// (which PostgreSQL starts from cost estimates alone) takes far longer.
///
/// Both values are typed (an integer and a UUID, whose text is digits, hex and dashes only), so
/// writing them into the statement cannot change its meaning.
fn reader_setup(reader: Reader, timeout_ms: u128, tenant: &str) -> String {
    let role = reader.role();
    format!(
        "BEGIN READ ONLY; SET LOCAL ROLE {role}; SET LOCAL jit = off; \
         SET LOCAL statement_timeout = {timeout_ms}; SET LOCAL planner.tenant = '{tenant}'"
    )
}

/// The post-condition, read inside the transaction after the statement: the role, the tenant
/// and the statement timeout it ran with. A statement that changed any of them (possible only
/// where `set_config` could not be revoked from PUBLIC) has its result discarded.
const POST_CONDITION: &str = "SELECT current_user::text, \
     coalesce(current_setting('planner.tenant', true), ''), \
     (SELECT s.setting FROM pg_catalog.pg_settings AS s WHERE s.name = 'statement_timeout')";

/// Extra time the client waits beyond the statement timeout before giving up on the server.
const CLIENT_GRACE: Duration = Duration::from_secs(5);

/// Runs one intent in its own read-only transaction as `planner_reader`, with the tenant set
/// locally for row-level security and the statement timeout set locally, and maps the result to
/// a typed table. A [`Guard::Counts`] result is suppressed before it is returned.
pub async fn execute(pool: &PgPool, request: &ExecRequest<'_>) -> Result<ResultTable> {
    let limit = request.timeout.saturating_add(CLIENT_GRACE);
    let table = match tokio::time::timeout(limit, run(pool, request)).await {
        Ok(result) => result?,
        Err(_) => return Err(Error::Timeout),
    };
    match &request.guard {
        Guard::Rows => Ok(table),
        Guard::Counts(spec) => apply_counts(table, spec),
    }
}

async fn run(pool: &PgPool, request: &ExecRequest<'_>) -> Result<ResultTable> {
    let timeout_ms = request.timeout.as_millis().max(1);
    let tenant = request.tenant.map(|tenant| tenant.0.hyphenated().to_string()).unwrap_or_default();
    let setup = reader_setup(request.reader, timeout_ms, &tenant);
    let mut tx = pool.begin_with(AssertSqlSafe(setup)).await?;

    // Declare the bind types so the server types each placeholder as the value sent for it.
    let types: Vec<PgTypeInfo> = request.binds.iter().map(Bind::type_info).collect();
    let statement =
        (&mut *tx).prepare_with(AssertSqlSafe(request.sql).into_sql_str(), &types).await?;
    let parameters = statement
        .parameters()
        .map_or(request.binds.len(), |it| it.either(|types| types.len(), |count| count));
    if parameters != request.binds.len() {
        return Err(Error::InvalidRequest {
            reason: "the number of binds differs from the placeholders",
        });
    }
    let columns = statement
        .columns()
        .iter()
        .map(|column| {
            let sql_type = column.type_info().name();
            column_type(sql_type)
                .map(|ty| Column { name: column.name().to_owned(), ty })
                .ok_or_else(|| Error::UnsupportedColumn {
                    column: column.name().to_owned(),
                    sql_type: sql_type.to_owned(),
                })
        })
        .collect::<Result<Vec<_>>>()?;

    let mut query = statement.query();
    for bind in request.binds {
        query = match bind {
            Bind::Uuid(value) => query.bind(*value),
            Bind::Text(value) => query.bind(value.clone()),
            Bind::Int(value) => query.bind(*value),
            Bind::TextList(value) => query.bind(value.clone()),
        };
    }
    let rows = query.fetch_all(&mut *tx).await?;
    let (role, tenant_after, timeout_after): (String, String, String) =
        sqlx::query_as(POST_CONDITION).fetch_one(&mut *tx).await?;
    if role != request.reader.role()
        || tenant_after != tenant
        || timeout_after != timeout_ms.to_string()
    {
        // Nothing was written (the transaction is read-only); the result is not to be trusted.
        tx.rollback().await?;
        return Err(Error::GuardChanged);
    }
    tx.commit().await?;

    let rows = rows.iter().map(|row| read_row(row, &columns)).collect::<Result<Vec<_>>>()?;
    Ok(ResultTable { columns, rows })
}

fn column_type(sql_type: &str) -> Option<ColumnType> {
    Some(match sql_type {
        "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" | "CHAR" => ColumnType::Text,
        "INT2" | "INT4" | "INT8" => ColumnType::Int,
        "NUMERIC" => ColumnType::Decimal,
        "DATE" => ColumnType::Date,
        "TIMESTAMPTZ" | "TIMESTAMP" => ColumnType::Timestamp,
        "BOOL" => ColumnType::Bool,
        "UUID" => ColumnType::Uuid,
        "TEXT[]" | "VARCHAR[]" => ColumnType::TextList,
        _ => return None,
    })
}

fn read_row(row: &PgRow, columns: &[Column]) -> Result<Vec<Cell>> {
    columns.iter().enumerate().map(|(index, column)| read_cell(row, index, column)).collect()
}

fn read_cell(row: &PgRow, index: usize, column: &Column) -> Result<Cell> {
    fn cell<T>(value: Option<T>, wrap: impl FnOnce(T) -> Cell) -> Cell {
        value.map_or(Cell::Null, wrap)
    }
    let sql_type = row.columns()[index].type_info().name();
    Ok(match column.ty {
        ColumnType::Text => cell(row.try_get::<Option<String>, _>(index)?, Cell::Text),
        ColumnType::Int => match sql_type {
            "INT2" => cell(row.try_get::<Option<i16>, _>(index)?, |it| Cell::Int(it.into())),
            "INT4" => cell(row.try_get::<Option<i32>, _>(index)?, |it| Cell::Int(it.into())),
            _ => cell(row.try_get::<Option<i64>, _>(index)?, Cell::Int),
        },
        ColumnType::Decimal => cell(row.try_get::<Option<Decimal>, _>(index)?, Cell::Decimal),
        ColumnType::Date => cell(row.try_get::<Option<NaiveDate>, _>(index)?, Cell::Date),
        ColumnType::Timestamp => match sql_type {
            "TIMESTAMP" => cell(row.try_get::<Option<NaiveDateTime>, _>(index)?, |it| {
                Cell::Timestamp(it.and_utc())
            }),
            _ => cell(row.try_get::<Option<DateTime<Utc>>, _>(index)?, Cell::Timestamp),
        },
        ColumnType::Bool => cell(row.try_get::<Option<bool>, _>(index)?, Cell::Bool),
        ColumnType::Uuid => cell(row.try_get::<Option<Uuid>, _>(index)?, Cell::Uuid),
        ColumnType::TextList => cell(row.try_get::<Option<Vec<String>>, _>(index)?, Cell::TextList),
    })
}
