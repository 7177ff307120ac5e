//! `planner bench`: a load generator for the planner, in process (an [`Engine`] on DATABASE_URL
//! or the embedded default database) or against a running server (`--url` with `--key`).
//!
//! One run plans the corpus once (questions that run no statement are skipped and counted),
//! warms up, measures answers for a duration or a number of requests with N workers, then
//! measures the raw-SQL baseline: the very statements the answers execute (the plan's intents
//! with the args the plan bound, see `statements`), through the same pool, without the planner,
//! with the same workers and stop rule. The report gives answers per second, latency
//! percentiles from HDR histograms, errors by kind, the baseline's rates and the ratio of
//! answers per second to baseline statement sets per second, the load average, and (with
//! `--rss-every`) this process's resident memory over the answer phase. `--sweep 1,2,4` repeats
//! the run per concurrency and `--plot FILE.svg` draws latency against concurrency. Each phase
//! (warm-ups included) draws a progress bar on stderr when stderr is a terminal, never with
//! `--json`.

mod load;
mod plot;
mod statements;

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use hdrhistogram::Histogram;
use planner_engine::{Ask, Engine, EngineConfig, Outcome, Planner};
use planner_exec::{PgPool, TenantId, WirePool};
use serde::Serialize;

use self::load::{Phase, RssSampler, Stop, Unit, UnitResult, run_phase};
use self::statements::{BenchQuestion, Only, RawPath};
use crate::embedded;

/// The default corpus: the development corpus, of which the single-intent and compound
/// questions are kept.
const DEFAULT_CORPUS: &str = include_str!("../../../fixtures/eval/dev.jsonl");

/// Arguments of `planner bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct BenchArgs {
    /// A running server's base URL (http://HOST:PORT); without it the engine runs in process.
    #[arg(long, value_name = "URL", requires = "key")]
    url: Option<String>,
    /// The API key for --url (its tenant and scopes apply).
    #[arg(long, env = "PLANNER_KEY", hide_env_values = true)]
    key: Option<String>,
    /// The PostgreSQL of the in-process engine and of the raw baseline; without it, the
    /// embedded default database (in process) or no baseline (--url).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    /// Questions, one a line (plain text, or JSONL with a "question" field); default: the
    /// development corpus.
    #[arg(long, value_name = "FILE")]
    corpus: Option<PathBuf>,
    /// Which planned questions to use.
    #[arg(long, value_enum, default_value = "all")]
    only: Only,
    /// Workers sending questions at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4096))]
    concurrency: u32,
    /// How long to measure each phase (e.g. 30s, 10m); default 10s.
    #[arg(long, value_parser = parse_duration, conflicts_with = "requests")]
    duration: Option<Duration>,
    /// How many answers (and baseline statement sets) to measure instead of a duration.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    requests: Option<u64>,
    /// Unmeasured warm-up before each phase (e.g. 2s, 0s).
    #[arg(long, value_parser = parse_duration, default_value = "2s")]
    warmup: Duration,
    /// Hold the answers to this many per second over all workers (the baseline runs unpaced).
    #[arg(long, value_name = "PER_SECOND", value_parser = parse_rate)]
    rate: Option<f64>,
    /// Sample this process's resident memory (VmRSS) this often during the answer phase.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_duration)]
    rss_every: Option<Duration>,
    /// How the baseline runs the statements.
    #[arg(long, value_enum, default_value = "guarded")]
    raw: RawPath,
    /// Repeat the run at each of these concurrencies (e.g. 1,2,4,8,16).
    #[arg(
        long,
        value_delimiter = ',',
        conflicts_with = "concurrency",
        value_parser = clap::value_parser!(u32).range(1..=4096)
    )]
    sweep: Vec<u32>,
    /// With --sweep: draw latency against concurrency into this SVG file.
    #[arg(long, value_name = "FILE.svg", requires = "sweep")]
    plot: Option<PathBuf>,
    /// Print the per-question table (answer p50 beside its statements' raw p50s).
    #[arg(long)]
    per_question: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// A registry file instead of the built-in reference registry.
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
    /// Scopes of the in-process caller (repeatable).
    #[arg(long = "scope", value_name = "SCOPE", default_value = "bench")]
    scopes: Vec<String>,
    /// The in-process caller's tenant (default: the first demo tenant).
    #[arg(long, value_name = "UUID")]
    tenant: Option<String>,
    /// In process: a streaming replica of DATABASE_URL's database, read for the market and
    /// graph planes (as `planner serve --read-url`).
    #[arg(long, value_name = "URL", env = "PLANNER_READ_URL", hide_env_values = true)]
    read_url: Option<String>,
}

