//! Self-consistency: from K proposals, keep what a strict majority of validated plans agree on.

use std::collections::BTreeMap;

use planner_registry::Registry;

use crate::bind::Inputs;
use crate::plan::{DropReason, Validation};
use crate::validate::{proposal_names, validate};

/// The plan kept from K proposals and how it was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consensus {
    /// The validation of the names a strict majority agreed on.
    pub validation: Validation,
    /// How the samples agreed.
    pub outcome: ConsensusOutcome,
}

/// How K samples agreed; counts only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsensusOutcome {
    /// K, the number of proposals.
    pub samples: usize,
    /// The kind of agreement.
    pub agreement: Agreement,
    /// Names kept (present in a strict majority of validated plans).
    pub kept: usize,
    /// Names present in some validated plan but not in a majority.
    pub discarded: usize,
    /// Unknown names across all samples.
    pub unknown: usize,
}

/// The kind of agreement between samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Agreement {
    /// No proposal at all: the plan is empty.
    NoProposal,
    /// One proposal: nothing to agree on.
    Single,
    /// Every validated plan had the same names.
    Unanimous,
    /// Some names had a strict majority; the others were discarded.
    Majority,
    /// No name had a strict majority: the plan is empty.
    NoMajority,
}

impl Agreement {
    /// The agreement's name as recorded in traces: `no_proposal`, `single`, `unanimous`,
    /// `majority`, `no_majority`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Agreement::NoProposal => "no_proposal",
            Agreement::Single => "single",
            Agreement::Unanimous => "unanimous",
            Agreement::Majority => "majority",
            Agreement::NoMajority => "no_majority",
        }
    }
}

/// Validates each of the K proposals, keeps the proposal names (composites by their own name)
/// present in a strict majority (more than K/2) of the validated plans, and validates those.
/// With no majority the plan is empty and the outcome says so.
pub fn stabilize(registry: &Registry, inputs: &Inputs<'_>, proposals: &[Vec<String>]) -> Consensus {
    let samples = proposals.len();
    let mut votes: BTreeMap<String, usize> = BTreeMap::new();
    let mut sets: Vec<Vec<String>> = Vec::with_capacity(samples);
    let mut unknown = 0;
    // A single proposal's validation is the answer: kept, not made twice.
    let mut only = None;
    for proposal in proposals {
        let validation = validate(registry, inputs, proposal);
        unknown += validation.dropped.iter().filter(|d| d.reason == DropReason::Unknown).count();
        let names = proposal_names(registry, &validation.plan);
        for name in &names {
            *votes.entry(name.clone()).or_default() += 1;
        }
        sets.push(names);
        if samples == 1 {
            only = Some(validation);
        }
    }
    let kept: Vec<String> = votes
        .iter()
        .filter(|&(_, &count)| 2 * count > samples)
        .map(|(name, _)| name.clone())
        .collect();
    let discarded = votes.len() - kept.len();
    let unanimous = sets.windows(2).all(|pair| pair[0] == pair[1]);
    let agreement = match samples {
        0 => Agreement::NoProposal,
        1 => Agreement::Single,
        _ if unanimous => Agreement::Unanimous,
        _ if kept.is_empty() => Agreement::NoMajority,
        _ => Agreement::Majority,
    };
    let validation = match agreement {
        Agreement::NoProposal | Agreement::NoMajority => Validation::default(),
        Agreement::Single => only.unwrap_or_default(),
        Agreement::Unanimous | Agreement::Majority => validate(registry, inputs, &kept),
    };
    Consensus {
        validation,
        outcome: ConsensusOutcome { samples, agreement, kept: kept.len(), discarded, unknown },
    }
}
