//! Every value a question gives is either bound by a planned node or named in the plan report
//! as not applied, with why: across every labelled corpus under `fixtures/` (the reference
//! registry's and each example domain's), for every question planned to run.

use std::path::{Path, PathBuf};

use planner_engine::{Planner, Route, parse_corpus, plan_report};
use planner_registry::Registry;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn domain_registry(dir: &Path) -> Registry {
    let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Registry::from_toml_with(&text, &dir.join("registry.toml").display().to_string(), &files)
        .unwrap()
}

fn corpora(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_extracted_value_is_bound_or_named_in_every_labelled_corpus() {
    let mut sets: Vec<(Registry, Vec<PathBuf>)> =
        vec![(planner_registry::reference::registry().unwrap(), corpora(&fixtures().join("eval")))];
    let mut domains: Vec<PathBuf> = std::fs::read_dir(fixtures().join("domains"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("registry.toml").exists() && path.join("eval").is_dir())
        .collect();
    domains.sort();
    for dir in &domains {
        sets.push((domain_registry(dir), corpora(&dir.join("eval"))));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let (mut questions, mut values, mut named) = (0, 0, 0);
    let mut corpus_count = 0;
    for (registry, files) in sets {
        let planner = Planner::new(registry, None, 1);
        for file in files {
            corpus_count += 1;
            let items = parse_corpus(&std::fs::read_to_string(&file).unwrap()).unwrap();
            for item in items {
                let Ok(report) =
                    runtime.block_on(plan_report(&planner, &item.question, &item.scopes))
                else {
                    continue;
                };
                if !matches!(report.route, Route::Single | Route::Plan) {
                    continue;
                }
                questions += 1;
                for param in &report.params {
                    values += 1;
                    let words = item.question.get(param.span[0]..param.span[1]).unwrap();
                    // Words two kinds read (a window: a length and a period) are one value,
                    // bound when either reading is.
                    let bound = report.params.iter().filter(|it| it.span == param.span).any(|it| {
                        report
                            .plan
                            .nodes
                            .iter()
                            .any(|node| node.args.get(&it.param) == Some(&it.value))
                    });
                    let is_named = report
                        .unapplied
                        .iter()
                        .any(|line| line.starts_with(&format!("\"{}\"", words.trim())));
                    named += usize::from(is_named);
                    // A blind corpus's questions stay out of the log.
                    let name = file.file_name().unwrap().to_string_lossy();
                    let blind = name.starts_with("first-sight")
                        || (name.starts_with("people-") && !name.starts_with("people-dev"));
                    let said = if blind { "(a blind corpus's question)" } else { &item.question };
                    assert!(
                        bound || is_named,
                        "{} {}: {said:?} gives {} = {:?}, which no node binds and the report \
                         does not name",
                        file.display(),
                        item.id,
                        param.param,
                        param.value,
                    );
                }
            }
        }
    }
    // Every corpus was read, and some values are named.
    assert!(corpus_count >= 40, "{corpus_count} corpora");
    assert!(questions > 2500 && values > questions && named > 0, "{questions} {values} {named}");
    eprintln!(
        "{corpus_count} corpora, {questions} questions planned to run, {values} values, {named} named as not applied"
    );
}

/// A value an intent's range clamps ("top 500" where at most 50 are listed) is bound, but not
/// as asked: the report says what was applied instead.
#[test]
fn a_clamped_value_is_named_with_what_was_applied() {
    let planner = Planner::new(domain_registry(&fixtures().join("domains/retail")), None, 1);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let question = "Top 500 products by revenue in 2024";
    let report = runtime.block_on(plan_report(&planner, question, &[])).unwrap();
    assert!(matches!(report.route, Route::Single | Route::Plan), "{report:?}");
    let clamped: Vec<&String> =
        report.unapplied.iter().filter(|line| line.contains("was applied as 50")).collect();
    assert_eq!(clamped.len(), 1, "{:?}", report.unapplied);
    assert!(clamped[0].starts_with("\"500\""), "{clamped:?}");
}

/// A window a duration kind reads ("over the past 9 weeks") is also the period ending at the
/// data's date: an intent taking a period and no length binds it, and neither reading is
/// reported as not applied; an intent taking the length binds the days.
#[test]
fn a_window_binds_as_a_period_where_the_intent_takes_no_length() {
    let planner = Planner::new(domain_registry(&fixtures().join("domains/retail")), None, 1);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let report = runtime
        .block_on(plan_report(&planner, "Top 5 products over the past 6 months", &[]))
        .unwrap();
    let node = &report.plan.nodes[0];
    assert_eq!(node.intent, "top_products", "{report:?}");
    let period = planner_registry::Value::List(vec!["@D+1d-6m".into(), "@D+1d".into()]);
    assert_eq!(node.args.get("period"), Some(&period), "{report:?}");
    assert!(report.unapplied.is_empty(), "{:?}", report.unapplied);
    let report = runtime
        .block_on(plan_report(&planner, "Daily sales trend over the last 14 days", &[]))
        .unwrap();
    let node = &report.plan.nodes[0];
    assert_eq!(node.intent, "recent_sales_trend", "{report:?}");
    assert_eq!(node.args.get("window_days"), Some(&planner_registry::Value::Int(14)));
    assert!(report.unapplied.is_empty(), "{:?}", report.unapplied);
}

/// A name two values share, answered when the user is asked which one, is the value the answer
/// names: nothing is reported as applied in its place.
#[test]
fn a_shared_name_answered_is_the_value_the_answer_names() {
    let planner = Planner::new(domain_registry(&fixtures().join("domains/waste")), None, 1);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let question = "tons and fees at Eastside in 2024";
    let asked = runtime.block_on(planner.plan(question, &[], &[], true));
    assert_eq!(asked.route, Route::Clarify);
    let answers = ["Eastside Compost".to_owned()];
    let planning = runtime.block_on(planner.plan(question, &answers, &[], true));
    assert!(matches!(planning.route, Route::Single | Route::Plan), "{:?}", planning.route);
    assert_eq!(planner.not_applied(question, &planning), Vec::<String>::new());
}
