//! The planning pipeline without a database, as `planner eval` runs it: extract → propose →
//! validate, and the corpus format and figures of spec/cli-contract.md. Shared by the
//! evaluation test and the `llm_check` example.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use planner_grammar::{DropReason, Inputs, NodeOrigin, plan_view, validate};
use planner_infer::ParamSpan;
use planner_registry::{ParamKind, Registry};
use serde_json::Value as Json;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reference registry (`fixtures/registry/capture.toml`, with its files).
pub fn reference_registry() -> Registry {
    planner_registry::reference::registry()
        .unwrap_or_else(|err| panic!("the reference registry does not load: {err}"))
}

/// One corpus line.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    pub question: String,
    pub scopes: Vec<String>,
    pub route: String,
    pub intents: BTreeSet<String>,
    pub args: BTreeMap<String, BTreeMap<String, Json>>,
    pub missing: BTreeSet<String>,
}

pub fn load_corpus(path: &Path) -> Vec<Item> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let json: Json = serde_json::from_str(line).unwrap();
            let expect = &json["expect"];
            let strings = |value: &Json| -> BTreeSet<String> {
                value.as_array().map_or_else(BTreeSet::new, |items| {
                    items.iter().filter_map(Json::as_str).map(str::to_owned).collect()
                })
            };
            let args = expect["args"]
                .as_object()
                .map(|by_intent| {
                    by_intent
                        .iter()
                        .map(|(intent, args)| {
                            let args = args.as_object().cloned().unwrap_or_default();
                            (intent.clone(), args.into_iter().collect())
                        })
                        .collect()
                })
                .unwrap_or_default();
            Item {
                id: json["id"].as_str().unwrap().to_owned(),
                question: json["question"].as_str().unwrap().to_owned(),
                scopes: json
                    .get("scopes")
                    .map_or_else(|| vec!["bench".to_owned()], |s| strings(s).into_iter().collect()),
                route: expect["route"].as_str().unwrap().to_owned(),
                intents: strings(&expect["intents"]),
                args,
                missing: strings(&expect["missing"]),
            }
        })
        .collect()
}

/// What the extractors found, in the shapes the proposers and the validator take.
pub struct Extracted {
    pub available: BTreeMap<ParamKind, planner_registry::Value>,
    pub kinds: BTreeSet<ParamKind>,
    pub spans: Vec<ParamSpan>,
}

pub fn extract(question: &str) -> Extracted {
    let extraction = planner_extract::extract(question);
    let available = extraction.available();
    let kinds = available.keys().copied().collect();
    let spans = extraction
        .params
        .iter()
        .map(|mention| ParamSpan {
            kind: mention.kind,
            start: mention.span.start,
            end: mention.span.end,
            role: mention.role,
        })
        .collect();
    Extracted { available, kinds, spans }
}

/// The planner's answer to one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub route: &'static str,
    pub intents: BTreeSet<String>,
    pub args: BTreeMap<String, BTreeMap<String, Json>>,
    pub missing: BTreeSet<String>,
}

