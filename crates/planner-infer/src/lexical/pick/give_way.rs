//! A pick gives way to the intent a telling value of the question is about.
//!
//! Principle: a value says what a question is about more surely than a word. A lone pick that
//! needs no provider but takes none of the question's values of a distinctive required kind
//! (a ticket number given, and ticket counts by status picked) gives way to the intent
//! requiring that kind the question's terms weigh most for, when every param it requires is
//! given (the one taking most of the question's values first: a printer's tickets over time,
//! not the printer); a lone pick lacking a value gives way the same way to an identifier's
//! intent (a SKU's sales, not some customer's order history). It stays beside that intent when
//! it takes a distinctive or rare value the other does not. Failing that, it gives way to the
//! one intent taking a rare value it does not ([`LexicalProposer::taking_rare`]). In a pick of
//! several, the ask whose segment holds such a value naming what it is about (an anchor: a
//! code, a name) gives way the same way, to the intent its own terms weigh most for.

use planner_registry::ParamKind;

use super::super::identifies;
use super::Reading;

impl Reading<'_> {
    /// Lets a lone pick, or an anchored ask of several, give way to a value's intent.
    pub(super) fn give_way_to_values(&mut self) {
        if let [only] = self.chosen[..] {
            self.lone_gives_way(only);
        } else if self.chosen.len() > 1 {
            self.anchored_asks_give_way();
        }
    }

    fn lone_gives_way(&mut self, only: usize) {
        let proposer = self.proposer;
        let unused: Vec<&ParamKind> = self
            .available
            .iter()
            .filter(|kind| proposer.distinctive_kinds.contains(kind) && !self.takes(only, kind))
            .filter(|kind| self.given(only) || identifies(**kind))
            .collect();
        let columns = self.columns();
        if let Some(index) = self.instead(&unused, &columns) {
            let both = self.given(only) && self.keeps(only, index);
            self.chosen = if both { vec![only, index] } else { vec![index] };
        } else if let Some(index) =
            proposer.taking_rare(only, self.available, &columns).filter(|_| self.given(only))
        {
            self.chosen = vec![index];
        }
    }

    fn anchored_asks_give_way(&mut self) {
        let proposer = self.proposer;
        for kind in self.available {
            if !proposer.distinctive_kinds.contains(kind)
                || !kind.is_anchor()
                || self.chosen.iter().any(|&index| self.takes(index, kind))
            {
                continue;
            }
            for span in self.spans.iter().filter(|span| span.kind == *kind) {
                let Some(&(pick, Some(position))) = self
                    .origins
                    .iter()
                    .find(|(_, position)| position.is_some_and(|p| self.inside_segment(p, span)))
                else {
                    continue;
                };
                let provides = self.chosen.iter().any(|&other| {
                    proposer.intents[other].required.iter().any(|kind| {
                        !self.available.contains(kind)
                            && proposer.intents[pick].provides.contains(kind)
                    })
                });
                if !self.given(pick) || provides {
                    continue;
                }
                if let Some(index) = self.instead(&[kind], &self.segments[position].columns)
                    && !self.chosen.contains(&index)
                    && !self.keeps(pick, index)
                    && let Some(slot) = self.chosen.iter_mut().find(|slot| **slot == pick)
                {
                    *slot = index;
                }
            }
        }
    }

    /// The intent requiring one of `unused` whose params the question all gives, taking most
    /// of its values, then weighed most by `columns`.
    fn instead(&self, unused: &[&ParamKind], columns: &[usize]) -> Option<usize> {
        let mut instead: Option<(usize, usize, f32)> = None;
        for (index, intent) in self.proposer.intents.iter().enumerate() {
            if !unused.iter().any(|kind| intent.required.contains(kind)) || !self.given(index) {
                continue;
            }
            let values = self.available.iter().filter(|kind| self.takes(index, kind)).count();
            let weight: f32 = columns.iter().map(|&column| intent.weights[column]).sum();
            if instead.is_none_or(|(_, most, top)| (values, weight) > (most, top)) {
                instead = Some((index, values, weight));
            }
        }
        instead.map(|(index, ..)| index)
    }

    /// Whether `pick` takes a telling value of the question (of a distinctive or rare kind)
    /// that `other` does not.
    fn keeps(&self, pick: usize, other: usize) -> bool {
        let proposer = self.proposer;
        self.available.iter().any(|kind| {
            (proposer.distinctive_kinds.contains(kind) || proposer.rare_optional.contains(kind))
                && self.takes(pick, kind)
                && !self.takes(other, kind)
        })
    }
}
