//! Choosing and starting a provider.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use sqlx::Connection;
use testcontainers_modules::postgres::Postgres as PostgresImage;
use testcontainers_modules::testcontainers::runners::AsyncRunner;
use testcontainers_modules::testcontainers::{ContainerAsync, ImageExt};

use crate::{Cluster, ClusterConfig, DockerEngine, Error, Result, find_bin_dir};

/// Where to look for a PostgreSQL. Build it with [`Options::from_env`] in a binary, or by hand.
#[derive(Debug, Clone)]
pub struct Options {
    /// An external server to use as is (`DATABASE_URL`).
    pub database_url: Option<String>,
    /// The container image for the testcontainers provider (`PLANNER_PG_IMAGE`).
    pub image: String,
    /// The Docker engine's address (`DOCKER_HOST`); `None` means the default socket.
    pub docker_host: Option<String>,
    /// The search path for server binaries (`PATH`).
    pub path: Option<String>,
    /// Where versioned server binaries are installed (`/usr/lib/postgresql` on Debian).
    pub system_bin_root: PathBuf,
    /// The database to create and hand out, for tests `planner_test`.
    pub database: String,
}

impl Options {
    /// The official image the container provider uses when `PLANNER_PG_IMAGE` is not set.
    pub const DEFAULT_IMAGE: &'static str = "postgres:15-alpine";
    /// The image `cargo xtask pg-image` builds from Debian's packages.
    pub const LOCAL_IMAGE: &'static str = "planner-postgres:15";

    /// Options from `DATABASE_URL`, `PLANNER_PG_IMAGE`, `DOCKER_HOST` and `PATH`.
    pub fn from_env() -> Options {
        let var = |name: &str| std::env::var(name).ok().filter(|it| !it.is_empty());
        Options {
            database_url: var("DATABASE_URL"),
            image: var("PLANNER_PG_IMAGE").unwrap_or_else(|| Self::DEFAULT_IMAGE.to_owned()),
            docker_host: var("DOCKER_HOST"),
            path: var("PATH"),
            system_bin_root: PathBuf::from("/usr/lib/postgresql"),
            database: "planner_test".to_owned(),
        }
    }
}

/// Which provider a [`Postgres`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    /// The server named by `DATABASE_URL`.
    DatabaseUrl,
    /// A container started through testcontainers from this image.
    Container {
        /// `name:tag`.
        image: String,
    },
    /// An ephemeral cluster from local server binaries.
    Cluster {
        /// The binaries' directory.
        bin_dir: PathBuf,
    },
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provider::DatabaseUrl => f.write_str("DATABASE_URL"),
            Provider::Container { image } => write!(f, "testcontainers {image}"),
            Provider::Cluster { bin_dir } => write!(f, "ephemeral cluster ({})", bin_dir.display()),
        }
    }
}

/// A PostgreSQL ready to accept connections.
#[derive(Debug)]
pub struct Postgres {
    url: String,
    provider: Provider,
    running: Running,
}

enum Running {
    External,
    Container(Box<ContainerAsync<PostgresImage>>),
    Cluster(Box<Cluster>),
}

impl fmt::Debug for Running {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Running::External => f.write_str("External"),
            Running::Container(c) => write!(f, "Container({})", c.id()),
            Running::Cluster(c) => write!(f, "Cluster({})", c.dir().display()),
        }
    }
}

impl Postgres {
    /// A URL for the provided database, with credentials.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The provider that was used.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// Whether the server preloads `library` (its `shared_preload_libraries`), e.g. whether
    /// tests can read `pg_stat_statements`.
    pub async fn preloads(&self, library: &str) -> Result<bool> {
        let mut conn = connect(&self.url).await?;
        let libraries: String =
            sqlx::query_scalar("SELECT current_setting('shared_preload_libraries')")
                .fetch_one(&mut conn)
                .await
                .map_err(|err| connect_err(&self.url, &err))?;
        Ok(libraries.split(',').any(|it| it.trim() == library))
    }

    /// Stops and removes what was started (nothing for `DATABASE_URL`).
    pub async fn stop(self) -> Result<()> {
        match self.running {
            Running::External => Ok(()),
            Running::Container(container) => match container.rm().await {
                Ok(()) => Ok(()),
                // Removed underneath (a CI script clearing test containers): already stopped.
                Err(err) if already_removed(&err) => Ok(()),
                Err(err) => Err(Error::Container {
                    image: self.provider.to_string(),
                    detail: err.to_string(),
                }),
            },
            Running::Cluster(mut cluster) => {
                tokio::task::spawn_blocking(move || cluster.stop()).await.map_err(|err| {
                    Error::Command { program: "pg_ctl stop".into(), detail: err.to_string() }
                })?
            }
        }
    }
}

