//! Validation of a proposal: names resolved, composites expanded, arguments and edges bound,
//! scopes, depth and the node cap enforced, the result put in registry order.

use planner_registry::{IntentBody, IntentId, ParamId, Registry, Requirement};

use crate::bind::{Inputs, bind_one};
use crate::plan::{
    ArgSource, BoundArg, DropReason, Dropped, Edge, NodeOrigin, Plan, PlanNode, Validation,
};

/// The most edges on any chain of a plan: a node may depend on a node that depends on one more.
pub const MAX_DEPTH: u8 = 2;

/// The source of an arg that waits for an edge (never left in a returned plan: a node with
/// one is dropped as unbindable).
const PENDING: ArgSource = ArgSource::Upstream(usize::MAX - 1);
/// The source of an arg bound to an edge whose index is fixed when the plan is assembled.
const BOUND: usize = usize::MAX;

/// A candidate node while validating.
#[derive(Debug)]
struct Candidate {
    intent: IntentId,
    origin: NodeOrigin,
    /// One arg per intent param; `Upstream` ones are waiting for (or bound to) an edge.
    args: Vec<BoundArg>,
    /// How many args still wait for an edge.
    pending: usize,
    /// Upstream edges, as (from intent, column, param).
    upstream: Vec<(IntentId, usize, ParamId)>,
    /// `Some` once every argument is bound: the node's depth.
    depth: Option<u8>,
}

/// Validates a proposal of raw intent names against the registry and the caller's inputs.
/// Never fails: whatever cannot be planned is dropped with its reason. The result does not
/// depend on the order or repetition of the proposal's names.
pub fn validate(registry: &Registry, inputs: &Inputs<'_>, proposal: &[String]) -> Validation {
    let mut dropped = Vec::new();

    // Resolve names; count repeats.
    let mut named: Vec<IntentId> = Vec::with_capacity(proposal.len());
    for name in proposal {
        match registry.intent_id(name) {
            None => dropped.push(Dropped {
                name: name.clone(),
                intent: None,
                reason: DropReason::Unknown,
            }),
            Some(id) if named.contains(&id) => {
                dropped.push(Dropped {
                    name: name.clone(),
                    intent: Some(id),
                    reason: DropReason::Duplicate,
                });
            }
            Some(id) => named.push(id),
        }
    }
    named.sort_unstable();

    // Expand composites (the smallest composite id wins a shared member), collecting their edges.
    let mut origins: Vec<(IntentId, NodeOrigin)> = Vec::with_capacity(named.len() + 4);
    let mut declared: Vec<(IntentId, usize, IntentId, ParamId)> = Vec::new();
    for &id in &named {
        if registry.intent(id).is_composite() {
            expand(registry, id, id, &mut origins, &mut declared, 0);
        }
    }
    for &id in &named {
        if !registry.intent(id).is_composite() && !origins.iter().any(|&(known, _)| known == id) {
            origins.push((id, NodeOrigin::Proposed));
        }
    }
    origins.sort_unstable_by_key(|&(id, _)| id);

    // Scopes, then binding from the question.
    let mut candidates: Vec<Candidate> = Vec::with_capacity(origins.len());
    for &(id, origin) in &origins {
        let intent = registry.intent(id);
        let lacking: Vec<String> = intent
            .scopes()
            .iter()
            .filter(|scope| !inputs.scopes.contains(scope))
            .cloned()
            .collect();
        if !lacking.is_empty() {
            dropped.push(Dropped {
                name: intent.name.clone(),
                intent: Some(id),
                reason: DropReason::Forbidden { scopes: lacking },
            });
            continue;
        }
        candidates.push(candidate(registry, inputs, id, origin, &declared));
    }

    bind_edges(registry, inputs, &mut candidates, &declared);
    if inputs.refers {
        bind_optional_edges(registry, &mut candidates);
    }

    // Whatever is still unbound is dropped with its missing params.
    candidates.retain(|candidate| {
        if candidate.depth.is_some() {
            return true;
        }
        if candidate.origin != NodeOrigin::Provider {
            let intent = registry.intent(candidate.intent);
            let missing = candidate
                .args
                .iter()
                .filter(|arg| arg.source == PENDING)
                .map(|arg| arg.param)
                .collect();
            dropped.push(Dropped {
                name: intent.name.clone(),
                intent: Some(candidate.intent),
                reason: DropReason::Unbindable { missing },
            });
        }
        false
    });
    let ready = candidates;
    // A node whose provider was dropped is unbindable too; providers are bound, so this only
    // matters after the cap. Apply the cap with each node's upstream closure.
    let kept = apply_cap(registry, &ready, &mut dropped);

    dropped.sort();
    Validation { plan: assemble(ready, &kept), dropped }
}

