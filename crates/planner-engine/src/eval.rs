//! `planner eval`: runs a corpus of questions through planning and scores routes, intent sets,
//! arguments and refusals, in the format of the CLI contract (spec/cli-contract.md).

use std::collections::{BTreeMap, BTreeSet};

use planner_grammar::plan_view;
use planner_registry::Value;
use serde::{Deserialize, Serialize};

use crate::planning::intent_set;
use crate::planning::{Planner, Route};

/// One corpus line.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalItem {
    /// A stable id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The caller's scopes; default `["bench"]`.
    #[serde(default = "default_scopes")]
    pub scopes: Vec<String>,
    /// What is expected.
    pub expect: Expect,
}

fn default_scopes() -> Vec<String> {
    vec!["bench".to_owned()]
}

/// The expectations of one item.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The expected route.
    pub route: Route,
    /// The set of plan node intents (a composite by its name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intents: Vec<String>,
    /// Only the args it checks, by intent then param.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, BTreeMap<String, Value>>,
    /// The params asked for (route clarify).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// What planning produced for one item, in the same shape as [`Expect`].
#[derive(Debug, Clone, Serialize)]
pub struct Got {
    /// The route.
    pub route: Route,
    /// The set of plan node intents.
    pub intents: Vec<String>,
    /// The bound args (values from the question or defaults) of every node.
    pub args: BTreeMap<String, BTreeMap<String, Value>>,
    /// The params asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// A failed item.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The item's id.
    pub id: String,
    /// What was expected.
    pub expected: Expect,
    /// What planning produced.
    pub got: Got,
}

/// The scores, as `planner eval --json` prints them.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Items scored.
    pub total: usize,
    /// Items whose route matched, over all items.
    pub route_accuracy: f64,
    /// Over items expecting plan or single: the node set equals `expect.intents`.
    pub intent_set_exact: f64,
    /// Micro-averaged precision of the node sets, over those items.
    pub intent_precision: f64,
    /// Micro-averaged recall of the node sets, over those items.
    pub intent_recall: f64,
    /// Over the checked args of items whose intents matched.
    pub args_exact: f64,
    /// Over items expecting refused.
    pub refusal_recall: f64,
    /// Items refused that should not be.
    pub false_refusals: usize,
    /// Every item with a wrong route, node set, arg or missing list.
    pub failures: Vec<Failure>,
    /// Expected route → route got → items (every pair that occurred).
    pub route_confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// Per intent, over items expecting plan or single.
    pub per_intent: BTreeMap<String, IntentScore>,
}

/// How one intent fared over the items expecting plan or single.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IntentScore {
    /// Items expecting it.
    pub expected: usize,
    /// Items whose node set has it.
    pub got: usize,
    /// Items both expecting and getting it.
    pub correct: usize,
    /// `correct / got` (1.0 when never got).
    pub precision: f64,
    /// `correct / expected` (1.0 when never expected).
    pub recall: f64,
}

/// Parses a JSONL corpus; blank lines and lines starting with `#` or `//` are skipped. Errors name
/// the line.
pub fn parse_corpus(text: &str) -> Result<Vec<EvalItem>, String> {
    let mut items = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        let item: EvalItem =
            serde_json::from_str(line).map_err(|err| format!("line {}: {err}", number + 1))?;
        items.push(item);
    }
    Ok(items)
}

fn ratio(hits: usize, total: usize) -> f64 {
    if total == 0 { 1.0 } else { hits as f64 / total as f64 }
}

/// Plans every item and scores the corpus.
pub async fn evaluate(planner: &Planner, items: &[EvalItem]) -> EvalReport {
    evaluate_as_of(planner, items, None).await
}

