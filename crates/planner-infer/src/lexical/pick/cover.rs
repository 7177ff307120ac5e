//! The greedy cover of the question's asks.
//!
//! Principles: framing phrases and modifiers are context, and give way to asks that stand
//! ("per department hardware ticket counts since March, with how many are still open": a weak
//! second ask is no reason to drop the first). The best ask always stands; another stands when
//! it scores [`NEXT_SCORE`] or is anchored by a value, and every param it needs is given or
//! provided by an intent already chosen; an ask that stood but needed a provider waits for one.
//! An ask that only names a thing a chosen intent lists ("which products" beside an order's
//! lines) is answered by that intent.

use super::super::{NEXT_SCORE, PROVIDER_FACTOR};
use super::Reading;

impl Reading<'_> {
    /// Chooses among the asks, best score first.
    pub(super) fn cover(&mut self) {
        self.best = self
            .asks
            .iter()
            .filter_map(|ask| Some((self.segments.get(ask.segment?)?.start, ask.intent)))
            .collect();
        let stands_alone = |ask: &super::Ask| {
            ask.score >= NEXT_SCORE || ask.segment.is_some_and(|s| self.anchored.contains(&s))
        };
        if self.asks.iter().any(|ask| !ask.context && stands_alone(ask)) {
            self.asks.retain(|ask| !ask.context);
        }
        self.asks.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.intent.cmp(&b.intent)));
        let proposer = self.proposer;
        for ask in std::mem::take(&mut self.asks) {
            let segment = ask.segment.and_then(|position| self.segments.get(position));
            if segment.is_some_and(|segment| proposer.names_only_provided(segment, &self.chosen)) {
                continue;
            }
            let index = ask.intent;
            let supplied = proposer.supplied(index, self.available, &self.chosen);
            // A pick whose required param only a provider gives was scored down for that
            // provider; not when the provider is chosen.
            let score = if supplied && proposer.needs_provider(index, self.available) {
                ask.score / PROVIDER_FACTOR
            } else {
                ask.score
            };
            let anchored = ask.segment.is_some_and(|s| self.anchored.contains(&s));
            let stands = score >= NEXT_SCORE || anchored;
            if stands && !supplied && !self.chosen.contains(&index) {
                self.deferred.push((index, ask.segment));
            }
            if self.chosen.contains(&index) || self.chosen.is_empty() || (stands && supplied) {
                self.heard.extend(segment.into_iter().flat_map(|s| s.columns.iter().copied()));
                if !self.chosen.contains(&index) {
                    self.chosen.push(index);
                    self.origins.push((index, ask.segment));
                }
            }
        }
    }
}
