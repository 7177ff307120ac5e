//! The guarded executor: one read-only tenant transaction per intent.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use futures::future::join_all;
use rust_decimal::Decimal;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Row, SimpleQueryMessage, Statement};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::suppress::{CountSpec, apply_counts};
use crate::table::{Cell, Column, ColumnType, ResultTable};
use crate::wire::WirePool;

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
    fn sql_type(&self) -> Type {
        match self {
            Bind::Uuid(_) => Type::UUID,
            Bind::Text(_) => Type::TEXT,
            Bind::Int(_) => Type::INT8,
            Bind::TextList(_) => Type::TEXT_ARRAY,
        }
    }

    fn as_sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Bind::Uuid(value) => value,
            Bind::Text(value) => value,
            Bind::Int(value) => value,
            Bind::TextList(value) => value,
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

/// The opening of every intent's transaction, sent as one simple query: a
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

/// The post-condition, read inside the transaction after the statement, and the commit: the
/// role, the tenant and the statement timeout it ran with. A statement that changed any of them
/// (possible only where `set_config` could not be revoked from PUBLIC) has its result
/// discarded. One simple query: when the read fails, the commit is not run. The timeout is read
/// with `current_setting` (as PostgreSQL displays it, `5s`, see [`setting_millis`]): reading
/// `pg_settings` instead builds every setting's row, about 0.4 ms of server time per statement
/// (measured with pg_stat_statements at scale 20), 36 times the lightest registry statement.
const POST_CONDITION_AND_COMMIT: &str = "SELECT current_user::text, \
     coalesce(current_setting('planner.tenant', true), ''), \
     current_setting('statement_timeout'); \
     COMMIT";

/// The milliseconds of a time setting as PostgreSQL displays it: a number and the largest unit
/// that divides it (`250ms`, `5s`, `2min`, `1h`, `1d`), or `0`.
fn setting_millis(text: &str) -> Option<u128> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u128 = number.parse().ok()?;
    let per_unit = match unit {
        "" | "ms" => 1,
        "s" => 1_000,
        "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    Some(number * per_unit)
}

/// Extra time the client waits beyond the statement timeout before giving up on the server.
const CLIENT_GRACE: Duration = Duration::from_secs(5);

/// Runs one intent in its own read-only transaction as the plane's reader, with the tenant set
/// locally for row-level security and the statement timeout set locally, and maps the result to
/// a typed table. A [`Guard::Counts`] result is suppressed before it is returned.
///
/// One round trip once the statement is prepared on the connection: the set-up, the statement,
/// the post-condition and the commit leave in one write (see the `wire` module).
pub async fn execute(pool: &WirePool, request: &ExecRequest<'_>) -> Result<ResultTable> {
    execute_also(pool, request, &[]).await.map(|(table, _)| table)
}

/// [`execute`], with `also`: statements without params of the same plane (a registry's `as_of`
/// query) run in the same transaction, in the same write, their rows returned as they are
/// (never counts: they take no suppression). Their results are the statement's: when one
/// fails, the request fails.
pub async fn execute_also(
    pool: &WirePool,
    request: &ExecRequest<'_>,
    also: &[&str],
) -> Result<(ResultTable, Vec<ResultTable>)> {
    let limit = request.timeout.saturating_add(CLIENT_GRACE);
    let attempts = async {
        match run(pool, request, also).await {
            // The connection was lost, most often while it sat idle (a restart, a terminated
            // session): the idle ones are closed and the statement runs once more on a new
            // connection. Its transaction is read-only: running it twice changes nothing.
            Err(Error::Unavailable) => {
                pool.forget_idle();
                run(pool, request, also).await
            }
            other => other,
        }
    };
    let (table, also) = match tokio::time::timeout(limit, attempts).await {
        Ok(result) => result?,
        // The lease was dropped with its future: its connection is closed, not reused.
        Err(_) => return Err(Error::Timeout),
    };
    let table = match &request.guard {
        Guard::Rows => table,
        Guard::Counts(spec) => apply_counts(table, spec)?,
    };
    Ok((table, also))
}

