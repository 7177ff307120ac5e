//! `cargo xtask bench --ab REV`: wall time of REV against the working tree, in one run, for what
//! instruction counts cannot see (I/O, the database, the allocator under threads).
//!
//! REV is checked out in a git worktree under `target/bench-ab/`, and the criterion bench
//! binaries of both trees are built (one target directory, each binary copied out as soon as it
//! is built). Then, round after round, every bench area is run once as the baseline and once as
//! the candidate, alternating which goes first (ABBA), each process writing criterion's results
//! to a directory of its own (`CRITERION_HOME`). Load that comes and goes hits both sides of a
//! round alike, so the ratio candidate ÷ baseline of each round is a paired measurement; the
//! report gives their geometric mean with a 95 % bootstrap confidence interval (10,000
//! resamples of the log ratios, fixed seed: the same figures give the same interval). A change
//! is flagged when the interval excludes 1.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use xshell::{Shell, cmd};

use super::{collect, duration, machine, utc};

/// What to compare and how long.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The baseline revision.
    pub(crate) rev: String,
    /// Rounds (each runs both sides once).
    pub(crate) rounds: usize,
    /// Criterion bench targets to run; every common one when empty.
    pub(crate) benches: Vec<String>,
    /// Arguments for criterion; short settings when empty.
    pub(crate) criterion: Vec<String>,
}

/// Criterion settings of each process when none are given: the rounds, not long runs, give the
/// precision.
const DEFAULT_CRITERION: [&str; 4] = ["--warm-up-time", "1", "--measurement-time", "2"];

const RESAMPLES: usize = 10_000;
const SEED: u64 = 0x5eed_ab0f_be4c;

/// The criterion bench binaries of planner-benches built in `tree` (only `benches` when given),
/// by bench name (the counts bench, which needs its runner, left out), copied into `into`.
fn build(
    sh: &Shell,
    tree: &Path,
    target_dir: &Path,
    benches: &[String],
    into: &Path,
) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let _dir = sh.push_dir(tree);
    let only: Vec<&str> = benches.iter().flat_map(|it| ["--bench", it.as_str()]).collect();
    let output = cmd!(
        sh,
        "cargo bench --locked -p planner-benches --no-run {only...} --message-format=json-render-diagnostics"
    )
    .env("CARGO_TARGET_DIR", target_dir)
    .read()
    .with_context(|| format!("building the benches of {}", tree.display()))?;
    std::fs::create_dir_all(into)?;
    let mut built = BTreeMap::new();
    for line in output.lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        let is_bench = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bench"));
        let (Some(name), Some(exe)) =
            (message["target"]["name"].as_str(), message["executable"].as_str())
        else {
            continue;
        };
        if is_bench && name != "counts" {
            let copy = into.join(name);
            std::fs::copy(exe, &copy).with_context(|| format!("copying {exe}"))?;
            built.insert(name.to_owned(), copy);
        }
    }
    if built.is_empty() {
        bail!("no criterion bench was built in {}", tree.display());
    }
    Ok(built)
}

/// The paired ratios candidate ÷ baseline by benchmark id.
pub(crate) type Ratios = BTreeMap<String, Vec<f64>>;

/// Geometric mean of `ratios` and its 95 % bootstrap interval (percentiles of the resampled
/// means of the log ratios), deterministic for given ratios.
pub(crate) fn interval(ratios: &[f64]) -> Option<(f64, f64, f64)> {
    let logs: Vec<f64> = ratios.iter().filter(|r| **r > 0.0).map(|r| r.ln()).collect();
    if logs.len() < 2 {
        return None;
    }
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let mut state = SEED;
    let mut means = Vec::with_capacity(RESAMPLES);
    let mut sample = vec![0.0; logs.len()];
    for _ in 0..RESAMPLES {
        for slot in &mut sample {
            *slot = logs[(splitmix(&mut state) % logs.len() as u64) as usize];
        }
        means.push(mean(&sample));
    }
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((RESAMPLES - 1) as f64 * q).round() as usize];
    Some((mean(&logs).exp(), at(0.025).exp(), at(0.975).exp()))
}

