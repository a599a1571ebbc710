//! The `views:` of a stack recipe's environments, and the check that view
//! names are unique across environments.

use crate::diag::yaml::{self, Cx, Map, Node};
use crate::diag::{Code, Diagnostic, Spanned};
use crate::recipes::read;
use crate::recipes::{EnvOp, EnvOpKind};

use super::super::model::*;
use super::check_identifier;

const VIEW_KEYS: &[&str] = &[
    "link",
    "select",
    "exclude",
    "description",
    "prefix_paths",
    "env_vars",
    "add_compilers",
];

pub(super) fn views(cx: &mut Cx, node: &Node) -> Vec<View> {
    let Some(m) = cx.open_map(node, "`views`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in m.entries() {
        let name = Spanned::new(key.as_str().to_string(), cx.scalar_loc(key));
        check_identifier(cx, &name, "a view name");
        let what = format!("view `{}`", name.value);
        let mut view = View {
            name,
            link: ViewLink::Roots,
            select: Vec::new(),
            exclude: Vec::new(),
            description: None,
            prefix_paths: Vec::new(),
            env_vars: Vec::new(),
            add_compilers: false,
        };
        let is_null = matches!(value, Node::Scalar(s) if yaml::is_null(s));
        if !is_null {
            if let Some(vm) = cx.map(value, &what, VIEW_KEYS) {
                view_fields(cx, &vm, &mut view);
            }
        }
        out.push(view);
    }
    out
}

fn view_fields(cx: &mut Cx, m: &Map, view: &mut View) {
    if let Some(n) = m.get("link") {
        view.link = match cx
            .choice(n, "`link`", &ViewLink::NAMES)
            .as_deref()
            .map(String::as_str)
        {
            Some("all") => ViewLink::All,
            Some("run") => ViewLink::Run,
            _ => ViewLink::Roots,
        };
    }
    view.select = m
        .get("select")
        .map(|n| cx.strings(n, "`select`", false))
        .unwrap_or_default();
    view.exclude = m
        .get("exclude")
        .map(|n| cx.strings(n, "`exclude`", false))
        .unwrap_or_default();
    view.add_compilers = m
        .get("add_compilers")
        .and_then(|n| cx.bool(n, "`add_compilers`"))
        .unwrap_or(false);
    view.description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    if let Some(pm) = m
        .get("prefix_paths")
        .and_then(|n| cx.open_map(n, "`prefix_paths`"))
    {
        for (k, v) in pm.entries() {
            let loc = cx.scalar_loc(k);
            read::check_var_name(cx, k.as_str(), &loc);
            let dirs = cx
                .strings(v, "a `prefix_paths` entry", true)
                .into_iter()
                .map(|s| s.value)
                .collect();
            view.prefix_paths.push((k.as_str().to_string(), dirs));
        }
    }
    if let Some(em) = m
        .get("env_vars")
        .and_then(|n| cx.map(n, "`env_vars`", &EnvOpKind::KEYS))
    {
        for kind in [
            EnvOpKind::Set,
            EnvOpKind::Unset,
            EnvOpKind::PrependPath,
            EnvOpKind::AppendPath,
        ] {
            if let Some(n) = em.get(kind.key()) {
                view.env_vars.extend(view_env_ops(cx, kind, n));
            }
        }
    }
}

/// `set: [{VAR: value}]`, `unset: [VAR]`, `prepend_path: [{VAR: value}]` …
pub(super) fn view_env_ops(cx: &mut Cx, kind: EnvOpKind, node: &Node) -> Vec<EnvOp> {
    let what = format!("`env_vars.{}`", kind.key());
    let Some(items) = cx.seq(node, &what) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        if kind == EnvOpKind::Unset {
            if let Some(v) = cx.string(item, &what) {
                read::check_var_name(cx, &v, &v.loc);
                out.push(EnvOp {
                    kind,
                    var: v.value,
                    value: String::new(),
                    when: None,
                    loc: v.loc,
                });
            }
            continue;
        }
        let Some(m) = cx.open_map(item, &what) else {
            continue;
        };
        for (k, v) in m.entries() {
            let loc = cx.scalar_loc(k);
            read::check_var_name(cx, k.as_str(), &loc);
            if let Some(value) = cx.string(v, &format!("the value of {}", k.as_str())) {
                crate::recipes::placeholders::check(cx, &value);
                out.push(EnvOp {
                    kind,
                    var: k.as_str().to_string(),
                    value: value.value,
                    when: None,
                    loc,
                });
            }
        }
    }
    out
}

/// View names are unique across environments; `default_view` names one.
pub(super) fn check_views(cx: &mut Cx, recipe: &StackRecipe) {
    let mut seen: Vec<&Spanned<String>> = Vec::new();
    for (_, view) in recipe.views() {
        if let Some(prev) = seen.iter().find(|v| v.value == view.name.value) {
            let d = Diagnostic::error(
                Code::Duplicate,
                format!("view `{}` is defined twice", view.name.value),
            )
            .at(&view.name.loc, "defined again here")
            .at(&prev.loc, "first defined here")
            .with_help("view names must be unique across environments");
            cx.push(d);
        } else {
            seen.push(&view.name);
        }
    }
    if let Some(dv) = &recipe.default_view {
        if !seen.iter().any(|v| v.value == dv.value) {
            let names: Vec<&str> = seen.iter().map(|v| v.value.as_str()).collect();
            cx.error(
                Code::InvalidValue,
                &dv.loc,
                format!("`default_view` names `{}`, which is not a view", dv.value),
                "no such view",
                crate::diag::did_you_mean(dv, &names).or_else(|| {
                    Some(if names.is_empty() {
                        "no environment defines `views`".to_string()
                    } else {
                        format!("views: {}", names.join(", "))
                    })
                }),
            );
        }
    }
}
