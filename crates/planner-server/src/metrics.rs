//! Prometheus metrics: requests and latency by route and status, graph node durations, refusals,
//! gate failures, suppressed cells, dropped nodes, model proposer failures by kind, engine
//! failures by kind, the engine's audit withdrawals (pending and written), round trips and
//! connections of the statements' pools, audit group commits and their rows, the read replica's
//! state and fallbacks, `planner_build_info` (the version, and the cryptographic module: `fips`,
//! `crypto_module`, `crypto_module_version`, `self_test`)
//! and the process's own metrics (resident memory, CPU time, open file descriptors, start time;
//! read from `/proc/self` at scrape time, on Linux).
//!
//! The exposition is written by `prometheus-client`, the Prometheus project's own Rust client:
//! typed metric families (a counter cannot be set back, a histogram's buckets are fixed when it is
//! made), an explicit [`Registry`] owned by [`Metrics`] rather than a process-global one (so two
//! servers in one test process never share counters), the OpenMetrics text format with correct
//! escaping of label values, and a [`Collector`] hook for values read at scrape time. The `metrics`
//! facade with an exporter was the other candidate; it keeps its registry in a global recorder,
//! which is what this server avoids. Each labelled family is kept in label order
//! ([`Ordered`]), so a scrape lists its series in the same order every time.

use std::collections::BTreeMap;
use std::fmt::{self, Debug};
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use planner_engine::{Answer, DatabaseStats, ProposerFailure};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelSet, EncodeMetric, MetricEncoder, text,
};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::Registry;

/// Upper bounds (seconds) of the latency histograms' buckets.
const BUCKETS: [f64; 12] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
struct RouteLabels {
    route: String,
    status: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
struct NodeLabels {
    node: String,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

/// A labelled metric family whose series are encoded in label order (prometheus-client's own
/// `Family` keeps them in a hash map, whose order changes from one process to the next).
#[derive(Debug)]
struct Ordered<S, M> {
    series: Arc<RwLock<BTreeMap<S, M>>>,
    make: fn() -> M,
}

impl<S, M> Clone for Ordered<S, M> {
    fn clone(&self) -> Self {
        Ordered { series: Arc::clone(&self.series), make: self.make }
    }
}

impl<S: Ord + Clone, M: Clone> Ordered<S, M> {
    fn new(make: fn() -> M) -> Self {
        Ordered { series: Arc::default(), make }
    }

