//! The database `planner ask` uses: DATABASE_URL when given, else the embedded default: a
//! PostgreSQL cluster kept in the user's data directory (`PLANNER_DATA_DIR`, else
//! `$XDG_DATA_HOME/planner`, else `~/.local/share/planner`; `/var/lib/planner` for root, since
//! the server runs as an unprivileged user), started on demand, migrated and loaded with the demo
//! dataset on first use, and stopped when the command ends.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use planner_devdb::{Cluster, ClusterConfig, ensure_database, find_bin_dir};
use planner_exec::PgPool;
use sqlx::postgres::PgPoolOptions;

/// An open database, and the cluster behind it when it is the embedded one.
#[derive(Debug)]
pub(crate) struct Database {
    pool: PgPool,
    cluster: Option<Cluster>,
}

pub(crate) fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PLANNER_DATA_DIR") {
        return PathBuf::from(dir);
    }
    let is_root = std::env::var("USER").map(|it| it == "root").unwrap_or(false)
        || std::env::var_os("HOME").is_some_and(|home| home == "/root");
    if is_root {
        return PathBuf::from("/var/lib/planner");
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("planner");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".local/share/planner")
}

/// Where the embedded cluster lives.
pub(crate) fn embedded_dir() -> PathBuf {
    data_dir().join("pg")
}

impl Database {
    /// Connects to `url`, or starts the embedded default (loading the demo data on first use).
    pub(crate) async fn open(url: Option<&str>) -> anyhow::Result<Database> {
        Database::open_with(url, None).await
    }

    /// [`Database::open`] with a limit on the time a request waits for a pooled connection
    /// (the server's: a database that is gone fails the request instead of holding it).
    #[expect(clippy::print_stderr, reason = "progress of the first start")]
    pub(crate) async fn open_with(
        url: Option<&str>,
        acquire_timeout: Option<Duration>,
    ) -> anyhow::Result<Database> {
        let database = Database::connect_with(url, acquire_timeout).await?;
        if database.cluster.is_some() {
            match database.seed(1.0).await {
                Ok(report) => eprintln!("planner: loaded the demo dataset ({report:?})"),
                Err(planner_dataset::Error::AlreadySeeded) => {}
                Err(err) => return Err(err).context("loading the demo dataset"),
            }
        }
        Ok(database)
    }

    /// Connects to `url`, or starts the embedded default, and migrates it; loads no data.
    pub(crate) async fn connect(url: Option<&str>) -> anyhow::Result<Database> {
        Database::connect_with(url, None).await
    }

    #[expect(clippy::print_stderr, reason = "progress of the first start")]
    async fn connect_with(
        url: Option<&str>,
        acquire_timeout: Option<Duration>,
    ) -> anyhow::Result<Database> {
        let options = acquire_timeout.map_or_else(PgPoolOptions::new, |timeout| {
            PgPoolOptions::new().acquire_timeout(timeout)
        });
        if let Some(url) = url {
            let pool = options.connect(url).await.context("cannot connect to DATABASE_URL")?;
            planner_engine::migrate(&pool).await?;
            return Ok(Database { pool, cluster: None });
        }
        let bin_dir = find_bin_dir(
            std::env::var("PATH").ok().as_deref(),
            "/usr/lib/postgresql".as_ref(),
        )
        .context(
            "the embedded database needs PostgreSQL server binaries (Debian: apt-get install \
                 postgresql-15), or set DATABASE_URL to a server you run",
        )?;
        let dir = embedded_dir();
        let first_use = !dir.join("data/PG_VERSION").exists();
        if first_use {
            eprintln!("planner: creating the embedded database in {}", dir.display());
        }
        let config = ClusterConfig { bin_dir, dir: Some(dir), fast_unsafe: false };
        let cluster = tokio::task::spawn_blocking(move || Cluster::start(&config)).await??;
        ensure_database(&cluster.url("postgres"), "planner").await?;
        let pool = options
            .connect(&cluster.url("planner"))
            .await
            .context("cannot connect to the embedded database")?;
        planner_engine::migrate(&pool).await?;
        Ok(Database { pool, cluster: Some(cluster) })
    }

    /// Loads the demo dataset at `scale` (with a progress bar).
    pub(crate) async fn seed(
        &self,
        scale: f64,
    ) -> Result<planner_dataset::SeedReport, planner_dataset::Error> {
        let options = planner_dataset::SeedOptions {
            progress: true,
            ..planner_dataset::SeedOptions::demo(scale)
        };
        planner_dataset::seed(&self.pool, &options).await
    }

    /// Whether this is the embedded default database.
    pub(crate) fn is_embedded(&self) -> bool {
        self.cluster.is_some()
    }

    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Closes the pool and stops the embedded cluster.
    pub(crate) async fn close(self) -> anyhow::Result<()> {
        self.pool.close().await;
        if let Some(mut cluster) = self.cluster {
            tokio::task::spawn_blocking(move || cluster.stop()).await??;
        }
        Ok(())
    }
}