/// Parses `500ms`, `30s`, `10m`, `1h` or a bare number of seconds.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let bad = || format!("`{text}` is not a duration: use a number with ms, s, m or h (30s, 10m)");
    let value: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(bad()),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| bad())
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!("`{text}` is not a positive number of answers per second")),
    }
}

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Latency {
    p50: u64,
    p90: u64,
    p99: u64,
    max: u64,
    mean: f64,
}

impl Latency {
    fn of(histogram: &Histogram<u64>) -> Latency {
        Latency {
            p50: histogram.value_at_quantile(0.5),
            p90: histogram.value_at_quantile(0.9),
            p99: histogram.value_at_quantile(0.99),
            max: histogram.max(),
            mean: (histogram.mean() * 10.0).round() / 10.0,
        }
    }
}

/// One measured phase.
#[derive(Debug, Serialize)]
struct PhaseReport {
    count: u64,
    seconds: f64,
    per_second: f64,
    latency_us: Latency,
    errors: BTreeMap<String, u64>,
}

impl PhaseReport {
    fn of(phase: &Phase) -> PhaseReport {
        let seconds = phase.elapsed.as_secs_f64();
        PhaseReport {
            count: phase.units,
            seconds: round3(seconds),
            per_second: round1(phase.units as f64 / seconds.max(1e-9)),
            latency_us: Latency::of(&phase.latency),
            errors: phase.errors.clone(),
        }
    }

