//! The graph builder and its validation: every problem is reported at once.

use std::{collections::BTreeMap, marker::PhantomData, sync::Arc};

use crate::{
    error::{Error, Problem, Result},
    graph::{Graph, Hop, Inner, Slot},
    node::{AsyncNode, Command, Handler, Node, NodeError, NodeId, Policy, Route, SyncFn},
    state::GraphState,
};

/// Where a route leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target<N> {
    /// One node.
    Node(N),
    /// The end of the run.
    End,
    /// Several nodes at once, run concurrently; their updates are merged in this order, then the
    /// run goes on at `join`. Every route of every branch must lead to `join`.
    FanOut {
        /// The branches, in merge order.
        branches: Vec<N>,
        /// Where the run continues once every branch is merged.
        join: N,
    },
}

/// Collects nodes and edges; [`GraphBuilder::compile`] validates them into a [`Graph`].
///
/// `N` names the nodes, `S` is the state and `C` the context handed to every node.
///
/// ```
/// use planner_graph::{Command, GraphBuilder, GraphState, RunConfig, node_ids, reduce, routes};
/// use serde::{Deserialize, Serialize};
///
/// node_ids! { enum Step { Check => "check", Shout => "shout", Whisper => "whisper" } }
/// routes! { enum Loud { Yes => "yes", No => "no" } }
///
/// #[derive(Debug, Default, Serialize, Deserialize)]
/// struct Text { words: Vec<String> }
///
/// impl GraphState for Text {
///     type Update = Vec<String>;
///     fn apply(&mut self, update: Vec<String>) { reduce::append(&mut self.words, update) }
/// }
///
/// let mut builder = GraphBuilder::<Step, Text, ()>::new();
/// builder.start(Step::Check);
/// builder
///     .add_fn(Step::Check, |_: &(), text: &Text, _| {
///         let loud = text.words.iter().any(|it| it.ends_with('!'));
///         Ok(Command::goto(Vec::new(), if loud { Loud::Yes } else { Loud::No }))
///     })
///     .route(Loud::Yes, Step::Shout)
///     .route(Loud::No, Step::Whisper);
/// builder.add_fn(Step::Shout, |_: &(), _: &Text, _| Ok(Command::goto(vec!["LOUD".into()], ()))).goto_end();
/// builder.add_fn(Step::Whisper, |_: &(), _: &Text, _| Ok(Command::goto(vec!["quiet".into()], ()))).goto_end();
/// let graph = builder.compile().expect("every route has a target");
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let run = graph.invoke(&(), Text { words: vec!["hi!".into()] }, &RunConfig::default()).await.unwrap();
/// assert_eq!(run.state.words, ["hi!", "LOUD"]);
/// # });
///
/// // A route without a target is reported by `compile`, with every other defect.
/// let mut broken = GraphBuilder::<Step, Text, ()>::new();
/// broken.start(Step::Check);
/// broken.add_fn(Step::Check, |_: &(), _: &Text, _| Ok(Command::goto(Vec::new(), Loud::No)))
///     .route(Loud::Yes, Step::Check);
/// assert!(broken.compile().is_err());
/// ```
pub struct GraphBuilder<N, S: GraphState, C> {
    start: Option<N>,
    decls: Vec<Decl<N, S, C>>,
}

struct Decl<N, S: GraphState, C> {
    id: N,
    /// Whether the route type numbers its values `0..n` in `ALL` order, with distinct labels.
    routes_ok: bool,
    handler: Handler<S, C>,
    labels: Vec<&'static str>,
    targets: Vec<Option<Target<N>>>,
    policy: Policy,
}

/// Sets the routes and policy of the node just added.
pub struct NodeBuilder<'b, N, S: GraphState, C, R> {
    decl: &'b mut Decl<N, S, C>,
    route: PhantomData<fn(R)>,
}

impl<N: NodeId, S: GraphState, C: Send + Sync + 'static> Default for GraphBuilder<N, S, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<N: NodeId, S: GraphState, C: Send + Sync + 'static> GraphBuilder<N, S, C> {
    /// An empty builder.
    pub fn new() -> Self {
        GraphBuilder { start: None, decls: Vec::new() }
    }

    /// Sets the node the run starts at (the edge from START).
    pub fn start(&mut self, node: N) -> &mut Self {
        self.start = Some(node);
        self
    }

