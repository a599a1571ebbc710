//! `stack resolve --format tree`: per environment, each root with its
//! dependencies indented below it. A line shows `name@version`, the variants
//! whose value differs from the recipe's default, the spec's compiler flags
//! (`cflags=-fPIC`, when it has any), the first 8 digits of the
//! hash, `[external <prefix>]` for externals, and the dependency type when
//! it is not the default `build, link` (`[build]`, `[link,run]` …). A node
//! already shown in the environment is marked `(*)` and not expanded again.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use petgraph::graph::NodeIndex;

use crate::recipes::DepTypes;

use super::super::model::Plan;
use super::super::variants::is_default;

/// `name@version +nondefault … /hash8` (and the external mark).
pub(crate) fn node_line(plan: &Plan, idx: NodeIndex) -> String {
    let n = plan.node(idx);
    let mut s = n.label();
    for (k, v) in &n.variants {
        if !is_default(n.recipe.variant(k), v) {
            s.push(' ');
            s.push_str(&v.to_spec_text(k));
        }
    }
    // Spec compiler flags (`cflags=-fPIC`), when the node has any.
    for (k, f) in &n.spec.flags {
        s.push(' ');
        s.push_str(&f.to_spec_text(k));
    }
    // Per-language compilers (`%c=llvm`): the node's compiler and the
    // languages built with another.
    if !n.languages.is_empty() {
        let _ = write!(s, " %{}", n.compiler);
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for (lang, c) in &n.languages {
            let c = c.to_string();
            match groups.iter_mut().find(|(g, _)| *g == c) {
                Some((_, langs)) => langs.push(lang),
                None => groups.push((c, vec![lang])),
            }
        }
        for (c, langs) in groups {
            let _ = write!(s, " %{}={c}", langs.join(","));
        }
    }
    match &n.external {
        Some(p) => {
            let _ = write!(s, " [external {}]", p.display());
        }
        None => {
            let _ = write!(s, " /{}", n.short_hash());
        }
    }
    s
}

fn types_mark(t: DepTypes) -> String {
    if t == DepTypes::DEFAULT {
        String::new()
    } else {
        format!("[{}] ", t.names().join(","))
    }
}

/// Beyond this depth lines are not indented further: they start with
/// `… (level N) ` (a 35,000-deep chain would otherwise print gigabytes).
const MAX_INDENT: usize = 64;

/// The dependencies of `root` below it, depth first, without recursion (a
/// chain of tens of thousands of packages must not overflow the stack).
fn walk(
    plan: &Plan,
    root: NodeIndex,
    prefix: &str,
    shown: &mut BTreeSet<NodeIndex>,
    out: &mut String,
) {
    struct Frame {
        deps: std::vec::IntoIter<(NodeIndex, DepTypes)>,
        left: usize,
        prefix: String,
        depth: usize,
    }
    let frame = |idx: NodeIndex, prefix: String, depth: usize| {
        let deps = plan.deps(idx);
        Frame {
            left: deps.len(),
            deps: deps.into_iter(),
            prefix,
            depth,
        }
    };
    let mut stack = vec![frame(root, prefix.to_string(), 1)];
    while let Some(top) = stack.last_mut() {
        let Some((d, t)) = top.deps.next() else {
            stack.pop();
            continue;
        };
        top.left -= 1;
        let last = top.left == 0;
        let (branch, next) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        let again = !shown.insert(d);
        let more = again && !plan.deps(d).is_empty();
        let lead = if top.depth > MAX_INDENT {
            format!("… (level {}) ", top.depth)
        } else {
            top.prefix.clone()
        };
        let _ = writeln!(
            out,
            "{lead}{branch}{}{}{}",
            types_mark(t),
            node_line(plan, d),
            if more { " (*)" } else { "" }
        );
        if !again {
            let depth = top.depth + 1;
            let prefix = if depth > MAX_INDENT {
                String::new()
            } else {
                format!("{}{next}", top.prefix)
            };
            stack.push(frame(d, prefix, depth));
        }
    }
}

/// The plan as indented trees, one per environment.
pub fn render_tree(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "stack `{}` for cluster `{}`: target {}, {}, mount {}, {} package{}",
        plan.stack,
        plan.cluster,
        plan.target,
        plan.compiler,
        plan.mount.display(),
        plan.graph.node_count(),
        if plan.graph.node_count() == 1 {
            ""
        } else {
            "s"
        }
    );
    let compilers = plan.compilers();
    if compilers.len() > 1 || plan.os.is_some() || plan.libc.is_some() {
        let _ = writeln!(
            out,
            "os {}, libc {}",
            plan.os.as_deref().unwrap_or("unknown"),
            plan.libc.as_deref().unwrap_or("unknown")
        );
    }
    for (c, node) in &compilers {
        let _ = match node {
            Some(i) => writeln!(
                out,
                "compiler {c} (built by the stack: {})",
                node_line(plan, *i)
            ),
            None => writeln!(
                out,
                "compiler {c} (cluster: {})",
                plan.cluster_compiler_of(c).cc.path.display()
            ),
        };
    }
    for env in &plan.environments {
        let _ = writeln!(
            out,
            "\nenvironment `{}` ({} package{}, compiler {})",
            env.name,
            env.nodes.len(),
            if env.nodes.len() == 1 { "" } else { "s" },
            env.compiler
        );
        let mut shown = BTreeSet::new();
        for root in &env.roots {
            let node = plan.node(root.node);
            let via = match root.spec.name() {
                Some(n) if n != node.name => format!(" (for `{n}`)"),
                _ => String::new(),
            };
            let again = !shown.insert(root.node);
            let more = again && !plan.deps(root.node).is_empty();
            let _ = writeln!(
                out,
                "{}{via}{}",
                node_line(plan, root.node),
                if more { " (*)" } else { "" }
            );
            if !again {
                walk(plan, root.node, "", &mut shown, &mut out);
            }
        }
    }
    out
}
