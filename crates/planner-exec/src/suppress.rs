//! Small-cell suppression with complementary suppression.
//!
//! A count table with optional margins is a set of linear equations: each row with a row total
//! says "the cells of this row sum to its total", each column with a column total likewise, and
//! the grand total closes both margins. A hidden cell can be derived by differencing exactly
//! when the equations pin it down. Every cell takes part in at most two equations (its row's and
//! its column's), so the equations are the nodes of a graph and the hidden cells its edges (an
//! edge ends at a shared "no equation" node when a margin is absent). After normalising signs
//! the equations form a network matrix, whose row space is the graph's cut space: a hidden cell
//! is derivable exactly when its edge is a bridge of the graph of hidden cells. Suppression
//! hides every count from 1 to k-1, then, while some hidden cell is a bridge, hides the cheapest
//! path of shown cells that closes a cycle through it (zeros cost most: a hidden zero next to a
//! suppressed count narrows it down).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use crate::error::{Error, Result};
use crate::table::{Cell, ColumnType, ResultTable};

/// A table of counts with optional margins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// The counts, row by row; every row has the same length.
    pub cells: Vec<Vec<u64>>,
    /// Each row's total is shown (a total column).
    pub row_totals: bool,
    /// Each column's total is shown (a total row).
    pub column_totals: bool,
}

/// Which members of a [`Grid`] to hide, in the grid's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    /// Hidden data cells.
    pub cells: Vec<Vec<bool>>,
    /// Hidden row totals (empty when the grid has none).
    pub row_totals: Vec<bool>,
    /// Hidden column totals (empty when the grid has none).
    pub column_totals: Vec<bool>,
    /// The grand total is hidden (only when the grid has both margins).
    pub grand_total: bool,
}

/// One member of the table: a data cell, a margin or the grand total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Member {
    Cell(usize, usize),
    RowTotal(usize),
    ColumnTotal(usize),
    Grand,
}

/// The graph of equations: node 0 stands for "no equation".
struct Equations {
    rows: usize,
    columns: usize,
    row_totals: bool,
    column_totals: bool,
}

impl Equations {
    fn row_line(&self, row: usize) -> usize {
        if self.row_totals { 1 + row } else { 0 }
    }
    fn total_row_line(&self) -> usize {
        if self.row_totals && self.column_totals { 1 + self.rows } else { 0 }
    }
    fn column_line(&self, column: usize) -> usize {
        if self.column_totals { 2 + self.rows + column } else { 0 }
    }
    fn total_column_line(&self) -> usize {
        if self.row_totals && self.column_totals { 2 + self.rows + self.columns } else { 0 }
    }
    fn nodes(&self) -> usize {
        3 + self.rows + self.columns
    }
    fn ends(&self, member: Member) -> (usize, usize) {
        match member {
            Member::Cell(row, column) => (self.row_line(row), self.column_line(column)),
            Member::RowTotal(row) => (self.row_line(row), self.total_column_line()),
            Member::ColumnTotal(column) => (self.total_row_line(), self.column_line(column)),
            Member::Grand => (self.total_row_line(), self.total_column_line()),
        }
    }
}

/// Hides every member of `grid` (cells and shown totals) from 1 to `k - 1`, and enough other
/// members that none of the hidden ones can be derived from the shown ones by the table's sums.
pub fn suppress_grid(grid: &Grid, k: u64) -> Hidden {
    let rows = grid.cells.len();
    let columns = grid.cells.first().map_or(0, Vec::len);
    let equations =
        Equations { rows, columns, row_totals: grid.row_totals, column_totals: grid.column_totals };
    let members = members_with_values(grid, rows, columns);
    let mut hidden: BTreeSet<Member> = members
        .iter()
        .filter(|(_, value)| (1..k).contains(value))
        .map(|(member, _)| *member)
        .collect();

    while let Some(bridge) = hidden.iter().copied().find(|&m| is_bridge(&equations, &hidden, m)) {
        match cheapest_cycle(&equations, &members, &hidden, bridge) {
            Some(path) => hidden.extend(path),
            // Unreachable for tables whose every equation has two members; hide all to be safe.
            None => hidden.extend(members.iter().map(|(member, _)| *member)),
        }
    }

    Hidden {
        cells: (0..rows)
            .map(|row| (0..columns).map(|col| hidden.contains(&Member::Cell(row, col))).collect())
            .collect(),
        row_totals: if grid.row_totals {
            (0..rows).map(|row| hidden.contains(&Member::RowTotal(row))).collect()
        } else {
            Vec::new()
        },
        column_totals: if grid.column_totals {
            (0..columns).map(|col| hidden.contains(&Member::ColumnTotal(col))).collect()
        } else {
            Vec::new()
        },
        grand_total: hidden.contains(&Member::Grand),
    }
}

