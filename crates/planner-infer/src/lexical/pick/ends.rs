//! Values told apart by role are the two ends of one thing.
//!
//! Principle: a question that gives both ends of a kind ("LAX to SEA", "from Reno into
//! Denver") asks about what runs between them. An intent taking the kind once, with no role,
//! binds neither end (a kind written with two values gives it none), so every pick that takes
//! the kind but not both ends gives way to the intent taking both, when the question gives every
//! param it requires: of several, the one the question's terms weigh most for. A question of
//! such ends and nothing the registry picks asks for that intent.

use planner_registry::{ParamKind, Role};

use super::{Reading, keep_best};

impl Reading<'_> {
    /// Lets a pick that takes a kind the question gives both ends of, but not both ends, give
    /// way to the intent that takes them.
    pub(super) fn both_ends(&mut self) {
        for kind in self.pairs() {
            if self.chosen.iter().any(|&index| self.takes_ends(index, kind)) {
                continue;
            }
            let Some(ends) = self.ends_intent(kind) else { continue };
            if self.chosen.is_empty() {
                self.chosen.push(ends);
                continue;
            }
            let mut chosen = Vec::with_capacity(self.chosen.len());
            for &index in &self.chosen {
                let index = if self.takes(index, &kind) { ends } else { index };
                if !chosen.contains(&index) {
                    chosen.push(index);
                }
            }
            self.chosen = chosen;
        }
    }

    /// The kinds the question gives both ends of, by the roles its words make.
    fn pairs(&self) -> Vec<ParamKind> {
        let mut pairs: Vec<ParamKind> = Vec::new();
        for span in self.spans {
            let told = |role: Role| {
                self.spans.iter().any(|other| other.kind == span.kind && other.role == Some(role))
            };
            if told(Role::From) && told(Role::To) && !pairs.contains(&span.kind) {
                pairs.push(span.kind);
            }
        }
        pairs
    }

    /// Whether intent `index` takes `kind` twice: as both ends.
    fn takes_ends(&self, index: usize, kind: ParamKind) -> bool {
        let intent = &self.proposer.intents[index];
        intent.required.iter().chain(&intent.optional).filter(|it| **it == kind).count() >= 2
    }

    /// The intent taking both ends of `kind` whose required params the question gives, weighed
    /// most by the question's terms.
    fn ends_intent(&self, kind: ParamKind) -> Option<usize> {
        let columns = self.columns();
        let mut best: Option<(usize, f32)> = None;
        for (index, intent) in self.proposer.intents.iter().enumerate() {
            if !self.takes_ends(index, kind) || !self.given(index) {
                continue;
            }
            let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
            keep_best(&mut best, index, weight);
        }
        best.map(|(index, _)| index)
    }
}
