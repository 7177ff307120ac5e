//! `cargo xtask fuzz [--seconds N] [TARGET]`: runs the cargo-fuzz targets of `fuzz/` one after
//! another, each for N seconds (default 30), on the stable toolchain.
//!
//! cargo-fuzz is installed on first use into `.cache/cargo-fuzz` (git-ignored, cached by CI).
//! The nightly flags it passes to rustc (`-Z sanitizer-coverage...`) are accepted by the stable
//! compiler under `RUSTC_BOOTSTRAP=1`. The build uses no sanitizer (`-s none`): every crate the
//! targets reach forbids `unsafe`, so a crash is a panic or an abort, which libFuzzer reports
//! without AddressSanitizer; debug assertions are on (`-a`) so that overflows panic too.
//!
//! Each run reads the committed seeds in `fuzz/corpus/<target>/` and writes what it discovers to
//! `target/fuzz/corpus/<target>/` (never into the repository). A crash leaves its input in
//! `fuzz/artifacts/<target>/` and fails the command.

use std::fs;
use std::path::Path;

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [TARGET]";

/// Runs `args` (`[--seconds N] [TARGET]`).
pub(crate) fn run(sh: &Shell, args: &[String]) -> anyhow::Result<()> {
    let mut seconds: u64 = 30;
    let mut only: Option<String> = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let value =
                    args.next().with_context(|| format!("--seconds needs a value\n{USAGE}"))?;
                seconds = value
                    .parse()
                    .ok()
                    .filter(|it| *it > 0)
                    .with_context(|| format!("--seconds {value}: not a positive integer"))?;
            }
            flag if flag.starts_with('-') => bail!("unknown flag `{flag}`\n{USAGE}"),
            target if only.is_none() => only = Some(target.to_owned()),
            extra => bail!("unexpected argument `{extra}`\n{USAGE}"),
        }
    }
    let root = sh.current_dir();
    let all = targets(&root.join("fuzz/fuzz_targets"))?;
    let chosen = match only {
        Some(target) if all.contains(&target) => vec![target],
        Some(target) => bail!("no fuzz target `{target}`; the targets are {}", all.join(", ")),
        None => all,
    };
    let tools = root.join(".cache/cargo-fuzz");
    ensure_cargo_fuzz(sh, &tools)?;
    let path = std::env::join_paths(
        std::iter::once(tools.join("bin"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )?;
    let _path = sh.push_env("PATH", path);
    let _bootstrap = sh.push_env("RUSTC_BOOTSTRAP", "1");
    let target_dir = root.join("target/fuzz");
    let max_time = format!("-max_total_time={seconds}");
    for target in &chosen {
        let work = target_dir.join("corpus").join(target);
        fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
        let seeds = root.join("fuzz/corpus").join(target);
        eprintln!("xtask: fuzzing `{target}` for {seconds} s");
        cmd!(
            sh,
            "cargo fuzz run --fuzz-dir fuzz --target-dir {target_dir} -s none -a {target} {work} {seeds} -- {max_time} -print_final_stats=1"
        )
        .run()
        .with_context(|| {
            format!("fuzz target `{target}` failed: the crashing input is in fuzz/artifacts/{target}/")
        })?;
    }
    Ok(())
}

/// The targets: the file stems of `fuzz/fuzz_targets/*.rs`, sorted.
fn targets(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let path = entry.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    Ok(names)
}

/// Installs cargo-fuzz into `tools` unless it is there.
fn ensure_cargo_fuzz(sh: &Shell, tools: &Path) -> anyhow::Result<()> {
    if tools.join("bin/cargo-fuzz").exists() {
        return Ok(());
    }
    eprintln!("xtask: installing cargo-fuzz into {}", tools.display());
    cmd!(sh, "cargo install cargo-fuzz --locked --root {tools}").run()?;
    Ok(())
}