async fn run(
    pool: &WirePool,
    request: &ExecRequest<'_>,
    also: &[&str],
) -> Result<(ResultTable, Vec<ResultTable>)> {
    let timeout_ms = request.timeout.as_millis().max(1);
    let tenant = request.tenant.map(|tenant| tenant.0.hyphenated().to_string()).unwrap_or_default();
    let setup = reader_setup(request.reader, timeout_ms, &tenant);
    let mut lease = pool.lease().await?;

    // Declare the bind types so the server types each placeholder as the value sent for it.
    let types: Vec<Type> = request.binds.iter().map(Bind::sql_type).collect();
    let wanted: Vec<(&str, &[Type])> = std::iter::once((request.sql, types.as_slice()))
        .chain(also.iter().map(|sql| (*sql, &[][..])))
        .collect();
    let (statements, set_up) = lease.prepare_all(&setup, &wanted).await?;
    let (statement, also_statements) =
        statements.split_first().unwrap_or_else(|| unreachable!("one statement at least"));
    let client = lease.client();
    // Any early return from here drops the lease, which closes the connection: its
    // transaction may be open.
    if statement.params().len() != request.binds.len()
        || also_statements.iter().any(|it| !it.params().is_empty())
    {
        return Err(Error::InvalidRequest {
            reason: "the number of binds differs from the placeholders",
        });
    }
    let columns = columns_of(statement)?;
    let also_columns = also_statements.iter().map(columns_of).collect::<Result<Vec<_>>>()?;
    let params: Vec<&(dyn ToSql + Sync)> = request.binds.iter().map(Bind::as_sql).collect();

    // One write: the set-up (unless it went with the preparation), the statements, then the
    // post-condition and the commit. A failure anywhere aborts the transaction, so what follows
    // it fails too.
    let (begun, rows, also_rows, after) = tokio::join!(
        async { if set_up { Ok(()) } else { client.batch_execute(&setup).await } },
        client.query(statement, &params),
        join_all(also_statements.iter().map(|statement| client.query(statement, &[]))),
        client.simple_query(POST_CONDITION_AND_COMMIT),
    );
    begun?;
    let rows = rows?;
    let also_rows = also_rows.into_iter().collect::<Result<Vec<_>, _>>()?;
    let after = after?;
    let found = after.iter().find_map(|message| match message {
        SimpleQueryMessage::Row(row) => Some((
            row.get(0).unwrap_or_default().to_owned(),
            row.get(1).unwrap_or_default().to_owned(),
            row.get(2).unwrap_or_default().to_owned(),
        )),
        _ => None,
    });
    let Some((role, tenant_after, timeout_after)) = found else {
        return Err(Error::Database { code: None });
    };
    if role != request.reader.role()
        || tenant_after != tenant
        || setting_millis(&timeout_after) != Some(timeout_ms)
    {
        // Nothing was written (the transaction is read-only); the result is not to be trusted,
        // and neither is the connection: the lease is dropped, which closes it.
        return Err(Error::GuardChanged);
    }
    lease.keep();
    let table = table_of(columns, &rows)?;
    let also = also_columns
        .into_iter()
        .zip(&also_rows)
        .map(|(columns, rows)| table_of(columns, rows))
        .collect::<Result<Vec<_>>>()?;
    Ok((table, also))
}

fn columns_of(statement: &Statement) -> Result<Vec<Column>> {
    statement
        .columns()
        .iter()
        .map(|column| {
            column_type(column.type_())
                .map(|ty| Column { name: column.name().to_owned(), ty })
                .ok_or_else(|| Error::UnsupportedColumn {
                    column: column.name().to_owned(),
                    sql_type: column.type_().name().to_uppercase(),
                })
        })
        .collect()
}

fn table_of(columns: Vec<Column>, rows: &[Row]) -> Result<ResultTable> {
    let rows = rows.iter().map(|row| read_row(row, &columns)).collect::<Result<Vec<_>>>()?;
    Ok(ResultTable { columns, rows })
}

fn column_type(sql_type: &Type) -> Option<ColumnType> {
    Some(match *sql_type {
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => ColumnType::Text,
        Type::INT2 | Type::INT4 | Type::INT8 => ColumnType::Int,
        // A float (`percentile_cont`, `avg` of a float column) is read as the decimal its
        // shortest round-trip text writes: the same digits every time, no binary tail.
        Type::NUMERIC | Type::FLOAT4 | Type::FLOAT8 => ColumnType::Decimal,
        Type::DATE => ColumnType::Date,
        Type::TIMESTAMPTZ | Type::TIMESTAMP => ColumnType::Timestamp,
        Type::BOOL => ColumnType::Bool,
        Type::UUID => ColumnType::Uuid,
        Type::TEXT_ARRAY | Type::VARCHAR_ARRAY => ColumnType::TextList,
        _ => return None,
    })
}

