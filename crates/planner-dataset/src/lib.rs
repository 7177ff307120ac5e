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
//! Fixed ids for tests and the demo:
//!
//! | tenant | id | bench share | requirements |
//! |---|---|---|---|
//! | Northwind Cleared Staffing | `00000000-0000-4000-8000-00000000000a` | 60 % | `…-0000000a0001` .. `…-0000000a0003` |
//! | Harbor Point Defense | `00000000-0000-4000-8000-00000000000b` | 30 % | `…-0000000b0001` .. `…-0000000b0003` |
//! | Cedar Analytics | `00000000-0000-4000-8000-00000000000c` | 10 % | `…-0000000c0001` .. `…-0000000c0003` |
//!
//! (`…` is `00000000-0000-4000-8000`.) Requirement `…-0000000a0001` is "Army enterprise cloud
//! modernization" (Department of the Army, NAICS 541512, TS/SCI with SI and TK); every
//! requirement's predecessor award ends within 5 to 14 months of `today`, and its incumbent has
//! subcontractors. The data's `today` is stored as `market.snapshot.as_of`.
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