    /// Adds an asynchronous node.
    pub fn add_node<T: Node<S, C>>(
        &mut self,
        id: N,
        node: T,
    ) -> NodeBuilder<'_, N, S, C, T::Route> {
        self.push::<T::Route>(id, Handler::Async(Box::new(AsyncNode(node))))
    }

    /// Adds a synchronous node: a function called without any future, the fastest kind.
    pub fn add_fn<R, F>(&mut self, id: N, node: F) -> NodeBuilder<'_, N, S, C, R>
    where
        R: Route,
        F: Fn(&C, &S, Option<&serde_json::Value>) -> Result<Command<S::Update, R>, NodeError>
            + Send
            + Sync
            + 'static,
    {
        self.push::<R>(id, Handler::Sync(Box::new(SyncFn(node, PhantomData))))
    }

    fn push<R: Route>(&mut self, id: N, handler: Handler<S, C>) -> NodeBuilder<'_, N, S, C, R> {
        let labels: Vec<_> = R::ALL.iter().map(|it| it.label()).collect();
        let routes_ok = R::ALL.iter().enumerate().all(|(i, it)| it.index() == i)
            && labels.iter().collect::<std::collections::BTreeSet<_>>().len() == labels.len();
        let targets = vec![None; labels.len()];
        self.decls.push(Decl { id, routes_ok, handler, labels, targets, policy: Policy::NONE });
        let decl = self.decls.last_mut().expect("a node was just pushed");
        NodeBuilder { decl, route: PhantomData }
    }

    /// Validates the graph; on success it is immutable and cheap to share.
    ///
    /// # Errors
    /// [`Error::Invalid`] listing every [`Problem`] found.
    pub fn compile(self) -> Result<Graph<N, S, C>> {
        let problems = self.problems();
        if !problems.is_empty() {
            return Err(Error::Invalid { problems });
        }
        let index: BTreeMap<N, usize> =
            self.decls.iter().enumerate().map(|(i, decl)| (decl.id, i)).collect();
        let at = |node: &N| index[node];
        let start = self.start.as_ref().map(at).expect("validated: start is set");
        let slots = self
            .decls
            .into_iter()
            .map(|decl| {
                let hops = decl
                    .targets
                    .iter()
                    .map(|target| {
                        match target.as_ref().expect("validated: every route has a target") {
                            Target::Node(node) => Hop::Node(at(node)),
                            Target::End => Hop::End,
                            Target::FanOut { branches, join } => Hop::FanOut {
                                branches: branches.iter().map(at).collect(),
                                join: at(join),
                            },
                        }
                    })
                    .collect();
                Slot {
                    name: decl.id.name(),
                    handler: decl.handler,
                    labels: decl.labels.into_boxed_slice(),
                    hops,
                    policy: decl.policy,
                }
            })
            .collect::<Vec<_>>();
        let by_name = slots.iter().enumerate().map(|(i, slot)| (slot.name, i)).collect();
        Ok(Graph::from_inner(Arc::new(Inner { start, slots: slots.into_boxed_slice(), by_name })))
    }

    /// Every problem of the graph as declared, sorted.
    fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut index = BTreeMap::new();
        let mut names = BTreeMap::new();
        for (i, decl) in self.decls.iter().enumerate() {
            if index.contains_key(&decl.id) {
                problems.push(Problem::DuplicateNode { node: decl.id.name() });
                continue;
            }
            index.insert(decl.id, i);
            if names.insert(decl.id.name(), decl.id).is_some() {
                problems.push(Problem::DuplicateName { name: decl.id.name() });
            }
        }
        match self.start {
            None => problems.push(Problem::NoStart),
            Some(start) if !index.contains_key(&start) => {
                problems.push(Problem::UnknownNode { from: "START", to: start.name() });
            }
            Some(_) => {}
        }

        // Edges between known nodes, as indexes; `None` stands for END.
        let mut edges: Vec<Vec<Option<usize>>> = vec![Vec::new(); self.decls.len()];
        for (i, decl) in self.decls.iter().enumerate() {
            let node = decl.id.name();
            if !decl.routes_ok {
                problems.push(Problem::BadRouteTable { node });
            }
            if decl.targets.iter().all(Option::is_none) {
                problems.push(Problem::NoOutgoingEdges { node });
            }
            let out = &mut edges[i];
            let link =
                |to: &N, out: &mut Vec<Option<usize>>, problems: &mut Vec<Problem>| match index
                    .get(to)
                {
                    Some(&j) => out.push(Some(j)),
                    None => problems.push(Problem::UnknownNode { from: node, to: to.name() }),
                };
            for (target, &route) in decl.targets.iter().zip(&decl.labels) {
                match target {
                    None if decl.targets.iter().any(Option::is_some) => {
                        problems.push(Problem::MissingTarget { node, route });
                    }
                    None => {}
                    Some(Target::End) => out.push(None),
                    Some(Target::Node(to)) => link(to, out, &mut problems),
                    Some(Target::FanOut { branches, join }) => {
                        if branches.is_empty() {
                            problems.push(Problem::EmptyFanOut { node, route });
                        }
                        for branch in branches {
                            link(branch, out, &mut problems);
                            let escapes = index.get(branch).is_some_and(|&b| {
                                self.decls[b]
                                    .targets
                                    .iter()
                                    .any(|it| it.as_ref() != Some(&Target::Node(*join)))
                            });
                            if escapes {
                                problems.push(Problem::FanBranchEscapes {
                                    node,
                                    branch: branch.name(),
                                    join: join.name(),
                                });
                            }
                        }
                        if branches.is_empty() {
                            link(join, out, &mut problems);
                        }
                    }
                }
            }
        }

        // Forward reachability from START.
        let mut reached = vec![false; self.decls.len()];
        let mut stack: Vec<usize> =
            self.start.and_then(|it| index.get(&it).copied()).into_iter().collect();
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut reached[i], true) {
                stack.extend(edges[i].iter().flatten());
            }
        }
        // Backward reachability from END, to a fixed point.
        let mut ends = vec![false; self.decls.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..self.decls.len() {
                if !ends[i] && edges[i].iter().any(|it| it.is_none_or(|j| ends[j])) {
                    ends[i] = true;
                    changed = true;
                }
            }
        }
        for (i, decl) in self.decls.iter().enumerate() {
            if index.get(&decl.id) != Some(&i) {
                continue;
            }
            let node = decl.id.name();
            if !reached[i] {
                problems.push(Problem::Unreachable { node });
            }
            if !ends[i] && !edges[i].is_empty() {
                problems.push(Problem::CannotReachEnd { node });
            }
        }
        problems.sort();
        problems.dedup();
        problems
    }
}

