//! The plan as a graph: an SVG of every package (one node each) with its
//! edges, laid out by [`super::layout`], the critical path drawn over it;
//! and, for the environment switch, a layout of each environment alone.

use std::fmt::Write;

use super::layout::{self, Layout, Params};
use super::model::Model;
use super::text::{duration, esc, fit, num};

/// Characters of a label that fit a node.
const LABEL_CHARS: usize = 25;

/// The graph section.
pub fn section(m: &Model) -> String {
    let p = Params::default();
    let pairs: Vec<(usize, usize)> = m.edges.iter().map(|e| (e.0, e.1)).collect();
    let full = layout::layout(m.pkgs.len(), &pairs, &p);
    let mut out = String::new();
    out.push_str("<section id=\"graph\"><h2>Plan</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{} packages in {} layers, {} edges; dependencies left of their dependents. {}</p>",
        m.pkgs.len(),
        full.layer.iter().copied().max().map_or(0, |l| l + 1),
        m.edges.len(),
        critical_note(m)
    );
    controls(m, &mut out);
    out.push_str("<div class=\"graph-box\">");
    svg(m, &full, &p, &mut out);
    out.push_str("</div>\n");
    env_layouts(m, &p, &mut out);
    out.push_str("</section>\n");
    out
}

fn critical_note(m: &Model) -> String {
    if m.critical.is_empty() {
        return "No package was built in this run: no critical path.".into();
    }
    let names: Vec<String> = m.critical.iter().map(|&i| m.pkgs[i].name.clone()).collect();
    format!(
        "Critical path ({}, the longest chain of build times): {}.",
        duration(m.critical_seconds),
        esc(&names.join(" → "))
    )
}

fn controls(m: &Model, out: &mut String) {
    out.push_str("<div class=\"controls\"><span>Environment:</span> <button type=\"button\" class=\"env on\" data-env=\"\">all</button>");
    for (k, e) in m.envs.iter().enumerate() {
        let n = m.pkgs.iter().filter(|p| p.envs.contains(&k)).count();
        let _ = write!(
            out,
            " <button type=\"button\" class=\"env\" data-env=\"{k}\">{} ({n})</button>",
            esc(e)
        );
    }
    out.push_str(
        " <span class=\"sep\"></span><button type=\"button\" id=\"zoom-out\" title=\"smaller\">−</button>\
         <button type=\"button\" id=\"zoom-in\" title=\"larger\">+</button>\
         <button type=\"button\" id=\"zoom-fit\" title=\"fit the width\">fit</button>\
         <span class=\"legend\"><i class=\"s-built\"></i>built <i class=\"s-remote\"></i>built remotely \
         <i class=\"s-cache\"></i>binary cache <i class=\"s-installed\"></i>already installed \
         <i class=\"s-failed\"></i>failed <i class=\"s-skipped\"></i>skipped <i class=\"s-external\"></i>external \
         <b class=\"crit\"></b>critical path <u class=\"link\"></u>link <u class=\"build\"></u>build only \
         <u class=\"run\"></u>run only</span></div>\n",
    );
}

