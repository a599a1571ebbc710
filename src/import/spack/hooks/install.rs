//! `install()` methods: copies and directories become `install:` steps;
//! a Makefile package's `make(…)` call its install targets.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Kind, Method, SpackPackage};
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::collected::InstallItem;
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::hooks::run::{put, run_hook};

/// `install()` of a generic or Makefile package → `install:` steps; in a
/// Makefile package one `make(…)` call becomes `install_targets` (the
/// `mkdirp` before it `pre_install` steps, the copies after it `install:`).
pub(crate) fn install_method(
    pkg: &mut SpackPackage,
    s: &Sections,
    m: &Method,
    system: &str,
    build: &mut Vec<(String, Yaml)>,
) {
    let produced = match run_hook(pkg, s, m) {
        Ok(p) => p,
        Err(e) => {
            let line = e.line;
            return pkg.untranslated(line, Kind::Build, "method install", e.what);
        }
    };
    if !produced.filters.is_empty() {
        let why = "filter_file in install()";
        return pkg.untranslated(m.line, Kind::Build, "method install", why);
    }
    let items = produced.install;
    let Some(at) = items.iter().position(|i| i.op == "make") else {
        match install_list(&items) {
            Ok(steps) => {
                if system == "makefile" {
                    build.retain(|(k, _)| k != "install_targets");
                    build.push(("install_targets".into(), Yaml::Seq(Vec::new())));
                }
                put(build, "install", Yaml::Seq(steps));
            }
            Err(why) => pkg.untranslated(m.line, Kind::Build, "method install", why),
        }
        return;
    };
    match make_install(pkg, &items, at, system) {
        Ok((pre, targets, after)) => {
            put(build, "install_targets", Yaml::strs(&targets));
            if !pre.is_empty() {
                put(
                    build,
                    "steps",
                    Yaml::Map(vec![("pre_install".into(), Yaml::Seq(pre))]),
                );
            }
            if !after.is_empty() {
                put(build, "install", Yaml::Seq(after));
            }
        }
        Err(why) => pkg.untranslated(m.line, Kind::Build, "method install", why),
    }
}

/// The `mkdir -p` steps, the make arguments, the install steps after it.
type MakeInstall = (Vec<Yaml>, Vec<String>, Vec<Yaml>);

/// `[mkdirp…] make(…) [copies…]`.
fn make_install(
    pkg: &SpackPackage,
    items: &[InstallItem],
    at: usize,
    system: &str,
) -> Result<MakeInstall, String> {
    let make = &items[at];
    if system != "makefile" || make.cond != Cond::True {
        return Err("make() in install() outside a plain Makefile package".into());
    }
    if items.iter().filter(|i| i.op == "make").count() > 1 {
        return Err("make() called more than once".into());
    }
    if pkg
        .attribute("build_directory")
        .is_some_and(|v| v.as_str() != Some("."))
    {
        return Err("make() in install() with a build_directory".into());
    }
    let mut pre = Vec::new();
    for i in &items[..at] {
        if i.op != "mkdir" || i.cond != Cond::True {
            return Err("install steps before make()".into());
        }
        let dir = match i.to.as_str() {
            "." => "{{ prefix }}".to_string(),
            d => format!("{{{{ prefix }}}}/{d}"),
        };
        pre.push(Yaml::strs(&["mkdir".to_string(), "-p".to_string(), dir]));
    }
    let after = if at + 1 < items.len() {
        install_list(&items[at + 1..])?
    } else {
        Vec::new()
    };
    Ok((pre, make.args.clone(), after))
}

fn install_list(items: &[InstallItem]) -> Result<Vec<Yaml>, String> {
    if items.is_empty() {
        return Err("installs nothing the importer understands".into());
    }
    let mut out = Vec::new();
    for item in items {
        let when = item
            .cond
            .as_when()
            .ok_or("install step under a condition that is not a spec")?;
        let step = match &item.from {
            Some(from) => vec![
                ("copy", Some(Yaml::str(from))),
                ("to", Some(Yaml::str(&item.to))),
            ],
            None => vec![("mkdir", Some(Yaml::str(&item.to)))],
        };
        let mut entries: Vec<(&str, Option<Yaml>)> = step;
        entries.push(("when", when.map(Yaml::str)));
        out.push(Yaml::map(entries));
    }
    Ok(out)
}

/// `build()` of a Makefile package that only calls `make(…)` once →
/// `build_targets` (Spack runs it in the source tree, so not with a
/// `build_directory`).
pub(crate) fn build_method(
    pkg: &mut SpackPackage,
    s: &Sections,
    m: &Method,
    build: &mut Vec<(String, Yaml)>,
) {
    let targets = run_hook(pkg, s, m)
        .map_err(|e| (e.line, e.what))
        .and_then(|p| match p.filters.is_empty() {
            true => make_only(pkg, m, &p.install).map_err(|w| (m.line, w)),
            false => Err((m.line, "filter_file in build()".into())),
        });
    match targets {
        Ok(t) => put(build, "build_targets", Yaml::strs(&t)),
        Err((line, why)) => pkg.untranslated(line, Kind::Build, "method build", why),
    }
}

fn make_only(pkg: &SpackPackage, m: &Method, items: &[InstallItem]) -> Result<Vec<String>, String> {
    if !m.decorators.is_empty() {
        return Err("decorated method".into());
    }
    if pkg
        .attribute("build_directory")
        .is_some_and(|v| v.as_str() != Some("."))
    {
        return Err("build() with a build_directory".into());
    }
    match items {
        [i] if i.op == "make" && i.cond == Cond::True => Ok(i.args.clone()),
        _ => Err("build logic besides one make() call".into()),
    }
}
