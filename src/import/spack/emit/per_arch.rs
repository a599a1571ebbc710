//! Packages whose directives depend on the machine Spack runs on: a class
//! body that picks a binary per architecture (`platform.machine()` as the key
//! of a table of sha256s, a URL with the machine in it — openjdk,
//! rust-bootstrap, go-bootstrap, the Cray binaries of a site repository).
//! Spack sees one architecture's versions; a recipe serves every target, so
//! the package is read once per architecture the stack builds for and the
//! readings are merged the way `recipes/cray-mpich.yaml` is written: a
//! version whose source is the same everywhere stays as it is, one whose
//! source differs (or that exists on one architecture only) appears once per
//! architecture as `<version>-<arch>`, with a conflict keeping each off the
//! other architecture (`@9.0.1` is a prefix of `9.0.1-aarch64`, so a spec
//! naming the release selects the right one). Other entries that only one
//! reading has get `target=<arch>:` in their condition.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::machine::ARCHES;
use crate::import::spack::directives::model::{Kind, Untranslated};
use crate::import::spack::emit::converted::Converted;
use crate::import::spack::emit::recipe::untranslated_items;

/// Merge the readings of one package (in `ARCHES` order) into one recipe.
pub fn merge(readings: Vec<(&str, Converted)>) -> Converted {
    let mut readings = readings.into_iter();
    let (first_arch, mut out) = readings.next().expect("one reading per architecture");
    let mut all = vec![(first_arch, out.recipe.clone())];
    let mut untranslated = out.untranslated.clone();
    for (arch, c) in readings {
        all.push((arch, c.recipe));
        untranslated.extend(c.untranslated);
    }
    let (versions, conflicts, split) = merge_versions(&all);
    if !versions.is_empty()
        && matches!(
            out.not_written,
            Some(crate::import::spack::emit::converted::NotWritten::NoVersions(_))
        )
    {
        out.not_written = None;
    }
    let mut recipe = out.recipe.clone();
    set(&mut recipe, "versions", Some(Yaml::Seq(versions)));
    for key in [
        "dependencies",
        "conflicts",
        "provides",
        "patches",
        "resources",
        "env",
    ] {
        let mut items = merge_list(&all, key);
        for item in &mut items {
            if let Some(Yaml::Str(w)) = get(item, "when") {
                let w = exact_versions(w, &split);
                set(item, "when", Some(Yaml::Str(w)));
            }
        }
        if key == "conflicts" {
            items.extend(conflicts.iter().cloned());
        }
        set(
            &mut recipe,
            key,
            (!items.is_empty()).then_some(Yaml::Seq(items)),
        );
    }
    for key in ["variants", "build"] {
        if all.iter().any(|(_, r)| get(r, key) != get(&all[0].1, key)) {
            untranslated.push(Untranslated {
                line: 1,
                kind: Kind::Directive,
                construct: "per-architecture difference".into(),
                detail: format!(
                    "`{key}` differs between {}; {first_arch}'s is written",
                    names()
                ),
            });
        }
    }
    untranslated.sort();
    untranslated.dedup();
    if let Some(imported) = get_mut(&mut recipe, "imported") {
        set(imported, "untranslated", untranslated_items(&untranslated));
    }
    out.recipe = recipe;
    out.untranslated = untranslated;
    out
}

fn names() -> String {
    ARCHES.join(" and ")
}

