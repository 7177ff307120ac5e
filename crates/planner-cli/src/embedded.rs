//! The database the commands use: DATABASE_URL when given, else the embedded default: a
//! PostgreSQL cluster kept in the user's data directory (`PLANNER_DATA_DIR`, else
//! `$XDG_DATA_HOME/planner`, else `~/.local/share/planner`; `/var/lib/planner` for root, since
//! the server runs as an unprivileged user), started on demand, migrated and loaded with the demo
//! dataset on first use, and stopped when the last command using it ends: a server, `keys create`
//! and `ask` on one data directory share one cluster (planner-devdb's `Cluster`), and processes
//! starting together set it up one at a time (`setup.lock`).
//!
//! Two logins (docs/architecture.md, "Two lines of defence"): the owner migrates, seeds and
//! manages keys; the runtime login `planner_app`, which owns nothing and is no superuser, answers.
//!
//! - The embedded cluster accepts no connection without a password (SCRAM, a private socket
//!   directory); the superuser is the owner, and `planner_app` gets a generated password, both
//!   kept 0600 in the cluster's directory.
//! - A DATABASE_URL that logs in with least privilege is the runtime login; PLANNER_OWNER_URL,
//!   when set, is the owner used to migrate (and by `keys` and `db`).
//! - A DATABASE_URL that logs in as a superuser or an owner is the owner: it migrates, makes
//!   `planner_app` a login with PLANNER_RUNTIME_PASSWORD, and the commands answer as
//!   `planner_app`. Without that password the command stops and says how to fix it: nothing
//!   serves as a superuser.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use planner_devdb::{Cluster, ClusterConfig, ensure_database, find_bin_dir};
use planner_exec::PgPool;
use sqlx::postgres::PgPoolOptions;

/// An open database: the runtime pool, the owner's when this process has it, and the cluster
/// behind them when it is the embedded one.
#[derive(Debug)]
pub(crate) struct Database {
    pool: PgPool,
    owner: Option<PgPool>,
    cluster: Option<Cluster>,
}

/// The runtime login's password, for a DATABASE_URL that logs in as an owner.
const RUNTIME_PASSWORD_VAR: &str = "PLANNER_RUNTIME_PASSWORD";
/// The owner's URL, for a DATABASE_URL that logs in as the runtime login.
const OWNER_URL_VAR: &str = "PLANNER_OWNER_URL";
/// The file, in the embedded cluster's directory, holding `planner_app`'s password.
const RUNTIME_PASSWORD_FILE: &str = "runtime.password";

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

/// What a command does with the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Answer questions: as the runtime login, always.
    Answer,
    /// Manage keys, seed or reset: as the owner; the runtime login is not needed.
    Admin,
    /// Report what a DATABASE_URL holds: as the login given, changing nothing (no migration).
    Inspect,
}

impl Database {
    /// Connects to `url`, or starts the embedded default (loading the demo data on first use).
    pub(crate) async fn open(url: Option<&str>) -> anyhow::Result<Database> {
        Database::open_with(url, None).await
    }

    /// [`Database::open`] for the owner's commands (`keys`).
    pub(crate) async fn open_admin(url: Option<&str>) -> anyhow::Result<Database> {
        Database::connect_with(url, None, Purpose::Admin).await?.with_demo_data().await
    }

    /// Loads the demo dataset into the embedded database on its first use.
    #[expect(clippy::print_stderr, reason = "progress of the first start")]
    async fn with_demo_data(self) -> anyhow::Result<Database> {
        if let Some(cluster) = &self.cluster {
            // Processes starting together seed once: the others find it seeded.
            let _setup = setup_lock(cluster.dir()).await?;
            match self.seed(1.0).await? {
                Ok(report) => eprintln!("planner: loaded the demo dataset ({report:?})"),
                Err(planner_dataset::Error::AlreadySeeded) => {}
                Err(err) => return Err(err).context("loading the demo dataset"),
            }
        }
        Ok(self)
    }