/// A float cell as a decimal: its shortest round-trip text read exactly (`0.1` is 0.1, not
/// 0.1000000000000000055...). NaN and the infinities have no decimal: an error, not a guess.
fn float_cell(value: Option<f64>) -> Result<Cell> {
    let Some(value) = value else { return Ok(Cell::Null) };
    let text = value.to_string();
    text.parse::<Decimal>()
        .or_else(|_| Decimal::from_scientific(&format!("{value:e}")))
        .map(Cell::Decimal)
        .map_err(|_| Error::InvalidRequest { reason: "a float result is not a finite number" })
}

fn read_row(row: &Row, columns: &[Column]) -> Result<Vec<Cell>> {
    columns.iter().enumerate().map(|(index, column)| read_cell(row, index, column)).collect()
}

fn read_cell(row: &Row, index: usize, column: &Column) -> Result<Cell> {
    fn cell<T>(value: Option<T>, wrap: impl FnOnce(T) -> Cell) -> Cell {
        value.map_or(Cell::Null, wrap)
    }
    let sql_type = row.columns()[index].type_();
    Ok(match column.ty {
        ColumnType::Text => cell(row.try_get::<_, Option<String>>(index)?, Cell::Text),
        ColumnType::Int => match *sql_type {
            Type::INT2 => cell(row.try_get::<_, Option<i16>>(index)?, |it| Cell::Int(it.into())),
            Type::INT4 => cell(row.try_get::<_, Option<i32>>(index)?, |it| Cell::Int(it.into())),
            _ => cell(row.try_get::<_, Option<i64>>(index)?, Cell::Int),
        },
        ColumnType::Decimal => match *sql_type {
            Type::FLOAT4 => float_cell(row.try_get::<_, Option<f32>>(index)?.map(f64::from))?,
            Type::FLOAT8 => float_cell(row.try_get::<_, Option<f64>>(index)?)?,
            _ => cell(row.try_get::<_, Option<Decimal>>(index)?, Cell::Decimal),
        },
        ColumnType::Date => cell(row.try_get::<_, Option<NaiveDate>>(index)?, Cell::Date),
        ColumnType::Timestamp => match *sql_type {
            Type::TIMESTAMP => {
                cell(row.try_get::<_, Option<NaiveDateTime>>(index)?, Cell::LocalTimestamp)
            }
            _ => cell(row.try_get::<_, Option<DateTime<Utc>>>(index)?, Cell::Timestamp),
        },
        ColumnType::Bool => cell(row.try_get::<_, Option<bool>>(index)?, Cell::Bool),
        ColumnType::Uuid => cell(row.try_get::<_, Option<Uuid>>(index)?, Cell::Uuid),
        ColumnType::TextList => cell(row.try_get::<_, Option<Vec<String>>>(index)?, Cell::TextList),
    })
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::{float_cell, setting_millis};
    use crate::table::Cell;

    #[test]
    fn a_float_is_the_decimal_its_shortest_text_writes() {
        let decimal = |text: &str| Cell::Decimal(text.parse::<Decimal>().unwrap());
        assert_eq!(float_cell(Some(0.1)).unwrap(), decimal("0.1"));
        assert_eq!(float_cell(Some(12.5)).unwrap(), decimal("12.5"));
        assert_eq!(float_cell(Some(-3.0)).unwrap(), decimal("-3"));
        assert_eq!(float_cell(Some(1.0e-7)).unwrap(), decimal("0.0000001"));
        assert_eq!(float_cell(None).unwrap(), Cell::Null);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0e300] {
            assert!(float_cell(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn time_settings_read_as_postgresql_displays_them() {
        for (text, millis) in
            [("0", 0), ("250ms", 250), ("5s", 5_000), ("1500ms", 1_500), ("2min", 120_000)]
        {
            assert_eq!(setting_millis(text), Some(millis), "{text}");
        }
        assert_eq!(setting_millis("1h"), Some(3_600_000));
        assert_eq!(setting_millis("1d"), Some(86_400_000));
        for text in ["", "s", "5 s", "5sec", "-1", "5S"] {
            assert_eq!(setting_millis(text), None, "{text}");
        }
    }
}
