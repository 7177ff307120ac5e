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
//! for online orders": no one order is meant): nothing is picked, unless the question writes a
//! name the registry does not know outside every value ("the rent roll for Dayton"): that name
//! is the one thing meant, and the user is asked which.

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
        } else if self.unknown && !pointing && !self.says_a_name() {
            self.chosen.clear();
        }
    }

    /// Whether the question writes a name the registry does not know (a capitalised word past
    /// a sentence's first, outside every value the extractors read, no term of the registry):
    /// said where a value goes ("the rent roll for Columbus"), it is the one thing meant, in
    /// words the extractors do not read, and the user is asked which.
    fn says_a_name(&self) -> bool {
        let question = self.question;
        let mut sentence_start = true;
        let mut start = None;
        for (at, c) in question.char_indices().chain(std::iter::once((question.len(), ' '))) {
            if c.is_alphanumeric() {
                start.get_or_insert(at);
                continue;
            }
            if let Some(from) = start.take() {
                let word = &question[from..at];
                let capitalised = word.len() > 1
                    && word.chars().next().is_some_and(char::is_uppercase)
                    && word.chars().skip(1).all(char::is_lowercase);
                let valued = self.spans.iter().any(|span| span.start <= from && from < span.end);
                if capitalised && !sentence_start && !valued {
                    let stem = super::super::lexicon::stem(&word.to_lowercase());
                    if !self.proposer.terms.contains_key(&stem) {
                        return true;
                    }
                }
                sentence_start = false;
            }
            sentence_start |= matches!(c, '.' | '?' | '!' | ':');
        }
        false
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
