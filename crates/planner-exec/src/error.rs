//! Errors of the guarded executors, the audit writer and key management.
//!
//! No variant carries SQL text, a bound value or a database message (which can quote values):
//! at most the SQLSTATE code, a column name or a column type.

/// Everything that can go wrong while running an intent or writing an audit row.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The statement ran longer than its timeout and was cancelled.
    #[error("the query ran past its time limit and was cancelled")]
    Timeout,
    /// The database could not be reached, or the connection was lost.
    #[error("the database is unavailable")]
    Unavailable,
    /// The guarded role may not do what the query asked (a write, the `eeo` schema, ...).
    #[error("permission denied")]
    PermissionDenied,
    /// The statement changed the role, the tenant or the statement timeout it ran with: its
    /// result was discarded (the executor's post-condition).
    #[error("the statement changed its role, tenant or time limit: its result was discarded")]
    GuardChanged,
    /// The request does not fit the query: wrong number of binds, an empty or inconsistent
    /// count spec.
    #[error("invalid request: {reason}")]
    InvalidRequest {
        /// What is wrong, in words; never a value.
        reason: &'static str,
    },
    /// A result column has a type the executor does not map.
    #[error(
        "column `{column}` has unsupported type {sql_type}: cast it in the query to text, \
         bigint, numeric, date, timestamptz, boolean, uuid or text[] (`CAST(x AS numeric)`)"
    )]
    UnsupportedColumn {
        /// The column's name.
        column: String,
        /// The PostgreSQL type name.
        sql_type: String,
    },
    /// A count result has a column that is neither a label nor a declared count column, or
    /// holds an identifier.
    #[error("count result column `{column}` is not allowed: {reason}")]
    CountShape {
        /// The column's name.
        column: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A thread names a tenant that does not exist (its foreign key refused it).
    #[error("no tenant has id {0}")]
    UnknownTenant(uuid::Uuid),
    /// The URL's TLS settings cannot be served (an unknown `sslmode`, an unreadable
    /// `sslrootcert`).
    #[error("TLS to the database: {0}")]
    Tls(#[from] crate::tls::TlsError),
    /// The server's TLS certificate was refused (`verify-ca`, `verify-full`).
    #[error("the database server's TLS certificate was refused: {advice}")]
    Certificate {
        /// Why, and what to do.
        advice: &'static str,
    },
    /// The cryptographic module failed (its random generator).
    #[error("the cryptographic module failed: {0}")]
    Crypto(#[from] planner_crypto::Error),
    /// Any other database failure, identified only by its SQLSTATE code (and, for the codes
    /// a registry run on the wrong database gives, what to do).
    #[error("database error (SQLSTATE {}){}", .code.as_deref().unwrap_or("none"), advice(.code.as_deref()))]
    Database {
        /// The SQLSTATE code, when the server sent one.
        code: Option<String>,
    },
}

/// What a SQLSTATE says to do when a registry's query meets a database without its schema
/// (the embedded demo database, say): empty for other codes.
fn advice(code: Option<&str>) -> &'static str {
    match code {
        // undefined_table, invalid_schema_name.
        Some("42P01" | "3F000") => {
            ": a table or schema the query reads is not in this database; load the registry's \
             schema and data into the database it runs on (`planner db status` names it)"
        }
        // undefined_column.
        Some("42703") => ": a column the query names is not in its table; check the registry's SQL",
        _ => "",
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::Database(db) => {
                let code = db.code().map(|code| code.into_owned());
                from_sqlstate(code)
            }
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => Error::Unavailable,
            _ => Error::Database { code: None },
        }
    }
}

pub(crate) fn from_sqlstate(code: Option<String>) -> Error {
    match code.as_deref() {
        // query_canceled: statement_timeout fired.
        Some("57014") => Error::Timeout,
        // insufficient_privilege; read_only_sql_transaction.
        Some("42501" | "25006") => Error::PermissionDenied,
        // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections,
        // and the whole connection_exception class.
        Some("57P01" | "57P02" | "57P03" | "53300") => Error::Unavailable,
        Some(code) if code.starts_with("08") => Error::Unavailable,
        _ => Error::Database { code },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registry run on a database without its schema is told what to do; other codes stay
    /// the bare SQLSTATE.
    #[test]
    fn a_missing_table_says_to_load_the_schema() {
        let missing = from_sqlstate(Some("42P01".to_owned())).to_string();
        assert!(missing.starts_with("database error (SQLSTATE 42P01): a table or schema"));
        assert!(missing.contains("`planner db status`"), "{missing}");
        let other = from_sqlstate(Some("22P02".to_owned())).to_string();
        assert_eq!(other, "database error (SQLSTATE 22P02)");
    }
}
