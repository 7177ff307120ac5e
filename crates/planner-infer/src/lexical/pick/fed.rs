//! A pick fed by the values the question gives its provider.
//!
//! Principle: values say what an ask is about when its words are values alone. A chosen intent
//! lacking a required value that another intent provides through the registry's edges, in a
//! question whose values the chosen intent does not take are all that provider's, every value
//! it requires given ("the top 5 antibiotics in January and their stock": a count, a class and
//! a period are the ranking's, which provides the drugs whose stock is asked), is fed by that
//! provider: those values are its ask. Only when the ask points back at them ("their", "each",
//! "those") and one intent fits.

use planner_registry::ParamKind;

use super::Reading;

/// Words that point back at things named before them: what the values give is what the ask
/// is of. Narrower than [`refers_back`](super::super::refers_back)'s pronouns: a singular
/// "it" or "that order" points at one thing, which values of a ranking do not name.
const POINTING: &[&str] = &["their", "them", "those", "these", "they", "each", "its"];

impl Reading<'_> {
    /// Adds the one provider the question's otherwise unbound values ask for, for each chosen
    /// intent lacking what it provides.
    pub(super) fn fed_by_values(&mut self) {
        let proposer = self.proposer;
        let available = self.available;
        let mut added = Vec::new();
        for &chosen in &self.chosen {
            // The ask that chose it points back at what the values are of ("their stock").
            let said = self
                .origins
                .iter()
                .filter(|(index, _)| *index == chosen)
                .filter_map(|(_, segment)| self.segments.get((*segment)?))
                .filter_map(|segment| self.question.get(segment.start..segment.end));
            let points_back = said.into_iter().any(|text| {
                text.split(|c: char| !c.is_alphanumeric())
                    .any(|word| POINTING.iter().any(|it| word.eq_ignore_ascii_case(it)))
            });
            if !points_back {
                continue;
            }
            let intent = &proposer.intents[chosen];
            let lacking: Vec<&ParamKind> = intent
                .required
                .iter()
                .filter(|kind| !available.contains(kind) && !self.provided(kind))
                .collect();
            let unbound: Vec<&ParamKind> =
                available.iter().filter(|kind| !intent.takes(kind)).collect();
            if lacking.is_empty() || unbound.is_empty() {
                continue;
            }
            let mut providers = (0..proposer.intents.len()).filter(|&index| {
                let provider = &proposer.intents[index];
                !self.chosen.contains(&index)
                    && lacking.iter().all(|kind| provider.provides.contains(kind))
                    && provider.given(available)
                    && unbound.iter().all(|kind| provider.takes(kind))
            });
            if let (Some(only), None) = (providers.next(), providers.next()) {
                added.push(only);
            }
        }
        for index in added {
            if !self.chosen.contains(&index) {
                self.chosen.push(index);
            }
        }
    }
}
