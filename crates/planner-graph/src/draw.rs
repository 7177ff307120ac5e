//! Mermaid and DOT drawings of a compiled graph: byte-stable, edges labelled with route names.
//!
//! Nodes appear in the order they were added; each node's edges follow its route order, with
//! the routes that share a target merged into one edge labelled `a, b`. Fan-out edges are drawn
//! thick (Mermaid `==>`) or bold (DOT).

use std::fmt::Write;

use crate::{
    graph::{Graph, Hop},
    node::NodeId,
    state::GraphState,
};

const START: &str = "__start__";
const END: &str = "__end__";

/// One drawn edge: from, to, route labels, whether it belongs to a fan-out.
struct Edge {
    from: &'static str,
    to: &'static str,
    labels: Vec<&'static str>,
    fan_out: bool,
}

impl<N: NodeId, S: GraphState, C: Send + Sync + 'static> Graph<N, S, C> {
    /// A Mermaid flowchart of the graph.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        let _ = writeln!(out, "    {START}([START])");
        for name in self.node_names() {
            let _ = writeln!(out, "    {name}[{name}]");
        }
        let _ = writeln!(out, "    {END}([END])");
        for edge in self.edges() {
            let arrow = if edge.fan_out { "==>" } else { "-->" };
            let label = edge.labels.join(", ");
            if label.is_empty() {
                let _ = writeln!(out, "    {} {arrow} {}", edge.from, edge.to);
            } else {
                let _ = writeln!(out, "    {} {arrow}|{label}| {}", edge.from, edge.to);
            }
        }
        out
    }

    /// A Graphviz DOT digraph of the graph.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph G {\n    rankdir=TB;\n");
        let _ = writeln!(out, "    \"{START}\" [label=\"START\", shape=oval];");
        for name in self.node_names() {
            let _ = writeln!(out, "    \"{name}\" [shape=box];");
        }
        let _ = writeln!(out, "    \"{END}\" [label=\"END\", shape=oval];");
        for edge in self.edges() {
            let mut attrs = Vec::new();
            let label = edge.labels.join(", ");
            if !label.is_empty() {
                attrs.push(format!("label=\"{label}\""));
            }
            if edge.fan_out {
                attrs.push("style=bold".to_owned());
            }
            let attrs =
                if attrs.is_empty() { String::new() } else { format!(" [{}]", attrs.join(", ")) };
            let _ = writeln!(out, "    \"{}\" -> \"{}\"{attrs};", edge.from, edge.to);
        }
        out.push_str("}\n");
        out
    }

    fn edges(&self) -> Vec<Edge> {
        let slots = &self.inner.slots;
        let mut edges = vec![Edge {
            from: START,
            to: slots[self.inner.start].name,
            labels: vec![],
            fan_out: false,
        }];
        for slot in slots.iter() {
            let mine = edges.len();
            let mut add = |to: &'static str, label: &'static str, fan_out: bool| match edges[mine..]
                .iter_mut()
                .find(|it| it.to == to && it.fan_out == fan_out)
            {
                Some(edge) if !label.is_empty() => edge.labels.push(label),
                Some(_) => {}
                None => {
                    let labels = if label.is_empty() { vec![] } else { vec![label] };
                    edges.push(Edge { from: slot.name, to, labels, fan_out });
                }
            };
            for (hop, &label) in slot.hops.iter().zip(&slot.labels) {
                match hop {
                    Hop::Node(i) => add(slots[*i].name, label, false),
                    Hop::End => add(END, label, false),
                    Hop::FanOut { branches, .. } => {
                        for &b in branches {
                            add(slots[b].name, label, true);
                        }
                    }
                }
            }
        }
        edges
    }
}