/// Validates a proposal and decides the route: `clarify` when a proposed intent lacks a param
/// nothing can provide, `unplannable` when nothing survives, `single` when the one proposed
/// intent binds from the question alone, `plan` otherwise.
pub fn outcome(
    registry: &Registry,
    item: &Item,
    extracted: &Extracted,
    proposal: &[String],
) -> Outcome {
    let mut out = Outcome {
        route: "unplannable",
        intents: BTreeSet::new(),
        args: BTreeMap::new(),
        missing: BTreeSet::new(),
    };
    if proposal.is_empty() {
        return out;
    }
    let inputs = Inputs {
        available: &extracted.available,
        roles: planner_grammar::NO_ROLES,
        scopes: &item.scopes,
        refers: false,
    };
    let validation = validate(registry, &inputs, proposal);
    // What to ask for: the unbindable params that no other intent involved could provide
    // once the user answers (a composite member's agency comes from its requirement).
    let involved: Vec<_> = validation
        .dropped
        .iter()
        .filter_map(|dropped| dropped.intent)
        .chain(validation.plan.nodes.iter().map(|node| node.intent))
        .collect();
    for dropped in &validation.dropped {
        if let DropReason::Unbindable { missing } = &dropped.reason {
            for param in missing {
                let kind = registry.param(*param).kind;
                let provided = involved.iter().any(|&other| {
                    Some(other) != dropped.intent
                        && registry.intent(other).columns().iter().any(|column| {
                            column.provides.is_some_and(|p| registry.param(p).kind == kind)
                        })
                });
                if !provided {
                    out.missing.insert(registry.param(*param).name.clone());
                }
            }
        }
    }
    let plan = &validation.plan;
    for node in &plan.nodes {
        out.intents.insert(match node.origin {
            NodeOrigin::Composite(composite) => registry.intent(composite).name.clone(),
            NodeOrigin::Proposed | NodeOrigin::Provider => {
                registry.intent(node.intent).name.clone()
            }
        });
    }
    let view = plan_view(registry, plan);
    for (node, shown) in plan.nodes.iter().zip(&view.nodes) {
        let args: BTreeMap<String, Json> = shown
            .args
            .iter()
            .map(|(name, value)| (name.clone(), serde_json::to_value(value).unwrap()))
            .collect();
        if let NodeOrigin::Composite(composite) = node.origin {
            out.args
                .entry(registry.intent(composite).name.clone())
                .or_default()
                .extend(args.clone());
        }
        out.args.entry(shown.intent.clone()).or_default().extend(args);
    }
    out.route = if !out.missing.is_empty() {
        "clarify"
    } else if plan.is_empty() {
        "unplannable"
    } else if proposal.len() == 1
        && plan.nodes.iter().all(|node| node.origin != NodeOrigin::Provider)
    {
        "single"
    } else {
        "plan"
    };
    if out.route == "clarify" {
        out.intents = proposal.iter().cloned().collect();
    }
    out
}

/// The figures of `planner eval`.
#[derive(Debug, Default)]
pub struct Figures {
    pub total: usize,
    pub route_hits: usize,
    pub intent_items: usize,
    pub intent_exact: usize,
    pub precision_sum: f64,
    pub recall_sum: f64,
    pub args_checked: usize,
    pub args_exact: usize,
    pub failures: Vec<String>,
}

impl Figures {
    pub fn add(&mut self, item: &Item, got: &Outcome) {
        self.total += 1;
        let route_ok =
            got.route == item.route && (item.route != "clarify" || got.missing == item.missing);
        self.route_hits += usize::from(route_ok);
        let mut failed = !route_ok;
        if item.route == "plan" || item.route == "single" {
            self.intent_items += 1;
            let exact = got.intents == item.intents;
            self.intent_exact += usize::from(exact);
            failed |= !exact;
            let common = got.intents.intersection(&item.intents).count() as f64;
            self.precision_sum +=
                if got.intents.is_empty() { 0.0 } else { common / got.intents.len() as f64 };
            self.recall_sum +=
                if item.intents.is_empty() { 1.0 } else { common / item.intents.len() as f64 };
            if exact {
                for (intent, args) in &item.args {
                    for (param, value) in args {
                        self.args_checked += 1;
                        let found = got.args.get(intent).and_then(|args| args.get(param));
                        if found == Some(value) {
                            self.args_exact += 1;
                        } else {
                            failed = true;
                        }
                    }
                }
            }
        }
        if failed {
            self.failures.push(format!(
                "{} {:?}\n    expected {} {:?} missing {:?} args {:?}\n    got      {} {:?} missing {:?} args {:?}",
                item.id, item.question, item.route, item.intents, item.missing, item.args, got.route, got.intents, got.missing, got.args
            ));
        }
    }

    pub fn route_accuracy(&self) -> f64 {
        ratio(self.route_hits, self.total)
    }

    pub fn intent_set_exact(&self) -> f64 {
        ratio(self.intent_exact, self.intent_items)
    }

    pub fn args_exact_ratio(&self) -> f64 {
        ratio(self.args_exact, self.args_checked)
    }

    pub fn summary(&self) -> String {
        format!(
            "total {} route_accuracy {:.3} intent_set_exact {:.3} intent_precision {:.3} intent_recall {:.3} args_exact {:.3} ({} args)",
            self.total,
            self.route_accuracy(),
            self.intent_set_exact(),
            self.precision_sum / self.intent_items.max(1) as f64,
            self.recall_sum / self.intent_items.max(1) as f64,
            self.args_exact_ratio(),
            self.args_checked,
        )
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 { 1.0 } else { part as f64 / whole as f64 }
}