/// The names that reproduce a plan when proposed again: proposed nodes by their own name,
/// composite members by their composite's, added providers left out (validation adds them
/// again). Sorted and without repeats.
pub fn proposal_names(registry: &Registry, plan: &Plan) -> Vec<String> {
    let mut ids: Vec<IntentId> = plan
        .nodes
        .iter()
        .filter_map(|node| match node.origin {
            NodeOrigin::Proposed => Some(node.intent),
            NodeOrigin::Composite(composite) => Some(composite),
            NodeOrigin::Provider => None,
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter().map(|id| registry.intent(id).name.clone()).collect()
}

fn expand(
    registry: &Registry,
    top: IntentId,
    composite: IntentId,
    origins: &mut Vec<(IntentId, NodeOrigin)>,
    declared: &mut Vec<(IntentId, usize, IntentId, ParamId)>,
    level: usize,
) {
    // The registry rejects cycles; the level bound keeps this total anyway.
    if level > registry.len() {
        return;
    }
    let IntentBody::Composite(body) = &registry.intent(composite).body else { return };
    for edge in &body.edges {
        declared.push((edge.from, edge.column, edge.to, edge.param));
    }
    for &member in &body.members {
        if registry.intent(member).is_composite() {
            expand(registry, top, member, origins, declared, level + 1);
        } else if !origins.iter().any(|&(known, _)| known == member) {
            origins.push((member, NodeOrigin::Composite(top)));
        }
    }
}

fn candidate(
    registry: &Registry,
    inputs: &Inputs<'_>,
    id: IntentId,
    origin: NodeOrigin,
    declared: &[(IntentId, usize, IntentId, ParamId)],
) -> Candidate {
    let intent = registry.intent(id);
    let mut pending = 0;
    let args: Vec<BoundArg> = intent
        .params
        .iter()
        .map(|param| {
            // A composite's declared edge binds its member's param even when it is available.
            let by_composite = matches!(origin, NodeOrigin::Composite(_))
                && declared.iter().any(|&(_, _, to, p)| to == id && p == param.param);
            let bound =
                if by_composite { None } else { bind_one(registry, &intent.params, param, inputs) };
            let source = bound.unwrap_or_else(|| {
                pending += 1;
                PENDING
            });
            BoundArg { param: param.param, kind: param.kind, source }
        })
        .collect();
    let depth = (pending == 0).then_some(0);
    Candidate { intent: id, origin, args, pending, upstream: Vec::new(), depth }
}

/// Binds missing params through edges from bound nodes, adding a provider node when exactly one
/// registry intent could provide a param from the available params, until nothing changes.
fn bind_edges(
    registry: &Registry,
    inputs: &Inputs<'_>,
    candidates: &mut Vec<Candidate>,
    declared: &[(IntentId, usize, IntentId, ParamId)],
) {
    loop {
        let mut progress = false;
        for index in 0..candidates.len() {
            if candidates[index].depth.is_none() && try_edges(registry, candidates, index, declared)
            {
                progress = true;
            }
        }
        if progress {
            continue;
        }
        if !add_provider(registry, inputs, candidates, declared) {
            return;
        }
    }
}

/// Tries to bind every missing param of `candidates[index]` from bound nodes of depth below
/// the limit. Binds nothing unless it can bind everything.
fn try_edges(
    registry: &Registry,
    candidates: &mut [Candidate],
    index: usize,
    declared: &[(IntentId, usize, IntentId, ParamId)],
) -> bool {
    let target = candidates[index].intent;
    let intent = registry.intent(target);
    let mut chosen: Vec<(usize, IntentId, usize, ParamId)> =
        Vec::with_capacity(candidates[index].pending);
    let mut depth = 0u8;
    for (slot, param) in intent.params.iter().enumerate() {
        if candidates[index].args[slot].source != PENDING {
            continue;
        }
        let composite_from = declared
            .iter()
            .find(|&&(_, _, to, p)| to == target && p == param.param)
            .map(|&(from, column, _, _)| (from, column));
        let provider = candidates.iter().filter(|c| c.intent != target).find_map(|c| {
            let d = c.depth.filter(|&d| d < MAX_DEPTH)?;
            let column = match composite_from {
                Some((from, column)) => (from == c.intent).then_some(column)?,
                None => registry.intent(c.intent).providing_column(param.param)?,
            };
            Some((c.intent, column, d))
        });
        let Some((from, column, from_depth)) = provider else { return false };
        depth = depth.max(from_depth + 1);
        chosen.push((slot, from, column, param.param));
    }
    let node = &mut candidates[index];
    for (slot, from, column, param) in chosen {
        node.upstream.push((from, column, param));
        // The edge index is fixed when the plan is assembled.
        node.args[slot].source = ArgSource::Upstream(BOUND);
    }
    node.pending = 0;
    node.depth = Some(depth);
    true
}

/// Binds the optional params left to their defaults through edges from bound nodes that provide
/// them, when the question refers back: "top 3 carriers by spend and how reliable were they"
/// rates those 3 carriers, not all of them. Only a node nothing depends on takes such an edge,
/// from a node that does not depend on it, within the depth limit, so no cycle and no deeper
/// chain can arise.
fn bind_optional_edges(registry: &Registry, candidates: &mut [Candidate]) {
    for index in 0..candidates.len() {
        let target = candidates[index].intent;
        let Some(mut depth) = candidates[index].depth else { continue };
        let depended_on =
            candidates.iter().any(|c| c.upstream.iter().any(|&(from, _, _)| from == target));
        if depended_on {
            continue;
        }
        let mut chosen = Vec::new();
        for (slot, arg) in candidates[index].args.iter().enumerate() {
            if !matches!(arg.source, ArgSource::Default(_)) {
                continue;
            }
            let provider = candidates.iter().filter(|c| c.intent != target).find_map(|c| {
                let d = c.depth.filter(|&d| d < MAX_DEPTH)?;
                let upstream_of_target = c.upstream.iter().any(|&(from, _, _)| {
                    from == target
                        || candidates.iter().any(|u| {
                            u.intent == from && u.upstream.iter().any(|&(f, _, _)| f == target)
                        })
                });
                if upstream_of_target {
                    return None;
                }
                let column = registry.intent(c.intent).providing_column(arg.param)?;
                Some((c.intent, column, d))
            });
            if let Some((from, column, from_depth)) = provider {
                depth = depth.max(from_depth + 1);
                chosen.push((slot, from, column, arg.param));
            }
        }
        let node = &mut candidates[index];
        for (slot, from, column, param) in chosen {
            node.upstream.push((from, column, param));
            node.args[slot].source = ArgSource::Upstream(BOUND);
        }
        node.depth = Some(depth);
    }
}

/// Adds the one registry intent that could provide a param some unbound node lacks, when
/// there is exactly one such intent. Returns whether a node was added. A provider is added on
/// its own only when it needs a value the question gives (a required param): one with defaults
/// alone would supply whatever its defaults pick (the top customers of all time), which the
/// question did not ask for, so the user is asked instead.
fn add_provider(
    registry: &Registry,
    inputs: &Inputs<'_>,
    candidates: &mut Vec<Candidate>,
    declared: &[(IntentId, usize, IntentId, ParamId)],
) -> bool {
    for index in 0..candidates.len() {
        if candidates[index].depth.is_some() {
            continue;
        }
        let intent = registry.intent(candidates[index].intent);
        for (slot, param) in intent.params.iter().enumerate() {
            if candidates[index].args[slot].source != PENDING {
                continue;
            }
            let provided_in_plan = candidates.iter().any(|c| {
                c.depth.is_some()
                    && registry.intent(c.intent).providing_column(param.param).is_some()
            });
            if provided_in_plan {
                continue;
            }
            let mut could = registry.providers_of(param.param).iter().copied().filter(|&id| {
                id != candidates[index].intent
                    && !candidates.iter().any(|c| c.intent == id)
                    && registry
                        .intent(id)
                        .scopes()
                        .iter()
                        .all(|scope| inputs.scopes.contains(scope))
                    && registry.intent(id).params.iter().all(|p| {
                        bind_one(registry, &registry.intent(id).params, p, inputs).is_some()
                    })
                    && registry
                        .intent(id)
                        .params
                        .iter()
                        .any(|p| p.requirement == Requirement::Required)
            });
            if let (Some(only), None) = (could.next(), could.next()) {
                let added = candidate(registry, inputs, only, NodeOrigin::Provider, declared);
                let at = candidates.partition_point(|c| c.intent < only);
                candidates.insert(at, added);
                return true;
            }
        }
    }
    false
}

/// Chooses the nodes that fit the cap: in registry order, each proposed node with its whole
/// upstream closure, or not at all. Providers enter only with a node that needs them.
fn apply_cap(registry: &Registry, ready: &[Candidate], dropped: &mut Vec<Dropped>) -> Vec<bool> {
    let cap = registry.node_cap();
    let mut kept = vec![false; ready.len()];
    let mut count = 0;
    let position = |id: IntentId| ready.iter().position(|c| c.intent == id);
    let mut closure = Vec::with_capacity(ready.len());
    for index in 0..ready.len() {
        if kept[index] || ready[index].origin == NodeOrigin::Provider {
            continue;
        }
        // The node's upstream closure that is not kept yet.
        closure.clear();
        closure.push(index);
        let mut cursor = 0;
        let mut complete = true;
        while cursor < closure.len() {
            for &(from, _, _) in &ready[closure[cursor]].upstream {
                match position(from) {
                    Some(at) if !kept[at] && !closure.contains(&at) => closure.push(at),
                    Some(_) => {}
                    None => complete = false,
                }
            }
            cursor += 1;
        }
        if complete && count + closure.len() <= cap {
            count += closure.len();
            for &at in &closure {
                kept[at] = true;
            }
        } else {
            let intent = registry.intent(ready[index].intent);
            dropped.push(Dropped {
                name: intent.name.clone(),
                intent: Some(intent.id),
                reason: DropReason::OverCap,
            });
        }
    }
    kept
}

fn assemble(ready: Vec<Candidate>, kept: &[bool]) -> Plan {
    let kept_nodes: Vec<Candidate> = ready
        .into_iter()
        .zip(kept)
        .filter_map(|(candidate, &keep)| keep.then_some(candidate))
        .collect();
    let index_of = |id: IntentId| kept_nodes.iter().position(|c| c.intent == id);
    let mut edges = Vec::new();
    for (to, candidate) in kept_nodes.iter().enumerate() {
        for &(from, column, param) in &candidate.upstream {
            if let Some(from) = index_of(from) {
                edges.push(Edge { from, column, to, param });
            }
        }
    }
    edges.sort_unstable_by_key(|edge| (edge.to, edge.param, edge.from));
    let nodes = kept_nodes
        .into_iter()
        .enumerate()
        .map(|(to, candidate)| {
            let mut args = candidate.args;
            for arg in &mut args {
                if let ArgSource::Upstream(edge) = &mut arg.source {
                    *edge = edges
                        .iter()
                        .position(|e| e.to == to && e.param == arg.param)
                        .unwrap_or(BOUND);
                }
            }
            PlanNode { intent: candidate.intent, args, origin: candidate.origin }
        })
        .collect();
    Plan { nodes, edges }
}
