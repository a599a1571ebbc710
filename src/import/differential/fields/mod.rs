//! One comparison per kind of directive: the oracle's record (JSON) against
//! the recipe's view.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::normal::{self, Cond};
use super::recipe_view::RecipeView;
use super::{Difference, Field, Standing};

mod dependencies;
pub use dependencies::dependencies;
use dependencies::spec_name;

/// Spack's build dependencies the importer leaves out on purpose
/// (docs/import.md: the stack builds with the host's make and updates
/// `config.guess` itself).
const BY_DESIGN_DEPENDENCIES: &[&str] = &["gmake", "gnuconfig"];

/// The languages of `imported.languages` (no dependency types there).
const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

fn json_text(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Bool(b) => Some(b.to_string()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn items<'j>(record: &'j Json, key: &str) -> &'j [Json] {
    record[key].as_array().map_or(&[], Vec::as_slice)
}

fn push(
    out: &mut Vec<Difference>,
    field: Field,
    item: &str,
    spack: String,
    ours: String,
    s: Standing,
) {
    out.push(Difference {
        field,
        item: item.to_string(),
        spack,
        ours,
        standing: s,
    });
}

fn standing(flagged: bool) -> Standing {
    if flagged {
        Standing::Flagged
    } else {
        Standing::Silent
    }
}

/// The recipe's name of a version (per-architecture readings write
/// `9.0.1-x86_64`; the x86_64 record is compared).
fn version_key(name: &str) -> Option<&str> {
    if name.ends_with("-aarch64") {
        return None;
    }
    Some(name.strip_suffix("-x86_64").unwrap_or(name))
}

/// Whether an untranslated version item is about version `v`
/// (`version kept: 1.0: md5 checksum only`).
fn flags_version(view: &RecipeView, v: &str) -> bool {
    view.untranslated.iter().any(|u| {
        u.starts_with("version")
            && u.split_once(": ")
                .is_some_and(|(_, d)| d.starts_with(&format!("{v}:")))
    })
}

pub fn versions(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let mut seen = BTreeSet::new();
    for v in items(record, "versions") {
        let Some(name) = v["version"].as_str() else {
            continue;
        };
        seen.insert(name.to_string());
        let ours = view
            .versions
            .iter()
            .find(|o| version_key(&o.name) == Some(name));
        let Some(o) = ours else {
            let s = standing(flags_version(view, name));
            push(
                out,
                Field::Version,
                name,
                v.to_string(),
                "missing".into(),
                s,
            );
            continue;
        };
        if let Some(sha) = v["sha256"].as_str() {
            let same = o
                .sha256
                .as_deref()
                .is_some_and(|x| x.eq_ignore_ascii_case(sha));
            if o.url.is_some() && !same {
                let ours = o.sha256.clone().unwrap_or_default();
                push(
                    out,
                    Field::Checksum,
                    name,
                    sha.into(),
                    ours,
                    Standing::Silent,
                );
            }
        }
        if let (Some(url), Some(ours)) = (v["fetch_url"].as_str(), &o.url) {
            if url != ours {
                let s = standing(view.flags("url"));
                push(out, Field::Url, name, url.into(), ours.clone(), s);
            }
        }
        for (key, ours) in [
            ("git", &o.git),
            ("tag", &o.tag),
            ("branch", &o.branch),
            ("commit", &o.commit),
        ] {
            let spack = v[key].as_str().map(str::to_string);
            if spack.is_some() && spack != *ours {
                let (s, o) = (spack.unwrap_or_default(), ours.clone().unwrap_or_default());
                push(
                    out,
                    Field::Version,
                    name,
                    format!("{key} {s}"),
                    format!("{key} {o}"),
                    Standing::Silent,
                );
            }
        }
    }
    for o in &view.versions {
        let Some(key) = version_key(&o.name) else {
            continue;
        };
        if !seen.contains(key) {
            let s = standing(view.flags(key));
            push(
                out,
                Field::Version,
                key,
                "missing".into(),
                "written".into(),
                s,
            );
        }
    }
}

/// A variant's default as a set of value texts (`"a,b"` of a multi-valued
/// variant is two).
fn defaults_of(v: &Json) -> BTreeSet<String> {
    match &v["default"] {
        Json::Array(xs) => xs.iter().filter_map(json_text).collect(),
        Json::String(s) if v["multi"].as_bool() == Some(true) => {
            s.split(',').map(|x| x.trim().to_string()).collect()
        }
        other => json_text(other).into_iter().collect(),
    }
}

