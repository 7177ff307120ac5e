//! Scoring an ask against every intent: [`LexicalProposer::best`] and the param factors.
//!
//! A candidate needs a decisive term that is strong for it (name, keyword or example), and a
//! raw gain of [`FIRST_GAIN`] ([`CLARIFY_GAIN`] when it lacks a param nothing can provide).
//! Its score is the gain times the param factor, times the share of its name the ask mentions,
//! times the share of the ask's decisive terms it explains. The param factor favours intents
//! whose required params are given (or can be provided by another intent bindable from the
//! given ones) and that take the values given; a required param nothing can provide costs a
//! factor. Principles: a value few intents take anchors a strong term that is not decisive
//! (in a small registry a common term's weight alone may not reach the gain); an ask that ranks
//! is answered by an intent that ranks when one qualifies and a decisive term of the ask besides
//! the superlative is its own (it ranks what the ask names).

use std::collections::{BTreeMap, BTreeSet};

use planner_registry::ParamKind;

use super::{
    ANCHORED_GAIN, ANSWERED_SHARE, CLARIFY_GAIN, COVERAGE_SHARE, FIRST_GAIN, Indexed,
    LexicalProposer, MISSING_FACTOR, OPTIONAL_BONUS, OWN_TERM_COVERAGE, PROVIDER_FACTOR,
    REQUIRED_BONUS, Scoring, keep_best,
};

/// How one intent scores on an ask's columns.
struct Candidate {
    score: f32,
    /// Below the least gain: only a fallback for when nothing else qualifies.
    fallback: bool,
}