/// Whether removing a container failed because it is gone already (the engine answers 404).
fn already_removed(err: &testcontainers_modules::testcontainers::TestcontainersError) -> bool {
    use testcontainers_modules::testcontainers::{
        TestcontainersError, bollard::errors::Error as Engine, core::error::ClientError,
    };
    matches!(
        err,
        TestcontainersError::Client(ClientError::RemoveContainer(
            Engine::DockerResponseServerError { status_code: 404, .. }
        ))
    )
}

/// Finds or starts a PostgreSQL, in the order of the crate docs, and waits until the database
/// answers. Logs the provider it used at `info` level.
pub async fn provide(options: &Options) -> Result<Postgres> {
    let mut tried = Vec::new();
    if let Some(url) = &options.database_url {
        wait_until_ready(url).await?;
        return Ok(Postgres {
            url: url.clone(),
            provider: Provider::DatabaseUrl,
            running: Running::External,
        });
    }
    tried.push("DATABASE_URL: not set".to_owned());

    match docker_has_image(options) {
        Ok(()) => match start_container(options).await {
            Ok(pg) => return Ok(pg),
            Err(err) => tried.push(format!("testcontainers {}: {err}", options.image)),
        },
        Err(why) => tried.push(format!("testcontainers {}: {why}", options.image)),
    }

    match find_bin_dir(options.path.as_deref(), &options.system_bin_root) {
        Some(bin_dir) => match start_cluster(options, bin_dir.clone()).await {
            Ok(pg) => {
                tracing::info!("{}", tried.join("; "));
                return Ok(pg);
            }
            Err(err) => tried.push(format!("ephemeral cluster ({}): {err}", bin_dir.display())),
        },
        None => tried.push("ephemeral cluster: no PostgreSQL server binaries found".to_owned()),
    }
    Err(Error::NoProvider { image: options.image.clone(), tried: tried.join("; ") })
}

fn docker_has_image(options: &Options) -> Result<(), String> {
    let engine = DockerEngine::from_docker_host(options.docker_host.as_deref())
        .ok_or_else(|| "DOCKER_HOST uses a scheme this probe does not speak".to_owned())?;
    engine.ping()?;
    if engine.has_image(&options.image)? {
        Ok(())
    } else {
        Err(format!(
            "the Docker engine answers but has no image {} and no registry can be assumed \
             (build it with `cargo xtask pg-image`)",
            options.image
        ))
    }
}

async fn start_container(options: &Options) -> Result<Postgres> {
    let image_err = |detail: String| Error::Container { image: options.image.clone(), detail };
    let (name, tag) = split_image(&options.image);
    let container = PostgresImage::default()
        .with_db_name(&options.database)
        .with_name(name)
        .with_tag(tag)
        // pg_stat_statements ships with both the official and the local image; the injection
        // tests read it. Every test makes a database of its own, so the table is sized for a
        // whole run: an entry evicted mid-test would hide a statement from the check.
        .with_cmd([
            "-c",
            "fsync=off",
            "-c",
            "max_connections=300",
            "-c",
            "shared_preload_libraries=pg_stat_statements",
            "-c",
            "pg_stat_statements.max=50000",
        ])
        .with_startup_timeout(Duration::from_secs(120))
        .start()
        .await
        .map_err(|err| image_err(err.to_string()))?;
    let host = container.get_host().await.map_err(|err| image_err(err.to_string()))?;
    let port =
        container.get_host_port_ipv4(5432).await.map_err(|err| image_err(err.to_string()))?;
    let url = format!("postgres://postgres:postgres@{host}:{port}/{}", options.database);
    let pg = Postgres {
        url,
        provider: Provider::Container { image: options.image.clone() },
        running: Running::Container(Box::new(container)),
    };
    if let Err(err) = wait_until_ready(&pg.url).await {
        let _ = pg.stop().await;
        return Err(err);
    }
    Ok(pg)
}

async fn start_cluster(options: &Options, bin_dir: PathBuf) -> Result<Postgres> {
    let config =
        ClusterConfig { bin_dir: bin_dir.clone(), dir: None, fast_unsafe: true, tls: None };
    let cluster = tokio::task::spawn_blocking(move || Cluster::start(&config))
        .await
        .map_err(|err| Error::Command { program: "initdb".into(), detail: err.to_string() })??;
    let pg = Postgres {
        url: cluster.url(&options.database),
        provider: Provider::Cluster { bin_dir },
        running: Running::Cluster(Box::new(cluster)),
    };
    let admin =
        pg.url.rsplit_once('/').map(|(base, _)| format!("{base}/postgres")).unwrap_or_default();
    let create = async {
        let mut conn = connect(&admin).await?;
        let sql = format!("CREATE DATABASE \"{}\"", options.database.replace('"', "\"\""));
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .map_err(|err| connect_err(&admin, &err))?;
        Ok::<_, Error>(())
    };
    if let Err(err) = create.await {
        let _ = pg.stop().await;
        return Err(err);
    }
    Ok(pg)
}

