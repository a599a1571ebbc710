//! One stackinator view (`views:` of an environment) → our view.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};
use crate::import::yaml_out::Yaml;

use super::packages::{is_null, spanned};

/// The view `name` (`node` may be null: all defaults). Stackinator's
/// defaults are written out: `link: roots` and `add_compilers: true` (the
/// environment's compilers in the view's `bin/`).
pub fn view(cx: &mut Cx, name: &str, node: &Node) -> Yaml {
    let mut out: Vec<(String, Yaml)> = Vec::new();
    if is_null(node) {
        return Yaml::Map(vec![
            ("link".into(), Yaml::str("roots")),
            ("add_compilers".into(), Yaml::Bool(true)),
        ]);
    }
    let what = format!("view `{name}`");
    let Some(m) = cx.map(
        node,
        &what,
        &["link", "select", "exclude", "projections", "uenv"],
    ) else {
        return Yaml::Map(out);
    };
    match m.get("link") {
        Some(n) => {
            if let Some(l) = cx.choice(n, "`link`", &["roots", "all", "run"]) {
                out.push(("link".into(), spanned(&l)));
            }
        }
        None => out.push(("link".into(), Yaml::str("roots"))),
    }
    for key in ["select", "exclude"] {
        if let Some(n) = m.get(key) {
            // Spack takes specs here; we take package names.
            let names: Vec<Yaml> = cx
                .strings(n, key, true)
                .into_iter()
                .map(|s| {
                    let name: String = s
                        .value
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    if name != s.value {
                        cx.warn(
                            Code::Unsupported,
                            &s.loc,
                            format!(
                                "`{}`: views select packages by name; `{name}` is used",
                                s.value
                            ),
                            "spec reduced to its name",
                            None,
                        );
                    }
                    Yaml::at(Yaml::str(name), &s.loc)
                })
                .collect();
            out.push((key.into(), Yaml::Seq(names)));
        }
    }
    if let Some(k) = m.key_node("projections") {
        let loc = cx.scalar_loc(k);
        cx.warn(
            Code::Unsupported,
            &loc,
            "view `projections` are not supported: views are merged trees; ignored",
            "ignored",
            None,
        );
    }
    let uenv = m
        .get("uenv")
        .and_then(|n| cx.map(n, "`uenv`", &["add_compilers", "prefix_paths", "env_vars"]));
    let add_compilers = uenv
        .as_ref()
        .and_then(|u| u.get("add_compilers"))
        .and_then(|n| cx.bool(n, "`add_compilers`").map(|b| (b, cx.loc(n))));
    out.push((
        "add_compilers".into(),
        match add_compilers {
            Some((b, at)) => Yaml::at(Yaml::Bool(b), &at),
            None => Yaml::Bool(true),
        },
    ));
    if let Some(u) = uenv {
        if let Some(pp) = u
            .get("prefix_paths")
            .and_then(|n| cx.open_map(n, "`prefix_paths`"))
        {
            let mut paths = Vec::new();
            for (k, v) in pp.entries() {
                let dirs: Vec<Yaml> = cx
                    .strings(v, "a prefix path", true)
                    .iter()
                    .map(spanned)
                    .collect();
                let at = cx.scalar_loc(k);
                paths.push((k.as_str().to_string(), Yaml::at(Yaml::Seq(dirs), &at)));
            }
            out.push(("prefix_paths".into(), Yaml::Map(paths)));
        }
        if let Some(ev) = u.get("env_vars") {
            out.push(("env_vars".into(), env_vars(cx, ev)));
        }
    }
    Yaml::Map(out)
}

/// `set: [{VAR: value|null}]` (null: unset), `prepend_path`, `append_path`.
fn env_vars(cx: &mut Cx, node: &Node) -> Yaml {
    let Some(m) = cx.map(node, "`env_vars`", &["set", "prepend_path", "append_path"]) else {
        return Yaml::Map(Vec::new());
    };
    let mut set = Vec::new();
    let mut unset = Vec::new();
    let mut lists: Vec<(String, Yaml)> = Vec::new();
    if let Some(items) = m.get("set").and_then(|n| cx.seq(n, "`set`")) {
        for item in items {
            let Some(e) = cx.open_map(item, "a `set` entry") else {
                continue;
            };
            for (k, v) in e.entries() {
                let at = cx.scalar_loc(k);
                if is_null(v) {
                    unset.push(Yaml::at(Yaml::str(k.as_str()), &at));
                } else if let Some(s) = cx.string(v, "a value") {
                    set.push(Yaml::at(
                        Yaml::Map(vec![(k.as_str().to_string(), spanned(&s))]),
                        &at,
                    ));
                }
            }
        }
    }
    if !set.is_empty() {
        lists.push(("set".into(), Yaml::Seq(set)));
    }
    if !unset.is_empty() {
        lists.push(("unset".into(), Yaml::Seq(unset)));
    }
    for key in ["prepend_path", "append_path"] {
        let Some(items) = m.get(key).and_then(|n| cx.seq(n, key)) else {
            continue;
        };
        let mut ops = Vec::new();
        for item in items {
            let Some(e) = cx.open_map(item, key) else {
                continue;
            };
            for (k, v) in e.entries() {
                let at = cx.scalar_loc(k);
                if let Some(s) = cx.string(v, "a path") {
                    ops.push(Yaml::at(
                        Yaml::Map(vec![(k.as_str().to_string(), spanned(&s))]),
                        &at,
                    ));
                }
            }
        }
        lists.push((key.into(), Yaml::Seq(ops)));
    }
    Yaml::Map(lists)
}
