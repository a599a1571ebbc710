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
mod dependencies;
mod filter;
mod package_files;
mod patches;
mod provides;
mod resources;
mod variants;
mod versions;

use dependencies::{conflicts, dependencies};
use patches::patches;
use provides::provides;
use variants::variants;
pub use versions::is_commit_id;
pub(super) use versions::versions;

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
