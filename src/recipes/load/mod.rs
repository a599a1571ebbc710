//! Reading one package recipe file into a [`PackageRecipe`].

use std::collections::BTreeSet;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::diag::yaml::{self, Cx, Map, Node};
use crate::diag::{Code, Diagnostic, Diagnostics, Loc, SourceFile, Spanned, display_path};
use crate::spec::Version;

use super::build::{Build, BuildSystem};
use super::located::{PathRef, absolutize};
use super::package::*;
use super::read::{self, Named};

mod below;
mod build;
mod filter;
mod package_files;
mod resources;

const TOP_KEYS: &[&str] = &[
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
    "dependent_build_env",
    "imported",
    "executables",
    "libraries",
    "build_tool",
];

const VERSION_KEYS: &[&str] = &[
    "version",
    "url",
    "sha256",
    "expand",
    "preferred",
    "git",
    "tag",
    "branch",
    "commit",
    "submodules",
    "resources",
    "max_size",
    "source",
];

/// Read `path` (a recipe in the repository directory `repo_dir`). Returns the
/// recipe when the file could be read far enough (it may still have errors:
/// see the diagnostics).
pub fn load_package(path: &Path, repo_dir: &Path) -> (Option<PackageRecipe>, Diagnostics) {
    let src = match SourceFile::read_input(path, "package recipe") {
        Ok(src) => src,
        Err(diags) => return (None, diags),
    };
    let mut diags = Diagnostics::new();
    let recipe = parse_package(&src, repo_dir, &mut diags);
    (recipe, diags)
}

/// Parse a package recipe from source text.
/// `executables:`, `libraries:` and `build_tool:`.
fn tool_fields(cx: &mut Cx, m: &Map) -> (Vec<String>, Vec<String>, bool) {
    let executables = m
        .get("executables")
        .map(|n| {
            cx.strings(n, "`executables`", false)
                .into_iter()
                .map(|s| s.value)
                .collect()
        })
        .unwrap_or_default();
    let libraries = m
        .get("libraries")
        .map(|n| cx.strings(n, "`libraries`", false))
        .unwrap_or_default();
    for l in &libraries {
        let ok = l.value.len() > 3
            && l.value.starts_with("lib")
            && !l.value.contains(".so")
            && l.value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_+-.".contains(c));
        if !ok {
            cx.error(
                Code::InvalidValue,
                &l.loc,
                format!("`libraries`: `{}` is not a library name", l.value),
                "expected the file name before `.so`, starting with `lib`",
                Some("write `libz` for libz.so, libz.so.1, …".into()),
            );
        }
    }
    let libraries = libraries.into_iter().map(|s| s.value).collect();
    let build_tool = m
        .get("build_tool")
        .and_then(|n| cx.bool(n, "`build_tool`"))
        .unwrap_or(false);
    (executables, libraries, build_tool)
}

/// `name:`, which must be the file's stem (else the stem stands for it).
fn package_name(cx: &mut Cx, m: &Map, src: &SourceFile) -> Spanned<String> {
    let name = cx
        .required(m, "name", "the package recipe")
        .and_then(|n| cx.nonempty_string(n, "`name`"));
    let stem = src
        .path()
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(name) = name else {
        return Spanned::new(stem, src.start());
    };
    if name.value != stem {
        cx.error(
            Code::NameMismatch,
            &name.loc,
            format!(
                "package name `{}` differs from the file name `{}`",
                name.value,
                src.path().file_name().unwrap_or_default().to_string_lossy()
            ),
            format!("expected `{stem}`"),
            Some(format!(
                "rename the file to `{}.yaml` or set `name: {stem}`",
                name.value
            )),
        );
    }
    check_package_name(cx, &name);
    name
}

/// The build section of a recipe without a valid one (errors reported).
fn placeholder_build(m: &Map) -> Build {
    Build {
        system: BuildSystem::new(crate::build_kinds::placeholder()),
        install: Vec::new(),
        build_env: Vec::new(),
        steps: Vec::new(),
        filters: Vec::new(),
        flags: Vec::new(),
        loc: m.loc.clone(),
    }
}

