//! Prometheus metrics, kept by hand: requests and latency by route and status, graph node
//! durations, refusals, gate failures, suppressed cells, dropped nodes, model proposer failures
//! by kind, engine failures by kind, and the engine's audit withdrawals (pending and written).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use planner_engine::{Answer, ProposerFailure};

/// Upper bounds (seconds) of the latency histograms' buckets.
const BUCKETS: [f64; 12] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, seconds: f64) {
        for (bound, count) in BUCKETS.iter().zip(self.counts.iter_mut()) {
            if seconds <= *bound {
                *count += 1;
            }
        }
        self.count += 1;
        self.sum += seconds;
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (bound, count) in BUCKETS.iter().zip(self.counts.iter()) {
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(String, u16), u64>,
    latency: BTreeMap<(String, u16), Histogram>,
    nodes: BTreeMap<String, Histogram>,
    refusals: u64,
    gate_failures: u64,
    suppressed_cells: u64,
    dropped_nodes: u64,
    proposer_errors: BTreeMap<ProposerFailure, u64>,
    engine_errors: BTreeMap<&'static str, u64>,
}

/// The engine's audit withdrawals when the metrics are rendered: audit rows of answers never
/// given, queued for `audit.withdrawn` and written there (see `Engine::pending_withdrawals`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditWithdrawals {
    /// Queued and not yet written.
    pub pending: usize,
    /// Written since the engine started.
    pub withdrawn: u64,
}

