//! The `Proposer` trait: from a question to K proposals of raw intent names.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use planner_registry::{ParamKind, Role};

use crate::Result;

/// A boxed, sendable future, so that [`Proposer`] stays object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a proposer is asked.
#[derive(Debug, Clone, Copy)]
pub struct ProposeRequest<'a> {
    /// The user's question.
    pub question: &'a str,
    /// The param kinds the extractors found unambiguously in the question.
    pub available: &'a BTreeSet<ParamKind>,
    /// Where the extractors found param values in the question (`&[]` when unknown). The
    /// lexical proposer ignores the words of identifier-like values (agency, NAICS, UUID, UEI)
    /// and keeps clearance and window words, which say what is asked.
    pub spans: &'a [ParamSpan],
    /// How many proposals to return (K). A deterministic proposer may return fewer.
    pub samples: usize,
}

/// One extracted param value's place in the question: byte range `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpan {
    /// The param's kind.
    pub kind: ParamKind,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// The end of a directed pair the question's words make the value ("from Seattle", "to
    /// Denver"), or `None`.
    pub role: Option<Role>,
}

/// What a proposer answers: K proposals, each a list of raw intent names.
///
/// The names are not trusted: the plan validator decides what survives. A model proposer has
/// already dropped names outside the closed set and counted them in `dropped_names`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Proposals {
    /// One list of intent names per sample, each in the order proposed, without repeats.
    pub samples: Vec<Vec<String>>,
    /// Names returned by a model that are not in the catalog (dropped, never passed on).
    pub dropped_names: usize,
    /// Samples whose reply was unusable (garbage, empty, oversized) and became empty proposals.
    pub unusable_replies: usize,
}

/// A source of plan proposals. Object-safe, so the engine can pick one at run time:
/// `Box<dyn Proposer>` or `Arc<dyn Proposer>`.
///
/// A proposer is bound to one [`Catalog`](crate::Catalog) when it is built.
pub trait Proposer: Send + Sync + std::fmt::Debug {
    /// Proposes up to `request.samples` lists of intent names for the question.
    fn propose<'a>(&'a self, request: ProposeRequest<'a>) -> BoxFuture<'a, Result<Proposals>>;
}
