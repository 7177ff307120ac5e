//! A thing pointed at by its cue word.
//!
//! Principle: a possessive or demonstrative before a noun of a kind ("my incident", "that
//! machine", "the order I placed", "the account" ending its phrase: a code kind's cue word, an
//! identifier's label noun, a dictionary's label head) points at one thing of its kind. With no
//! value of that kind given, it is what a question with at most one pick is about: the intent
//! requiring that kind the question's terms weigh most for (the user is then asked which one).

use super::super::{pointed_at, pointing_words};
use super::{Reading, keep_best};

impl Reading<'_> {
    /// Replaces a lone pick (or none) by the intent of a thing pointed at.
    pub(super) fn pointed_thing(&mut self) {
        if self.chosen.len() > 1 {
            return;
        }
        let proposer = self.proposer;
        let columns = self.columns();
        let words = pointing_words(self.question);
        for (kind, cues) in &proposer.naming {
            let picked = self.chosen.first().map(|&index| proposer.intents[index].name.as_str());
            if self.available.contains(kind)
                || !proposer.distinctive_kinds.contains(kind)
                || self.chosen.iter().any(|&index| proposer.intents[index].required.contains(kind))
                || !pointed_at(&words, cues, picked)
            {
                continue;
            }
            let mut about: Option<(usize, f32)> = None;
            for (index, intent) in proposer.intents.iter().enumerate() {
                if intent.required.contains(kind) {
                    let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
                    keep_best(&mut about, index, weight);
                }
            }
            if let Some((index, _)) = about {
                self.chosen = vec![index];
                break;
            }
        }
    }
}
