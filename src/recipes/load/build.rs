//! Reading the `build:` section of a package recipe.

use std::path::Path;

use crate::build_kinds::{self, BuildKind};
use crate::diag::yaml::{Cx, Map, Node};
use crate::diag::{Code, Spanned, backticked, did_you_mean};

use super::super::build::*;
use super::super::read;

const COMMON_KEYS: &[&str] = &["system", "install", "build_env", "steps", "filter", "flags"];

/// Keys each build system accepts besides [`COMMON_KEYS`] (the registry,
/// [`crate::build_kinds`]).
fn system_keys(system: &str) -> Vec<&'static str> {
    build_kinds::get(system).map_or_else(Vec::new, build_kinds::key_names)
}

/// The kind's keys, each read by its type (defaults for absent keys; a
/// package file key is required). Package files are below the `spack/`
/// directory beside `repo_dir`.
fn system_settings(
    cx: &mut Cx,
    m: &Map,
    kind: &'static dyn BuildKind,
    repo_dir: &Path,
) -> BuildSystem {
    let mut system = BuildSystem::new(kind);
    for (key, setting) in &mut system.settings {
        let Some(n) = m.get(key) else {
            if matches!(setting, Setting::File(_)) {
                cx.error(
                    Code::MissingField,
                    &m.loc,
                    format!("`build` of system `{}` needs `{key}`", kind.name()),
                    format!("no `{key}`"),
                    Some(format!(
                        "`{key}: {{file: <namespace>/<dir>/package.py, sha256: …}}`, the file below the `spack/` directory beside the repository"
                    )),
                );
            }
            continue;
        };
        let what = format!("`{key}`");
        match setting {
            Setting::File(f) => *f = super::package_files::package_file(cx, n, repo_dir),
            Setting::Files(list) => {
                *list = super::package_files::package_files(cx, n, repo_dir, &what)
            }
            Setting::Toggle(t) => *t = toggle(cx, n, &what),
            Setting::Flag(b) => *b = cx.bool(n, &what).unwrap_or(false),
            Setting::Args(a) => *a = read::arg_list(cx, n, &what),
            Setting::Text(t) => *t = cx.string(n, &what).map(|s| s.value),
            Setting::Words(w) => *w = read::arg_list(cx, n, &what),
            Setting::Relocate(r) => *r = relocate(cx, n),
        }
    }
    system
}

/// Read `build:` of a recipe in the repository directory `repo_dir`.
pub fn build(cx: &mut Cx, node: &Node, repo_dir: &Path) -> Option<Build> {
    let m = cx.open_map(node, "`build`")?;
    let system = cx
        .required(&m, "system", "`build`")
        .and_then(|n| cx.string(n, "`system`"));
    let known = system
        .as_ref()
        .filter(|s| build_kinds::get(s.as_str()).is_some());
    if let Some(s) = &system {
        if known.is_none() {
            let names = build_kinds::names();
            cx.error(
                Code::UnknownBuildSystem,
                &s.loc,
                format!("unknown build system `{}`", s.value),
                format!("expected one of {}", names.join(", ")),
                did_you_mean(s, &names),
            );
        }
    }
    check_keys(cx, &m, known.map(|s| s.as_str()));

    let install = m
        .get("install")
        .map(|n| install_steps(cx, n))
        .unwrap_or_default();
    let build_env = m
        .get("build_env")
        .map(|n| read::env_ops(cx, n, "`build_env`"))
        .unwrap_or_default();
    let steps = m.get("steps").map(|n| steps(cx, n)).unwrap_or_default();
    let filters = m
        .get("filter")
        .map(|n| super::filter::filters(cx, n))
        .unwrap_or_default();
    let flags = m
        .get("flags")
        .map(|n| super::super::flags::flags(cx, n))
        .unwrap_or_default();
    let system_value = known?.clone();
    let kind = build_kinds::get(system_value.as_str())?;
    let system = system_settings(cx, &m, kind, repo_dir);
    Some(Build {
        system,
        install,
        build_env,
        steps,
        filters,
        flags,
        loc: system_value.loc,
    })
}