/// The plain values of a variant (conditional values flattened), or `None`
/// when they are not a list (a validator, disjoint sets).
fn values_of(v: &Json) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for x in v["values"].as_array()? {
        match x {
            Json::Array(conds) => {
                for c in conds {
                    out.insert(json_text(&c["value"])?);
                }
            }
            other => {
                out.insert(json_text(other)?);
            }
        }
    }
    Some(out)
}

/// The conditions of a base class's definitions of variant `name` (calls
/// from another file than the package's) when the package defines `name`
/// itself.
fn base_definitions_replaced(record: &Json, name: &str) -> BTreeSet<Option<String>> {
    let calls: Vec<&Json> = items(record, "calls")
        .iter()
        .filter(|c| {
            c["directive"].as_str() == Some("variant") && c["args"][0].as_str() == Some(name)
        })
        .collect();
    let from_base = |c: &&Json| {
        c["file"]
            .as_str()
            .is_none_or(|f| !f.ends_with("/package.py"))
    };
    if !calls.iter().any(|c| !from_base(c)) {
        return BTreeSet::new();
    }
    let own: BTreeSet<Option<String>> = calls
        .iter()
        .filter(|c| !from_base(c))
        .map(|c| c["kwargs"]["when"].as_str().map(str::to_string))
        .collect();
    calls
        .iter()
        .filter(|c| from_base(c))
        .map(|c| c["kwargs"]["when"].as_str().map(str::to_string))
        .filter(|w| !own.contains(w))
        .collect()
}

pub fn variants(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let mut names = BTreeSet::new();
    for v in items(record, "variants") {
        let Some(name) = v["name"].as_str() else {
            continue;
        };
        if name == "build_system" || !names.insert(name.to_string()) {
            continue;
        }
        let ours: Vec<_> = view.variants.iter().filter(|(n, _)| n == name).collect();
        let flagged = view.flags(name);
        if ours.is_empty() {
            push(
                out,
                Field::Variant,
                name,
                v.to_string(),
                "missing".into(),
                standing(flagged),
            );
            continue;
        }
        // The stack chooses the CMake generator itself (docs/import.md).
        if name == "generator" {
            continue;
        }
        // Every definition of the name in the record, against every one of
        // ours; a base class's definition that the package defines again is
        // not (Spack uses the last definition declared, the package's).
        let replaced = base_definitions_replaced(record, name);
        let spack_defs: Vec<&Json> = items(record, "variants")
            .iter()
            .filter(|x| x["name"].as_str() == Some(name))
            .filter(|x| !replaced.contains(&x["when"].as_str().map(str::to_string)))
            .collect();
        let spack_defaults: BTreeSet<_> = spack_defs.iter().flat_map(|d| defaults_of(d)).collect();
        let our_defaults: BTreeSet<String> = ours
            .iter()
            .flat_map(|(_, d)| d.default.iter().cloned())
            .collect();
        if spack_defaults != our_defaults {
            let (s, o) = (
                format!("default {spack_defaults:?}"),
                format!("default {our_defaults:?}"),
            );
            push(out, Field::Variant, name, s, o, standing(flagged));
        }
        let spack_values: Option<BTreeSet<String>> =
            spack_defs.iter().try_fold(BTreeSet::new(), |mut acc, d| {
                acc.extend(values_of(d)?);
                Some(acc)
            });
        let bool_values: BTreeSet<String> = ["false", "true"].map(String::from).into();
        let our_values: BTreeSet<String> = ours
            .iter()
            .flat_map(|(_, d)| {
                d.values
                    .clone()
                    .unwrap_or_else(|| bool_values.iter().cloned().collect())
            })
            .collect();
        if let Some(sv) = spack_values {
            if sv != our_values {
                let (s, o) = (format!("values {sv:?}"), format!("values {our_values:?}"));
                push(out, Field::Variant, name, s, o, standing(flagged));
            }
        }
    }
}

/// Whether an untranslated item names the condition `when` (`condition
/// never holds`: `` `+compression`: the package has no variant …``).
fn flags_when(view: &RecipeView, when: Option<&str>) -> bool {
    when.is_some_and(|w| view.flags(&format!("`{w}`")))
}

/// An unconditional `requires` of platforms other than Linux only.
fn requires_another_platform(record: &Json) -> bool {
    items(record, "requires").iter().any(|r| {
        r["when"].is_null()
            && r["specs"].as_array().is_some_and(|specs| {
                specs.iter().all(|s| {
                    s.as_str()
                        .is_some_and(|s| s.starts_with("platform=") && s != "platform=linux")
                })
            })
    })
}

