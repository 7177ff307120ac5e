//! End-to-end tests: one binary, one module per area. Database tests take their server from
//! DATABASE_URL (set by `cargo xtask test` / `ci`) and each gets its own database.

mod acquire;
mod ask;
mod browser;
mod courier;
mod domain;
mod embedded;
mod faults;
mod fit;
mod harness;
mod metrics;
mod model;
mod page;
mod process;
mod provisioning;
mod replica;
mod scale_out;
mod server;
