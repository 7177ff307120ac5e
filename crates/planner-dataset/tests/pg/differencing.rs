//! Suppression survives differencing: for every bench count intent, every value of its params
//! (every window, every clearance threshold, every compartment set, every requirement) is asked
//! of every demo tenant, and no count from 1 to k-1 can be derived from the shown cells, neither
//! by subtracting one nested cell from another (every pair of answers) nor by any sum or
//! difference of shown cells across all the answers of an intent (linear algebra over the
//! partition of the tenant's candidates that the shown cells induce).
//!
//! Each shown cell's population is modelled here from its labels and params, independently of
//! the registry's SQL, and the model's count must equal the shown count: the check speaks of the
//! candidates themselves, not of the SQL's own idea of them.

use std::collections::BTreeMap;

use chrono::{Months, NaiveDate};
use planner_dataset::{DEMO_REQUIREMENTS, DEMO_SEED, DEMO_TENANTS, SeedOptions, demo_today, seed};
use planner_exec::Cell;
use planner_registry::{Registry, Value};
use sqlx::PgPool;
use uuid::Uuid;

use crate::fixture::{registry, run_with};

/// Large enough that most bands hold more than k candidates and some fewer, for every tenant.
const SCALE: f64 = 0.3;
const K: u64 = 11;
const LEVELS: [&str; 4] = ["confidential", "secret", "top_secret", "ts_sci"];
const CODES: [(&str, i32); 5] = [("G", 1), ("HCS", 2), ("KLM", 4), ("SI", 8), ("TK", 16)];
const BANDS: [(&str, u32, u32); 5] = [
    ("within 1 month", 0, 1),
    ("in 1 to 3 months", 1, 3),
    ("in 3 to 6 months", 3, 6),
    ("in 6 to 12 months", 6, 12),
    ("in 12 to 24 months", 12, 24),
];

struct Candidate {
    rank: i32,
    cleared: bool,
    bits: i32,
    category: String,
    available: NaiveDate,
}

/// A shown cell: which answer it came from, its value and its population (one bit per
/// candidate).
struct Shown {
    answer: String,
    value: u64,
    members: Vec<bool>,
}

fn rank(level: &str) -> i32 {
    1 + i32::try_from(LEVELS.iter().position(|it| *it == level).unwrap()).unwrap()
}

fn plus_months(day: NaiveDate, months: u32) -> NaiveDate {
    day.checked_add_months(Months::new(months)).unwrap()
}

/// The availability class the count intents use: now, within 1 month, later.
fn availability(candidate: &Candidate, as_of: NaiveDate) -> &'static str {
    if candidate.available <= as_of {
        "now"
    } else if candidate.available <= plus_months(as_of, 1) {
        "within 1 month"
    } else {
        "later"
    }
}

fn text(cell: &Cell) -> &str {
    match cell {
        Cell::Text(text) => text,
        other => panic!("not a label: {other:?}"),
    }
}

/// One tenant's view: its candidates, asked through the registry.
struct Asker<'a> {
    pool: &'a PgPool,
    registry: &'a Registry,
    tenant: Uuid,
    candidates: &'a [Candidate],
}

impl Asker<'_> {
    /// Runs `intent` with `args` and keeps its shown cells, each with the population
    /// `member(row labels, candidate)` says it counts, checked against the shown value.
    async fn shown_cells(
        &self,
        intent: &str,
        args: BTreeMap<&'static str, Value>,
        member: &dyn Fn(&[Cell], &Candidate) -> bool,
        out: &mut Vec<Shown>,
    ) {
        let registry = self.registry;
        let query = registry.intent(registry.intent_id(intent).unwrap());
        let label = format!("{intent} {args:?}");
        // As the engine runs it: no total row.
        let table = run_with(self.pool, registry, query, &args, self.tenant, false).await.unwrap();
        let count = table.columns.iter().position(|c| c.name == "candidates").unwrap();
        for row in &table.rows {
            match row[count] {
                Cell::Int(value) => {
                    let value = u64::try_from(value).unwrap();
                    let members: Vec<bool> =
                        self.candidates.iter().map(|c| member(row, c)).collect();
                    let modelled = members.iter().filter(|it| **it).count() as u64;
                    assert_eq!(modelled, value, "{label}: {row:?}");
                    assert!(value == 0 || value >= K, "{label}: a small count is shown: {row:?}");
                    out.push(Shown { answer: label.clone(), value, members });
                }
                Cell::Suppressed { .. } | Cell::Withheld => {}
                ref other => panic!("{label}: unexpected count cell {other:?}"),
            }
        }
    }
}

