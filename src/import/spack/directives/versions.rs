//! `version(…)` directives → `versions:` entries: git versions, explicit
//! URLs, `url_for_version` and the default substitution.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Directive, Kind, SpackPackage};
use crate::import::spack::directives::sections::{Entries, Sections, kept};
use crate::import::spack::evaluator::url;
use crate::import::spack::evaluator::url_method;
use crate::import::spack::evaluator::value::{Scope, Value};
use crate::import::spack::reader::parsed::Parsed;
use tree_sitter::Node;

/// Version entries: git versions, explicit URLs, `url_for_version` and the
/// default substitution.
pub(crate) fn versions(pkg: &mut SpackPackage, s: &mut Sections, src: &str) {
    let decls: Vec<Directive> = pkg.directives("version").cloned().collect();
    let known: Vec<String> = decls
        .iter()
        .filter_map(|d| d.arg_str(0).map(str::to_string))
        .collect();
    let known_refs: Vec<&str> = known.iter().map(String::as_str).collect();
    let class_url = crate::import::spack::directives::url_attrs::class_url(pkg);
    let class_git = pkg
        .attribute("git")
        .and_then(Value::as_str)
        .map(str::to_string);
    let parsed = pkg.parsed.clone();
    let mut scope = class_scope(pkg);
    // Static helpers `url_for_version` may call: the class's own and those
    // of the classes it imports (`Pdi.version_url`).
    for m in &pkg.methods {
        if m.builder.is_none() && m.decorators.iter().any(|d| d == "staticmethod") {
            let key = format!("{}.{}()", pkg.class_name, m.name);
            scope.set(&key, Value::Str(src[m.range.clone()].to_string()));
        }
    }
    for (key, body) in &pkg.helpers {
        scope.set(key, Value::Str(body.clone()));
    }
    for d in &decls {
        if let Some(why) = unfetchable(d) {
            // Kept whole as data, listed as `info`: nothing of the
            // directive is lost, but the stack cannot fetch this version.
            keep_noted(pkg, s, d, &why);
            continue;
        }
        let ufv = d
            .arg_str(0)
            .zip(parsed.as_deref())
            .and_then(|(v, parsed)| Some((method_for(parsed, pkg, v)?, parsed.src())));
        if default_branch(d, &class_url, &class_git, ufv.is_some()) {
            // A git version that names no branch, tag or commit: Spack
            // clones the remote's default branch, which a recipe cannot
            // name (it was written as a branch of the version's name).
            keep_noted(pkg, s, d, "git: the remote's default branch");
            continue;
        }
        match version(d, &class_url, &class_git, ufv, &known_refs, &scope) {
            // An archive without a checksum: Spack fetches it only with
            // `--no-checksum`, and `stack check` refuses a reachable package
            // with one (unless `allow_unverified`), whichever version is
            // chosen. Kept as data, so that the checksummed ones stay usable
            // (rust-bootstrap's `nightly`).
            Ok(entry) if unchecksummed(&entry) => {
                keep_noted(pkg, s, d, "no checksum");
            }
            Ok(entry) => {
                if d.kw_bool("deprecated") == Some(true)
                    || d.kw("extension").is_some()
                    || d.kw("get_full_repo").is_some()
                {
                    s.kept.push(kept(d));
                }
                push_version(pkg, s, d, entry);
            }
            // A BundlePackage's version, a package without code's
            // (`has_code = False`: python-venv) or an external-only
            // package's (what the vendor ships): nothing to fetch in Spack
            // either.
            Err(_)
                if no_checksum(d)
                    && (bundle_only(s) || has_no_code(pkg) || s.external_only.is_some()) =>
            {
                let v = d.arg_str(0).unwrap_or("?");
                s.versions.push(Yaml::Map(vec![
                    ("version".into(), Yaml::str(v)),
                    ("source".into(), Yaml::str("none")),
                ]));
            }
            // No checksum and no place to fetch from (a package that
            // raises in more than its `install`, a licensed download).
            Err(_) if no_checksum(d) => {
                keep_noted(pkg, s, d, "no source");
            }
            Err(why) => pkg.untranslated(d.line, Kind::Directive, "version source", why),
        }
    }
}

/// A version declared again replaces the earlier declaration, as in Spack
/// (its `version()` directive sets a dict entry): libluv lists `1.48.0-2`
/// twice.
/// Keep a version directive whole as data, noted as `info` with why the
/// stack cannot use it.
fn keep_noted(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, why: &str) {
    s.kept.push(kept(d));
    let v = d.arg_str(0).unwrap_or("?");
    pkg.untranslated(d.line, Kind::Info, "version kept", format!("{v}: {why}"));
}

fn push_version(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, entry: Yaml) {
    let name = |e: &Yaml| match e {
        Yaml::Map(m) => m
            .iter()
            .find(|(k, _)| k == "version")
            .map(|(_, v)| v.clone()),
        _ => None,
    };
    let v = name(&entry);
    match s.versions.iter_mut().find(|e| name(e) == v) {
        Some(earlier) => {
            let what = d.arg_str(0).unwrap_or("?");
            pkg.untranslated(
                d.line,
                Kind::Info,
                "version repeated",
                format!("{what}: the later declaration replaces the earlier one, as in Spack"),
            );
            *earlier = entry;
        }
        None => s.versions.push(entry),
    }
}

