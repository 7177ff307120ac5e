//! Running a validated plan: nodes in dependency waves, concurrently (bounded), each through its
//! plane's guarded executor; upstream values flow through typed edges; a failed or timed-out node
//! is dropped with its reason; a whole-answer deadline returns what finished.
//!
//! Fan-out: when an edge's upstream column gives several distinct values, the receiving node
//! runs once per value (each bound through the same check a question's value passes,
//! `planner_grammar::accepts`), in the upstream's row order, up to the registry's `fan_out`
//! cap; its results are composed into one table (the runs' rows in that order, with a last
//! column naming each row's value when no column of its own shows it), and the values beyond
//! the cap are counted as left out. Args fed by one upstream node fan out together over its
//! distinct rows (a route's origin and destination from the same row: pairs, not every origin
//! with every destination). One upstream node fans out at a time: a node fed several values by
//! two upstream nodes is dropped with that reason, not run for their every combination.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use planner_exec::{
    Bind, Cell, Column, ColumnType, ExecRequest, Guard, Reader, ResultTable, TenantId,
};
use planner_grammar::{ArgSource, Plan};
use planner_registry::{ParamKind, Registry, Value, ValueShape};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::database::Database;

/// Limits of one plan run.
#[derive(Debug, Clone, Copy)]
pub struct RunLimits {
    /// Nodes running at once.
    pub concurrency: usize,
    /// Statement timeout of each node.
    pub node_timeout: Duration,
    /// The whole plan's deadline.
    pub deadline: Duration,
}

/// What bounds one plan run besides the plan: the limits, the node whose first run reads the
/// data's date beside its own statement, and the date when it was read before the run (a
/// relative period binds against it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunBounds<'a> {
    pub(crate) limits: RunLimits,
    pub(crate) as_of_with: Option<usize>,
    pub(crate) as_of: Option<&'a str>,
}

/// The outcome of one plan node.
#[derive(Debug, Clone)]
pub(crate) enum NodeOutcome {
    /// It ran (once per value when it fanned out: the runs' rows composed in one table).
    Ran(ResultTable, Option<FanOut>),
    /// It did not contribute: the reason.
    Dropped(String),
}

/// How a node fanned out over an upstream column's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FanOut {
    /// The upstream intent and column, `intent.column` (`a.x and a.y` for a row's columns).
    pub(crate) source: String,
    /// How many upstream columns each run binds (2 for a pair taken from one row).
    pub(crate) width: usize,
    /// The runs: one per value bound.
    pub(crate) runs: usize,
    /// The distinct values the column gave.
    pub(crate) values: usize,
    /// Values beyond the registry's cap, not run.
    pub(crate) left_out: usize,
    /// Values that did not fit the param (another kind's shape, or not among its values).
    pub(crate) unfit: usize,
}

/// The bind sets of one node: one per run.
struct BindSets {
    sets: Vec<Vec<Bind>>,
    fan_out: Option<FanOut>,
    /// When it fans out: each fanned param's name and the value each run binds, in run order.
    labels: Labels,
}

/// The params a node fanned out over, each with the value each run bound, in run order (empty
/// when it did not fan out).
type Labels = Vec<(String, Vec<Value>)>;

/// Why a node of a tenant plane did not run for a question asked for no tenant.
const NO_TENANT: &str = "its rows belong to a tenant, and the question was asked for none (ask \
     with `--tenant`, or with a tenant's API key)";