/// Creates `database` on the server at `admin_url` (a URL of an existing database, such as
/// `postgres`) unless it exists.
pub async fn ensure_database(admin_url: &str, database: &str) -> Result<()> {
    let mut conn = connect(admin_url).await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(database)
            .fetch_one(&mut conn)
            .await
            .map_err(|err| connect_err(admin_url, &err))?;
    if !exists {
        let sql = format!("CREATE DATABASE \"{}\"", database.replace('"', "\"\""));
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .map_err(|err| connect_err(admin_url, &err))?;
    }
    Ok(())
}

/// Takes `pool`'s database away from every login, as a database that went down would be: no new
/// connection is accepted (`ALLOW_CONNECTIONS false`, set from the server's `postgres`
/// database, since a database cannot refuse its own session) and every open session of it is
/// ended, `pool`'s own included. For tests of what an application does without its database;
/// the database can only be dropped afterwards.
pub async fn take_database_away(pool: &sqlx::PgPool) -> Result<()> {
    let options = pool.connect_options();
    let database = options.get_database().unwrap_or("postgres").to_owned();
    let admin_options = options.as_ref().clone().database("postgres");
    let mut admin = sqlx::PgConnection::connect_with(&admin_options)
        .await
        .map_err(|err| connect_err("the postgres database", &err))?;
    let failed = |err: sqlx::Error| connect_err("the postgres database", &err);
    let sql =
        format!("ALTER DATABASE \"{}\" ALLOW_CONNECTIONS false", database.replace('"', "\"\""));
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&mut admin).await.map_err(failed)?;
    sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1")
        .bind(&database)
        .execute(&mut admin)
        .await
        .map_err(failed)?;
    pool.close().await;
    Ok(())
}

fn split_image(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (image, "latest"),
    }
}

async fn connect(url: &str) -> Result<sqlx::PgConnection> {
    sqlx::PgConnection::connect(url).await.map_err(|err| connect_err(url, &err))
}

fn connect_err(url: &str, err: &sqlx::Error) -> Error {
    Error::Connect { url: redact(url), detail: err.to_string() }
}

/// Waits up to 30 s for `SELECT 1` to succeed.
async fn wait_until_ready(url: &str) -> Result<()> {
    let mut last = None;
    for _ in 0..60 {
        match connect(url).await {
            Ok(mut conn) => match sqlx::query("SELECT 1").execute(&mut conn).await {
                Ok(_) => return Ok(()),
                Err(err) => last = Some(connect_err(url, &err)),
            },
            Err(err) => last = Some(err),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Err(last.unwrap_or_else(|| Error::Connect { url: redact(url), detail: "timed out".into() }))
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_image_names() {
        assert_eq!(split_image("planner-postgres:15"), ("planner-postgres", "15"));
        assert_eq!(split_image("postgres"), ("postgres", "latest"));
        assert_eq!(split_image("localhost:5000/pg"), ("localhost:5000/pg", "latest"));
        assert_eq!(split_image("localhost:5000/pg:15"), ("localhost:5000/pg", "15"));
    }

    /// A container removed underneath (404) is stopped already; any other failure is one.
    #[test]
    fn a_container_already_removed_is_stopped() {
        use testcontainers_modules::testcontainers::{
            TestcontainersError, bollard::errors::Error as Engine, core::error::ClientError,
        };
        let removal = |status_code: u16| {
            TestcontainersError::Client(ClientError::RemoveContainer(
                Engine::DockerResponseServerError {
                    status_code,
                    message: "no such container".into(),
                },
            ))
        };
        assert!(already_removed(&removal(404)));
        assert!(!already_removed(&removal(500)));
    }

    #[test]
    fn redacts_passwords() {
        assert_eq!(redact("postgres://u:secret@h:1/db"), "postgres://u:***@h:1/db");
        assert_eq!(redact("postgres://u@h:1/db"), "postgres://u@h:1/db");
    }

    #[tokio::test]
    async fn no_provider_is_a_clear_error_naming_the_three_ways() {
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            database_url: None,
            image: "planner-postgres:15".into(),
            docker_host: Some(format!("unix://{}/dead.sock", dir.path().display())),
            path: Some(dir.path().display().to_string()),
            system_bin_root: dir.path().to_path_buf(),
            database: "planner_test".into(),
        };
        let err = provide(&options).await.unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, Error::NoProvider { .. }), "{message}");
        assert!(message.contains("set DATABASE_URL"), "{message}");
        assert!(message.contains("cargo xtask pg-image"), "{message}");
        assert!(message.contains("postgresql-15"), "{message}");
        assert!(message.contains("dead.sock"), "{message}");
    }
}
