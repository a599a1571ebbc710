//! Directives → the sections of a stack recipe (`versions`, `variants`,
//! `dependencies`, `conflicts`, `patches`, `provides`) plus the Spack-only
//! facts kept in the `imported:` block.

use std::collections::BTreeSet;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::import::confined::Refusal;
use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::conditional_values as conditional;
use crate::import::spack::directives::conditions::{check_spec, when_of};
use crate::import::spack::directives::model::{Directive, Kind, SpackPackage};
use crate::import::spack::directives::sections::{Sections, kept};
use crate::import::spack::directives::variants::variant;
use crate::import::spack::directives::versions::versions;
use crate::import::spack::evaluator::value::Value;
use crate::import::spack::evaluator::variant_info::VariantInfo;

/// Language virtuals: what Spack spells as dependencies, `stack` takes from
/// the stack's compiler (`cc`, `cxx`, `fc`).
pub const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

/// Literal class attributes a hook body reads: `build_directory` as Spack
/// sees it, a path relative to the source tree (where the phases run).
fn class_attrs(pkg: &SpackPackage) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(Value::Str(dir)) = pkg.attribute("build_directory") {
        let inside = std::path::Path::new(dir)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if inside && !dir.is_empty() && !dir.contains(['{', '%', '#']) {
            out.push(("build_directory".to_string(), dir.clone()));
        }
    }
    out
}

/// Translate the directives of `pkg` (base classes first). `pkg_dir` is the
/// Spack package directory (patch files live there).
pub fn sections(pkg: &mut SpackPackage, src: &str, pkg_dir: &Path) -> Sections {
    let mut s = Sections::default();
    crate::import::spack::directives::url_attrs::derive_attributes(pkg);
    s.class_attrs = class_attrs(pkg);
    let mut directives = Vec::new();
    for base in pkg.bases.clone() {
        match crate::import::spack::directives::bases::base_directives(&base) {
            Some(d) => directives.extend(d),
            None => pkg.untranslated(1, Kind::Directive, "unknown base class", base.clone()),
        }
    }
    // A package's own build_system(…) replaces those of its bases.
    if pkg.directives("build_system").next().is_some() {
        directives.retain(|d: &Directive| d.name != "build_system");
    }
    directives.extend(pkg.directives.iter().cloned());
    for d in &directives {
        directive(pkg, &mut s, d, pkg_dir);
    }
    s.external_only = crate::import::spack::directives::external_only::raising_install(pkg);
    versions(pkg, &mut s, src);
    if !s.build_systems.is_empty() {
        build_system_variant(&mut s);
        untranslated_build_systems(pkg, &mut s);
    }
    s
}

/// A static build section is one build system's (Spack's default); the
/// others (libogg's `cmake` from 1.3.4 on, mctc-lib's `cmake` that cp2k
/// asks for) must build as package.py says when a plan chooses them. So a
/// package offering several build systems builds from package.py, whose
/// builder follows the `build_system` variant: each other system is build
/// logic that runs at build time.
fn untranslated_build_systems(pkg: &mut SpackPackage, s: &mut Sections) {
    let line = pkg.directives("build_system").last().map_or(0, |d| d.line);
    let default = s.build_systems[0].clone();
    for other in &s.build_systems[1..] {
        let detail = format!(
            "{other}: a static recipe would build with {default} (Spack's default) whatever the plan chose"
        );
        pkg.untranslated(line, Kind::Build, "build system not translated", detail);
    }
}

/// The `build_system` variant: one definition, or one per condition.
fn build_system_variant(s: &mut Sections) {
    let default = s.build_systems[0].clone();
    let defs = s
        .build_system_defs
        .clone()
        .unwrap_or_else(|| vec![(None, s.build_systems.clone())]);
    let mut written = Vec::new();
    for (when, mut values) in defs {
        values.sort();
        let def = if values.contains(&default) {
            default.clone()
        } else {
            values.first().cloned().unwrap_or_default()
        };
        written.push(Yaml::map([
            ("default", Some(Yaml::str(&def))),
            ("values", Some(Yaml::strs(&values))),
            (
                "description",
                Some(Yaml::str("Spack's build_system variant")),
            ),
            ("when", when.as_deref().map(Yaml::str)),
        ]));
        s.variant_info.push(VariantInfo {
            name: "build_system".into(),
            is_bool: false,
            values: Some(values),
            multi: false,
            when,
            line: 0,
        });
    }
    let yaml = if written.len() == 1 {
        written.pop().expect("one definition")
    } else {
        Yaml::Seq(written)
    };
    s.variants.push(("build_system".into(), yaml));
}