    fn failed(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// The raw-SQL baseline.
#[derive(Debug, Serialize)]
struct RawReport {
    /// `guarded` or `sqlx`.
    path: &'static str,
    /// Statement sets (the statements of one answer, in its waves).
    sets: PhaseReport,
    statements: u64,
    statements_per_second: f64,
    /// This process's CPU time per statement set, in microseconds: the client side of the very
    /// statements an answer runs (the guarded path's lease, transaction, encoding, decoding and
    /// suppression, or the bare driver's).
    cpu_us_per_set: Option<f64>,
}

#[derive(Debug, Serialize)]
struct StatementReport {
    intent: String,
    raw_p50_us: u64,
}

/// One corpus question: its answer's p50 beside its statements' raw p50s.
#[derive(Debug, Serialize)]
struct QuestionReport {
    question: String,
    route: &'static str,
    nodes: usize,
    answers: u64,
    answer_p50_us: u64,
    statements: Vec<StatementReport>,
    raw_set_p50_us: Option<u64>,
    slowest_statement_p50_us: Option<u64>,
    sum_statement_p50_us: Option<u64>,
    /// The sum over the question's waves of each wave's slowest statement p50: what the answer
    /// would cost if its waves ran back to back at the raw statements' speed.
    critical_path_p50_us: Option<u64>,
}

#[derive(Debug, Serialize)]
struct RssReport {
    every_s: f64,
    /// (seconds since the answer phase's warm-up began, KiB).
    samples: Vec<(f64, u64)>,
    after_warmup_kib: u64,
    last_kib: u64,
    max_kib: u64,
    /// (last - after warm-up) / after warm-up.
    growth_after_warmup: f64,
}

#[derive(Debug, Serialize)]
struct LoadReport {
    before: Option<[f64; 3]>,
    after: Option<[f64; 3]>,
}

/// The report of one run.
#[derive(Debug, Serialize)]
struct Report {
    mode: &'static str,
    target: String,
    concurrency: usize,
    stop: String,
    warmup_s: f64,
    rate: Option<f64>,
    questions: usize,
    routes: BTreeMap<String, usize>,
    skipped: BTreeMap<String, usize>,
    answers: PhaseReport,
    raw: Option<RawReport>,
    /// answers/s ÷ raw statement sets/s.
    ratio: Option<f64>,
    load_average: LoadReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    rss: Option<RssReport>,
    /// In process: what each measured answer cost this process and its connections.
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<EngineReport>,
    per_question: Vec<QuestionReport>,
}

/// The in-process engine over the measured answer phase (warm-up excluded).
#[derive(Debug, Serialize)]
struct EngineReport {
    /// This process's CPU time (user and system) per answer, in microseconds: everything but
    /// PostgreSQL's own work (planning, graph, driver, narration, gate, audit; the load loop's
    /// bookkeeping too). Read from /proc/self/stat in 10 ms steps.
    cpu_us_per_answer: Option<f64>,
    /// `cpu_us_per_answer` less the raw phase's CPU per statement set of the same run: what an
    /// answer costs this process outside its statements (with the guarded raw path, whose
    /// client work per statement is the answer's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_us_outside_sql: Option<f64>,
    /// Round trips on the engine's sockets per answer (statements and audit group commits).
    round_trips_per_answer: f64,
    /// Audit rows per group commit.
    audit_rows_per_commit: Option<f64>,
    /// Round trips on the replica's sockets per answer, and statements that fell back to the
    /// primary (with --read-url).
    #[serde(skip_serializing_if = "Option::is_none")]
    replica_round_trips_per_answer: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replica_fallbacks: Option<u64>,
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Everything a run needs, shared by the runs of a sweep.
struct Setup {
    mode: &'static str,
    /// The engine answering in process.
    engine: Option<Arc<Engine>>,
    target: String,
    answer_unit: Unit,
    raw_unit: Option<Unit>,
    raw_path: RawPath,
    questions: Arc<Vec<BenchQuestion>>,
    skipped: BTreeMap<String, usize>,
}

/// Runs `planner bench`.
#[expect(clippy::print_stderr, reason = "progress and failures")]
pub(crate) async fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let registry = crate::load_registry(args.registry.as_ref())?;
    let corpus = match &args.corpus {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            statements::read_corpus(&text, &path.display().to_string())?
        }
        None => statements::read_corpus(DEFAULT_CORPUS, "fixtures/eval/dev.jsonl")?,
    };
    let tenant = match &args.tenant {
        Some(text) => {
            TenantId(text.parse().with_context(|| format!("--tenant {text} is not a UUID"))?)
        }
        None => TenantId(planner_dataset::DEMO_TENANTS[0].id),
    };
    let stop = match (args.requests, args.duration) {
        (Some(requests), _) => Stop::Requests(requests),
        (None, Some(duration)) => Stop::Duration(duration),
        (None, None) => Stop::Duration(Duration::from_secs(10)),
    };
    if let Stop::Duration(duration) = stop
        && duration.is_zero()
    {
        bail!("--duration must be longer than 0s");
    }
    let concurrencies: Vec<usize> = if args.sweep.is_empty() {
        vec![args.concurrency as usize]
    } else {
        args.sweep.iter().map(|&c| c as usize).collect()
    };

    let (database, setup) = match &args.url {
        Some(url) => {
            let url = url.trim_end_matches('/').to_owned();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                bail!("--url {url} is not an http:// or https:// URL");
            }
            if args.read_url.is_some() {
                bail!(
                    "--read-url applies in process; the server at --url reads from a replica \
                     when it was started with its own --read-url"
                );
            }
            let key = args.key.clone().unwrap_or_default();
            let pool = match &args.database_url {
                Some(database_url) if args.raw != RawPath::None => Some({
                    planner_exec::tls::check_url(database_url).context("DATABASE_URL")?;
                    PgPool::connect(database_url)
                        .await
                        .context("cannot connect to DATABASE_URL for the baseline")?
                }),
                _ => None,
            };
            let wire = pool.as_ref().map(WirePool::from_pg_pool);
            let planner = Planner::new(registry, None, 1);
            let (questions, skipped) = statements::prepare(
                &planner,
                wire.as_ref(),
                &corpus,
                &args.scopes,
                Some(tenant),
                args.only,
            )
            .await?;
            let questions = Arc::new(questions);
            let answer_unit = http_unit(&url, &key, &questions)?;
            let raw_unit = pool.map(|pool| raw_unit(pool, &questions, tenant, args.raw));
            (
                None,
                Setup {
                    mode: "http",
                    engine: None,
                    target: url,
                    answer_unit,
                    raw_unit,
                    raw_path: args.raw,
                    questions,
                    skipped,
                },
            )
        }
        None => {
            let database = embedded::Database::open(args.database_url.as_deref()).await?;
            let pool = database.pool().clone();
            let target = match &args.database_url {
                Some(url) => redact(url),
                None => format!("the embedded database in {}", embedded::embedded_dir().display()),
            };
            let mut config = EngineConfig::new(registry);
            if let Some(url) = &args.read_url {
                config.replica = Some(embedded::replica_pool(url, pool.options())?);
            }
            let engine = Arc::new(Engine::new(config, pool.clone()));
            let (questions, skipped) = statements::prepare(
                engine.planner(),
                Some(&WirePool::from_pg_pool(&pool)),
                &corpus,
                &args.scopes,
                Some(tenant),
                args.only,
            )
            .await?;
            let questions = Arc::new(questions);
            let answer_unit = engine_unit(&engine, &questions, &args.scopes, tenant);
            // Bare statements (`--raw sqlx`) set no reader role, which the runtime login needs
            // for every table: they run as the owner, as before the two logins.
            let raw_pool = match args.raw {
                RawPath::Sqlx => database
                    .owner()
                    .context("`--raw sqlx` runs bare statements as the owner")?
                    .clone(),
                RawPath::Guarded | RawPath::None => pool.clone(),
            };
            let raw_unit = (args.raw != RawPath::None)
                .then(|| raw_unit(raw_pool, &questions, tenant, args.raw));
            (
                Some(database),
                Setup {
                    mode: "in_process",
                    engine: Some(Arc::clone(&engine)),
                    target,
                    answer_unit,
                    raw_unit,
                    raw_path: args.raw,
                    questions,
                    skipped,
                },
            )
        }
    };
    if setup.questions.is_empty() {
        if let Some(database) = database {
            database.close().await?;
        }
        bail!("no question of the corpus plans to a statement (skipped: {:?})", setup.skipped);
    }

