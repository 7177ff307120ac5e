//! The `planner` command.
//!
//! - `planner plan [--json] [--registry FILE] [--scope bench] "QUESTION"`: the plan only, no
//!   database (format: spec/cli-contract.md);
//! - `planner eval [--json] [--registry FILE] [--min-intent-exact X] [--without-examples]
//!   CORPUS.jsonl`: scores a corpus, exits 1 below the threshold, 2 on an error;
//! - `planner fit --registry FILE [--holdout-every 3] [--max-examples 5] [--write] [--json]
//!   CORPUS.jsonl`: proposes examples and keywords that fix the corpus's training part, scores
//!   its held-out part before and after, and with `--write` adds them to the file;
//! - `planner ask [--narrator template|model] "QUESTION"`: answers on DATABASE_URL, or on the
//!   embedded default database (a PostgreSQL cluster kept in the user's data directory, created,
//!   migrated and loaded with the demo dataset on first use, stopped on exit), printing the
//!   answer's text once, then each evidence table once. `--tenant` is a tenant's UUID or name
//!   (default: the first demo tenant when the database has it, else none). A clarifying question
//!   is asked on the terminal (with `--json`, on stderr, only when stdin is a terminal); with
//!   `--json` and no answer on stdin, the `needs_input` object is printed and `planner ask
//!   --thread ID --answer TEXT` resumes it;
//! - `planner serve [--addr 127.0.0.1:8080] [--narrator template|model]`: the HTTP API on the
//!   same database, until Ctrl-C or SIGTERM (requests in flight finish). `--narrator model`
//!   (with `--model-url`) has the model write each answer's text behind the faithfulness gate;
//!   the template's text ships when the gate fails it;
//! - `planner keys create --tenant T [--scope bench]` (prints the key once), `planner keys
//!   revoke ID`;
//! - `planner registry check FILE`: every problem with its location, exit 1 when there is one;
//! - `planner db status`, `planner db seed [--scale N]`, `planner db reset [--scale N]`;
//! - `planner graph --mermaid|--svg [--acquire]`: the planner graph, or the acquisition agent's;
//! - `planner completions bash|zsh|fish|elvish|powershell`: the shell completion script, and
//!   `planner man`: the manual page (roff), both on stdout (clap_complete, clap_mangen);
//! - `planner acquire --profile FILE [--json] [--database-url URL] [--model-url URL] "IDEA"`:
//!   the field-acquisition agent, asking its questions on the terminal;
//! - `planner bench [--url URL --key KEY] [--concurrency N | --sweep 1,2,4] [--duration 30s |
//!   --requests N] [--warmup 2s] [--rate R] [--rss-every 10s] [--raw guarded|sqlx|none]
//!   [--plot FILE.svg] [--json]`: a load generator, in process or against a running server,
//!   reporting answers per second, latency percentiles and errors beside the raw-SQL baseline of
//!   the same statements (see the `bench` module).
//!
//! - `planner version [--json]` (and `planner --version`): the version and the cryptographic
//!   module (FIPS or not, its name and version, whether its self test passed).
//!
//! With no `--registry`, the reference registry (fixtures/registry/capture.toml) built into the
//! binary is used. Before anything else the binary checks its cryptographic module
//! (`planner_crypto::init`): a build with the `fips` feature that cannot enter FIPS mode does not
//! start. Database URLs honour `sslmode` and `sslrootcert` (`planner_exec::tls`), and a refused
//! server certificate is reported with a hint.
//!
//! Output goes through [`outln!`] and [`out!`], not `println!`: a reader that goes away
//! (`planner ask ... | head -3`) makes the write fail, the error unwinds through `?` so the
//! embedded database is stopped by its owner, and `main` ends the run quietly with success.

/// `println!` to stdout, returning the write's error from the enclosing function.
macro_rules! outln {
    () => {
        outln!("")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// `print!` to stdout, flushed (prompts), returning the write's error from the enclosing
/// function.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        write!(stdout, $($arg)*)?;
        stdout.flush()?
    }};
}

mod acquire;
mod admin;
mod bench;
mod embedded;
mod serve;