/// splitmix64: a small generator for the resampling; the seed is fixed.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The report: one row per benchmark with its rounds, medians and the ratio's interval.
pub(crate) fn markdown(
    title: &str,
    ratios: &Ratios,
    medians: &BTreeMap<String, (Vec<f64>, Vec<f64>)>,
) -> String {
    let mut out = format!(
        "{title}\n\n| benchmark | rounds | baseline median | candidate median | candidate ÷ \
         baseline | 95 % interval | verdict |\n|---|---|---|---|---|---|---|\n"
    );
    for (id, values) in ratios {
        let (base, candidate) = &medians[id];
        let middle = |values: &[f64]| {
            let mut sorted = values.to_vec();
            sorted.sort_by(f64::total_cmp);
            sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
        };
        let (ratio, low, high, verdict) = match interval(values) {
            Some((ratio, low, high)) => {
                let verdict = if low > 1.0 {
                    "**slower**"
                } else if high < 1.0 {
                    "faster"
                } else {
                    "no change shown"
                };
                (format!("{ratio:.3}"), format!("{low:.3} to {high:.3}"), "", verdict)
            }
            None => ("".to_owned(), "".to_owned(), "", "too few rounds"),
        };
        let _ = writeln!(
            out,
            "| {id} | {} | {} | {} | {ratio} | {low}{high} | {verdict} |",
            values.len(),
            duration(middle(base)),
            duration(middle(candidate)),
        );
    }
    out
}

/// `cargo xtask bench --ab REV`.
pub(crate) fn run(
    sh: &Shell,
    root: &Path,
    target_dir: &Path,
    settings: &Settings,
) -> anyhow::Result<()> {
    let rev = &settings.rev;
    let spec = format!("{rev}^{{commit}}");
    let sha = cmd!(sh, "git rev-parse --verify {spec}")
        .read()
        .with_context(|| format!("`{rev}` is not a revision of this repository"))?;
    let work = target_dir.join("bench-ab");
    let tree = work.join("baseline-tree");
    if tree.exists() {
        cmd!(sh, "git worktree remove --force {tree}").run().ok();
        std::fs::remove_dir_all(&tree).ok();
    }
    cmd!(sh, "git worktree prune").run()?;
    cmd!(sh, "git worktree add --detach {tree} {sha}").run()?;
    let result = (|| {
        let only = &settings.benches;
        let base = build(sh, &tree, target_dir, only, &work.join("bin/baseline"))?;
        let candidate = build(sh, root, target_dir, only, &work.join("bin/candidate"))?;
        measure(sh, root, &tree, &work, &sha, &base, &candidate, settings)
    })();
    cmd!(sh, "git worktree remove --force {tree}").run().ok();
    result
}

