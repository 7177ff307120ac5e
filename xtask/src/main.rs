//! Project automation, driven by `cargo xtask <command>`:
//!
//! - `ci`: exactly what CI runs, in order: fmt --check, clippy -D warnings on all targets, tidy,
//!   the real-model check with the prebuilt server (skipped, saying why, on a CPU it cannot run
//!   on), doc tests, then nextest with every test including the database ones (nextest last);
//! - `test [--deep]`: the local loop; `--deep` raises PROPTEST_CASES to 2048;
//! - `tidy`: repository invariants (also a test);
//! - `db`: start a development PostgreSQL, print its URL, stop it on Ctrl-C;
//! - `pg-image [--force]`: build the local image `planner-postgres:15`;
//! - `image [--profile release|dev] [--binary PATH] [--force]`: build the local image
//!   `planner:latest` (the `planner` binary on a Debian base); `test` and `ci` refresh it from
//!   their debug binary when a Docker engine answers, for the scale-out test;
//! - `llm-check`: the OpenAI-compatible proposer against a real small local model;
//! - `bench [--counts [--wall]] [--save-baseline NAME] [--baseline NAME --max-regression 2%
//!   [--gate counts|wall|both]] [--write-docs] [--no-run] [--bench AREA] [-- criterion args]`:
//!   the criterion suite and the instruction counts of benches/, their JSON summary, the
//!   regression gate (on instruction counts by default) and, with `--write-docs`, the tables of
//!   docs/benchmarks.md; `bench --ab REV` compares wall time with REV in one run; `bench
//!   --self-check` proves the counts gate (see `bench`);
//! - `fuzz [--seconds N] [TARGET]`: the cargo-fuzz targets of fuzz/, N seconds each (default
//!   30), installing cargo-fuzz into `.cache/` on first use (`.ci/run` runs 20 s of each).
//!
//! `test` and `ci` start ONE PostgreSQL for the whole run (see `planner-devdb` for the order in
//! which providers are tried), export DATABASE_URL, and let each test create its own database.

#![allow(clippy::print_stderr, reason = "xtask reports progress on stderr")]

mod bench;
mod fuzz;
mod image;
mod llm_check;
mod pg_image;
mod rootfs;
mod tidy;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use planner_devdb::{DockerEngine, Options, Postgres};
use xshell::{Shell, cmd};

const USAGE: &str = "usage: cargo xtask <ci | test [--deep] | tidy | db | pg-image [--force] | \
                     image [--profile release|dev] [--binary PATH] [--force] | bench [ARGS] | \
                     fuzz [--seconds N] [TARGET]>";