/// Unknown keys, and keys that belong to another build system.
fn check_keys(cx: &mut Cx, m: &Map, system: Option<&str>) {
    let all: Vec<&str> = COMMON_KEYS
        .iter()
        .copied()
        .chain(
            build_kinds::KINDS
                .iter()
                .flat_map(|k| build_kinds::key_names(*k)),
        )
        .collect();
    let own: Vec<&str> = COMMON_KEYS
        .iter()
        .copied()
        .chain(system.map(system_keys).unwrap_or_default())
        .collect();
    for (k, _) in m.entries() {
        let key = k.as_str();
        if own.contains(&key) {
            continue;
        }
        let loc = cx.scalar_loc(k);
        if all.contains(&key) {
            let Some(system) = system else { continue };
            let users: Vec<&str> = build_kinds::KINDS
                .iter()
                .filter(|k| build_kinds::key_names(**k).contains(&key))
                .map(|k| k.name())
                .collect();
            cx.error(
                Code::UnknownKey,
                &loc,
                format!("`{key}` is not used by the `{system}` build system"),
                format!("only for {}", users.join(", ")),
                Some(format!("keys for `{system}`: {}", backticked(&own))),
            );
        } else {
            cx.error(
                Code::UnknownKey,
                &loc,
                format!("unknown key `{key}` in `build`"),
                "unknown key",
                // This build system's keys first (`args` → `meson_args`).
                did_you_mean(key, &own)
                    .or_else(|| did_you_mean(key, &all))
                    .or_else(|| system.map(|s| format!("keys for `{s}`: {}", backticked(&own)))),
            );
        }
    }
}

fn toggle(cx: &mut Cx, node: &Node, what: &str) -> Toggle {
    match node {
        Node::Mapping(_) => {
            let Some(m) = cx.map(node, what, &["when"]) else {
                return Toggle::Off;
            };
            match cx
                .required(&m, "when", what)
                .and_then(|n| read::when(cx, n))
            {
                Some(w) => Toggle::When(w),
                None => Toggle::Off,
            }
        }
        _ => match cx.bool(node, what) {
            Some(true) => Toggle::On,
            _ => Toggle::Off,
        },
    }
}

/// Flag install-step paths that are known (no template) to leave the
/// prefix or the build directory; the build refuses them too.
fn check_install_path(cx: &mut Cx, key: &str, s: &crate::diag::Spanned<String>) {
    use std::path::{Component, Path};
    if s.value.contains("{{") {
        return;
    }
    let p = Path::new(&s.value);
    let leaves = p.is_absolute() || p.components().any(|c| c == Component::ParentDir);
    match key {
        "to" | "mkdir" | "at" if leaves => cx.error(
            Code::InvalidValue,
            &s.loc,
            format!("`{key}` must be a relative path inside the prefix"),
            "leaves the prefix",
            Some("install destinations are relative to the prefix, without `..`".into()),
        ),
        "copy" if leaves => cx.error(
            Code::InvalidValue,
            &s.loc,
            "`copy` must be a relative path inside the build directory",
            "leaves the build directory",
            None,
        ),
        "symlink" if p.is_absolute() => cx.warn(
            Code::InvalidValue,
            &s.loc,
            "an absolute link target outside the stack",
            "points outside the prefix",
            Some("the image holds it as is; later install steps never write through it".into()),
        ),
        _ => {}
    }
}

