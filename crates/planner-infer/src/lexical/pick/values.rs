//! A question of values alone.
//!
//! Principle: values say what a question is about when its words do not. A question of values
//! alone ("platinum members in the Southwest", no other word the registry knows or not), or
//! whose known words pick nothing ("weekly figures for AB-1234 in Q3 2024": "weekly" is
//! another intent's, which lacks a value), asks for the one intent that requires a distinctive
//! kind the question gives, gets every param it requires and takes every value given; failing
//! that, the one taking a rare optional kind the question gives ("online and marketplace
//! compared in the Northeast"), on the same terms. An identifier only one intent requires
//! ("what's inside `<order id>`") says what a question of words the registry does not know asks
//! for, unless it asks to do something else.

use super::super::{Indexed, identifies};
use super::{Ask, Reading};

impl Reading<'_> {
    /// The intent a question with no ask is about, by its values.
    pub(super) fn values_alone(&mut self) {
        let proposer = self.proposer;
        let available = self.available;
        let identified = !self.foreign
            && available
                .iter()
                .any(|kind| identifies(*kind) && proposer.sole_required.contains(kind));
        if !self.asks.is_empty() || (self.unknown && !identified) {
            return;
        }
        let takes_all = |intent: &Indexed| {
            intent.given(available) && available.iter().all(|kind| intent.takes(kind))
        };
        let anchored_by = |anchor: &dyn Fn(&Indexed) -> bool| {
            let mut anchored = proposer
                .intents
                .iter()
                .enumerate()
                .filter(|(_, intent)| takes_all(intent) && anchor(intent));
            match (anchored.next(), anchored.next()) {
                (Some((index, _)), None) => Some(index),
                _ => None,
            }
        };
        let distinctive = |intent: &Indexed| {
            intent.required.iter().any(|kind| proposer.distinctive_kinds.contains(kind))
        };
        // Of several, the one taking exactly the values given: the thing itself ("who has
        // LT-20566 now": the asset, not its tickets over time).
        let exact =
            |intent: &Indexed| intent.required.len() + intent.optional.len() == available.len();
        let anchored = anchored_by(&distinctive)
            .or_else(|| anchored_by(&|intent| exact(intent) && distinctive(intent)))
            .or_else(|| {
                anchored_by(&|intent| {
                    intent.optional.iter().any(|kind| {
                        proposer.rare_optional.contains(kind) && available.contains(kind)
                    })
                })
            });
        if let Some(intent) = anchored {
            self.asks.push(Ask { intent, score: 0.0, context: false, segment: None });
        }
    }
}