pub fn parse_package(
    src: &SourceFile,
    repo_dir: &Path,
    diags: &mut Diagnostics,
) -> Option<PackageRecipe> {
    let root = yaml::parse_into(src, diags)?;
    let mut cx = Cx::new(src, diags);
    let m = cx.map(&root, "a package recipe", TOP_KEYS)?;
    let what = "the package recipe";

    let name = package_name(&mut cx, &m, src);
    let description = cx
        .required(&m, "description", what)
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value)
        .unwrap_or_default();
    let homepage = m
        .get("homepage")
        .and_then(|n| cx.string(n, "`homepage`"))
        .map(|s| s.value);

    let versions = match cx.required(&m, "versions", what) {
        Some(n) => versions(&mut cx, n, external_kind(&m)),
        None => Vec::new(),
    };
    let variants = m
        .get("variants")
        .map(|n| variants(&mut cx, n))
        .unwrap_or_default();
    let dependencies = m
        .get("dependencies")
        .map(|n| dependencies(&mut cx, n))
        .unwrap_or_default();
    let conflicts = m
        .get("conflicts")
        .map(|n| conflicts(&mut cx, n))
        .unwrap_or_default();
    let patches = m
        .get("patches")
        .map(|n| patches(&mut cx, n, repo_dir))
        .unwrap_or_default();
    let resources = m
        .get("resources")
        .map(|n| resources::package_resources(&mut cx, n))
        .unwrap_or_default();
    let provides = m
        .get("provides")
        .map(|n| provides(&mut cx, n))
        .unwrap_or_default();
    let build = match cx.required(&m, "build", what) {
        Some(n) => build::build(&mut cx, n, repo_dir),
        None => None,
    };
    let build = build.unwrap_or_else(|| placeholder_build(&m));
    let env = m
        .get("env")
        .map(|n| read::env_ops(&mut cx, n, "`env`"))
        .unwrap_or_default();
    let dependent_build_env = m
        .get("dependent_build_env")
        .map(|n| read::env_ops(&mut cx, n, "`dependent_build_env`"))
        .unwrap_or_default();

    let imported = m
        .get("imported")
        .and_then(|n| super::imported::imported(&mut cx, n, &name.value));

    let (executables, libraries, build_tool) = tool_fields(&mut cx, &m);

    let recipe = PackageRecipe {
        name: name.value,
        file: src.path().to_path_buf(),
        repo_dir: repo_dir.to_path_buf(),
        loc: name.loc,
        description,
        homepage,
        versions,
        variants,
        dependencies,
        conflicts,
        patches,
        resources,
        provides,
        build,
        env,
        dependent_build_env,
        imported,
        executables,
        libraries,
        build_tool,
    };
    super::validate::check_own_conditions(&recipe, &mut cx);
    Some(recipe)
}

fn check_package_name(cx: &mut Cx, name: &Spanned<String>) {
    let ok = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric());
    if !ok {
        cx.error(
            Code::InvalidValue,
            &name.loc,
            format!("`{}` is not a valid package name", name.value),
            "expected letters, digits, `-`, `_` and `.`",
            None,
        );
    }
}

/// Whether `build: {system: …}` names an external-only kind: such a package
/// may list no versions, the external's spec names its version (Spack's
/// fujitsu-ssl2 declares none).
fn external_kind(m: &Map) -> bool {
    m.get("build")
        .and_then(|b| b.as_mapping()?.get_node("system")?.as_scalar().cloned())
        .and_then(|s| crate::build_kinds::get(s.as_str()))
        .is_some_and(|k| k.external_only())
}

pub(super) fn versions(cx: &mut Cx, node: &Node, may_be_empty: bool) -> Vec<VersionEntry> {
    let Some(items) = cx.seq(node, "`versions`") else {
        return Vec::new();
    };
    if items.is_empty() && !may_be_empty {
        let loc = cx.loc(node);
        cx.error(
            Code::MissingField,
            &loc,
            "`versions` is empty",
            "expected at least one version",
            None,
        );
    }
    let mut out: Vec<VersionEntry> = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a version entry", VERSION_KEYS) else {
            continue;
        };
        let Some(entry) = version_entry(cx, &m) else {
            continue;
        };
        if let Some(prev) = out.iter().find(|v| v.version == entry.version) {
            let d = Diagnostic::error(
                Code::DuplicateVersion,
                format!("version `{}` is listed twice", entry.text),
            )
            .at(&entry.loc, "listed again here")
            .at(&prev.loc, "first listed here")
            .with_help(
                "remove one of the two entries (give a git branch its own name, e.g. `main`)",
            );
            cx.push(d);
            continue;
        }
        out.push(entry);
    }
    out
}