    /// The series of `labels`, made on first use (metrics share their value between clones).
    fn get(&self, labels: &S) -> M {
        if let Some(metric) = self.read().get(labels) {
            return metric.clone();
        }
        let mut series = self.series.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        series.entry(labels.clone()).or_insert_with(self.make).clone()
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<S, M>> {
        self.series.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<S, M: TypedMetric> TypedMetric for Ordered<S, M> {
    const TYPE: MetricType = M::TYPE;
}

impl<S, M> EncodeMetric for Ordered<S, M>
where
    S: Ord + Clone + EncodeLabelSet,
    M: Clone + EncodeMetric + TypedMetric,
{
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), fmt::Error> {
        for (labels, metric) in self.read().iter() {
            metric.encode(encoder.encode_family(labels)?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        M::TYPE
    }
}

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// What the engine reports when the metrics are rendered: its audit withdrawals (audit rows of
/// answers never given, queued for `audit.withdrawn` and written there, see
/// `Engine::pending_withdrawals`) and its connections (`Engine::database_stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineReadings {
    /// Withdrawals queued and not yet written.
    pub pending: usize,
    /// Withdrawals written since the engine started.
    pub withdrawn: u64,
    /// Round trips, connections, group commits and the replica's state.
    pub database: DatabaseStats,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
struct PoolLabels {
    pool: &'static str,
}

/// The server's counters and histograms, in their own registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Ordered<RouteLabels, Counter>,
    latency: Ordered<RouteLabels, Histogram>,
    nodes: Ordered<NodeLabels, Histogram>,
    refusals: Counter,
    gate_failures: Counter,
    suppressed_cells: Counter,
    dropped_nodes: Counter,
    proposer_errors: Ordered<KindLabels, Counter>,
    engine_errors: Ordered<KindLabels, Counter>,
    withdrawals_pending: Gauge,
    withdrawn: Counter,
    round_trips: Ordered<PoolLabels, Counter>,
    connections: Ordered<PoolLabels, Counter>,
    group_commits: Counter,
    group_rows: Counter,
    replica_up: Ordered<PoolLabels, Gauge>,
    replica_fallbacks: Ordered<PoolLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric registered, at zero; `planner_build_info` and the process metrics included.
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let requests = Ordered::new(Counter::default);
        let latency = Ordered::new(latency_histogram);
        let nodes = Ordered::new(latency_histogram);
        let (refusals, gate_failures, suppressed_cells, dropped_nodes) =
            (Counter::default(), Counter::default(), Counter::default(), Counter::default());
        let proposer_errors = Ordered::new(Counter::default);
        let engine_errors = Ordered::new(Counter::default);
        let withdrawals_pending = Gauge::default();
        let withdrawn = Counter::default();
        let round_trips = Ordered::new(Counter::default);
        let connections = Ordered::new(Counter::default);
        let (group_commits, group_rows) = (Counter::default(), Counter::default());
        let replica_up = Ordered::new(Gauge::default);
        let replica_fallbacks = Ordered::new(Counter::default);
        // Counters are registered without `_total`: the encoder appends it.
        registry.register(
            "planner_http_requests",
            "Requests by route and status.",
            requests.clone(),
        );
        registry.register(
            "planner_http_request_duration_seconds",
            "Request latency by route and status.",
            latency.clone(),
        );
        registry.register(
            "planner_node_duration_seconds",
            "Time in each node of the planner graph.",
            nodes.clone(),
        );
        registry.register("planner_refusals", "Questions refused.", refusals.clone());
        registry.register(
            "planner_gate_failures",
            "Narrations the gate rejected.",
            gate_failures.clone(),
        );
        registry.register(
            "planner_suppressed_cells",
            "Cells hidden by small-cell suppression.",
            suppressed_cells.clone(),
        );
        registry.register(
            "planner_dropped_nodes",
            "Plan nodes dropped (forbidden, failed, unbindable).",
            dropped_nodes.clone(),
        );
        // Every kind from the start, so that a rate over the series is defined at zero.
        for kind in ProposerFailure::ALL {
            proposer_errors.get(&KindLabels { kind: kind.as_str() });
        }
        registry.register(
            "planner_proposer_errors",
            "Model proposer failures by kind (the lexical proposer answered instead).",
            proposer_errors.clone(),
        );
        registry.register(
            "planner_engine_errors",
            "Engine failures by kind.",
            engine_errors.clone(),
        );
        registry.register(
            "planner_audit_withdrawals_pending",
            "Audit rows of answers never given, queued for withdrawal and not yet written.",
            withdrawals_pending.clone(),
        );
        registry.register(
            "planner_audit_withdrawn",
            "Audit rows withdrawn: answers whose audit began and that were never given.",
            withdrawn.clone(),
        );
        registry.register(
            "planner_db_round_trips",
            "Round trips on the sockets of the statements and audit writes, by pool \
             (primary, replica).",
            round_trips.clone(),
        );
        registry.register(
            "planner_db_connections_opened",
            "Connections opened by the statements' pools, by pool.",
            connections.clone(),
        );
        registry.register(
            "planner_audit_group_commits",
            "Audit group commits: transactions holding the audit rows of concurrent answers.",
            group_commits.clone(),
        );
        registry.register(
            "planner_audit_group_rows",
            "Audit rows written by the group commits.",
            group_rows.clone(),
        );
        registry.register(
            "planner_replica_up",
            "1 while the read replica answers, 0 while its planes read from the primary \
             (absent without a replica).",
            replica_up.clone(),
        );
        registry.register(
            "planner_replica_fallbacks",
            "Statements meant for the read replica that ran on the primary.",
            replica_fallbacks.clone(),
        );
        registry.register(
            "planner_build",
            "The planner's version and its cryptographic module: FIPS or not, the module's name \
             and version, and whether its self test passed.",
            Info::new(build_labels(planner_crypto::module())),
        );
        registry.register_collector(Box::new(ProcessCollector));
        Metrics {
            registry,
            requests,
            latency,
            nodes,
            refusals,
            gate_failures,
            suppressed_cells,
            dropped_nodes,
            proposer_errors,
            engine_errors,
            withdrawals_pending,
            withdrawn,
            round_trips,
            connections,
            group_commits,
            group_rows,
            replica_up,
            replica_fallbacks,
        }
    }

    /// Records one finished request.
    pub fn request(&self, route: &str, status: u16, elapsed: Duration) {
        let labels = RouteLabels { route: route.to_owned(), status };
        self.requests.get(&labels).inc();
        self.latency.get(&labels).observe(elapsed.as_secs_f64());
    }

    /// Records what an answer tells about the planner.
    pub fn answer(&self, answer: &Answer) {
        if answer.route == planner_engine::Route::Refused {
            self.refusals.inc();
        }
        if answer.gate.as_ref().is_some_and(|gate| !gate.passed) {
            self.gate_failures.inc();
        }
        self.suppressed_cells.inc_by(answer.suppressed_cells as u64);
        self.dropped_nodes.inc_by(answer.dropped.len() as u64);
        if let Some(kind) = answer.proposer_error {
            self.proposer_errors.get(&KindLabels { kind: kind.as_str() }).inc();
        }
        for timing in &answer.timings {
            self.nodes
                .get(&NodeLabels { node: timing.node.clone() })
                .observe(Duration::from_micros(timing.micros).as_secs_f64());
        }
    }

    /// Records an engine failure by kind (`database`, `audit`, `graph`, ...).
    pub fn engine_error(&self, kind: &'static str) {
        self.engine_errors.get(&KindLabels { kind }).inc();
    }

    /// The OpenMetrics text exposition ([`CONTENT_TYPE`]), with the engine's readings.
    pub fn render(&self, engine: EngineReadings) -> String {
        self.withdrawals_pending.set(i64::try_from(engine.pending).unwrap_or(i64::MAX));
        // The engine counts; each counter shows the engine's count (it only grows).
        self.withdrawn.inner().fetch_max(engine.withdrawn, Ordering::Relaxed);
        let database = engine.database;
        let show = |counter: Counter, value: u64| {
            counter.inner().fetch_max(value, Ordering::Relaxed);
        };
        let primary = PoolLabels { pool: "primary" };
        show(self.round_trips.get(&primary), database.primary_round_trips);
        show(self.connections.get(&primary), database.primary_connections);
        show(self.group_commits.clone(), database.audit_commits);
        show(self.group_rows.clone(), database.audit_rows);
        if let Some(replica) = database.replica {
            let labels = PoolLabels { pool: "replica" };
            show(self.round_trips.get(&labels), replica.round_trips);
            self.replica_up.get(&labels).set(i64::from(replica.up));
            show(self.replica_fallbacks.get(&labels), replica.fallbacks);
        }
        let mut out = String::new();
        // Writing to a String cannot fail, and every metric here encodes.
        if text::encode(&mut out, &self.registry).is_err() {
            tracing::warn!("the metrics could not be encoded");
        }
        out
    }
}

/// This process's CPU time (user and system) in seconds, read from `/proc/self/stat` (10 ms
/// steps); `None` where there is no such file.
pub fn process_cpu_seconds() -> Option<f64> {
    process::read().map(|it| it.cpu_seconds)
}

/// The process's own metrics, read from `/proc/self` at each scrape (nothing on other systems,
/// or for a file that cannot be read).
#[derive(Debug)]
struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        let Some(process) = process::read() else { return Ok(()) };
        let gauges: [(&str, &str, f64); 4] = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                process.resident_bytes as f64,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                process.virtual_bytes as f64,
            ),
            ("process_open_fds", "Number of open file descriptors.", process.open_fds as f64),
            (
                "process_start_time_seconds",
                "Start time of the process since the Unix epoch in seconds.",
                process.start_time_seconds,
            ),
        ];
        let cpu = prometheus_client::metrics::counter::ConstCounter::new(process.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds.",
            None,
            cpu.metric_type(),
        )?)?;
        for (name, help, value) in gauges {
            let gauge = prometheus_client::metrics::gauge::ConstGauge::new(value);
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        Ok(())
    }
}

