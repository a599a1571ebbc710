//! `resource(…)` → an entry of the recipe's package-level `resources:`
//! (fetched, checked and unpacked before any build logic runs, only for
//! the nodes that meet its `when`).
//!
//! Spack's layout: `destination` is a directory of the stage's source tree;
//! `placement` renames what was unpacked (a string: the unpacked directory;
//! a mapping: paths of it); without a placement an archive's top-level
//! directory keeps its name (`strip: false` in the recipe) and a file its
//! file name. A resource stack cannot fetch as written (no sha256, a git
//! resource without a placement, an unknown keyword) is refused for the
//! configurations that would use it: a conflict when it has a `when`, else
//! build logic that is not translated (the package is refused).

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::{Directive, Kind, SpackPackage};
use crate::import::spack::directives::sections::Sections;
use crate::import::spack::evaluator::value::Value;

/// The keywords a translated resource may carry.
const KEYWORDS: &[&str] = &[
    "name",
    "url",
    "git",
    "sha256",
    "expand",
    "destination",
    "placement",
    "when",
    "tag",
    "branch",
    "commit",
    "submodules",
];

/// Translate the `resource(…)` directive `d` into `s.resources`.
pub fn resource(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive, when: Option<String>) {
    let name = d.kw_str("name").unwrap_or("resource").to_string();
    match entry(d, &when) {
        Ok(yaml) => s.resources.push(yaml),
        Err(why) => {
            let detail = format!("{name}: {why}");
            match when {
                Some(w) => {
                    let message = format!(
                        "resource `{name}` (package.py line {}) is not supported by stack: {why}",
                        d.line
                    );
                    s.conflicts.push(Yaml::map([
                        ("when", Some(Yaml::str(&w))),
                        ("message", Some(Yaml::str(message))),
                    ]));
                    // The condition is named so that the conflict it became is
                    // traced to this item (the differential check flags it).
                    let detail = format!("{detail} (a conflict when {w})");
                    pkg.untranslated(d.line, Kind::Info, "resource not supported", detail);
                }
                None => pkg.untranslated(d.line, Kind::Build, "directive resource", detail),
            }
            s.kept
                .push(crate::import::spack::directives::sections::kept(d));
        }
    }
}

fn entry(d: &Directive, when: &Option<String>) -> Result<Yaml, String> {
    if let Some((k, _)) = d
        .kwargs
        .iter()
        .find(|(k, _)| !KEYWORDS.contains(&k.as_str()))
    {
        return Err(format!("keyword `{k}` is not translated"));
    }
    if !d.args.is_empty() {
        return Err("positional arguments are not translated".into());
    }
    let expand = flag(d, "expand", true)?;
    let destination = match text(d, "destination")? {
        None => None,
        Some(dir) => {
            relative(&dir).ok_or_else(|| format!("destination `{dir}` leaves the source tree"))?
        }
    };
    let placement = match d.kw("placement") {
        None => None,
        Some(Value::Str(p)) => Some(Yaml::str(relative(p).flatten().ok_or_else(|| {
            format!("placement `{p}` is not a directory inside the destination")
        })?)),
        Some(Value::Dict(items)) => Some(placement_map(items, expand)?),
        Some(other) => {
            return Err(format!(
                "placement {} is not translated",
                other.to_py_string()
            ));
        }
    };
    let mut m: Vec<(&str, Option<Yaml>)> = vec![("name", text(d, "name")?.map(Yaml::str))];
    match (text(d, "url")?, text(d, "git")?) {
        (Some(url), None) => url_fields(d, url, expand, placement.is_none(), &mut m)?,
        (None, Some(git)) => {
            if placement.is_none() {
                return Err("a git resource without `placement` (where Spack leaves its checkout is not a directory of the source tree)".into());
            }
            git_fields(d, git, &mut m)?;
        }
        (Some(_), Some(_)) => return Err("both `url` and `git`".into()),
        (None, None) => return Err("no `url` or `git`".into()),
    }
    m.push(("destination", destination.map(Yaml::str)));
    m.push(("placement", placement));
    m.push(("when", when.as_deref().map(Yaml::str)));
    Ok(Yaml::map(m))
}

/// A string keyword of the directive, if given.
fn text(d: &Directive, key: &str) -> Result<Option<String>, String> {
    match d.kw(key) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("`{key}` is not a string ({})", v.to_py_string())),
    }
}

/// A boolean keyword of the directive, `default` when not given.
fn flag(d: &Directive, key: &str, default: bool) -> Result<bool, String> {
    match d.kw(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!(
            "`{key}` is not True or False ({})",
            v.to_py_string()
        )),
    }
}

