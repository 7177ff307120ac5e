//! A lone pick lacking a value of a distinctive kind that the question names no one thing of.
//!
//! Principle: asking which one is right only when the question is about one thing. A lone pick
//! lacking a required value of a distinctive kind (one few intents require; one most require,
//! a market or a period, is simply asked for), in a question that names no one thing of it
//! ([`LexicalProposer::names_one`]), may name one thing another intent requires ("line items
//! and status of the order"): the question is about it, and the intent requiring it that the
//! question's terms weigh most for is chosen (the user is then asked which one). Failing that,
//! in a question that says words the registry does not know and points at nothing ("my",
//! "that"), the ask is for something the registry does not hold ("the average shipping time
//! for online orders": no one order is meant): nothing is picked.

use super::super::Naming;
use super::{Reading, keep_best};

impl Reading<'_> {
    /// Settles a lone pick that lacks a value the question names no one thing of.
    pub(super) fn lacking_value(&mut self) {
        let [only] = self.chosen[..] else { return };
        if self.foreign || !self.lacks_unnamed(only) {
            return;
        }
        let proposer = self.proposer;
        let columns = self.columns();
        let mut about: Option<(usize, f32)> = None;
        for (index, intent) in proposer.intents.iter().enumerate() {
            let names = intent.required.iter().any(|kind| {
                !self.available.contains(kind)
                    && proposer.names_one(self.question, *kind, Naming::Known)
            });
            if !names || !self.available.iter().all(|kind| intent.takes(kind)) {
                continue;
            }
            let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
            if weight > 0.0 {
                keep_best(&mut about, index, weight);
            }
        }
        let pointing = self.question.split(|c: char| !c.is_alphanumeric()).any(|word| {
            ["my", "our", "this", "that"].iter().any(|pointer| word.eq_ignore_ascii_case(pointer))
        });
        if let Some((index, _)) = about {
            self.chosen = vec![index];
        } else if self.unknown && !pointing {
            self.chosen.clear();
        }
    }

    /// Whether intent `index` lacks a required value, every one it lacks of a distinctive kind
    /// the question names no one thing of.
    fn lacks_unnamed(&self, index: usize) -> bool {
        let proposer = self.proposer;
        let mut missing =
            proposer.intents[index].required.iter().filter(|kind| !self.available.contains(kind));
        missing.clone().next().is_some()
            && missing.clone().all(|kind| proposer.distinctive_kinds.contains(kind))
            && !missing.any(|kind| proposer.names_one(self.question, *kind, Naming::Any))
    }
}