mod process {
    //! `/proc/self` read into the standard process metrics.

    /// Clock ticks per second of the CPU times in `/proc` (`USER_HZ`, 100 on Linux).
    const TICKS_PER_SECOND: f64 = 100.0;

    /// What a scrape reports about the process.
    #[derive(Debug, Clone, PartialEq)]
    pub(super) struct Process {
        pub(super) resident_bytes: u64,
        pub(super) virtual_bytes: u64,
        pub(super) cpu_seconds: f64,
        pub(super) open_fds: u64,
        pub(super) start_time_seconds: f64,
    }

    /// The process's metrics now; `None` off Linux or when `/proc` cannot be read.
    pub(super) fn read() -> Option<Process> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let boot = std::fs::read_to_string("/proc/stat").ok()?;
        let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
        parse(&stat, &status, &boot, open_fds)
    }

    /// The metrics from the text of `/proc/self/stat`, `/proc/self/status` and `/proc/stat`.
    pub(super) fn parse(stat: &str, status: &str, boot: &str, open_fds: u64) -> Option<Process> {
        // The command name (field 2) is in parentheses and may hold spaces: split after it.
        let (_, rest) = stat.rsplit_once(')')?;
        // `rest` starts at field 3 (state): field n is at index n - 3.
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).and_then(|it| it.parse::<u64>().ok());
        let (utime, stime, start_ticks, virtual_bytes) =
            (field(14)?, field(15)?, field(22)?, field(23)?);
        let resident_kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|it| it.split_whitespace().next())
            .and_then(|it| it.parse::<u64>().ok())?;
        let boot_time = boot
            .lines()
            .find_map(|line| line.strip_prefix("btime "))
            .and_then(|it| it.trim().parse::<u64>().ok())?;
        Some(Process {
            resident_bytes: resident_kib * 1024,
            virtual_bytes,
            cpu_seconds: (utime + stime) as f64 / TICKS_PER_SECOND,
            open_fds,
            start_time_seconds: boot_time as f64 + start_ticks as f64 / TICKS_PER_SECOND,
        })
    }
}

