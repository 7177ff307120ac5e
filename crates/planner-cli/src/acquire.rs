//! `planner acquire --profile FILE "IDEA"`: runs the field-acquisition agent, asking its
//! questions on the terminal, then prints the filled fields, the calculator's result and the
//! decision trace (or, with `--json`, one stable object).
//!
//! With `--database-url` the thread is checkpointed in PostgreSQL, so a run can stop at a
//! question (`--exit-on-question`) and be resumed by any later process with `--answer`.

use std::{
    io::{BufRead, Write},
    path::PathBuf,
    sync::Arc,
};

use anyhow::Context;
use planner_acquire::{
    Acquirer, Checkpointer, Corpus, Ctx, Decider, Durability, Idea, MemoryCheckpointer,
    PgCheckpointer, Profile, Progress, Provenance, Report, parse_documents, store_documents,
};
use planner_infer::{ModelClient, ModelConfig};

/// The demo corpus, built in.
const DEMO_CORPUS: &str = include_str!("../../../fixtures/acquire/corpus.toml");

/// Arguments of `planner acquire`.
#[derive(Debug, clap::Args)]
pub(crate) struct AcquireArgs {
    /// The profile (TOML): fields, recipes, calculator, caps.
    #[arg(long)]
    profile: PathBuf,
    /// The documents to search (TOML); without it, the built-in demo corpus.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Search documents with PostgreSQL full-text search and checkpoint the thread there.
    #[arg(long)]
    database_url: Option<String>,
    /// The thread id (with `--database-url`, the checkpoints are kept under it).
    #[arg(long, default_value = "acquire")]
    thread: String,
    /// Decide with an OpenAI-compatible server at this base URL instead of the offline decider.
    #[arg(long)]
    model_url: Option<String>,
    /// The model name sent to `--model-url`.
    #[arg(long, default_value = "default")]
    model: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// When the agent asks, print the question and exit instead of reading the terminal; the
    /// thread waits in PostgreSQL for `--answer` (needs `--database-url`).
    #[arg(long, requires = "database_url")]
    exit_on_question: bool,
    /// Resume thread `--thread`, which waits on a question, with this answer (needs
    /// `--database-url`; no idea is given).
    #[arg(long, requires = "database_url", conflicts_with = "idea")]
    answer: Option<String>,
    /// The business idea (not with `--answer`).
    #[arg(required_unless_present = "answer")]
    idea: Option<String>,
}

