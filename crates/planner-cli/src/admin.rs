//! `planner keys`, `planner registry check` and `planner db`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Subcommand;
use planner_exec::{ApiKeyId, TenantId};

use crate::embedded::{Database, embedded_dir};

/// `planner keys ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Create a key and print it (the only time it is shown).
    Create {
        /// The tenant: its UUID or its name (a demo tenant's or one created before).
        #[arg(long)]
        tenant: String,
        /// Create the tenant named by `--tenant` (which must not exist yet): a name that matches
        /// no tenant is an error without it, so a misspelt name never creates one.
        #[arg(long)]
        new_tenant: bool,
        /// The key's scopes (repeatable; `bench` to see bench counts).
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
    },
    /// Revoke a key by its id.
    Revoke {
        /// The key's id (printed by `keys create`).
        id: String,
    },
}

/// `planner registry ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RegistryCommand {
    /// Load a registry file and list every problem with its location; exit 1 when there is one.
    Check {
        /// The registry file (TOML).
        file: PathBuf,
    },
}

/// `planner db ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum DbCommand {
    /// Which database, whether it is reachable, and what it holds.
    Status,
    /// Apply the migrations as the owner (DATABASE_URL, or PLANNER_OWNER_URL), creating the
    /// roles; `planner_app` gets a password with PLANNER_RUNTIME_PASSWORD when it is set.
    Migrate,
    /// Load the demo dataset (into an empty database).
    Seed {
        /// The dataset's scale (1 is the demo size).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
    },
    /// Drop everything in the database, migrate it and load the demo dataset again.
    Reset {
        /// The dataset's scale (1 is the demo size).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Required with DATABASE_URL: the database named there is emptied.
        #[arg(long)]
        yes: bool,
    },
}

