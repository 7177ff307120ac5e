//! Guarded executors on PostgreSQL for the reference domain.
//!
//! Every intent runs through [`execute`] on a [`WirePool`] (pipelining connections: one round trip
//! per intent once its statement is prepared, counted on the socket) in its own read-only
//! transaction: the reader role of
//! its plane ([`Reader`]: SELECT on that plane's schemas only, nothing on `eeo`, no writes),
//! the tenant set locally for row-level security, a statement timeout, JIT compilation off (the
//! registry's queries run in milliseconds; compiling one takes longer), typed binds, and a typed
//! [`ResultTable`] back. Count intents run only with a [`Guard::Counts`] spec: counts from 1 to
//! k-1 become suppressed cells and complementary suppression hides whatever would let one be
//! derived from the other cells or totals of the same result. [`render_text`] and
//! [`render_markdown`] turn a result into byte-stable text; [`write_audits`] appends
//! counts-only audit rows (each under the id its caller chose) in one transaction, and [`withdraw_audits`] records ids whose
//! answer the caller never received (`audit.withdrawn`; the view `audit.answers_given` is the log
//! less those); [`create_api_key`], [`verify_api_key`] and [`revoke_api_key`] manage hashed API
//! keys; [`record_thread`], [`thread_owner`] and [`prune_threads`] keep which tenant and key
//! started a thread that waits for the user's answer (`admin.thread`). Connections honour the
//! URL's `sslmode` and `sslrootcert` on the build's one cryptographic module ([`tls`],
//! `planner-crypto`); API keys are hashed by that module too.
//!
//! **Architecture invariants:** this crate takes its own input types ([`ExecRequest`],
//! [`AuditRecord`]), never plan or graph types; its errors ([`Error`]) never carry SQL text or
//! bound values; nothing it renders depends on a clock or on hash order.
//!
//! The schema, roles and policies are the migrations in `crates/planner-exec/migrations`,
//! embedded as [`MIGRATOR`], run by the owner login (a superuser in development and tests, or a
//! dedicated owner). The application runs as the runtime login [`RUNTIME_LOGIN`] (see
//! [`enable_runtime_login`]): it owns nothing, is no superuser, inherits nothing, and each
//! transaction switches with `SET LOCAL ROLE` to a plane reader (`planner_read_public`,
//! `planner_read_tenant`, `planner_read_bench`) or to the audit writer `planner_audit` (INSERT
//! only). After the statement the executor reads back the role, the tenant and the statement
//! timeout and discards the result if any changed ([`Error::GuardChanged`]). Schemas: `market` (agencies, NAICS, vendors,
//! awards, vendor cells, the snapshot date), `graph` (subawards), `capture` (requirements),
//! `bench` (candidates, clearance levels), `admin` (tenants, API keys), `audit` (answer log,
//! withdrawn answers, answers given), `eeo` (unreachable).

mod audit;
mod error;
mod exec;
mod keys;
mod logins;
mod render;
mod suppress;
mod table;
mod threads;
pub mod tls;
mod wire;

pub use crate::{
    audit::{
        AuditRecord, AuditRoute, Faithfulness, SelfConsistency, withdraw_audits, write_audits,
    },
    error::{Error, Result},
    exec::{Bind, ExecRequest, Guard, Reader, TenantId, execute, execute_also},
    keys::{
        ApiKey, ApiKeyId, NewApiKey, api_key_hash, create_api_key, create_tenant, find_tenant,
        revoke_api_key, tenant_exists, verify_api_key,
    },
    logins::{
        LoginPrivileges, RUNTIME_LOGIN, connect_runtime, enable_runtime_login, grant_checkpoints,
        login_privileges, runtime_url,
    },
    render::{render_markdown, render_text},
    suppress::{CountSpec, Grid, Hidden, suppress_grid},
    table::{Cell, Column, ColumnType, ResultTable},
    threads::{ThreadOwner, prune_threads, record_thread, thread_owner},
    wire::WirePool,
};

/// The connection pool every executor takes (re-exported so that callers need no sqlx).
pub use sqlx::PgPool;

/// The schema, roles, row-level security policies and grants, embedded from
/// `crates/planner-exec/migrations`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!();
