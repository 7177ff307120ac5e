//! `planner serve`: the HTTP API on DATABASE_URL or the embedded default database, until Ctrl-C
//! or SIGTERM; requests in flight finish before the database is closed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use planner_engine::{Engine, EngineConfig};
use planner_infer::{Catalog, ModelClient, ModelConfig, ModelNarrator, ModelProposer};
use planner_registry::Registry;
use planner_server::{AppState, ServerConfig};
use serde::Deserialize;

use crate::embedded::Database;

/// The flags of `planner serve`. Each is also read from its environment variable, then from the
/// `[serve]` table of the configuration file; flags win over the environment, which wins over
/// the file.
#[derive(Debug, Default, Args)]
pub(crate) struct ServeArgs {
    /// A TOML configuration file (default: config.toml in the data directory, when present).
    #[arg(long, value_name = "FILE", env = "PLANNER_CONFIG")]
    config: Option<PathBuf>,
    /// The address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "PLANNER_ADDR")]
    addr: Option<SocketAddr>,
    /// A registry file instead of the built-in reference registry.
    #[arg(long, value_name = "FILE", env = "PLANNER_REGISTRY")]
    registry: Option<PathBuf>,
    /// Requests to /v1/ in flight at once; more are shed with 503 [default: 64].
    #[arg(long, env = "PLANNER_MAX_IN_FLIGHT")]
    max_in_flight: Option<usize>,
    /// Seconds a /v1/ request may take before it is answered with 504 [default: 30].
    #[arg(long, env = "PLANNER_REQUEST_TIMEOUT")]
    request_timeout: Option<u64>,
    /// The largest request body accepted, in bytes (413 above) [default: 32768].
    #[arg(long, env = "PLANNER_MAX_BODY")]
    max_body: Option<usize>,
    /// Requests a minute per API key (429 with Retry-After above; 0 is no limit) [default: 120].
    #[arg(long, env = "PLANNER_KEY_RATE")]
    key_rate: Option<u32>,
    /// Requests a key may make at once before --key-rate applies [default: 30].
    #[arg(long, env = "PLANNER_KEY_BURST")]
    key_burst: Option<u32>,
    /// The PostgreSQL to use; without it, the embedded default database.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    /// A streaming replica of DATABASE_URL's database, read for the planes without tenant rows
    /// (market, graph) while it answers; tenant planes, threads, keys and the audit log stay on
    /// DATABASE_URL. Given as the runtime login's URL, or as any login's URL when
    /// PLANNER_RUNTIME_PASSWORD is set (the runtime login replaces it).
    #[arg(long, value_name = "URL", env = "PLANNER_READ_URL", hide_env_values = true)]
    read_url: Option<String>,
    /// The model server.
    #[command(flatten)]
    model: ModelFlags,
}

/// The model server's flags, shared by `planner serve` and `planner ask`.
#[derive(Debug, Default, Args)]
pub(crate) struct ModelFlags {
    /// An OpenAI-compatible model server for the proposer, its API base ending before
    /// /chat/completions (http://127.0.0.1:8000/v1); without it, the offline lexical proposer.
    /// When the server fails, is slow or replies garbage, the lexical proposer answers and the
    /// answer says so (`proposer_fallback`).
    #[arg(long, value_name = "URL", env = "PLANNER_MODEL_URL")]
    model_url: Option<String>,
    /// The model name sent to the model server [default: default].
    #[arg(long, env = "PLANNER_MODEL")]
    model: Option<String>,
    /// The environment variable holding the model server's API key, if it needs one.
    #[arg(long, value_name = "VAR", env = "PLANNER_MODEL_KEY_ENV")]
    model_key_env: Option<String>,
    /// Seconds the model server may take before the lexical proposer answers [default: 10].
    #[arg(long, env = "PLANNER_MODEL_TIMEOUT")]
    model_timeout: Option<u64>,
    /// Proposals asked of the model server per question (K). With K > 1 each is sampled at
    /// --sample-temperature and only intents in a majority of them run; when they share no
    /// majority the lexical proposer plans (`proposer_error: no_majority`) [default: 3].
    #[arg(long, value_name = "K", env = "PLANNER_SAMPLES",
          value_parser = clap::value_parser!(u32).range(1..=15))]
    samples: Option<u32>,
    /// The sampling temperature of each of K > 1 proposals [default: 0.7].
    #[arg(long, value_name = "T", env = "PLANNER_SAMPLE_TEMPERATURE")]
    sample_temperature: Option<f32>,
    /// Who writes the answer's text: `template` (deterministic) or `model` (the model server
    /// of --model-url; its text ships only when the faithfulness gate passes it, else the
    /// template's does and the answer's `gate` says why) [default: template].
    #[arg(long, value_enum, env = "PLANNER_NARRATOR")]
    narrator: Option<NarratorKind>,
}

