//! `stack resolve --format dot`: the plan for graphviz (`dot -Tsvg`).
//! Nodes are boxes labelled `name@version` and the short hash (externals
//! dashed, roots with a double border); edges point from a package to its
//! dependency, labelled with the dependency types (build-only dashed,
//! run-only dotted).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::super::model::Plan;
use super::tree::node_line;

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The whole plan as a dot digraph.
pub fn render_dot(plan: &Plan) -> String {
    let roots: BTreeSet<_> = plan
        .environments
        .iter()
        .flat_map(|e| e.roots.iter().map(|r| r.node))
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&plan.stack));
    let _ = writeln!(out, "  rankdir=LR;");
    let _ = writeln!(out, "  node [shape=box, fontname=\"monospace\"];");
    let nodes = plan.nodes_sorted();
    for &i in &nodes {
        let n = plan.node(i);
        let mut attrs = vec![format!(
            "label={}",
            quote(&node_line(plan, i)).replacen(' ', "\\n", 1)
        )];
        if n.is_external() {
            attrs.push("style=dashed".into());
        }
        if roots.contains(&i) {
            attrs.push("peripheries=2".into());
        }
        let _ = writeln!(
            out,
            "  {} [{}];",
            quote(&n.hash[..12.min(n.hash.len())]),
            attrs.join(", ")
        );
    }
    for &i in &nodes {
        let n = plan.node(i);
        for (d, t) in plan.deps(i) {
            let mut attrs = vec![format!("label={}", quote(&t.names().join(",")))];
            if !t.link && !t.run {
                attrs.push("style=dashed".into());
            } else if !t.link && !t.build {
                attrs.push("style=dotted".into());
            }
            let _ = writeln!(
                out,
                "  {} -> {} [{}];",
                quote(&n.hash[..12.min(n.hash.len())]),
                quote(&plan.node(d).hash[..12.min(plan.node(d).hash.len())]),
                attrs.join(", ")
            );
        }
    }
    out.push_str("}\n");
    out
}
