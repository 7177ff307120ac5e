//! The ways to run a graph ([`Graph::invoke`], `resume`, `run`, `stream` and its
//! [`EventStream`]) and the run loop: nodes by index, no per-step allocation for synchronous nodes, events only
//! when observed, checkpoints at step boundaries.

use std::{
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::{sync::mpsc::UnboundedReceiver, task::JoinHandle};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, field};

use crate::{
    checkpoint::{Checkpoint, Checkpointer, Durability},
    error::{Error, Result},
    event::Event,
    graph::{Graph, Hop, Interrupt, Run, RunConfig, Slot, Start, Status},
    node::{Handler, NodeError, NodeId, RawCommand},
    state::GraphState,
    trace::TraceStep,
};

impl<N: NodeId, S: GraphState, C: Send + Sync + 'static> Graph<N, S, C> {
    /// Runs from START with `input` until END or an interrupt.
    ///
    /// # Errors
    /// A node failure or timeout, the step limit, cancellation, or a checkpoint store failure.
    pub async fn invoke(&self, ctx: &C, input: S, config: &RunConfig) -> Result<Run<S>> {
        self.run(ctx, Start::Input(input), config, None).await
    }

    /// Resumes `thread_id`, waiting at an interrupt, handing `value` to the interrupted node.
    /// Any process sharing the checkpoint store may resume the thread.
    ///
    /// # Errors
    /// As [`Graph::invoke`], plus [`Error::NotInterrupted`] and missing checkpoints.
    pub async fn resume(
        &self,
        ctx: &C,
        thread_id: &str,
        value: Value,
        config: &RunConfig,
    ) -> Result<Run<S>> {
        let start = Start::Resume { thread_id: thread_id.to_owned(), value };
        self.run(ctx, start, config, None).await
    }

    /// Runs from `start`, calling `observe` with every event in order.
    ///
    /// # Errors
    /// As [`Graph::invoke`].
    pub async fn run(
        &self,
        ctx: &C,
        start: Start<S>,
        config: &RunConfig,
        observe: Option<&mut (dyn FnMut(Event) + Send)>,
    ) -> Result<Run<S>> {
        let thread_id = match &start {
            Start::Input(_) => config.thread_id.as_deref(),
            Start::Resume { thread_id, .. } | Start::Fork { thread_id, .. } => Some(&**thread_id),
        };
        let span = tracing::info_span!("graph_run", thread_id);
        run(self, ctx, start, config, observe).instrument(span).await
    }

    /// Runs on a spawned task and yields its events; [`EventStream::finish`] gives the result.
    /// Must be called within a Tokio runtime.
    pub fn stream(&self, ctx: Arc<C>, start: Start<S>, config: RunConfig) -> EventStream<S> {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let graph = self.clone();
        let task = tokio::spawn(async move {
            let mut send = move |event: Event| {
                // A dropped receiver only means nobody listens any more.
                let _ = sender.send(event);
            };
            graph.run(&ctx, start, &config, Some(&mut send)).await
        });
        EventStream::new(receiver, task)
    }
}

/// The events of a run on a spawned task, then its result through [`EventStream::finish`].
#[derive(Debug)]
pub struct EventStream<S> {
    receiver: UnboundedReceiver<Event>,
    task: JoinHandle<Result<Run<S>>>,
}

impl<S> EventStream<S> {
    pub(crate) fn new(
        receiver: UnboundedReceiver<Event>,
        task: JoinHandle<Result<Run<S>>>,
    ) -> Self {
        EventStream { receiver, task }
    }

    /// The next event, or `None` once the run is over.
    pub async fn next(&mut self) -> Option<Event> {
        self.receiver.recv().await
    }

    /// Waits for the run and returns its result; events not read yet are dropped.
    ///
    /// # Errors
    /// The run's error, or [`Error::Stream`] when its task panicked.
    pub async fn finish(self) -> Result<Run<S>> {
        self.task.await.map_err(|err| Error::Stream(err.to_string()))?
    }
}

impl<S> futures::Stream for EventStream<S> {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        self.receiver.poll_recv(cx)
    }
}

/// How many of the last steps a step-limit error shows.
const LAST_STEPS: usize = 12;

/// Where the run stands: what runs next.
#[derive(Clone, Copy)]
enum Cursor<'g> {
    Node(usize),
    FanOut(&'g [usize], usize),
    End,
}