    let mut reports = Vec::new();
    for &concurrency in &concurrencies {
        if !args.json && concurrencies.len() > 1 {
            eprintln!("planner bench: concurrency {concurrency}");
        }
        let report = measure(&setup, &args, concurrency, stop).await;
        if !args.json {
            out!("{}", to_text(&report, args.per_question));
            if concurrencies.len() > 1 {
                outln!();
            }
        }
        reports.push(report);
    }
    if let Some(database) = database {
        database.close().await?;
    }
    if let Some(path) = &args.plot {
        let points: Vec<plot::Point> = reports
            .iter()
            .map(|report| plot::Point {
                concurrency: report.concurrency,
                answers: report.answers.latency_us,
                raw: report.raw.as_ref().map(|raw| raw.sets.latency_us),
            })
            .collect();
        let title = format!("planner bench ({}): latency against concurrency", report_mode(&setup));
        plot::latency_svg(path, &title, &points)?;
        if !args.json {
            outln!("plot: {}", path.display());
        }
    }
    if args.json {
        if reports.len() == 1 {
            outln!("{}", serde_json::to_string_pretty(&reports[0])?);
        } else {
            outln!("{}", serde_json::to_string_pretty(&serde_json::json!({ "sweep": reports }))?);
        }
    }
    let failed: u64 = reports
        .iter()
        .map(|it| it.answers.failed() + it.raw.as_ref().map_or(0, |raw| raw.sets.failed()))
        .sum();
    if failed > 0 {
        eprintln!("planner bench: {failed} request(s) failed (see errors in the report)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether phases draw a progress bar: on stderr, only when it is a terminal, and never with
/// `--json` (whose output is the report alone).
fn show_bars(json: bool, stderr_is_terminal: bool) -> bool {
    !json && stderr_is_terminal
}

fn report_mode(setup: &Setup) -> &'static str {
    if setup.mode == "http" { "HTTP" } else { "in process" }
}

async fn measure(setup: &Setup, args: &BenchArgs, concurrency: usize, stop: Stop) -> Report {
    let statement_counts: Vec<usize> =
        setup.questions.iter().map(|q| q.statements().count()).collect();
    let no_statements = vec![0; statement_counts.len()];
    let before = load::load_average();
    let sampler = args.rss_every.map(RssSampler::start);
    let shown = show_bars(args.json, std::io::stderr().is_terminal());
    if !args.warmup.is_zero() {
        let warmup = Stop::Duration(args.warmup);
        let bar = load::phase_bar(shown, "answers warm-up", warmup);
        run_phase(&setup.answer_unit, &no_statements, concurrency, warmup, args.rate, None, &bar)
            .await;
    }
    let cpu_before = planner_server::process_cpu_seconds();
    let stats_before = setup.engine.as_ref().map(|engine| engine.database_stats());
    let answers = run_phase(
        &setup.answer_unit,
        &no_statements,
        concurrency,
        stop,
        args.rate,
        sampler.as_ref(),
        &load::phase_bar(shown, "answers", stop),
    )
    .await;
    let mut engine_report = match (&setup.engine, stats_before) {
        (Some(engine), Some(before)) => {
            let after = engine.database_stats();
            let count = (answers.units as f64).max(1.0);
            let cpu = cpu_before.zip(planner_server::process_cpu_seconds());
            let commits = after.audit_commits - before.audit_commits;
            Some(EngineReport {
                cpu_us_per_answer: cpu.map(|(a, b)| round1((b - a) * 1e6 / count)),
                cpu_us_outside_sql: None,
                round_trips_per_answer: round3(
                    (after.primary_round_trips - before.primary_round_trips) as f64 / count,
                ),
                audit_rows_per_commit: (commits > 0).then(|| {
                    round3((after.audit_rows - before.audit_rows) as f64 / commits as f64)
                }),
                replica_round_trips_per_answer: after
                    .replica
                    .zip(before.replica)
                    .map(|(a, b)| round3((a.round_trips - b.round_trips) as f64 / count)),
                replica_fallbacks: after
                    .replica
                    .zip(before.replica)
                    .map(|(a, b)| a.fallbacks - b.fallbacks),
            })
        }
        _ => None,
    };
    let rss = match (sampler, args.rss_every) {
        (Some(sampler), Some(every)) => {
            let samples = sampler.finish().await;
            let warm = args.warmup.as_secs_f64();
            let after_warmup =
                samples.iter().find(|(t, _)| *t >= warm).or(samples.first()).map_or(0, |s| s.1);
            let last = samples.last().map_or(0, |s| s.1);
            let max = samples.iter().map(|s| s.1).max().unwrap_or(0);
            Some(RssReport {
                every_s: every.as_secs_f64(),
                growth_after_warmup: if after_warmup == 0 {
                    0.0
                } else {
                    round3((last as f64 - after_warmup as f64) / after_warmup as f64)
                },
                samples: samples.into_iter().map(|(t, kib)| (round1(t), kib)).collect(),
                after_warmup_kib: after_warmup,
                last_kib: last,
                max_kib: max,
            })
        }
        _ => None,
    };
    let raw = match &setup.raw_unit {
        Some(unit) => {
            if !args.warmup.is_zero() {
                let warmup = Stop::Duration(args.warmup);
                let bar = load::phase_bar(shown, "raw SQL warm-up", warmup);
                run_phase(unit, &statement_counts, concurrency, warmup, None, None, &bar).await;
            }
            let bar = load::phase_bar(shown, "raw SQL", stop);
            let cpu_before = planner_server::process_cpu_seconds();
            let raw = run_phase(unit, &statement_counts, concurrency, stop, None, None, &bar).await;
            let cpu = cpu_before.zip(planner_server::process_cpu_seconds());
            let sets = (raw.units as f64).max(1.0);
            Some((raw, cpu.map(|(a, b)| round1((b - a) * 1e6 / sets))))
        }
        None => None,
    };
    let raw_cpu = raw.as_ref().and_then(|(_, cpu)| *cpu);
    let raw = raw.map(|(raw, _)| raw);
    if let Some(engine) = engine_report.as_mut()
        && setup.raw_path == RawPath::Guarded
    {
        engine.cpu_us_outside_sql =
            engine.cpu_us_per_answer.zip(raw_cpu).map(|(answer, set)| round1(answer - set));
    }
    let after = load::load_average();
    let answers_report = PhaseReport::of(&answers);
    let raw_report = raw.as_ref().map(|raw| {
        let sets = PhaseReport::of(raw);
        RawReport {
            path: setup.raw_path.as_str(),
            statements: raw.statements,
            cpu_us_per_set: raw_cpu,
            statements_per_second: round1(
                raw.statements as f64 / raw.elapsed.as_secs_f64().max(1e-9),
            ),
            sets,
        }
    });
    let ratio = raw_report.as_ref().and_then(|raw| {
        (raw.sets.per_second > 0.0).then(|| round3(answers_report.per_second / raw.sets.per_second))
    });
    let mut routes: BTreeMap<String, usize> = BTreeMap::new();
    for question in setup.questions.iter() {
        let kind = match (question.route, question.nodes) {
            (_, nodes) if nodes >= 2 => "compound",
            (planner_engine::Route::Single, _) => "single",
            _ => "plan_one_node",
        };
        *routes.entry(kind.to_owned()).or_default() += 1;
    }
    let per_question = setup
        .questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let statements: Vec<StatementReport> = question
                .statements()
                .enumerate()
                .map(|(i, statement)| StatementReport {
                    intent: statement.intent.clone(),
                    raw_p50_us: raw
                        .as_ref()
                        .map_or(0, |raw| raw.per_statement[index][i].value_at_quantile(0.5)),
                })
                .collect();
            let has_raw = raw.as_ref().is_some_and(|raw| !raw.per_question[index].is_empty());
            let mut offset = 0;
            let mut critical_path = 0;
            for wave in &question.waves {
                critical_path += statements[offset..offset + wave.len()]
                    .iter()
                    .map(|s| s.raw_p50_us)
                    .max()
                    .unwrap_or(0);
                offset += wave.len();
            }
            QuestionReport {
                question: question.question.clone(),
                route: question.route.as_str(),
                nodes: question.nodes,
                answers: answers.per_question[index].len(),
                answer_p50_us: answers.per_question[index].value_at_quantile(0.5),
                raw_set_p50_us: raw
                    .as_ref()
                    .filter(|_| has_raw)
                    .map(|raw| raw.per_question[index].value_at_quantile(0.5)),
                slowest_statement_p50_us: has_raw
                    .then(|| statements.iter().map(|s| s.raw_p50_us).max().unwrap_or(0)),
                sum_statement_p50_us: has_raw
                    .then(|| statements.iter().map(|s| s.raw_p50_us).sum()),
                critical_path_p50_us: has_raw.then_some(critical_path),
                statements,
            }
        })
        .collect();
    Report {
        mode: setup.mode,
        target: setup.target.clone(),
        concurrency,
        stop: match stop {
            Stop::Requests(n) => format!("{n} requests"),
            Stop::Duration(d) => format!("{}s", round3(d.as_secs_f64())),
        },
        warmup_s: round3(args.warmup.as_secs_f64()),
        rate: args.rate,
        questions: setup.questions.len(),
        routes,
        skipped: setup.skipped.clone(),
        answers: answers_report,
        raw: raw_report,
        ratio,
        load_average: LoadReport { before, after },
        rss,
        engine: engine_report,
        per_question,
    }
}

