//! Errors of the inference plane.

use std::time::Duration;

/// Everything that can go wrong while asking a model server.
///
/// A reply that arrives but cannot be used (garbage, empty, oversized, names outside the set) is
/// not an error: it gives an empty proposal and is counted. Errors are for calls that produced no
/// reply at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is unusable (bad base URL, zero samples, ...).
    #[error("invalid inference configuration: {0}")]
    Config(String),
    /// The server did not answer within the per-call timeout.
    #[error("model call timed out after {0:?}")]
    Timeout(Duration),
    /// The server answered with a non-success status after every retry.
    #[error("model server answered {status}: {body}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The circuit breaker is open: recent calls failed, so no call is attempted.
    #[error("model server circuit is open after repeated failures")]
    CircuitOpen,
    /// The server answered 2xx with something that cannot be used where an error is the only
    /// honest answer (a narrator's empty or malformed reply).
    #[error("model reply unusable: {0}")]
    UnusableReply(String),
    /// The connection failed or broke.
    #[error("model server unreachable: {0}")]
    Transport(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