impl<'g> From<&'g Hop> for Cursor<'g> {
    fn from(hop: &'g Hop) -> Self {
        match hop {
            Hop::Node(i) => Cursor::Node(*i),
            Hop::End => Cursor::End,
            Hop::FanOut { branches, join } => Cursor::FanOut(branches, *join),
        }
    }
}

type Observer<'o> = Option<&'o mut (dyn FnMut(Event) + Send)>;

pub(crate) async fn run<N: NodeId, S: GraphState, C: Send + Sync + 'static>(
    graph: &Graph<N, S, C>,
    ctx: &C,
    start: Start<S>,
    config: &RunConfig,
    mut observe: Observer<'_>,
) -> Result<Run<S>> {
    let inner = &*graph.inner;
    let slots = &inner.slots[..];

    // Where to begin, and the checkpoint bookkeeping of the thread.
    let mut keeper = None;
    let (state, cursor, step, resume) = match start {
        Start::Input(state) => {
            if let Some(saver) = &graph.saver {
                let thread_id = config.thread_id.as_deref().ok_or(Error::MissingThreadId)?;
                let mut k =
                    Keeper::unread(&*saver.store, saver.durability, thread_id.to_owned(), None);
                if k.every_step() {
                    k.save(&state, 0, Some(slots[inner.start].name), None, &mut observe).await?;
                }
                keeper = Some(k);
            }
            (state, Cursor::Node(inner.start), 0, None)
        }
        Start::Resume { thread_id, value } => {
            let saver = graph.saver.as_ref().ok_or(Error::NoCheckpointer)?;
            let checkpoint = saver.store.load(&thread_id, None).await?.ok_or_else(|| {
                Error::CheckpointNotFound { thread_id: thread_id.clone(), checkpoint: None }
            })?;
            if checkpoint.interrupt.is_none() {
                return Err(match checkpoint.next {
                    None => Error::AlreadyFinished { thread_id, checkpoint: checkpoint.id },
                    Some(_) => Error::NotInterrupted { thread_id },
                });
            }
            let (state, node) = restore(graph, &checkpoint)?;
            let step = checkpoint.step;
            let k = Keeper::new(
                &*saver.store,
                saver.durability,
                thread_id,
                Some(checkpoint.id),
                Some(checkpoint),
            );
            keeper = Some(k);
            (state, Cursor::Node(node), step, Some(value))
        }
        Start::Fork { thread_id, checkpoint, value } => {
            let saver = graph.saver.as_ref().ok_or(Error::NoCheckpointer)?;
            let from = saver.store.load(&thread_id, Some(checkpoint)).await?.ok_or_else(|| {
                Error::CheckpointNotFound {
                    thread_id: thread_id.clone(),
                    checkpoint: Some(checkpoint),
                }
            })?;
            if from.next.is_none() {
                return Err(Error::AlreadyFinished { thread_id, checkpoint });
            }
            let (state, node) = restore(graph, &from)?;
            let latest = saver.store.load(&thread_id, None).await?;
            keeper = Some(Keeper::new(
                &*saver.store,
                saver.durability,
                thread_id,
                Some(from.id),
                latest,
            ));
            (state, Cursor::Node(node), from.step, value)
        }
    };
    let at = Position { state, cursor, step, resume };
    let result = drive(slots, ctx, config, &mut observe, &mut keeper, at).await;
    if result.is_err()
        && let Some(keeper) = &mut keeper
        && let Err(err) = keeper.finish().await
    {
        // The run's own error matters more; the checkpoints saved so far stay queued.
        tracing::warn!(error = %err, "checkpoints of a failed run could not be flushed");
    }
    result
}

/// Where a run stands when it begins.
struct Position<'g, S> {
    state: S,
    cursor: Cursor<'g>,
    step: u64,
    resume: Option<Value>,
}

