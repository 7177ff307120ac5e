//! Each ask's own pick: the intent its terms score best for ([`LexicalProposer::best`]).
//!
//! Principles: an ask is about what it asks for, so an ask of quantity words around a count
//! beside other asks ("..., top 6") says how many, not what; an ask for a measure the registry
//! does not know of a thing whose value is not given is not that thing's intent (asking which
//! one would not answer it); a ranking of staff, or an ask for an outside party, that the
//! registry does not name is no ranking or listing an intent makes. An ask whose pick takes a
//! rare value said inside the ask is anchored by it: the value says what the ask is about.

use planner_registry::{KindType, ParamKind};

use super::{Ask, Reading};

impl Reading<'_> {
    /// Beside other asks, drops an ask of quantity words around a count ("Largest buyers in
    /// the Midwest, top 6").
    pub(super) fn drop_counts(&mut self) {
        if self.segments.len() <= 1 {
            return;
        }
        let (proposer, spans) = (self.proposer, self.spans);
        self.segments.retain(|segment| {
            let counts = segment.columns.iter().all(|&column| proposer.quantity[column]);
            !(counts
                && spans.iter().any(|span| {
                    matches!(span.kind, ParamKind::Declared(kind) if kind.ty() == KindType::Integer)
                        && segment.start <= span.start
                        && span.start < segment.end
                }))
        });
    }

    /// Each segment's best intent, unless it asks for a measure of a thing not given, ranks
    /// staff, or asks for an outside party.
    pub(super) fn own_asks(&mut self) {
        let proposer = self.proposer;
        for (position, segment) in self.segments.iter().enumerate() {
            let Some((intent, score)) =
                proposer.best(&segment.columns, self.available, &self.scoring, false)
            else {
                continue;
            };
            if segment.measured && !proposer.intents[intent].given(self.available) {
                continue;
            }
            let ranks = proposer.top.is_some_and(|top| segment.columns.contains(&top));
            if (segment.asks_staff && ranks) || segment.asks_outsider {
                continue;
            }
            let ask = Ask { intent, score, context: segment.context, segment: Some(position) };
            self.asks.push(ask);
        }
    }

    /// Anchors each ask (not a framing one) whose pick takes a rare optional value said inside
    /// the ask ("compare online vs store revenue in Q2"): it stands beside other asks without
    /// the score.
    pub(super) fn anchor_rare_values(&mut self) {
        let proposer = self.proposer;
        for ask in &self.asks {
            let Some(position) = ask.segment else { continue };
            let anchored = self.spans.iter().any(|span| {
                proposer.rare_optional.contains(&span.kind)
                    && self.takes(ask.intent, &span.kind)
                    && self.inside_segment(position, span)
            });
            if anchored && !ask.context {
                self.anchored.push(position);
            }
        }
    }
}
