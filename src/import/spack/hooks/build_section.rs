//! Build hooks → the recipe's `build:` section and `env:`: which build system,
//! `configure_args`/`cmake_args`/`meson_args`, make targets,
//! `force_autoreconf`, `setup_build_environment`/`setup_run_environment`;
//! every other method is classified and recorded as untranslated.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, Method, SpackPackage};
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::collected::EnvItem;
use crate::import::spack::evaluator::cond::{Cond, if_else};
use crate::import::spack::hooks::install::install_method;
use crate::import::spack::hooks::layout::layout_attribute;
use crate::import::spack::hooks::run::{put, run_hook, with_def};
use crate::import::spack::hooks::shape::{bootstrap_kind, method_when, only_caches_tests};

use crate::import::spack::directives::attribute_kinds::{
    BUILD_ATTRIBUTES, INFO_METHODS, METADATA_ATTRIBUTES,
};

/// The build section and run environment.
pub struct BuildOut {
    pub build: Yaml,
    pub env: Vec<Yaml>,
    /// Spack's name of the build system translated (`cmake`, `python_pip`).
    pub spack_system: String,
}

/// The stack build system for a Spack one.
fn our_system(spack: &str) -> Option<&'static str> {
    Some(match spack {
        "cmake" => "cmake",
        "autotools" => "autotools",
        "meson" => "meson",
        "makefile" => "makefile",
        "generic" | "bundle" | "python_pip" => "generic",
        _ => return None,
    })
}

pub fn build_section(pkg: &mut SpackPackage, src: &str, s: &Sections) -> BuildOut {
    let spack_system = s
        .build_systems
        .first()
        .cloned()
        .unwrap_or_else(|| "generic".into());
    let system = match our_system(&spack_system) {
        Some(sys) => sys,
        None => {
            pkg.untranslated(
                1,
                Kind::Build,
                format!("build system {spack_system}"),
                "no stack build system",
            );
            "generic"
        }
    };
    if s.external_only.is_some() {
        return external_build(pkg, src, spack_system);
    }
    let mut build: Vec<(String, Yaml)> = vec![("system".into(), Yaml::str(system))];
    let mut env = Vec::new();
    if spack_system == "python_pip" {
        build.push(("steps".into(), pip_steps()));
        env.push(site_packages_env());
    }
    for m in pkg.methods.clone() {
        method(pkg, src, s, &m, &spack_system, &mut build, &mut env);
    }
    attributes(pkg, &spack_system, &mut build);
    BuildOut {
        build: Yaml::Map(build),
        env,
        spack_system,
    }
}

/// An external-only package (its `install` only raises): `build: {system:
/// external}`; its methods describe an installation the stack never makes.
fn external_build(pkg: &mut SpackPackage, src: &str, spack_system: String) -> BuildOut {
    for m in pkg.methods.clone() {
        if !not_build_logic(pkg, src, &m, &spack_system) {
            let what = "external-only package: stack never builds it";
            pkg.untranslated(m.line, Kind::Info, format!("method {}", m.name), what);
        }
    }
    BuildOut {
        build: Yaml::Map(vec![("system".into(), Yaml::str("external"))]),
        env: Vec::new(),
        spack_system,
    }
}

fn pip_steps() -> Yaml {
    let argv = [
        "{{ deps.python.prefix }}/bin/python3",
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "--prefix",
        "{{ prefix }}",
        ".",
    ];
    Yaml::Map(vec![(
        "pre_install".into(),
        Yaml::Seq(vec![Yaml::strs(&argv)]),
    )])
}

/// A python extension's run environment (Spack's python
/// `setup_dependent_run_environment`): its `site-packages` on `PYTHONPATH`,
/// for views, modules and the builds of its dependents.
fn site_packages_env() -> Yaml {
    let dir = crate::import::spack::evaluator::exprs::SITE_PACKAGES;
    Yaml::map([(
        "prepend_path",
        Some(Yaml::Map(vec![("PYTHONPATH".into(), Yaml::str(dir))])),
    )])
}

