//! One stackinator view (`views:` of an environment) → our view.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};
use crate::import::yaml_out::Yaml;

use super::packages::is_null;

/// The view `name` (`node` may be null: all defaults).
pub fn view(cx: &mut Cx, name: &str, node: &Node) -> Yaml {
    let mut out: Vec<(String, Yaml)> = Vec::new();
    if is_null(node) {
        return Yaml::Map(vec![("link".into(), Yaml::str("roots"))]);
    }
    let what = format!("view `{name}`");
    let Some(m) = cx.map(
        node,
        &what,
        &["link", "select", "exclude", "projections", "uenv"],
    ) else {
        return Yaml::Map(out);
    };
    if let Some(l) = m
        .get("link")
        .and_then(|n| cx.choice(n, "`link`", &["roots", "all", "run"]))
    {
        out.push(("link".into(), Yaml::str(l.value)));
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
                    Yaml::str(name)
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
    if let Some(u) = m
        .get("uenv")
        .and_then(|n| cx.map(n, "`uenv`", &["add_compilers", "prefix_paths", "env_vars"]))
    {
        if let Some(pp) = u
            .get("prefix_paths")
            .and_then(|n| cx.open_map(n, "`prefix_paths`"))
        {
            let mut paths = Vec::new();
            for (k, v) in pp.entries() {
                let dirs = cx.strings(v, "a prefix path", true);
                let dirs: Vec<String> = dirs.into_iter().map(|s| s.value).collect();
                paths.push((k.as_str().to_string(), Yaml::strs(&dirs)));
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
                if is_null(v) {
                    unset.push(Yaml::str(k.as_str()));
                } else if let Some(s) = cx.string(v, "a value") {
                    set.push(Yaml::Map(vec![(
                        k.as_str().to_string(),
                        Yaml::str(s.value),
                    )]));
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
                if let Some(s) = cx.string(v, "a path") {
                    ops.push(Yaml::Map(vec![(
                        k.as_str().to_string(),
                        Yaml::str(s.value),
                    )]));
                }
            }
        }
        lists.push((key.into(), Yaml::Seq(ops)));
    }
    Yaml::Map(lists)
}