fn install_steps(cx: &mut Cx, node: &Node) -> Vec<InstallStep> {
    let Some(items) = cx.seq(node, "`install`") else {
        return Vec::new();
    };
    let keys = &["copy", "to", "mkdir", "symlink", "at", "when"];
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "an install step", keys) else {
            continue;
        };
        let when = m.get("when").and_then(|n| read::when(cx, n));
        let get = |cx: &mut Cx, key: &str| {
            let s = m
                .get(key)
                .and_then(|n| cx.nonempty_string(n, &format!("`{key}`")));
            if let Some(s) = &s {
                read::check_templates(cx, std::slice::from_ref(s));
                check_install_path(cx, key, s);
            }
            s.map(|s| s.value)
        };
        let action = match (m.has("copy"), m.has("mkdir"), m.has("symlink")) {
            (true, false, false) => {
                let from = get(cx, "copy");
                let to = need(cx, &m, "to", "a `copy` step").and_then(|_| get(cx, "to"));
                from.zip(to)
                    .map(|(from, to)| InstallAction::Copy { from, to })
            }
            (false, true, false) => get(cx, "mkdir").map(|path| InstallAction::Mkdir { path }),
            (false, false, true) => {
                let target = get(cx, "symlink");
                let at = need(cx, &m, "at", "a `symlink` step").and_then(|_| get(cx, "at"));
                target
                    .zip(at)
                    .map(|(target, at)| InstallAction::Symlink { target, at })
            }
            _ => {
                cx.error(
                    Code::InvalidValue,
                    &m.loc,
                    "an install step needs exactly one of `copy` (with `to`), `mkdir`, `symlink` (with `at`)",
                    "one action per step",
                    None,
                );
                None
            }
        };
        for (key, owner) in [("to", "copy"), ("at", "symlink")] {
            if m.has(key) && !m.has(owner) {
                let loc = cx.scalar_loc(m.key_node(key).expect("present"));
                cx.error(
                    Code::UnknownKey,
                    &loc,
                    format!("`{key}` only goes with `{owner}`"),
                    "not used here",
                    None,
                );
            }
        }
        if let Some(action) = action {
            out.push(InstallStep {
                action,
                when,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

fn need<'n>(cx: &mut Cx, m: &Map<'n>, key: &str, what: &str) -> Option<&'n Node> {
    cx.required(m, key, what)
}

fn steps(cx: &mut Cx, node: &Node) -> Vec<Step> {
    let keys: Vec<&str> = Phase::ALL.iter().map(|p| p.key()).collect();
    let Some(m) = cx.map(node, "`steps`", &keys) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for phase in Phase::ALL {
        let Some(list) = m.get(phase.key()) else {
            continue;
        };
        let what = format!("`steps.{}`", phase.key());
        let Some(items) = cx.seq(list, &what) else {
            continue;
        };
        for item in items {
            let (argv, when, loc) = match item {
                Node::Mapping(_) => {
                    let Some(sm) = cx.map(item, "a conditional step", &["when", "args"]) else {
                        continue;
                    };
                    let when = cx
                        .required(&sm, "when", "a conditional step")
                        .and_then(|n| read::when(cx, n));
                    let argv = cx
                        .required(&sm, "args", "a conditional step")
                        .map(|n| cx.strings(n, "`args`", false))
                        .unwrap_or_default();
                    if when.is_none() {
                        continue;
                    }
                    (argv, when, sm.loc.clone())
                }
                Node::Sequence(_) => (cx.strings(item, &what, false), None, cx.loc(item)),
                _ => {
                    let loc = cx.loc(item);
                    cx.error(
                        Code::WrongType,
                        &loc,
                        format!("{what}: a step is an argument list such as [\"sed\", \"-i\", \"s/a/b/\", \"Makefile\"]"),
                        "expected a list of arguments",
                        Some("steps are never run through a shell; write each argument separately".into()),
                    );
                    continue;
                }
            };
            if argv.is_empty() {
                cx.error(
                    Code::InvalidValue,
                    &loc,
                    format!("{what}: empty argument list"),
                    "expected a program and its arguments",
                    None,
                );
                continue;
            }
            read::check_templates(cx, &argv);
            out.push(Step {
                phase,
                argv: argv.into_iter().map(|s| s.value).collect(),
                when,
                loc,
            });
        }
    }
    out
}

fn relocate(cx: &mut Cx, node: &Node) -> Relocate {
    let Some(m) = cx.map(node, "`relocate`", &["rpath", "needed", "placeholders"]) else {
        return Relocate::default();
    };
    let rpath: Vec<Spanned<String>> = m
        .get("rpath")
        .map(|n| cx.strings(n, "`rpath`", false))
        .unwrap_or_default();
    let mut needed = Vec::new();
    if let Some(items) = m.get("needed").and_then(|n| cx.seq(n, "`needed`")) {
        for item in items {
            let Some(nm) = cx.map(item, "a `needed` entry", &["file", "add", "when"]) else {
                continue;
            };
            let file = cx
                .required(&nm, "file", "a `needed` entry")
                .and_then(|n| cx.nonempty_string(n, "`file`"));
            let add = cx
                .required(&nm, "add", "a `needed` entry")
                .and_then(|n| cx.nonempty_string(n, "`add`"));
            let when = nm.get("when").and_then(|n| read::when(cx, n));
            if let (Some(file), Some(add)) = (file, add) {
                needed.push(NeededEntry {
                    file: file.value,
                    add: add.value,
                    when,
                    loc: nm.loc.clone(),
                });
            }
        }
    }
    let mut placeholders = Vec::new();
    if let Some(pm) = m
        .get("placeholders")
        .and_then(|n| cx.open_map(n, "`placeholders`"))
    {
        for (k, v) in pm.entries() {
            if let Some(value) = cx.string(v, "a placeholder value") {
                read::check_templates(cx, std::slice::from_ref(&value));
                placeholders.push((k.as_str().to_string(), value.value));
            }
        }
    }
    Relocate {
        rpath,
        needed,
        placeholders,
    }
}
