//! Directives → the sections of a stack recipe (`versions`, `variants`,
//! `dependencies`, `conflicts`, `patches`, `provides`) plus the Spack-only
//! facts kept in the `imported:` block.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::import::yaml_out::Yaml;
use crate::spec::Spec;

use super::model::{Directive, Kind, SpackPackage};
use super::url;
use super::value::{Scope, Value};

/// Language virtuals: what Spack spells as dependencies, `stack` takes from
/// the stack's compiler (`cc`, `cxx`, `fc`).
pub const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

/// The directive part of a translated recipe.
#[derive(Debug, Default)]
pub struct Sections {
    pub versions: Vec<Yaml>,
    pub variants: Vec<(String, Yaml)>,
    /// Declared variants: name → (bool?, allowed values, `when`).
    pub variant_info: Vec<VariantInfo>,
    pub dependencies: Vec<Yaml>,
    pub dependency_names: BTreeSet<String>,
    pub conflicts: Vec<Yaml>,
    pub patches: Vec<Yaml>,
    pub provides: Vec<Yaml>,
    pub languages: BTreeSet<String>,
    /// Build systems named by `build_system(…)`, the default first.
    pub build_systems: Vec<String>,
    /// Directives with no stack equivalent, kept as data.
    pub kept: Vec<Yaml>,
    pub license: Vec<Yaml>,
    pub maintainers: Vec<String>,
    /// Patch files to copy: (file in the Spack package directory, name
    /// below `patches/<package>/`).
    pub patch_files: Vec<(PathBuf, String)>,
}

/// What the hook translator needs to know about a variant.
#[derive(Clone, Debug)]
pub struct VariantInfo {
    pub name: String,
    pub is_bool: bool,
    /// Allowed values of a valued variant (`None`: any).
    pub values: Option<Vec<String>>,
    pub multi: bool,
    pub when: Option<String>,
    /// Line of the declaration (0: a base class's).
    pub line: usize,
}