/// The server's counters and histograms.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        let mut guard = match self.inner.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard)
    }

    /// Records one finished request.
    pub fn request(&self, route: &str, status: u16, elapsed: Duration) {
        self.with(|it| {
            *it.requests.entry((route.to_owned(), status)).or_default() += 1;
            it.latency
                .entry((route.to_owned(), status))
                .or_default()
                .observe(elapsed.as_secs_f64());
        });
    }

    /// Records what an answer tells about the planner.
    pub fn answer(&self, answer: &Answer) {
        self.with(|it| {
            if answer.route == planner_engine::Route::Refused {
                it.refusals += 1;
            }
            if answer.gate.as_ref().is_some_and(|gate| !gate.passed) {
                it.gate_failures += 1;
            }
            it.suppressed_cells += answer.suppressed_cells as u64;
            it.dropped_nodes += answer.dropped.len() as u64;
            if let Some(kind) = answer.proposer_error {
                *it.proposer_errors.entry(kind).or_default() += 1;
            }
            for timing in &answer.timings {
                it.nodes
                    .entry(timing.node.clone())
                    .or_default()
                    .observe(Duration::from_micros(timing.micros).as_secs_f64());
            }
        });
    }

    /// Records an engine failure by kind (`database`, `audit`, `graph`, ...).
    pub fn engine_error(&self, kind: &'static str) {
        self.with(|it| *it.engine_errors.entry(kind).or_default() += 1);
    }

    /// The Prometheus text exposition, with the engine's audit withdrawals as `audit` says.
    pub fn render(&self, audit: AuditWithdrawals) -> String {
        self.with(|it| {
            let mut out = String::new();
            out.push_str("# HELP planner_http_requests_total Requests by route and status.\n");
            out.push_str("# TYPE planner_http_requests_total counter\n");
            for ((route, status), count) in &it.requests {
                let _ = writeln!(
                    out,
                    "planner_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {count}"
                );
            }
            out.push_str(
                "# HELP planner_http_request_duration_seconds Request latency by route and status.\n",
            );
            out.push_str("# TYPE planner_http_request_duration_seconds histogram\n");
            for ((route, status), histogram) in &it.latency {
                histogram.render(
                    &mut out,
                    "planner_http_request_duration_seconds",
                    &format!("route=\"{route}\",status=\"{status}\""),
                );
            }
            out.push_str(
                "# HELP planner_node_duration_seconds Time in each node of the planner graph.\n",
            );
            out.push_str("# TYPE planner_node_duration_seconds histogram\n");
            for (node, histogram) in &it.nodes {
                histogram.render(
                    &mut out,
                    "planner_node_duration_seconds",
                    &format!("node=\"{node}\""),
                );
            }
            for (name, help, value) in [
                ("planner_refusals_total", "Questions refused.", it.refusals),
                ("planner_gate_failures_total", "Narrations the gate rejected.", it.gate_failures),
                (
                    "planner_suppressed_cells_total",
                    "Cells hidden by small-cell suppression.",
                    it.suppressed_cells,
                ),
                (
                    "planner_dropped_nodes_total",
                    "Plan nodes dropped (forbidden, failed, unbindable).",
                    it.dropped_nodes,
                ),
            ] {
                let _ =
                    writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}");
            }
            out.push_str(
                "# HELP planner_proposer_errors_total Model proposer failures by kind (the \
                 lexical proposer answered instead).\n",
            );
            out.push_str("# TYPE planner_proposer_errors_total counter\n");
            // Every kind from the start, so that a rate over the series is defined at zero.
            for kind in ProposerFailure::ALL {
                let count = it.proposer_errors.get(&kind).copied().unwrap_or(0);
                let _ = writeln!(
                    out,
                    "planner_proposer_errors_total{{kind=\"{}\"}} {count}",
                    kind.as_str()
                );
            }
            out.push_str("# HELP planner_engine_errors_total Engine failures by kind.\n");
            out.push_str("# TYPE planner_engine_errors_total counter\n");
            for (kind, count) in &it.engine_errors {
                let _ = writeln!(out, "planner_engine_errors_total{{kind=\"{kind}\"}} {count}");
            }
            let _ = writeln!(
                out,
                "# HELP planner_audit_withdrawals_pending Audit rows of answers never given, \
                 queued for withdrawal and not yet written.\n\
                 # TYPE planner_audit_withdrawals_pending gauge\n\
                 planner_audit_withdrawals_pending {}",
                audit.pending
            );
            let _ = writeln!(
                out,
                "# HELP planner_audit_withdrawn_total Audit rows withdrawn: answers whose audit \
                 began and that were never given.\n\
                 # TYPE planner_audit_withdrawn_total counter\n\
                 planner_audit_withdrawn_total {}",
                audit.withdrawn
            );
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{AuditWithdrawals, Metrics};

    #[test]
    fn latency_is_by_route_and_status_and_every_proposer_kind_is_exposed() {
        let metrics = Metrics::default();
        metrics.request("/v1/answer", 200, Duration::from_millis(30));
        metrics.request("/v1/answer", 503, Duration::from_millis(2));
        metrics.engine_error("database");
        let text = metrics.render(AuditWithdrawals { pending: 2, withdrawn: 7 });
        for line in [
            "planner_http_requests_total{route=\"/v1/answer\",status=\"200\"} 1",
            "planner_http_requests_total{route=\"/v1/answer\",status=\"503\"} 1",
            "planner_http_request_duration_seconds_bucket{route=\"/v1/answer\",status=\"200\",le=\"0.025\"} 0",
            "planner_http_request_duration_seconds_bucket{route=\"/v1/answer\",status=\"200\",le=\"0.05\"} 1",
            "planner_http_request_duration_seconds_bucket{route=\"/v1/answer\",status=\"503\",le=\"0.005\"} 1",
            "planner_http_request_duration_seconds_count{route=\"/v1/answer\",status=\"503\"} 1",
            "# TYPE planner_proposer_errors_total counter",
            "planner_proposer_errors_total{kind=\"timeout\"} 0",
            "planner_proposer_errors_total{kind=\"unavailable\"} 0",
            "planner_proposer_errors_total{kind=\"garbage\"} 0",
            "planner_proposer_errors_total{kind=\"config\"} 0",
            "planner_engine_errors_total{kind=\"database\"} 1",
            "# TYPE planner_audit_withdrawals_pending gauge",
            "planner_audit_withdrawals_pending 2",
            "# TYPE planner_audit_withdrawn_total counter",
            "planner_audit_withdrawn_total 7",
        ] {
            assert!(text.lines().any(|it| it == line), "{line} missing from:\n{text}");
        }
    }
}