fn version_entry(cx: &mut Cx, m: &Map) -> Option<VersionEntry> {
    let text = cx
        .required(m, "version", "a version entry")
        .and_then(|n| cx.nonempty_string(n, "`version`"));
    let version = text.as_ref().and_then(|t| match Version::parse(t) {
        Ok(v) => Some(v),
        Err(e) => {
            cx.error(
                Code::InvalidValue,
                &t.loc,
                format!("invalid version `{}`: {}", t.value, e.reason()),
                "expected a version such as `1.2.3`, `2.29.7-1` or `main`",
                None,
            );
            None
        }
    });
    let preferred = m
        .get("preferred")
        .and_then(|n| cx.bool(n, "`preferred`"))
        .unwrap_or(false);
    let source = source(cx, m);
    let (text, version, source) = (text?, version?, source?);
    Some(VersionEntry {
        version,
        text: text.value,
        loc: text.loc,
        source,
        preferred,
    })
}

/// `source: none`, alone: no `url`, `git` or their keys beside it.
fn no_source(cx: &mut Cx, m: &Map, none: &Node) -> Option<Source> {
    let value = cx.string(none, "`source`")?;
    if value.value != "none" {
        cx.error(
            Code::BadSource,
            &value.loc,
            format!(
                "`source` takes only the value `none`, not `{}`",
                value.value
            ),
            "not `none`",
            Some("give the source as `url` or `git`, or write `source: none`".into()),
        );
        return None;
    }
    let mut ok = true;
    for key in ["url", "git"].iter().chain(GIT_ONLY).chain(URL_ONLY) {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadSource,
                &loc,
                format!("a version with `source: none` has no `{key}`"),
                "beside `source: none`",
                Some("keep either `source: none` or the source".into()),
            );
            ok = false;
        }
    }
    ok.then_some(Source::None)
}

const GIT_ONLY: &[&str] = &["tag", "branch", "commit", "submodules"];
const URL_ONLY: &[&str] = &["sha256", "expand", "resources", "max_size"];

fn source(cx: &mut Cx, m: &Map) -> Option<Source> {
    if let Some(none) = m.get("source") {
        return no_source(cx, m, none);
    }
    match (m.get("url"), m.get("git")) {
        (Some(_), Some(git)) => {
            let loc = cx.loc(git);
            cx.error(
                Code::BadSource,
                &loc,
                "a version has both `url` and `git`",
                "second source here",
                Some("give each source its own version entry".into()),
            );
            None
        }
        (None, None) => {
            cx.error(
                Code::BadSource,
                &m.loc,
                "a version needs a source: `url` (with `sha256`), `git` (with `tag`, `branch` or `commit`) or `source: none`",
                "no `url` or `git` in this entry",
                None,
            );
            None
        }
        (Some(url), None) => {
            misplaced_keys(cx, m, GIT_ONLY, "git");
            let (resource, text) = read::resource(cx, url, "`url`")?;
            let sha256 = m
                .get("sha256")
                .and_then(|n| read::sha256(cx, n, "`sha256`"));
            let expand = m
                .get("expand")
                .and_then(|n| cx.bool(n, "`expand`"))
                .unwrap_or(true);
            let resources = resources::resources(cx, m);
            let max_size = m.get("max_size").and_then(|n| super::max_size::read(cx, n));
            Some(Source::Archive(ArchiveSource {
                url: resource,
                url_text: text.value,
                sha256,
                expand,
                resources,
                max_size,
                loc: text.loc,
            }))
        }
        (None, Some(git)) => {
            misplaced_keys(cx, m, URL_ONLY, "url");
            let (resource, text) = read::resource(cx, git, "`git`")?;
            let (reference, pin, submodules) = git_revision(cx, m, &text.loc, "a git version")?;
            Some(Source::Git(GitSource {
                repo: resource,
                repo_text: text.value,
                reference,
                commit: pin,
                submodules,
                loc: text.loc,
            }))
        }
    }
}