fn main() -> anyhow::Result<()> {
    let sh = Shell::new()?;
    sh.change_dir(project_root());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = args.split_first().map_or(("", &[][..]), |(c, r)| (c.as_str(), r));
    match command {
        "ci" => ci(&sh),
        "test" => {
            let deep = rest.iter().any(|it| it == "--deep");
            test(&sh, if deep { Some("2048") } else { None })
        }
        "tidy" => tidy::run(&sh),
        "llm-check" => llm_check::run(&sh, llm_check::ServerSource::AnyBuild),
        "db" => db(),
        "pg-image" => {
            pg_image::ensure(&sh, Options::LOCAL_IMAGE, rest.iter().any(|it| it == "--force"))
        }
        "image" => image::run(&sh, rest),
        "bench" => bench::run(&sh, rest),
        "fuzz" => fuzz::run(&sh, rest),
        "" | "help" | "--help" | "-h" => {
            eprintln!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
}

/// The workspace root: from `cargo run`'s CARGO_MANIFEST_DIR when set (a binary shared through
/// one target directory by two checkouts then still works on the checkout that ran it), else
/// from where this binary was compiled.
pub(crate) fn project_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir.parent().map_or_else(|| manifest_dir.clone(), Path::to_path_buf)
}

fn ci(sh: &Shell) -> anyhow::Result<()> {
    cmd!(sh, "cargo fmt --all --check").run()?;
    cmd!(sh, "cargo clippy --workspace --all-targets --locked -- -D warnings").run()?;
    tidy::run(sh)?;
    // About a minute with the prebuilt server; skipped, saying why, where it cannot run.
    llm_check::run(sh, llm_check::ServerSource::PrebuiltOnly)?;
    test(sh, None)
}

fn test(sh: &Shell, proptest_cases: Option<&str>) -> anyhow::Result<()> {
    let runtime = runtime()?;
    // Build first, so that the database is not kept waiting on the compiler.
    cmd!(sh, "cargo nextest run --workspace --locked --no-run").run()?;
    refresh_planner_image(sh)?;
    let pg = runtime.block_on(provide())?;
    eprintln!("xtask: PostgreSQL from {} ({})", pg.provider(), redact(pg.url()));
    let result = (|| {
        let _url = sh.push_env("DATABASE_URL", pg.url());
        let _cases = proptest_cases.map(|cases| sh.push_env("PROPTEST_CASES", cases));
        // Doc tests first: nextest does not run them, and CI reads the last runner's summary.
        cmd!(sh, "cargo test --workspace --locked --doc").run()?;
        cmd!(sh, "cargo nextest run --workspace --locked --profile ci").run()?;
        anyhow::Ok(())
    })();
    let stopped = runtime.block_on(pg.stop());
    result?;
    stopped.context("stopping the test PostgreSQL")?;
    Ok(())
}

/// The scale-out test runs replicas from `planner:latest`: when a Docker engine answers and has
/// the PostgreSQL image, rebuild it from the debug binary the test build just made (nothing is
/// done when it is already built from that binary). Without Docker the test skips itself; a
/// failed build fails CI (CI set) and only warns elsewhere.
fn refresh_planner_image(sh: &Shell) -> anyhow::Result<()> {
    let engine = DockerEngine::from_docker_host(std::env::var("DOCKER_HOST").ok().as_deref());
    let Some(engine) = engine.filter(|it| it.ping().is_ok()) else { return Ok(()) };
    if engine.has_image(Options::LOCAL_IMAGE) != Ok(true) {
        return Ok(());
    }
    let binary = image::target_dir(sh).join("debug/planner");
    match image::from_binary(sh, &binary, false) {
        Err(err) if std::env::var_os("CI").is_none() => {
            eprintln!("xtask: cannot build {}: {err:#}; the scale-out test skips", image::IMAGE);
            Ok(())
        }
        other => other,
    }
}

#[expect(clippy::print_stdout, reason = "the URL is the command's output")]
fn db() -> anyhow::Result<()> {
    let runtime = runtime()?;
    runtime.block_on(async {
        let pg = provide().await?;
        eprintln!("xtask: PostgreSQL from {}; Ctrl-C stops it", pg.provider());
        println!("DATABASE_URL={}", pg.url());
        tokio::signal::ctrl_c().await?;
        pg.stop().await?;
        anyhow::Ok(())
    })
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().worker_threads(1).build()?;
    // Ctrl-C goes to the whole process group: let the child cargo stop, then clean up here.
    runtime.spawn(async { while tokio::signal::ctrl_c().await.is_ok() {} });
    Ok(runtime)
}

/// The options of `planner-devdb`, preferring the locally built image when the engine lacks the
/// official one and PLANNER_PG_IMAGE does not say otherwise.
async fn provide() -> anyhow::Result<Postgres> {
    let mut options = Options::from_env();
    if options.database_url.is_none() && std::env::var_os("PLANNER_PG_IMAGE").is_none() {
        let engine = DockerEngine::from_docker_host(options.docker_host.as_deref());
        if let Some(engine) = engine
            && engine.ping().is_ok()
            && engine.has_image(Options::DEFAULT_IMAGE) == Ok(false)
            && engine.has_image(Options::LOCAL_IMAGE) == Ok(true)
        {
            options.image = Options::LOCAL_IMAGE.to_owned();
        }
    }
    Ok(planner_devdb::provide(&options).await?)
}

fn redact(url: &str) -> String {
    match url.split_once('@') {
        Some((userinfo, rest)) => match userinfo.rsplit_once(':') {
            Some((user, _)) if user.contains("://") => format!("{user}:***@{rest}"),
            _ => url.to_owned(),
        },
        None => url.to_owned(),
    }
}
