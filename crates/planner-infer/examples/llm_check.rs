//! The OpenAI-compatible proposer and narrator against a real model server: proposes intents
//! for the first questions of the development corpus, checks every returned name is in the
//! registry, and reports accuracy and latency; then narrates evidence samples shaped like the
//! reference registry's answers and reports how many narrations pass the faithfulness gate.
//! `cargo xtask llm-check` starts a local server and runs this.
//!
//! ```text
//! cargo run -p planner-infer --example llm_check -- \
//!     --base-url http://127.0.0.1:8080/v1 --corpus fixtures/eval/dev.jsonl --limit 20 \
//!     --narrations 10
//! ```

#![allow(clippy::print_stdout, reason = "a command-line report")]
#![allow(missing_docs, reason = "an example, not an API")]

#[path = "../tests/infer/pipeline.rs"]
#[allow(dead_code, reason = "shared with the evaluation test, which uses all of it")]
mod pipeline;

#[path = "../tests/infer/narration.rs"]
mod narration;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use planner_infer::{
    Catalog, ModelClient, ModelConfig, ModelNarrator, ModelProposer, ProposeRequest, Proposer,
};

use pipeline::{Figures, extract, load_corpus, outcome, reference_registry};

struct Args {
    base_url: String,
    corpus: PathBuf,
    limit: usize,
    narrations: usize,
    model: String,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        base_url: String::new(),
        corpus: PathBuf::from("fixtures/eval/dev.jsonl"),
        limit: 20,
        narrations: 10,
        model: "local".to_owned(),
    };
    let mut raw = std::env::args().skip(1);
    while let Some(flag) = raw.next() {
        let value = raw.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--base-url" => args.base_url = value,
            "--corpus" => args.corpus = PathBuf::from(value),
            "--limit" => args.limit = value.parse().map_err(|_| format!("bad --limit {value}"))?,
            "--narrations" => {
                args.narrations = value.parse().map_err(|_| format!("bad --narrations {value}"))?;
            }
            "--model" => args.model = value,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if args.base_url.is_empty() {
        return Err("--base-url is required".to_owned());
    }
    Ok(args)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args = args()?;
    let registry = reference_registry();
    let catalog = Catalog::from_registry(&registry);
    let mut config = ModelConfig::with_defaults(&args.base_url, &args.model);
    config.timeout = Duration::from_secs(60);
    let client = ModelClient::new(config.clone(), None).map_err(|err| err.to_string())?;
    let proposer = ModelProposer::new(client, &catalog);
    let narrator =
        ModelNarrator::new(ModelClient::new(config, None).map_err(|err| err.to_string())?);
    let corpus = load_corpus(&pipeline::root().join(&args.corpus));
    let items: Vec<_> = corpus
        .iter()
        .filter(|item| item.route == "single" || item.route == "plan")
        .take(args.limit)
        .collect();

    let mut figures = Figures::default();
    let mut latencies = Vec::new();
    let mut dropped = 0;
    let mut unusable = 0;
    let wall = Instant::now();
    for item in &items {
        let extracted = extract(&item.question);
        let started = Instant::now();
        let request = ProposeRequest {
            question: &item.question,
            available: &extracted.kinds,
            spans: &extracted.spans,
            samples: 1,
        };
        let proposals =
            proposer.propose(request).await.map_err(|err| format!("{}: {err}", item.id))?;
        latencies.push(started.elapsed());
        dropped += proposals.dropped_names;
        unusable += proposals.unusable_replies;
        let names = proposals.samples.into_iter().next().unwrap_or_default();
        for name in &names {
            if !catalog.contains(name) {
                return Err(format!("{}: {name} is not in the registry", item.id));
            }
        }
        let got = outcome(&registry, item, &extracted, &names);
        println!(
            "{:>5} {:>6.2}s {:?} -> {:?}",
            item.id,
            started.elapsed().as_secs_f64(),
            item.intents,
            names
        );
        figures.add(item, &got);
    }
    if dropped > 0 {
        return Err(format!("the server returned {dropped} names outside the closed set"));
    }
    latencies.sort();
    let total: Duration = latencies.iter().sum();
    let mean = total.as_secs_f64() / latencies.len().max(1) as f64;
    let p50 = latencies.get(latencies.len() / 2).map_or(0.0, Duration::as_secs_f64);
    println!(
        "questions {} | every name in the registry | unusable replies {unusable}",
        items.len()
    );
    println!("{}", figures.summary());
    println!("latency mean {mean:.2}s p50 {p50:.2}s | wall {:.1}s", wall.elapsed().as_secs_f64());

    // Narration: reported, not gated (a failed narration ships the template's text).
    let samples = narration::samples(args.narrations);
    let started = Instant::now();
    let rate = narration::pass_rate(&narrator, &samples).await;
    println!("{} | wall {:.1}s", rate.summary(), started.elapsed().as_secs_f64());
    Ok(())
}
