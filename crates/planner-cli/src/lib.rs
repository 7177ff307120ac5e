//! The `planner` command.
//!
//! - `planner plan [--json] [--registry FILE] [--scope bench] "QUESTION"`: the plan only, no
//!   database (format: spec/cli-contract.md);
//! - `planner eval [--json] [--registry FILE] [--min-intent-exact X] CORPUS.jsonl`: scores a
//!   corpus, exits 1 below the threshold;
//! - `planner ask "QUESTION"`: answers on DATABASE_URL, or on the embedded default database (a
//!   PostgreSQL cluster kept in the user's data directory, created, migrated and loaded with the
//!   demo dataset on first use, stopped on exit);
//! - `planner serve [--addr 127.0.0.1:8080]`: the HTTP API on the same database, until Ctrl-C or
//!   SIGTERM (requests in flight finish);
//! - `planner keys create --tenant T [--scope bench]` (prints the key once), `planner keys
//!   revoke ID`;
//! - `planner registry check FILE`: every problem with its location, exit 1 when there is one;
//! - `planner db status`, `planner db seed [--scale N]`, `planner db reset [--scale N]`;
//! - `planner graph --mermaid|--svg`: the planner graph;
//! - `planner bench [--url URL --key KEY] [--concurrency N | --sweep 1,2,4] [--duration 30s |
//!   --requests N] [--warmup 2s] [--rate R] [--rss-every 10s] [--raw guarded|sqlx|none]
//!   [--plot FILE.svg] [--json]`: a load generator, in process or against a running server,
//!   reporting answers per second, latency percentiles and errors beside the raw-SQL baseline of
//!   the same statements (see the `bench` module).
//!
//! With no `--registry`, the reference registry (fixtures/registry/capture.toml) built into the
//! binary is used.

mod admin;
mod bench;
mod embedded;
mod serve;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use planner_engine::{
    Ask, Engine, EngineConfig, Outcome, Planner, evaluate, parse_corpus, plan_report,
};
use planner_registry::Registry;

/// The reference registry, built in.
const REFERENCE_REGISTRY: &str = include_str!("../../../fixtures/registry/capture.toml");

#[derive(Debug, Parser)]
#[command(
    name = "planner",
    version,
    about = "Answers compound questions over a closed registry of SQL intents."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Plan a question without running it (no database needed).
    Plan {
        /// Print the plan as JSON (the stable format teams gate on).
        #[arg(long)]
        json: bool,
        /// A registry file instead of the built-in reference registry.
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Scopes the caller holds (repeatable).
        #[arg(long = "scope", value_name = "SCOPE", default_value = "bench")]
        scopes: Vec<String>,
        /// The question.
        question: String,
    },
    /// Score a corpus of questions (JSONL); exits 1 below --min-intent-exact.
    Eval {
        /// Print the scores as JSON.
        #[arg(long)]
        json: bool,
        /// A registry file instead of the built-in reference registry.
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Fail (exit 1) when intent_set_exact is below this.
        #[arg(long, value_name = "X")]
        min_intent_exact: Option<f64>,
        /// The corpus.
        corpus: PathBuf,
    },
    /// Answer a question on DATABASE_URL or the embedded default database.
    Ask {
        /// Print the engine's answer object as JSON.
        #[arg(long)]
        json: bool,
        /// A registry file instead of the built-in reference registry.
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Scopes the caller holds (repeatable).
        #[arg(long = "scope", value_name = "SCOPE", default_value = "bench")]
        scopes: Vec<String>,
        /// The tenant whose rows are visible (default: the first demo tenant).
        #[arg(long, value_name = "UUID")]
        tenant: Option<String>,
        /// The PostgreSQL to use; without it, the embedded default database.
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
        /// The question.
        question: String,
    },
    /// Serve the HTTP API on DATABASE_URL or the embedded default database.
    Serve(serve::ServeArgs),
    /// Create or revoke API keys.
    Keys {
        #[command(subcommand)]
        command: admin::KeysCommand,
        /// The PostgreSQL to use; without it, the embedded default database.
        #[arg(long, env = "DATABASE_URL", hide_env_values = true, global = true)]
        database_url: Option<String>,
    },
    /// Check a registry file.
    Registry {
        #[command(subcommand)]
        command: admin::RegistryCommand,
    },
    /// Inspect, load or reset the database.
    Db {
        #[command(subcommand)]
        command: admin::DbCommand,
        /// The PostgreSQL to use; without it, the embedded default database.
        #[arg(long, env = "DATABASE_URL", hide_env_values = true, global = true)]
        database_url: Option<String>,
    },
    /// Measure answers per second and latency under load, beside the raw SQL of the same
    /// statements.
    Bench(Box<bench::BenchArgs>),
    /// Print the planner graph.
    Graph {
        /// As a Mermaid flowchart.
        #[arg(long, conflicts_with = "svg", required_unless_present = "svg")]
        mermaid: bool,
        /// As an SVG picture.
        #[arg(long)]
        svg: bool,
    },
}

