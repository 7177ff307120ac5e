//! Laws of suppression: every small count is hidden, shown cells are the true counts, and no
//! hidden member is determined by the shown ones through the table's sums (checked by linear
//! algebra, independently of the graph argument the implementation uses).

use proptest::prelude::*;

use super::*;
use crate::table::Column;

/// The members of a grid with their values and whether they are hidden, plus the equations
/// (lists of (member index, coefficient)) that the table's sums state.
/// Each member's value and whether it is hidden.
type Members = Vec<(u64, bool)>;
/// Each equation as (member index, coefficient) terms summing to zero.
type Equations = Vec<Vec<(usize, f64)>>;

fn system(grid: &Grid, hidden: &Hidden) -> (Members, Equations) {
    let rows = grid.cells.len();
    let columns = grid.cells.first().map_or(0, Vec::len);
    let mut members = Vec::new();
    let mut cell_index = vec![vec![0; columns]; rows];
    for (row, (values, flags)) in grid.cells.iter().zip(&hidden.cells).enumerate() {
        for (column, (value, flag)) in values.iter().zip(flags).enumerate() {
            cell_index[row][column] = members.len();
            members.push((*value, *flag));
        }
    }
    let mut equations = Vec::new();
    let mut row_total_index = Vec::new();
    if grid.row_totals {
        for row in 0..rows {
            row_total_index.push(members.len());
            members.push((grid.cells[row].iter().sum(), hidden.row_totals[row]));
            let mut equation: Vec<_> = (0..columns).map(|c| (cell_index[row][c], 1.0)).collect();
            equation.push((row_total_index[row], -1.0));
            equations.push(equation);
        }
    }
    let mut column_total_index = Vec::new();
    if grid.column_totals {
        for column in 0..columns {
            column_total_index.push(members.len());
            let sum = (0..rows).map(|r| grid.cells[r][column]).sum();
            members.push((sum, hidden.column_totals[column]));
            let mut equation: Vec<_> = (0..rows).map(|r| (cell_index[r][column], 1.0)).collect();
            equation.push((column_total_index[column], -1.0));
            equations.push(equation);
        }
    }
    if grid.row_totals && grid.column_totals {
        let grand = members.len();
        members.push((grid.cells.iter().flatten().sum(), hidden.grand_total));
        let mut by_rows: Vec<_> = row_total_index.iter().map(|&i| (i, 1.0)).collect();
        by_rows.push((grand, -1.0));
        equations.push(by_rows);
        let mut by_columns: Vec<_> = column_total_index.iter().map(|&i| (i, 1.0)).collect();
        by_columns.push((grand, -1.0));
        equations.push(by_columns);
    }
    (members, equations)
}

fn rank(mut matrix: Vec<Vec<f64>>) -> usize {
    let width = matrix.first().map_or(0, Vec::len);
    let mut rank = 0;
    for column in 0..width {
        let Some(pivot) = (rank..matrix.len())
            .max_by(|&a, &b| matrix[a][column].abs().total_cmp(&matrix[b][column].abs()))
        else {
            break;
        };
        if matrix[pivot][column].abs() < 1e-9 {
            continue;
        }
        matrix.swap(rank, pivot);
        let pivot_row = matrix[rank].clone();
        for (index, row) in matrix.iter_mut().enumerate() {
            if index != rank {
                let factor = row[column] / pivot_row[column];
                for (cell, pivot) in row.iter_mut().zip(&pivot_row).skip(column) {
                    *cell -= factor * pivot;
                }
            }
        }
        rank += 1;
    }
    rank
}

/// The hidden members whose value the shown members and the equations determine.
fn derivable(grid: &Grid, hidden: &Hidden) -> Vec<usize> {
    let (members, equations) = system(grid, hidden);
    let unknowns: Vec<usize> = (0..members.len()).filter(|&i| members[i].1).collect();
    let matrix: Vec<Vec<f64>> = equations
        .iter()
        .map(|equation| {
            unknowns
                .iter()
                .map(|&u| equation.iter().filter(|(i, _)| *i == u).map(|(_, c)| c).sum())
                .collect()
        })
        .collect();
    let base = rank(matrix.clone());
    (0..unknowns.len())
        .filter(|&position| {
            let mut extended = matrix.clone();
            extended
                .push((0..unknowns.len()).map(|i| f64::from(u8::from(i == position))).collect());
            rank(extended) == base
        })
        .map(|position| unknowns[position])
        .collect()
}

fn grid_strategy() -> impl Strategy<Value = Grid> {
    (1usize..7, 1usize..6, any::<bool>(), any::<bool>()).prop_flat_map(|(rows, cols, rt, ct)| {
        let value = prop_oneof![3 => Just(0u64), 4 => 1u64..11, 4 => 11u64..400];
        proptest::collection::vec(proptest::collection::vec(value, cols), rows)
            .prop_map(move |cells| Grid { cells, row_totals: rt, column_totals: ct })
    })
}

