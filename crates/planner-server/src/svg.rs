//! Pictures drawn as SVG on the server. The plan of an answer: nodes in columns by dependency
//! depth, edges labelled with the param they bind, nodes with suppressed cells marked, dropped
//! nodes greyed below with their reason. An evidence table whose rows are periods
//! ([`planner_engine::Series`]): a line chart, one panel per numeric column sharing the periods'
//! axis. Deterministic: the same answer draws the same bytes; every text is escaped.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use planner_engine::{Answer, Series};

const NODE_W: usize = 220;
const NODE_H: usize = 54;
const GAP_X: usize = 80;
const GAP_Y: usize = 24;
const MARGIN: usize = 16;

/// Escapes text for SVG content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Shortens `text` to `max` characters with an ellipsis.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// The SVG picture of `answer`'s plan.
pub fn plan_svg(answer: &Answer) -> String {
    let nodes: Vec<&str> = answer.plan.nodes.iter().map(|it| it.intent.as_str()).collect();
    // Depth: the longest chain of edges leading to a node (plan order is topological).
    let mut depth: BTreeMap<&str, usize> = nodes.iter().map(|it| (*it, 0)).collect();
    for _ in 0..nodes.len() {
        for edge in &answer.plan.edges {
            let from = depth.get(edge.from.as_str()).copied().unwrap_or(0);
            if let Some(to) = depth.get_mut(edge.to.as_str())
                && *to < from + 1
            {
                *to = from + 1;
            }
        }
    }
    let mut rows_in: BTreeMap<usize, usize> = BTreeMap::new();
    let mut place: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for node in &nodes {
        let column = depth.get(node).copied().unwrap_or(0);
        let row = rows_in.entry(column).or_default();
        place.insert(node, (MARGIN + column * (NODE_W + GAP_X), MARGIN + *row * (NODE_H + GAP_Y)));
        *row += 1;
    }
    let suppressed: BTreeMap<&str, usize> = answer
        .evidence
        .iter()
        .map(|table| (table.intent.as_str(), table.suppressed_cells))
        .collect();
    let columns = rows_in.len().max(1);
    let rows = rows_in.values().copied().max().unwrap_or(0);
    let dropped_top = MARGIN + rows * (NODE_H + GAP_Y) + if rows > 0 { 8 } else { 0 };
    let width = (MARGIN * 2 + columns * NODE_W + (columns - 1) * GAP_X).max(NODE_W * 2 + GAP_X);
    let height = dropped_top + answer.dropped.len() * (NODE_H / 2 + 8) + MARGIN + 20;

    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"13\" \
         role=\"img\" aria-label=\"the plan\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#555\"/></marker></defs>"
    );
    if nodes.is_empty() {
        let _ = write!(
            out,
            "<text x=\"{MARGIN}\" y=\"{}\" fill=\"#555\">no node ran (route {})</text>",
            MARGIN + 14,
            escape(answer.route.as_str())
        );
    }
    for edge in &answer.plan.edges {
        let (Some(&(fx, fy)), Some(&(tx, ty))) =
            (place.get(edge.from.as_str()), place.get(edge.to.as_str()))
        else {
            continue;
        };
        let (x1, y1, x2, y2) = (fx + NODE_W, fy + NODE_H / 2, tx, ty + NODE_H / 2);
        let _ = write!(
            out,
            "<g class=\"edge\"><line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" \
             stroke=\"#555\" marker-end=\"url(#arrow)\"/><text x=\"{}\" y=\"{}\" \
             text-anchor=\"middle\" font-size=\"11\" fill=\"#333\">{}</text></g>",
            (x1 + x2) / 2,
            (y1 + y2) / 2 - 4,
            escape(&clip(&format!("{} → {}", edge.column, edge.param), 24))
        );
    }
    for node in &nodes {
        let Some(&(x, y)) = place.get(node) else { continue };
        let hidden = suppressed.get(node).copied().unwrap_or(0);
        let (fill, stroke) =
            if hidden > 0 { ("#fff4e0", "#c77700") } else { ("#e8f0fe", "#1a56c4") };
        let _ = write!(
            out,
            "<g class=\"node\" data-intent=\"{intent}\"><rect x=\"{x}\" y=\"{y}\" \
             width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"8\" fill=\"{fill}\" stroke=\"{stroke}\"/>\
             <text x=\"{}\" y=\"{}\" font-weight=\"bold\">{intent}</text>",
            x + 10,
            y + 22,
            intent = escape(&clip(node, 28)),
        );
        if hidden > 0 {
            let _ = write!(
                out,
                "<text class=\"suppressed\" x=\"{}\" y=\"{}\" fill=\"#c77700\">{hidden} \
                 suppressed cell(s)</text>",
                x + 10,
                y + 42
            );
        }
        out.push_str("</g>");
    }
    for (index, dropped) in answer.dropped.iter().enumerate() {
        let y = dropped_top + index * (NODE_H / 2 + 8);
        let _ = write!(
            out,
            "<g class=\"dropped\" data-intent=\"{intent}\"><rect x=\"{MARGIN}\" y=\"{y}\" \
             width=\"{}\" height=\"{}\" rx=\"6\" fill=\"#eeeeee\" stroke=\"#aaaaaa\" \
             stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{}\" fill=\"#888888\">{intent}: \
             {reason}</text></g>",
            width - 2 * MARGIN,
            NODE_H / 2,
            MARGIN + 10,
            y + 18,
            intent = escape(&dropped.intent),
            reason = escape(&clip(&dropped.reason, 60)),
        );
    }
    out.push_str("</svg>");
    out
}