#[expect(clippy::too_many_arguments, reason = "one call site, every argument distinct")]
fn measure(
    sh: &Shell,
    root: &Path,
    tree: &Path,
    work: &Path,
    sha: &str,
    base: &BTreeMap<String, PathBuf>,
    candidate: &BTreeMap<String, PathBuf>,
    settings: &Settings,
) -> anyhow::Result<()> {
    let mut areas: Vec<&String> =
        base.keys().filter(|name| candidate.contains_key(*name)).collect();
    if !settings.benches.is_empty() {
        for wanted in &settings.benches {
            if !areas.contains(&wanted) {
                bail!("bench `{wanted}` is not built in both trees");
            }
        }
        areas.retain(|name| settings.benches.contains(name));
    }
    let criterion_args: Vec<String> = if settings.criterion.is_empty() {
        DEFAULT_CRITERION.map(str::to_owned).to_vec()
    } else {
        settings.criterion.clone()
    };
    let runs = work.join("runs");
    std::fs::remove_dir_all(&runs).ok();
    let mut medians: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut ratios: Ratios = BTreeMap::new();
    for round in 0..settings.rounds {
        for area in &areas {
            let mut found: [BTreeMap<String, f64>; 2] = Default::default();
            // ABBA: the side that goes first alternates from round to round.
            let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
            for side in order {
                let (exe, dir, label) = if side == 0 {
                    (&base[*area], tree, "baseline")
                } else {
                    (&candidate[*area], root, "candidate")
                };
                let home = runs.join(format!("{label}-{round}-{area}"));
                eprintln!("xtask: round {}/{}, {area}, {label}", round + 1, settings.rounds);
                let _dir = sh.push_dir(dir);
                let criterion_ref = &criterion_args;
                cmd!(sh, "{exe} --bench {criterion_ref...}")
                    .env("CRITERION_HOME", &home)
                    .quiet()
                    .ignore_stdout()
                    .run()
                    .with_context(|| format!("running the {label} {area} bench"))?;
                found[side] =
                    collect(&home)?.into_iter().map(|(id, it)| (id, it.median_ns)).collect();
            }
            for (id, before) in &found[0] {
                let Some(now) = found[1].get(id) else { continue };
                let entry = medians.entry(id.clone()).or_default();
                entry.0.push(*before);
                entry.1.push(*now);
                ratios.entry(id.clone()).or_default().push(now / before);
            }
        }
    }
    if ratios.is_empty() {
        bail!("no benchmark ran on both sides");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let title = format!(
        "# A/B wall time: working tree against {} ({sha:.12})\n\n{} rounds, criterion `{}`, on \
         {}, finished {}, load average at the end {}. Ratio: geometric mean of the per-round \
         ratios candidate ÷ baseline (below 1: the candidate is faster).",
        settings.rev,
        settings.rounds,
        criterion_args.join(" "),
        machine(),
        utc(std::time::SystemTime::now()),
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    );
    let report = markdown(&title, &ratios, &medians);
    let report_dir = work.parent().unwrap_or(work).join("bench-report");
    std::fs::create_dir_all(&report_dir)?;
    std::fs::write(report_dir.join("ab.md"), &report)?;
    let rows: Vec<Value> = ratios
        .iter()
        .map(|(id, values)| {
            let bounds = interval(values);
            json!({
                "id": id,
                "ratios": values,
                "baseline_ns": medians[id].0,
                "candidate_ns": medians[id].1,
                "ratio": bounds.map(|b| b.0),
                "interval_95": bounds.map(|b| [b.1, b.2]),
            })
        })
        .collect();
    let value = json!({ "baseline": settings.rev, "sha": sha, "rounds": settings.rounds, "benchmarks": rows });
    std::fs::write(report_dir.join("ab.json"), serde_json::to_string_pretty(&value)?)?;
    eprint!("{report}");
    eprintln!("xtask: A/B report in {}", report_dir.join("ab.md").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_holds_the_ratio_and_is_deterministic() {
        let ratios = [1.04, 1.06, 1.05, 1.03, 1.07, 1.05];
        let (ratio, low, high) = interval(&ratios).unwrap();
        assert!((ratio - 1.05).abs() < 0.002, "{ratio}");
        assert!(low > 1.0 && low < ratio && ratio < high && high < 1.07, "{low} {high}");
        assert_eq!(interval(&ratios), Some((ratio, low, high)), "same input, same interval");
        // Noise around 1: the interval straddles it.
        let (_, low, high) = interval(&[0.9, 1.1, 0.95, 1.05, 1.0, 0.98]).unwrap();
        assert!(low < 1.0 && high > 1.0);
        assert_eq!(interval(&[1.0]), None);
    }

    #[test]
    fn the_report_flags_only_what_the_interval_shows() {
        let mut ratios = Ratios::new();
        ratios.insert("a/slower".to_owned(), vec![1.10, 1.12, 1.11, 1.09]);
        ratios.insert("b/same".to_owned(), vec![0.9, 1.1, 1.0, 1.02]);
        let mut medians = BTreeMap::new();
        medians.insert("a/slower".to_owned(), (vec![1000.0; 4], vec![1100.0; 4]));
        medians.insert("b/same".to_owned(), (vec![2000.0; 4], vec![2000.0; 4]));
        let report = markdown("# t", &ratios, &medians);
        assert!(report.contains("| a/slower | 4 | 1.00 µs | 1.10 µs | 1.105 |"), "{report}");
        assert!(report.contains("**slower**") && report.contains("no change shown"), "{report}");
    }
}
