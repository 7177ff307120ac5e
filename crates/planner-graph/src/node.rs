//! Node identities, typed routes, what a node returns and how it is called.

use std::{fmt, future::Future, marker::PhantomData, pin::Pin, time::Duration};

use serde_json::Value;

use crate::state::GraphState;

/// The identity of a node: a caller enum or newtype, never a string.
///
/// [`node_ids!`](crate::node_ids) writes the enum and this impl in one go.
pub trait NodeId: Copy + Ord + fmt::Debug + Send + Sync + 'static {
    /// Stable name used in traces, events, checkpoints and drawings.
    fn name(self) -> &'static str;
}

/// The closed set of routes out of one node: an enum per node.
///
/// [`routes!`](crate::routes) writes the enum and this impl in one go. `()` is the route of a
/// node with one fixed successor; its label is empty and drawings leave such edges unlabelled.
pub trait Route: Copy + Eq + fmt::Debug + Send + Sync + 'static {
    /// Every value, each exactly once. The builder asks for a target for each.
    const ALL: &'static [Self];

    /// Stable name of the route, shown on edges, in traces and in events.
    fn label(self) -> &'static str;

    /// Position of `self` in [`Route::ALL`].
    fn index(self) -> usize {
        Self::ALL.iter().position(|it| *it == self).unwrap_or(0)
    }
}

impl Route for () {
    const ALL: &'static [Self] = &[()];

    fn label(self) -> &'static str {
        ""
    }

    fn index(self) -> usize {
        0
    }
}

/// What a node returns: its update and its route, or an interrupt.
///
/// The route is consumed by the runtime to pick the next node; it is never stored in the state
/// or in a checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub enum Command<U, R> {
    /// Merge `update` into the state, then follow `route`.
    Goto {
        /// The state update, merged by [`GraphState::apply`].
        update: U,
        /// The route taken out of this node.
        route: R,
    },
    /// Stop the run and hand `payload` (a question for the user) to the caller. Resuming the
    /// thread runs this node again with the caller's answer as its `resume` argument.
    Interrupt(Value),
}

impl<U, R> Command<U, R> {
    /// Shorthand for [`Command::Goto`].
    pub fn goto(update: U, route: R) -> Self {
        Command::Goto { update, route }
    }
}

/// An asynchronous node: it may run SQL, call HTTP services, await timers.
///
/// `ctx` is the shared context passed to every node of a run (typically the caller's
/// `Arc<Ctx>` dereferenced); `resume` is `Some` only on the first execution after a resume,
/// and carries the value given to [`Graph::resume`](crate::Graph::resume).
pub trait Node<S: GraphState, C>: Send + Sync + 'static {
    /// The routes out of this node.
    type Route: Route;

    /// Runs the node once.
    fn run(
        &self,
        ctx: &C,
        state: &S,
        resume: Option<&Value>,
    ) -> impl Future<Output = Result<Command<S::Update, Self::Route>, NodeError>> + Send;
}

/// A failure reported by a node.
#[derive(Debug)]
pub struct NodeError {
    message: String,
    retryable: bool,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl NodeError {
    /// A permanent failure: the retry policy does not apply.
    pub fn new(message: impl Into<String>) -> Self {
        NodeError { message: message.into(), retryable: false, source: None }
    }

    /// A transient failure: the node's retry policy applies.
    pub fn retryable(message: impl Into<String>) -> Self {
        NodeError { message: message.into(), retryable: true, source: None }
    }

    /// Keeps `source` as the cause of this failure.
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// Whether the retry policy applies.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|it| it as &(dyn std::error::Error + 'static))
    }
}

/// Per-node timeout and retry policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Upper bound on one attempt of an asynchronous node; synchronous nodes are not timed out.
    pub timeout: Option<Duration>,
    /// Attempts in all, first included; `1` means no retry.
    pub max_attempts: u32,
    /// Wait before the second attempt.
    pub initial_backoff: Duration,
    /// Each further wait is the previous one times this factor.
    pub backoff_factor: u32,
    /// Upper bound on one wait.
    pub max_backoff: Duration,
}

