//! The bench corpus and the raw-SQL baseline: each question is planned once, and the statements
//! its answer executes (the registry intents of its plan, with the args the plan bound) are
//! resolved into concrete statements that run without the planner.
//!
//! An arg bound through an edge takes the value the upstream statement returns, exactly as the
//! engine binds it at run time: the upstream statement is run once while the corpus is prepared,
//! and a node whose upstream gives no single value is left out (the answer drops it too).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use planner_engine::{Planner, Route};
use planner_exec::{Bind, ExecRequest, Guard, PgPool, Reader, ResultTable, TenantId, WirePool};
use sqlx::AssertSqlSafe;

/// How the baseline runs a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RawPath {
    /// The guarded executor of every answer node (`planner_exec::execute`: read-only
    /// transaction, reader role, tenant and statement timeout set locally, suppression), with no
    /// planning, graph, checkpoint, narration or audit.
    Guarded,
    /// The statement alone through sqlx as the owner login: no transaction, no role switch, no
    /// tenant setting, no suppression.
    Sqlx,
    /// No baseline.
    None,
}

impl RawPath {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RawPath::Guarded => "guarded",
            RawPath::Sqlx => "sqlx",
            RawPath::None => "none",
        }
    }
}

/// Which questions of the corpus to use (after planning them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Only {
    /// Every question that plans to at least one statement.
    All,
    /// Single-intent questions: the single route with one node (a composite named outright
    /// takes the single route with several nodes and is left out).
    Single,
    /// Questions whose plan has two nodes or more.
    Compound,
}

/// One statement of an answer, ready to run.
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    /// The intent.
    pub(crate) intent: String,
    sql: Arc<str>,
    binds: Vec<Bind>,
    reader: Reader,
    guard: Guard,
}

/// A corpus question with the statements its answer executes, in dependency waves.
#[derive(Debug, Clone)]
pub(crate) struct BenchQuestion {
    pub(crate) question: String,
    pub(crate) route: Route,
    /// Nodes in the plan.
    pub(crate) nodes: usize,
    /// The statements, grouped in the waves the engine runs them in (each wave concurrently).
    pub(crate) waves: Vec<Vec<Statement>>,
}

impl BenchQuestion {
    pub(crate) fn statements(&self) -> impl Iterator<Item = &Statement> {
        self.waves.iter().flatten()
    }
}

/// The questions of a corpus file: JSONL in the eval format (the `question` field of each line),
/// or plain text with one question a line.
pub(crate) fn read_corpus(text: &str, origin: &str) -> anyhow::Result<Vec<String>> {
    let mut questions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('{') {
            let value: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{origin}:{}: not a JSON object", number + 1))?;
            let Some(question) = value["question"].as_str() else {
                anyhow::bail!("{origin}:{}: the line has no \"question\" string", number + 1);
            };
            questions.push(question.to_owned());
        } else {
            questions.push(line.to_owned());
        }
    }
    if questions.is_empty() {
        anyhow::bail!("{origin}: the corpus has no question");
    }
    Ok(questions)
}

