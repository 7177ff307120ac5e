//! Running a validated plan: nodes in dependency waves, concurrently (bounded), each through its
//! plane's guarded executor; upstream values flow through typed edges; a failed or timed-out node
//! is dropped with its reason; a whole-answer deadline returns what finished.
//!
//! Fan-out: when an edge's upstream column gives several distinct values, the receiving node
//! runs once per value (each bound through the same check a question's value passes,
//! `planner_grammar::accepts`), in the upstream's row order, up to the registry's `fan_out`
//! cap; its results are composed into one table (the runs' rows in that order, with a last
//! column naming each row's value when no column of its own shows it), and the values beyond
//! the cap are counted as left out. One list fans out at a time: a node two of
//! whose edges give several values is dropped with that reason.

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
    /// The upstream intent and column, `intent.column`.
    pub(crate) source: String,
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
    /// When it fans out: the param's name and the value each run binds, in run order.
    labels: Option<Labels>,
}

/// The param a node fanned out over and the value each run bound, in run order.
type Labels = (String, Vec<Value>);

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
        let mut fan_outs: Vec<(usize, Option<FanOut>, Option<Labels>, usize)> = Vec::new();
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
                    let composed = compose(tables, labels.as_ref());
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
/// that fanned out (`labels`: the param and each run's value) whose rows do not show the value
/// they were run for (no column holds it in every row of its run) gets a last column, named
/// after the param, that does: which upstream value each row answers is never lost.
fn compose(
    tables: Vec<Result<ResultTable, String>>,
    labels: Option<&Labels>,
) -> Option<Result<ResultTable, String>> {
    let tables: Vec<ResultTable> = match tables.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(tables) => tables,
        Err(reason) => return Some(Err(reason)),
    };
    // Named after the param, or holding each run's value in every row of that run.
    let shown = |(name, values): &Labels| {
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
    let label = labels.filter(|labels| labels.1.len() > 1 && !shown(labels));
    let mut tables = tables.into_iter().enumerate();
    let (_, mut composed) = tables.next()?;
    if let Some((name, values)) = label {
        composed.columns.push(Column { name: name.clone(), ty: column_type(&values[0]) });
    }
    let tag = |rows: &mut Vec<Vec<Cell>>, run: usize| {
        if let Some((_, values)) = label {
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

/// The bind sets of node `index`, one per run, or why it cannot run: an edge-bound arg whose
/// upstream gave several values fans out over them (one list at a time), each value checked as a
/// question's would be, up to the registry's cap.
fn bind_sets(
    registry: &Registry,
    plan: &Plan,
    index: usize,
    outcomes: &[Option<NodeOutcome>],
    as_of: Option<&str>,
) -> Result<BindSets, String> {
    let node = &plan.nodes[index];
    let mut choices: Vec<Vec<Value>> = Vec::with_capacity(node.args.len());
    let mut fan_out: Option<FanOut> = None;
    for arg in &node.args {
        let ArgSource::Upstream(edge) = &arg.source else {
            let value =
                match arg.source.value() {
                    Some(value) if planner_registry::is_relative(value) => {
                        let date = as_of.ok_or_else(|| {
                            "the data's date, which its relative period is read against, could not \
                         be read"
                                .to_owned()
                        })?;
                        Some(planner_registry::resolve_period(value, date).ok_or_else(|| {
                            format!("a relative period of {} is malformed", arg.kind)
                        })?)
                    }
                    other => other.cloned(),
                };
            choices.push(value.into_iter().collect());
            continue;
        };
        let edge =
            plan.edges.get(*edge).ok_or_else(|| "its upstream edge is missing".to_owned())?;
        let upstream = registry.intent(plan.nodes[edge.from].intent);
        let Some(Some(NodeOutcome::Ran(table, _))) = outcomes.get(edge.from) else {
            return Err(format!("its upstream {} did not run", upstream.name));
        };
        let column = upstream.columns().get(edge.column).map(|it| it.name.as_str()).unwrap_or("");
        let source = format!("{}.{column}", upstream.name);
        let cells = table.distinct_values(column);
        if cells.is_empty() {
            return Err(format!("{source} gave no value"));
        }
        let values: Vec<Value> = cells.iter().filter_map(|cell| cell_value(cell)).collect();
        if values.is_empty() {
            return Err(format!("{source} gave a value of the wrong type"));
        }
        let fitting: Vec<Value> = values
            .into_iter()
            .filter(|value| planner_grammar::accepts(registry, arg.param, arg.kind, value))
            .collect();
        let unfit = cells.len() - fitting.len();
        if fitting.is_empty() {
            let param = &registry.param(arg.param).name;
            return Err(format!("{source} gave no value {param} accepts"));
        }
        if cells.len() == 1 {
            choices.push(fitting);
            continue;
        }
        if let Some(other) = &fan_out {
            return Err(format!(
                "{} and {source} each gave several values: one list fans out at a time",
                other.source
            ));
        }
        let cap = registry.fan_out();
        if fitting.len() > 1 && cap <= 1 {
            return Err(format!(
                "{source} gave {} values (the registry's fan_out is 1: one value only)",
                fitting.len()
            ));
        }
        let runs = fitting.len().min(cap);
        fan_out = Some(FanOut {
            source,
            runs,
            values: cells.len(),
            left_out: fitting.len() - runs,
            unfit,
        });
        choices.push(fitting.into_iter().take(runs).collect());
    }
    let runs = fan_out.as_ref().map_or(1, |info| info.runs);
    let labels = fan_out.as_ref().and_then(|_| {
        node.args
            .iter()
            .zip(&choices)
            .find(|(_, values)| values.len() > 1)
            .map(|(arg, values)| (registry.param(arg.param).name.clone(), values.clone()))
    });
    let mut sets = Vec::with_capacity(runs);
    for run in 0..runs {
        let mut binds = Vec::with_capacity(node.args.len());
        for (arg, values) in node.args.iter().zip(&choices) {
            let value = values
                .get(run)
                .or_else(|| values.first())
                .ok_or_else(|| format!("{} has no value", registry.param(arg.param).name))?;
            binds.push(bind(arg.kind, value)?);
        }
        sets.push(binds);
    }
    Ok(BindSets { sets, fan_out, labels })
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
        let labels: Labels =
            ("broker".to_owned(), vec![Value::Text("acme".into()), Value::Text("zenith".into())]);
        // The runs' rows do not show the broker: a last column named after the param does.
        let runs = vec![
            Ok(month_table(&["2024-01", "2024-02"], None)),
            Ok(month_table(&["2024-01"], None)),
        ];
        let composed = compose(runs, Some(&labels)).unwrap().unwrap();
        assert_eq!(composed.columns.last().unwrap().name, "broker");
        let shown: Vec<&Cell> = composed.rows.iter().map(|row| &row[1]).collect();
        let text = |it: &str| Cell::Text(it.to_owned());
        assert_eq!(shown, [&text("acme"), &text("acme"), &text("zenith")]);
        // A column already holding each run's value (in any case) is enough.
        let runs = vec![
            Ok(month_table(&["2024-01"], Some("ACME"))),
            Ok(month_table(&["2024-01"], Some("Zenith"))),
        ];
        let composed = compose(runs, Some(&labels)).unwrap().unwrap();
        assert_eq!(composed.columns.len(), 2);
        // A failed run fails the node.
        let runs = vec![Ok(month_table(&["2024-01"], None)), Err("timed out".to_owned())];
        assert_eq!(compose(runs, Some(&labels)), Some(Err("timed out".to_owned())));
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