/// The recipe key a hook method fills for a build system.
fn hook_key(name: &str, system: &str) -> Option<&'static str> {
    Some(match (name, system) {
        ("configure_args", "autotools") => "configure_args",
        ("cmake_args", "cmake") => "cmake_args",
        ("meson_args", "meson") => "meson_args",
        ("build_targets", "makefile") => "build_targets",
        ("install_targets", "makefile") => "install_targets",
        _ => return None,
    })
}

fn method(
    pkg: &mut SpackPackage,
    src: &str,
    s: &Sections,
    m: &Method,
    system: &str,
    build: &mut Vec<(String, Yaml)>,
    env: &mut Vec<Yaml>,
) {
    if not_build_logic(pkg, src, m, system) {
        return;
    }
    let name = m.name.as_str();
    let body = &src[m.range.clone()];
    if name == "autoreconf" && system == "autotools" {
        match (bootstrap_kind(body), method_when(m)) {
            (Some(key), Ok(None)) => put(build, key, Yaml::Bool(true)),
            (Some(key), Ok(Some(spec))) => {
                put(build, key, Yaml::map([("when", Some(Yaml::str(spec)))]))
            }
            _ => pkg.untranslated(m.line, Kind::Build, "method autoreconf", "build logic"),
        }
        return;
    }
    if crate::import::spack::hooks::patch::is_edit_method(m, system) {
        crate::import::spack::hooks::patch::edit_method(pkg, s, m, build);
        return;
    }
    if let Some(key) = directory_property(m, system) {
        let subdir = with_def(pkg, m, |def, src| {
            crate::import::spack::hooks::property::property_subdir(def, src, &s.variant_info)
        });
        match subdir {
            Ok(t) if t == "." => {}
            Ok(t) => put(build, key, Yaml::str(t)),
            Err(e) => {
                let construct = format!("method {name}");
                pkg.untranslated(e.line, Kind::Build, construct, e.what);
            }
        }
        return;
    }
    if name == "flag_handler" {
        flag_method(pkg, s, m, build);
        return;
    }
    if name == "build" && system == "makefile" {
        crate::import::spack::hooks::install::build_method(pkg, s, m, build);
        return;
    }
    if name == "install" && system == "autotools" && method_when(m) == Ok(None) {
        if let Some(parallel) = crate::import::spack::hooks::shape::plain_make_install(body) {
            if !parallel {
                crate::import::spack::hooks::layout::prepend_args(build, "make_args", &["-j1"]);
            }
            return;
        }
    }
    if name == "install" && matches!(system, "generic" | "makefile") {
        install_method(pkg, s, m, system, build);
        return;
    }
    hook_method(pkg, s, m, system, build, env);
}

/// `flag_handler` → `flags:` (a `@when` on it joins every entry's condition).
fn flag_method(pkg: &mut SpackPackage, s: &Sections, m: &Method, build: &mut Vec<(String, Yaml)>) {
    let when = method_when(m);
    let construct = "method flag_handler";
    let items = with_def(pkg, m, |def, src| {
        crate::import::spack::hooks::flags::flag_handler(def, src, &s.variant_info)
    });
    match (items, when) {
        (Ok(mut items), Ok(when)) => {
            if let Some(w) = when {
                for i in &mut items {
                    i.cond = Cond::Spec(w.clone()).and(i.cond.clone());
                }
            }
            let list = crate::import::spack::hooks::flags::flags_yaml(&items);
            if !list.is_empty() {
                put(build, "flags", Yaml::Seq(list));
            }
        }
        (Err(e), _) => pkg.untranslated(e.line, Kind::Build, construct, e.what),
        (_, Err(())) => pkg.untranslated(m.line, Kind::Build, construct, "decorator"),
    }
}

/// The `build:` key of a directory property: CMake's `root_cmakelists_dir`,
/// Autotools' `configure_directory` (both `source_subdir`).
fn directory_property(m: &Method, system: &str) -> Option<&'static str> {
    if !m.decorators.iter().any(|d| d == "property") {
        return None;
    }
    match (m.name.as_str(), system) {
        ("root_cmakelists_dir", "cmake") | ("configure_directory", "autotools") => {
            Some("source_subdir")
        }
        _ => None,
    }
}

