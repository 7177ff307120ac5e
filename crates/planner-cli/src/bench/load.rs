//! The load loop: N workers take corpus questions in turn (question `i mod len` for the i-th
//! request, so every run asks the same sequence), each unit of work is timed into HDR
//! histograms, errors are counted by kind, an optional pacer holds the rate, and an optional
//! sampler records the process's resident memory.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::time::Instant;

/// Latencies are recorded in microseconds up to this bound (larger values saturate).
const MAX_MICROS: u64 = 120_000_000;

/// When a phase stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// After this many units.
    Requests(u64),
    /// After this long.
    Duration(Duration),
}

/// What one unit of work reports.
#[derive(Debug, Default)]
pub(crate) struct UnitResult {
    /// The error kind, when the unit failed.
    pub(crate) error: Option<String>,
    /// Statements run, with their index in the question's statement list and microseconds.
    pub(crate) statements: Vec<(usize, u64)>,
}

/// One unit of work on question `index`.
pub(crate) type Unit =
    Arc<dyn Fn(usize) -> Pin<Box<dyn Future<Output = UnitResult> + Send>> + Send + Sync>;

/// What a phase measured.
#[derive(Debug)]
pub(crate) struct Phase {
    /// Units finished (failed ones included).
    pub(crate) units: u64,
    /// Statements run by the units (baseline only).
    pub(crate) statements: u64,
    /// Wall-clock time of the phase.
    pub(crate) elapsed: Duration,
    /// Latency of every unit, microseconds.
    pub(crate) latency: Histogram<u64>,
    /// Failed units by kind.
    pub(crate) errors: BTreeMap<String, u64>,
    /// Latency per corpus question.
    pub(crate) per_question: Vec<Histogram<u64>>,
    /// Latency per statement of each question (baseline only).
    pub(crate) per_statement: Vec<Vec<Histogram<u64>>>,
}

fn millis_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A bar for phase `name` ending at `stop`, drawn on stderr when `shown`, else hidden.
pub(crate) fn phase_bar(shown: bool, name: &str, stop: Stop) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let (length, template) = match stop {
        Stop::Requests(total) => (total, "{msg:>16} [{bar:40}] {human_pos}/{human_len} requests"),
        Stop::Duration(duration) => (
            u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            "{msg:>16} [{bar:40}] {elapsed} of {len}ms",
        ),
    };
    let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(name.to_owned());
    bar
}

fn histogram(significant_figures: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_MICROS, significant_figures)
        .expect("constant bounds within hdrhistogram's limits")
}

/// Holds a global rate: each unit waits for its own slot, `1 / rate` after the previous one.
#[derive(Debug)]
struct Pacer {
    next: Mutex<Instant>,
    interval: Duration,
}

impl Pacer {
    async fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            let slot = (*next).max(now);
            *next = slot + self.interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// Runs `unit` over `questions` questions (each with `statements[q]` statements) with
/// `concurrency` workers until `stop`, at most `rate` units per second.
/// A running `sampler` takes its last sample as soon as the workers are done, before the phase's
/// results are gathered (which allocates), so it sees the load's memory, not the report's.
/// `bar` follows the phase (units done, or milliseconds elapsed of a timed phase) and is
/// finished with it; a hidden bar draws nothing.
pub(crate) async fn run_phase(
    unit: &Unit,
    statements: &[usize],
    concurrency: usize,
    stop: Stop,
    rate: Option<f64>,
    sampler: Option<&RssSampler>,
    bar: &ProgressBar,
) -> Phase {
    let questions = statements.len().max(1);
    let per_question: Arc<Vec<Mutex<Histogram<u64>>>> =
        Arc::new((0..questions).map(|_| Mutex::new(histogram(2))).collect());
    let per_statement: Arc<Vec<Vec<Mutex<Histogram<u64>>>>> = Arc::new(
        statements.iter().map(|&n| (0..n).map(|_| Mutex::new(histogram(2))).collect()).collect(),
    );
    let counter = Arc::new(AtomicU64::new(0));
    let pacer = rate.filter(|rate| *rate > 0.0).map(|rate| {
        Arc::new(Pacer {
            next: Mutex::new(Instant::now()),
            interval: Duration::from_secs_f64(1.0 / rate),
        })
    });
    let start = Instant::now();
    let deadline = match stop {
        Stop::Duration(duration) => Some(start + duration),
        Stop::Requests(_) => None,
    };
    let mut workers = Vec::with_capacity(concurrency);
    for _ in 0..concurrency.max(1) {
        let unit = Arc::clone(unit);
        let counter = Arc::clone(&counter);
        let pacer = pacer.clone();
        let per_question = Arc::clone(&per_question);
        let per_statement = Arc::clone(&per_statement);
        let bar = bar.clone();
        workers.push(tokio::spawn(async move {
            let mut latency = histogram(3);
            let mut errors: BTreeMap<String, u64> = BTreeMap::new();
            let mut units = 0u64;
            let mut statements = 0u64;
            loop {
                if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    break;
                }
                let seq = counter.fetch_add(1, Ordering::Relaxed);
                if let Stop::Requests(total) = stop
                    && seq >= total
                {
                    break;
                }
                if let Some(pacer) = &pacer {
                    pacer.wait().await;
                    if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                        break;
                    }
                }
                let index = usize::try_from(seq % questions as u64).unwrap_or(0);
                let begun = Instant::now();
                let result = unit(index).await;
                let micros = u64::try_from(begun.elapsed().as_micros()).unwrap_or(u64::MAX);
                units += 1;
                match stop {
                    Stop::Requests(_) => bar.inc(1),
                    Stop::Duration(_) => bar.set_position(millis_since(start)),
                }
                latency.saturating_record(micros.max(1));
                if let Some(slot) = per_question.get(index) {
                    slot.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .saturating_record(micros.max(1));
                }
                for (statement, micros) in &result.statements {
                    statements += 1;
                    if let Some(slot) = per_statement.get(index).and_then(|it| it.get(*statement)) {
                        slot.lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .saturating_record((*micros).max(1));
                    }
                }
                if let Some(kind) = result.error {
                    *errors.entry(kind).or_default() += 1;
                }
            }
            (units, statements, latency, errors)
        }));
    }
    let mut finished = Vec::with_capacity(workers.len());
    for worker in workers {
        finished.push(worker.await);
    }
    if let Some(sampler) = sampler {
        sampler.stop();
    }
    bar.finish();
    let mut phase = Phase {
        units: 0,
        statements: 0,
        elapsed: Duration::ZERO,
        latency: histogram(3),
        errors: BTreeMap::new(),
        per_question: Vec::new(),
        per_statement: Vec::new(),
    };
    for worker in finished {
        match worker {
            Ok((units, statements, latency, errors)) => {
                phase.units += units;
                phase.statements += statements;
                // Both histograms have the same bounds, so adding cannot fail.
                phase.latency.add(&latency).ok();
                for (kind, count) in errors {
                    *phase.errors.entry(kind).or_default() += count;
                }
            }
            Err(_) => *phase.errors.entry("worker_panicked".to_owned()).or_default() += 1,
        }
    }
    phase.elapsed = start.elapsed();
    let take = |slot: &Mutex<Histogram<u64>>| {
        slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    };
    phase.per_question = per_question.iter().map(take).collect();
    phase.per_statement =
        per_statement.iter().map(|slots| slots.iter().map(take).collect()).collect();
    phase
}