/// A version Spack fetches from the default branch of a git repository:
/// `version(v, git=…)` with no branch, tag, commit or checksum, or a bare
/// `version("develop")` of a package with a `git` and no URL of its own.
fn default_branch(
    d: &Directive,
    class_url: &Option<String>,
    class_git: &Option<String>,
    url_method: bool,
) -> bool {
    let reference = ["tag", "branch", "commit"]
        .iter()
        .any(|k| d.kw(k).is_some());
    if reference || !no_checksum(d) || d.kw("url").is_some() {
        return false;
    }
    // Spack prefers the package's URL over its git repository.
    let url = class_url.is_some() || url_method;
    d.kw("git").is_some() || (class_git.is_some() && !url)
}

fn unchecksummed(entry: &Yaml) -> bool {
    let Yaml::Map(m) = entry else { return false };
    let has = |key: &str| m.iter().any(|(k, _)| k == key);
    has("url") && !has("sha256")
}

fn no_checksum(d: &Directive) -> bool {
    d.kw("sha256").is_none() && d.arg_str(1).is_none()
}

/// Whether every build system of the package is Spack's `bundle` (no
/// source, no build: the package only pulls in its dependencies).
fn bundle_only(s: &Sections) -> bool {
    !s.build_systems.is_empty() && s.build_systems.iter().all(|b| b == "bundle")
}

/// `has_code = False`: Spack fetches nothing for the package (python-venv
/// makes its prefix in `install`).
fn has_no_code(pkg: &SpackPackage) -> bool {
    matches!(pkg.attribute("has_code"), Some(Value::Bool(false)))
}

/// Why the stack cannot fetch a version: a fetcher it does not have
/// (Subversion, Mercurial, CVS) or an md5 checksum only.
fn unfetchable(d: &Directive) -> Option<String> {
    if let Some(f) = ["svn", "hg", "cvs"].into_iter().find(|k| d.kw(k).is_some()) {
        return Some(format!("{f} fetcher"));
    }
    let md5_only = d.kw("sha256").is_none()
        && (d.kw("md5").is_some() || d.arg_str(1).is_some_and(|c| c.len() == 32));
    md5_only.then(|| "md5 checksum only".to_string())
}

pub(crate) fn class_scope(pkg: &SpackPackage) -> Scope {
    let mut scope = Scope::new();
    if let Some(machine) = &pkg.machine {
        for (k, v) in crate::import::spack::directives::machine::platform_names(machine) {
            scope.set(&k, v);
        }
    }
    for (name, v, _) in &pkg.attributes {
        if !name.contains(':') {
            scope.set(name, v.clone());
            scope.set(&format!("self.{name}"), v.clone());
            // Methods also read them through the class: `Lammps.stable_versions`.
            scope.set(&format!("{}.{name}", pkg.class_name), v.clone());
        }
    }
    scope
}

pub(crate) fn version(
    d: &Directive,
    class_url: &Option<String>,
    class_git: &Option<String>,
    ufv: Option<(tree_sitter::Node, &str)>,
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
    if git_ref {
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
        if let Some(c) = d.kw_str("commit") {
            e.push(("commit".into(), Yaml::str(c)));
        }
        if d.kw_bool("submodules") == Some(true) {
            e.push(("submodules".into(), Yaml::Bool(true)));
        }
    } else {
        let u = match d.kw_str("url") {
            Some(u) => u.to_string(),
            None => match ufv {
                Some((m, src)) => {
                    url_method::url_for_version(m, src, v, scope, known).map_err(|e| {
                        format!(
                            "{v}: url_for_version: {} (line {} of the method)",
                            e.what, e.line
                        )
                    })?
                }
                None => {
                    let base = class_url.as_deref().ok_or(format!("{v}: no url"))?;
                    // Spack's `substitute_version` leaves a URL in which
                    // it finds no version as it is: every version is that file.
                    url::substitute(base, v, known).unwrap_or_else(|| base.to_string())
                }
            },
        };
        e.push(("url".into(), Yaml::str(u)));
        // Without a checksum the entry is kept as data (`versions`).
        if let Some(sha) = checksum {
            e.push(("sha256".into(), Yaml::str(sha.to_ascii_lowercase())));
        }
        if d.kw_bool("expand") == Some(false) {
            e.push(("expand".into(), Yaml::Bool(false)));
        }
    }
    if d.kw_bool("preferred") == Some(true) {
        e.push(("preferred".into(), Yaml::Bool(true)));
    }
    Ok(Yaml::Map(e))
}

/// The `url_for_version` that Spack calls for `version`: among the
/// package's definitions, the first whose `@when("…")` the version
/// satisfies, else the one without a condition; `None` when none applies
/// (the default substitution then places the version). A condition that
/// does not parse counts as holding, so the method's result (or its error)
/// is what the version gets.
pub fn method_for<'p>(parsed: &'p Parsed, pkg: &SpackPackage, version: &str) -> Option<Node<'p>> {
    let defs: Vec<_> = pkg
        .methods
        .iter()
        .filter(|m| m.name == "url_for_version" && m.builder.is_none())
        .filter_map(|m| Some((when_of(&m.decorators), parsed.def_of(&m.range)?)))
        .collect();
    let holds = |w: &str| url_method::satisfies(version, w).unwrap_or(true);
    defs.iter()
        .find(|(w, _)| w.as_deref().is_some_and(holds))
        .or_else(|| defs.iter().find(|(w, _)| w.is_none()))
        .map(|(_, body)| *body)
}

/// `when("@:1.1.0")` → `@:1.1.0`.
fn when_of(decorators: &[String]) -> Option<String> {
    decorators.iter().find_map(|d| {
        let arg = d.strip_prefix("when(")?.strip_suffix(')')?.trim();
        let quoted = arg.len() >= 2 && (arg.starts_with('"') || arg.starts_with('\''));
        quoted.then(|| arg[1..arg.len() - 1].to_string())
    })
}