/// Answers question `index` in process.
fn engine_unit(
    engine: &Arc<Engine>,
    questions: &Arc<Vec<BenchQuestion>>,
    scopes: &[String],
    tenant: TenantId,
) -> Unit {
    let engine = Arc::clone(engine);
    let questions = Arc::clone(questions);
    let scopes = scopes.to_vec();
    Arc::new(move |index| {
        let engine = Arc::clone(&engine);
        let questions = Arc::clone(&questions);
        let scopes = scopes.clone();
        Box::pin(async move {
            let question = &questions[index];
            let ask = Ask {
                question: question.question.clone(),
                scopes,
                tenant: Some(tenant.0),
                key: None,
            };
            let error = match engine.ask(ask).await {
                Ok(Outcome::Answered(answer)) => (answer.evidence.len()
                    < question.statements().count())
                .then(|| "partial_answer".to_owned()),
                Ok(Outcome::NeedsInput(_)) => Some("needs_input".to_owned()),
                Err(err) => Some(
                    match err {
                        planner_engine::Error::Input(_) => "input",
                        planner_engine::Error::UnknownThread(_) => "unknown_thread",
                        planner_engine::Error::AuditFailed(_) => "audit_failed",
                        planner_engine::Error::Unavailable(_) => "unavailable",
                        planner_engine::Error::Graph(_) => "graph",
                        planner_engine::Error::UnknownTenant(_) => "unknown_tenant",
                    }
                    .to_owned(),
                ),
            };
            UnitResult { error, statements: Vec::new() }
        })
    })
}

