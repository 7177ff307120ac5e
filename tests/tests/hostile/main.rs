//! Hostile input through the HTTP API, on a seeded database from DATABASE_URL (set by `cargo
//! xtask test` / `ci`; each test gets its own database): requests generated from the OpenAPI
//! document, SQL and prompt injection corpora checked against the database's own statement
//! statistics, and tenant isolation as a property.

mod api_fuzz;
mod http;
mod injection;
mod isolation;