fn directive(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, pkg_dir: &Path) {
    match d.name.as_str() {
        "version" => {} // after all directives: needs the class URL
        "variant" => variant(pkg, s, d),
        "depends_on" => dependency(pkg, s, d, false),
        "extends" => dependency(pkg, s, d, true),
        "conflicts" => conflict(pkg, s, d),
        "provides" => provides(pkg, s, d),
        "patch" => patch(pkg, s, d, pkg_dir),
        "build_system" => {
            let default = d.kw_str("default").map(str::to_string);
            let mut names: Vec<String> = Vec::new();
            for a in &d.args {
                match a {
                    Value::Str(n) => names.push(n.clone()),
                    Value::Call(c) if c.name == "conditional" => {
                        names.extend(c.args.iter().filter_map(|x| x.as_str().map(str::to_string)))
                    }
                    other => pkg.untranslated(
                        d.line,
                        Kind::Directive,
                        "directive build_system",
                        other.to_py_string(),
                    ),
                }
            }
            s.build_system_defs = None;
            if conditional::has_conditional(&d.args) {
                match conditional::definitions(&d.args) {
                    Ok(defs) => s.build_system_defs = Some(defs),
                    Err(why) => pkg.untranslated(
                        d.line,
                        Kind::Directive,
                        "conditional values",
                        format!("build_system: {why}"),
                    ),
                }
            }
            if let Some(def) = default.or_else(|| names.first().cloned()) {
                names.retain(|n| *n != def);
                names.insert(0, def);
            }
            s.build_systems = names;
        }
        "license" => s.license.push(Yaml::map([
            ("license", d.arg_str(0).map(Yaml::str)),
            ("when", d.kw_str("when").map(Yaml::str)),
        ])),
        "maintainers" => s
            .maintainers
            .extend(d.args.iter().filter_map(|a| a.as_str().map(str::to_string))),
        "resource" => {
            let when = when_of(pkg, d);
            crate::import::spack::directives::resource::resource(pkg, s, d, when);
        }
        "requires" | "redistribute" | "can_splice" | "generator" => {
            if let Some(platforms) = other_platforms_only(d) {
                // The stack builds on Linux: a package that requires another
                // platform can never be used (msmpi, networkdirect).
                let msg = d
                    .kw_str("msg")
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("requires {}", platforms.join(" or ")));
                s.conflicts.push(Yaml::map([
                    ("when", Some(Yaml::str("platform=linux"))),
                    ("message", Some(Yaml::str(msg))),
                ]));
            }
            s.kept.push(kept(d));
        }
        "filter_compiler_wrappers" => pkg.untranslated(
            d.line,
            Kind::Build,
            "directive filter_compiler_wrappers",
            "compiler wrapper paths in installed files are not filtered",
        ),
        other => pkg.untranslated(d.line, Kind::Directive, format!("directive {other}"), ""),
    }
}

/// `requires("platform=windows")` (or several platforms, none of them
/// Linux), unconditional: the platforms required.
fn other_platforms_only(d: &Directive) -> Option<Vec<String>> {
    if d.name != "requires" || d.kw("when").is_some() || d.args.is_empty() {
        return None;
    }
    let platforms: Option<Vec<String>> = d
        .args
        .iter()
        .map(|a| {
            a.as_str()?
                .trim()
                .strip_prefix("platform=")
                .filter(|p| !p.contains([' ', '%', '^', '@']) && *p != "linux")
                .map(|p| format!("platform={p}"))
        })
        .collect();
    platforms.filter(|p| p.len() == 1 || d.kw("policy").is_some())
}

fn dep_types(d: &Directive, extends: bool) -> Result<BTreeSet<String>, String> {
    let mut types = BTreeSet::new();
    match d.kw("type") {
        // `extends(spec)`: Spack's default type is build and run.
        None if extends => {
            types.extend(["build", "run"].map(String::from));
        }
        None => {
            types.extend(["build", "link"].map(String::from));
        }
        // Spack's `type="all"`: every type (tests are not run here).
        Some(Value::Str(t)) if t == "all" => {
            types.extend(["build", "link", "run"].map(String::from));
        }
        Some(Value::Str(t)) => {
            types.insert(t.clone());
        }
        Some(Value::List(ts)) => {
            for t in ts {
                types.insert(t.as_str().ok_or("type")?.to_string());
            }
        }
        Some(other) => return Err(format!("type {}", other.to_py_string())),
    }
    Ok(types)
}

