//! Errors of seeding.

/// Everything that can go wrong while seeding a database.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scale factor is not a finite number in (0, 100].
    #[error("the scale must be a number above 0 and at most 100")]
    InvalidScale,
    /// The database already holds award data: seed a fresh database.
    #[error("the database already holds data; seed a fresh database")]
    AlreadySeeded,
    /// The migrations failed.
    #[error("running the migrations failed")]
    Migrate(#[source] sqlx::migrate::MigrateError),
    /// Loading a table failed.
    #[error("loading {table} failed")]
    Load {
        /// The table being loaded.
        table: &'static str,
        /// The database error.
        #[source]
        source: sqlx::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