/// Asks question `index` of a running server (`POST /v1/answer`).
fn http_unit(url: &str, key: &str, questions: &Arc<Vec<BenchQuestion>>) -> anyhow::Result<Unit> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .context("cannot build the HTTP client")?;
    let endpoint: Arc<str> = Arc::from(format!("{url}/v1/answer"));
    let key: Arc<str> = Arc::from(key);
    let questions = Arc::clone(questions);
    Ok(Arc::new(move |index| {
        let client = client.clone();
        let endpoint = Arc::clone(&endpoint);
        let key = Arc::clone(&key);
        let questions = Arc::clone(&questions);
        Box::pin(async move {
            let question = &questions[index];
            let sent = client
                .post(&*endpoint)
                .bearer_auth(&*key)
                .json(&serde_json::json!({ "question": question.question }))
                .send()
                .await;
            let error = match sent {
                Err(err) if err.is_timeout() => Some("timeout".to_owned()),
                Err(err) if err.is_connect() => Some("connect".to_owned()),
                Err(_) => Some("http".to_owned()),
                Ok(response) if !response.status().is_success() => {
                    Some(format!("http_{}", response.status().as_u16()))
                }
                Ok(response) => match response.json::<serde_json::Value>().await {
                    Err(_) => Some("body".to_owned()),
                    Ok(body) if body["status"] != "answered" => Some("needs_input".to_owned()),
                    Ok(body) => {
                        let tables = body["evidence"].as_array().map_or(0, Vec::len);
                        (tables < question.statements().count())
                            .then(|| "partial_answer".to_owned())
                    }
                },
            };
            UnitResult { error, statements: Vec::new() }
        })
    }))
}

