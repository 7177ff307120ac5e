//! The plan of an answer drawn as an SVG on the server: nodes in columns by dependency depth,
//! edges labelled with the param they bind, nodes with suppressed cells marked, dropped nodes
//! greyed below with their reason. Deterministic: the same answer draws the same picture.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use planner_engine::Answer;

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

    #[test]
    fn long_labels_are_clipped() {
        assert_eq!(super::clip("abcdef", 4), "abc…");
        assert_eq!(super::clip("abc", 4), "abc");
    }
}
