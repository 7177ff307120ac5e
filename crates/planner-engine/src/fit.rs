//! `planner fit`: tuning a domain is a change to its registry file, proposed from a labelled
//! corpus and measured on a part of it the search never saw.
//!
//! The corpus is split by its ids (an item is held out when the FNV-1a hash of its id falls in
//! the held-out share), so the split is the same on every run and an item keeps its side when
//! others are added. Over the training part, each item whose plan lacks an intent it expects
//! proposes additions to that intent, in this order: the question itself as an `examples` entry
//! (only from an item expecting one intent: a compound question is no example of one intent),
//! then each content word of the question (no function word, no word of a value the extractors
//! read) as a `keywords` entry. An addition is kept when the training part then passes strictly
//! more items and every item that passed still passes; the next addition is tried on the
//! registry as kept so far. The held-out part is scored before and after, never searched.
//!
//! What the search cannot fix by adding words is left, and counted: an intent planned that the
//! item does not expect, or a route other than a plan.

use std::collections::BTreeSet;

use planner_registry::Registry;
use planner_registry::edit::{Phrasing, add_phrasing};
use serde::Serialize;

use crate::eval::{EvalItem, EvalReport, evaluate};
use crate::planning::{Planner, Route};

/// How the corpus is split and how far the search goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitOptions {
    /// One item in this many is held out (at least 2).
    pub holdout_every: u32,
    /// The most `examples` an intent may end up with, those it had included.
    pub max_examples: usize,
    /// The most keyword candidates tried per missed intent of an item.
    pub max_keywords: usize,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions { holdout_every: 3, max_examples: 5, max_keywords: 6 }
    }
}

/// Scores of one part of the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PartScores {
    /// Items in the part.
    pub items: usize,
    /// Items with nothing wrong.
    pub passed: usize,
    /// Route accuracy.
    pub route_accuracy: f64,
    /// Intent set exact.
    pub intent_set_exact: f64,
}

impl PartScores {
    fn of(report: &EvalReport) -> PartScores {
        PartScores {
            items: report.total,
            passed: report.total - report.failures.len(),
            route_accuracy: report.route_accuracy,
            intent_set_exact: report.intent_set_exact,
        }
    }
}

/// One addition kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Addition {
    /// The intent it was added to.
    pub intent: String,
    /// `examples` or `keywords`.
    pub list: &'static str,
    /// What was added.
    pub value: String,
    /// The ids of the training items it made pass.
    pub fixes: Vec<String>,
}

/// What `planner fit` found.
#[derive(Debug, Clone, Serialize)]
pub struct FitReport {
    /// The training part before and after.
    pub train_before: PartScores,
    /// The training part after the additions.
    pub train_after: PartScores,
    /// The held-out part before.
    pub held_out_before: PartScores,
    /// The held-out part after the additions.
    pub held_out_after: PartScores,
    /// The additions kept, in the order they were found.
    pub additions: Vec<Addition>,
    /// Training items still failing that no addition of words can fix: an intent planned that
    /// the item does not expect, or a route other than a plan (ids).
    pub not_by_words: Vec<String>,
    /// Training items that lacked an intent and still fail: no candidate fixed them (ids).
    pub unfixed: Vec<String>,
    /// The registry's text with the additions.
    #[serde(skip)]
    pub text: String,
}

/// Whether the item with this id is held out (see the module docs).
pub fn held_out(id: &str, every: u32) -> bool {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in id.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash.is_multiple_of(every.max(2))
}

