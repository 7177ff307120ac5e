//! Asks with no pick of their own, decided by a distinctive value the question gives.
//!
//! Principle: a value few intents take says which intent an ask is about as a distinctive term
//! would. An ask with no decisive term may so pick below the least gain: beside asks that pick
//! (framing phrases and modifiers aside), or when nothing picks and no term of the question is
//! a decisive one (which the clarification reads instead). A decisive ask that picks nothing
//! may fall back too if it says no word the registry does not know ("how is CF-1002 selling");
//! an ask beside others whose pick lacks a value the question does not give may fall back to
//! what a given distinctive value decides.

use super::{Ask, Reading};

impl Reading<'_> {
    /// The fallback picks of the question's asks.
    pub(super) fn fall_back(&mut self) {
        let proposer = self.proposer;
        let picked = !self.asks.is_empty();
        let decisive_column = |column: &usize| proposer.decisive[*column];
        let decisive = self.segments.iter().any(|s| s.columns.iter().any(decisive_column));
        if !(picked || !decisive || self.segments.iter().all(|segment| !segment.unknown)) {
            return;
        }
        for position in 0..self.segments.len() {
            self.fall_back_ask(position, picked);
        }
    }

    /// The fallback of the ask of segment `position`; `picked` says whether any ask picked on
    /// its own.
    fn fall_back_ask(&mut self, position: usize, picked: bool) {
        let proposer = self.proposer;
        let segment = &self.segments[position];
        let decisive_ask = segment.columns.iter().any(|&column| proposer.decisive[column]);
        let own = self.asks.iter().position(|ask| ask.segment == Some(position));
        let lacking = own.filter(|&at| {
            self.asks.iter().any(|ask| ask.segment != Some(position))
                && !self.given(self.asks[at].intent)
        });
        if (own.is_some() && lacking.is_none())
            || (picked && segment.context)
            || (decisive_ask && segment.unknown)
        {
            return;
        }
        let Some((intent, score)) =
            proposer.best(&segment.columns, self.available, &self.scoring, true)
        else {
            return;
        };
        // An ask every term of which a pick's intent weighs, whose own fallback takes no
        // value that pick does not, is answered by that pick ("tier customers in the Midwest,
        // with their lifetime spend").
        let answered = lacking.is_none()
            && self.asks.iter().any(|ask| {
                let pick = &proposer.intents[ask.intent];
                segment.columns.iter().all(|&column| pick.weights[column] > 0.0)
                    && self
                        .available
                        .iter()
                        .all(|kind| !self.takes(intent, kind) || pick.takes(kind))
            });
        if answered {
            return;
        }
        let ask = Ask { intent, score, context: segment.context, segment: Some(position) };
        if let Some(at) = lacking {
            if self.given(intent) {
                self.asks[at] = ask;
                self.anchored.push(position);
            }
            return;
        }
        self.asks.push(ask);
        if picked {
            self.anchored.push(position);
        }
    }
}
