//! Project automation, driven by `cargo xtask <command>`:
//!
//! - `ci`: exactly what CI runs, in order: fmt --check, clippy -D warnings on all targets, tidy,
//!   `knowledge --check`, the real-model check with the prebuilt server (not run, saying why, on a CPU it cannot run
//!   on), then `test`;
//! - `test [--deep]`: builds the tests, provisions what they need (with a Docker engine: the
//!   images `planner-postgres:15` and `planner:latest`, built here when missing, so
//!   testcontainers serves the database and the fault and scale-out tests run), starts one
//!   PostgreSQL, runs the doc tests (`ci` then builds the `fips` feature and runs the crypto,
//!   key and TLS tests on it: AWS-LC's FIPS module, which needs Go and CMake), then every test
//!   under nextest; `--deep` raises
//!   PROPTEST_CASES to 2048. A test whose prerequisite is missing is excluded up front and
//!   listed with its reason in the last lines, never counted as passed (see `prereq`). Each
//!   step prints its name and duration;
//! - `tidy`: repository invariants (also a test);
//! - `db`: start a development PostgreSQL, print its URL, stop it on Ctrl-C;
//! - `pg-image [--force]`: build the local image `planner-postgres:15`;
//! - `image [--profile release|dev] [--binary PATH] [--force]`: build the local image
//!   `planner:latest` (the `planner` binary on a Debian base); `test` and `ci` refresh it from
//!   their debug binary when a Docker engine answers, for the scale-out test;
//! - `knowledge [--wordnet DIR] [--check]`: generates planner-knowledge's `data/english.txt` from
//!   WordNet 3.0 (Debian's `wordnet-base`), or checks that the committed file is what it generates;
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
mod crates;
mod cycles;
mod fuzz;
mod image;
mod knowledge;
mod llm_check;
mod pg_image;
mod prereq;
mod rootfs;
mod tidy;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use planner_devdb::{DockerEngine, Options, Postgres};
use xshell::{Shell, cmd};

const USAGE: &str = "usage: cargo xtask <ci | test [--deep] | tidy | db | pg-image [--force] | \
                     image [--profile release|dev] [--binary PATH] [--force] | bench [ARGS] | \
                     knowledge [--wordnet DIR] [--check] | \
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
            test(&sh, if deep { Some("2048") } else { None }, prereq::Plan::default(), false)
        }
        "tidy" => tidy::run(&sh),
        "llm-check" => llm_check::run(&sh, llm_check::ServerSource::AnyBuild).map(drop),
        "db" => db(),
        "pg-image" => {
            pg_image::ensure(&sh, Options::LOCAL_IMAGE, rest.iter().any(|it| it == "--force"))
        }
        "image" => image::run(&sh, rest),
        "knowledge" => knowledge::run(&project_root(), rest),
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
    let mut plan = prereq::Plan::default();
    step("fmt", || cmd!(sh, "cargo fmt --all --check").run().map_err(Into::into))?;
    step("clippy", || {
        cmd!(sh, "cargo clippy --workspace --all-targets --locked -- -D warnings")
            .run()
            .map_err(Into::into)
    })?;
    step("tidy", || tidy::run(sh))?;
    // The knowledge file is what its generator makes of WordNet (Debian's wordnet-base, which
    // `.ci/run` installs); without WordNet it is not checked, saying why (CI fails instead).
    let wordnet = Path::new(knowledge::WORDNET);
    if wordnet.join("data.noun").is_file() {
        step("knowledge", || knowledge::run(&project_root(), &["--check".to_owned()]))?;
    } else {
        let reason = format!("no WordNet in {} (apt-get install wordnet-base)", wordnet.display());
        plan.exclude("knowledge --check (the generated knowledge file)", None, reason, true)?;
    }
    // About a minute with the prebuilt server; not run, saying why, where it cannot run.
    if let Some(reason) =
        step("llm-check", || llm_check::run(sh, llm_check::ServerSource::PrebuiltOnly))?
    {
        // A CPU without the instructions the prebuilt server needs is a machine this kind may
        // be; building the server from source there takes 40 minutes (`cargo xtask llm-check`).
        plan.exclude("llm-check (the real local model)", None, reason, false)?;
    }
    test(sh, None, plan, true)
}

/// Runs one step of `ci`/`test`, printing its name before and its duration after.
fn step<T>(name: &str, run: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    eprintln!("xtask: == {name}");
    let started = Instant::now();
    let result = run();
    let outcome = if result.is_ok() { "done" } else { "FAILED" };
    eprintln!("xtask: == {name}: {outcome} in {:.1} s", started.elapsed().as_secs_f64());
    result
}