/// Runs steps from `at` until END, an interrupt or an error.
async fn drive<S: GraphState, C>(
    slots: &[Slot<S, C>],
    ctx: &C,
    config: &RunConfig,
    observe: &mut Observer<'_>,
    keeper: &mut Option<Keeper<'_>>,
    at: Position<'_, S>,
) -> Result<Run<S>> {
    let Position { mut state, mut cursor, mut step, mut resume } = at;
    let cancel = config.cancel.as_ref();
    let mut trace: Vec<TraceStep> = Vec::new();

    loop {
        match cursor {
            Cursor::End => {
                if let Some(keeper) = keeper.as_mut() {
                    keeper.finish().await?;
                }
                if let Some(observe) = observe.as_deref_mut() {
                    observe(Event::Finished { steps: step });
                }
                return Ok(Run { state, trace, status: Status::Finished });
            }
            Cursor::Node(i) => {
                check_limit(step, 1, config, &trace)?;
                check_cancel(cancel, step)?;
                let slot = &slots[i];
                if let Some(observe) = observe.as_deref_mut() {
                    observe(Event::NodeStarted { step, node: slot.name });
                }
                let span = tracing::debug_span!(
                    "node",
                    node = slot.name,
                    step,
                    route = field::Empty,
                    duration_us = field::Empty
                );
                let timer = (observe.is_some() || !span.is_disabled()).then(Instant::now);
                let resume_value = resume.take();
                let command = call(slot, ctx, &state, resume_value.as_ref(), step, cancel)
                    .instrument(span.clone())
                    .await?;
                let elapsed = timer.map(|it| it.elapsed()).unwrap_or_default();
                if let Some(observe) = observe.as_deref_mut() {
                    observe(Event::NodeFinished { step, node: slot.name, duration: elapsed });
                }
                let (update, route) = match command {
                    RawCommand::Goto { update, route } => (update, route),
                    RawCommand::Interrupt(payload) => {
                        if let Some(keeper) = keeper.as_mut() {
                            keeper
                                .save(&state, step, Some(slot.name), Some(payload.clone()), observe)
                                .await?;
                            keeper.finish().await?;
                        }
                        let interrupt = Interrupt {
                            thread_id: keeper
                                .as_ref()
                                .map(|it| it.thread_id.clone())
                                .or_else(|| config.thread_id.clone()),
                            node: slot.name,
                            payload,
                        };
                        if let Some(observe) = observe.as_deref_mut() {
                            observe(Event::Interrupted {
                                thread_id: interrupt.thread_id.clone(),
                                node: interrupt.node,
                                payload: interrupt.payload.clone(),
                            });
                        }
                        return Ok(Run { state, trace, status: Status::Interrupted(interrupt) });
                    }
                };
                let (label, hop) = route_of(slot, route, step)?;
                span.record("route", label);
                span.record("duration_us", elapsed.as_micros() as u64);
                if let Some(observe) = observe.as_deref_mut() {
                    let to = hop_names(slots, hop);
                    observe(Event::RouteTaken { step, node: slot.name, route: label, to });
                }
                state.apply(update);
                if let Some(observe) = observe.as_deref_mut() {
                    observe(Event::UpdateApplied { step, node: slot.name });
                }
                trace.push(TraceStep { step, node: slot.name, route: label });
                step += 1;
                cursor = Cursor::from(hop);
                if let Some(keeper) = keeper.as_mut() {
                    match cursor {
                        // A thread that never paused is never stored.
                        Cursor::End
                            if keeper.durability == Durability::Interrupts
                                && keeper.parent.is_none() => {}
                        Cursor::End => keeper.save(&state, step, None, None, observe).await?,
                        Cursor::Node(next) if keeper.every_step() => {
                            keeper
                                .save(&state, step, Some(slots[next].name), None, observe)
                                .await?;
                        }
                        // A fan-out and its router are saved as one step, once merged.
                        Cursor::Node(_) | Cursor::FanOut(..) => {}
                    }
                }
            }
            Cursor::FanOut(branches, join) => {
                check_limit(step, branches.len() as u64, config, &trace)?;
                check_cancel(cancel, step)?;
                if let Some(observe) = observe.as_deref_mut() {
                    for (k, &b) in branches.iter().enumerate() {
                        observe(Event::NodeStarted { step: step + k as u64, node: slots[b].name });
                    }
                }
                let timer = observe.is_some().then(Instant::now);
                let state_ref = &state;
                let results =
                    futures::future::join_all(branches.iter().enumerate().map(|(k, &b)| {
                        let slot = &slots[b];
                        let step = step + k as u64;
                        let span = tracing::debug_span!(
                            "node",
                            node = slot.name,
                            step,
                            route = field::Empty
                        );
                        call(slot, ctx, state_ref, None, step, cancel).instrument(span)
                    }))
                    .await;
                let elapsed = timer.map(|it| it.elapsed()).unwrap_or_default();
                for (k, (&b, result)) in branches.iter().zip(results).enumerate() {
                    let slot = &slots[b];
                    let branch_step = step + k as u64;
                    let (update, route) = match result? {
                        RawCommand::Goto { update, route } => (update, route),
                        RawCommand::Interrupt(_) => {
                            return Err(Error::InterruptInFanOut { node: slot.name });
                        }
                    };
                    let (label, hop) = route_of(slot, route, branch_step)?;
                    if *hop != Hop::Node(join) {
                        let to = hop_names(slots, hop).first().copied().unwrap_or("END");
                        return Err(Error::FanOutEscape {
                            node: slot.name,
                            to,
                            join: slots[join].name,
                        });
                    }
                    if let Some(observe) = observe.as_deref_mut() {
                        observe(Event::NodeFinished {
                            step: branch_step,
                            node: slot.name,
                            duration: elapsed,
                        });
                        let to = vec![slots[join].name];
                        observe(Event::RouteTaken {
                            step: branch_step,
                            node: slot.name,
                            route: label,
                            to,
                        });
                    }
                    state.apply(update);
                    if let Some(observe) = observe.as_deref_mut() {
                        observe(Event::UpdateApplied { step: branch_step, node: slot.name });
                    }
                    trace.push(TraceStep { step: branch_step, node: slot.name, route: label });
                }
                step += branches.len() as u64;
                cursor = Cursor::Node(join);
                if let Some(keeper) = keeper.as_mut()
                    && keeper.every_step()
                {
                    keeper.save(&state, step, Some(slots[join].name), None, observe).await?;
                }
            }
        }
    }
}