/// [`evaluate`], with every relative period (`["@M-1m", "@M"]`, "last month"), planned or
/// expected, resolved against `as_of` (`YYYY-MM-DD`, the data's date) before they are compared:
/// a plan binding "last month" relative and a corpus writing the days it means agree, as the
/// run binds those days. Without a date they are compared as written.
pub async fn evaluate_as_of(
    planner: &Planner,
    items: &[EvalItem],
    as_of: Option<&str>,
) -> EvalReport {
    let resolved = |value: &Value| match as_of {
        Some(date) => {
            planner_registry::resolve_period(value, date).unwrap_or_else(|| value.clone())
        }
        None => value.clone(),
    };
    let registry = planner.registry();
    let (mut route_hits, mut set_total, mut set_hits) = (0, 0, 0);
    let (mut true_pos, mut got_total, mut expected_total) = (0, 0, 0);
    let (mut args_total, mut args_hits) = (0, 0);
    let (mut refusals_expected, mut refusals_hit, mut false_refusals) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut route_confusion: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut per_intent: BTreeMap<String, IntentScore> = BTreeMap::new();
    for item in items {
        let planning = planner.plan(&item.question, &[], &item.scopes, true).await;
        let view = plan_view(registry, &planning.validation.plan);
        let mut args: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
        for node in &view.nodes {
            let bound = node.args.iter().map(|(param, value)| (param.clone(), resolved(value)));
            args.entry(node.intent.clone()).or_default().extend(bound);
        }
        let got = Got {
            route: planning.route,
            intents: intent_set(registry, &planning.validation.plan).into_iter().collect(),
            args,
            missing: planning.missing.iter().map(|&p| registry.param(p).name.clone()).collect(),
        };
        let expect = &item.expect;
        *route_confusion
            .entry(expect.route.as_str().to_owned())
            .or_default()
            .entry(got.route.as_str().to_owned())
            .or_default() += 1;
        let mut ok = got.route == expect.route;
        if ok {
            route_hits += 1;
        }
        if expect.route == Route::Refused {
            refusals_expected += 1;
            refusals_hit += usize::from(got.route == Route::Refused);
        } else if got.route == Route::Refused {
            false_refusals += 1;
        }
        if matches!(expect.route, Route::Plan | Route::Single) {
            set_total += 1;
            let want: BTreeSet<&String> = expect.intents.iter().collect();
            let have: BTreeSet<&String> = got.intents.iter().collect();
            for intent in want.union(&have) {
                let score = per_intent.entry((*intent).clone()).or_default();
                score.expected += usize::from(want.contains(intent));
                score.got += usize::from(have.contains(intent));
                score.correct += usize::from(want.contains(intent) && have.contains(intent));
            }
            true_pos += want.intersection(&have).count();
            got_total += have.len();
            expected_total += want.len();
            if want == have {
                set_hits += 1;
                for (intent, checked) in &expect.args {
                    for (param, value) in checked {
                        args_total += 1;
                        let bound = got.args.get(intent).and_then(|it| it.get(param));
                        if bound == Some(&resolved(value)) {
                            args_hits += 1;
                        } else {
                            ok = false;
                        }
                    }
                }
            } else {
                ok = false;
            }
        }
        if expect.route == Route::Clarify
            && got.route == Route::Clarify
            && !expect.missing.is_empty()
        {
            let want: BTreeSet<&String> = expect.missing.iter().collect();
            let have: BTreeSet<&String> = got.missing.iter().collect();
            ok &= want == have;
        }
        if !ok {
            failures.push(Failure { id: item.id.clone(), expected: expect.clone(), got });
        }
    }
    for score in per_intent.values_mut() {
        score.precision = ratio(score.correct, score.got);
        score.recall = ratio(score.correct, score.expected);
    }
    EvalReport {
        route_confusion,
        per_intent,
        total: items.len(),
        route_accuracy: ratio(route_hits, items.len()),
        intent_set_exact: ratio(set_hits, set_total),
        intent_precision: ratio(true_pos, got_total),
        intent_recall: ratio(true_pos, expected_total),
        args_exact: ratio(args_hits, args_total),
        refusal_recall: ratio(refusals_hit, refusals_expected),
        false_refusals,
        failures,
    }
}

impl EvalReport {
    /// A human-readable summary.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "items              {}\nroute accuracy     {:.3}\nintent set exact   {:.3}\n\
             intent precision   {:.3}\nintent recall      {:.3}\nargs exact         {:.3}\n\
             refusal recall     {:.3}\nfalse refusals     {}\n",
            self.total,
            self.route_accuracy,
            self.intent_set_exact,
            self.intent_precision,
            self.intent_recall,
            self.args_exact,
            self.refusal_recall,
            self.false_refusals
        );
        out.push_str("routes (expected \\ got)");
        let routes =
            [Route::Single, Route::Plan, Route::Clarify, Route::Refused, Route::Unplannable];
        for route in routes {
            out.push_str(&format!(" {:>11}", route.as_str()));
        }
        out.push('\n');
        for expected in routes {
            let Some(row) = self.route_confusion.get(expected.as_str()) else { continue };
            out.push_str(&format!("  {:<22}", expected.as_str()));
            for got in routes {
                out.push_str(&format!(" {:>11}", row.get(got.as_str()).copied().unwrap_or(0)));
            }
            out.push('\n');
        }
        out.push_str("intent                      precision  recall  expected\n");
        for (intent, score) in &self.per_intent {
            out.push_str(&format!(
                "  {intent:<26} {:>8.3} {:>7.3} {:>9}\n",
                score.precision, score.recall, score.expected
            ));
        }
        if !self.failures.is_empty() {
            out.push_str(&format!("failures           {}\n", self.failures.len()));
            for failure in &self.failures {
                out.push_str(&format!(
                    "  {}: expected {} {:?}, got {} {:?}\n",
                    failure.id,
                    failure.expected.route.as_str(),
                    failure.expected.intents,
                    failure.got.route.as_str(),
                    failure.got.intents
                ));
            }
        }
        out
    }
}