/// Runs every node of `plan`; the outcomes are in plan order. Node `as_of_with`, when given,
/// reads the registry's `as_of` date in its own transaction (same plane reader, same write), so
/// the date costs no statement of its own; the date is returned beside the outcomes.
pub(crate) async fn run_plan(
    registry: &Registry,
    database: &Database,
    plan: &Plan,
    tenant: Option<TenantId>,
    bounds: RunBounds<'_>,
) -> (Vec<NodeOutcome>, Option<String>) {
    let RunBounds { limits, as_of_with, as_of: known } = bounds;
    let as_of_sql = registry.as_of().map(|as_of| as_of.sql.as_str());
    let mut as_of = None;
    let deadline = Instant::now() + limits.deadline;
    let waves = waves(plan);
    let semaphore = Arc::new(Semaphore::new(limits.concurrency.max(1)));
    let mut outcomes: Vec<Option<NodeOutcome>> = vec![None; plan.nodes.len()];
    for wave in waves {
        let mut pending = Vec::new();
        let mut fan_outs: Vec<(usize, Option<FanOut>, Labels, usize)> = Vec::new();
        for index in wave {
            // Row-level security would show a tenant plane's rows to no tenant as no rows: say
            // why instead of answering "no rows".
            let plane = registry.intent(plan.nodes[index].intent).query().map(|q| q.plane);
            if tenant.is_none() && plane.is_some_and(|plane| registry.plane(plane).tenant) {
                outcomes[index] = Some(NodeOutcome::Dropped(NO_TENANT.to_owned()));
                continue;
            }
            match bind_sets(registry, plan, index, &outcomes, known) {
                Ok(BindSets { sets, fan_out, labels }) => {
                    fan_outs.push((index, fan_out, labels, sets.len()));
                    for binds in sets {
                        pending.push((index, binds));
                    }
                }
                Err(reason) => outcomes[index] = Some(NodeOutcome::Dropped(reason)),
            }
        }
        if Instant::now() >= deadline {
            // Past the deadline nothing more is started.
            for (index, _) in &pending {
                outcomes[*index] =
                    Some(NodeOutcome::Dropped("the answer's deadline passed first".to_owned()));
            }
            continue;
        }
        let mut carried = false;
        let runs = pending.iter().map(|(index, binds)| {
            let semaphore = Arc::clone(&semaphore);
            let intent = registry.intent(plan.nodes[*index].intent);
            // The date rides with the carrier's first run only.
            let carries = as_of_with == Some(*index) && !carried;
            carried |= carries;
            let also: Vec<&str> = as_of_sql.filter(|_| carries).into_iter().collect();
            async move {
                let Some(query) = intent.query() else {
                    return (Err("a composite cannot run by itself".to_owned()), None);
                };
                let guard = Guard::for_query(query);
                let request = ExecRequest {
                    sql: &query.sql,
                    binds,
                    tenant,
                    reader: Reader::for_plane(registry.plane(query.plane)),
                    timeout: limits.node_timeout,
                    guard,
                };
                let Ok(_permit) = semaphore.acquire().await else {
                    return (Err("the run was shut down".to_owned()), None);
                };
                match database.execute(&request, &also).await {
                    Ok((table, also)) => (Ok(table), also.into_iter().next()),
                    Err(err) => (Err(err.to_string()), None),
                }
            }
        });
        let finished = tokio::time::timeout_at(deadline, join_all(runs)).await;
        match finished {
            Ok(results) => {
                let mut results = results.into_iter();
                for (index, fan_out, labels, count) in fan_outs {
                    let mut tables: Vec<Result<ResultTable, String>> = Vec::with_capacity(count);
                    for (result, date) in results.by_ref().take(count) {
                        as_of = as_of.or(date.as_ref().and_then(date_of));
                        tables.push(result);
                    }
                    let composed = compose(tables, &labels);
                    outcomes[index] = Some(match composed {
                        Some(Ok(table)) => NodeOutcome::Ran(table, fan_out),
                        Some(Err(reason)) => NodeOutcome::Dropped(reason),
                        None => NodeOutcome::Dropped("it bound no value".to_owned()),
                    });
                }
            }
            Err(_) => {
                for (index, _) in &pending {
                    outcomes[*index] =
                        Some(NodeOutcome::Dropped("the answer's deadline passed first".to_owned()));
                }
            }
        }
    }
    let outcomes = outcomes
        .into_iter()
        .map(|it| {
            it.unwrap_or_else(|| {
                NodeOutcome::Dropped("the answer's deadline passed first".to_owned())
            })
        })
        .collect();
    (outcomes, as_of)
}