const CHART_W: usize = 640;
const PANEL_H: usize = 110;
const PANEL_GAP: usize = 34;
const CHART_TOP: usize = 30;
/// One colour per line, as many as [`planner_engine::MAX_SERIES`].
const COLOURS: [&str; 4] = ["#1a56c4", "#c77700", "#2e7d32", "#8e24aa"];
/// The most period labels written under the chart; the others are marked by their points.
const MAX_PERIOD_LABELS: usize = 8;

/// Round tick values covering `low..=high` (which may be equal): from one to about six of them,
/// a step of 1, 2 or 5 times a power of ten, and the decimal places that step needs.
fn ticks(low: f64, high: f64) -> (Vec<f64>, usize) {
    let (low, high) = if high > low { (low, high) } else { (low - 1.0, high + 1.0) };
    let raw = (high - low) / 4.0;
    if !raw.is_finite() || raw <= 0.0 {
        return (vec![low, high], 0);
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|it| it * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude);
    let (first, last) = ((low / step).floor(), (high / step).ceil());
    if !first.is_finite() || !last.is_finite() || last - first > 12.0 {
        return (vec![low, high], 0);
    }
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()).clamp(0.0, 12.0) as usize };
    // Each tick is a whole number of steps, so no error accumulates; zero is written as zero.
    let values = (0..=(last - first) as usize)
        .map(|index| {
            let value = (first + index as f64) * step;
            if value == 0.0 { 0.0 } else { value }
        })
        .collect();
    (values, decimals)
}

