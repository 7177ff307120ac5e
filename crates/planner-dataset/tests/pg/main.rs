//! The reference registry (`fixtures/registry/capture.toml`) against seeded data: every intent
//! runs through the guarded executor, tenants stay isolated, and the data set is deterministic.
//! Database tests need `DATABASE_URL`; each gets a fresh database.

mod differencing;
mod fixture;
mod intents;
mod isolation;
mod registry;