/// One table of a node's runs, their rows in run order; the first failure fails it. A node
/// that fanned out (`labels`: each fanned param and each run's value) whose rows do not show a
/// value they were run for (no column holds it in every row of its run) gets a last column,
/// named after the param, that does: which upstream value each row answers is never lost.
fn compose(
    tables: Vec<Result<ResultTable, String>>,
    labels: &Labels,
) -> Option<Result<ResultTable, String>> {
    let tables: Vec<ResultTable> = match tables.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(tables) => tables,
        Err(reason) => return Some(Err(reason)),
    };
    // Named after the param, or holding each run's value in every row of that run.
    let shown = |(name, values): &(String, Vec<Value>)| {
        let Some(first) = tables.first() else { return true };
        let holds = |column: usize| {
            tables.iter().zip(values).all(|(table, value)| {
                table.rows.iter().all(|row| {
                    row.get(column).and_then(cell_value).is_some_and(|cell| match (&cell, value) {
                        (Value::Text(a), Value::Text(b)) => a.eq_ignore_ascii_case(b),
                        _ => &cell == value,
                    })
                })
            })
        };
        first.columns.iter().any(|c| &c.name == name) || (0..first.columns.len()).any(holds)
    };
    let added: Vec<&(String, Vec<Value>)> =
        labels.iter().filter(|label| label.1.len() > 1 && !shown(label)).collect();
    let mut tables = tables.into_iter().enumerate();
    let (_, mut composed) = tables.next()?;
    for (name, values) in &added {
        composed.columns.push(Column { name: name.clone(), ty: column_type(&values[0]) });
    }
    let tag = |rows: &mut Vec<Vec<Cell>>, run: usize| {
        for (_, values) in &added {
            let cell = values.get(run).map_or(Cell::Null, value_cell);
            rows.iter_mut().for_each(|row| row.push(cell.clone()));
        }
    };
    tag(&mut composed.rows, 0);
    for (run, mut table) in tables {
        tag(&mut table.rows, run);
        composed.rows.extend(table.rows);
    }
    Some(Ok(composed))
}

/// The column type a bound value is shown as.
fn column_type(value: &Value) -> ColumnType {
    match value {
        Value::Int(_) => ColumnType::Int,
        Value::List(_) => ColumnType::TextList,
        _ => ColumnType::Text,
    }
}

/// A bound value as a cell.
fn value_cell(value: &Value) -> Cell {
    match value {
        Value::Int(n) => Cell::Int(*n),
        Value::List(items) => Cell::TextList(items.clone()),
        Value::Text(text) => Cell::Text(text.clone()),
    }
}

/// The node of the first wave that can carry the `as_of` read: the first whose plane reads as
/// the `as_of` plane's reader.
pub(crate) fn as_of_carrier(registry: &Registry, plan: &Plan) -> Option<usize> {
    let reader = Reader::for_plane(registry.plane(registry.as_of()?.plane));
    let first = waves(plan).into_iter().next()?;
    first.into_iter().find(|&index| {
        registry
            .intent(plan.nodes[index].intent)
            .query()
            .is_some_and(|query| Reader::for_plane(registry.plane(query.plane)) == reader)
    })
}

/// The date of an `as_of` result: its first cell, as `YYYY-MM-DD`.
fn date_of(table: &ResultTable) -> Option<String> {
    match table.rows.first().and_then(|row| row.first()) {
        Some(Cell::Date(date)) => Some(date.format("%Y-%m-%d").to_string()),
        Some(Cell::Timestamp(at)) => Some(at.format("%Y-%m-%d").to_string()),
        Some(Cell::LocalTimestamp(at)) => Some(at.format("%Y-%m-%d").to_string()),
        _ => None,
    }
}

/// The data's own "today" (`YYYY-MM-DD`), read by the registry's `as_of` query through its
/// plane's guarded path; `None` when the registry has none, or the query failed or returned no
/// date (the answer then states its windows without the date).
pub(crate) async fn read_as_of(
    registry: &Registry,
    database: &Database,
    tenant: Option<TenantId>,
    limits: RunLimits,
) -> Option<String> {
    let as_of = registry.as_of()?;
    let request = ExecRequest {
        sql: &as_of.sql,
        binds: &[],
        tenant,
        reader: Reader::for_plane(registry.plane(as_of.plane)),
        timeout: limits.node_timeout,
        guard: Guard::Rows,
    };
    match database.execute(&request, &[]).await {
        Ok((table, _)) => date_of(&table),
        Err(err) => {
            tracing::warn!(%err, "the data's as-of date could not be read");
            None
        }
    }
}

/// Node indexes grouped by dependency depth, each group in plan order: the waves the engine runs.
pub fn waves(plan: &Plan) -> Vec<Vec<usize>> {
    let mut depth = vec![0usize; plan.nodes.len()];
    for _ in 0..plan.nodes.len() {
        for edge in &plan.edges {
            if edge.from < depth.len()
                && edge.to < depth.len()
                && depth[edge.to] <= depth[edge.from]
            {
                depth[edge.to] = depth[edge.from] + 1;
            }
        }
    }
    let levels = depth.iter().copied().max().map_or(0, |it| it + 1);
    (0..levels)
        .map(|level| (0..plan.nodes.len()).filter(|&i| depth[i] == level).collect())
        .collect()
}