/// `planner_build_info`'s labels: the version and the cryptographic module.
fn build_labels(module: &planner_crypto::Module) -> Vec<(&'static str, String)> {
    vec![
        ("version", env!("CARGO_PKG_VERSION").to_owned()),
        ("fips", module.fips.to_string()),
        ("crypto_module", module.name.to_owned()),
        ("crypto_module_version", module.version.to_owned()),
        ("self_test", if module.self_test_passed { "passed" } else { "failed" }.to_owned()),
    ]
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use planner_engine::{DatabaseStats, ReplicaStats};

    use super::{EngineReadings, Metrics, process};

    #[test]
    fn latency_is_by_route_and_status_and_every_proposer_kind_is_exposed() {
        let metrics = Metrics::default();
        metrics.request("/v1/answer", 200, Duration::from_millis(30));
        metrics.request("/v1/answer", 503, Duration::from_millis(2));
        metrics.engine_error("database");
        let database = DatabaseStats {
            primary_round_trips: 40,
            primary_connections: 2,
            replica: Some(ReplicaStats { up: false, round_trips: 9, fallbacks: 3 }),
            audit_commits: 5,
            audit_rows: 12,
        };
        let text = metrics.render(EngineReadings { pending: 2, withdrawn: 7, database });
        let module = planner_crypto::module();
        let build_line = format!(
            "planner_build_info{{version=\"{}\",fips=\"{}\",crypto_module=\"{}\",\
             crypto_module_version=\"{}\",self_test=\"passed\"}} 1",
            env!("CARGO_PKG_VERSION"),
            planner_crypto::FIPS_BUILD,
            if planner_crypto::FIPS_BUILD { "AWS-LC FIPS" } else { "AWS-LC" },
            module.version,
        );
        for line in [
            "planner_http_requests_total{route=\"/v1/answer\",status=\"200\"} 1",
            "planner_http_requests_total{route=\"/v1/answer\",status=\"503\"} 1",
            "planner_http_request_duration_seconds_bucket{le=\"0.025\",route=\"/v1/answer\",status=\"200\"} 0",
            "planner_http_request_duration_seconds_bucket{le=\"0.05\",route=\"/v1/answer\",status=\"200\"} 1",
            "planner_http_request_duration_seconds_bucket{le=\"0.005\",route=\"/v1/answer\",status=\"503\"} 1",
            "planner_http_request_duration_seconds_bucket{le=\"+Inf\",route=\"/v1/answer\",status=\"503\"} 1",
            "planner_http_request_duration_seconds_count{route=\"/v1/answer\",status=\"503\"} 1",
            "# TYPE planner_proposer_errors counter",
            "planner_proposer_errors_total{kind=\"timeout\"} 0",
            "planner_proposer_errors_total{kind=\"unavailable\"} 0",
            "planner_proposer_errors_total{kind=\"garbage\"} 0",
            "planner_proposer_errors_total{kind=\"config\"} 0",
            "planner_engine_errors_total{kind=\"database\"} 1",
            "planner_refusals_total 0",
            "planner_gate_failures_total 0",
            "planner_suppressed_cells_total 0",
            "planner_dropped_nodes_total 0",
            "# TYPE planner_audit_withdrawals_pending gauge",
            "planner_audit_withdrawals_pending 2",
            "# TYPE planner_audit_withdrawn counter",
            "planner_audit_withdrawn_total 7",
            "# TYPE planner_node_duration_seconds histogram",
            "planner_db_round_trips_total{pool=\"primary\"} 40",
            "planner_db_round_trips_total{pool=\"replica\"} 9",
            "planner_db_connections_opened_total{pool=\"primary\"} 2",
            "planner_audit_group_commits_total 5",
            "planner_audit_group_rows_total 12",
            "planner_replica_up{pool=\"replica\"} 0",
            "planner_replica_fallbacks_total{pool=\"replica\"} 3",
            build_line.as_str(),
            "# EOF",
        ] {
            assert!(text.lines().any(|it| it == line), "{line} missing from:\n{text}");
        }
    }

    #[test]
    fn a_scrape_has_the_process_metrics() {
        let text = Metrics::new().render(EngineReadings::default());
        for name in [
            "process_resident_memory_bytes",
            "process_virtual_memory_bytes",
            "process_open_fds",
            "process_start_time_seconds",
            "process_cpu_seconds_total",
        ] {
            let value = text
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name} ")))
                .unwrap_or_else(|| panic!("{name} missing from:\n{text}"));
            let value: f64 = value.parse().unwrap();
            assert!(value >= 0.0, "{name} {value}");
        }
        assert!(text.contains("# TYPE process_cpu_seconds counter"), "{text}");
    }

    #[test]
    fn two_scrapes_list_the_series_in_the_same_order() {
        let metrics = Metrics::new();
        for route in ["/v1/plan", "/v1/answer", "/healthz", "/metrics", "/v1/registry"] {
            metrics.request(route, 200, Duration::from_millis(1));
        }
        let series = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|it| it.starts_with("planner_http_requests_total"))
                .map(str::to_owned)
                .collect()
        };
        let first = series(&metrics.render(EngineReadings::default()));
        let mut sorted = first.clone();
        sorted.sort();
        assert_eq!(first, sorted);
        assert_eq!(first.len(), 5);
    }

    #[test]
    fn proc_files_parse_into_the_process_metrics() {
        let stat = "4242 (planner (x) y) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 9 0 12345 8192000 900 \
                    18446744073709551615";
        let status = "Name:\tplanner\nVmRSS:\t    3600 kB\nThreads:\t9\n";
        let boot = "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n";
        let process = process::parse(stat, status, boot, 12).unwrap();
        assert_eq!(process.resident_bytes, 3600 * 1024);
        assert_eq!(process.virtual_bytes, 8_192_000);
        assert_eq!(process.open_fds, 12);
        assert!((process.cpu_seconds - 3.0).abs() < 1e-9, "{}", process.cpu_seconds);
        assert!((process.start_time_seconds - 1_700_000_123.45).abs() < 1e-6);
        assert_eq!(process::parse("garbage", status, boot, 1), None);
    }
}