impl<N: NodeId, S: GraphState, C, R: Route> NodeBuilder<'_, N, S, C, R> {
    /// Sends `route` to `to`.
    pub fn route(self, route: R, to: N) -> Self {
        self.target(route, Target::Node(to))
    }

    /// Sends `route` to END.
    pub fn route_end(self, route: R) -> Self {
        self.target(route, Target::End)
    }

    /// Sends `route` to every branch at once; the run goes on at `join` once all are merged.
    pub fn fan_out(self, route: R, branches: impl IntoIterator<Item = N>, join: N) -> Self {
        self.target(route, Target::FanOut { branches: branches.into_iter().collect(), join })
    }

    /// Sends `route` to `target`.
    pub fn target(self, route: R, target: Target<N>) -> Self {
        let i = route.index();
        if let Some(slot) = self.decl.targets.get_mut(i) {
            *slot = Some(target);
        }
        self
    }

    /// Sets the node's timeout and retry policy.
    pub fn policy(self, policy: Policy) -> Self {
        self.decl.policy = policy;
        self
    }
}

impl<N: NodeId, S: GraphState, C> NodeBuilder<'_, N, S, C, ()> {
    /// The node's one fixed successor.
    pub fn goto(self, to: N) -> Self {
        self.route((), to)
    }

    /// The node always ends the run.
    pub fn goto_end(self) -> Self {
        self.route_end(())
    }
}

impl<N: std::fmt::Debug, S: GraphState, C> std::fmt::Debug for GraphBuilder<N, S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphBuilder")
            .field("start", &self.start)
            .field("nodes", &self.decls.iter().map(|it| &it.id).collect::<Vec<_>>())
            .finish()
    }
}

impl<N: std::fmt::Debug, S: GraphState, C, R> std::fmt::Debug for NodeBuilder<'_, N, S, C, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeBuilder").field("node", &self.decl.id).finish()
    }
}