/// The revision of a git source or resource (`tag`, `branch` or `commit`,
/// a `commit` pin beside a tag or branch, `submodules`); `what` names the
/// entry in messages.
pub(super) fn git_revision(
    cx: &mut Cx,
    m: &Map,
    at: &Loc,
    what: &str,
) -> Option<(GitRef, Option<String>, bool)> {
    let tag = m.get("tag").and_then(|n| cx.nonempty_string(n, "`tag`"));
    let branch = m
        .get("branch")
        .and_then(|n| cx.nonempty_string(n, "`branch`"));
    let commit = m.get("commit").and_then(|n| commit(cx, n));
    let submodules = m
        .get("submodules")
        .and_then(|n| cx.bool(n, "`submodules`"))
        .unwrap_or(false);
    let (reference, pin) = match (tag, branch, commit) {
        (Some(_), Some(b), _) => {
            cx.error(
                Code::BadSource,
                &b.loc,
                format!("{what} has both `tag` and `branch`"),
                "choose one",
                Some("use `tag` for releases, `branch` for moving heads".into()),
            );
            return None;
        }
        (Some(t), None, c) => (GitRef::Tag(t.value), c),
        (None, Some(b), c) => (GitRef::Branch(b.value), c),
        (None, None, Some(c)) => (GitRef::Commit(c), None),
        (None, None, None) => {
            cx.error(
                Code::BadSource,
                at,
                format!("{what} needs one of `tag`, `branch` or `commit`"),
                "which revision?",
                None,
            );
            return None;
        }
    };
    Some((reference, pin, submodules))
}

fn misplaced_keys(cx: &mut Cx, m: &Map, keys: &[&str], kind: &str) {
    for key in keys {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadSource,
                &loc,
                format!("`{key}` only applies to `{kind}` sources"),
                "not used by this source",
                None,
            );
        }
    }
}

/// Whether `s` is a full git commit id, 40 hex digits (as
/// [`super::GitRef::Commit`] holds, lower-cased).
pub fn is_commit_id(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn commit(cx: &mut Cx, node: &Node) -> Option<String> {
    let s = cx.string(node, "`commit`")?;
    if is_commit_id(&s) {
        Some(s.to_ascii_lowercase())
    } else {
        cx.error(
            Code::BadSource,
            &s.loc,
            format!("`{}` is not a full git commit id", s.value),
            "expected 40 hex digits",
            Some("run `git rev-parse <ref>` to get the full id".into()),
        );
        None
    }
}

fn variants(cx: &mut Cx, node: &Node) -> Vec<VariantDef> {
    let Some(m) = cx.open_map(node, "`variants`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in m.entries() {
        let name = key.as_str().to_string();
        let loc = cx.scalar_loc(key);
        let valid = !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            cx.error(
                Code::InvalidValue,
                &loc,
                format!("`{name}` is not a valid variant name"),
                "expected a letter or digit followed by letters, digits, `_` or `-`",
                None,
            );
            continue;
        }
        if crate::spec::reserved_variant(&name) {
            cx.error(
                Code::InvalidValue,
                &loc,
                format!("`{name}` is reserved by the spec syntax and cannot be a variant"),
                "reserved name",
                None,
            );
            continue;
        }
        // A list: one definition per condition (`when`), the first that
        // holds applies.
        if let Node::Sequence(items) = value {
            for item in items.as_slice() {
                out.extend(variant(cx, name.clone(), loc.clone(), item));
            }
            continue;
        }
        if let Some(def) = variant(cx, name, loc, value) {
            out.push(def);
        }
    }
    out
}

