//! Errors of the server, and the problem+json responses (RFC 9457) every failure becomes.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A failure the server reports to the client as `application/problem+json`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No `Authorization: Bearer` key, or one that is unknown or revoked.
    #[error("{0}")]
    Unauthorized(&'static str),
    /// The request body is not what the endpoint takes (malformed JSON, a missing field).
    #[error("{0}")]
    BadRequest(String),
    /// The body is larger than the server accepts.
    #[error("the request body is larger than {0} bytes")]
    TooLarge(usize),
    /// The question or answer is well-formed JSON but not acceptable (too long, empty).
    #[error("{0}")]
    Unprocessable(String),
    /// No thread with this id is waiting for this tenant, or no route has this path.
    #[error("{0}")]
    NotFound(String),
    /// The path exists, but not for this method.
    #[error("this path does not take this method")]
    MethodNotAllowed,
    /// The key made more requests than its rate allows; retry after the given seconds.
    #[error("this API key is over its request rate; retry in {0} s")]
    RateLimited(u64),
    /// The client's address sent more unauthenticated or failing requests than its rate allows
    /// (checked before any key lookup); retry after the given seconds.
    #[error("too many requests without a valid API key from this address; retry in {0} s")]
    AddressLimited(u64),
    /// The server is at its concurrency limit; the client may retry.
    #[error("the server is at its limit of requests in flight; retry shortly")]
    Overloaded,
    /// The request ran past the server's time limit.
    #[error("the request ran past the server's time limit of {0} ms")]
    Timeout(u128),
    /// The database cannot be reached.
    #[error("the database is unavailable; the server keeps trying and recovers when it returns")]
    DatabaseDown,
    /// The answer was withheld because its audit row could not be written.
    #[error("{0}")]
    Withheld(String),
    /// Anything else.
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The HTTP status of this failure.
    pub fn status(&self) -> StatusCode {
        match self {
            Error::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Error::BadRequest(_) => StatusCode::BAD_REQUEST,
            Error::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Error::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Error::RateLimited(_) | Error::AddressLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            Error::Overloaded | Error::DatabaseDown | Error::Withheld(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Error::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn title(&self) -> &'static str {
        match self {
            Error::Unauthorized(_) => "unauthorized",
            Error::BadRequest(_) => "bad request",
            Error::TooLarge(_) => "request body too large",
            Error::Unprocessable(_) => "unacceptable input",
            Error::NotFound(_) => "not found",
            Error::MethodNotAllowed => "method not allowed",
            Error::RateLimited(_) | Error::AddressLimited(_) => "too many requests",
            Error::Overloaded => "overloaded",
            Error::Timeout(_) => "timeout",
            Error::DatabaseDown => "database unavailable",
            Error::Withheld(_) => "answer withheld",
            Error::Internal(_) => "internal error",
        }
    }
}

impl From<planner_engine::Error> for Error {
    fn from(err: planner_engine::Error) -> Error {
        match err {
            planner_engine::Error::Input(input) => Error::Unprocessable(input.to_string()),
            planner_engine::Error::UnknownThread(_) => Error::NotFound(err.to_string()),
            planner_engine::Error::Unavailable(_) => Error::DatabaseDown,
            planner_engine::Error::AuditFailed(_) => Error::Withheld(
                "the answer is withheld because its audit row could not be written".to_owned(),
            ),
            planner_engine::Error::Graph(_) | planner_engine::Error::UnknownTenant(_) => {
                Error::Internal(err.to_string())
            }
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = Problem {
            r#type: "about:blank",
            title: self.title(),
            status: status.as_u16(),
            detail: self.to_string(),
            request_id: crate::trace::current_request_id(),
        };
        let body = serde_json::to_string(&body).unwrap_or_default();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
        if matches!(self, Error::Unauthorized(_)) {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if matches!(self, Error::Overloaded | Error::DatabaseDown | Error::Withheld(_)) {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        if let Error::RateLimited(seconds) | Error::AddressLimited(seconds) = self {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// The body of every failure: RFC 9457 problem details (fields in the order they are written).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct Problem {
    /// What went wrong and what to do about it.
    pub(crate) detail: String,
    /// The request's id (its `x-request-id`, taken from the request or generated), as in the
    /// response header and the server's log lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) request_id: Option<String>,
    /// The HTTP status.
    #[schema(minimum = 400, maximum = 599)]
    pub(crate) status: u16,
    /// A short name of the kind of failure (`unauthorized`, `bad request`, ...).
    #[schema(value_type = String)]
    pub(crate) title: &'static str,
    /// Always `about:blank`: the status and title say what happened.
    #[schema(value_type = String)]
    pub(crate) r#type: &'static str,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