use std::io::{BufRead, IsTerminal as _, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{CommandFactory as _, Parser, Subcommand};
use planner_engine::{
    Ask, Engine, EngineConfig, Outcome, Planner, evaluate_as_of, parse_corpus, plan_report,
};
use planner_registry::Registry;

#[derive(Debug, Parser)]
#[command(
    name = "planner",
    version,
    about = "Answers compound questions over a closed registry of SQL intents."
)]
struct Cli {
    /// The format of log lines on stderr (`json`: one object a line, for log collectors). The
    /// level filter is PLANNER_LOG, else RUST_LOG, else warnings plus the server's start, stop
    /// and access lines.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text, env = "PLANNER_LOG_FORMAT")]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// The log filter: PLANNER_LOG, else RUST_LOG, else the default.
fn log_filter(var: impl Fn(&str) -> Option<String>) -> tracing_subscriber::EnvFilter {
    const DEFAULT: &str = "warn,planner_cli=info,planner_server=info";
    ["PLANNER_LOG", "RUST_LOG"]
        .into_iter()
        .filter_map(var)
        .find_map(|directives| tracing_subscriber::EnvFilter::try_new(directives).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new(DEFAULT))
}

fn init_logging(format: LogFormat) {
    let filter = log_filter(|name| std::env::var(name).ok());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().with_current_span(true).with_span_list(true).init(),
    }
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
    /// Score a corpus of questions (JSONL); exits 1 below --min-intent-exact, 2 on an error.
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
        /// Read the registry as if its intents had no `examples` (what its other words
        /// alone plan).
        #[arg(long)]
        without_examples: bool,
        /// The data's date (YYYY-MM-DD): relative periods ("last month"), planned or expected,
        /// are compared as the days they mean on that date, not as written.
        #[arg(long, value_name = "DATE", value_parser = parse_as_of)]
        as_of: Option<String>,
        /// The corpus.
        corpus: PathBuf,
    },
    /// Propose registry additions (examples, keywords) that fix a labelled corpus's misses,
    /// scored on a held-out part of it.
    Fit {
        /// The registry file to tune.
        #[arg(long, value_name = "FILE")]
        registry: PathBuf,
        /// Hold out one item in this many (by a hash of its id).
        #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..))]
        holdout_every: u32,
        /// The most examples an intent may end up with.
        #[arg(long, value_name = "N", default_value_t = 5)]
        max_examples: usize,
        /// Write the additions into the registry file (its comments and layout kept).
        #[arg(long)]
        write: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The labelled corpus (the `planner eval` format).
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
        /// The tenant whose rows are visible: its UUID or its name (default: the first demo
        /// tenant when the database has it, else none: public planes only).
        #[arg(long, value_name = "TENANT")]
        tenant: Option<String>,
        /// The PostgreSQL to use; without it, the embedded default database.
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
        /// The model server (without it, the offline lexical proposer).
        #[command(flatten)]
        model: serve::ModelFlags,
        /// Resume this waiting thread (the `thread_id` of a `needs_input` object) with
        /// `--answer` instead of asking a question.
        #[arg(long, value_name = "THREAD", requires = "answer", conflicts_with = "question")]
        thread: Option<String>,
        /// The answer to the thread's question.
        #[arg(long, value_name = "TEXT", requires = "thread")]
        answer: Option<String>,
        /// The question.
        #[arg(required_unless_present = "thread")]
        question: Option<String>,
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
    /// Collect the inputs a calculator needs for a business idea, asking on the terminal.
    Acquire(Box<acquire::AcquireArgs>),
    /// Print the shell completion script for SHELL (source it, or install it where the shell
    /// loads completions).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `planner man | man -l -`).
    Man,
    /// Print the version and the cryptographic module: FIPS or not, its name and version, and
    /// whether its self test passed.
    Version {
        /// As one JSON object (for scripts).
        #[arg(long)]
        json: bool,
    },
    /// Print the planner graph.
    Graph {
        /// The field-acquisition agent's graph instead.
        #[arg(long)]
        acquire: bool,
        /// As a Mermaid flowchart.
        #[arg(long, conflicts_with = "svg", required_unless_present = "svg")]
        mermaid: bool,
        /// As an SVG picture.
        #[arg(long)]
        svg: bool,
    },
}

/// The build's cryptographic module as `planner version --json` and `planner_build_info` say it.
#[derive(Debug, serde::Serialize)]
struct VersionReport {
    version: &'static str,
    fips: bool,
    crypto_module: &'static str,
    crypto_module_version: &'static str,
    fips_module_version: Option<u32>,
    self_test_passed: bool,
    tls_provider_fips: bool,
}