/// `with_fips`: also build the `fips` feature and run [`FIPS_TESTS`] on it (`ci` does).
fn test(
    sh: &Shell,
    proptest_cases: Option<&str>,
    mut plan: prereq::Plan,
    with_fips: bool,
) -> anyhow::Result<()> {
    let runtime = runtime()?;
    // Build first, so that the database is not kept waiting on the compiler.
    step("build the tests", || {
        cmd!(sh, "cargo nextest run --workspace --locked --no-run").run().map_err(Into::into)
    })?;
    step("provision", || provision(sh, &mut plan))?;
    let pg = step("start PostgreSQL", || runtime.block_on(provide()))?;
    let provider = format!("{} ({})", pg.provider(), redact(pg.url()));
    eprintln!("xtask: PostgreSQL from {provider}");
    let result = (|| {
        if !runtime.block_on(pg.preloads("pg_stat_statements"))? {
            plan.exclude(
                "the injection test's statement check",
                Some(prereq::STATEMENT_TESTS),
                "this PostgreSQL does not preload pg_stat_statements (add it to \
                 shared_preload_libraries, or let xtask provide the database)"
                    .to_owned(),
                true,
            )?;
        }
        let _url = sh.push_env("DATABASE_URL", pg.url());
        // The runtime login's password for the whole run: the role is cluster-wide, so every
        // test (and every `planner` process a test starts) must use the same one.
        let password = planner_devdb::generate_password()?;
        let _password = sh.push_env("PLANNER_RUNTIME_PASSWORD", &password);
        let _cases = proptest_cases.map(|cases| sh.push_env("PROPTEST_CASES", cases));
        // Doc tests first: nextest does not run them, and CI reads the last runner's summary.
        step("doc tests", || {
            cmd!(sh, "cargo test --workspace --locked --doc").run().map_err(Into::into)
        })?;
        if with_fips {
            step("fips", || fips(sh))?;
        }
        let filter: Vec<String> =
            plan.nextest_filter().map(|it| vec!["-E".to_owned(), it]).unwrap_or_default();
        step("nextest", || {
            cmd!(sh, "cargo nextest run --workspace --locked --profile ci {filter...}")
                .run()
                .map_err(Into::into)
        })
    })();
    let stopped = runtime.block_on(pg.stop());
    // The closing lines: which PostgreSQL served the tests, and everything that did not run.
    eprintln!("xtask: PostgreSQL provider: {provider}");
    eprint!("{plan}");
    result?;
    stopped.context("stopping the test PostgreSQL")?;
    Ok(())
}

/// The tests that `fips` builds run on AWS-LC's FIPS module: the module's own, API key hashing
/// (and the keys stored in PostgreSQL), TLS to PostgreSQL on both paths, the model client's TLS
/// provider, and `planner version --json` and TLS from the `planner` binary.
const FIPS_TESTS: &str = "package(planner-crypto) | binary(tls) | (package(planner-exec) & \
                          test(/keys/)) | test(the_client_speaks_tls_on_the_modules_provider) \
                          | binary(crypto)";

/// Builds the `planner` binary with the `fips` feature (AWS-LC's FIPS module: Go and CMake) and
/// runs [`FIPS_TESTS`] with it. Before the whole suite: the default build's binary is linked
/// again by the suite's build, and CI reads the last runner's summary.
fn fips(sh: &Shell) -> anyhow::Result<()> {
    for (tool, arg) in [("go", "version"), ("cmake", "--version")] {
        if cmd!(sh, "{tool} {arg}").quiet().ignore_stdout().ignore_stderr().run().is_err() {
            bail!(
                "the `fips` build needs {tool} (Debian: apt-get install golang-go cmake; .ci/run \
                 installs them)"
            );
        }
    }
    let packages = ["planner-crypto", "planner-exec", "planner-infer", "planner-cli"];
    let packages: Vec<String> =
        packages.iter().flat_map(|it| ["-p".to_owned(), (*it).to_owned()]).collect();
    let started = Instant::now();
    let build = packages.clone();
    cmd!(sh, "cargo nextest run --locked {build...} --features planner-cli/fips --no-run").run()?;
    eprintln!("xtask: the fips build took {:.1} s", started.elapsed().as_secs_f64());
    cmd!(
        sh,
        "cargo nextest run --locked {packages...} --features planner-cli/fips --profile ci -E {FIPS_TESTS}"
    )
    .run()?;
    Ok(())
}

/// Provides what the tests need that a Docker engine can give: the local PostgreSQL image (so
/// testcontainers is the provider) and `planner:latest` from the debug binary the test build
/// has just made (for the scale-out test). Without an engine the Docker tests are listed as
/// not run; without chromium the page test is (a failure under CI, which can install it).
fn provision(sh: &Shell, plan: &mut prereq::Plan) -> anyhow::Result<()> {
    let engine = DockerEngine::from_docker_host(std::env::var("DOCKER_HOST").ok().as_deref());
    match engine.as_ref().map(DockerEngine::ping) {
        Some(Ok(())) => {
            // Also wanted when DATABASE_URL serves the other tests: the fault tests start
            // containers of this image themselves.
            pg_image::ensure(sh, Options::LOCAL_IMAGE, false)?;
            let binary = image::target_dir(sh).join("debug/planner");
            image::from_binary(sh, &binary, false)?;
        }
        Some(Err(err)) => plan.exclude(
            "the Docker tests (faults, scale_out)",
            Some(prereq::DOCKER_TESTS),
            format!("no Docker engine answers ({err})"),
            false,
        )?,
        None => plan.exclude(
            "the Docker tests (faults, scale_out)",
            Some(prereq::DOCKER_TESTS),
            "DOCKER_HOST names a scheme the probe does not speak".to_owned(),
            false,
        )?,
    }
    if !prereq::has_chromium() {
        plan.exclude(
            "the web page test (page::)",
            Some(prereq::CHROMIUM_TESTS),
            "no chromium on PATH and no PLANNER_CHROMIUM (apt-get install chromium)".to_owned(),
            true,
        )?;
    }
    Ok(())
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