/// The bind sets of node `index`, one per run, or why it cannot run: edge-bound args whose
/// upstream gave several rows fan out over them (one upstream node at a time; args fed by the
/// same upstream node take their values from the same row), each value checked as a question's
/// would be, up to the registry's cap.
fn bind_sets(
    registry: &Registry,
    plan: &Plan,
    index: usize,
    outcomes: &[Option<NodeOutcome>],
    as_of: Option<&str>,
) -> Result<BindSets, String> {
    let node = &plan.nodes[index];
    let mut choices: Vec<Vec<Value>> = vec![Vec::new(); node.args.len()];
    // Each upstream node feeding this one, with the args it feeds and their columns.
    let mut feeds: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    for (position, arg) in node.args.iter().enumerate() {
        let ArgSource::Upstream(edge) = &arg.source else {
            choices[position] = plan_value(arg.kind, arg.source.value(), as_of)?;
            continue;
        };
        let edge =
            plan.edges.get(*edge).ok_or_else(|| "its upstream edge is missing".to_owned())?;
        match feeds.iter_mut().find(|(from, _)| *from == edge.from) {
            Some((_, fed)) => fed.push((position, edge.column)),
            None => feeds.push((edge.from, vec![(position, edge.column)])),
        }
    }
    let mut fan_out: Option<FanOut> = None;
    let mut fanned: &[(usize, usize)] = &[];
    for (from, fed) in &feeds {
        let rows = upstream_rows(registry, plan, index, *from, fed, outcomes)?;
        if rows.distinct > 1 {
            if let Some(other) = &fan_out {
                return Err(format!(
                    "{} and {} each gave several values: one list fans out at a time",
                    other.source, rows.source
                ));
            }
            let cap = registry.fan_out();
            if rows.fitting.len() > 1 && cap <= 1 {
                return Err(format!(
                    "{} gave {} values (the registry's fan_out is 1: one value only)",
                    rows.source,
                    rows.fitting.len()
                ));
            }
            let runs = rows.fitting.len().min(cap);
            fan_out = Some(FanOut {
                source: rows.source,
                width: fed.len(),
                runs,
                values: rows.distinct,
                left_out: rows.fitting.len() - runs,
                unfit: rows.distinct - rows.fitting.len(),
            });
            fanned = fed;
        }
        let runs = fan_out.as_ref().filter(|_| fanned == fed.as_slice()).map_or(1, |it| it.runs);
        for (column, (position, _)) in fed.iter().enumerate() {
            choices[*position] =
                rows.fitting.iter().take(runs).map(|row| row[column].clone()).collect();
        }
    }
    let labels: Labels = fanned
        .iter()
        .map(|(position, _)| {
            let param = registry.param(node.args[*position].param).name.clone();
            (param, choices[*position].clone())
        })
        .collect();
    let runs = fan_out.as_ref().map_or(1, |info| info.runs);
    let sets = bind_runs(registry, node, &choices, runs)?;
    Ok(BindSets { sets, fan_out, labels })
}

/// The typed binds of each of `runs` runs: run `i` binds each arg's `i`-th value, or its one
/// value when it does not fan out.
fn bind_runs(
    registry: &Registry,
    node: &planner_grammar::PlanNode,
    choices: &[Vec<Value>],
    runs: usize,
) -> Result<Vec<Vec<Bind>>, String> {
    (0..runs)
        .map(|run| {
            node.args
                .iter()
                .zip(choices)
                .map(|(arg, values)| {
                    let value = values.get(run).or_else(|| values.first()).ok_or_else(|| {
                        format!("{} has no value", registry.param(arg.param).name)
                    })?;
                    bind(arg.kind, value)
                })
                .collect()
        })
        .collect()
}

/// A plan value (given, or a default) as the run binds it: a relative period resolved against
/// the data's date.
fn plan_value(
    kind: ParamKind,
    value: Option<&Value>,
    as_of: Option<&str>,
) -> Result<Vec<Value>, String> {
    let value = match value {
        Some(value) if planner_registry::is_relative(value) => {
            let date = as_of.ok_or_else(|| {
                "the data's date, which its relative period is read against, could not be read"
                    .to_owned()
            })?;
            Some(
                planner_registry::resolve_period(value, date)
                    .ok_or_else(|| format!("a relative period of {kind} is malformed"))?,
            )
        }
        other => other.cloned(),
    };
    Ok(value.into_iter().collect())
}