fn version_report(module: &planner_crypto::Module) -> VersionReport {
    VersionReport {
        version: env!("CARGO_PKG_VERSION"),
        fips: module.fips,
        crypto_module: module.name,
        crypto_module_version: module.version,
        fips_module_version: module.fips_module_version,
        self_test_passed: module.self_test_passed,
        tls_provider_fips: module.tls_provider_fips,
    }
}

/// Runs the command line; the process exit code.
#[expect(clippy::print_stderr, reason = "errors go to stderr")]
pub fn main() -> ExitCode {
    // The cryptographic module first: a FIPS build that cannot enter FIPS mode, or whose self
    // tests fail, does not start.
    let module = match planner_crypto::init() {
        Ok(module) => module,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    let long_version = format!("{} ({})", env!("CARGO_PKG_VERSION"), module.summary());
    // clap takes a `&'static str`: the one line, made once per process.
    let long_version: &'static str = long_version.leak();
    let matches = Cli::command().version(long_version).get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    init_logging(cli.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        // The reader of the output went away (`| head`): nothing is left to say to it.
        Err(err) if reader_gone(&err) => ExitCode::SUCCESS,
        Err(err) => {
            report_error(&err);
            ExitCode::FAILURE
        }
    }
}

/// Whether `err` is a write to a pipe whose reader has closed it.
fn reader_gone(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|it| it.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[expect(clippy::print_stderr, reason = "errors go to stderr")]
fn report_error(err: &anyhow::Error) {
    eprintln!("error: {err:#}");
    // A refused server certificate (sslmode verify-ca or verify-full): what to do about it.
    if let Some(advice) = err.chain().find_map(planner_exec::tls::certificate_advice) {
        eprintln!("hint: {advice}");
    }
}

/// `--as-of`: a calendar day written `YYYY-MM-DD`.
fn parse_as_of(text: &str) -> Result<String, String> {
    match planner_registry::resolve_bound("@D", text) {
        Some(day) if day == text => Ok(day),
        _ => Err(format!("`{text}` is not a day: write it YYYY-MM-DD, as 2025-10-31")),
    }
}

/// `planner eval`: exit 0, 1 below `--min-intent-exact`, errors to the caller (exit 2). The
/// registry is the file given (or the built-in one), read without its examples when asked.
async fn eval(
    json: bool,
    (registry, without_examples): (Option<&PathBuf>, bool),
    (min_intent_exact, as_of): (Option<f64>, Option<&str>),
    corpus: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let registry = match (registry, without_examples) {
        (Some(path), true) => {
            let text = read_registry_text(path)?;
            let text = planner_registry::edit::without_examples(&text)
                .with_context(|| format!("cannot read {}", path.display()))?;
            registry_from_file(&text, path).map_err(|err| anyhow::anyhow!("{err}"))?
        }
        // The built-in registry has no examples.
        (path, _) => load_registry(path)?,
    };
    let planner = Planner::new(registry, None, 1);
    let items = read_corpus(corpus)?;
    let report = evaluate_as_of(&planner, &items, as_of).await;
    if json {
        outln!("{}", serde_json::to_string(&report)?);
    } else {
        out!("{}", report.to_text());
    }
    match min_intent_exact {
        Some(min) if report.intent_set_exact < min => {
            if !json {
                outln!(
                    "intent_set_exact {:.3} is below --min-intent-exact {min}",
                    report.intent_set_exact
                );
            }
            Ok(ExitCode::FAILURE)
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

pub(crate) fn load_registry(path: Option<&PathBuf>) -> anyhow::Result<Registry> {
    let Some(path) = path else {
        return planner_registry::reference::registry().map_err(|err| anyhow::anyhow!("{err}"));
    };
    let text = read_registry_text(path)?;
    registry_from_file(&text, path).map_err(|err| anyhow::anyhow!("{err}"))
}

fn read_registry_text(path: &std::path::Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// A labelled corpus (the `planner eval` format), errors naming the file and line.
fn read_corpus(path: &std::path::Path) -> anyhow::Result<Vec<planner_engine::EvalItem>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_corpus(&text).map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))
}

/// `planner fit`: the search of [`planner_engine::fit`], its report, and with `write` the
/// registry file replaced by the edited one (written beside it, then renamed over it, so a
/// failure leaves the file as it was).
async fn fit(
    registry: &std::path::Path,
    options: planner_engine::FitOptions,
    write: bool,
    json: bool,
    corpus: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let text = read_registry_text(registry)?;
    let items = read_corpus(corpus)?;
    let load = |text: &str| registry_from_file(text, registry).map_err(|err| err.to_string());
    let report = planner_engine::fit(&text, load, &items, options)
        .await
        .map_err(|err| anyhow::anyhow!("{err}"))?;
    if json {
        outln!("{}", serde_json::to_string(&report)?);
    } else {
        let part = |name: &str,
                    before: planner_engine::PartScores,
                    after: planner_engine::PartScores| {
            format!(
                "{name:<9} {:>4} items   passed {:>4} -> {:<4}   route {:.3} -> {:.3}   intent set exact {:.3} -> {:.3}",
                before.items,
                before.passed,
                after.passed,
                before.route_accuracy,
                after.route_accuracy,
                before.intent_set_exact,
                after.intent_set_exact,
            )
        };
        outln!("{}", part("train", report.train_before, report.train_after));
        outln!("{}", part("held out", report.held_out_before, report.held_out_after));
        outln!("additions {}", report.additions.len());
        for addition in &report.additions {
            outln!(
                "  {} {} += {:?}   fixes {}",
                addition.intent,
                addition.list,
                addition.value,
                addition.fixes.join(", ")
            );
        }
        if !report.unfixed.is_empty() {
            outln!("no addition fixed: {}", report.unfixed.join(", "));
        }
        if !report.not_by_words.is_empty() {
            outln!("not fixable by adding words: {}", report.not_by_words.join(", "));
        }
    }
    if write && !report.additions.is_empty() {
        let dir = registry.parent().filter(|dir| !dir.as_os_str().is_empty());
        let mut file = tempfile::NamedTempFile::new_in(dir.unwrap_or(std::path::Path::new(".")))
            .context("cannot write beside the registry")?;
        file.write_all(report.text.as_bytes()).context("cannot write the registry")?;
        file.persist(registry).with_context(|| format!("cannot replace {}", registry.display()))?;
        if !json {
            outln!("wrote {}", registry.display());
        }
    } else if !write && !report.additions.is_empty() && !json {
        outln!("(dry run: --write applies them)");
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads a registry file's text, reading the files it names (a kind's `csv`) beside it.
pub(crate) fn registry_from_file(
    text: &str,
    path: &std::path::Path,
) -> planner_registry::Result<Registry> {
    let dir = path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
    let files = move |name: &str| -> Result<String, String> {
        let beside = dir.join(name);
        std::fs::read_to_string(&beside).map_err(|err| format!("{}: {err}", beside.display()))
    };
    Registry::from_toml_with(text, &path.display().to_string(), &files)
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Plan { json, registry, scopes, question } => {
            let planner = Planner::new(load_registry(registry.as_ref())?, None, 1);
            let report = plan_report(&planner, &question, &scopes).await?;
            if json {
                outln!("{}", serde_json::to_string(&report)?);
            } else {
                outln!("{}", serde_json::to_string_pretty(&report)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval { json, registry, min_intent_exact, without_examples, as_of, corpus } => {
            let registry = (registry.as_ref(), without_examples);
            match eval(json, registry, (min_intent_exact, as_of.as_deref()), &corpus).await {
                Ok(code) => Ok(code),
                // An error is not a low score: exit 2, so a CI gate can tell them apart.
                Err(err) => {
                    report_error(&err);
                    Ok(ExitCode::from(2))
                }
            }
        }
        Command::Fit { registry, holdout_every, max_examples, write, json, corpus } => {
            let options = planner_engine::FitOptions {
                holdout_every,
                max_examples,
                ..planner_engine::FitOptions::default()
            };
            fit(&registry, options, write, json, &corpus).await
        }
        Command::Ask {
            json,
            registry,
            scopes,
            tenant,
            database_url,
            model,
            thread,
            answer,
            question,
        } => {
            let start = match (question, thread, answer) {
                (Some(question), _, _) => Start::Question(question),
                (None, Some(thread), Some(answer)) => Start::Resume { thread, answer },
                _ => bail!("ask needs a question, or --thread with --answer"),
            };
            planner_engine::check_input(match &start {
                Start::Question(question) => question,
                Start::Resume { answer, .. } => answer,
            })?;
            let registry = load_registry(registry.as_ref())?;
            // A configuration error stops the command before any database is opened.
            let config = model.engine_config(registry)?;
            let database = embedded::Database::open(database_url.as_deref()).await?;
            let result = match resolve_tenant(&database, tenant.as_deref()).await {
                Ok(tenant) => ask(database.pool(), config, scopes, tenant, start, json).await,
                Err(err) => Err(err),
            };
            database.close().await?;
            result
        }
        Command::Serve(args) => serve::run(args).await,
        Command::Bench(args) => bench::run(*args).await,
        Command::Keys { command, database_url } => {
            admin::keys(command, database_url.as_deref()).await
        }
        Command::Registry { command } => admin::registry(command),
        Command::Db { command, database_url } => admin::db(command, database_url.as_deref()).await,
        Command::Acquire(args) => acquire::run(*args).await,
        Command::Completions { shell } => {
            std::io::stdout().lock().write_all(&completions(shell))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Version { json } => {
            let report = version_report(planner_crypto::module());
            if json {
                outln!("{}", serde_json::to_string(&report)?);
            } else {
                outln!("planner {} ({})", report.version, planner_crypto::module().summary());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            std::io::stdout().lock().write_all(&man_page()?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Graph { mermaid: _, svg, acquire } => {
            let mermaid = if acquire { planner_acquire::mermaid() } else { Engine::mermaid() };
            if svg {
                outln!("{}", planner_server::flowchart_svg(&mermaid));
            } else {
                outln!("{}", mermaid.trim_end());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The completion script of `planner` for `shell`.
fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "planner", &mut out);
    out
}

/// The manual page of `planner`, in roff.
fn man_page() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(out)
}

/// The tenant `ask` answers for: `--tenant` as a UUID or an existing tenant's name; without it,
/// the first demo tenant when the database has it, else none (public planes only: a database
/// of a team's own has no demo tenant, and a thread is kept without one).
async fn resolve_tenant(
    database: &embedded::Database,
    given: Option<&str>,
) -> anyhow::Result<Option<uuid::Uuid>> {
    let owner = database.owner().ok();
    let Some(text) = given else {
        let demo = planner_dataset::DEMO_TENANTS[0].id;
        return Ok(match owner {
            Some(owner) => planner_exec::tenant_exists(owner, demo).await?.then_some(demo),
            // The runtime login cannot read tenants: a missing one is named when the thread
            // is kept.
            None => Some(demo),
        });
    };
    let create = "`planner keys create --tenant NAME --new-tenant` creates one";
    if let Ok(id) = text.parse::<uuid::Uuid>() {
        if let Some(owner) = owner
            && !planner_exec::tenant_exists(owner, id).await?
        {
            bail!("--tenant {text}: no tenant has this id; {create}");
        }
        return Ok(Some(id));
    }
    let Some(owner) = owner else {
        bail!(
            "--tenant {text:?} is a name, and DATABASE_URL logs in as the runtime login, which \
             cannot read tenant names: pass the tenant's UUID, or set PLANNER_OWNER_URL"
        );
    };
    match planner_exec::find_tenant(owner, text).await? {
        Some(id) => Ok(Some(id.0)),
        None => bail!("--tenant {text:?}: no tenant has this name; {create}"),
    }
}

/// The fix for an unknown tenant, beside the engine's error.
fn tenant_hint(err: planner_engine::Error) -> anyhow::Error {
    match err {
        planner_engine::Error::UnknownTenant(_) => anyhow::anyhow!(
            "{err}: pass --tenant with an existing tenant's UUID (`planner keys create --tenant \
             NAME --new-tenant` creates one)"
        ),
        err => err.into(),
    }
}

/// What `ask` starts from: a question, or a waiting thread and its answer.
#[derive(Debug)]
enum Start {
    Question(String),
    Resume { thread: String, answer: String },
}

async fn ask(
    pool: &planner_exec::PgPool,
    config: EngineConfig,
    scopes: Vec<String>,
    tenant: Option<uuid::Uuid>,
    start: Start,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let engine = Engine::new(config, pool.clone());
    let caller = planner_engine::Caller { scopes: scopes.clone(), tenant, key: None };
    let mut outcome = match start {
        Start::Question(question) => {
            engine.ask(Ask { question, scopes, tenant, key: None }).await.map_err(tenant_hint)?
        }
        Start::Resume { thread, answer } => {
            engine.resume(&thread, &answer, &caller).await.map_err(|err| match err {
                planner_engine::Error::UnknownThread(_) => anyhow::anyhow!(
                    "{err}: a thread is resumed with the registry it was asked of (pass the same \
                     --registry), by the same tenant, within the thread retention"
                ),
                err => err.into(),
            })?
        }
    };
    loop {
        match outcome {
            Outcome::Answered(answer) => {
                if json {
                    outln!("{}", serde_json::to_string_pretty(&answer)?);
                } else {
                    // The text names what was withheld and what was dropped; the tables follow
                    // it once each.
                    outln!("{}", answer.text.trim_end());
                    for table in &answer.evidence {
                        outln!("\n{}:\n{}", table.intent, table.text.trim_end());
                    }
                    let nodes: Vec<&str> =
                        answer.plan.nodes.iter().map(|n| n.intent.as_str()).collect();
                    outln!(
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
                // With --json, stdout holds only the answer's object: the question goes to
                // stderr.
                let mut prompt = needs.question.clone();
                if !needs.suggestions.is_empty() {
                    prompt.push_str(&format!("\n(for example: {})", needs.suggestions.join(", ")));
                }
                // With --json a prompt is for a person at a terminal; a script reads the
                // `needs_input` object instead.
                let prompted = !json || std::io::stdin().is_terminal();
                if json && prompted {
                    #[expect(clippy::print_stderr, reason = "the question, beside the JSON")]
                    {
                        eprint!("{prompt}\n> ");
                    }
                    std::io::stderr().flush()?;
                } else if !json {
                    out!("{prompt}\n> ");
                    std::io::stdout().flush()?;
                }
                let mut line = String::new();
                let read = std::io::stdin().lock().read_line(&mut line)?;
                if read == 0 && json {
                    // No answer will come (no terminal, stdin at its end): the object a
                    // script resumes from with `--thread ID --answer TEXT`.
                    if prompted {
                        #[expect(clippy::print_stderr, reason = "ends the prompt's line")]
                        {
                            eprintln!();
                        }
                    }
                    outln!("{}", serde_json::to_string_pretty(&Outcome::NeedsInput(needs))?);
                    return Ok(ExitCode::SUCCESS);
                }
                if read == 0 || line.trim().is_empty() {
                    bail!(
                        "no answer given; ask again with the value in the question, or resume \
                         with `planner ask --thread {} --answer TEXT`",
                        needs.thread_id
                    );
                }
                outcome = engine.resume(&needs.thread_id, line.trim(), &caller).await?;
            }
        }
    }
}

#[cfg(test)]
mod docs_tests {
    //! Shell completions and the manual page.

    use clap::ValueEnum as _;

    use super::{completions, man_page};

    #[test]
    fn every_shell_completes_the_subcommands() {
        for shell in clap_complete::Shell::value_variants() {
            let script = String::from_utf8(completions(*shell)).unwrap();
            for name in ["ask", "plan", "serve", "bench", "completions", "man"] {
                assert!(script.contains(name), "{shell}: {name} missing");
            }
        }
    }

    #[test]
    fn the_man_page_lists_the_subcommands() {
        let page = String::from_utf8(man_page().unwrap()).unwrap();
        assert!(page.starts_with(".ie") || page.contains(".TH planner"), "{page}");
        for name in ["planner\\-ask", "planner\\-serve", "planner\\-completions", "planner\\-man"] {
            assert!(page.contains(name), "{name} missing from:\n{page}");
        }
    }
}

#[cfg(test)]
mod logging_tests {
    //! Which variable sets the log filter.

    use super::log_filter;

    #[test]
    fn planner_log_wins_then_rust_log_then_the_default() {
        let vars = |planner: Option<&str>, rust: Option<&str>| {
            let (planner, rust) = (planner.map(str::to_owned), rust.map(str::to_owned));
            log_filter(
                move |name| if name == "PLANNER_LOG" { planner.clone() } else { rust.clone() },
            )
            .to_string()
        };
        assert_eq!(vars(Some("debug"), Some("trace")), "debug");
        assert_eq!(vars(None, Some("planner_engine=trace")), "planner_engine=trace");
        assert_eq!(vars(None, None), "planner_server=info,planner_cli=info,warn");
        // A filter that does not parse falls through to the next.
        assert_eq!(vars(Some("=[bad"), Some("info")), "info");
    }
}