proptest! {
    #[test]
    fn no_hidden_member_is_derivable(grid in grid_strategy()) {
        let hidden = suppress_grid(&grid, 11);
        prop_assert_eq!(derivable(&grid, &hidden), Vec::<usize>::new());
    }

    #[test]
    fn every_small_count_is_hidden(grid in grid_strategy()) {
        let hidden = suppress_grid(&grid, 11);
        let (members, _) = system(&grid, &hidden);
        for (value, is_hidden) in members {
            if (1..11).contains(&value) {
                prop_assert!(is_hidden);
            }
        }
    }

    #[test]
    fn count_results_never_show_a_small_count(counts in proptest::collection::vec(0i64..60, 1..8)) {
        let table = ResultTable {
            columns: vec![
                Column { name: "bucket".into(), ty: ColumnType::Text },
                Column { name: "candidates".into(), ty: ColumnType::Int },
            ],
            rows: counts.iter().enumerate()
                .map(|(i, n)| vec![Cell::Text(format!("b{i}")), Cell::Int(*n)])
                .collect(),
        };
        let spec = CountSpec { count_columns: vec!["candidates".into()], k: 11, total_row: true, sum_over: Vec::new() };
        let out = apply_counts(table, &spec).unwrap();
        prop_assert_eq!(out.rows.len(), counts.len() + 1);
        let shown: Vec<Option<i64>> = out.rows.iter().map(|row| match row[1] {
            Cell::Int(n) => Some(n),
            _ => None,
        }).collect();
        for n in shown.iter().flatten() {
            prop_assert!(*n == 0 || *n >= 11);
        }
        // With one equation (the total), hidden members number zero or at least two.
        let hidden = shown.iter().filter(|n| n.is_none()).count();
        prop_assert!(hidden != 1);
    }
}

#[test]
fn a_lone_small_count_takes_the_smallest_nonzero_neighbour() {
    let grid = Grid {
        cells: vec![vec![5], vec![0], vec![40], vec![12]],
        row_totals: false,
        column_totals: true,
    };
    let hidden = suppress_grid(&grid, 11);
    assert_eq!(hidden.cells, vec![vec![true], vec![false], vec![false], vec![true]]);
    assert_eq!(hidden.column_totals, vec![false]);
}

#[test]
fn a_single_row_hides_its_total() {
    let grid = Grid { cells: vec![vec![3]], row_totals: false, column_totals: true };
    let hidden = suppress_grid(&grid, 11);
    assert_eq!(hidden.cells, vec![vec![true]]);
    assert_eq!(hidden.column_totals, vec![true]);
}

#[test]
fn two_linked_blocks_need_more_than_two_per_line() {
    // Two 2x2 blocks of small counts joined by one small cell: the join is a bridge until a
    // cycle runs through it.
    let grid = Grid {
        cells: vec![vec![3, 4, 5, 50], vec![2, 6, 60, 70], vec![80, 90, 7, 8], vec![90, 80, 9, 2]],
        row_totals: true,
        column_totals: true,
    };
    let hidden = suppress_grid(&grid, 11);
    assert_eq!(derivable(&grid, &hidden), Vec::<usize>::new());
}

#[test]
fn zeros_are_shown_and_large_counts_too() {
    let grid =
        Grid { cells: vec![vec![0], vec![25], vec![11]], row_totals: false, column_totals: true };
    let hidden = suppress_grid(&grid, 11);
    assert_eq!(hidden.cells, vec![vec![false], vec![false], vec![false]]);
}

#[test]
fn summed_cells_show_a_row_only_when_every_cell_is_shown() {
    let text = |s: &str| Cell::Text(s.into());
    let atom = |group: &str, level: &str, n: i64| vec![text(group), text(level), Cell::Int(n)];
    let table = ResultTable {
        columns: vec![
            Column { name: "availability".into(), ty: ColumnType::Text },
            Column { name: "level".into(), ty: ColumnType::Text },
            Column { name: "candidates".into(), ty: ColumnType::Int },
        ],
        rows: vec![
            atom("now", "secret", 40),
            atom("now", "top_secret", 0),
            atom("later", "secret", 30),
            atom("later", "top_secret", 4),
            atom("soon", "secret", 0),
        ],
    };
    let spec = CountSpec {
        count_columns: vec!["candidates".into()],
        k: 11,
        total_row: true,
        sum_over: vec!["level".into()],
    };
    let out = apply_counts(table, &spec).unwrap();
    assert_eq!(
        out.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["availability", "candidates"]
    );
    assert_eq!(
        out.rows,
        vec![
            vec![text("now"), Cell::Int(40)],
            vec![text("later"), Cell::Withheld],
            vec![text("soon"), Cell::Int(0)],
            vec![text("Total"), Cell::Withheld],
        ]
    );
}

#[test]
fn a_sum_over_column_must_be_a_text_label() {
    let table = ResultTable {
        columns: vec![Column { name: "candidates".into(), ty: ColumnType::Int }],
        rows: vec![vec![Cell::Int(3)]],
    };
    let spec = CountSpec {
        count_columns: vec!["candidates".into()],
        k: 11,
        total_row: false,
        sum_over: vec!["candidates".into()],
    };
    assert!(apply_counts(table, &spec).is_err());
}