/// What one upstream node's result offers the args it feeds.
struct UpstreamRows {
    /// `intent.column`, or `intent.column and intent.column` for several.
    source: String,
    /// The distinct rows of the fed columns (no null among them), in row order.
    distinct: usize,
    /// Those rows whose every value fits the arg it feeds, as values in `fed` order.
    fitting: Vec<Vec<Value>>,
}

/// The distinct rows upstream node `from` gives the args `fed` (arg position, column) of node
/// `index`, or why none can bind.
fn upstream_rows(
    registry: &Registry,
    plan: &Plan,
    index: usize,
    from: usize,
    fed: &[(usize, usize)],
    outcomes: &[Option<NodeOutcome>],
) -> Result<UpstreamRows, String> {
    let node = &plan.nodes[index];
    let upstream = registry.intent(plan.nodes[from].intent);
    let Some(Some(NodeOutcome::Ran(table, _))) = outcomes.get(from) else {
        return Err(format!("its upstream {} did not run", upstream.name));
    };
    let names: Vec<&str> = fed
        .iter()
        .map(|(_, column)| upstream.columns().get(*column).map_or("", |it| it.name.as_str()))
        .collect();
    let source = names
        .iter()
        .map(|column| format!("{}.{column}", upstream.name))
        .collect::<Vec<_>>()
        .join(" and ");
    let columns: Vec<Option<usize>> = names.iter().map(|name| table.column_index(name)).collect();
    let mut distinct: Vec<Vec<&Cell>> = Vec::new();
    for row in &table.rows {
        let cells: Option<Vec<&Cell>> = columns
            .iter()
            .map(|column| column.and_then(|c| row.get(c)).filter(|c| !matches!(c, Cell::Null)))
            .collect();
        if let Some(cells) = cells.filter(|cells| !distinct.contains(cells)) {
            distinct.push(cells);
        }
    }
    if distinct.is_empty() {
        return Err(format!("{source} gave no value"));
    }
    let typed: Vec<Vec<Value>> = distinct
        .iter()
        .filter_map(|cells| cells.iter().map(|cell| cell_value(cell)).collect())
        .collect();
    if typed.is_empty() {
        return Err(format!("{source} gave a value of the wrong type"));
    }
    let fits = |values: &Vec<Value>| {
        fed.iter().zip(values).all(|((position, _), value)| {
            let arg = &node.args[*position];
            planner_grammar::accepts(registry, arg.param, arg.kind, value)
        })
    };
    let fitting: Vec<Vec<Value>> = typed.into_iter().filter(fits).collect();
    if fitting.is_empty() {
        let params: Vec<&str> =
            fed.iter().map(|(p, _)| registry.param(node.args[*p].param).name.as_str()).collect();
        return Err(format!("{source} gave no value {} accepts", params.join(" and ")));
    }
    Ok(UpstreamRows { source, distinct: distinct.len(), fitting })
}

/// The typed binds of node `index` as the engine binds them, in placeholder order, or why it
/// cannot run: plan values and defaults as bound, an edge-bound arg from the single distinct value
/// of its upstream node's result (`upstream_result(node)`, `None` when that node did not run).
pub fn node_binds<'a>(
    registry: &Registry,
    plan: &Plan,
    index: usize,
    upstream_result: impl Fn(usize) -> Option<&'a ResultTable>,
) -> Result<Vec<Bind>, String> {
    let node = &plan.nodes[index];
    let mut binds = Vec::with_capacity(node.args.len());
    for arg in &node.args {
        let value = match &arg.source {
            ArgSource::Available(value) | ArgSource::Default(value) => value.clone(),
            ArgSource::Upstream(edge) => {
                let edge = plan
                    .edges
                    .get(*edge)
                    .ok_or_else(|| "its upstream edge is missing".to_owned())?;
                let from = &edge.from;
                let upstream = registry.intent(plan.nodes[*from].intent);
                let Some(table) = upstream_result(*from) else {
                    return Err(format!("its upstream {} did not run", upstream.name));
                };
                let column =
                    upstream.columns().get(edge.column).map(|it| it.name.as_str()).unwrap_or("");
                let values: Vec<&Cell> = table.distinct_values(column);
                match values.as_slice() {
                    [one] => cell_value(one).ok_or_else(|| {
                        format!("{}.{column} gave a value of the wrong type", upstream.name)
                    })?,
                    [] => return Err(format!("{}.{column} gave no value", upstream.name)),
                    many => {
                        return Err(format!(
                            "{}.{column} gave {} values",
                            upstream.name,
                            many.len()
                        ));
                    }
                }
            }
        };
        binds.push(bind(arg.kind, &value)?);
    }
    Ok(binds)
}