/// Translate the directives of `pkg` (base classes first). `pkg_dir` is the
/// Spack package directory (patch files live there).
pub fn sections(pkg: &mut SpackPackage, src: &str, pkg_dir: &Path) -> Sections {
    let mut s = Sections::default();
    url::derive_attributes(pkg);
    let mut directives = Vec::new();
    for base in pkg.bases.clone() {
        match super::bases::base_directives(&base) {
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
    versions(pkg, &mut s, src);
    if !s.build_systems.is_empty() {
        let default = s.build_systems[0].clone();
        let mut values = s.build_systems.clone();
        values.sort();
        s.variants.push((
            "build_system".into(),
            Yaml::map([
                ("default", Some(Yaml::str(&default))),
                ("values", Some(Yaml::strs(&values))),
                (
                    "description",
                    Some(Yaml::str("Spack's build_system variant")),
                ),
            ]),
        ));
        s.variant_info.push(VariantInfo {
            name: "build_system".into(),
            is_bool: false,
            values: Some(values),
            multi: false,
            when: None,
            line: 0,
        });
    }
    s
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
            let mut names: Vec<String> = d
                .args
                .iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect();
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
        "requires" | "resource" | "redistribute" | "can_splice" | "generator" => {
            if d.name == "resource" {
                pkg.untranslated(
                    d.line,
                    Kind::Build,
                    "directive resource",
                    "resources are not fetched by stack",
                );
            }
            if d.name == "generator" {
                pkg.untranslated(
                    d.line,
                    Kind::Directive,
                    "directive generator",
                    "CMake generator choice",
                );
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

/// A directive as data: its name, line and arguments.
pub fn kept(d: &Directive) -> Yaml {
    let mut entries = vec![("directive".to_string(), Yaml::str(&d.name))];
    if d.line > 0 {
        entries.push(("line".into(), Yaml::Int(d.line as i64)));
    }
    if !d.args.is_empty() {
        entries.push((
            "args".into(),
            Yaml::Seq(d.args.iter().map(value_yaml).collect()),
        ));
    }
    for (k, v) in &d.kwargs {
        entries.push((k.clone(), value_yaml(v)));
    }
    Yaml::Map(entries)
}

/// A Python value as YAML (calls as `{call: name, args: …}`).
pub fn value_yaml(v: &Value) -> Yaml {
    match v {
        Value::Str(s) => Yaml::str(s),
        Value::Int(i) => Yaml::Int(*i),
        Value::Float(f) => Yaml::str(format!("{f}")),
        Value::Bool(b) => Yaml::Bool(*b),
        Value::None => Yaml::str("None"),
        Value::List(items) => Yaml::Seq(items.iter().map(value_yaml).collect()),
        Value::Dict(items) => Yaml::Map(
            items
                .iter()
                .map(|(k, v)| (k.to_py_string(), value_yaml(v)))
                .collect(),
        ),
        Value::Call(c) => {
            let mut e = vec![("call".to_string(), Yaml::str(&c.name))];
            e.push((
                "args".into(),
                Yaml::Seq(c.args.iter().map(value_yaml).collect()),
            ));
            for (k, v) in &c.kwargs {
                e.push((k.clone(), value_yaml(v)));
            }
            Yaml::Map(e)
        }
    }
}

/// Check a condition or spec with the stack's spec parser; a spec it cannot
/// read is recorded (the recipe keeps it as written).
fn check_spec(pkg: &mut SpackPackage, line: usize, text: &str, what: &str) {
    if let Err(e) = Spec::parse(text) {
        pkg.untranslated(
            line,
            Kind::Directive,
            "spec syntax",
            format!("{what} `{text}`: {e}"),
        );
    }
}

fn when_of(pkg: &mut SpackPackage, d: &Directive) -> Option<String> {
    let w = super::cond::normalize(d.kw_str("when")?.trim());
    if w.is_empty() {
        return None;
    }
    check_spec(pkg, d.line, &w, "condition");
    Some(w)
}

fn variant(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive) {
    let Some(name) = d.arg_str(0).map(str::to_string) else {
        pkg.untranslated(d.line, Kind::Directive, "directive variant", "no name");
        return;
    };
    let when = when_of(pkg, d);
    let description = d.kw_str("description").map(str::to_string);
    let (kind, info) = match variant_kind(d) {
        Ok(k) => k,
        Err(why) => {
            pkg.untranslated(
                d.line,
                Kind::Directive,
                "directive variant",
                format!("{name}: {why}"),
            );
            return;
        }
    };
    if d.kw("validator").is_some() {
        pkg.untranslated(d.line, Kind::Directive, "variant validator", name.clone());
    }
    if d.kw_bool("sticky") == Some(true) {
        s.kept.push(kept(d));
    }
    let mut entries = kind;
    if let Some(desc) = description {
        entries.push((
            "description".into(),
            Yaml::str(desc.split_whitespace().collect::<Vec<_>>().join(" ")),
        ));
    }
    if let Some(w) = &when {
        entries.push(("when".into(), Yaml::str(w)));
    }
    let info = VariantInfo {
        name: name.clone(),
        when: when.clone(),
        ..info
    };
    if let Some(pos) = s.variants.iter().position(|(n, _)| *n == name) {
        // A package's declaration replaces its base class's; a package that
        // declares a variant twice (under different `when`s) keeps the
        // first, the others are kept as data.
        if s.variant_info[pos].line == 0 && d.line > 0 {
            s.variants[pos] = (name, Yaml::Map(entries));
            s.variant_info[pos] = VariantInfo {
                line: d.line,
                ..info
            };
        } else {
            s.kept.push(kept(d));
        }
        return;
    }
    s.variants.push((name, Yaml::Map(entries)));
    s.variant_info.push(VariantInfo {
        line: d.line,
        ..info
    });
}

type Entries = Vec<(String, Yaml)>;

/// The `default`/`values`/`multi` keys of a variant and what hooks need.
fn variant_kind(d: &Directive) -> Result<(Entries, VariantInfo), String> {
    let info = |is_bool, values, multi| VariantInfo {
        name: String::new(),
        is_bool,
        values,
        multi,
        when: None,
        line: 0,
    };
    let values = d.kw("values");
    let multi_kw = d.kw_bool("multi");
    let default = d.kw("default");
    match values {
        None | Some(Value::None) => match default {
            None | Some(Value::Bool(_)) => {
                let b = matches!(default, Some(Value::Bool(true)) | None);
                Ok((
                    vec![("default".into(), Yaml::Bool(b))],
                    info(true, None, false),
                ))
            }
            Some(v) => {
                let text = v.to_py_string();
                Ok(valued(&text, None, multi_kw.unwrap_or(false)))
            }
        },
        Some(Value::List(vals)) => {
            let vals: Vec<String> = vals.iter().map(Value::to_py_string).collect();
            if vals.iter().all(|v| v == "True" || v == "False") {
                let b = matches!(default, Some(Value::Bool(true)));
                return Ok((
                    vec![("default".into(), Yaml::Bool(b))],
                    info(true, None, false),
                ));
            }
            let def = match default {
                Some(v) => v.to_py_string(),
                None => vals.first().cloned().unwrap_or_default(),
            };
            Ok(valued(&def, Some(vals), multi_kw.unwrap_or(false)))
        }
        Some(Value::Call(c)) => {
            let mut vals: Vec<String> = Vec::new();
            let flatten = |v: &Value, out: &mut Vec<String>| match v {
                Value::List(items) => out.extend(items.iter().map(Value::to_py_string)),
                other => out.push(other.to_py_string()),
            };
            for a in &c.args {
                flatten(a, &mut vals);
            }
            let mut def = "none".to_string();
            if (c.name == "disjoint_sets" || c.name == "any_combination_of")
                && !vals.contains(&"none".to_string())
            {
                vals.insert(0, "none".into());
            }
            if c.name == "auto_or_any_combination_of" {
                vals.insert(0, "auto".into());
                def = "auto".into();
            }
            if let Some((_, v)) = c.kwargs.iter().find(|(k, _)| k == "__with_default") {
                def = v.to_py_string();
            }
            if let Some(v) = default {
                def = v.to_py_string();
            }
            if c.name == "conditional" {
                return Ok(valued(&def, Some(vals), multi_kw.unwrap_or(false)));
            }
            Ok(valued(&def, Some(vals), true))
        }
        Some(other) => Err(format!("values {}", other.to_py_string())),
    }
}

fn valued(default: &str, values: Option<Vec<String>>, multi: bool) -> (Entries, VariantInfo) {
    let mut e = Vec::new();
    if multi {
        let defaults: Vec<&str> = default.split(',').filter(|s| !s.is_empty()).collect();
        e.push(("default".into(), Yaml::strs(&defaults)));
    } else {
        e.push(("default".into(), Yaml::str(default)));
    }
    if let Some(v) = &values {
        let mut v = v.clone();
        for d in default.split(',').filter(|s| !s.is_empty()) {
            if !v.iter().any(|x| x == d) {
                v.push(d.to_string());
            }
        }
        e.push(("values".into(), Yaml::strs(&v)));
    }
    if multi {
        e.push(("multi".into(), Yaml::Bool(true)));
    }
    let info = VariantInfo {
        name: String::new(),
        is_bool: false,
        values,
        multi,
        when: None,
        line: 0,
    };
    (e, info)
}

fn dep_types(d: &Directive, extends: bool) -> Result<BTreeSet<String>, String> {
    let mut types = BTreeSet::new();
    match d.kw("type") {
        None if extends => {
            types.extend(["build", "link", "run"].map(String::from));
        }
        None => {
            types.extend(["build", "link"].map(String::from));
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
    let Some(spec) = d.arg_str(0).map(|x| super::cond::normalize(x.trim())) else {
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
        s.languages.insert(name);
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
        pkg.untranslated(
            d.line,
            Kind::Build,
            "dependency patches",
            format!("patches of {name}"),
        );
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
    s.dependency_names.insert(name);
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
        ("when", when.map(Yaml::str)),
    ]));
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
    let spec = super::cond::normalize(&spec);
    let when = match d.kw_str("when").map(str::trim) {
        Some(w) if !w.is_empty() => {
            super::cond::join_conditions(&[spec.as_str(), &super::cond::normalize(w)])
        }
        _ => spec,
    };
    check_spec(pkg, d.line, &when, "condition");
    s.conflicts.push(Yaml::map([
        ("when", Some(Yaml::str(when.trim()))),
        ("message", d.kw_str("msg").map(Yaml::str)),
    ]));
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
    if d.kw_str("working_dir").is_some_and(|w| w != ".") {
        pkg.untranslated(d.line, Kind::Build, "patch working_dir", what.to_string());
        s.kept.push(kept(d));
        return;
    }
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
        s.patches.push(Yaml::map([
            ("url", Some(Yaml::str(what))),
            ("sha256", Some(Yaml::str(sha))),
            ("level", level),
            ("when", when.map(Yaml::str)),
        ]));
        return;
    }
    let file = pkg_dir.join(what);
    let Ok(bytes) = std::fs::read(&file) else {
        pkg.untranslated(d.line, Kind::Build, "patch file missing", what.to_string());
        return;
    };
    let sha = hex::encode(Sha256::digest(&bytes));
    s.patch_files.push((file, what.to_string()));
    s.patches.push(Yaml::map([
        ("file", Some(Yaml::str(format!("{}/{what}", pkg.name)))),
        ("sha256", Some(Yaml::str(sha))),
        ("level", level),
        ("when", when.map(Yaml::str)),
    ]));
}

/// Version entries: git versions, explicit URLs, `url_for_version` and the
/// default substitution.
fn versions(pkg: &mut SpackPackage, s: &mut Sections, src: &str) {
    let decls: Vec<Directive> = pkg.directives("version").cloned().collect();
    let known: Vec<String> = decls
        .iter()
        .filter_map(|d| d.arg_str(0).map(str::to_string))
        .collect();
    let known_refs: Vec<&str> = known.iter().map(String::as_str).collect();
    let class_url = url::class_url(pkg);
    let class_git = pkg
        .attribute("git")
        .and_then(Value::as_str)
        .map(str::to_string);
    let ufv = url::method_source(src, pkg).map(str::to_string);
    let scope = class_scope(pkg);
    for d in &decls {
        match version(
            d,
            &class_url,
            &class_git,
            ufv.as_deref(),
            &known_refs,
            &scope,
        ) {
            Ok(entry) => {
                if d.kw_bool("deprecated") == Some(true)
                    || d.kw("extension").is_some()
                    || d.kw("get_full_repo").is_some()
                {
                    s.kept.push(kept(d));
                }
                s.versions.push(entry);
            }
            Err(why) => pkg.untranslated(d.line, Kind::Directive, "version source", why),
        }
    }
}

fn class_scope(pkg: &SpackPackage) -> Scope {
    let mut scope = Scope::new();
    for (name, v, _) in &pkg.attributes {
        if !name.contains(':') {
            scope.set(name, v.clone());
            scope.set(&format!("self.{name}"), v.clone());
        }
    }
    scope
}

fn version(
    d: &Directive,
    class_url: &Option<String>,
    class_git: &Option<String>,
    ufv: Option<&str>,
    known: &[&str],
    scope: &Scope,
) -> Result<Yaml, String> {
    let v = d.arg_str(0).ok_or("version without a name")?;
    let mut e: Entries = vec![("version".into(), Yaml::str(v))];
    let git_ref = ["tag", "branch", "commit"]
        .iter()
        .any(|k| d.kw(k).is_some());
    let checksum = d
        .kw_str("sha256")
        .map(str::to_string)
        .or_else(|| d.arg_str(1).filter(|c| c.len() == 64).map(str::to_string));
    if d.kw("md5").is_some() || d.arg_str(1).is_some_and(|c| c.len() == 32) {
        return Err(format!("{v}: md5 checksum only"));
    }
    // `version("develop")` with the class's `git`: that branch.
    let bare_branch = checksum.is_none()
        && d.kw("url").is_none()
        && class_git.is_some()
        && !v.starts_with(|c: char| c.is_ascii_digit());
    if git_ref || bare_branch || (d.kw("git").is_some() && checksum.is_none()) {
        let repo = d
            .kw_str("git")
            .map(str::to_string)
            .or_else(|| class_git.clone())
            .ok_or(format!("{v}: git ref without a repository"))?;
        e.push(("git".into(), Yaml::str(repo)));
        for k in ["tag", "branch"] {
            if let Some(x) = d.kw_str(k) {
                e.push((k.into(), Yaml::str(x)));
            }
        }
        if !git_ref {
            e.push(("branch".into(), Yaml::str(v)));
        }
        if let Some(c) = d.kw_str("commit") {
            e.push(("commit".into(), Yaml::str(c)));
        }
        if d.kw_bool("submodules") == Some(true) {
            e.push(("submodules".into(), Yaml::Bool(true)));
        }
    } else {
        let sha = checksum.ok_or(format!("{v}: no sha256 and no git reference"))?;
        let u = match d.kw_str("url") {
            Some(u) => u.to_string(),
            None => match ufv {
                Some(m) => url::url_for_version(
                    m,
                    v,
                    scope,
                    class_url
                        .as_deref()
                        .and_then(|b| url::substitute(b, v, known)),
                )
                .map_err(|e| {
                    format!(
                        "{v}: url_for_version: {} (line {} of the method)",
                        e.what, e.line
                    )
                })?,
                None => {
                    let base = class_url.as_deref().ok_or(format!("{v}: no url"))?;
                    url::substitute(base, v, known)
                        .ok_or(format!("{v}: cannot place the version in {base}"))?
                }
            },
        };
        e.push(("url".into(), Yaml::str(u)));
        e.push(("sha256".into(), Yaml::str(sha.to_ascii_lowercase())));
        if d.kw_bool("expand") == Some(false) {
            e.push(("expand".into(), Yaml::Bool(false)));
        }
    }
    if d.kw_bool("preferred") == Some(true) {
        e.push(("preferred".into(), Yaml::Bool(true)));
    }
    Ok(Yaml::Map(e))
}