/// Resident memory samples of this process, taken every `every` until stopped.
#[derive(Debug)]
pub(crate) struct RssSampler {
    start: Instant,
    stopped: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<(f64, u64)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl RssSampler {
    pub(crate) fn start(every: Duration) -> RssSampler {
        let start = Instant::now();
        let stopped = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (flag, store) = (Arc::clone(&stopped), Arc::clone(&samples));
        let task = tokio::spawn(async move {
            let mut ticker = tokio::time::interval(every);
            loop {
                ticker.tick().await;
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                if let Some(kib) = resident_kib() {
                    store
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((start.elapsed().as_secs_f64(), kib));
                }
            }
        });
        RssSampler { start, stopped, samples, task }
    }

    /// Takes the last sample now and stops sampling (once).
    pub(crate) fn stop(&self) {
        if self.stopped.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(kib) = resident_kib() {
            self.samples
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((self.start.elapsed().as_secs_f64(), kib));
        }
    }

    /// Every sample: (seconds since start, KiB).
    pub(crate) async fn finish(self) -> Vec<(f64, u64)> {
        self.stop();
        self.task.abort();
        let samples = self.samples.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        samples.clone()
    }
}

/// VmRSS of this process, in KiB (Linux).
pub(crate) fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1, 5 and 15 minute load averages (Linux).
pub(crate) fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut fields = text.split_whitespace().map(|it| it.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counting_unit(fail_every: usize) -> Unit {
        Arc::new(move |index| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(1)).await;
                UnitResult {
                    error: (index % fail_every == fail_every - 1).then(|| "odd".to_owned()),
                    statements: vec![(0, 500)],
                }
            })
        })
    }

    #[tokio::test]
    async fn a_request_budget_runs_exactly_that_many_units_round_robin() {
        let bar = ProgressBar::hidden();
        let phase =
            run_phase(&counting_unit(3), &[1, 1, 1], 4, Stop::Requests(30), None, None, &bar).await;
        assert_eq!((bar.position(), bar.is_finished()), (30, true));
        assert_eq!(phase.units, 30);
        assert_eq!(phase.statements, 30);
        assert_eq!(phase.latency.len(), 30);
        assert_eq!(phase.errors.get("odd"), Some(&10));
        assert!(phase.per_question.iter().all(|it| it.len() == 10));
        assert!(phase.latency.value_at_quantile(0.5) >= 1000);
        assert_eq!(phase.per_statement[1][0].value_at_quantile(0.5) / 10, 50);
    }

    #[tokio::test]
    async fn a_rate_holds_the_pace() {
        let begun = std::time::Instant::now();
        let bar = ProgressBar::hidden();
        let phase =
            run_phase(&counting_unit(1000), &[1], 8, Stop::Requests(20), Some(200.0), None, &bar)
                .await;
        assert_eq!(phase.units, 20);
        // 20 slots 5 ms apart: the last starts at 95 ms.
        assert!(begun.elapsed() >= Duration::from_millis(90), "{:?}", begun.elapsed());
    }

    #[tokio::test]
    async fn a_timed_phase_moves_its_bar_by_the_clock() {
        let bar = phase_bar(true, "answers", Stop::Duration(Duration::from_millis(60)));
        assert_eq!((bar.length(), bar.message()), (Some(60), "answers".to_owned()));
        run_phase(
            &counting_unit(1000),
            &[1],
            2,
            Stop::Duration(Duration::from_millis(60)),
            None,
            None,
            &bar,
        )
        .await;
        assert!(bar.position() >= 50 && bar.is_finished(), "{}", bar.position());
    }

    #[test]
    fn no_bar_is_drawn_unless_shown() {
        assert!(phase_bar(false, "answers", Stop::Requests(5)).is_hidden());
        assert_eq!(phase_bar(true, "raw SQL", Stop::Requests(5)).length(), Some(5));
    }

    #[test]
    fn this_process_has_a_resident_size_and_the_machine_a_load() {
        assert!(resident_kib().is_some_and(|kib| kib > 0));
        assert!(load_average().is_some());
    }
}