fn members_with_values(grid: &Grid, rows: usize, columns: usize) -> Vec<(Member, u64)> {
    let mut members = Vec::new();
    for (row, cells) in grid.cells.iter().enumerate() {
        for (column, value) in cells.iter().enumerate() {
            members.push((Member::Cell(row, column), *value));
        }
    }
    let row_sum = |row: usize| grid.cells[row].iter().sum::<u64>();
    let column_sum = |column: usize| grid.cells.iter().map(|cells| cells[column]).sum::<u64>();
    if grid.row_totals {
        members.extend((0..rows).map(|row| (Member::RowTotal(row), row_sum(row))));
    }
    if grid.column_totals {
        members
            .extend((0..columns).map(|column| (Member::ColumnTotal(column), column_sum(column))));
    }
    if grid.row_totals && grid.column_totals {
        members.push((Member::Grand, grid.cells.iter().flatten().sum()));
    }
    members
}

/// Whether removing `member`'s edge disconnects its ends in the graph of hidden members.
fn is_bridge(equations: &Equations, hidden: &BTreeSet<Member>, member: Member) -> bool {
    let (from, to) = equations.ends(member);
    if from == to {
        return false;
    }
    let mut adjacency = vec![Vec::new(); equations.nodes()];
    for &other in hidden.iter().filter(|&&other| other != member) {
        let (a, b) = equations.ends(other);
        adjacency[a].push(b);
        adjacency[b].push(a);
    }
    let mut seen = vec![false; equations.nodes()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(node) = stack.pop() {
        if node == to {
            return false;
        }
        for &next in &adjacency[node] {
            if !seen[next] {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    true
}

/// The cheapest set of shown members whose hiding closes a cycle through `bridge`.
fn cheapest_cycle(
    equations: &Equations,
    members: &[(Member, u64)],
    hidden: &BTreeSet<Member>,
    bridge: Member,
) -> Option<Vec<Member>> {
    // A hidden zero beside a suppressed count tells the reader the count; avoid zeros.
    const ZERO_COST: u128 = 1 << 80;
    let (from, to) = equations.ends(bridge);
    let mut adjacency: Vec<Vec<(usize, usize)>> = vec![Vec::new(); equations.nodes()];
    for (index, (member, _)) in members.iter().enumerate() {
        if *member == bridge {
            continue;
        }
        let (a, b) = equations.ends(*member);
        adjacency[a].push((b, index));
        adjacency[b].push((a, index));
    }
    let cost = |index: usize| -> u128 {
        let (member, value) = members[index];
        if hidden.contains(&member) {
            0
        } else if value == 0 {
            ZERO_COST
        } else {
            u128::from(value) + 1
        }
    };
    let mut best = vec![u128::MAX; equations.nodes()];
    let mut via: Vec<Option<(usize, usize)>> = vec![None; equations.nodes()];
    let mut queue = BinaryHeap::new();
    best[from] = 0;
    queue.push(Reverse((0u128, from)));
    while let Some(Reverse((distance, node))) = queue.pop() {
        if distance > best[node] {
            continue;
        }
        for &(next, index) in &adjacency[node] {
            let candidate = distance + cost(index);
            if candidate < best[next] {
                best[next] = candidate;
                via[next] = Some((node, index));
                queue.push(Reverse((candidate, next)));
            }
        }
    }
    if best[to] == u128::MAX {
        return None;
    }
    let mut path = Vec::new();
    let mut node = to;
    while let Some((previous, index)) = via[node] {
        path.push(members[index].0);
        node = previous;
    }
    Some(path)
}

/// The suppression spec of a count intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountSpec {
    /// The `int` columns that hold counts of people. Every other column must be a text, date or
    /// boolean label.
    pub count_columns: Vec<String>,
    /// The threshold: a count from 1 to k-1 is suppressed; zero is shown.
    pub k: u32,
    /// Append a `Total` row with each count column's sum (itself subject to suppression).
    pub total_row: bool,
    /// Text label columns that split each shown row into disjoint, fixed cells (empty: each row
    /// is one cell). Each cell is suppressed on its own; the rows that agree on every other label
    /// are summed into one shown row, withheld when any of its cells is suppressed, and these
    /// columns are dropped. No shown count is then a function of a suppressed cell, whatever
    /// the params: see docs/reliability.md.
    pub sum_over: Vec<String>,
}

/// Applies a [`CountSpec`] to a raw count result: checks its shape, appends the total row,
/// suppresses and replaces hidden counts with [`Cell::Suppressed`] (1 to k-1) or
/// [`Cell::Withheld`] (complementary).
pub(crate) fn apply_counts(mut table: ResultTable, spec: &CountSpec) -> Result<ResultTable> {
    if spec.k < 2 {
        return Err(Error::InvalidRequest {
            reason: "the suppression threshold must be at least 2",
        });
    }
    if spec.count_columns.is_empty() {
        return Err(Error::InvalidRequest { reason: "a count spec needs a count column" });
    }
    let mut count_indexes = Vec::new();
    for (index, column) in table.columns.iter().enumerate() {
        let is_count = spec.count_columns.contains(&column.name);
        match (is_count, column.ty) {
            (true, ColumnType::Int) => count_indexes.push(index),
            (true, _) => {
                return Err(Error::CountShape {
                    column: column.name.clone(),
                    reason: "a count column must be an integer",
                });
            }
            (false, ColumnType::Text | ColumnType::Date | ColumnType::Bool) => {}
            (false, ColumnType::Uuid) => {
                return Err(Error::CountShape {
                    column: column.name.clone(),
                    reason: "a count result may not carry identifiers",
                });
            }
            (false, _) => {
                return Err(Error::CountShape {
                    column: column.name.clone(),
                    reason: "a label column must be text, a date or a boolean",
                });
            }
        }
    }
    if count_indexes.len() != spec.count_columns.len() {
        return Err(Error::InvalidRequest { reason: "a declared count column is missing" });
    }

    let mut cells = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let mut counts = Vec::with_capacity(count_indexes.len());
        for &index in &count_indexes {
            counts.push(match row[index] {
                Cell::Null => 0,
                Cell::Int(count) => u64::try_from(count)
                    .map_err(|_| Error::InvalidRequest { reason: "a count is negative" })?,
                _ => {
                    return Err(Error::InvalidRequest { reason: "a count cell is not an integer" });
                }
            });
        }
        cells.push(counts);
    }
    // An empty result stays empty: a total of nothing adds nothing.
    let total_row = spec.total_row && !cells.is_empty();
    if !spec.sum_over.is_empty() {
        return sum_cells(table, spec, &count_indexes, &cells, total_row);
    }
    let grid = Grid { cells, row_totals: false, column_totals: total_row };
    let hidden = suppress_grid(&grid, u64::from(spec.k));

    let hide = |value: u64, is_hidden: bool| match (is_hidden, value) {
        (false, _) => Cell::Int(i64::try_from(value).unwrap_or(i64::MAX)),
        (true, value) if (1..u64::from(spec.k)).contains(&value) => Cell::Suppressed { k: spec.k },
        (true, _) => Cell::Withheld,
    };
    for (row_index, row) in table.rows.iter_mut().enumerate() {
        for (position, &index) in count_indexes.iter().enumerate() {
            row[index] = hide(grid.cells[row_index][position], hidden.cells[row_index][position]);
        }
    }
    if total_row {
        let first_label = (0..table.columns.len()).find(|index| !count_indexes.contains(index));
        let mut total = vec![Cell::Null; table.columns.len()];
        if let Some(index) = first_label {
            total[index] = Cell::Text("Total".to_owned());
        }
        for (position, &index) in count_indexes.iter().enumerate() {
            let sum = grid.cells.iter().map(|counts| counts[position]).sum();
            total[index] = hide(sum, hidden.column_totals[position]);
        }
        table.rows.push(total);
    }
    Ok(table)
}

/// The `sum_over` form of [`apply_counts`]: each raw row is one disjoint cell, suppressed on its
/// own; the rows that agree on the shown labels are summed, a sum is withheld when any of its
/// cells is suppressed, and the `sum_over` columns are dropped. A shown count is so always a sum
/// of shown cells (each zero or at least k), whatever rows the params selected, and no margin
/// needs complementary suppression.
fn sum_cells(
    table: ResultTable,
    spec: &CountSpec,
    count_indexes: &[usize],
    cells: &[Vec<u64>],
    total_row: bool,
) -> Result<ResultTable> {
    let mut summed = Vec::with_capacity(spec.sum_over.len());
    for name in &spec.sum_over {
        match table.columns.iter().position(|column| &column.name == name) {
            Some(index)
                if table.columns[index].ty == ColumnType::Text
                    && !count_indexes.contains(&index) =>
            {
                summed.push(index);
            }
            _ => {
                return Err(Error::InvalidRequest {
                    reason: "a sum_over column must be a text label of the result",
                });
            }
        }
    }
    let kept: Vec<usize> = (0..table.columns.len()).filter(|i| !summed.contains(i)).collect();
    let small = |value: u64| (1..u64::from(spec.k)).contains(&value);

    // (labels, sums, any cell suppressed), in the order the query returned the rows.
    let mut groups: Vec<(Vec<Cell>, Vec<u64>, Vec<bool>)> = Vec::new();
    let mut all = (vec![0u64; count_indexes.len()], vec![false; count_indexes.len()]);
    for (row, counts) in table.rows.iter().zip(cells) {
        let labels: Vec<Cell> = kept
            .iter()
            .filter(|index| !count_indexes.contains(index))
            .map(|&index| row[index].clone())
            .collect();
        let position = match groups.iter().position(|(other, _, _)| *other == labels) {
            Some(position) => position,
            None => {
                groups.push((
                    labels,
                    vec![0; count_indexes.len()],
                    vec![false; count_indexes.len()],
                ));
                groups.len() - 1
            }
        };
        let (_, sums, hidden) = &mut groups[position];
        for (slot, &count) in counts.iter().enumerate() {
            sums[slot] += count;
            hidden[slot] |= small(count);
            all.0[slot] += count;
            all.1[slot] |= small(count);
        }
    }

    let shown = |sum: u64, hidden: bool| {
        if hidden { Cell::Withheld } else { Cell::Int(i64::try_from(sum).unwrap_or(i64::MAX)) }
    };
    let build = |labels: &[Cell], sums: &[u64], hidden: &[bool]| -> Vec<Cell> {
        let mut labels = labels.iter();
        kept.iter()
            .map(|index| match count_indexes.iter().position(|count| count == index) {
                Some(slot) => shown(sums[slot], hidden[slot]),
                None => labels.next().cloned().unwrap_or(Cell::Null),
            })
            .collect()
    };
    let mut rows: Vec<Vec<Cell>> =
        groups.iter().map(|(labels, sums, hidden)| build(labels, sums, hidden)).collect();
    if total_row {
        let mut total = build(&[], &all.0, &all.1);
        let first_label = kept.iter().position(|index| !count_indexes.contains(index));
        if let Some(position) = first_label {
            total[position] = Cell::Text("Total".to_owned());
        }
        rows.push(total);
    }
    let columns = kept.iter().map(|&index| table.columns[index].clone()).collect();
    Ok(ResultTable { columns, rows })
}

#[cfg(test)]
mod tests;