/// A `@staticmethod` the package's `url_for_version` calls (`Pdi.version_url`),
/// or a class attribute (`url = QtPackage.get_url(__qualname__)`).
fn url_helper(pkg: &SpackPackage, src: &str, m: &Method) -> bool {
    if !m.decorators.iter().any(|d| d == "staticmethod") {
        return false;
    }
    let call = format!(".{}(", m.name);
    let class_attribute = src.lines().any(|l| {
        l.strip_prefix("    ")
            .is_some_and(|a| !a.starts_with(' ') && a.contains(" = ") && a.contains(&call))
    });
    class_attribute
        || pkg
            .methods
            .iter()
            .find(|u| u.name == "url_for_version" && u.builder.is_none())
            .is_some_and(|u| src[u.range.clone()].contains(&call))
}

/// Methods that are not build logic of this build system (recorded as
/// `info`) and `run_before`/`run_after` hooks (recorded as `build`, or
/// `info` for test-only ones). Returns whether the method was handled.
fn not_build_logic(pkg: &mut SpackPackage, src: &str, m: &Method, system: &str) -> bool {
    let name = m.name.as_str();
    if m.builder.as_deref().is_some_and(|b| b != system) {
        let b = m.builder.clone().unwrap_or_default();
        let detail = format!("{b}: {name}");
        pkg.untranslated(m.line, Kind::Info, "hook of another build system", detail);
        return true;
    }
    if url_helper(pkg, src, m) {
        let what = "static helper of url_for_version (evaluated with it)";
        pkg.untranslated(m.line, Kind::Info, format!("method {name}"), what);
        return true;
    }
    let helper = name.starts_with('_') && !name.starts_with("__");
    if INFO_METHODS.contains(&name) || name.starts_with("test") || helper {
        if name != "url_for_version" {
            let what = if helper {
                "helper method"
            } else {
                "method for detection, tests or dependents"
            };
            pkg.untranslated(m.line, Kind::Info, format!("method {name}"), what);
        }
        return true;
    }
    let Some(hook) = m.decorators.iter().find(|d| d.starts_with("run_")) else {
        return false;
    };
    let body = &src[m.range.clone()];
    let tests = m.decorators.iter().any(|d| d.contains("run_tests")) || only_caches_tests(body);
    // A hook only for macOS or Windows never runs on the Linux the stack builds on.
    let foreign = m
        .decorators
        .iter()
        .any(|d| d.contains("platform=darwin") || d.contains("platform=windows"));
    let kind = if tests || foreign {
        Kind::Info
    } else {
        Kind::Build
    };
    let detail = format!("{name} ({hook})");
    pkg.untranslated(m.line, kind, "run_before/run_after hook", detail);
    true
}

/// Argument hooks and environment hooks; any other method is build logic.
fn hook_method(
    pkg: &mut SpackPackage,
    s: &Sections,
    m: &Method,
    system: &str,
    build: &mut Vec<(String, Yaml)>,
    env: &mut Vec<Yaml>,
) {
    let name = m.name.as_str();
    let key = hook_key(name, system);
    let env_key = match name {
        "setup_build_environment" => Some("build_env"),
        "setup_run_environment" => Some("env"),
        _ => None,
    };
    if key.is_none() && env_key.is_none() {
        let construct = match name {
            "configure_args" | "cmake_args" | "meson_args" | "build_targets"
            | "install_targets" => format!("{name} for build system {system}"),
            _ => format!("method {name}"),
        };
        pkg.untranslated(m.line, Kind::Build, construct, "build logic");
        return;
    }
    let hook = format!("hook {name}");
    let produced = match run_hook(pkg, s, m) {
        Ok(p) => p,
        Err(e) => {
            pkg.untranslated(e.line, Kind::Build, hook, e.what);
            return;
        }
    };
    if !produced.filters.is_empty() {
        let why = "filter_file outside patch()/edit()";
        pkg.untranslated(m.line, Kind::Build, hook, why);
        return;
    }
    if let Some(key) = key {
        match produced.args.as_deref().map(arg_list) {
            Some(Ok(list)) => put(build, key, Yaml::Seq(list)),
            Some(Err(why)) => pkg.untranslated(m.line, Kind::Build, hook.clone(), why),
            None => pkg.untranslated(m.line, Kind::Build, hook.clone(), "returns no list"),
        }
    }
    if let Some(env_key) = env_key {
        let flags = produced.env.iter().find(|i| i.op == "append_flags");
        if let (Some(item), "env") = (flags, env_key) {
            let why = format!("env.append_flags of {} in the run environment", item.var);
            pkg.untranslated(m.line, Kind::Build, hook, why);
            return;
        }
        match env_list(&produced.env) {
            Ok(ops) if env_key == "env" => env.extend(ops),
            Ok(ops) => put(build, env_key, Yaml::Seq(ops)),
            Err(why) => pkg.untranslated(m.line, Kind::Build, hook, why),
        }
    }
}

