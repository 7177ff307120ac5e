//! Seeding: migrations, then every table through COPY in one transaction, then the summaries
//! and statistics the intents' plans rely on.

use chrono::NaiveDate;
use indicatif::{ProgressBar, ProgressStyle};
use sqlx::postgres::{PgConnection, PgPool};
use sqlx::{Connection as _, Executor as _};

use crate::bench;
use crate::copy_text::push_row;
use crate::error::{Error, Result};
use crate::market::Market;
use crate::reference::{AGENCIES, DEMO_REQUIREMENTS, DEMO_TENANTS, naics_codes};
use crate::rng::Rng;

/// The seed the demo and the tests use.
pub const DEMO_SEED: u64 = 20_261_130;

/// The fixed "today" of the demo data: windows and recompetes are relative to it.
pub fn demo_today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 7, 1).unwrap_or_default()
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedOptions {
    /// The scale factor: 1 is about 50,000 awards; 0.02 is a quick test set.
    pub scale: f64,
    /// The generator's seed.
    pub seed: u64,
    /// The data's "today" (stored as `market.snapshot.as_of`).
    pub today: NaiveDate,
    /// Draw a progress bar on the terminal.
    pub progress: bool,
}

impl SeedOptions {
    /// The demo dataset at `scale`: [`DEMO_SEED`], [`demo_today`], no progress bar.
    pub fn demo(scale: f64) -> SeedOptions {
        SeedOptions { scale, seed: DEMO_SEED, today: demo_today(), progress: false }
    }
}

/// How many rows each table received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SeedReport {
    /// Agency rows.
    pub agencies: u64,
    /// NAICS codes.
    pub naics: u64,
    /// Vendors.
    pub vendors: u64,
    /// Awards.
    pub awards: u64,
    /// Subawards.
    pub subawards: u64,
    /// Tenants.
    pub tenants: u64,
    /// Requirements.
    pub requirements: u64,
    /// Bench candidates.
    pub candidates: u64,
}

/// Flush a COPY buffer once it holds this many bytes.
const CHUNK: usize = 4 << 20;