/// A chart of `series`, the rows of `intent`'s table: a `<title>`, then one panel per line (its
/// column's name, value ticks written as the table writes its cells, the line, a point per
/// value with its period and value as a tooltip), and the periods' labels under the last panel
/// with the period column's name. A null or withheld value breaks its line.
pub fn series_svg(intent: &str, series: &Series) -> String {
    let lines = &series.lines;
    let panels = lines.len().max(1);
    // Every line's ticks first: the widest label sets the left margin.
    let scales: Vec<(Vec<f64>, Vec<String>)> = lines
        .iter()
        .map(|line| {
            let known = line.values.iter().flatten().copied();
            let low = known.clone().fold(0.0_f64, f64::min);
            let high = known.fold(0.0_f64, f64::max);
            let (values, decimals) = ticks(low, high);
            let labels =
                values.iter().map(|value| line.show(&format!("{value:.decimals$}"))).collect();
            (values, labels)
        })
        .collect();
    let widest = scales.iter().flat_map(|(_, labels)| labels).map(|it| it.chars().count()).max();
    let left = MARGIN + 8 + 7 * widest.unwrap_or(1).min(28);
    let right = CHART_W - MARGIN;
    // The periods' labels sit under the last panel, the period column's name under them.
    let axis = CHART_TOP + panels * (PANEL_H + PANEL_GAP) - PANEL_GAP + 14;
    let height = axis + 30;
    let count = series.periods.len();
    let x_of = |index: usize| -> f64 {
        if count <= 1 {
            (left + right) as f64 / 2.0
        } else {
            left as f64 + 10.0 + (right - left - 20) as f64 * index as f64 / (count - 1) as f64
        }
    };
    let names: Vec<&str> = lines.iter().map(|it| it.column.as_str()).collect();
    let title = format!("{intent}: {} by {}", names.join(", "), series.period);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{CHART_W}\" \
         height=\"{height}\" viewBox=\"0 0 {CHART_W} {height}\" font-family=\"sans-serif\" \
         font-size=\"11\" role=\"img\"><title>{}</title>",
        escape(&title)
    );
    let _ = write!(
        out,
        "<text x=\"{MARGIN}\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{}</text>",
        escape(&clip(&title, 80))
    );
    for (at, (line, (values, labels))) in lines.iter().zip(&scales).enumerate() {
        let colour = COLOURS[at % COLOURS.len()];
        let top = CHART_TOP + at * (PANEL_H + PANEL_GAP) + 14;
        let bottom = top + PANEL_H - 14;
        let (low, high) = (values.first().copied().unwrap_or(0.0), values.last().copied());
        let high = high.unwrap_or(1.0);
        // Halves, so that the span of the widest values does not overflow.
        let span = high / 2.0 - low / 2.0;
        let y_of = |value: f64| {
            let share =
                if span > 0.0 && span.is_finite() { (value / 2.0 - low / 2.0) / span } else { 0.5 };
            bottom as f64 - (bottom - top) as f64 * share
        };
        let _ = write!(
            out,
            "<g class=\"series\" data-column=\"{column}\"><text x=\"{left}\" y=\"{}\" \
             font-weight=\"bold\" fill=\"{colour}\">{column}</text>",
            top - 6,
            column = escape(&clip(&line.column, 40)),
        );
        for (value, label) in values.iter().zip(labels) {
            let y = y_of(*value);
            let stroke = if *value == 0.0 { "#888888" } else { "#e4e4e4" };
            let _ = write!(
                out,
                "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{right}\" y2=\"{y:.1}\" \
                 stroke=\"{stroke}\"/><text class=\"tick\" x=\"{}\" y=\"{:.1}\" \
                 text-anchor=\"end\" fill=\"#555555\">{}</text>",
                left - 6,
                y + 4.0,
                escape(&clip(label, 28))
            );
        }
        // The line, broken where a value is missing.
        let mut run: Vec<String> = Vec::new();
        let mut runs: Vec<Vec<String>> = Vec::new();
        for (index, value) in line.values.iter().enumerate() {
            match value {
                Some(value) => run.push(format!("{:.1},{:.1}", x_of(index), y_of(*value))),
                None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
                None => {}
            }
        }
        runs.push(run);
        for run in runs.iter().filter(|run| run.len() > 1) {
            let _ = write!(
                out,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
                run.join(" ")
            );
        }
        for (index, value) in line.values.iter().enumerate() {
            let Some(value) = value else { continue };
            let period = series.periods.get(index).map_or("", String::as_str);
            let _ = write!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"><title>{}: {}\
                 </title></circle>",
                x_of(index),
                y_of(*value),
                escape(period),
                escape(&line.show(&value.to_string()))
            );
        }
        out.push_str("</g>");
    }
    let every = count.div_ceil(MAX_PERIOD_LABELS).max(1);
    for (index, period) in series.periods.iter().enumerate() {
        if index % every != 0 {
            continue;
        }
        let _ = write!(
            out,
            "<text class=\"period\" x=\"{:.1}\" y=\"{axis}\" text-anchor=\"middle\" \
             fill=\"#333333\">{}</text>",
            x_of(index),
            escape(&clip(period, 14))
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555555\">{}</text></svg>",
        (left + right) / 2,
        axis + 18,
        escape(&clip(&series.period, 40))
    );
    out
}

