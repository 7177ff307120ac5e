//! Intents that join because a chosen intent provides what they need.
//!
//! Principles: an edge is a question's own link between its asks. An ask that stood but needed
//! a provider stands once a pick that gave way to a value provides it (a ticket's status and
//! "what else was logged against the same machine": the ticket provides its machine). An
//! intent needing what a chosen one provides joins when a decisive term of its name is heard
//! that no chosen intent has in its name or keywords ("the supplier's invoices"), never the
//! superlative heard as `top` (it says how an ask ranks, not whom). An ask no
//! chosen intent answers that refers back ("what orders have they placed") names what it wants
//! of what a chosen intent provides: the intent needing it that its decisive terms weigh most
//! for joins; naming none, an ask saying "each" ("and the weekly trend for each one") asks
//! something of every row, and the one intent requiring what a chosen intent provides joins
//! when only one does and the ask says a word of it. Needing counts a required param, or an
//! optional one the question leaves to its default ("how reliable were they" rates the
//! carriers just ranked).

use super::super::refers_back;
use super::{Reading, keep_best};

impl Reading<'_> {
    /// Asks that waited for a provider stand once one is chosen.
    pub(super) fn deferred_stand(&mut self) {
        let proposer = self.proposer;
        for (index, position) in std::mem::take(&mut self.deferred) {
            let supplied = proposer.supplied(index, self.available, &self.chosen);
            if supplied && !self.chosen.contains(&index) {
                let segment = position.and_then(|position| self.segments.get(position));
                self.heard.extend(segment.into_iter().flat_map(|s| s.columns.iter().copied()));
                self.chosen.push(index);
            }
        }
    }

    /// Dependants named by a heard decisive name term, best first.
    pub(super) fn name_dependants(&mut self) {
        let proposer = self.proposer;
        loop {
            let mut best: Option<(usize, f32)> = None;
            for (index, intent) in proposer.intents.iter().enumerate() {
                if !self.needs(index) || self.chosen.contains(&index) {
                    continue;
                }
                let gain: f32 = intent
                    .name_terms
                    .iter()
                    .filter(|(column, _)| {
                        // A superlative heard as `top` says how the ask ranks, not whom.
                        Some(*column) != proposer.top
                            && self.heard.contains(column)
                            && !intent.names_missing(*column, self.available)
                            && self
                                .chosen
                                .iter()
                                .all(|&other| !proposer.intents[other].strong[*column])
                    })
                    .map(|(_, weight)| weight)
                    .sum();
                if gain > 0.0 {
                    keep_best(&mut best, index, gain);
                }
            }
            let Some((index, _)) = best else { break };
            self.chosen.push(index);
        }
    }

    /// For each ask that refers back and is not answered, the dependant it names.
    pub(super) fn refer_back(&mut self) {
        let question = self.question;
        let mut from = 0;
        for position in 0..self.segments.len() {
            let end = self.segments[position].end;
            // The ask's words, and the words before them since the previous ask.
            let said = question.get(from..end).unwrap_or("");
            from = end;
            if let Some(index) = self.referred(position, said) {
                self.chosen.push(index);
            }
        }
    }

    /// The dependant the ask of segment `position`, said as `said`, refers back to, if any.
    fn referred(&self, position: usize, said: &str) -> Option<usize> {
        let proposer = self.proposer;
        let segment = &self.segments[position];
        // Answered by its own best pick, the ask may still say a term only one intent names or
        // lists, that no chosen intent has ("and what was on each of those invoices?").
        let unheard: Vec<usize> = segment
            .columns
            .iter()
            .copied()
            .filter(|&column| {
                proposer.decisive[column]
                    && proposer.unique[column]
                    && self.chosen.iter().all(|&index| !proposer.intents[index].strong[column])
            })
            .collect();
        let unanswered = proposer.unanswered_segment(segment, &self.chosen, &self.best);
        if segment.context
            || !refers_back(said, &proposer.naming)
            || (unheard.is_empty() && !unanswered)
        {
            return None;
        }
        let mut dependant: Option<(usize, f32)> = None;
        for (index, intent) in proposer.intents.iter().enumerate() {
            // The ask names what it wants of the dependant ("tickets"), not only how it relates
            // ("who raised it" asks for the ticket's requester, a provided value). A term only
            // this intent names or lists says it as its name would.
            let names = if unanswered {
                segment.columns.iter().any(|&column| {
                    intent.named.contains(&column)
                        || (proposer.unique[column] && intent.strong[column])
                })
            } else {
                unheard.iter().any(|&column| intent.strong[column])
            };
            if !self.needs(index) || !names || self.chosen.contains(&index) {
                continue;
            }
            let weight: f32 = segment
                .columns
                .iter()
                .filter(|&&column| proposer.decisive[column] && intent.strong[column])
                .map(|&column| intent.weights[column])
                .sum();
            if weight > 0.0 {
                keep_best(&mut dependant, index, weight);
            }
        }
        let each =
            said.split(|c: char| !c.is_alphanumeric()).any(|w| w.eq_ignore_ascii_case("each"));
        dependant
            .map(|(index, _)| index)
            .or_else(|| self.sole_consumer(position, unanswered && each))
    }

    /// An unanswered ask that says "each" and names no dependant by its terms ("and the weekly
    /// trend for each one") asks something of each row a chosen intent gave: the one
    /// intent requiring what a chosen intent provides, when only one does and the ask says a
    /// word of its description, is what it asks.
    fn sole_consumer(&self, position: usize, distributes: bool) -> Option<usize> {
        let proposer = self.proposer;
        if !distributes {
            return None;
        }
        let columns = &self.segments[position].columns;
        let mut consumers = (0..proposer.intents.len()).filter(|&index| {
            let intent = &proposer.intents[index];
            !self.chosen.contains(&index) && intent.required.iter().any(|kind| self.provided(kind))
        });
        let (Some(only), None) = (consumers.next(), consumers.next()) else { return None };
        columns.iter().any(|&column| proposer.intents[only].weights[column] > 0.0).then_some(only)
    }

    /// Whether intent `index` needs what a chosen intent provides: as a required param not
    /// given, or as an optional one the question leaves to its default.
    fn needs(&self, index: usize) -> bool {
        let intent = &self.proposer.intents[index];
        intent.required.iter().chain(&intent.optional).any(|kind| self.provided(kind))
    }

    /// Whether the question does not give `kind` and a chosen intent provides it.
    pub(super) fn provided(&self, kind: &planner_registry::ParamKind) -> bool {
        !self.available.contains(kind)
            && self.chosen.iter().any(|&other| self.proposer.intents[other].provides.contains(kind))
    }
}