/// `=9.0.0` (exactly that version) in a condition, where `9.0.0` became
/// per-architecture versions: `=9.0.0-x86_64,=9.0.0-aarch64`.
fn exact_versions(when: &str, split: &[(String, Vec<String>)]) -> String {
    let mut out = String::with_capacity(when.len());
    let mut rest = when;
    while let Some(i) = rest.find('=') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(after.len());
        let in_versions = out.ends_with(['@', ',']);
        match split
            .iter()
            .find(|(v, _)| in_versions && *v == after[..end])
        {
            Some((_, names)) => {
                let exact: Vec<String> = names.iter().map(|n| format!("={n}")).collect();
                out.push_str(&exact.join(","));
                rest = &after[end..];
            }
            None => {
                out.push('=');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Versions split per architecture: the release and its `<release>-<arch>` names.
type Split = Vec<(String, Vec<String>)>;

/// The union of the readings' versions; the conflicts that keep the
/// per-architecture ones on their architecture; the versions split.
fn merge_versions(all: &[(&str, Yaml)]) -> (Vec<Yaml>, Vec<Yaml>, Split) {
    let lists: Vec<(&str, Vec<Yaml>)> = all.iter().map(|(a, r)| (*a, seq(r, "versions"))).collect();
    let mut order: Vec<String> = Vec::new();
    for (_, list) in &lists {
        for v in list.iter().filter_map(version_name) {
            if !order.contains(&v) {
                order.push(v);
            }
        }
    }
    let mut out = Vec::new();
    let mut split: Split = Vec::new();
    let mut suffixed: Vec<(&str, Vec<String>)> = lists.iter().map(|(a, _)| (*a, vec![])).collect();
    for v in &order {
        let entries: Vec<(&str, Option<&Yaml>)> = lists
            .iter()
            .map(|(a, l)| (*a, l.iter().find(|e| version_name(e).as_ref() == Some(v))))
            .collect();
        if let Some(first) = entries[0].1 {
            if entries.iter().all(|(_, e)| *e == Some(first)) {
                out.push(first.clone());
                continue;
            }
        }
        split.push((v.clone(), Vec::new()));
        for (i, (arch, e)) in entries.iter().enumerate() {
            if let Some(e) = e {
                let name = format!("{v}-{arch}");
                split.last_mut().expect("pushed").1.push(name.clone());
                let mut e = (*e).clone();
                set(&mut e, "version", Some(Yaml::str(&name)));
                out.push(e);
                suffixed[i].1.push(name);
            }
        }
    }
    let mut conflicts = Vec::new();
    for (arch, versions) in &suffixed {
        if versions.is_empty() {
            continue;
        }
        for other in ARCHES.iter().filter(|o| *o != arch) {
            conflicts.push(Yaml::map([
                (
                    "when",
                    Some(Yaml::str(format!("@{} target={other}:", versions.join(",")))),
                ),
                (
                    "message",
                    Some(Yaml::str(format!(
                        "the *-{arch} versions are the package's {arch} sources (package.py picks them by platform.machine()); on {other} use the *-{other} versions"
                    ))),
                ),
            ]));
        }
    }
    (out, conflicts, split)
}

fn version_name(e: &Yaml) -> Option<String> {
    match get(e, "version") {
        Some(Yaml::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The entries of list `key` of every reading: those all readings have once,
/// the others with `target=<arch>:` added to their condition.
fn merge_list(all: &[(&str, Yaml)], key: &str) -> Vec<Yaml> {
    let lists: Vec<(&str, Vec<Yaml>)> = all.iter().map(|(a, r)| (*a, seq(r, key))).collect();
    let mut out: Vec<Yaml> = Vec::new();
    for (arch, list) in &lists {
        for item in list {
            let everywhere = lists.iter().all(|(_, l)| l.contains(item));
            if everywhere {
                if !out.contains(item) {
                    out.push(item.clone());
                }
            } else {
                out.push(on_target(item, arch));
            }
        }
    }
    out
}

/// `item` with `target=<arch>:` joined to its `when`.
fn on_target(item: &Yaml, arch: &str) -> Yaml {
    let target = format!("target={arch}:");
    let when = match get(item, "when") {
        Some(Yaml::Str(w)) => {
            crate::import::spack::evaluator::cond::join_conditions(&[w.as_str(), target.as_str()])
        }
        _ => target,
    };
    let mut item = item.clone();
    set(&mut item, "when", Some(Yaml::str(when)));
    item
}

fn seq(recipe: &Yaml, key: &str) -> Vec<Yaml> {
    match get(recipe, key) {
        Some(Yaml::Seq(items)) => items.clone(),
        _ => Vec::new(),
    }
}

pub(crate) fn get<'y>(map: &'y Yaml, key: &str) -> Option<&'y Yaml> {
    match map {
        Yaml::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

pub(crate) fn get_mut<'y>(map: &'y mut Yaml, key: &str) -> Option<&'y mut Yaml> {
    match map {
        Yaml::Map(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// The order `assemble` writes a recipe's sections in.
const ORDER: [&str; 13] = [
    "name",
    "description",
    "homepage",
    "versions",
    "variants",
    "dependencies",
    "conflicts",
    "patches",
    "resources",
    "provides",
    "build",
    "env",
    "imported",
];

/// Replace (or add, or with `None` remove) `key` of a map, keeping its place.
pub(crate) fn set(map: &mut Yaml, key: &str, value: Option<Yaml>) {
    let Yaml::Map(entries) = map else { return };
    let at = entries.iter().position(|(k, _)| k == key);
    match (at, value) {
        (Some(i), Some(v)) => entries[i].1 = v,
        (Some(i), None) => {
            entries.remove(i);
        }
        (None, Some(v)) => {
            // A recipe section goes before the sections written after it.
            let later = ORDER.iter().skip_while(|k| **k != key).skip(1);
            let at = later
                .filter_map(|l| entries.iter().position(|(k, _)| k == l))
                .min()
                .unwrap_or(entries.len());
            entries.insert(at, (key.to_string(), v));
        }
        (None, None) => {}
    }
}
