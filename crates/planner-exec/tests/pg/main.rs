//! PostgreSQL tests of the guarded executors, the audit writer and key management. Each test gets
//! a fresh database from `DATABASE_URL` with the migrations applied.

mod audit;
mod exec;
mod keys;
mod roles;