pub(crate) async fn keys(command: KeysCommand, url: Option<&str>) -> anyhow::Result<ExitCode> {
    let database = Database::open_admin(url).await?;
    let result = async {
        let pool = database.owner()?;
        match command {
            KeysCommand::Create { tenant, new_tenant, scopes } => {
                let existing = match tenant.parse::<uuid::Uuid>() {
                    Ok(id) => Some(TenantId(id)),
                    Err(_) => planner_exec::find_tenant(pool, &tenant).await?,
                };
                let tenant_id = match (existing, new_tenant) {
                    (Some(id), false) => id,
                    (Some(id), true) => {
                        bail!("tenant {tenant:?} exists ({}); drop --new-tenant", id.0)
                    }
                    (None, true) => {
                        let id = planner_exec::create_tenant(pool, &tenant).await?;
                        outln!("created tenant {:?}: {}", tenant, id.0);
                        id
                    }
                    (None, false) => bail!(
                        "no tenant is named {tenant:?}; check the name, or pass --new-tenant to \
                         create it"
                    ),
                };
                let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
                let key = planner_exec::create_api_key(pool, tenant_id, &scopes)
                    .await
                    .with_context(|| format!("cannot create a key for tenant {}", tenant_id.0))?;
                outln!("key id: {}", key.id.0);
                outln!("tenant: {}", tenant_id.0);
                outln!("scopes: {}", scopes.join(", "));
                outln!("key (shown only now; store it): {}", key.secret);
                Ok(ExitCode::SUCCESS)
            }
            KeysCommand::Revoke { id } => {
                let id: uuid::Uuid =
                    id.parse().with_context(|| format!("{id} is not a key id (a UUID)"))?;
                if planner_exec::revoke_api_key(pool, ApiKeyId(id)).await? {
                    outln!("revoked key {id}");
                    Ok(ExitCode::SUCCESS)
                } else {
                    outln!("no live key {id}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
    }
    .await;
    database.close().await?;
    result
}

pub(crate) fn registry(command: RegistryCommand) -> anyhow::Result<ExitCode> {
    Ok(match command {
        RegistryCommand::Check { file } => {
            let origin = file.display().to_string();
            let text = match std::fs::read_to_string(&file) {
                Ok(text) => text,
                Err(err) => {
                    outln!("{origin}: cannot read the file: {err}");
                    return Ok(ExitCode::FAILURE);
                }
            };
            match crate::registry_from_file(&text, &file) {
                Ok(registry) => {
                    let kinds = match registry.kinds().len() {
                        0 => String::new(),
                        n => format!(", {n} declared kinds"),
                    };
                    outln!(
                        "{origin}: ok ({} intents, {} params, {} planes{kinds})",
                        registry.len(),
                        registry.params().len(),
                        registry.planes().len()
                    );
                    for warning in planner_engine::workforce_warnings(&registry) {
                        // The intent's `name = "..."` line, where the file has it.
                        let name = warning.split('`').nth(1).unwrap_or("");
                        let line = text
                            .lines()
                            .position(|line| line.trim() == format!("name = \"{name}\""))
                            .map_or(String::new(), |at| format!("{}:", at + 1));
                        outln!("{origin}:{line} warning: {warning}");
                    }
                    ExitCode::SUCCESS
                }
                Err(err) => {
                    for problem in err.located() {
                        outln!("{problem}");
                    }
                    outln!("{origin}: {} problem(s)", err.problems().len());
                    ExitCode::FAILURE
                }
            }
        }
    })
}

/// The schemas outside the planner's own (a team's own data), each with its count of tables,
/// by name.
async fn own_schemas(pool: &planner_exec::PgPool) -> anyhow::Result<Vec<(String, i64)>> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT n.nspname::text, count(c.oid) \
         FROM pg_namespace AS n \
         LEFT JOIN pg_class AS c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm') \
              AND c.relname NOT IN ('planner_graph_checkpoints', '_sqlx_migrations') \
         WHERE n.nspname NOT IN ('market', 'graph', 'capture', 'bench', 'admin', 'audit', 'eeo', \
                                 'information_schema') \
           AND n.nspname NOT LIKE 'pg\\_%' \
         GROUP BY n.nspname HAVING n.nspname <> 'public' OR count(c.oid) > 0 \
         ORDER BY n.nspname",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

async fn count(pool: &planner_exec::PgPool, sql: &'static str) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(sql).fetch_one(pool).await?)
}

/// Drops every schema but the system ones, and recreates `public`.
async fn empty(pool: &planner_exec::PgPool) -> anyhow::Result<()> {
    let schemas: Vec<String> = sqlx::query_scalar(
        "SELECT nspname::text FROM pg_namespace \
         WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1",
    )
    .fetch_all(pool)
    .await?;
    for schema in schemas {
        let quoted = format!("\"{}\"", schema.replace('"', "\"\""));
        // The name is quoted as an identifier (doubled quotes), and comes from the catalog.
        let statement = sqlx::AssertSqlSafe(format!("DROP SCHEMA {quoted} CASCADE"));
        sqlx::raw_sql(statement).execute(pool).await?;
    }
    sqlx::raw_sql("CREATE SCHEMA public").execute(pool).await?;
    Ok(())
}

pub(crate) async fn db(command: DbCommand, url: Option<&str>) -> anyhow::Result<ExitCode> {
    if let DbCommand::Reset { yes: false, .. } = command
        && url.is_some()
    {
        anyhow::bail!("`db reset` empties the database named by DATABASE_URL: add --yes");
    }
    let database = match command {
        // A status changes nothing: it reads what is there.
        DbCommand::Status => Database::connect_inspect(url).await?,
        _ => Database::connect_admin(url).await?,
    };
    let result = async {
        let pool = database.owner()?;
        match command {
            DbCommand::Migrate => {
                // Connecting as the owner migrated already.
                if let Some(password) =
                    std::env::var("PLANNER_RUNTIME_PASSWORD").ok().filter(|it| !it.is_empty())
                {
                    planner_exec::enable_runtime_login(pool, &password).await?;
                    outln!("migrated; {} may log in", planner_exec::RUNTIME_LOGIN);
                } else {
                    outln!(
                        "migrated; {} has no password yet (set PLANNER_RUNTIME_PASSWORD, or \
                         ALTER ROLE {} LOGIN PASSWORD ...)",
                        planner_exec::RUNTIME_LOGIN,
                        planner_exec::RUNTIME_LOGIN
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            DbCommand::Status => {
                if database.is_embedded() {
                    outln!("database: embedded, in {}", embedded_dir().display());
                } else {
                    outln!("database: DATABASE_URL");
                }
                let exists = |table: &'static str| async move {
                    let found: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
                        .bind(table)
                        .fetch_one(pool)
                        .await?;
                    anyhow::Ok(found)
                };
                if !exists("admin.tenant").await? {
                    outln!(
                        "reachable: yes; migrated: no (`planner db migrate` creates planner's \
                         schemas and roles)"
                    );
                    for (schema, tables) in own_schemas(pool).await? {
                        outln!("schema {schema}: {tables} table(s)");
                    }
                    return Ok(ExitCode::SUCCESS);
                }
                outln!("reachable: yes; migrated: yes");
                for (label, sql) in [
                    ("tenants", "SELECT count(*) FROM admin.tenant"),
                    (
                        "live API keys",
                        "SELECT count(*) FROM admin.api_key WHERE revoked_at IS NULL",
                    ),
                    ("threads kept", "SELECT count(*) FROM admin.thread"),
                ] {
                    outln!("{label}: {}", count(pool, sql).await?);
                }
                let awards = if exists("market.award").await? {
                    count(pool, "SELECT count(*) FROM market.award").await?
                } else {
                    0
                };
                if awards == 0 {
                    outln!("demo dataset: not loaded");
                } else {
                    outln!("demo dataset: loaded ({awards} awards)");
                }
                for (schema, tables) in own_schemas(pool).await? {
                    outln!("schema {schema}: {tables} table(s)");
                }
                Ok(ExitCode::SUCCESS)
            }
            DbCommand::Seed { scale } => match database.seed(scale).await? {
                Ok(report) => {
                    outln!("loaded the demo dataset: {report:?}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(planner_dataset::Error::AlreadySeeded) => {
                    outln!("the database already holds data; `planner db reset` starts over");
                    Ok(ExitCode::FAILURE)
                }
                Err(err) => Err(err).context("loading the demo dataset"),
            },
            DbCommand::Reset { scale, .. } => {
                empty(pool).await?;
                planner_engine::migrate(pool).await?;
                let report = database.seed(scale).await?.context("loading the demo dataset")?;
                outln!("reset; loaded the demo dataset: {report:?}");
                Ok(ExitCode::SUCCESS)
            }
        }
    }
    .await;
    database.close().await?;
    result
}
