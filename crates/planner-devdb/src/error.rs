//! Errors of finding or starting a PostgreSQL.

use std::path::PathBuf;

/// Everything that can go wrong while providing a PostgreSQL.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No provider could be used; the message names every way to provide one.
    #[error(
        "no PostgreSQL could be provided:\n  \
         - set DATABASE_URL to a server you run (postgres://user:password@host:port/db), or\n  \
         - start a Docker engine that has the image {image} (build it with `cargo xtask pg-image`), or\n  \
         - install PostgreSQL server binaries (Debian: `apt-get install postgresql-15`) so that \
         initdb and pg_ctl are found through pg_config, PATH or /usr/lib/postgresql/*/bin\n\
         what was tried: {tried}"
    )]
    NoProvider {
        /// The container image that was looked for.
        image: String,
        /// What each provider answered.
        tried: String,
    },
    /// A PostgreSQL program failed.
    #[error("`{program}` failed: {detail}")]
    Command {
        /// The program that failed (`initdb`, `pg_ctl`, ...).
        program: String,
        /// Its exit status and the end of its output or log.
        detail: String,
    },
    /// A file or directory could not be used.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The container could not be started.
    #[error("container {image}: {detail}")]
    Container {
        /// The image.
        image: String,
        /// What testcontainers said.
        detail: String,
    },
    /// The server was started but did not accept a connection or a statement.
    #[error("the server at {url} did not answer: {detail}")]
    Connect {
        /// The URL without its password.
        url: String,
        /// What the driver said.
        detail: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}
