//! Choosing intents for one question: [`LexicalProposer::pick`] as a sequence of named stages
//! over one [`Reading`], each stage a file of its own under `pick/` with the principle it
//! encodes in its docs.
//!
//! 1. [`asks`]: each ask's best intent by score; a bare count beside other asks is no ask.
//! 2. [`fallback`]: asks with no pick of their own, decided by the values the question gives.
//! 3. [`values`]: a question of values alone is about the one intent they fit.
//! 4. [`cover`]: the greedy cover: the best ask always stands, others when they score enough
//!    and what they need is given or provided.
//! 5. [`give_way`]: a pick gives way to the intent that a telling value of the question is
//!    about.
//! 6. [`ends`]: a pick taking a kind the question gives both ends of ("LAX to SEA"), but not
//!    both ends, gives way to the intent taking them.
//! 7. [`pointed`]: a thing pointed at by its cue word ("my incident") is what is asked about.
//! 8. [`dependants`]: asks that waited for a provider, intents named beside a provider, and
//!    asks that refer back ("what orders have they placed", "the weekly trend for each one")
//!    join.
//! 9. [`fed`]: a pick lacking what another intent provides, in a question whose values it
//!    does not take are all that provider's, is fed by it.
//! 10. [`lacking`]: a lone pick lacking a value of a distinctive kind: another thing named, or
//!     nothing.

mod asks;
mod cover;
mod dependants;
mod ends;
mod fallback;
mod fed;
mod give_way;
mod lacking;
mod pointed;
mod values;

use std::collections::BTreeSet;

use planner_registry::ParamKind;

use super::{
    Asks, LexicalPick, LexicalProposer, MAX_PICKS, Masks, Range, Scoring, Segment, keep_best,
};
use crate::ParamSpan;

/// One ask's best intent.
#[derive(Debug, Clone, Copy)]
struct Ask {
    /// The intent (its index in the catalog).
    intent: usize,
    score: f32,
    /// The ask is a framing phrase or a modifier: context, not an ask, beside asks that stand.
    context: bool,
    /// The segment asking; `None` for the intent a question of values alone is about.
    segment: Option<usize>,
}

/// What [`LexicalProposer::pick`] knows of a question as its stages read it.
struct Reading<'a> {
    proposer: &'a LexicalProposer,
    question: &'a str,
    available: &'a BTreeSet<ParamKind>,
    spans: &'a [ParamSpan],
    /// The asks heard, and where the asks for a thing no intent returns are.
    segments: Vec<Segment>,
    elsewhere: Vec<Range>,
    /// The question says a word the registry does not know.
    unknown: bool,
    /// The question asks for something else entirely.
    foreign: bool,
    scoring: Scoring,
    asks: Vec<Ask>,
    /// The segments whose asks stand without the score (what their value says decides).
    anchored: Vec<usize>,
    /// Each segment's best intent, by the segment's start.
    best: Vec<(usize, usize)>,
    /// The chosen intents, in the order chosen.
    chosen: Vec<usize>,
    /// The term columns of the asks that chose.
    heard: Vec<usize>,
    /// Each chosen intent with the segment of the ask that chose it.
    origins: Vec<(usize, Option<usize>)>,
    /// Asks that stood but needed what no chosen intent provided yet.
    deferred: Vec<(usize, Option<usize>)>,
}

impl LexicalProposer {
    /// Chooses intents for `question`, given the available param kinds and where the param
    /// values were found (pass `&[]` when unknown): the stages of this module, in order.
    pub fn pick(
        &self,
        question: &str,
        available: &BTreeSet<ParamKind>,
        spans: &[ParamSpan],
    ) -> LexicalPick {
        let mut reading = Reading::new(self, question, available, spans);
        reading.drop_counts();
        reading.own_asks();
        reading.anchor_rare_values();
        reading.fall_back();
        reading.values_alone();
        reading.cover();
        reading.give_way_to_values();
        reading.both_ends();
        reading.pointed_thing();
        reading.deferred_stand();
        reading.name_dependants();
        reading.refer_back();
        reading.fed_by_values();
        reading.lacking_value();
        reading.finish()
    }
}

impl<'a> Reading<'a> {
    fn new(
        proposer: &'a LexicalProposer,
        question: &'a str,
        available: &'a BTreeSet<ParamKind>,
        spans: &'a [ParamSpan],
    ) -> Reading<'a> {
        let (Asks { segments, elsewhere }, unknown, foreign) =
            proposer.segments(question, &Masks::of(spans));
        Reading {
            proposer,
            question,
            available,
            spans,
            segments,
            elsewhere,
            unknown,
            foreign,
            scoring: proposer.factors(available),
            asks: Vec::new(),
            anchored: Vec::new(),
            best: Vec::new(),
            chosen: Vec::new(),
            heard: Vec::new(),
            origins: Vec::new(),
            deferred: Vec::new(),
        }
    }

    /// The proposal: the chosen intents in catalog order, at most [`MAX_PICKS`], and the asks
    /// none of them answers.
    fn finish(mut self) -> LexicalPick {
        self.chosen.sort_unstable();
        self.chosen.truncate(MAX_PICKS);
        let proposer = self.proposer;
        let unanswered =
            proposer.unanswered_ranges(&self.segments, &self.elsewhere, &self.chosen, &self.best);
        LexicalPick {
            compound: self.chosen.len() > 1,
            names: self.chosen.iter().map(|&index| proposer.intents[index].name.clone()).collect(),
            unanswered,
        }
    }

    /// Every term column of the question's asks, in order.
    fn columns(&self) -> Vec<usize> {
        self.segments.iter().flat_map(|segment| segment.columns.iter().copied()).collect()
    }

    /// Whether intent `index` takes a param of `kind`.
    fn takes(&self, index: usize, kind: &ParamKind) -> bool {
        self.proposer.intents[index].takes(kind)
    }

    /// Whether the question gives every param intent `index` requires.
    fn given(&self, index: usize) -> bool {
        self.proposer.intents[index].given(self.available)
    }

    /// Whether the value of `span` lies inside segment `position`.
    fn inside_segment(&self, position: usize, span: &ParamSpan) -> bool {
        self.segments
            .get(position)
            .is_some_and(|segment| segment.start <= span.start && span.start < segment.end)
    }
}