/// Argument items as an argument list: runs of items with the same plain
/// condition become `{when, args}` blocks; other conditions become tera
/// `{% if %}` templates.
pub fn arg_list(items: &[ArgItem]) -> Result<Vec<Yaml>, String> {
    let mut out: Vec<Yaml> = Vec::new();
    let mut group: Option<(String, Vec<String>)> = None;
    let flush = |group: &mut Option<(String, Vec<String>)>, out: &mut Vec<Yaml>| {
        if let Some((w, args)) = group.take() {
            out.push(Yaml::Map(vec![
                ("when".into(), Yaml::str(w)),
                ("args".into(), Yaml::strs(&args)),
            ]));
        }
    };
    for item in items {
        match item.cond.as_when() {
            Some(None) => {
                flush(&mut group, &mut out);
                check_words(&item.template)?;
                out.push(Yaml::str(&item.template));
            }
            Some(Some(w)) => {
                check_words(&item.template)?;
                match &mut group {
                    Some((gw, args)) if *gw == w => args.push(item.template.clone()),
                    _ => {
                        flush(&mut group, &mut out);
                        group = Some((w, vec![item.template.clone()]));
                    }
                }
            }
            None if item.cond == Cond::False => {}
            None => {
                flush(&mut group, &mut out);
                let t = if_else(&item.cond, &item.template, "");
                check_words(&t)?;
                out.push(Yaml::str(t));
            }
        }
    }
    flush(&mut group, &mut out);
    Ok(out)
}

/// A template with a `{% %}` block is split on whitespace after rendering:
/// such a template must not contain literal spaces outside its tags.
fn check_words(t: &str) -> Result<(), String> {
    if !t.contains("{%") {
        return Ok(());
    }
    let mut rest = t;
    while let Some(start) = rest.find(['{']) {
        if rest[..start].contains(char::is_whitespace) {
            return Err(format!("argument `{t}` would be split into several words"));
        }
        let close = if rest[start..].starts_with("{%") {
            "%}"
        } else if rest[start..].starts_with("{{") {
            "}}"
        } else {
            "{"
        };
        match rest[start + 1..].find(close) {
            Some(end) => rest = &rest[start + 1 + end + close.len()..],
            None => return Ok(()),
        }
    }
    if rest.contains(char::is_whitespace) {
        return Err(format!("argument `{t}` would be split into several words"));
    }
    Ok(())
}

fn env_list(items: &[EnvItem]) -> Result<Vec<Yaml>, String> {
    let mut out = Vec::new();
    for item in &merge_set_branches(items) {
        let when = item.cond.as_when().ok_or_else(|| {
            format!(
                "environment change of {} under a condition that is not a spec",
                item.var
            )
        })?;
        if item.cond == Cond::False {
            continue;
        }
        let op = match (item.op, &item.value) {
            ("unset", _) => Yaml::str(&item.var),
            (_, Some(v)) => Yaml::Map(vec![(item.var.clone(), Yaml::str(v))]),
            (_, None) => return Err(format!("{} without a value", item.op)),
        };
        out.push(Yaml::map([
            (item.op, Some(op)),
            ("when", when.map(Yaml::str)),
        ]));
    }
    Ok(out)
}

