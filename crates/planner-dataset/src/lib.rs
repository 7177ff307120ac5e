//! Deterministic synthetic data for the reference domain, loaded into PostgreSQL with COPY.
//!
//! [`seed`] runs `planner_exec::MIGRATOR`, then loads, from `(seed, scale)` alone: real agency
//! names and codes, the 2022 NAICS codes, vendors with made-up but format-valid UEIs, awards
//! with a long-tailed value distribution and periods of performance that put recompetes in every
//! window after the fixed `today`, a subaward graph of partners and competitors, and three demo
//! tenants ([`DEMO_TENANTS`]) with fixed requirements ([`DEMO_REQUIREMENTS`]) and benches of
//! 60 %, 30 % and 10 % of the candidates (the small one has cells that must be suppressed).
//! Scale 1 is about 50,000 awards and 10,000 candidates; scale 20 about 1,000,000 awards and
//! 200,000 candidates.
//!
//! **Architecture invariant:** the output depends only on `(seed, scale, today)`: the generator
//! is a self-contained xoshiro256** with integer arithmetic, never a library RNG, a clock or a
//! hash order.

mod bench;
mod copy_text;
mod error;
mod load;
mod market;
mod reference;
mod rng;

pub use crate::{
    error::{Error, Result},
    load::{DEMO_SEED, SeedOptions, SeedReport, demo_today, seed},
    reference::{DEMO_REQUIREMENTS, DEMO_TENANTS, DemoRequirement, DemoTenant},
};