/// Runs the statements of question `index` without the planner, wave by wave (each wave's
/// statements at once, as the engine runs them), timing each statement.
fn raw_unit(
    pool: PgPool,
    questions: &Arc<Vec<BenchQuestion>>,
    tenant: TenantId,
    path: RawPath,
) -> Unit {
    let questions = Arc::clone(questions);
    let wire = WirePool::from_pg_pool(&pool);
    Arc::new(move |index| {
        let pool = pool.clone();
        let wire = wire.clone();
        let questions = Arc::clone(&questions);
        Box::pin(async move {
            let question = &questions[index];
            let mut result = UnitResult::default();
            let mut offset = 0;
            for wave in &question.waves {
                let runs = wave.iter().enumerate().map(|(i, statement)| {
                    let (pool, wire) = (&pool, &wire);
                    async move {
                        let begun = tokio::time::Instant::now();
                        let outcome =
                            statements::run_statement(pool, wire, statement, Some(tenant), path)
                                .await;
                        let micros = u64::try_from(begun.elapsed().as_micros()).unwrap_or(u64::MAX);
                        (offset + i, micros, outcome)
                    }
                });
                for (statement, micros, outcome) in futures::future::join_all(runs).await {
                    result.statements.push((statement, micros));
                    if let Err(kind) = outcome {
                        result.error.get_or_insert(kind);
                    }
                }
                offset += wave.len();
            }
            result
        })
    })
}