/// Searches additions to the registry `text` that fix training items of `items` (see the module
/// docs). `load` turns a registry text into a registry (reading the files it names); an error
/// loading the text as given is returned, an addition that does not load is skipped.
pub async fn fit(
    text: &str,
    load: impl Fn(&str) -> Result<Registry, String>,
    items: &[EvalItem],
    options: FitOptions,
) -> Result<FitReport, String> {
    let (held, train): (Vec<EvalItem>, Vec<EvalItem>) =
        items.iter().cloned().partition(|item| held_out(&item.id, options.holdout_every));
    let planner = |text: &str| load(text).map(|registry| Planner::new(registry, None, 1));
    let mut current = planner(text)?;
    let mut text = text.to_owned();
    let mut report = evaluate(&current, &train).await;
    let train_before = PartScores::of(&report);
    let held_out_before = PartScores::of(&evaluate(&current, &held).await);
    let mut additions = Vec::new();
    let mut not_by_words = Vec::new();
    let mut unfixed = Vec::new();
    for item in &train {
        let Some(failure) = report.failures.iter().find(|failure| failure.id == item.id) else {
            continue;
        };
        let got = &failure.got.intents;
        let missing: Vec<String> =
            item.expect.intents.iter().filter(|it| !got.contains(it)).cloned().collect();
        let extra = got.iter().any(|it| !item.expect.intents.contains(it));
        let plan = matches!(item.expect.route, Route::Plan | Route::Single);
        if !plan || missing.is_empty() || extra {
            not_by_words.push(item.id.clone());
            continue;
        }
        for intent in &missing {
            for (phrasing, value) in candidates(&current, item, intent, options) {
                let Ok(edited) = add_phrasing(&text, intent, phrasing, &value) else { continue };
                let Ok(next) = planner(&edited) else { continue };
                // The item itself first: most candidates fail it, and one plan is cheap.
                let alone = evaluate(&next, std::slice::from_ref(item)).await;
                if alone.failures.is_empty() || alone.intent_recall > report_recall(&report, item) {
                    let after = evaluate(&next, &train).await;
                    if let Some(fixes) = improves(&report, &after) {
                        additions.push(Addition {
                            intent: intent.clone(),
                            list: phrasing.key(),
                            value,
                            fixes,
                        });
                        text = edited;
                        current = next;
                        report = after;
                        break;
                    }
                }
            }
        }
        if report.failures.iter().any(|failure| failure.id == item.id) {
            unfixed.push(item.id.clone());
        }
    }
    let held_out_after = PartScores::of(&evaluate(&current, &held).await);
    Ok(FitReport {
        train_before,
        train_after: PartScores::of(&report),
        held_out_before,
        held_out_after,
        additions,
        not_by_words,
        unfixed,
        text,
    })
}

/// The share of `item`'s expected intents its plan had in `report` (0 when it failed on them).
fn report_recall(report: &EvalReport, item: &EvalItem) -> f64 {
    let Some(failure) = report.failures.iter().find(|failure| failure.id == item.id) else {
        return 1.0;
    };
    let expected = item.expect.intents.len().max(1) as f64;
    let had = item.expect.intents.iter().filter(|it| failure.got.intents.contains(it)).count();
    had as f64 / expected
}

/// The ids `after` passes that `before` failed, when it passes strictly more and breaks none.
fn improves(before: &EvalReport, after: &EvalReport) -> Option<Vec<String>> {
    let failed_before: BTreeSet<&str> = before.failures.iter().map(|f| f.id.as_str()).collect();
    let failed_after: BTreeSet<&str> = after.failures.iter().map(|f| f.id.as_str()).collect();
    if !failed_after.is_subset(&failed_before) || failed_after.len() == failed_before.len() {
        return None;
    }
    Some(failed_before.difference(&failed_after).map(|id| (*id).to_owned()).collect())
}

/// The additions tried for `intent` from `item`, in order (see the module docs).
fn candidates(
    planner: &Planner,
    item: &EvalItem,
    intent: &str,
    options: FitOptions,
) -> Vec<(Phrasing, String)> {
    let registry = planner.registry();
    let Some(card) = registry.intents().iter().find(|it| it.name == intent) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let question = item.question.trim();
    if item.expect.intents.len() == 1
        && card.examples.len() < options.max_examples
        && question.len() <= 500
    {
        out.push((Phrasing::Example, question.to_owned()));
    }
    let values: Vec<(usize, usize)> = planner
        .extractor()
        .extract(question)
        .params
        .iter()
        .map(|it| (it.span.start, it.span.end))
        .collect();
    let known: BTreeSet<String> = card
        .keywords
        .iter()
        .chain(std::iter::once(&card.name))
        .flat_map(|text| text.split(|c: char| !c.is_alphanumeric()))
        .map(str::to_lowercase)
        .collect();
    let mut seen = BTreeSet::new();
    let mut start = None;
    for (at, c) in question.char_indices().chain(std::iter::once((question.len(), ' '))) {
        match (c.is_alphabetic() || c == '-', start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                start = None;
                let word = question[from..at].trim_matches('-').to_lowercase();
                let inside = values.iter().any(|&(s, e)| from >= s && from < e);
                if word.chars().count() >= 3
                    && !inside
                    && !planner_knowledge::is_function_word(&word)
                    && !known.contains(&word)
                    && seen.insert(word.clone())
                    && seen.len() <= options.max_keywords
                {
                    out.push((Phrasing::Keyword, word));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_the_ids_and_holds_out_about_its_share() {
        let held = (0..300).filter(|n| held_out(&format!("q{n:03}"), 3)).count();
        assert!((80..=120).contains(&held), "{held} of 300 held out");
        assert_eq!(held_out("q017", 3), held_out("q017", 3));
        // Every second item at least: a share of one would hold out everything.
        assert!((0..100).any(|n| !held_out(&format!("{n}"), 1)));
    }
}