/// Every pair of shown cells, from the same answer or two, whose populations nest: their
/// difference (a count the user derives by subtracting) is zero or at least k.
fn nested_differences(shown: &[Shown]) -> usize {
    let mut pairs = 0;
    for (i, big) in shown.iter().enumerate() {
        for (j, small) in shown.iter().enumerate() {
            if i == j {
                continue;
            }
            let nested = small.members.iter().zip(&big.members).all(|(s, b)| !*s || *b);
            if nested && small.value <= big.value {
                let difference = big.value - small.value;
                assert!(
                    difference == 0 || difference >= K,
                    "{} minus {} derives {difference}",
                    big.answer,
                    small.answer
                );
                pairs += 1;
            }
        }
    }
    pairs
}

/// Partitions the candidates by which shown cells hold them, and returns every block whose
/// count some integer combination of the shown cells pins down, with its size. A block is
/// pinned down exactly when its unit vector lies in the row space of the cells' incidence
/// matrix; row reduction modulo a large prime finds every such block (and, if anything, more).
fn determined_blocks(shown: &[Shown], candidates: usize) -> Vec<(usize, u64)> {
    const P: u64 = 2_147_483_647;
    let mut blocks: BTreeMap<Vec<bool>, u64> = BTreeMap::new();
    for candidate in 0..candidates {
        let signature: Vec<bool> = shown.iter().map(|cell| cell.members[candidate]).collect();
        *blocks.entry(signature).or_default() += 1;
    }
    let blocks: Vec<(Vec<bool>, u64)> = blocks.into_iter().collect();
    let mut matrix: Vec<Vec<u64>> = (0..shown.len())
        .map(|row| blocks.iter().map(|(signature, _)| u64::from(signature[row])).collect())
        .collect();
    let inverse = |value: u64| {
        let (mut result, mut base, mut exponent) = (1u64, value % P, P - 2);
        while exponent > 0 {
            if exponent & 1 == 1 {
                result = result * base % P;
            }
            base = base * base % P;
            exponent >>= 1;
        }
        result
    };
    let mut pivots = Vec::new();
    let mut next = 0;
    for column in 0..blocks.len() {
        let Some(found) = (next..matrix.len()).find(|&row| matrix[row][column] != 0) else {
            continue;
        };
        matrix.swap(next, found);
        let scale = inverse(matrix[next][column]);
        for value in &mut matrix[next] {
            *value = *value * scale % P;
        }
        for row in 0..matrix.len() {
            if row != next && matrix[row][column] != 0 {
                let factor = matrix[row][column];
                let pivot_row = matrix[next].clone();
                for (value, pivot) in matrix[row].iter_mut().zip(&pivot_row) {
                    *value = (*value + P - factor * pivot % P) % P;
                }
            }
        }
        pivots.push((next, column));
        next += 1;
    }
    pivots
        .into_iter()
        .filter(|&(row, column)| {
            matrix[row].iter().enumerate().all(|(index, value)| index == column || *value == 0)
        })
        .map(|(_, column)| (column, blocks[column].1))
        .collect()
}