/// `if c: env.set("X", a)` … `else: env.set("X", b)` under a condition that
/// is not a spec (`"+cuda" in spec["dep"]`): one `set` whose value is
/// `{% if c %}a{% else %}b{% endif %}` (exactly one branch sets X, in
/// place of the other).
fn merge_set_branches(items: &[EnvItem]) -> Vec<EnvItem> {
    let mut items = items.to_vec();
    let mut i = 0;
    while i < items.len() {
        let item = &items[i];
        if item.op == "set" && item.cond != Cond::True {
            let other = item.cond.clone().not();
            let var = item.var.clone();
            let pair = items[i + 1..]
                .iter()
                .position(|o| o.var == var)
                .map(|k| i + 1 + k)
                .filter(|&j| items[j].op == "set" && items[j].cond == other)
                .filter(|&j| item.cond.as_when().is_none() || items[j].cond.as_when().is_none());
            if let (Some(j), Some(a)) = (pair, item.value.clone()) {
                if let Some(b) = items[j].value.clone() {
                    let merged = if a == b {
                        a
                    } else {
                        if_else(&item.cond, &a, &b)
                    };
                    items[i] = EnvItem {
                        cond: Cond::True,
                        op: "set",
                        var,
                        value: Some(merged),
                    };
                    items.remove(j);
                }
            }
        }
        i += 1;
    }
    items
}

fn attributes(pkg: &mut SpackPackage, system: &str, build: &mut Vec<(String, Yaml)>) {
    for (full, value, line) in pkg.attributes.clone() {
        let (builder, name) = match full.split_once(':') {
            Some((b, n)) => (Some(b.to_string()), n.to_string()),
            None => (None, full.clone()),
        };
        if builder.as_deref().is_some_and(|b| b != system) {
            pkg.untranslated(
                line,
                Kind::Info,
                "hook of another build system",
                full.to_string(),
            );
            continue;
        }
        if METADATA_ATTRIBUTES.contains(&name.as_str()) {
            continue;
        }
        match (name.as_str(), system) {
            ("force_autoreconf", "autotools") => {
                if value.truthy() {
                    put(build, "autoreconf", Yaml::Bool(true));
                }
            }
            // A `build()`/`install()` method of its own does not read them.
            ("build_targets", "makefile") if pkg.methods.iter().any(|m| m.name == "build") => {}
            ("install_targets", "makefile") if pkg.methods.iter().any(|m| m.name == "install") => {}
            ("build_targets" | "install_targets", "makefile") => {
                let items = value.iter_items().unwrap_or_default();
                let v = Yaml::Seq(items.iter().map(|v| Yaml::str(v.to_py_string())).collect());
                // Python: the later definition (attribute or property) wins.
                let method_line = pkg.methods.iter().find(|m| m.name == name).map(|m| m.line);
                match build.iter().position(|(k, _)| *k == name) {
                    Some(_) if method_line.is_some_and(|l| l > line) => {}
                    Some(i) => build[i].1 = v,
                    None => build.push((name.clone(), v)),
                }
            }
            ("build_directory" | "root_cmakelists_dir" | "configure_directory", _)
                if value.as_str() == Some(".") => {}
            ("parallel", _) if value.truthy() => {}
            ("configure_directory", s) if s != "autotools" => pkg.untranslated(
                line,
                Kind::Info,
                "attribute configure_directory",
                format!("not read by Spack's {s} builder"),
            ),
            _ if layout_attribute(pkg, &name, &value, line, system, build) => {}
            (n, _) if BUILD_ATTRIBUTES.contains(&n) => {
                pkg.untranslated(
                    line,
                    Kind::Build,
                    format!("attribute {n}"),
                    value.to_py_string(),
                );
            }
            (n, _) => pkg.untranslated(
                line,
                Kind::Info,
                format!("attribute {n}"),
                "not used by stack",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_group_by_condition_and_refuse_words_that_would_split() {
        let item = |cond: Cond, t: &str| ArgItem {
            cond,
            template: t.into(),
        };
        let list = arg_list(&[
            item(Cond::True, "--a"),
            item(Cond::Spec("+x".into()), "--b"),
            item(Cond::Spec("+x".into()), "--c"),
            item(Cond::Spec("@2:".into()).not(), "--d"),
        ])
        .unwrap();
        assert_eq!(
            Yaml::Seq(list).to_document(),
            "- \"--a\"\n- {when: \"+x\", args: [\"--b\", \"--c\"]}\n- \"{% if spec is not satisfies(\\\"@2:\\\") %}--d{% endif %}\"\n"
        );
        let bad = item(Cond::Spec("@2:".into()).not(), "CFLAGS=-g -O0");
        assert!(arg_list(&[bad]).is_err());
    }
}