/// Migrates `pool`'s database and loads the synthetic data set into it. The database must hold
/// no award data yet.
pub async fn seed(pool: &PgPool, options: &SeedOptions) -> Result<SeedReport> {
    if !options.scale.is_finite() || options.scale <= 0.0 || options.scale > 100.0 {
        return Err(Error::InvalidScale);
    }
    planner_exec::MIGRATOR.run(pool).await.map_err(Error::Migrate)?;
    let seeded: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM market.award) OR EXISTS (SELECT 1 FROM admin.tenant)",
    )
    .fetch_one(pool)
    .await
    .map_err(load_error("market.award"))?;
    if seeded {
        return Err(Error::AlreadySeeded);
    }

    let awards = ((50_000.0 * options.scale).round() as u64).max(DEMO_REQUIREMENTS.len() as u64);
    let vendor_count = (2_500.0 * options.scale).round() as usize + 200;
    let candidate_count = ((10_000.0 * options.scale).round() as u64).max(30);
    let bar = if options.progress {
        let bar = ProgressBar::new(awards + vendor_count as u64 + candidate_count);
        bar.set_style(
            ProgressStyle::with_template("{msg:>12} [{bar:40}] {human_pos}/{human_len} rows {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let mut report = SeedReport::default();
    let mut conn = pool.acquire().await.map_err(load_error("connection"))?;
    let mut tx = conn.begin().await.map_err(load_error("transaction"))?;

    // A load is all or nothing and can be rerun: no need to wait for each WAL flush.
    tx.execute("SET LOCAL synchronous_commit = off").await.map_err(load_error("transaction"))?;
    sqlx::query("INSERT INTO market.snapshot (as_of) VALUES ($1)")
        .bind(options.today)
        .execute(&mut *tx)
        .await
        .map_err(load_error("market.snapshot"))?;

    let mut text = String::new();
    for (index, agency) in AGENCIES.iter().enumerate() {
        push_row(
            &mut text,
            &[
                &(index + 1).to_string(),
                agency.toptier_code,
                agency.toptier_name,
                agency.subtier_code,
                agency.subtier_name,
            ],
        );
    }
    report.agencies = AGENCIES.len() as u64;
    copy(
        &mut tx,
        "market.agency",
        "(id, toptier_code, toptier_name, subtier_code, subtier_name)",
        &text,
    )
    .await?;

    let naics = naics_codes();
    text.clear();
    for (code, title) in &naics {
        push_row(&mut text, &[code, title]);
    }
    report.naics = naics.len() as u64;
    copy(&mut tx, "market.naics", "(code, title)", &text).await?;

    bar.set_message("vendors");
    let market = Market::new(options.seed, vendor_count, naics, options.today);
    text.clear();
    for vendor in &market.vendors {
        let parent = vendor.parent.map(|index| market.vendors[index].uei.as_str());
        push_row(
            &mut text,
            &[
                &vendor.uei,
                &vendor.name,
                parent.unwrap_or(crate::copy_text::NULL),
                if vendor.small { "small" } else { "other_than_small" },
            ],
        );
    }
    report.vendors = market.vendors.len() as u64;
    copy(&mut tx, "market.vendor", "(uei, name, parent_uei, size_status)", &text).await?;
    bar.inc(report.vendors);

    bar.set_message("awards");
    let mut rng = Rng::stream(options.seed, "awards");
    let mut sub_rng = Rng::stream(options.seed, "subawards");
    let mut subawards = String::new();
    let mut next_subaward = 1;
    let mut predecessors = Vec::new();
    {
        let mut sink = tx
            .copy_in_raw(
                "COPY market.award (id, piid, agency_id, naics, recipient_uei, start_date, \
                 current_end_date, potential_end_date, obligated, base_and_all_options, set_aside) \
                 FROM STDIN",
            )
            .await
            .map_err(load_error("market.award"))?;
        text.clear();
        let anchors = DEMO_REQUIREMENTS.len() as u64;
        for number in 0..awards {
            let id = number as i64 + 1;
            let anchor = (number < anchors).then_some(number as usize);
            let facts = market.award(&mut rng, id, anchor, &mut text);
            report.subawards += market.subawards(
                &mut sub_rng,
                &facts,
                &mut next_subaward,
                anchor.is_some(),
                &mut subawards,
            );
            if anchor.is_some() {
                predecessors.push(facts.piid);
            }
            if text.len() >= CHUNK {
                sink.send(text.as_bytes()).await.map_err(load_error("market.award"))?;
                text.clear();
                bar.set_position(report.vendors + number);
            }
        }
        sink.send(text.as_bytes()).await.map_err(load_error("market.award"))?;
        sink.finish().await.map_err(load_error("market.award"))?;
    }
    report.awards = awards;
    bar.set_position(report.vendors + awards);

    bar.set_message("subawards");
    copy(
        &mut tx,
        "graph.subaward",
        "(id, prime_award_id, prime_uei, sub_uei, amount, action_date)",
        &subawards,
    )
    .await?;
    drop(subawards);

    bar.set_message("bench");
    text.clear();
    report.tenants = bench::tenants(&mut text);
    copy(&mut tx, "admin.tenant", "(id, name)", &text).await?;
    text.clear();
    report.requirements = bench::requirements(&mut text, &predecessors, options.today);
    copy(
        &mut tx,
        "capture.requirement",
        "(id, tenant_id, title, agency, naics, clearance, compartments, seats, due_date, \
         predecessor_piid)",
        &text,
    )
    .await?;
    text.clear();
    let mut eeo = String::new();
    let mut bench_rng = Rng::stream(options.seed, "bench");
    let mut assigned = 0;
    for (index, tenant) in DEMO_TENANTS.iter().enumerate() {
        let count = if index + 1 == DEMO_TENANTS.len() {
            candidate_count - assigned
        } else {
            candidate_count * tenant.bench_percent / 100
        };
        assigned += count;
        bench::candidates(&mut bench_rng, index, count, options.today, &mut text, &mut eeo);
    }
    report.candidates = candidate_count;
    copy(
        &mut tx,
        "bench.candidate",
        "(id, tenant_id, clearance, clearance_rank, clearance_status, compartments, polygraph, \
         labor_category, skills, available_from)",
        &text,
    )
    .await?;
    copy(&mut tx, "eeo.self_identification", "(candidate_id, tenant_id, category, response)", &eeo)
        .await?;
    bar.inc(candidate_count);

    bar.set_message("summaries");
    tx.execute("SELECT market.refresh_vendor_cells()")
        .await
        .map_err(load_error("market.vendor_cell"))?;
    tx.commit().await.map_err(load_error("transaction"))?;

    bar.set_message("analyze");
    // Fresh visibility maps make index-only scans possible; fresh statistics make good plans.
    // The one-row snapshot and the clearance levels count too: never analyzed, they are
    // estimated at thousands of rows, every query joining them looks costly enough to be
    // JIT-compiled, and the compilation takes longer than the query.
    conn.execute(
        "VACUUM (ANALYZE) market.snapshot, market.agency, market.naics, market.vendor, \
         market.award, market.vendor_cell, graph.subaward, admin.tenant, capture.requirement, \
         bench.clearance_level, bench.candidate, eeo.self_identification",
    )
    .await
    .map_err(load_error("vacuum"))?;
    bar.finish_with_message("done");
    Ok(report)
}

async fn copy(
    conn: &mut PgConnection,
    table: &'static str,
    columns: &str,
    text: &str,
) -> Result<()> {
    let statement = format!("COPY {table} {columns} FROM STDIN");
    let mut sink = conn.copy_in_raw(&statement).await.map_err(load_error(table))?;
    for chunk in text.as_bytes().chunks(CHUNK) {
        sink.send(chunk).await.map_err(load_error(table))?;
    }
    sink.finish().await.map_err(load_error(table))?;
    Ok(())
}

fn load_error(table: &'static str) -> impl Fn(sqlx::Error) -> Error {
    move |source| Error::Load { table, source }
}
