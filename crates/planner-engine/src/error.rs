//! Errors of the engine's API.

use crate::screen::InputError;

/// Everything that can go wrong while answering.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The question is malformed (empty, too long, control characters): a client error.
    #[error(transparent)]
    Input(#[from] InputError),
    /// No thread with this id waits for an answer (for this tenant).
    #[error("no question is waiting in thread {0}")]
    UnknownThread(String),
    /// The audit row could not be written, so the answer is withheld (fail-closed).
    #[error("the answer is withheld because its audit row could not be written: {0}")]
    AuditFailed(String),
    /// The caller's tenant does not exist, so a thread cannot be kept for it (a command line's
    /// `--tenant`; a key's tenant always exists).
    #[error("no tenant has id {0}")]
    UnknownTenant(uuid::Uuid),
    /// The database is unavailable or failed.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// The graph runtime failed.
    #[error("the planner failed: {0}")]
    Graph(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
