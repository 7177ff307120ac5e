//! Generated graphs for the properties: well-formed ones, and defects to plant in them.

use planner_graph::{
    Command, Error, Graph, GraphBuilder, GraphState, NodeError, NodeId, Problem, Route, Target,
    routes,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const NAMES: &[&str] = &[
    "n0",
    "n1",
    "n2",
    "n3",
    "n4",
    "n5",
    "n6",
    "n7",
    "n8",
    "n9",
    "x_unreachable",
    "x_no_edges",
    "x_cycle_a",
    "x_cycle_b",
    "x_unknown_from",
    "x_missing",
    "x_never_added",
];

/// A generated node: `G(i)` is named `NAMES[i]`; `G(100 + i)` clashes with `G(i)`'s name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct G(pub usize);

impl NodeId for G {
    fn name(self) -> &'static str {
        NAMES[self.0 % 100]
    }
}

const UNREACHABLE: G = G(10);
const NO_EDGES: G = G(11);
const CYCLE_A: G = G(12);
const CYCLE_B: G = G(13);
const UNKNOWN_FROM: G = G(14);
const MISSING: G = G(15);
const NEVER_ADDED: G = G(16);

routes! { pub enum Two { A => "via_a", B => "via_b" } }
routes! { pub enum Three { A => "via_a", B => "via_b", C => "via_c" } }

/// A well-formed graph: node `i` has `routes[i].len()` routes; route 0 follows the spine
/// `0 -> 1 -> ... -> END`, the others lead anywhere (`None` is END).
#[derive(Debug, Clone)]
pub struct Spec {
    pub routes: Vec<Vec<Option<usize>>>,
}

pub fn spec() -> impl Strategy<Value = Spec> {
    (1usize..=8).prop_flat_map(|n| {
        let node = move |i: usize| {
            prop::collection::vec(prop::option::weighted(0.85, 0..n), 0..=2).prop_map(
                move |extra| {
                    let spine = if i + 1 < n { Some(i + 1) } else { None };
                    std::iter::once(spine).chain(extra).collect::<Vec<_>>()
                },
            )
        };
        (0..n).map(node).collect::<Vec<_>>().prop_map(|routes| Spec { routes })
    })
}

/// Defects to plant, each on nodes of its own so they never hide one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    Unreachable,
    NoOutgoingEdges,
    CannotReachEnd,
    DuplicateName,
    DuplicateNode,
    UnknownNode,
    MissingTarget,
}

pub fn defects() -> impl Strategy<Value = Vec<Defect>> {
    prop::sample::subsequence(
        vec![
            Defect::Unreachable,
            Defect::NoOutgoingEdges,
            Defect::CannotReachEnd,
            Defect::DuplicateName,
            Defect::DuplicateNode,
            Defect::UnknownNode,
            Defect::MissingTarget,
        ],
        0..=7,
    )
}

impl Defect {
    /// The problem the builder must report for this defect.
    pub fn problem(self) -> Problem {
        match self {
            Defect::Unreachable => Problem::Unreachable { node: UNREACHABLE.name() },
            Defect::NoOutgoingEdges => Problem::NoOutgoingEdges { node: NO_EDGES.name() },
            Defect::CannotReachEnd => Problem::CannotReachEnd { node: CYCLE_A.name() },
            Defect::DuplicateName => Problem::DuplicateName { name: G(0).name() },
            Defect::DuplicateNode => Problem::DuplicateNode { node: G(0).name() },
            Defect::UnknownNode => {
                Problem::UnknownNode { from: UNKNOWN_FROM.name(), to: NEVER_ADDED.name() }
            }
            Defect::MissingTarget => {
                Problem::MissingTarget { node: MISSING.name(), route: "via_b" }
            }
        }
    }
}

/// State of generated runs: a counter and the nodes visited.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenState {
    pub counter: u64,
    pub visited: Vec<usize>,
}

impl GraphState for GenState {
    type Update = usize;

    fn apply(&mut self, node: usize) {
        self.counter += 1;
        self.visited.push(node);
    }
}

/// The context of generated runs: the step at which a node interrupts, if any.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenCtx {
    pub interrupt_at: Option<u64>,
}

type Builder = GraphBuilder<G, GenState, GenCtx>;

/// A deterministic node: interrupts at the chosen step unless resumed, else routes by the
/// counter.
fn add<R: Route>(b: &mut Builder, id: G, targets: &[Option<Target<G>>]) {
    let i = id.0;
    let mut node = b.add_fn(id, move |ctx: &GenCtx, state: &GenState, resume: Option<&Value>| {
        if resume.is_none() && ctx.interrupt_at == Some(state.counter) {
            return Ok(Command::Interrupt(Value::from(state.counter)));
        }
        let pick =
            usize::try_from(state.counter).map_err(|_| NodeError::new("counter overflow"))?;
        let route = R::ALL[(pick * 7 + i) % R::ALL.len()];
        Ok(Command::goto(i, route))
    });
    for (route, target) in R::ALL.iter().zip(targets) {
        if let Some(target) = target {
            node = node.target(*route, target.clone());
        }
    }
}

fn add_any(b: &mut Builder, id: G, targets: &[Option<Target<G>>]) {
    match targets.len() {
        1 => add::<()>(b, id, targets),
        2 => add::<Two>(b, id, targets),
        _ => add::<Three>(b, id, targets),
    }
}

/// Builds the spec with the defects planted.
pub fn build(spec: &Spec, defects: &[Defect]) -> Result<Graph<G, GenState, GenCtx>, Error> {
    let mut b = Builder::new();
    b.start(G(0));
    for (i, routes) in spec.routes.iter().enumerate() {
        let targets: Vec<_> =
            routes.iter().map(|it| Some(it.map_or(Target::End, |j| Target::Node(G(j))))).collect();
        add_any(&mut b, G(i), &targets);
    }
    let end = || Some(Target::End);
    let to = |g: G| Some(Target::Node(g));
    for defect in defects {
        match defect {
            Defect::Unreachable => add_any(&mut b, UNREACHABLE, &[end()]),
            Defect::NoOutgoingEdges => add_any(&mut b, NO_EDGES, &[None]),
            Defect::CannotReachEnd => {
                add_any(&mut b, CYCLE_A, &[to(CYCLE_B)]);
                add_any(&mut b, CYCLE_B, &[to(CYCLE_A)]);
            }
            Defect::DuplicateName => add_any(&mut b, G(100), &[end()]),
            Defect::DuplicateNode => add_any(&mut b, G(0), &[end()]),
            Defect::UnknownNode => add_any(&mut b, UNKNOWN_FROM, &[to(NEVER_ADDED)]),
            Defect::MissingTarget => add_any(&mut b, MISSING, &[end(), None]),
        }
    }
    b.compile()
}