impl LexicalProposer {
    /// The intent with the best score on these columns: one that ranks when the ask ranks and
    /// one qualifies, else the best above the least gain, else (with `anchored_fallback`) the
    /// best anchored by a value below it.
    pub(super) fn best(
        &self,
        columns: &[usize],
        available: &BTreeSet<ParamKind>,
        scoring: &Scoring,
        anchored_fallback: bool,
    ) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        let mut anchored_best: Option<(usize, f32)> = None;
        // An ask that ranks ("which items brought in the most", a superlative heard as `top`)
        // is answered by an intent that ranks: a total that takes more of the question's
        // values does not rank anything.
        let ranking = self.top.filter(|column| columns.contains(column));
        let mut ranked_best: Option<(usize, f32)> = None;
        for index in 0..self.intents.len() {
            let Some(Candidate { score, fallback }) =
                self.candidate(index, columns, available, scoring, anchored_fallback)
            else {
                continue;
            };
            keep_best(if fallback { &mut anchored_best } else { &mut best }, index, score);
            // It ranks what the ask names: a decisive term of the ask besides the superlative
            // is its own ("the highest refund rate" ranks refunds, not the top sellers).
            let intent = &self.intents[index];
            let names = columns.iter().any(|&column| {
                Some(column) != ranking && self.decisive[column] && intent.weights[column] > 0.0
            });
            if !fallback && names && ranking.is_some_and(|column| intent.weights[column] > 0.0) {
                keep_best(&mut ranked_best, index, score);
            }
        }
        ranked_best.or(best).or(anchored_best)
    }

    /// How intent `index` scores on `columns`, if it is a candidate at all.
    fn candidate(
        &self,
        index: usize,
        columns: &[usize],
        available: &BTreeSet<ParamKind>,
        scoring: &Scoring,
        anchored_fallback: bool,
    ) -> Option<Candidate> {
        let intent = &self.intents[index];
        let mut gain = 0.0;
        let mut decided = false;
        // A strong term decides with a distinctive param the question gives. Both looked up
        // only when a strong term asks (most intents weigh none of an ask's terms).
        let mut anchored: Option<bool> = None;
        // The intent's whole name said ("product sales"), its cue words decide too.
        let mut named_whole: Option<bool> = None;
        for &column in columns {
            if intent.weights[column] > 0.0 {
                gain += intent.weights[column];
                if decided || !intent.strong[column] {
                    continue;
                }
                let mut anchors =
                    || *anchored.get_or_insert_with(|| self.anchored(intent, available));
                let ranks = self.decisive[column] || (anchored_fallback && anchors());
                decided = ranks
                    && (*named_whole.get_or_insert_with(|| {
                        intent.named.iter().all(|column| columns.contains(column))
                    }) || !intent.names_provided(column, available, scoring));
            }
        }
        if !decided {
            return None;
        }
        let anchored = anchored.unwrap_or_else(|| self.anchored(intent, available));
        let (factor, missing) = scoring.factors[index];
        let partial = intent.required.iter().any(|kind| available.contains(kind));
        let least = if missing && !partial { CLARIFY_GAIN } else { FIRST_GAIN };
        let fallback = gain < least;
        if fallback && !(anchored_fallback && anchored && gain >= ANCHORED_GAIN) {
            return None;
        }
        let score = gain
            * factor
            * (1.0 - COVERAGE_SHARE + COVERAGE_SHARE * self.coverage(intent, columns, available))
            * (1.0 - ANSWERED_SHARE + ANSWERED_SHARE * self.answered(intent, columns));
        Some(Candidate { score, fallback })
    }

    /// Whether the question gives a value of a kind few intents require, or of a rare optional
    /// kind, that `intent` takes.
    fn anchored(&self, intent: &Indexed, available: &BTreeSet<ParamKind>) -> bool {
        intent
            .required
            .iter()
            .any(|kind| available.contains(kind) && self.distinctive_kinds.contains(kind))
            || intent
                .optional
                .iter()
                .any(|kind| available.contains(kind) && self.rare_optional.contains(kind))
    }

    /// The share of the ask's decisive terms, by importance, that `intent` weighs.
    fn answered(&self, intent: &Indexed, columns: &[usize]) -> f32 {
        let decisive = || columns.iter().filter(|&&column| self.decisive[column]);
        let explained: f32 = decisive()
            .filter(|&&column| intent.weights[column] > 0.0)
            .map(|&column| self.importance[column])
            .sum();
        let asked: f32 = decisive().map(|&column| self.importance[column]).sum();
        if asked > 0.0 { explained / asked } else { 1.0 }
    }

    /// The share of `intent`'s decisive name terms, by weight, the ask mentions (a name term
    /// naming one of its kinds is mentioned by a value of the kind); at least
    /// [`OWN_TERM_COVERAGE`] when the ask says a term only this intent names or lists.
    fn coverage(
        &self,
        intent: &Indexed,
        columns: &[usize],
        available: &BTreeSet<ParamKind>,
    ) -> f32 {
        let total: f32 = intent.name_terms.iter().map(|(_, weight)| weight).sum();
        let named: f32 = intent
            .name_terms
            .iter()
            .filter(|(column, _)| {
                columns.contains(column)
                    || intent
                        .valued
                        .iter()
                        .any(|&(named, kind)| named == *column && available.contains(&kind))
            })
            .map(|(_, weight)| weight)
            .sum();
        let coverage = if total > 0.0 { named / total } else { 1.0 };
        let own = columns.iter().any(|&column| self.unique[column] && intent.strong[column]);
        if own { coverage.max(OWN_TERM_COVERAGE) } else { coverage }
    }

    /// Every intent's param factor, and whether it lacks a param nothing can provide.
    pub(super) fn factors(&self, available: &BTreeSet<ParamKind>) -> Scoring {
        // The kinds an intent anchored by the question's values provides ("order X" gives its
        // products).
        let provided = self
            .intents
            .iter()
            .filter(|intent| !intent.required.is_empty() && intent.given(available))
            .flat_map(|intent| intent.provides.iter().copied())
            .collect();
        let bindable: Vec<bool> =
            self.intents.iter().map(|intent| intent.given(available)).collect();
        // Per kind: how many bindable intents provide it.
        let mut providers: BTreeMap<ParamKind, usize> = BTreeMap::new();
        for (intent, _) in self.intents.iter().zip(&bindable).filter(|(_, bindable)| **bindable) {
            for &kind in &intent.provides {
                *providers.entry(kind).or_default() += 1;
            }
        }
        let factors = (0..self.intents.len())
            .map(|index| self.param_factor(index, available, &bindable, &providers))
            .collect();
        Scoring { factors, provided }
    }

    /// The param factor of an intent, and whether it lacks a param nothing can provide.
    fn param_factor(
        &self,
        index: usize,
        available: &BTreeSet<ParamKind>,
        bindable: &[bool],
        providers: &BTreeMap<ParamKind, usize>,
    ) -> (f32, bool) {
        let intent = &self.intents[index];
        let mut factor = 1.0;
        let mut missing = false;
        let mut provided = false;
        for kind in &intent.required {
            if available.contains(kind) {
                factor += REQUIRED_BONUS;
            } else if self.providable(index, *kind, bindable, providers) {
                provided = true;
            } else {
                missing = true;
            }
        }
        if provided {
            factor *= PROVIDER_FACTOR;
        }
        for kind in &intent.optional {
            if available.contains(kind) {
                factor += OPTIONAL_BONUS;
            }
        }
        if missing {
            factor *= MISSING_FACTOR;
        }
        (factor, missing)
    }

    /// Whether another intent, bindable from the available params, provides `kind`:
    /// `providers` counts the bindable providers of each kind, this one included.
    fn providable(
        &self,
        index: usize,
        kind: ParamKind,
        bindable: &[bool],
        providers: &BTreeMap<ParamKind, usize>,
    ) -> bool {
        let own = usize::from(bindable[index] && self.intents[index].provides.contains(&kind));
        providers.get(&kind).copied().unwrap_or(0) > own
    }

    /// The one intent that, instead of the lone pick `only`, takes a rare optional value the
    /// question gives and `only` does not ("compare online vs marketplace sales in the
    /// Northwest": the channels given say channel mix, not sales by region): every param it
    /// requires is given, it takes every value of the question `only` takes, and the
    /// question's terms weigh for it.
    pub(super) fn taking_rare(
        &self,
        only: usize,
        available: &BTreeSet<ParamKind>,
        columns: &[usize],
    ) -> Option<usize> {
        let lone = &self.intents[only];
        let mut taking = self.intents.iter().enumerate().filter(|(index, intent)| {
            *index != only
                && available.iter().any(|kind| {
                    self.rare_optional.contains(kind) && intent.takes(kind) && !lone.takes(kind)
                })
                && intent.given(available)
                && available.iter().all(|kind| !lone.takes(kind) || intent.takes(kind))
                && columns.iter().any(|&column| intent.weights[column] > 0.0)
        });
        match (taking.next(), taking.next()) {
            (Some((index, _)), None) => Some(index),
            _ => None,
        }
    }
}