/// Who writes an answer's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NarratorKind {
    /// The deterministic template narrator.
    #[default]
    Template,
    /// The model server, behind the faithfulness gate.
    Model,
}

/// The model settings once flags and file are merged: the client's configuration (none for
/// the lexical proposer), K and the narrator.
#[derive(Debug, PartialEq)]
pub(crate) struct ModelSettings {
    config: Option<ModelConfig>,
    samples: usize,
    narrator: NarratorKind,
}

impl ModelFlags {
    /// These flags over the file's settings (`planner ask` passes an empty file).
    fn resolve(self, file: &ServeFile) -> ModelSettings {
        let file = file.clone();
        let config = self.model_url.or(file.model_url).map(|url| {
            let name = self.model.or(file.model).unwrap_or_else(|| "default".to_owned());
            let mut config = ModelConfig::with_defaults(&url, &name);
            config.api_key_env = self.model_key_env.or(file.model_key_env);
            config.timeout =
                Duration::from_secs(self.model_timeout.or(file.model_timeout).unwrap_or(10));
            if let Some(temperature) = self.sample_temperature.or(file.sample_temperature) {
                config.sample_temperature = temperature;
            }
            config
        });
        let samples = self.samples.or(file.samples).map_or(3, |it| it as usize);
        let narrator = self.narrator.or(file.narrator).unwrap_or_default();
        ModelSettings { config, samples, narrator }
    }

    /// The engine's configuration over `registry` with these flags alone.
    pub(crate) fn engine_config(self, registry: Registry) -> anyhow::Result<EngineConfig> {
        engine_config(registry, self.resolve(&ServeFile::default()))
    }
}

/// The `[serve]` table of the configuration file: the same settings as the flags.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeFile {
    addr: Option<SocketAddr>,
    registry: Option<PathBuf>,
    max_in_flight: Option<usize>,
    request_timeout: Option<u64>,
    max_body: Option<usize>,
    key_rate: Option<u32>,
    key_burst: Option<u32>,
    database_url: Option<String>,
    read_url: Option<String>,
    model_url: Option<String>,
    model: Option<String>,
    model_key_env: Option<String>,
    model_timeout: Option<u64>,
    samples: Option<u32>,
    sample_temperature: Option<f32>,
    narrator: Option<NarratorKind>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    serve: ServeFile,
}

/// What `planner serve` runs with, once flags, environment and file are merged.
#[derive(Debug, PartialEq)]
struct Settings {
    addr: SocketAddr,
    registry: Option<PathBuf>,
    server: ServerConfig,
    database_url: Option<String>,
    read_url: Option<String>,
    model: ModelSettings,
}