/// A flowchart as Mermaid's `flowchart` text (the subset the planner graph uses: `id[label]`,
/// `id([label])`, `a --> b`, `a -->|label| b`) drawn as an SVG: rows by distance from the first
/// node, edges labelled; an edge going back up is drawn as a curve on the right.
pub fn flowchart_svg(mermaid: &str) -> String {
    let mut nodes: Vec<(String, String)> = Vec::new();
    let mut edges: Vec<(String, String, String)> = Vec::new();
    for line in mermaid.lines().map(str::trim) {
        if let Some((from, rest)) = line.split_once(" -->") {
            let rest = rest.trim();
            let (label, to) = match rest.strip_prefix('|').and_then(|it| it.split_once('|')) {
                Some((label, to)) => (label.to_owned(), to.trim().to_owned()),
                None => (String::new(), rest.to_owned()),
            };
            edges.push((from.trim().to_owned(), to, label));
        } else if let Some((id, label)) = line.split_once('[') {
            let label = label.trim_end_matches(']').trim_matches(|c| c == '(' || c == ')');
            let label = label.trim_end_matches(']');
            nodes.push((id.trim_end_matches('(').to_owned(), label.to_owned()));
        }
    }
    // Rows: breadth-first distance from the first node; unreachable nodes go last.
    let mut row: BTreeMap<&str, usize> = BTreeMap::new();
    if let Some((first, _)) = nodes.first() {
        row.insert(first, 0);
        let mut frontier = vec![first.as_str()];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for node in frontier {
                let depth = row[node];
                for (from, to, _) in &edges {
                    if from == node && !row.contains_key(to.as_str()) {
                        row.insert(to, depth + 1);
                        next.push(to.as_str());
                    }
                }
            }
            frontier = next;
        }
    }
    let last = row.values().copied().max().map_or(0, |it| it + 1);
    let (w, h, gap_x, gap_y) = (150, 34, 30, 40);
    let mut in_row: BTreeMap<usize, usize> = BTreeMap::new();
    let mut place: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (id, _) in &nodes {
        let r = row.get(id.as_str()).copied().unwrap_or(last);
        let column = in_row.entry(r).or_default();
        place.insert(id, (MARGIN + *column * (w + gap_x), MARGIN + r * (h + gap_y)));
        *column += 1;
    }
    let columns = in_row.values().copied().max().unwrap_or(1);
    let rows = in_row.keys().copied().max().map_or(1, |it| it + 1);
    let width = MARGIN * 2 + columns * (w + gap_x) + 60;
    let height = MARGIN * 2 + rows * (h + gap_y);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\" \
         role=\"img\" aria-label=\"the planner graph\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#555\"/></marker></defs>"
    );
    for (from, to, label) in &edges {
        let (Some(&(fx, fy)), Some(&(tx, ty))) = (place.get(from.as_str()), place.get(to.as_str()))
        else {
            continue;
        };
        let (x1, y1) = (fx + w / 2, fy + h);
        let (x2, y2) = (tx + w / 2, ty);
        if ty > fy {
            let _ = write!(
                out,
                "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#555\" \
                 marker-end=\"url(#arrow)\"/>"
            );
        } else {
            let bend = width - MARGIN;
            let _ = write!(
                out,
                "<path d=\"M{} {} C{bend} {} {bend} {} {} {}\" fill=\"none\" stroke=\"#555\" \
                 stroke-dasharray=\"4 3\" marker-end=\"url(#arrow)\"/>",
                fx + w,
                fy + h / 2,
                fy + h / 2,
                ty + h / 2,
                tx + w,
                ty + h / 2
            );
        }
        if !label.is_empty() {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" \
                 fill=\"#1a56c4\">{}</text>",
                (x1 + x2) / 2,
                (y1 + y2) / 2 + 4,
                escape(label)
            );
        }
    }
    for (id, label) in &nodes {
        let Some(&(x, y)) = place.get(id.as_str()) else { continue };
        let _ = write!(
            out,
            "<g class=\"node\" data-id=\"{}\"><rect x=\"{x}\" y=\"{y}\" width=\"{w}\" \
             height=\"{h}\" rx=\"{}\" fill=\"#e8f0fe\" stroke=\"#1a56c4\"/><text x=\"{}\" \
             y=\"{}\" text-anchor=\"middle\">{}</text></g>",
            escape(id),
            if id.starts_with("__") { h / 2 } else { 6 },
            x + w / 2,
            y + h / 2 + 4,
            escape(&clip(label, 22))
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    //! Escaping and clipping; the full picture is exercised through the server in tests/.

    #[test]
    fn text_is_escaped_for_svg() {
        assert_eq!(super::escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn a_flowchart_draws_every_node_and_edge() {
        let svg = super::flowchart_svg(
            "flowchart TD\n    __start__([START])\n    a[a]\n    b[b]\n    __start__ --> a\n    \
             a -->|ok| b\n    b --> a\n",
        );
        assert_eq!(svg.matches("class=\"node\"").count(), 3, "{svg}");
        assert!(svg.contains(">START<") && svg.contains(">ok<"), "{svg}");
        // One back edge, drawn as a curve.
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
        assert_eq!(svg.matches("<line ").count(), 2, "{svg}");
    }

    use planner_engine::{Line, Series};

    fn line(column: &str, money: bool, values: &[Option<f64>]) -> Line {
        Line { column: column.to_owned(), money, values: values.to_vec() }
    }

    fn series(periods: &[&str], lines: Vec<Line>) -> Series {
        Series {
            period: "month".to_owned(),
            periods: periods.iter().map(|it| (*it).to_owned()).collect(),
            lines,
        }
    }

    #[test]
    fn a_two_column_series_is_one_panel() {
        let svg = super::series_svg(
            "revenue_by_month",
            &series(
                &["2025-01", "2025-02", "2025-03", "2025-04"],
                vec![line("revenue", true, &[Some(1200.5), Some(4160091428.6), None, Some(87.0)])],
            ),
        );
        assert!(svg.contains("<title>revenue_by_month: revenue by month</title>"), "{svg}");
        // Money ticks and tooltips as the text writes money.
        assert!(svg.contains(">$6,000,000,000.00<") && svg.contains(">$0.00<"), "{svg}");
        assert!(svg.contains("<title>2025-02: $4,160,091,428.60</title>"), "{svg}");
        // The missing value breaks the line: one polyline of two points, one lone point.
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        assert_eq!(svg.matches("<circle").count(), 3, "{svg}");
        assert_eq!(
            svg,
            super::series_svg(
                "revenue_by_month",
                &series(
                    &["2025-01", "2025-02", "2025-03", "2025-04"],
                    vec![line(
                        "revenue",
                        true,
                        &[Some(1200.5), Some(4160091428.6), None, Some(87.0)]
                    )],
                )
            ),
            "the same series draws the same bytes"
        );
        insta::assert_snapshot!(svg);
    }

    #[test]
    fn a_multi_column_series_is_a_panel_per_column() {
        let periods: Vec<String> = (1..=12).map(|month| format!("2025-{month:02}")).collect();
        let periods: Vec<&str> = periods.iter().map(String::as_str).collect();
        let svg = super::series_svg(
            "sales_by_month",
            &series(
                &periods,
                vec![
                    line(
                        "orders",
                        false,
                        &(1..=12).map(|n| Some(f64::from(n * 1000))).collect::<Vec<_>>(),
                    ),
                    line(
                        "revenue",
                        true,
                        &(1..=12).map(|n| Some(f64::from(n) * 2.5)).collect::<Vec<_>>(),
                    ),
                    line(
                        "margin",
                        false,
                        &(1..=12).map(|n| Some(f64::from(n - 6) / 10.0)).collect::<Vec<_>>(),
                    ),
                ],
            ),
        );
        assert_eq!(svg.matches("class=\"series\"").count(), 3, "{svg}");
        assert!(svg.contains(">15,000<") && svg.contains(">-0.5<"), "{svg}");
        assert!(svg.contains(">$30.00<"), "{svg}");
        // Twelve months: every second one is labelled.
        assert_eq!(svg.matches("class=\"period\"").count(), 6, "{svg}");
        insta::assert_snapshot!(svg);
    }

    #[test]
    fn every_text_is_escaped() {
        let hostile = "<script>alert('x')</script> & \"q\"";
        let mut drawn =
            series(&[hostile, "2025-02"], vec![line(hostile, false, &[Some(1.0), Some(2.0)])]);
        drawn.period = hostile.to_owned();
        let svg = super::series_svg(hostile, &drawn);
        assert!(
            !svg.contains("<script") && !svg.contains("'x'") && !svg.contains("\"q\""),
            "{svg}"
        );
        assert!(svg.contains("&lt;script&gt;"), "{svg}");
    }

    #[test]
    fn zero_negative_one_and_no_rows_draw_without_panicking() {
        let cases = [
            series(&["2025-01", "2025-02"], vec![line("n", false, &[Some(0.0), Some(0.0)])]),
            series(&["2025-01", "2025-02"], vec![line("n", true, &[Some(-5.0), Some(-0.25)])]),
            series(&["2025-01"], vec![line("n", false, &[Some(3.0)])]),
            series(&[], vec![line("n", false, &[])]),
            series(&["2025-01"], vec![line("n", false, &[None])]),
            series(&["2025-01"], vec![]),
            series(
                &["2025-01", "2025-02"],
                vec![line("n", false, &[Some(f64::MAX), Some(-f64::MAX)])],
            ),
            series(&["2025-01", "2025-02"], vec![line("n", false, &[Some(1e-12), Some(2e-12)])]),
        ];
        for case in cases {
            let svg = super::series_svg("x", &case);
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        }
        let negative = super::series_svg(
            "x",
            &series(&["2025-01", "2025-02"], vec![line("n", true, &[Some(-5.0), Some(-0.25)])]),
        );
        assert!(negative.contains(">-$6.00<") && negative.contains(">$0.00<"), "{negative}");
    }

    #[test]
    fn ticks_are_round_and_cover_the_values() {
        assert_eq!(super::ticks(0.0, 100.0), (vec![0.0, 50.0, 100.0], 0));
        assert_eq!(super::ticks(0.0, 70.0), (vec![0.0, 20.0, 40.0, 60.0, 80.0], 0));
        assert_eq!(super::ticks(-5.0, 0.0), (vec![-6.0, -4.0, -2.0, 0.0], 0));
        assert_eq!(super::ticks(0.0, 0.0).0, vec![-1.0, -0.5, 0.0, 0.5, 1.0]);
        assert_eq!(super::ticks(0.0, 0.3).1, 1);
    }

    #[test]
    fn long_labels_are_clipped() {
        assert_eq!(super::clip("abcdef", 4), "abc…");
        assert_eq!(super::clip("abc", 4), "abc");
    }
}