fn cell_value(cell: &Cell) -> Option<Value> {
    match cell {
        Cell::Text(text) => Some(Value::Text(text.clone())),
        Cell::Uuid(uuid) => Some(Value::Text(uuid.to_string())),
        Cell::Int(n) => Some(Value::Int(*n)),
        Cell::TextList(items) => Some(Value::List(items.clone())),
        // A day binds a `date` param as its ISO text (the shape the extractors give it).
        Cell::Date(day) => Some(Value::Text(day.format("%Y-%m-%d").to_string())),
        _ => None,
    }
}

fn bind(kind: ParamKind, value: &Value) -> Result<Bind, String> {
    Ok(match (kind.shape(), value) {
        (ValueShape::Uuid, Value::Text(text)) => {
            Bind::Uuid(uuid::Uuid::parse_str(text).map_err(|_| match kind {
                ParamKind::Uuid => "a requirement id is not a UUID".to_owned(),
                other => format!("a {other} value is not a UUID"),
            })?)
        }
        (ValueShape::Int, Value::Int(n)) => Bind::Int(*n),
        (_, Value::List(items)) => Bind::TextList(items.clone()),
        (_, Value::Text(text)) => Bind::Text(text.clone()),
        (_, Value::Int(n)) => Bind::Int(*n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn month_table(months: &[&str], broker: Option<&str>) -> ResultTable {
        let mut columns = vec![Column { name: "month".to_owned(), ty: ColumnType::Text }];
        if broker.is_some() {
            columns.push(Column { name: "broker_name".to_owned(), ty: ColumnType::Text });
        }
        let rows = months
            .iter()
            .map(|month| {
                let mut row = vec![Cell::Text((*month).to_owned())];
                row.extend(broker.map(|it| Cell::Text(it.to_owned())));
                row
            })
            .collect();
        ResultTable { columns, rows }
    }

    #[test]
    fn fanned_out_rows_say_which_value_they_answer() {
        let labels: Labels = vec![(
            "broker".to_owned(),
            vec![Value::Text("acme".into()), Value::Text("zenith".into())],
        )];
        // The runs' rows do not show the broker: a last column named after the param does.
        let runs = vec![
            Ok(month_table(&["2024-01", "2024-02"], None)),
            Ok(month_table(&["2024-01"], None)),
        ];
        let composed = compose(runs, &labels).unwrap().unwrap();
        assert_eq!(composed.columns.last().unwrap().name, "broker");
        let shown: Vec<&Cell> = composed.rows.iter().map(|row| &row[1]).collect();
        let text = |it: &str| Cell::Text(it.to_owned());
        assert_eq!(shown, [&text("acme"), &text("acme"), &text("zenith")]);
        // A column already holding each run's value (in any case) is enough.
        let runs = vec![
            Ok(month_table(&["2024-01"], Some("ACME"))),
            Ok(month_table(&["2024-01"], Some("Zenith"))),
        ];
        let composed = compose(runs, &labels).unwrap().unwrap();
        assert_eq!(composed.columns.len(), 2);
        // A failed run fails the node.
        let runs = vec![Ok(month_table(&["2024-01"], None)), Err("timed out".to_owned())];
        assert_eq!(compose(runs, &labels), Some(Err("timed out".to_owned())));
    }

    #[test]
    fn binds_are_typed_by_kind() {
        let id = "6f1c7a52-3c1f-4a7e-9a55-8d0b2f1e4c11";
        assert_eq!(
            bind(ParamKind::Uuid, &Value::Text(id.to_owned())),
            Ok(Bind::Uuid(id.parse().unwrap()))
        );
        assert!(bind(ParamKind::Uuid, &Value::Text("x".to_owned())).is_err());
        assert_eq!(bind(ParamKind::Months, &Value::Int(18)), Ok(Bind::Int(18)));
    }

    /// Every cell type a column can hand downstream gives the value shape its kind reads: a
    /// day is the ISO text a `date` param binds.
    #[test]
    fn cells_that_feed_an_edge_become_values() {
        let day = "2025-03-01".parse().unwrap();
        assert_eq!(cell_value(&Cell::Date(day)), Some(Value::Text("2025-03-01".to_owned())));
        assert_eq!(cell_value(&Cell::Int(7)), Some(Value::Int(7)));
        assert_eq!(cell_value(&Cell::Null), None);
    }
}