fn variant(cx: &mut Cx, name: String, loc: Loc, node: &Node) -> Option<VariantDef> {
    let what = format!("variant `{name}`");
    let m = cx.map(
        node,
        &what,
        &["default", "values", "multi", "description", "when"],
    )?;
    let description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    let when = m.get("when").and_then(|n| read::when(cx, n));
    let multi = m.get("multi").and_then(|n| cx.bool(n, "`multi`"));
    let values = m.get("values").map(|n| variant_values(cx, n, &what));
    let default = cx.required(&m, "default", &what)?;
    let kind = match default {
        Node::Scalar(s) if s.as_bool().is_some() => {
            check_bool_variant(cx, &m, &what, default, s.as_str(), multi);
            VariantKind::Bool {
                default: s.as_bool().unwrap_or(false),
            }
        }
        Node::Sequence(_) => {
            if multi == Some(false) {
                let l = cx.loc(default);
                cx.error(
                    Code::InvalidValue,
                    &l,
                    format!("{what} has `multi: false` but a list default"),
                    "expected a single value",
                    None,
                );
            }
            let defaults = cx.strings(default, "`default`", false);
            check_defaults(cx, &what, &defaults, values.as_deref());
            VariantKind::Multi {
                default: defaults
                    .into_iter()
                    .map(|s| s.value)
                    .collect::<BTreeSet<_>>(),
                values: values.map(|v| v.into_iter().map(|s| s.value).collect()),
            }
        }
        _ => {
            let d = cx.string(default, "`default`")?;
            check_defaults(cx, &what, std::slice::from_ref(&d), values.as_deref());
            let values = values.map(|v| v.into_iter().map(|s| s.value).collect());
            if multi == Some(true) {
                VariantKind::Multi {
                    default: BTreeSet::from([d.value]),
                    values,
                }
            } else {
                VariantKind::Single {
                    default: d.value,
                    values,
                }
            }
        }
    };
    Some(VariantDef {
        name,
        loc,
        description,
        kind,
        when,
    })
}

/// `values:` of a variant, which must not be empty.
fn variant_values(cx: &mut Cx, n: &Node, what: &str) -> Vec<Spanned<String>> {
    let vals = cx.strings(n, "`values`", false);
    if vals.is_empty() {
        let loc = cx.loc(n);
        cx.error(
            Code::InvalidValue,
            &loc,
            format!("{what} has an empty `values` list"),
            "expected at least one value",
            Some("remove `values` to accept any value".into()),
        );
    }
    vals
}

/// A bool variant (default `text`) has no `values:` and is not `multi`.
fn check_bool_variant(
    cx: &mut Cx,
    m: &Map,
    what: &str,
    default: &Node,
    text: &str,
    multi: Option<bool>,
) {
    if let Some(v) = m.key_node("values") {
        let l = cx.scalar_loc(v);
        cx.error(
            Code::InvalidValue,
            &l,
            format!("{what} is a bool variant (default `{text}`) and cannot have `values`"),
            "bool variants are `+name` / `~name`",
            Some("quote the default (`\"false\"`) for a single-valued variant".into()),
        );
    }
    if multi == Some(true) {
        let l = cx.loc(default);
        cx.error(
            Code::InvalidValue,
            &l,
            format!("{what} has `multi: true` but a bool default"),
            "expected a list of values",
            None,
        );
    }
}

fn check_defaults(
    cx: &mut Cx,
    what: &str,
    defaults: &[Spanned<String>],
    values: Option<&[Spanned<String>]>,
) {
    let Some(values) = values else {
        return;
    };
    let names: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
    for d in defaults {
        if !names.contains(&d.as_str()) {
            cx.error(
                Code::UnknownVariantValue,
                &d.loc,
                format!(
                    "the default `{}` of {what} is not one of its `values`",
                    d.value
                ),
                format!("expected one of {}", names.join(", ")),
                crate::diag::did_you_mean(d, &names),
            );
        }
    }
}