fn restore<N: NodeId, S: GraphState, C: Send + Sync + 'static>(
    graph: &Graph<N, S, C>,
    checkpoint: &Checkpoint,
) -> Result<(S, usize)> {
    if checkpoint.state_version != S::VERSION {
        return Err(Error::StateVersion { found: checkpoint.state_version, expected: S::VERSION });
    }
    let name = checkpoint.next.as_deref().unwrap_or_default();
    let node = *graph
        .inner
        .by_name
        .get(name)
        .ok_or_else(|| Error::UnknownCheckpointNode { node: name.to_owned() })?;
    let state = serde_json::from_str(&checkpoint.state).map_err(Error::State)?;
    Ok((state, node))
}

fn route_of<S: GraphState, C>(
    slot: &Slot<S, C>,
    route: usize,
    step: u64,
) -> Result<(&'static str, &Hop)> {
    match (slot.labels.get(route), slot.hops.get(route)) {
        (Some(&label), Some(hop)) => Ok((label, hop)),
        _ => Err(Error::Node {
            node: slot.name,
            step,
            attempts: 1,
            source: NodeError::new(format!("route index {route} is outside the node's routes")),
        }),
    }
}

fn hop_names<S: GraphState, C>(slots: &[Slot<S, C>], hop: &Hop) -> Vec<&'static str> {
    match hop {
        Hop::Node(i) => vec![slots[*i].name],
        Hop::End => vec!["END"],
        Hop::FanOut { branches, .. } => branches.iter().map(|&b| slots[b].name).collect(),
    }
}

fn check_limit(step: u64, count: u64, config: &RunConfig, trace: &[TraceStep]) -> Result<()> {
    if step + count > config.step_limit {
        let last_steps = trace[trace.len().saturating_sub(LAST_STEPS)..].to_vec();
        return Err(Error::StepLimit { limit: config.step_limit, last_steps });
    }
    Ok(())
}

fn check_cancel(cancel: Option<&CancellationToken>, step: u64) -> Result<()> {
    match cancel {
        Some(token) if token.is_cancelled() => Err(Error::Cancelled { step }),
        _ => Ok(()),
    }
}

/// Why one attempt of a node did not return.
enum Failure {
    Timeout(Duration),
    Cancelled,
}