/// Reads the configuration file: the one named, else config.toml in the data directory if
/// there is one, else none.
fn read_file(named: Option<&PathBuf>) -> anyhow::Result<ServeFile> {
    let path = match named {
        Some(path) => path.clone(),
        None => {
            let path = crate::embedded::data_dir().join("config.toml");
            if !path.exists() {
                return Ok(ServeFile::default());
            }
            path
        }
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    let file: ConfigFile =
        toml::from_str(&text).with_context(|| format!("in {}", path.display()))?;
    Ok(file.serve)
}

/// Flags (and environment, which clap has already folded in) over the file, over defaults.
fn resolve(args: ServeArgs, file: ServeFile) -> Settings {
    let defaults = ServerConfig::default();
    let model = args.model.resolve(&file);
    Settings {
        addr: args.addr.or(file.addr).unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8080))),
        registry: args.registry.or(file.registry),
        server: ServerConfig {
            max_body_bytes: args.max_body.or(file.max_body).unwrap_or(defaults.max_body_bytes),
            max_in_flight: args
                .max_in_flight
                .or(file.max_in_flight)
                .unwrap_or(defaults.max_in_flight),
            request_timeout: args
                .request_timeout
                .or(file.request_timeout)
                .map_or(defaults.request_timeout, Duration::from_secs),
            key_requests_per_minute: args
                .key_rate
                .or(file.key_rate)
                .unwrap_or(defaults.key_requests_per_minute),
            key_burst: args.key_burst.or(file.key_burst).unwrap_or(defaults.key_burst),
            ..defaults
        },
        model,
        database_url: args.database_url.or(file.database_url),
        read_url: args.read_url.or(file.read_url),
    }
}

/// The engine's configuration: the registry, the model proposer asked for K samples when
/// one is configured (its timeout is also the engine's proposer timeout), and the model
/// narrator when asked for (which needs the model server).
fn engine_config(registry: Registry, model: ModelSettings) -> anyhow::Result<EngineConfig> {
    let mut config = EngineConfig::new(registry);
    config.samples = model.samples;
    let narrator = model.narrator;
    if narrator == NarratorKind::Model && model.config.is_none() {
        anyhow::bail!(
            "--narrator model needs a model server: add --model-url URL (or set \
             PLANNER_MODEL_URL), or use --narrator template"
        );
    }
    if let Some(model) = model.config {
        config.proposer_timeout = model.timeout;
        let key = model.api_key(|name| std::env::var(name).ok());
        let client =
            ModelClient::new(model.clone(), key.clone()).context("configuring the model server")?;
        let catalog = Catalog::from_registry(&config.registry);
        config.proposer = Some(Arc::new(ModelProposer::new(client, &catalog)));
        if narrator == NarratorKind::Model {
            let client = ModelClient::new(model, key).context("configuring the model server")?;
            config.narrator = Some(Arc::new(ModelNarrator::new(client)));
        }
    }
    Ok(config)
}