fn dependencies(cx: &mut Cx, node: &Node) -> Vec<Dependency> {
    let Some(items) = cx.seq(node, "`dependencies`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        if let Node::Mapping(mm) = item {
            // `- libgreet@1: +shared` is a one-entry mapping to YAML.
            if mm.len() == 1
                && mm.get_node("spec").is_none()
                && mm.get_node("type").is_none()
                && mm.get_node("when").is_none()
                && mm.get_node("elsewhere").is_none()
            {
                let (k, v) = mm.iter().next().expect("one entry");
                let loc = cx.scalar_loc(k);
                let text = match v {
                    Node::Scalar(s) => format!("{}: {}", k.as_str(), s.as_str()),
                    _ => k.as_str().to_string(),
                };
                cx.error(
                    Code::WrongType,
                    &loc,
                    format!("the dependency `{text}` reads as a mapping because of `: `"),
                    "YAML splits this at `: `",
                    Some(format!(
                        "quote the spec: `- \"{text}\"`, or write `{{spec: …, when: …}}`"
                    )),
                );
                continue;
            }
            let Some(m) = cx.map(item, "a dependency", &["spec", "type", "when", "elsewhere"])
            else {
                continue;
            };
            let spec = cx
                .required(&m, "spec", "a dependency")
                .and_then(|n| read::spec(cx, n, "a dependency", Named::Required));
            let types = m.get("type").map(|n| dep_types(cx, n)).unwrap_or_default();
            let when = m.get("when").and_then(|n| read::when(cx, n));
            let elsewhere = m
                .get("elsewhere")
                .and_then(|n| cx.bool(n, "`elsewhere`"))
                .unwrap_or(false);
            if elsewhere && when.is_none() {
                let loc = m
                    .key_node("elsewhere")
                    .map(|k| cx.scalar_loc(k))
                    .unwrap_or_else(|| m.loc.clone());
                cx.error(
                    Code::InvalidValue,
                    &loc,
                    "`elsewhere: true` on a dependency without `when:`",
                    "every build needs this package",
                    Some(
                        "`elsewhere` lets a conditional dependency name a package the searched repositories may lack; give its condition, or drop `elsewhere`".into(),
                    ),
                );
            }
            if let Some(spec) = spec {
                out.push(Dependency {
                    spec,
                    types,
                    when,
                    elsewhere,
                    loc: m.loc.clone(),
                });
            }
        } else if let Some(spec) = read::spec(cx, item, "a dependency", Named::Required) {
            let loc = spec.loc.clone();
            out.push(Dependency {
                spec,
                types: DepTypes::DEFAULT,
                when: None,
                elsewhere: false,
                loc,
            });
        }
    }
    out
}

fn dep_types(cx: &mut Cx, node: &Node) -> DepTypes {
    let mut t = DepTypes::NONE;
    for s in cx.strings(node, "`type`", true) {
        match s.as_str() {
            "build" => t.build = true,
            "link" => t.link = true,
            "run" => t.run = true,
            "test" => t.test = true,
            other => {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!("unknown dependency type `{other}`"),
                    "expected `build`, `link`, `run` or `test`",
                    crate::diag::did_you_mean(other, &["build", "link", "run", "test"]),
                );
            }
        }
    }
    if t == DepTypes::NONE {
        DepTypes::DEFAULT
    } else {
        t
    }
}