/// The URL without its password.
fn redact(url: &str) -> String {
    match url.split_once('@') {
        Some((userinfo, rest)) => match userinfo.rsplit_once(':') {
            Some((user, _)) if user.contains("://") => format!("{user}:***@{rest}"),
            _ => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

fn ms(micros: u64) -> String {
    format!("{:.2} ms", micros as f64 / 1000.0)
}

fn latency_text(latency: &Latency) -> String {
    format!(
        "p50 {}, p90 {}, p99 {}, max {}",
        ms(latency.p50),
        ms(latency.p90),
        ms(latency.p99),
        ms(latency.max)
    )
}

fn errors_text(errors: &BTreeMap<String, u64>) -> String {
    if errors.is_empty() {
        return "none".to_owned();
    }
    errors.iter().map(|(kind, n)| format!("{kind} {n}")).collect::<Vec<_>>().join(", ")
}

fn to_text(report: &Report, per_question: bool) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let load = |it: Option<[f64; 3]>| {
        it.map_or_else(|| "unknown".to_owned(), |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"))
    };
    let _ = writeln!(
        out,
        "planner bench: {} on {}, {} worker(s), {} after {}s warm-up{}",
        if report.mode == "http" { "HTTP" } else { "in process" },
        report.target,
        report.concurrency,
        report.stop,
        report.warmup_s,
        report.rate.map(|rate| format!(", paced at {rate} answers/s")).unwrap_or_default(),
    );
    let routes: Vec<String> = report.routes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let skipped: Vec<String> = report.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(
        out,
        "questions: {} ({}); skipped: {}",
        report.questions,
        routes.join(", "),
        if skipped.is_empty() { "none".to_owned() } else { skipped.join(", ") }
    );
    let a = &report.answers;
    let _ = writeln!(
        out,
        "answers: {} in {:.1} s = {:.1} answers/s; {}; errors: {}",
        a.count,
        a.seconds,
        a.per_second,
        latency_text(&a.latency_us),
        errors_text(&a.errors)
    );
    match &report.raw {
        Some(raw) => {
            let _ = writeln!(
                out,
                "raw SQL ({} path, no planner): {} statement sets ({} statements) in {:.1} s = \
                 {:.1} sets/s, {:.1} statements/s; {}; errors: {}",
                raw.path,
                raw.sets.count,
                raw.statements,
                raw.sets.seconds,
                raw.sets.per_second,
                raw.statements_per_second,
                latency_text(&raw.sets.latency_us),
                errors_text(&raw.sets.errors)
            );
        }
        None => {
            let _ = writeln!(out, "raw SQL: not measured");
        }
    }
    if let Some(ratio) = report.ratio {
        let _ = writeln!(out, "ratio answers/s ÷ raw sets/s: {ratio:.3}");
    }
    if let Some(engine) = &report.engine {
        let mut cpu =
            engine.cpu_us_per_answer.map_or("unknown".to_owned(), |it| format!("{it:.1} µs"));
        if let Some(outside) = engine.cpu_us_outside_sql {
            let _ = write!(cpu, " ({outside:.1} µs outside its statements)");
        }
        let commit =
            engine.audit_rows_per_commit.map_or("none".to_owned(), |it| format!("{it:.2}"));
        let _ = writeln!(
            out,
            "per answer: this process's CPU {cpu}; {:.3} round trips; audit rows per group \
             commit {commit}",
            engine.round_trips_per_answer
        );
        if let Some(trips) = engine.replica_round_trips_per_answer {
            let _ = writeln!(
                out,
                "replica: {trips:.3} round trips per answer; {} statements fell back to the \
                 primary",
                engine.replica_fallbacks.unwrap_or(0)
            );
        }
    }
    let p = &report.answers.latency_us;
    if p.p50 > 0 {
        let _ = writeln!(out, "answers p99 ÷ p50: {:.2}", p.p99 as f64 / p.p50 as f64);
    }
    if let Some(rss) = &report.rss {
        let _ = writeln!(
            out,
            "resident memory: {} KiB after warm-up, {} KiB at the end, {} KiB at most ({:+.1}%); \
             {} samples every {}s",
            rss.after_warmup_kib,
            rss.last_kib,
            rss.max_kib,
            rss.growth_after_warmup * 100.0,
            rss.samples.len(),
            rss.every_s
        );
    }
    let _ = writeln!(
        out,
        "load average: {} before, {} after",
        load(report.load_average.before),
        load(report.load_average.after)
    );
    if per_question {
        let _ = writeln!(
            out,
            "\nanswer p50 | raw set p50 | slowest statement p50 | sum of statement p50s | \
             critical path | question"
        );
        for q in &report.per_question {
            let opt = |it: Option<u64>| it.map_or_else(|| "-".to_owned(), ms);
            let _ = writeln!(
                out,
                "{} | {} | {} | {} | {} | [{} node(s)] {}",
                ms(q.answer_p50_us),
                opt(q.raw_set_p50_us),
                opt(q.slowest_statement_p50_us),
                opt(q.sum_statement_p50_us),
                opt(q.critical_path_p50_us),
                q.nodes,
                q.question
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units_and_explain_errors() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        let err = parse_duration("5parsecs").unwrap_err();
        assert!(err.contains("not a duration") && err.contains("30s"), "{err}");
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn rates_must_be_positive() {
        assert_eq!(parse_rate("12.5"), Ok(12.5));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn progress_bars_only_on_a_terminal_and_never_with_json() {
        assert!(show_bars(false, true));
        assert!(!show_bars(true, true));
        assert!(!show_bars(false, false));
        assert!(!show_bars(true, false));
    }

    #[test]
    fn urls_lose_their_password() {
        assert_eq!(redact("postgres://u:secret@h:1/db"), "postgres://u:***@h:1/db");
        assert_eq!(redact("postgres://h/db"), "postgres://h/db");
    }
}
