//! The `modules:` section of a stack recipe (Lmod or Tcl module files).

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Spanned};
use crate::recipes::read::{self, Named};
use crate::recipes::{EnvOp, EnvOpKind};

use super::super::model::*;
use super::views::view_env_ops;

const MODULES_KEYS: &[&str] = &[
    "flavour",
    "projections",
    "hide_implicits",
    "exclude_implicits",
    "autoload",
    "prefix_inspections",
    "exclude",
    "include",
    "environment",
];

pub(super) fn modules(cx: &mut Cx, node: &Node) -> Option<Modules> {
    let m = cx.map(node, "`modules`", MODULES_KEYS)?;
    let flavour = match m
        .get("flavour")
        .and_then(|n| cx.choice(n, "`flavour`", &["lmod", "tcl"]))
        .as_deref()
        .map(String::as_str)
    {
        Some("tcl") => ModuleFlavour::Tcl,
        _ => ModuleFlavour::Lmod,
    };
    let mut projections = Vec::new();
    if let Some(pm) = m
        .get("projections")
        .and_then(|n| cx.open_map(n, "`projections`"))
    {
        for (k, v) in pm.entries() {
            if k.as_str() != "all" {
                let key = Spanned::new(k.as_str().to_string(), cx.scalar_loc(k));
                let _ = read::spec_from(cx, &key, "a projection key", Named::Any);
            }
            if let Some(t) = cx.string(v, "a projection") {
                projections.push((k.as_str().to_string(), t.value));
            }
        }
    }
    let hide_implicits = m
        .get("hide_implicits")
        .and_then(|n| cx.bool(n, "`hide_implicits`"))
        .unwrap_or(true);
    let exclude_implicits = m
        .get("exclude_implicits")
        .and_then(|n| cx.bool(n, "`exclude_implicits`"))
        .unwrap_or(false);
    let autoload = m
        .get("autoload")
        .and_then(|n| cx.choice(n, "`autoload`", &["direct", "none"]))
        .is_none_or(|s| s.value == "direct");
    let prefix_inspections = m
        .get("prefix_inspections")
        .map(|n| prefix_inspections(cx, n))
        .unwrap_or_default();
    let specs = |cx: &mut Cx, key: &str| {
        m.get(key)
            .map(|n| read::specs(cx, n, &format!("a `modules.{key}` entry"), Named::Any))
            .unwrap_or_default()
    };
    let exclude = specs(cx, "exclude");
    let include = specs(cx, "include");
    let environment = m
        .get("environment")
        .map(|n| module_environment(cx, n))
        .unwrap_or_default();
    Some(Modules {
        flavour,
        projections,
        hide_implicits,
        exclude_implicits,
        autoload,
        prefix_inspections,
        exclude,
        include,
        environment,
        loc: m.loc.clone(),
    })
}

/// `modules: {prefix_inspections}`: directories inside a prefix and the
/// variables they are prepended to.
fn prefix_inspections(cx: &mut Cx, node: &Node) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let Some(pm) = cx.open_map(node, "`prefix_inspections`") else {
        return out;
    };
    for (k, v) in pm.entries() {
        let dir = k.as_str().trim_start_matches("./").trim_end_matches('/');
        if dir.split('/').any(|c| c == "..") || dir.starts_with('/') {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadPath,
                &loc,
                format!(
                    "`{}` is not a directory inside a package's prefix",
                    k.as_str()
                ),
                "expected a relative path such as `lib64`",
                None,
            );
            continue;
        }
        let vars = cx.strings(v, "the variables of a prefix inspection", true);
        for var in &vars {
            read::check_var_name(cx, &var.value, &var.loc);
        }
        out.push((dir.to_string(), vars.into_iter().map(|s| s.value).collect()));
    }
    out
}

/// `modules: {environment}`: per spec (or `all`), the environment
/// operations of its modules.
fn module_environment(cx: &mut Cx, node: &Node) -> Vec<(Spanned<String>, Vec<EnvOp>)> {
    let mut environment = Vec::new();
    let Some(em) = cx.open_map(node, "`environment`") else {
        return environment;
    };
    for (k, v) in em.entries() {
        let key = Spanned::new(k.as_str().to_string(), cx.scalar_loc(k));
        if key.value != "all" {
            let _ = read::spec_from(cx, &key, "a module environment's key", Named::Any);
        }
        let Some(ops) = cx.map(v, &format!("`environment.{}`", key.value), &EnvOpKind::KEYS) else {
            continue;
        };
        let mut list = Vec::new();
        for kind in [
            EnvOpKind::Set,
            EnvOpKind::Unset,
            EnvOpKind::PrependPath,
            EnvOpKind::AppendPath,
        ] {
            if let Some(n) = ops.get(kind.key()) {
                list.extend(view_env_ops(cx, kind, n));
            }
        }
        environment.push((key, list));
    }
    environment
}