    /// [`Database::open`] with a limit on the time a request waits for a pooled connection
    /// (the server's: a database that is gone fails the request instead of holding it).
    pub(crate) async fn open_with(
        url: Option<&str>,
        acquire_timeout: Option<Duration>,
    ) -> anyhow::Result<Database> {
        Database::connect_with(url, acquire_timeout, Purpose::Answer).await?.with_demo_data().await
    }

    /// Connects to `url` as the owner, or starts the embedded default, and migrates it; loads
    /// no data (`db`).
    pub(crate) async fn connect_admin(url: Option<&str>) -> anyhow::Result<Database> {
        Database::connect_with(url, None, Purpose::Admin).await
    }

    /// Connects to look only: to `url` as given, without migrating it; or the embedded default
    /// as [`Database::connect_admin`] does (planner's own database, migrated when it starts).
    pub(crate) async fn connect_inspect(url: Option<&str>) -> anyhow::Result<Database> {
        Database::connect_with(url, None, Purpose::Inspect).await
    }

    #[expect(clippy::print_stderr, reason = "progress of the first start")]
    async fn connect_with(
        url: Option<&str>,
        acquire_timeout: Option<Duration>,
        purpose: Purpose,
    ) -> anyhow::Result<Database> {
        let options = || {
            acquire_timeout.map_or_else(PgPoolOptions::new, |timeout| {
                PgPoolOptions::new().acquire_timeout(timeout)
            })
        };
        if let Some(url) = url {
            planner_exec::tls::check_url(url).context("DATABASE_URL")?;
            let given = options().connect(url).await.context("cannot connect to DATABASE_URL")?;
            if purpose == Purpose::Inspect {
                return Ok(Database { pool: given.clone(), owner: Some(given), cluster: None });
            }
            let privileges = planner_exec::login_privileges(&given).await?;
            if privileges.is_least_privilege() {
                let owner = match std::env::var(OWNER_URL_VAR).ok().filter(|it| !it.is_empty()) {
                    Some(owner_url) => {
                        planner_exec::tls::check_url(&owner_url).context(OWNER_URL_VAR)?;
                        let owner = PgPoolOptions::new()
                            .max_connections(2)
                            .connect(&owner_url)
                            .await
                            .with_context(|| format!("cannot connect to {OWNER_URL_VAR}"))?;
                        planner_engine::migrate(&owner).await?;
                        Some(owner)
                    }
                    None => None,
                };
                return Ok(Database { pool: given, owner, cluster: None });
            }
            if purpose == Purpose::Admin {
                planner_engine::migrate(&given).await?;
                return Ok(Database { pool: given.clone(), owner: Some(given), cluster: None });
            }
            let Some(password) =
                std::env::var(RUNTIME_PASSWORD_VAR).ok().filter(|it| !it.is_empty())
            else {
                anyhow::bail!(
                    "DATABASE_URL logs in as `{}`, {}: planner answers only as the runtime login \
                     `{}`, which owns nothing. Either set DATABASE_URL to that login's URL (and \
                     {OWNER_URL_VAR} to this one, to migrate), or set {RUNTIME_PASSWORD_VAR} \
                     (16 to 128 letters and digits) and planner makes `{}` a login with it",
                    privileges.login,
                    if privileges.superuser { "a superuser" } else { "an owner of the schema" },
                    planner_exec::RUNTIME_LOGIN,
                    planner_exec::RUNTIME_LOGIN,
                );
            };
            planner_engine::migrate(&given).await?;
            let runtime_url = planner_exec::runtime_url(url, &password)?;
            let pool = planner_exec::connect_runtime(&given, &runtime_url, &password, options())
                .await
                .context("cannot connect as the runtime login planner_app")?;
            return Ok(Database { pool, owner: Some(given), cluster: None });
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
        let config =
            ClusterConfig { bin_dir, dir: Some(dir.clone()), fast_unsafe: false, tls: None };
        let cluster = tokio::task::spawn_blocking(move || Cluster::start(&config)).await??;
        // Processes starting together create the database, migrate and make the runtime
        // password one at a time.
        let _setup = setup_lock(cluster.dir()).await?;
        ensure_database(&cluster.url("postgres"), "planner").await?;
        let owner = PgPoolOptions::new()
            .max_connections(2)
            .connect(&cluster.url("planner"))
            .await
            .context("cannot connect to the embedded database")?;
        planner_engine::migrate(&owner).await?;
        let password = embedded_runtime_password(&dir)?;
        let runtime_url = planner_exec::runtime_url(&cluster.url("planner"), &password)?;
        let pool = planner_exec::connect_runtime(&owner, &runtime_url, &password, options())
            .await
            .context("cannot connect as the runtime login planner_app")?;
        Ok(Database { pool, owner: Some(owner), cluster: Some(cluster) })
    }

    /// The owner's pool: the embedded superuser, a DATABASE_URL that owns the schema, or
    /// PLANNER_OWNER_URL.
    pub(crate) fn owner(&self) -> anyhow::Result<&PgPool> {
        self.owner.as_ref().with_context(|| {
            format!(
                "this needs the owner login: DATABASE_URL logs in as the runtime login; set \
                 {OWNER_URL_VAR} to the owner's URL"
            )
        })
    }

    /// Loads the demo dataset at `scale` (with a progress bar).
    /// The outer error: this process has no owner login; the inner one is the seeding's.
    pub(crate) async fn seed(
        &self,
        scale: f64,
    ) -> anyhow::Result<Result<planner_dataset::SeedReport, planner_dataset::Error>> {
        let options = planner_dataset::SeedOptions {
            progress: true,
            ..planner_dataset::SeedOptions::demo(scale)
        };
        Ok(planner_dataset::seed(self.owner()?, &options).await)
    }

    /// Whether this is the embedded default database.
    pub(crate) fn is_embedded(&self) -> bool {
        self.cluster.is_some()
    }

    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Closes the pools and stops the embedded cluster.
    pub(crate) async fn close(self) -> anyhow::Result<()> {
        self.pool.close().await;
        if let Some(owner) = &self.owner {
            owner.close().await;
        }
        if let Some(mut cluster) = self.cluster {
            tokio::task::spawn_blocking(move || cluster.stop()).await??;
        }
        Ok(())
    }
}

/// The pipelining pool of a read replica at `url`, as large as `primary`'s pool: the runtime
/// login's URL as given, or `url` with its login replaced by the runtime login when
/// PLANNER_RUNTIME_PASSWORD is set (a replica cannot make a login: the primary's password
/// replicates to it).
pub(crate) fn replica_pool(
    url: &str,
    primary: &sqlx::pool::PoolOptions<sqlx::Postgres>,
) -> anyhow::Result<planner_exec::WirePool> {
    let url = match std::env::var(RUNTIME_PASSWORD_VAR).ok().filter(|it| !it.is_empty()) {
        Some(password) => planner_exec::runtime_url(url, &password)?,
        None => url.to_owned(),
    };
    let size = primary.get_max_connections() as usize;
    planner_exec::WirePool::from_url(&url, size).context("--read-url (PLANNER_READ_URL)")
}

/// Holds the embedded cluster's `setup.lock` exclusively until the file is dropped.
async fn setup_lock(dir: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let path = dir.join("setup.lock");
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
        Ok(file)
    })
    .await?
}

/// The embedded cluster's runtime password, generated on first use and kept 0600 beside the
/// superuser's.
fn embedded_runtime_password(dir: &std::path::Path) -> anyhow::Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(RUNTIME_PASSWORD_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(text.trim().to_owned());
    }
    let password = planner_devdb::generate_password().context("generating a password")?;
    std::fs::write(&path, format!("{password}\n"))
        .with_context(|| format!("cannot write {}", path.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot protect {}", path.display()))?;
    Ok(password)
}