impl Policy {
    /// No timeout, no retry.
    pub const NONE: Policy = Policy {
        timeout: None,
        max_attempts: 1,
        initial_backoff: Duration::ZERO,
        backoff_factor: 1,
        max_backoff: Duration::ZERO,
    };

    /// The wait before attempt `attempt + 1`, after `attempt` failures (1-based).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let factor = self.backoff_factor.saturating_pow(attempt.saturating_sub(1));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff.max(self.initial_backoff))
    }
}

/// Writes a [`NodeId`] enum: `node_ids! { pub enum Step { Guard => "guard", Act => "act" } }`.
#[macro_export]
macro_rules! node_ids {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident => $label:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every node, in declaration order.
            #[allow(dead_code, reason = "not every graph lists its nodes")]
            $vis const ALL: &'static [$name] = &[$($name::$variant),+];
        }

        impl $crate::NodeId for $name {
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $label),+
                }
            }
        }
    };
}

/// Writes a [`Route`] enum: `routes! { pub enum Gate { Pass => "pass", Fail => "fail" } }`.
#[macro_export]
macro_rules! routes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident => $label:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $crate::Route for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn label(self) -> &'static str {
                match self {
                    $($name::$variant => $label),+
                }
            }

            fn index(self) -> usize {
                self as usize
            }
        }
    };
}

/// A node's result with its route turned into an index into the node's route table.
pub(crate) enum RawCommand<U> {
    Goto { update: U, route: usize },
    Interrupt(Value),
}

impl<U, R: Route> From<Command<U, R>> for RawCommand<U> {
    fn from(command: Command<U, R>) -> Self {
        match command {
            Command::Goto { update, route } => RawCommand::Goto { update, route: route.index() },
            Command::Interrupt(payload) => RawCommand::Interrupt(payload),
        }
    }
}

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
pub(crate) type NodeResult<U> = Result<RawCommand<U>, NodeError>;

/// A synchronous node, called without any future or allocation.
pub(crate) trait SyncCall<S: GraphState, C>: Send + Sync {
    fn call(&self, ctx: &C, state: &S, resume: Option<&Value>) -> NodeResult<S::Update>;
}

/// An asynchronous node behind one boxed future per call.
pub(crate) trait AsyncCall<S: GraphState, C>: Send + Sync {
    fn call<'a>(
        &'a self,
        ctx: &'a C,
        state: &'a S,
        resume: Option<&'a Value>,
    ) -> BoxFuture<'a, NodeResult<S::Update>>;
}

pub(crate) struct SyncFn<F, R>(pub(crate) F, pub(crate) PhantomData<fn() -> R>);

impl<S, C, R, F> SyncCall<S, C> for SyncFn<F, R>
where
    S: GraphState,
    R: Route,
    F: Fn(&C, &S, Option<&Value>) -> Result<Command<S::Update, R>, NodeError> + Send + Sync,
{
    fn call(&self, ctx: &C, state: &S, resume: Option<&Value>) -> NodeResult<S::Update> {
        (self.0)(ctx, state, resume).map(RawCommand::from)
    }
}

pub(crate) struct AsyncNode<T>(pub(crate) T);

impl<S, C, T> AsyncCall<S, C> for AsyncNode<T>
where
    S: GraphState,
    C: Sync,
    T: Node<S, C>,
{
    fn call<'a>(
        &'a self,
        ctx: &'a C,
        state: &'a S,
        resume: Option<&'a Value>,
    ) -> BoxFuture<'a, NodeResult<S::Update>> {
        Box::pin(async move { self.0.run(ctx, state, resume).await.map(RawCommand::from) })
    }
}

/// How a compiled node is called.
pub(crate) enum Handler<S: GraphState, C> {
    Sync(Box<dyn SyncCall<S, C>>),
    Async(Box<dyn AsyncCall<S, C>>),
}