/// Calls a node under its policy: timeout per attempt, retries with backoff, cancellation.
async fn call<S: GraphState, C>(
    slot: &Slot<S, C>,
    ctx: &C,
    state: &S,
    resume: Option<&Value>,
    step: u64,
    cancel: Option<&CancellationToken>,
) -> Result<RawCommand<S::Update>> {
    let policy = &slot.policy;
    let mut attempt = 1;
    loop {
        let outcome = match &slot.handler {
            Handler::Sync(node) => Ok(node.call(ctx, state, resume)),
            Handler::Async(node) => {
                let future = node.call(ctx, state, resume);
                if policy.timeout.is_none() && cancel.is_none() {
                    Ok(future.await)
                } else {
                    guarded(future, policy.timeout, cancel).await
                }
            }
        };
        let retry = attempt < policy.max_attempts;
        match outcome {
            Ok(Ok(command)) => return Ok(command),
            Ok(Err(err)) if retry && err.is_retryable() => {
                tracing::debug!(node = slot.name, step, attempt, error = %err, "node failed, retrying");
            }
            Ok(Err(source)) => {
                return Err(Error::Node { node: slot.name, step, attempts: attempt, source });
            }
            Err(Failure::Timeout(_)) if retry => {
                tracing::debug!(node = slot.name, step, attempt, "node timed out, retrying");
            }
            Err(Failure::Timeout(after)) => {
                return Err(Error::Timeout { node: slot.name, step, after });
            }
            Err(Failure::Cancelled) => return Err(Error::Cancelled { step }),
        }
        let wait = policy.backoff(attempt);
        attempt += 1;
        if !wait.is_zero() && guarded(tokio::time::sleep(wait), None, cancel).await.is_err() {
            return Err(Error::Cancelled { step });
        }
    }
}

async fn guarded<T>(
    future: impl Future<Output = T>,
    timeout: Option<Duration>,
    cancel: Option<&CancellationToken>,
) -> Result<T, Failure> {
    let timed = async {
        match timeout {
            Some(after) => {
                tokio::time::timeout(after, future).await.map_err(|_| Failure::Timeout(after))
            }
            None => Ok(future.await),
        }
    };
    match cancel {
        None => timed.await,
        Some(token) => tokio::select! {
            biased;
            () = token.cancelled() => Err(Failure::Cancelled),
            result = timed => result,
        },
    }
}

/// Saves the checkpoints of one run of a thread.
struct Keeper<'r> {
    store: &'r dyn Checkpointer,
    durability: Durability,
    thread_id: String,
    parent: Option<u64>,
    /// The id of the next save; `None` until the thread's latest checkpoint has been read,
    /// which a new run defers to its first save.
    next_id: Option<u64>,
    /// Whether anything was saved since the last flush.
    unflushed: bool,
}

impl<'r> Keeper<'r> {
    fn new(
        store: &'r dyn Checkpointer,
        durability: Durability,
        thread_id: String,
        parent: Option<u64>,
        latest: Option<Checkpoint>,
    ) -> Self {
        let mut keeper = Keeper::unread(store, durability, thread_id, parent);
        keeper.next_id = Some(latest.map_or(0, |it| it.id + 1));
        keeper
    }

    /// A keeper that reads the thread's latest checkpoint only when it first saves.
    fn unread(
        store: &'r dyn Checkpointer,
        durability: Durability,
        thread_id: String,
        parent: Option<u64>,
    ) -> Self {
        Keeper { store, durability, thread_id, parent, next_id: None, unflushed: false }
    }

    fn every_step(&self) -> bool {
        matches!(self.durability, Durability::Sync | Durability::Async)
    }

    async fn save<S: GraphState>(
        &mut self,
        state: &S,
        step: u64,
        next: Option<&'static str>,
        interrupt: Option<Value>,
        observe: &mut Observer<'_>,
    ) -> Result<()> {
        let id = match self.next_id {
            Some(id) => id,
            None => self.store.load(&self.thread_id, None).await?.map_or(0, |it| it.id + 1),
        };
        let checkpoint = Checkpoint {
            thread_id: self.thread_id.clone(),
            id,
            parent: self.parent,
            step,
            next: next.map(str::to_owned),
            interrupt,
            state_version: S::VERSION,
            state: serde_json::to_string(state).map_err(Error::State)?,
        };
        self.store.save(checkpoint)?;
        self.parent = Some(id);
        self.next_id = Some(id + 1);
        self.unflushed = true;
        if self.durability == Durability::Sync {
            self.finish().await?;
        }
        if let Some(observe) = observe.as_deref_mut() {
            observe(Event::CheckpointSaved { checkpoint: id, step });
        }
        Ok(())
    }

    /// Makes every saved checkpoint durable.
    async fn finish(&mut self) -> Result<()> {
        if self.unflushed {
            self.store.flush().await?;
            self.unflushed = false;
        }
        Ok(())
    }
}