fn conflicts(cx: &mut Cx, node: &Node) -> Vec<Conflict> {
    let Some(items) = cx.seq(node, "`conflicts`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a conflict", &["when", "message"]) else {
            continue;
        };
        let when = cx
            .required(&m, "when", "a conflict")
            .and_then(|n| read::when(cx, n));
        let message = m
            .get("message")
            .and_then(|n| cx.string(n, "`message`"))
            .map(|s| s.value);
        if let Some(when) = when {
            out.push(Conflict {
                when,
                message,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

fn patches(cx: &mut Cx, node: &Node, repo_dir: &Path) -> Vec<Patch> {
    let Some(items) = cx.seq(node, "`patches`") else {
        return Vec::new();
    };
    let patch_dir = absolutize(Path::new("../patches"), repo_dir);
    let mut out = Vec::new();
    for item in items {
        let keys = &["file", "url", "sha256", "level", "working_dir", "when"];
        let Some(m) = cx.map(item, "a patch", keys) else {
            continue;
        };
        let sha = cx
            .required(&m, "sha256", "a patch")
            .and_then(|n| read::sha256(cx, n, "the patch `sha256`"));
        let level = m
            .get("level")
            .and_then(|n| cx.u32(n, "`level`"))
            .unwrap_or(1);
        let working_dir = m
            .get("working_dir")
            .and_then(|n| resources::tree_dir(cx, n, "`working_dir`"));
        let when = m.get("when").and_then(|n| read::when(cx, n));
        let source = match (m.get("file"), m.get("url")) {
            (Some(f), None) => cx.nonempty_string(f, "`file`").map(|f| {
                let path = absolutize(Path::new(&f.value), &patch_dir);
                check_patch_file(cx, &f, &path, &patch_dir, sha.as_deref());
                PatchSource::File(PathRef {
                    text: f.value,
                    path,
                    loc: f.loc,
                })
            }),
            (None, Some(u)) => cx.nonempty_string(u, "`url`").map(PatchSource::Url),
            (Some(_), Some(u)) => {
                let loc = cx.loc(u);
                cx.error(
                    Code::BadSource,
                    &loc,
                    "a patch has both `file` and `url`",
                    "choose one",
                    None,
                );
                None
            }
            (None, None) => {
                cx.error(
                    Code::MissingField,
                    &m.loc,
                    "a patch needs `file` (below the repository's `patches/` dir) or `url`",
                    "no `file` or `url`",
                    None,
                );
                None
            }
        };
        if let (Some(source), Some(sha256)) = (source, sha) {
            out.push(Patch {
                source,
                sha256,
                level,
                working_dir,
                when,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

fn check_patch_file(
    cx: &mut Cx,
    text: &Spanned<String>,
    path: &Path,
    patch_dir: &Path,
    sha: Option<&str>,
) {
    // Below patches/, also after following links: a recipe must not make
    // `stack check` read (and print the checksum of) any file it likes.
    let inside = path.starts_with(patch_dir) && below::stays_below(path, patch_dir);
    if !inside {
        cx.error(
            Code::InvalidValue,
            &text.loc,
            format!(
                "patch file `{}` is outside the repository's `patches/` directory",
                text.value
            ),
            "not below patches/",
            Some(
                "`file:` is relative to the `patches/` directory beside the repository; \
                 copy the patch there"
                    .into(),
            ),
        );
        return;
    }
    match fs_err::read(path) {
        Err(_) => {
            cx.error(
                Code::PatchMissing,
                &text.loc,
                format!("patch file `{}` not found", text.value),
                format!("expected {}", display_path(path)),
                Some(format!(
                    "`file:` is relative to {}/, the `patches/` directory beside the repository",
                    display_path(patch_dir)
                )),
            );
        }
        Ok(bytes) => {
            let actual = hex::encode(Sha256::digest(&bytes));
            if let Some(expected) = sha {
                if actual != expected {
                    cx.error(
                        Code::PatchChecksum,
                        &text.loc,
                        format!("sha256 mismatch for patch `{}`", text.value),
                        "this file's checksum differs from `sha256`",
                        Some(format!(
                            "the file's sha256 is {actual}; if the patch changed on purpose, put that in the recipe"
                        )),
                    );
                }
            }
        }
    }
}

fn provides(cx: &mut Cx, node: &Node) -> Vec<Provide> {
    let Some(items) = cx.seq(node, "`provides`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let (virt, when, loc) = if let Node::Mapping(_) = item {
            let Some(m) = cx.map(item, "a `provides` entry", &["virtual", "when"]) else {
                continue;
            };
            let virt = cx
                .required(&m, "virtual", "a `provides` entry")
                .and_then(|n| provided_virtual(cx, n));
            let when = m.get("when").and_then(|n| read::when(cx, n));
            (virt, when, m.loc.clone())
        } else {
            let virt = provided_virtual(cx, item);
            let loc = cx.loc(item);
            (virt, None, loc)
        };
        if let Some((name, versions)) = virt {
            out.push(Provide {
                name,
                versions,
                when,
                loc,
            });
        }
    }
    out
}

/// A provided virtual: its name and, optionally, versions (`mpi`, `mpi@:3`).
fn provided_virtual(cx: &mut Cx, node: &Node) -> Option<(String, crate::spec::VersionConstraint)> {
    let spec = read::spec(cx, node, "a provided virtual", Named::Required)?;
    let s = &spec.spec;
    let only_versions = s.variants.is_empty()
        && s.compiler.is_none()
        && s.target.is_none()
        && s.platform.is_none()
        && s.os.is_none()
        && s.deps.is_empty();
    if !only_versions {
        cx.error(
            Code::BadSpec,
            &spec.loc,
            format!(
                "`{}`: a provided virtual has a name and versions only",
                spec.text
            ),
            "expected `name` or `name@versions`",
            Some("for example `mpi` or `mpi@:3`; conditions go into `when:`".into()),
        );
        return None;
    }
    Some((
        spec.name().unwrap_or_default().to_string(),
        s.versions.clone(),
    ))
}