pub fn conflicts(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let own = record["name"].as_str().unwrap_or("");
    let ours: Vec<(Cond, &String)> = view
        .conflicts
        .iter()
        .map(|c| (normal::cond(&[Some(c)], own), c))
        .filter(|(c, _)| c.holds())
        .collect();
    let mut theirs = Vec::new();
    for c in items(record, "conflicts") {
        let spec = c["spec"].as_str().unwrap_or("");
        let when = c["when"].as_str();
        let text = format!("{spec} when {}", when.unwrap_or("-"));
        let cond = normal::cond(&[Some(spec), when], own);
        // The stack chooses the CMake generator itself (docs/import.md).
        if spec.starts_with("generator=") {
            let ours = "the stack chooses the generator".into();
            push(out, Field::Conflict, spec, text, ours, Standing::ByDesign);
            continue;
        }
        if !cond.holds() {
            push(
                out,
                Field::Conflict,
                spec,
                text,
                "not for this reading".into(),
                Standing::ByDesign,
            );
            continue;
        }
        if !ours.iter().any(|(c, _)| *c == cond) {
            let s = standing(view.flags(spec) || view.flags("conflict") || flags_when(view, when));
            push(out, Field::Conflict, spec, text, "missing".into(), s);
        }
        theirs.push(cond);
    }
    for (c, text) in &ours {
        if !theirs.contains(c) {
            let s = if *text == "platform=linux" && requires_another_platform(record) {
                // `requires("platform=windows")` (docs/import.md).
                Standing::ByDesign
            } else {
                standing(view.flags(text) || view.flags("conflict"))
            };
            push(
                out,
                Field::Conflict,
                text,
                "missing".into(),
                (*text).clone(),
                s,
            );
        }
    }
}

pub fn provides(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let own = record["name"].as_str().unwrap_or("");
    for p in items(record, "provides") {
        let when = p["when"].as_str();
        let cond = normal::cond(&[when], own);
        for spec in p["specs"].as_array().map_or(&[][..], Vec::as_slice) {
            let spec = spec.as_str().unwrap_or("");
            let name = spec_name(spec);
            let text = format!("{spec} when {}", when.unwrap_or("-"));
            if !cond.holds() {
                push(
                    out,
                    Field::Provides,
                    name,
                    text,
                    "not for this reading".into(),
                    Standing::ByDesign,
                );
                continue;
            }
            let found = view
                .provides
                .iter()
                .any(|(v, w)| v == name && normal::cond(&[w.as_deref()], own) == cond);
            if !found {
                let s = standing(view.flags(name));
                push(out, Field::Provides, name, text, "missing".into(), s);
            } else if spec != name {
                // The virtual's version range (`mpi@:3.1`): kept in
                // `imported.kept` (docs/import.md).
                push(
                    out,
                    Field::Provides,
                    name,
                    spec.into(),
                    name.into(),
                    Standing::ByDesign,
                );
            }
        }
    }
}

pub fn patches(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let own = record["name"].as_str().unwrap_or("");
    for p in items(record, "patches") {
        let what = p["path_or_url"].as_str().unwrap_or("");
        let sha = p["sha256"].as_str();
        let level = p["level"].as_i64().unwrap_or(1);
        let when = normal::cond(&[p["when"].as_str()], own);
        if !when.holds() {
            push(
                out,
                Field::Patch,
                what,
                p.to_string(),
                "not for this reading".into(),
                Standing::ByDesign,
            );
            continue;
        }
        let found = view.patches.iter().any(|o| {
            sha.is_none_or(|s| o.sha256.as_deref() == Some(s))
                && o.level == level
                && normal::cond(&[o.when.as_deref()], own) == when
        });
        if !found {
            let s = standing(view.flags(what) || view.flags("patch"));
            push(out, Field::Patch, what, p.to_string(), "missing".into(), s);
        }
    }
}

pub fn build_system(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let Some(v) = items(record, "variants")
        .iter()
        .find(|v| v["name"].as_str() == Some("build_system"))
    else {
        return;
    };
    let default = v["default"].as_str().unwrap_or("");
    let values = values_of(v).unwrap_or_default();
    let ours_default = view.build_systems.first().map(String::as_str).unwrap_or("");
    let ours: BTreeSet<String> = view.build_systems.iter().cloned().collect();
    let flagged = view.flags("build system");
    if default != ours_default {
        push(
            out,
            Field::BuildSystem,
            "default",
            default.into(),
            ours_default.into(),
            standing(flagged),
        );
    }
    if values.len() > 1 && values != ours {
        let (s, o) = (format!("{values:?}"), format!("{ours:?}"));
        push(out, Field::BuildSystem, "values", s, o, standing(flagged));
    }
}