fn dependency(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, extends: bool) {
    let Some(spec) = d
        .arg_str(0)
        .map(|x| crate::import::spack::evaluator::cond::normalize(x.trim()))
    else {
        pkg.untranslated(
            d.line,
            Kind::Directive,
            format!("directive {}", d.name),
            "no spec",
        );
        return;
    };
    let when = when_of(pkg, d);
    let name: String = spec
        .split(|c: char| c.is_whitespace() || "@+~%^=".contains(c))
        .next()
        .unwrap_or("")
        .to_string();
    if LANGUAGES.contains(&name.as_str()) {
        let conds = s.languages.entry(name).or_default();
        if !conds.contains(&when) {
            conds.push(when);
        }
        return;
    }
    let types = match dep_types(d, extends) {
        Ok(t) => t,
        Err(why) => {
            pkg.untranslated(d.line, Kind::Directive, "directive depends_on", why);
            return;
        }
    };
    if d.kw("patches").is_some() {
        // Patches of a dependency are not applied by stack: the
        // configurations that ask for them are a conflict (the others
        // build), an unconditional one is refused.
        match &when {
            Some(w) => {
                let message = format!(
                    "the patches package.py line {} applies to {name} are not applied by stack",
                    d.line
                );
                s.conflicts.push(Yaml::map([
                    ("when", Some(Yaml::str(w))),
                    ("message", Some(Yaml::str(message))),
                ]));
                let detail = format!("patches of {name}: a conflict under `{w}`");
                pkg.untranslated(d.line, Kind::Info, "dependency patches", detail);
            }
            None => pkg.untranslated(
                d.line,
                Kind::Build,
                "dependency patches",
                format!("patches of {name}"),
            ),
        }
        s.kept.push(kept(d));
    }
    let mut ours: Vec<&str> = ["build", "link", "run"]
        .into_iter()
        .filter(|t| types.contains(*t))
        .collect();
    if types.contains("test") {
        s.kept.push(kept(d));
        if ours.is_empty() {
            return; // test-only: kept as data, tests are not run
        }
    }
    if ours.is_empty() {
        ours.push("build");
    }
    check_spec(pkg, d.line, &spec, "dependency");
    s.dependency_names.insert(name.clone());
    let ty = if ours == ["build", "link"] {
        None
    } else if ours.len() == 1 {
        Some(Yaml::str(ours[0]))
    } else {
        Some(Yaml::strs(&ours))
    };
    s.dependencies.push(Yaml::map([
        ("spec", Some(Yaml::str(&spec))),
        ("type", ty),
        ("when", when.clone().map(Yaml::str)),
    ]));
    // Spack's `extends("python")` also depends on `python-venv` (so that
    // views are virtual environments), with the same condition.
    if extends && name == "python" && pkg.name != "python-venv" {
        s.dependencies.push(Yaml::map([
            ("spec", Some(Yaml::str("python-venv"))),
            ("type", Some(Yaml::strs(&["build", "run"]))),
            ("when", when.map(Yaml::str)),
        ]));
        s.dependency_names.insert("python-venv".into());
    }
}

fn conflict(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive) {
    let Some(spec) = d.arg_str(0).map(str::trim) else {
        pkg.untranslated(d.line, Kind::Directive, "directive conflicts", "no spec");
        return;
    };
    // `conflicts("pkg@1.2")` names the package itself: keep the constraints.
    let spec = spec
        .strip_prefix(pkg.name.as_str())
        .filter(|rest| rest.is_empty() || rest.starts_with(['@', '+', '~', ' ', '%', '^']))
        .unwrap_or(spec)
        .trim()
        .to_string();
    // A conflict that names another package is about a dependency.
    let first = spec.split_whitespace().next().unwrap_or("");
    let names_package = first.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !first
            .split(['@', '+', '~', '%'])
            .next()
            .unwrap_or("")
            .contains('=');
    let spec = if names_package {
        format!("^{spec}")
    } else {
        spec
    };
    let spec = crate::import::spack::evaluator::cond::normalize(&spec);
    let when = match d.kw_str("when").map(str::trim) {
        Some(w) if !w.is_empty() => crate::import::spack::evaluator::cond::join_conditions(&[
            spec.as_str(),
            &crate::import::spack::evaluator::cond::normalize(w),
        ]),
        _ => spec,
    };
    if let Some(flag) = compiler_flag(&when) {
        // `conflicts('cxxflags="-stdlib=libc++" %clang')` (yaml-cpp): stack
        // sets no per-package compiler flags, so the condition never holds.
        pkg.untranslated(
            d.line,
            Kind::Info,
            "conflict on compiler flags",
            format!("`{flag}=…` never holds: stack sets no per-package compiler flags"),
        );
        return;
    }
    check_spec(pkg, d.line, &when, "condition");
    s.conflicts.push(Yaml::map([
        ("when", Some(Yaml::str(when.trim()))),
        ("message", d.kw_str("msg").map(Yaml::str)),
    ]));
}