/// Runs the command line; the process exit code.
#[expect(clippy::print_stderr, reason = "errors go to stderr")]
pub fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PLANNER_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) fn load_registry(path: Option<&PathBuf>) -> anyhow::Result<Registry> {
    let (text, origin) = match path {
        Some(path) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
            path.display().to_string(),
        ),
        None => (REFERENCE_REGISTRY.to_owned(), "fixtures/registry/capture.toml".to_owned()),
    };
    Registry::from_toml(&text, &origin).map_err(|err| anyhow::anyhow!("{err}"))
}

#[expect(clippy::print_stdout, reason = "the command's output")]
async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Plan { json, registry, scopes, question } => {
            let planner = Planner::new(load_registry(registry.as_ref())?, None, 1);
            let report = plan_report(&planner, &question, &scopes).await?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                println!("{}", serde_json::to_string_pretty(&report)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval { json, registry, min_intent_exact, corpus } => {
            let planner = Planner::new(load_registry(registry.as_ref())?, None, 1);
            let text = std::fs::read_to_string(&corpus)
                .with_context(|| format!("cannot read {}", corpus.display()))?;
            let items = parse_corpus(&text)
                .map_err(|err| anyhow::anyhow!("{}: {err}", corpus.display()))?;
            let report = evaluate(&planner, &items).await;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                print!("{}", report.to_text());
            }
            match min_intent_exact {
                Some(min) if report.intent_set_exact < min => {
                    if !json {
                        println!(
                            "intent_set_exact {:.3} is below --min-intent-exact {min}",
                            report.intent_set_exact
                        );
                    }
                    Ok(ExitCode::FAILURE)
                }
                _ => Ok(ExitCode::SUCCESS),
            }
        }
        Command::Ask { json, registry, scopes, tenant, database_url, question } => {
            planner_engine::check_input(&question)?;
            let registry = load_registry(registry.as_ref())?;
            let tenant = match tenant {
                Some(text) => {
                    Some(text.parse().with_context(|| format!("--tenant {text} is not a UUID"))?)
                }
                None => Some(planner_dataset::DEMO_TENANTS[0].id),
            };
            let database = embedded::Database::open(database_url.as_deref()).await?;
            let result = ask(database.pool(), registry, scopes, tenant, question, json).await;
            database.close().await?;
            result
        }
        Command::Serve(args) => serve::run(args).await,
        Command::Bench(args) => bench::run(*args).await,
        Command::Keys { command, database_url } => {
            admin::keys(command, database_url.as_deref()).await
        }
        Command::Registry { command } => Ok(admin::registry(command)),
        Command::Db { command, database_url } => admin::db(command, database_url.as_deref()).await,
        Command::Graph { mermaid: _, svg } => {
            let mermaid = Engine::mermaid();
            if svg {
                println!("{}", planner_server::flowchart_svg(&mermaid));
            } else {
                println!("{}", mermaid.trim_end());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[expect(clippy::print_stdout, reason = "the command's output")]
async fn ask(
    pool: &planner_exec::PgPool,
    registry: Registry,
    scopes: Vec<String>,
    tenant: Option<uuid::Uuid>,
    question: String,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let engine = Engine::new(EngineConfig::new(registry), pool.clone());
    let caller = planner_engine::Caller { scopes: scopes.clone(), tenant, key: None };
    let mut outcome = engine.ask(Ask { question, scopes, tenant, key: None }).await?;
    loop {
        match outcome {
            Outcome::Answered(answer) => {
                if json {
                    println!("{}", serde_json::to_string_pretty(&answer)?);
                } else {
                    println!("{}", answer.text.trim_end());
                    for table in &answer.evidence {
                        println!("\n{}:\n{}", table.intent, table.text.trim_end());
                    }
                    for dropped in &answer.dropped {
                        println!("\n(dropped {}: {})", dropped.intent, dropped.reason);
                    }
                    let nodes: Vec<&str> =
                        answer.plan.nodes.iter().map(|n| n.intent.as_str()).collect();
                    println!(
                        "\nplan: route {}, {} node(s) [{}], {} suppressed cell(s), text {}",
                        answer.route.as_str(),
                        nodes.len(),
                        nodes.join(", "),
                        answer.suppressed_cells,
                        if answer.text_source == planner_engine::TextSource::Narrated {
                            "narrated"
                        } else {
                            "deterministic"
                        }
                    );
                }
                return Ok(ExitCode::SUCCESS);
            }
            Outcome::NeedsInput(needs) => {
                println!("{}", needs.question);
                if !needs.suggestions.is_empty() {
                    println!("(for example: {})", needs.suggestions.join(", "));
                }
                print!("> ");
                std::io::stdout().flush()?;
                let mut line = String::new();
                if std::io::stdin().lock().read_line(&mut line)? == 0 || line.trim().is_empty() {
                    bail!("no answer given; ask again with the value in the question");
                }
                outcome = engine.resume(&needs.thread_id, line.trim(), &caller).await?;
            }
        }
    }
}