/// Asserts both checks over one intent's answers and returns (cells shown, nested pairs).
fn no_small_count_derivable(intent: &str, shown: &[Shown], candidates: usize) -> (usize, usize) {
    let pairs = nested_differences(shown);
    for (block, size) in determined_blocks(shown, candidates) {
        assert!(size >= K, "{intent}: block {block} of {size} candidates is derivable");
    }
    (shown.len(), pairs)
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn no_pair_of_bench_answers_derives_a_small_count(pool: PgPool) {
    let options =
        SeedOptions { scale: SCALE, seed: DEMO_SEED, today: demo_today(), progress: false };
    seed(&pool, &options).await.unwrap();
    let registry = registry();
    let as_of: NaiveDate =
        sqlx::query_scalar("SELECT as_of FROM market.snapshot").fetch_one(&pool).await.unwrap();
    let mut totals = (0, 0, 0);
    for (index, tenant) in DEMO_TENANTS.iter().enumerate() {
        let rows: Vec<(i16, String, i32, String, NaiveDate)> = sqlx::query_as(
            "SELECT clearance_rank, clearance_status, compartment_bits, labor_category,
                    available_from
             FROM bench.candidate WHERE tenant_id = $1 ORDER BY id",
        )
        .bind(tenant.id)
        .fetch_all(&pool)
        .await
        .unwrap();
        let candidates: Vec<Candidate> = rows
            .into_iter()
            .map(|(rank, status, bits, category, available)| Candidate {
                rank: rank.into(),
                cleared: status == "active" || status == "current",
                bits,
                category,
                available,
            })
            .collect();
        let n = candidates.len();
        let asker =
            Asker { pool: &pool, registry: &registry, tenant: tenant.id, candidates: &candidates };

        // bench_availability: every window from 1 to 24 months.
        let mut shown = Vec::new();
        for window in 1..=24 {
            let args = BTreeMap::from([("window_months", Value::Int(window))]);
            let member = |row: &[Cell], c: &Candidate| {
                let band = BANDS.iter().find(|band| band.0 == text(&row[1])).unwrap();
                c.cleared
                    && c.rank == rank(text(&row[0]))
                    && c.available > plus_months(as_of, band.1)
                    && c.available <= plus_months(as_of, band.2)
            };
            asker.shown_cells("bench_availability", args, &member, &mut shown).await;
        }
        let (cells, pairs) = no_small_count_derivable("bench_availability", &shown, n);
        totals = (totals.0 + 24, totals.1 + cells, totals.2 + pairs);

        // bench_clearance_counts: every threshold.
        let mut shown = Vec::new();
        for level in LEVELS {
            let args = BTreeMap::from([("clearance", Value::Text(level.into()))]);
            let member = |row: &[Cell], c: &Candidate| {
                c.cleared && c.rank >= rank(level) && availability(c, as_of) == text(&row[0])
            };
            asker.shown_cells("bench_clearance_counts", args, &member, &mut shown).await;
        }
        let (cells, pairs) = no_small_count_derivable("bench_clearance_counts", &shown, n);
        totals = (totals.0 + 4, totals.1 + cells, totals.2 + pairs);

        // bench_compartment_counts: every threshold with every non-empty set of codes.
        let mut shown = Vec::new();
        for level in LEVELS {
            for set in 1..32usize {
                let codes: Vec<(&str, i32)> = CODES
                    .iter()
                    .enumerate()
                    .filter(|(bit, _)| set & (1 << bit) != 0)
                    .map(|(_, code)| *code)
                    .collect();
                let bits: i32 = codes.iter().map(|(_, bit)| bit).sum();
                let mut names: Vec<String> =
                    codes.iter().map(|(name, _)| (*name).to_owned()).collect();
                names.sort();
                let args = BTreeMap::from([
                    ("clearance", Value::Text(level.into())),
                    ("compartments", Value::List(names)),
                ]);
                let member = |row: &[Cell], c: &Candidate| {
                    c.cleared
                        && c.rank >= rank(level)
                        && c.bits & bits == bits
                        && availability(c, as_of) == text(&row[0])
                };
                asker.shown_cells("bench_compartment_counts", args, &member, &mut shown).await;
            }
        }
        let (cells, pairs) = no_small_count_derivable("bench_compartment_counts", &shown, n);
        totals = (totals.0 + 124, totals.1 + cells, totals.2 + pairs);

        // bench_requirement_fit: every requirement of the tenant.
        let mut shown = Vec::new();
        for requirement in DEMO_REQUIREMENTS.iter().filter(|r| r.tenant == index) {
            let args =
                BTreeMap::from([("requirement_id", Value::Text(requirement.id.to_string()))]);
            let bits: i32 = CODES
                .iter()
                .filter(|(name, _)| requirement.compartments.contains(name))
                .map(|(_, bit)| bit)
                .sum();
            let member = |row: &[Cell], c: &Candidate| {
                c.cleared
                    && c.rank >= rank(requirement.clearance)
                    && c.bits & bits == bits
                    && c.category == text(&row[0])
            };
            asker.shown_cells("bench_requirement_fit", args, &member, &mut shown).await;
            totals.0 += 1;
        }
        let (cells, pairs) = no_small_count_derivable("bench_requirement_fit", &shown, n);
        totals = (totals.0, totals.1 + cells, totals.2 + pairs);
    }
    // The check has substance: many answers, many shown cells, many nested pairs compared.
    let (answers, cells, pairs) = totals;
    assert!(answers >= 3 * (24 + 4 + 124), "{answers} answers");
    assert!(cells >= 500, "only {cells} shown cells");
    assert!(pairs >= 1_000, "only {pairs} nested pairs");
}