/// Resolves when the process is asked to stop (Ctrl-C, or SIGTERM on Unix).
async fn stop_requested() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let file = read_file(args.config.as_ref())?;
    let settings = resolve(args, file);
    let registry = crate::load_registry(settings.registry.as_ref())?;
    let listener = tokio::net::TcpListener::bind(settings.addr)
        .await
        .with_context(|| format!("cannot listen on {}", settings.addr))?;
    let mut config = engine_config(registry, settings.model)?;
    // A request waits for a pooled connection at most half its time limit (5 s at most): with
    // the database gone, it fails with 503 inside the limit instead of running into it.
    let acquire = (settings.server.request_timeout / 2)
        .clamp(Duration::from_millis(100), Duration::from_secs(5));
    let database = Database::open_with(settings.database_url.as_deref(), Some(acquire)).await?;
    let pool = database.pool().clone();
    if let Some(url) = &settings.read_url {
        if database.is_embedded() {
            anyhow::bail!(
                "--read-url names a replica of DATABASE_URL's database, and DATABASE_URL is not \
                 set: set it to the replica's primary"
            );
        }
        config.replica = Some(crate::embedded::replica_pool(url, pool.options())?);
    }
    let engine = Engine::new(config, pool.clone());
    let router = planner_server::app(AppState::new(engine, pool, settings.server));
    let addr = listener.local_addr()?;
    tracing::info!(
        %addr,
        database = if database.is_embedded() { "embedded" } else { "DATABASE_URL" },
        "serving on http://{addr}; Ctrl-C stops"
    );
    let served = planner_server::serve(listener, router, stop_requested()).await;
    tracing::info!("stopped; requests in flight finished");
    database.close().await?;
    served.context("the server failed")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    //! Precedence: flags (with the environment folded in by clap) over the file over defaults.

    use std::time::Duration;

    use super::{ConfigFile, ServeArgs, ServeFile, resolve};

    #[test]
    fn flags_win_over_the_file_which_wins_over_defaults() {
        let file: ConfigFile = toml::from_str(
            "[serve]\naddr = \"0.0.0.0:9000\"\nmax_in_flight = 8\nrequest_timeout = 5\n",
        )
        .unwrap();
        let args = ServeArgs { max_in_flight: Some(2), ..ServeArgs::default() };
        let settings = resolve(args, file.serve);
        assert_eq!(settings.addr.to_string(), "0.0.0.0:9000");
        assert_eq!(settings.server.max_in_flight, 2);
        assert_eq!(settings.server.request_timeout, Duration::from_secs(5));
        assert_eq!(settings.server.max_body_bytes, 32 * 1024);
        let defaults = resolve(ServeArgs::default(), ServeFile::default());
        assert_eq!(defaults.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(defaults.database_url, None);
    }

    #[test]
    fn samples_and_their_temperature_come_from_flags_or_the_file() {
        let file: ConfigFile = toml::from_str(
            "[serve]\nmodel_url = \"http://127.0.0.1:9/v1\"\nsamples = 5\nsample_temperature = 0.9\n",
        )
        .unwrap();
        let settings = resolve(ServeArgs::default(), file.serve.clone());
        assert_eq!(settings.model.samples, 5);
        let config = settings.model.config.unwrap();
        assert!((config.sample_temperature - 0.9).abs() < f32::EPSILON);
        let flags = super::ModelFlags { samples: Some(1), ..super::ModelFlags::default() };
        let settings = resolve(ServeArgs { model: flags, ..ServeArgs::default() }, file.serve);
        assert_eq!(settings.model.samples, 1);
        let defaults = resolve(ServeArgs::default(), ServeFile::default());
        assert_eq!((defaults.model.samples, defaults.model.config), (3, None));
        let model = super::ModelFlags {
            model_url: Some("http://127.0.0.1:9/v1".to_owned()),
            ..super::ModelFlags::default()
        };
        let config = model.resolve(&ServeFile::default()).config.unwrap();
        assert!((config.sample_temperature - 0.7).abs() < f32::EPSILON, "the default is 0.7");
    }

    #[test]
    fn the_model_narrator_needs_a_model_server() {
        let registry = || crate::load_registry(None).unwrap();
        let flags = |url: Option<&str>, narrator| super::ModelFlags {
            model_url: url.map(str::to_owned),
            narrator,
            ..super::ModelFlags::default()
        };
        let err = flags(None, Some(super::NarratorKind::Model))
            .engine_config(registry())
            .unwrap_err()
            .to_string();
        assert!(err.contains("--narrator model needs a model server"), "{err}");
        assert!(err.contains("--model-url"), "the error names the fix: {err}");
        let config = flags(Some("http://127.0.0.1:9/v1"), Some(super::NarratorKind::Model))
            .engine_config(registry())
            .unwrap();
        assert!(config.narrator.is_some(), "the model narrator is configured");
        let config = flags(Some("http://127.0.0.1:9/v1"), None).engine_config(registry()).unwrap();
        assert!(config.narrator.is_none(), "the template narrator is the default");
        let file: ConfigFile = toml::from_str("[serve]\nnarrator = \"model\"\n").unwrap();
        let settings = resolve(ServeArgs::default(), file.serve);
        assert_eq!(settings.model.narrator, super::NarratorKind::Model);
    }

    #[test]
    fn unknown_settings_in_the_file_are_errors() {
        let err = toml::from_str::<ConfigFile>("[serve]\nmax_inflight = 8\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `max_inflight`"), "{err}");
    }
}