/// Plans every question and resolves its statements; questions whose route runs no statement
/// (clarify, refused, unplannable) or that `only` excludes are counted in the second value, by
/// route.
pub(crate) async fn prepare(
    planner: &Planner,
    pool: Option<&WirePool>,
    questions: &[String],
    scopes: &[String],
    tenant: Option<TenantId>,
    only: Only,
) -> anyhow::Result<(Vec<BenchQuestion>, BTreeMap<String, usize>)> {
    let registry = planner.registry();
    let mut prepared = Vec::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for question in questions {
        planner_engine::check_input(question)
            .with_context(|| format!("corpus question {question:?}"))?;
        let planning = planner.plan(question, &[], scopes, true).await;
        let plan = &planning.validation.plan;
        let runnable = matches!(planning.route, Route::Single | Route::Plan)
            && !plan.nodes.is_empty()
            && match only {
                Only::All => true,
                Only::Single => planning.route == Route::Single && plan.nodes.len() == 1,
                Only::Compound => plan.nodes.len() >= 2,
            };
        if !runnable {
            *skipped.entry(planning.route.as_str().to_owned()).or_default() += 1;
            continue;
        }
        let mut results: Vec<Option<ResultTable>> = vec![None; plan.nodes.len()];
        let mut waves = Vec::new();
        for level in planner_engine::waves(plan) {
            let mut wave = Vec::new();
            for index in level {
                let intent = registry.intent(plan.nodes[index].intent);
                let Some(query) = intent.query() else { continue };
                // A node the engine could not bind is dropped from the answer; so it is here.
                let Ok(binds) = planner_engine::node_binds(registry, plan, index, |from| {
                    results.get(from).and_then(Option::as_ref)
                }) else {
                    continue;
                };
                let guard = Guard::for_query(query);
                let statement = Statement {
                    intent: intent.name.clone(),
                    sql: Arc::from(query.sql.as_str()),
                    binds,
                    reader: Reader::for_plane(registry.plane(query.plane)),
                    guard,
                };
                // Only a node that provides an edge needs its result while preparing.
                if let Some(pool) = pool
                    && plan.edges.iter().any(|e| e.from == index)
                {
                    let table = run_guarded(pool, &statement, tenant)
                        .await
                        .with_context(|| format!("running {} for {question:?}", intent.name))?;
                    results[index] = Some(table);
                }
                wave.push(statement);
            }
            if !wave.is_empty() {
                waves.push(wave);
            }
        }
        prepared.push(BenchQuestion {
            question: question.clone(),
            route: planning.route,
            nodes: plan.nodes.len(),
            waves,
        });
    }
    Ok((prepared, skipped))
}

/// The statement timeout of the baseline, the engine's default.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);

async fn run_guarded(
    pool: &WirePool,
    statement: &Statement,
    tenant: Option<TenantId>,
) -> Result<ResultTable, planner_exec::Error> {
    let request = ExecRequest {
        sql: &statement.sql,
        binds: &statement.binds,
        tenant,
        reader: statement.reader,
        timeout: STATEMENT_TIMEOUT,
        guard: statement.guard.clone(),
    };
    planner_exec::execute(pool, &request).await
}

/// Runs one statement by `path`; the number of rows, or the kind of error.
pub(crate) async fn run_statement(
    pool: &PgPool,
    wire: &WirePool,
    statement: &Statement,
    tenant: Option<TenantId>,
    path: RawPath,
) -> Result<usize, String> {
    match path {
        RawPath::Guarded | RawPath::None => run_guarded(wire, statement, tenant)
            .await
            .map(|table| table.rows.len())
            .map_err(|err| exec_error_kind(&err)),
        RawPath::Sqlx => {
            let mut query = sqlx::query(AssertSqlSafe(Arc::clone(&statement.sql)));
            for bind in &statement.binds {
                query = match bind {
                    Bind::Uuid(uuid) => query.bind(*uuid),
                    Bind::Text(text) => query.bind(text.clone()),
                    Bind::Int(n) => query.bind(*n),
                    Bind::TextList(items) => query.bind(items.clone()),
                };
            }
            let rows = tokio::time::timeout(STATEMENT_TIMEOUT, query.fetch_all(pool))
                .await
                .map_err(|_| "timeout".to_owned())?
                .map_err(|err| match err {
                    sqlx::Error::PoolTimedOut => "pool_timeout".to_owned(),
                    sqlx::Error::Database(_) => "database".to_owned(),
                    sqlx::Error::Io(_) => "io".to_owned(),
                    _ => "sqlx".to_owned(),
                })?;
            Ok(rows.len())
        }
    }
}

fn exec_error_kind(err: &planner_exec::Error) -> String {
    // The Debug name of the variant, without its fields: a stable, short kind.
    let text = format!("{err:?}");
    let end = text.find(|c: char| !c.is_alphanumeric()).unwrap_or(text.len());
    format!("exec_{}", text[..end].to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_reads_jsonl_and_plain_lines() {
        let text = "{\"id\": \"a\", \"question\": \"one?\"}\n\n# comment\ntwo?\n";
        assert_eq!(read_corpus(text, "c").unwrap(), ["one?", "two?"]);
    }

    #[test]
    fn corpus_errors_name_the_line() {
        let err = read_corpus("ok?\n{\"id\": 1}\n", "c.jsonl").unwrap_err().to_string();
        assert!(err.contains("c.jsonl:2"), "{err}");
        let err = read_corpus("\n# only a comment\n", "c.txt").unwrap_err().to_string();
        assert!(err.contains("no question"), "{err}");
    }
}