/// Runs `planner acquire`.
pub(crate) async fn run(args: AcquireArgs) -> anyhow::Result<std::process::ExitCode> {
    if let Some(idea) = &args.idea
        && (idea.trim().is_empty() || idea.chars().count() > 500)
    {
        anyhow::bail!("the idea must be between 1 and 500 characters");
    }
    if args.answer.as_ref().is_some_and(|answer| answer.chars().count() > 500) {
        anyhow::bail!("the answer must be at most 500 characters");
    }
    let profile = Profile::load(&args.profile).map_err(|err| anyhow::anyhow!("{err}"))?;
    let documents = match &args.corpus {
        Some(path) => planner_acquire::load_documents(path)?,
        None => parse_documents(DEMO_CORPUS, "fixtures/acquire/corpus.toml")?,
    };
    let decider = match &args.model_url {
        Some(url) => {
            let mut config = ModelConfig::with_defaults(url, &args.model);
            // The proposer's default is sized for a list of intent names.
            config.max_tokens = planner_acquire::DECISION_MAX_TOKENS;
            Decider::Model(Arc::new(
                ModelClient::new(config, None).context("configuring the model")?,
            ))
        }
        None => Decider::Offline,
    };
    let (corpus, store): (Corpus, Arc<dyn Checkpointer>) = match &args.database_url {
        Some(url) => {
            planner_exec::tls::check_url(url).context("--database-url")?;
            let pool = sqlx::PgPool::connect(url).await.context("connecting to the database")?;
            planner_acquire::migrate(&pool).await.context("migrating the database")?;
            store_documents(&pool, &documents).await?;
            (Corpus::Postgres(pool.clone()), Arc::new(PgCheckpointer::new(pool)))
        }
        None => (Corpus::Memory(documents), Arc::new(MemoryCheckpointer::new())),
    };
    let ctx = Ctx { profile: Arc::new(profile), decider, corpus };
    let acquirer = Acquirer::new(ctx, store, Durability::Async);
    let mut progress = match (&args.answer, &args.idea) {
        (Some(answer), _) => acquirer.answer(&args.thread, answer).await.with_context(|| {
            format!("resuming thread `{}` (is it waiting on a question?)", args.thread)
        })?,
        (None, Some(idea)) => {
            let idea = Idea { text: idea.trim().to_owned(), location: None, currency: None };
            acquirer.start(&args.thread, idea).await?
        }
        (None, None) => anyhow::bail!("give the business idea, or --answer to resume a thread"),
    };
    let stdin = std::io::stdin();
    let report = loop {
        match progress {
            Progress::Done(report) => break report,
            Progress::Asked(question) if args.exit_on_question => {
                print_question(&question, args.json)?;
                return Ok(std::process::ExitCode::SUCCESS);
            }
            Progress::Asked(question) => {
                let answer = ask(&question, &mut stdin.lock())?;
                progress = acquirer.answer(&args.thread, &answer).await?;
            }
        }
    };
    print(&report, args.json)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Asks on the terminal (stderr, so stdout holds only the result); end of input is an empty
/// answer, which the agent's caps bound.
#[expect(clippy::print_stderr, reason = "the question goes to the terminal")]
fn ask(question: &planner_acquire::Question, input: &mut impl BufRead) -> anyhow::Result<String> {
    let mut prompt = question.question.clone();
    if !question.suggested_answers.is_empty() {
        prompt.push_str(&format!(" [{}]", question.suggested_answers.join(", ")));
    }
    eprint!("{prompt}\n> ");
    std::io::stderr().flush()?;
    let mut line = String::new();
    input.read_line(&mut line)?;
    Ok(line.trim().to_owned())
}

/// The question a thread stopped at, and how to resume it; with `--json` one object whose
/// `status` is `asked`.
fn print_question(question: &planner_acquire::Question, json: bool) -> anyhow::Result<()> {
    if json {
        let value = serde_json::json!({ "status": "asked", "question": question });
        outln!("{}", serde_json::to_string(&value)?);
    } else {
        outln!("{}", question.question);
        if !question.suggested_answers.is_empty() {
            outln!("suggested: {}", question.suggested_answers.join(", "));
        }
        outln!(
            "resume with: planner acquire --profile FILE --database-url URL --thread {} --answer \"...\"",
            question.thread_id
        );
    }
    Ok(())
}

fn print(report: &Report, json: bool) -> anyhow::Result<()> {
    if json {
        let value = serde_json::json!({
            "profile": report.profile,
            "idea": report.idea,
            "status": report.status,
            "reason": report.reason,
            "fields": report.fields,
            "result": report.result,
            "decisions": report.decisions,
        });
        outln!("{}", serde_json::to_string(&value)?);
        return Ok(());
    }
    outln!("{} ({:?}): {}", report.profile, report.status, report.reason);
    outln!("\nfields:");
    for field in &report.fields {
        let value = field.value.as_ref().map_or_else(|| "-".to_owned(), ToString::to_string);
        let source = match &field.source {
            None => "missing".to_owned(),
            Some(Provenance::User { .. }) => "user".to_owned(),
            Some(Provenance::Document { id, source, .. }) => format!("{source} ({id})"),
            Some(Provenance::Derived { formula }) => format!("= {formula}"),
        };
        outln!("  {:<22} {value:<16} {source}", field.name);
    }
    if !report.result.is_empty() {
        outln!("\nresult:");
        for output in &report.result {
            outln!("  {:<22} {}", output.name, output.value);
        }
    }
    outln!("\ndecisions:");
    for (i, decision) in report.decisions.iter().enumerate() {
        let target = decision.target_field.as_deref().unwrap_or("");
        let component =
            decision.target_component.as_deref().map(|c| format!(".{c}")).unwrap_or_default();
        outln!(
            "  {:>2}. {} {target}{component}: {}",
            i + 1,
            decision.action.name(),
            decision.reasoning
        );
    }
    Ok(())
}