/// The fields of an archive resource (`url` with its `sha256`).
fn url_fields(
    d: &Directive,
    url: String,
    expand: bool,
    no_placement: bool,
    m: &mut Vec<(&str, Option<Yaml>)>,
) -> Result<(), String> {
    let sha = text(d, "sha256")?
        .filter(|s| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or("no sha256: stack fetches only what it can check")?;
    for key in ["tag", "branch", "commit", "submodules"] {
        if d.kw(key).is_some() {
            return Err(format!("`{key}` beside `url`"));
        }
    }
    m.push(("url", Some(Yaml::str(url))));
    m.push(("sha256", Some(Yaml::str(sha.to_ascii_lowercase()))));
    m.push(("expand", (!expand).then_some(Yaml::Bool(false))));
    // Without a placement Spack keeps the unpacked directory's name.
    let keep_top = no_placement && expand;
    m.push(("strip", keep_top.then_some(Yaml::Bool(false))));
    Ok(())
}

/// The fields of a git resource (`git` with a tag, branch or commit).
fn git_fields(d: &Directive, git: String, m: &mut Vec<(&str, Option<Yaml>)>) -> Result<(), String> {
    if d.kw("sha256").is_some() || d.kw("expand").is_some() {
        return Err("`sha256` or `expand` beside `git`".into());
    }
    m.push(("git", Some(Yaml::str(git))));
    let commit = text(d, "commit")?;
    if let Some(c) = &commit
        && !(c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(format!("commit `{c}` is not a full commit id"));
    }
    match (text(d, "tag")?, text(d, "branch")?, commit) {
        (Some(t), None, c) => {
            m.push(("tag", Some(Yaml::str(t))));
            m.push(("commit", c.map(Yaml::str)));
        }
        (None, Some(b), c) => {
            m.push(("branch", Some(Yaml::str(b))));
            m.push(("commit", c.map(Yaml::str)));
        }
        (None, None, Some(c)) => m.push(("commit", Some(Yaml::str(c)))),
        (None, None, None) => return Err("a git resource without tag, branch or commit".into()),
        (Some(_), Some(_), _) => return Err("both `tag` and `branch`".into()),
    }
    m.push((
        "submodules",
        flag(d, "submodules", false)?.then_some(Yaml::Bool(true)),
    ));
    Ok(())
}

/// `placement={"file": "dir/file"}`: each key a path of the unpacked
/// resource. A file that is not unpacked is named as stack saves it: the
/// URL's last path component without its query (`x.c?get=25` → `x.c`).
fn placement_map(items: &[(Value, Value)], expand: bool) -> Result<Yaml, String> {
    let mut out = Vec::new();
    for (k, v) in items {
        let (Some(from), Some(to)) = (k.as_str(), v.as_str()) else {
            return Err("a placement mapping of other than strings".into());
        };
        let from = if expand {
            from
        } else {
            from.split(['?', '#']).next().unwrap_or(from)
        };
        let from = relative(from)
            .flatten()
            .ok_or_else(|| format!("placement key `{from}`"))?;
        let to = relative(to)
            .flatten()
            .ok_or_else(|| format!("placement `{to}` leaves the destination"))?;
        out.push((from, Yaml::str(to)));
    }
    Ok(Yaml::Map(out))
}

/// `p` in normal form when it stays inside (`None` inside: the top, `.`).
pub(crate) fn relative(p: &str) -> Option<Option<String>> {
    use std::path::{Component, Path};
    let path = Path::new(p);
    if path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
        return None;
    }
    let norm: std::path::PathBuf = path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    let s = norm.to_string_lossy().into_owned();
    Some((!s.is_empty()).then_some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directive(kwargs: &[(&str, Value)]) -> Directive {
        Directive {
            name: "resource".into(),
            line: 7,
            args: Vec::new(),
            kwargs: kwargs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

    const SHA: &str = "923f600a081d948eb8b4510f84aa96167b5a6c3e1aba16845d2364ae137dc346";

    #[test]
    fn a_file_resource_keeps_its_placement_and_when() {
        let d = directive(&[
            ("name", s("data")),
            ("url", s("https://example.org/get/data.bin?get=2")),
            ("sha256", s(SHA)),
            ("expand", Value::Bool(false)),
            (
                "placement",
                Value::Dict(vec![(s("data.bin?get=2"), s("share/data.bin"))]),
            ),
        ]);
        let y = entry(&d, &Some("+data".into())).unwrap().to_document();
        assert!(y.contains("expand: false"), "{y}");
        assert!(y.contains("data.bin: share/data.bin"), "{y}");
        assert!(y.contains("when: \"+data\""), "{y}");
        assert!(!y.contains("strip"), "{y}");
    }

    #[test]
    fn an_archive_without_placement_keeps_its_top_directory() {
        let d = directive(&[
            ("url", s("https://example.org/extra-1.0.tar.gz")),
            ("sha256", s(SHA)),
            ("destination", s("./deps/")),
        ]);
        let y = entry(&d, &None).unwrap().to_document();
        assert!(y.contains("strip: false"), "{y}");
        assert!(y.contains("destination: deps"), "{y}");
    }

    #[test]
    fn git_resources_need_a_placement_and_a_full_commit() {
        let git = |extra: &[(&str, Value)]| {
            let mut k = vec![("git", s("https://example.org/r.git"))];
            k.extend(extra.iter().cloned());
            entry(&directive(&k), &None)
        };
        let ok = git(&[("commit", s(&"a".repeat(40))), ("placement", s("r"))])
            .unwrap()
            .to_document();
        assert!(ok.contains("commit: aaaa"), "{ok}");
        assert!(
            git(&[("commit", s(&"a".repeat(40)))])
                .unwrap_err()
                .contains("placement")
        );
        assert!(
            git(&[("commit", s("abc")), ("placement", s("r"))])
                .unwrap_err()
                .contains("full commit")
        );
        let no_sha = entry(
            &directive(&[("url", s("https://example.org/a.tgz"))]),
            &None,
        );
        assert!(no_sha.unwrap_err().contains("sha256"));
    }
}
