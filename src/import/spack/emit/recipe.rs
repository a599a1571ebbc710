//! The recipe of a converted package, assembled from the translated
//! sections, the build section and environment, the `imported:` block and
//! the list of what was not translated.

use crate::import::spack::directives::model::Untranslated;
use crate::import::spack::emit::converted::{NotWritten, Origin};
use crate::import::yaml_out::Yaml;

/// Whether the package is a virtual placeholder or has no version (an
/// `external` package declaring none is written: a cluster external names
/// its version).
pub(crate) fn not_written(
    pkg: &crate::import::spack::directives::model::SpackPackage,
    s: &crate::import::spack::directives::sections::Sections,
    untranslated: &[Untranslated],
    external: bool,
) -> Option<NotWritten> {
    if let Some(why) = &pkg.unreadable {
        return Some(NotWritten::Unreadable(why.clone()));
    }
    if matches!(
        pkg.attribute("virtual"),
        Some(crate::import::spack::evaluator::value::Value::Bool(true))
    ) {
        return Some(NotWritten::Virtual);
    }
    if !s.versions.is_empty() {
        return None;
    }
    let why: Vec<String> = untranslated
        .iter()
        .filter(|u| u.construct.starts_with("version"))
        .map(|u| format!("line {}: {} ({})", u.line, u.construct, u.detail))
        .collect();
    if why.is_empty() && external {
        return None;
    }
    Some(NotWritten::NoVersions(if why.is_empty() {
        "the package declares none".into()
    } else {
        why.join("; ")
    }))
}

fn description(pkg: &crate::import::spack::directives::model::SpackPackage) -> String {
    let doc = pkg.docstring.clone().unwrap_or_default();
    let para = doc.split("\n\n").next().unwrap_or("");
    let text = para.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        format!("{} (imported from Spack)", pkg.name)
    } else {
        text
    }
}

fn seq_or_none(items: &[Yaml]) -> Option<Yaml> {
    (!items.is_empty()).then(|| Yaml::Seq(items.to_vec()))
}

pub(crate) fn assemble(
    pkg: &crate::import::spack::directives::model::SpackPackage,
    s: &crate::import::spack::directives::sections::Sections,
    build: Yaml,
    env: Vec<Yaml>,
    system: &str,
    origin: &Origin,
    untranslated: &[Untranslated],
) -> Yaml {
    let homepage = pkg
        .attribute("homepage")
        .and_then(|v| v.as_str())
        .map(Yaml::str);
    let variants = (!s.variants.is_empty()).then(|| Yaml::Map(s.variants.clone()));
    let build_tool = is_build_tool(pkg).then_some(Yaml::Bool(true));
    Yaml::map([
        ("name", Some(Yaml::str(&pkg.name))),
        ("description", Some(Yaml::str(description(pkg)))),
        ("homepage", homepage),
        ("versions", Some(Yaml::Seq(s.versions.clone()))),
        ("variants", variants),
        ("dependencies", seq_or_none(&s.dependencies)),
        ("conflicts", seq_or_none(&s.conflicts)),
        ("patches", seq_or_none(&s.patches)),
        ("resources", seq_or_none(&s.resources)),
        ("provides", seq_or_none(&s.provides)),
        ("build_tool", build_tool),
        ("build", Some(build)),
        ("env", seq_or_none(&env)),
        (
            "imported",
            Some(imported_block(pkg, s, system, origin, untranslated)),
        ),
    ])
}

/// Spack lets a package tagged `build-tools` or `compiler` have more than
/// one node (`concretizer:duplicates:strategy: minimal`): a build-only
/// dependency of another configuration. Such a package is a `build_tool`.
fn is_build_tool(pkg: &crate::import::spack::directives::model::SpackPackage) -> bool {
    let tagged = |v: &crate::import::spack::evaluator::value::Value| {
        v.as_str()
            .is_some_and(|t| t == "build-tools" || t == "compiler")
    };
    match pkg.attribute("tags") {
        Some(crate::import::spack::evaluator::value::Value::List(tags)) => tags.iter().any(tagged),
        _ => false,
    }
}

fn imported_block(
    pkg: &crate::import::spack::directives::model::SpackPackage,
    s: &crate::import::spack::directives::sections::Sections,
    system: &str,
    origin: &Origin,
    untranslated: &[Untranslated],
) -> Yaml {
    let languages = languages_yaml(&s.languages);
    let list_url = pkg
        .attribute("list_url")
        .and_then(|v| v.as_str())
        .map(Yaml::str);
    Yaml::map([
        ("from", Some(Yaml::str("spack"))),
        ("file", Some(Yaml::str(&origin.file))),
        ("commit", origin.commit.as_deref().map(Yaml::str)),
        ("reviewed", Some(Yaml::Bool(false))),
        ("languages", languages),
        ("build_system", Some(Yaml::str(system))),
        (
            "build_systems",
            (s.build_systems.len() > 1).then(|| Yaml::strs(&s.build_systems)),
        ),
        ("list_url", list_url),
        ("license", seq_or_none(&s.license)),
        (
            "maintainers",
            (!s.maintainers.is_empty()).then(|| Yaml::strs(&s.maintainers)),
        ),
        ("kept", seq_or_none(&s.kept)),
        ("untranslated", untranslated_items(untranslated)),
    ])
}

/// `imported.languages`: a language always needed as its name, one needed
/// under conditions once per condition (`{language: cxx, when: "@1.3.4:"}`).
fn languages_yaml(
    languages: &std::collections::BTreeMap<String, Vec<Option<String>>>,
) -> Option<Yaml> {
    let mut items = Vec::new();
    for (name, conds) in languages {
        if conds.contains(&None) {
            items.push(Yaml::str(name));
            continue;
        }
        for when in conds.iter().flatten() {
            items.push(Yaml::map([
                ("language", Some(Yaml::str(name))),
                ("when", Some(Yaml::str(when))),
            ]));
        }
    }
    seq_or_none(&items)
}

/// The `imported.untranslated` list.
pub(crate) fn untranslated_items(untranslated: &[Untranslated]) -> Option<Yaml> {
    let items = untranslated
        .iter()
        .map(|u| {
            Yaml::map([
                ("line", Some(Yaml::Int(u.line as i64))),
                ("kind", Some(Yaml::str(u.kind.name()))),
                ("construct", Some(Yaml::str(&u.construct))),
                (
                    "detail",
                    (!u.detail.is_empty()).then(|| Yaml::str(&u.detail)),
                ),
            ])
        })
        .collect::<Vec<_>>();
    seq_or_none(&items)
}
