//! A PostgreSQL for development, tests and the CLI's embedded default.
//!
//! [`provide`] finds or starts one server, trying in order:
//!
//! 1. `DATABASE_URL`, when set: an external server, used as is;
//! 2. a container started with testcontainers from [`Options::image`], when a Docker engine
//!    answers and has that image (no registry is assumed: `cargo xtask pg-image` builds one);
//! 3. an ephemeral cluster from local PostgreSQL server binaries (`pg_config`, `PATH`,
//!    `/usr/lib/postgresql/*/bin`): `initdb` into a private (0700) temporary directory, loopback
//!    port, a generated superuser password (SCRAM; no connection is trusted), fsync off,
//!    removed when stopped;
//! 4. otherwise a clear [`Error::NoProvider`] naming the three ways to provide one.
//!
//! Containers and clusters it starts preload `pg_stat_statements` (a cluster only when its
//! installation has the module), so that tests can read which statements a database ran.
//!
//! The returned [`Postgres`] says which provider it used ([`Postgres::provider`]) and stops what it
//! started when [`Postgres::stop`] is called or it is dropped.
//!
//! [`Cluster`] is also usable on its own, with a persistent data directory, for the CLI's
//! embedded default database, or serving TLS with a given certificate ([`ServerTls`]: plain TCP
//! is then refused), for the TLS tests.
//!
//! Architecture invariant: this crate depends on no other workspace crate; it knows nothing of
//! the planner's schema (migrations belong to `planner-exec`).

mod cluster;
mod docker;
mod error;
mod provide;

pub use cluster::{Cluster, ClusterConfig, ServerTls, find_bin_dir, generate_password};
pub use docker::DockerEngine;
pub use error::{Error, Result};
pub use provide::{Options, Postgres, Provider, ensure_database, provide, take_database_away};
