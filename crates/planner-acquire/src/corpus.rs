//! The documents searched by the `search` node: loaded from TOML, stored in PostgreSQL with a
//! `tsvector` index and ranked by `ts_rank_cd`, or held in memory with the same conjunctive
//! semantics (every query term must occur) for runs without a database.

use std::{borrow::Cow, path::Path};

use serde::Deserialize;
use sqlx::{PgPool, migrate::Migrator};

use crate::state::Hit;

/// The migrations of this crate (the documents table), embedded from
/// `crates/planner-acquire/migrations`, with their own bookkeeping table.
pub static MIGRATOR: Migrator =
    Migrator { table_name: Cow::Borrowed("_planner_acquire_migrations"), ..sqlx::migrate!() };

/// Most hits a search returns.
pub const HIT_LIMIT: i64 = 5;

/// One document.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// Unique id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Publisher.
    pub source: String,
    /// Text.
    pub body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusFile {
    document: Vec<Document>,
}

/// Why a corpus could not be loaded or searched.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a corpus.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The database failed.
    #[error("documents store: {0}")]
    Database(#[from] sqlx::Error),
}

/// Reads a corpus file: `[[document]]` tables with `id`, `title`, `source`, `body`.
///
/// # Errors
/// The file cannot be read, does not parse, or repeats an id.
pub fn load_documents(path: &Path) -> Result<Vec<Document>, CorpusError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|source| CorpusError::Read { path: name.clone(), source })?;
    parse_documents(&text, &name)
}

/// Parses a corpus; `origin` names it in errors.
///
/// # Errors
/// The text does not parse, or repeats an id.
pub fn parse_documents(text: &str, origin: &str) -> Result<Vec<Document>, CorpusError> {
    let name = origin.to_owned();
    let file: CorpusFile = toml::from_str(text)
        .map_err(|err| CorpusError::Invalid { path: name.clone(), message: err.to_string() })?;
    let mut ids: Vec<&str> = file.document.iter().map(|it| it.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|it| it[0] == it[1]) {
        return Err(CorpusError::Invalid {
            path: name,
            message: format!("duplicate id `{}`", pair[0]),
        });
    }
    Ok(file.document)
}

/// Inserts (or replaces) documents in the database, whose [`MIGRATOR`] has run.
///
/// # Errors
/// A database failure.
pub async fn store_documents(pool: &PgPool, documents: &[Document]) -> Result<(), CorpusError> {
    let mut tx = pool.begin().await?;
    for doc in documents {
        sqlx::query(
            "INSERT INTO acquire_documents (id, title, source, body) VALUES ($1, $2, $3, $4)
             ON CONFLICT (id) DO UPDATE SET title = $2, source = $3, body = $4",
        )
        .bind(&doc.id)
        .bind(&doc.title)
        .bind(&doc.source)
        .bind(&doc.body)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Where the documents are searched.
#[derive(Debug, Clone)]
pub enum Corpus {
    /// In this process: every query term must occur in the title or body (plural `s`
    /// ignored); ranked by occurrences, then id.
    Memory(Vec<Document>),
    /// PostgreSQL full-text search: `websearch_to_tsquery('english', …)` against the stored
    /// `tsvector`, ranked by `ts_rank_cd`, then id.
    Postgres(PgPool),
}

impl Corpus {
    /// The best hits for `query`, at most [`HIT_LIMIT`].
    ///
    /// # Errors
    /// A database failure.
    pub async fn search(&self, query: &str) -> Result<Vec<Hit>, CorpusError> {
        match self {
            Corpus::Memory(documents) => Ok(search_memory(documents, query)),
            Corpus::Postgres(pool) => {
                let rows: Vec<(String, String, String, String)> = sqlx::query_as(
                    "SELECT id, title, source, body
                     FROM acquire_documents, websearch_to_tsquery('english', $1) AS q
                     WHERE tsv @@ q
                     ORDER BY ts_rank_cd(tsv, q) DESC, id
                     LIMIT $2",
                )
                .bind(query)
                .bind(HIT_LIMIT)
                .fetch_all(pool)
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|(id, title, source, body)| Hit { id, title, source, body })
                    .collect())
            }
        }
    }
}

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "at", "by", "for", "from", "in", "is", "it", "of", "on", "or", "per", "the",
    "to", "with",
];

fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|it| !it.is_empty() && !STOPWORDS.contains(&it.as_str()))
        .map(|it| match it.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 => stem.to_owned(),
            _ => it,
        })
        .collect()
}

fn search_memory(documents: &[Document], query: &str) -> Vec<Hit> {
    let wanted = terms(query);
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut ranked: Vec<(usize, &Document)> = documents
        .iter()
        .filter_map(|doc| {
            let words = terms(&format!("{} {}", doc.title, doc.body));
            let counts: Vec<usize> =
                wanted.iter().map(|w| words.iter().filter(|it| *it == w).count()).collect();
            counts.iter().all(|it| *it > 0).then(|| (counts.iter().sum(), doc))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    ranked
        .into_iter()
        .take(HIT_LIMIT as usize)
        .map(|(_, doc)| Hit {
            id: doc.id.clone(),
            title: doc.title.clone(),
            source: doc.source.clone(),
            body: doc.body.clone(),
        })
        .collect()
}