fn svg(m: &Model, l: &Layout, p: &Params, out: &mut String) {
    let (w, h) = (num(l.width), num(l.height));
    let _ = write!(
        out,
        "<svg id=\"plan\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" data-w=\"{w}\" data-h=\"{h}\" data-nw=\"{}\" data-nh=\"{}\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"7\" \
         markerHeight=\"7\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0L6,3L0,6z\"/></marker></defs><g class=\"edges\">",
        num(p.node_w),
        num(p.node_h)
    );
    for (k, &(d, u, kind)) in m.edges.iter().enumerate() {
        let crit = on_critical_edge(m, d, u);
        // Edges across more than two layers are drawn fainter.
        let long = l.layer[u] > l.layer[d] + 2;
        let _ = write!(
            out,
            "<path class=\"edge {}{}{}\" data-d=\"{d}\" data-u=\"{u}\" d=\"{}\"/>",
            kind.class(),
            if crit { " crit" } else { "" },
            if long { " long" } else { "" },
            path_d(&l.edges[k])
        );
    }
    out.push_str("</g><g class=\"nodes\">");
    for (i, pkg) in m.pkgs.iter().enumerate() {
        let (x, y) = l.nodes[i];
        let envs: Vec<String> = pkg.envs.iter().map(|e| e.to_string()).collect();
        let mut tip = format!("{} — {}", pkg.label(), pkg.status_text());
        if let Some(s) = pkg.seconds() {
            let _ = write!(tip, ", {}", duration(s));
        }
        if !pkg.variants.is_empty() {
            let _ = write!(tip, "\n{}", pkg.variants);
        }
        let names: Vec<&str> = pkg.envs.iter().map(|&e| m.envs[e].as_str()).collect();
        if !names.is_empty() {
            let _ = write!(tip, "\nenvironments: {}", names.join(", "));
        }
        let _ = write!(
            out,
            "<g class=\"node {}{}\" data-i=\"{i}\" data-env=\"{}\" transform=\"translate({},{})\">\
             <rect width=\"{}\" height=\"{}\" rx=\"4\"/><text x=\"6\" y=\"15\">{}</text><title>{}</title></g>",
            pkg.class(),
            if m.on_critical(i) { " crit" } else { "" },
            envs.join(" "),
            num(x),
            num(y),
            num(p.node_w),
            num(p.node_h),
            esc(&fit(&pkg.label(), LABEL_CHARS)),
            esc(&tip)
        );
    }
    out.push_str("</g></svg>");
}

/// Whether `d → u` is a step of the critical path.
fn on_critical_edge(m: &Model, d: usize, u: usize) -> bool {
    m.critical.windows(2).any(|w| w[0] == d && w[1] == u)
}

/// An SVG path through `pts`: horizontal runs straight, bends as curves.
pub fn path_d(pts: &[(f64, f64)]) -> String {
    let mut s = String::new();
    let Some(&(x0, y0)) = pts.first() else {
        return s;
    };
    let _ = write!(s, "M{},{}", num(x0), num(y0));
    for w in pts.windows(2) {
        let ((ax, ay), (bx, by)) = (w[0], w[1]);
        if (ay - by).abs() < 0.05 {
            let _ = write!(s, "H{}", num(bx));
        } else {
            let mx = (ax + bx) / 2.0;
            let _ = write!(
                s,
                "C{},{} {},{} {},{}",
                num(mx),
                num(ay),
                num(mx),
                num(by),
                num(bx),
                num(by)
            );
        }
    }
    s
}

/// Each environment laid out alone, as JSON for the environment switch:
/// `{"0": {"w": …, "h": …, "p": {"3": [x, y], …}}, …}`.
fn env_layouts(m: &Model, p: &Params, out: &mut String) {
    let mut json = serde_json::Map::new();
    for k in 0..m.envs.len() {
        let members: Vec<usize> = (0..m.pkgs.len())
            .filter(|&i| m.pkgs[i].envs.contains(&k))
            .collect();
        let local: std::collections::HashMap<usize, usize> =
            members.iter().enumerate().map(|(j, &i)| (i, j)).collect();
        let pairs: Vec<(usize, usize)> = m
            .edges
            .iter()
            .filter_map(|&(d, u, _)| Some((*local.get(&d)?, *local.get(&u)?)))
            .collect();
        let l = layout::layout(members.len(), &pairs, p);
        let mut pos = serde_json::Map::new();
        for (j, &i) in members.iter().enumerate() {
            let (x, y) = l.nodes[j];
            pos.insert(
                i.to_string(),
                serde_json::json!([x.round() as i64, y.round() as i64]),
            );
        }
        json.insert(
            k.to_string(),
            serde_json::json!({"w": l.width.round() as i64, "h": l.height.round() as i64, "p": pos}),
        );
    }
    // `</` cannot occur in this JSON (numbers and keys only).
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"env-layouts\">{}</script>",
        serde_json::Value::Object(json)
    );
}

#[cfg(test)]
mod tests {
    use super::super::model::EdgeKind;
    use super::*;

    #[test]
    fn paths_run_straight_and_bend_as_curves() {
        assert_eq!(
            path_d(&[(0.0, 5.0), (10.0, 5.0), (20.0, 15.0)]),
            "M0,5H10C15,5 15,15 20,15"
        );
        assert_eq!(path_d(&[]), "");
    }

    #[test]
    fn edge_kinds_have_classes() {
        assert_eq!(EdgeKind::Build.class(), "build");
    }
}