/// The Spack compiler-flag key (`cxxflags`, …) a spec assigns, if any.
fn compiler_flag(spec: &str) -> Option<&'static str> {
    const FLAGS: [&str; 6] = [
        "cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs",
    ];
    FLAGS.into_iter().find(|f| {
        spec.match_indices(f).any(|(i, _)| {
            let before = spec[..i].chars().next_back();
            let after = spec[i + f.len()..].trim_start();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && after.starts_with('=')
        })
    })
}

fn provides(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive) {
    let when = when_of(pkg, d);
    for a in &d.args {
        let Some(spec) = a.as_str() else { continue };
        let name: String = spec
            .split(|c: char| c.is_whitespace() || "@+~".contains(c))
            .next()
            .unwrap_or("")
            .to_string();
        if name != spec.trim() {
            s.kept.push(kept(d)); // the virtual's version range
        }
        s.provides.push(match &when {
            Some(w) => Yaml::map([
                ("virtual", Some(Yaml::str(&name))),
                ("when", Some(Yaml::str(w))),
            ]),
            None => Yaml::str(&name),
        });
    }
}

fn patch(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, pkg_dir: &Path) {
    let Some(what) = d.arg_str(0) else {
        pkg.untranslated(d.line, Kind::Build, "directive patch", "not a file or URL");
        return;
    };
    // `working_dir`: where in the source tree the patch applies.
    let working_dir = match d.kw("working_dir") {
        None => None,
        Some(w) => match w
            .as_str()
            .map(crate::import::spack::directives::resource::relative)
        {
            Some(Some(dir)) => dir.map(Yaml::str),
            _ => {
                let detail = format!("{what}: working_dir {}", w.to_py_string());
                pkg.untranslated(d.line, Kind::Build, "patch working_dir", detail);
                s.kept.push(kept(d));
                return;
            }
        },
    };
    let when = when_of(pkg, d);
    let level = match d.kw("level") {
        Some(Value::Int(l)) => *l,
        _ => 1,
    };
    let level = (level != 1).then_some(Yaml::Int(level));
    if what.contains("://") {
        let Some(sha) = d.kw_str("sha256") else {
            pkg.untranslated(
                d.line,
                Kind::Build,
                "patch without sha256",
                what.to_string(),
            );
            return;
        };
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            // Spack picks the algorithm by the digest's length (py-xtb's
            // `sha256=` of 40 digits is checked as sha1); a recipe patch
            // has a sha256 only.
            let detail = format!(
                "{what}: `sha256=\"{sha}\"` is not a sha256 ({} characters)",
                sha.len()
            );
            pkg.untranslated(d.line, Kind::Build, "patch without sha256", detail);
            return;
        }
        s.patches.push(Yaml::map([
            ("url", Some(Yaml::str(what))),
            ("sha256", Some(Yaml::str(sha))),
            ("level", level),
            ("working_dir", working_dir),
            ("when", when.map(Yaml::str)),
        ]));
        return;
    }
    let bytes = match read_in_package(pkg_dir, what) {
        Ok(bytes) => bytes,
        Err(Refusal::Missing) => {
            pkg.untranslated(d.line, Kind::Build, "patch file missing", what.to_string());
            return;
        }
        Err(why) => {
            let detail = format!("{what}: {why}; nothing outside the package directory is read");
            pkg.untranslated(d.line, Kind::Build, "patch file refused", detail);
            return;
        }
    };
    let sha = hex::encode(Sha256::digest(&bytes));
    s.patch_files.push((what.to_string(), bytes));
    s.patches.push(Yaml::map([
        ("file", Some(Yaml::str(format!("{}/{what}", pkg.name)))),
        ("sha256", Some(Yaml::str(sha))),
        ("level", level),
        ("working_dir", working_dir),
        ("when", when.map(Yaml::str)),
    ]));
}

/// The bytes of `rel` (as a package.py names it) in the package directory
/// `pkg_dir`, read strictly below it: never through a link, never with
/// `..` or an absolute path.
fn read_in_package(pkg_dir: &Path, rel: &str) -> Result<Vec<u8>, Refusal> {
    let (Some(packages), Some(dir)) = (pkg_dir.parent(), pkg_dir.file_name()) else {
        return Err(Refusal::Missing);
    };
    crate::import::confined::plain(rel)?;
    crate::import::confined::read_below(packages, &format!("{}/{rel}", dir.to_string_lossy()))
}
