//! Reading a stack recipe file into a [`StackRecipe`].

use std::path::{Path, PathBuf};

use crate::cluster::{self, AuditConfig};
use crate::diag::yaml::{self, Cx, Map, Node};
use crate::diag::{Code, Diagnostics, SourceFile, Spanned};
use crate::recipes::read::{self, Named};
use crate::recipes::{PathRef, SpecRef};

use super::model::*;

mod modules;
mod views;

use modules::modules;
use views::{check_views, views};

const TOP_KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "mount",
    "compiler",
    "compilers",
    "repos",
    "fallback_repos",
    "mirrors",
    "allow_unverified",
    "environments",
    "default_view",
    "modules",
    "pre_install",
    "post_install",
    "extra",
    "audit",
];

const ENV_KEYS: &[&str] = &[
    "specs",
    "compiler",
    "network",
    "variants",
    "unify",
    "duplicates",
    "packages",
    "views",
];

/// Read and check a stack recipe file on its own (no cluster or packages).
/// `Ok` holds the recipe, its source and any warnings.
pub fn load_stack_recipe(
    path: &Path,
) -> Result<(StackRecipe, SourceFile, Diagnostics), Diagnostics> {
    let abs = crate::recipes::absolutize(path, &std::env::current_dir().unwrap_or_default());
    let src = SourceFile::read_input(&abs, "the stack recipe")?;
    let mut diags = Diagnostics::new();
    let recipe = parse_stack_recipe(&src, &mut diags);
    let (recipe, diags) = diags.into_loaded(recipe)?;
    Ok((recipe, src, diags))
}

/// Parse a stack recipe from source text (the path must be absolute).
pub fn parse_stack_recipe(src: &SourceFile, diags: &mut Diagnostics) -> Option<StackRecipe> {
    let root = yaml::parse_into(src, diags)?;
    let mut cx = Cx::new(src, diags);
    let m = cx.map(&root, "a stack recipe", TOP_KEYS)?;
    let what = "the stack recipe";
    let name = cx
        .required(&m, "name", what)
        .and_then(|n| cx.nonempty_string(n, "`name`"));
    if let Some(n) = &name {
        check_identifier(&mut cx, n, "a stack name");
    }
    let version = m
        .get("version")
        .and_then(|n| cx.string(n, "`version`"))
        .map(|s| s.value);
    let description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    let mount = m
        .get("mount")
        .and_then(|n| mount(&mut cx, n))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MOUNT));
    let compiler = m
        .get("compiler")
        .and_then(|n| read::spec(&mut cx, n, "`compiler`", Named::Required));
    let compilers = m
        .get("compilers")
        .map(|n| spec_list(&mut cx, n, "`compilers`", "a stack compiler"))
        .unwrap_or_default();
    let repos = m
        .get("repos")
        .map(|n| repo_list(&mut cx, n, "repos"))
        .unwrap_or_default();
    let fallback_repos = m
        .get("fallback_repos")
        .map(|n| repo_list(&mut cx, n, "fallback_repos"))
        .unwrap_or_default();
    let mirrors = m
        .get("mirrors")
        .map(|n| cluster::mirrors(&mut cx, n))
        .unwrap_or_default();
    let allow_unverified = m
        .get("allow_unverified")
        .and_then(|n| cx.bool(n, "`allow_unverified`"))
        .unwrap_or(false);
    let environments = match cx.required(&m, "environments", what) {
        Some(n) => environments(&mut cx, n),
        None => Vec::new(),
    };
    let default_view = m
        .get("default_view")
        .and_then(|n| cx.nonempty_string(n, "`default_view`"));
    let modules = m.get("modules").and_then(|n| modules(&mut cx, n));
    let (pre_install, post_install) = hooks(&mut cx, &m);
    let extra = m
        .get("extra")
        .and_then(|n| existing_path(&mut cx, n, "`extra`", true));
    let audit = m
        .get("audit")
        .map(|n| cluster::audit(&mut cx, n))
        .unwrap_or_else(AuditConfig::default);

    let recipe = StackRecipe {
        file: src.path().to_path_buf(),
        dir: cx.dir(),
        name: name.unwrap_or_else(|| Spanned::new(String::new(), src.start())),
        version,
        description,
        mount,
        compiler,
        compilers,
        repos,
        fallback_repos,
        mirrors,
        allow_unverified,
        environments,
        default_view,
        modules,
        pre_install,
        post_install,
        extra,
        audit,
    };
    check_views(&mut cx, &recipe);
    check_compilers_environment(&mut cx, &recipe);
    Some(recipe)
}

/// No environment takes the name of the stack's compilers' environments.
fn check_compilers_environment(cx: &mut Cx, recipe: &StackRecipe) {
    if recipe.compilers.is_empty() {
        return;
    }
    let Some(e) = recipe
        .environments
        .iter()
        .find(|e| StackRecipe::is_compilers_environment(&e.name.value))
    else {
        return;
    };
    cx.error(
        Code::InvalidValue,
        &e.name.loc,
        format!(
            "environment `{}` clashes with the stack's `compilers:`",
            e.name.value
        ),
        "a reserved name",
        Some(format!(
            "the stack's compilers are built as the environments `{COMPILERS_ENVIRONMENT}` and `{COMPILERS_ENVIRONMENT}-<compiler>`; rename this one"
        )),
    );
}

/// `pre_install:` and `post_install:`, existing files whose templates
/// parse.
fn hooks(cx: &mut Cx, m: &Map) -> (Option<PathRef>, Option<PathRef>) {
    let pre_install = m
        .get("pre_install")
        .and_then(|n| existing_path(cx, n, "`pre_install`", false));
    let post_install = m
        .get("post_install")
        .and_then(|n| existing_path(cx, n, "`post_install`", false));
    for hook in [&pre_install, &post_install].into_iter().flatten() {
        check_hook_template(cx, hook);
    }
    (pre_install, post_install)
}

fn check_identifier(cx: &mut Cx, s: &Spanned<String>, what: &str) {
    let ok = s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        cx.error(
            Code::InvalidValue,
            &s.loc,
            format!("`{}` is not valid as {what}", s.value),
            "expected letters, digits, `-`, `_` and `.`",
            None,
        );
    }
}

fn mount(cx: &mut Cx, node: &Node) -> Option<PathBuf> {
    let s = cx.nonempty_string(node, "`mount`")?;
    let p = Path::new(&s.value);
    if !p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        cx.error(
            Code::BadPath,
            &s.loc,
            format!(
                "the mount point must be an absolute path, found `{}`",
                s.value
            ),
            "expected e.g. /user-environment",
            None,
        );
        return None;
    }
    Some(crate::recipes::absolutize(p, Path::new("/")))
}

/// `repos:` or `fallback_repos:` (`key`): existing directories.
fn repo_list(cx: &mut Cx, node: &Node, key: &str) -> Vec<PathRef> {
    let Some(items) = cx.seq(node, &format!("`{key}`")) else {
        return Vec::new();
    };
    let what = format!("a `{key}` entry");
    items
        .iter()
        .filter_map(|n| existing_path(cx, n, &what, true))
        .collect()
}

/// A path relative to the recipe that must exist (a dir when `dir`).
/// A hook is a tera template: it must parse, and may not read the
/// environment, the time, randomness or other files (`crate::template`);
/// the error names the line and column in the hook.
fn check_hook_template(cx: &mut Cx, hook: &PathRef) {
    let Ok(text) = fs_err::read_to_string(&hook.path) else {
        return;
    };
    let (detail, offset) = match crate::template::refused(&text) {
        Ok(None) => return,
        Ok(Some(r)) => (r.to_string(), r.offset),
        Err(e) => {
            let detail = std::error::Error::source(&e)
                .map(|s| s.to_string())
                .unwrap_or_else(|| e.to_string());
            (detail.trim().to_string(), None)
        }
    };
    let at = match offset {
        Some(o) => {
            let before = &text[..o];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{}:{line}:{col}", hook.text)
        }
        None => hook.text.clone(),
    };
    cx.error(
        Code::BadTemplate,
        &hook.loc,
        format!("hook {at}: {detail}"),
        "this hook is rendered with tera",
        Some("hooks see `env.mount`, `env.build`, `env.store`, `env.name`, `env.config` and `stack.version`; pass anything else through the recipe".into()),
    );
}

fn existing_path(cx: &mut Cx, node: &Node, what: &str, dir: bool) -> Option<PathRef> {
    let p = read::path(cx, node, what)?;
    let ok = if dir {
        p.path.is_dir()
    } else {
        p.path.is_file()
    };
    if !ok {
        cx.error(
            Code::BadPath,
            &p.loc,
            format!(
                "{what}: {} `{}` does not exist",
                if dir { "directory" } else { "file" },
                p.text
            ),
            format!("expected {}", crate::diag::display_path(&p.path)),
            Some("relative paths start at the recipe's directory".into()),
        );
        return None;
    }
    Some(p)
}

fn environments(cx: &mut Cx, node: &Node) -> Vec<Environment> {
    let Some(m) = cx.open_map(node, "`environments`") else {
        return Vec::new();
    };
    if m.is_empty() {
        let loc = cx.loc(node);
        cx.error(
            Code::MissingField,
            &loc,
            "`environments` is empty",
            "expected at least one environment",
            None,
        );
    }
    let mut out = Vec::new();
    for (key, value) in m.entries() {
        let name = Spanned::new(key.as_str().to_string(), cx.scalar_loc(key));
        check_identifier(cx, &name, "an environment name");
        let what = format!("environment `{}`", name.value);
        let Some(em) = cx.map(value, &what, ENV_KEYS) else {
            continue;
        };
        out.push(environment(cx, name, &em, &what));
    }
    out
}

/// A list of named specs (`specs:`, `compilers:`).
fn spec_list(cx: &mut Cx, n: &Node, what: &str, item: &str) -> Vec<SpecRef> {
    cx.seq(n, what)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| read::spec(cx, s, item, Named::Required))
        .collect()
}

fn environment(cx: &mut Cx, name: Spanned<String>, m: &Map, what: &str) -> Environment {
    let specs = m
        .get("specs")
        .map(|n| spec_list(cx, n, "`specs`", "a root spec"))
        .unwrap_or_default();
    // `compiler: gcc@14` or `compiler: [gcc@14, nvhpc@25.1]`: the first is
    // the default, the others are there for `%nvhpc` / `%fortran=nvhpc`.
    let mut compilers: Vec<SpecRef> = m
        .get("compiler")
        .map(|n| {
            cx.one_or_many(n)
                .iter()
                .filter_map(|c| read::spec(cx, c, "`compiler`", Named::Required))
                .collect()
        })
        .unwrap_or_default();
    let compiler = (!compilers.is_empty()).then(|| compilers.remove(0));
    let other_compilers = compilers;
    let network = m.has("network").then(|| match m.get("network") {
        Some(n) => cluster::network(cx, n),
        None => cluster::Network {
            loc: m.key_node("network").map(|k| cx.scalar_loc(k)),
            ..Default::default()
        },
    });
    let variants = m
        .get("variants")
        .map(|n| variants(cx, n))
        .unwrap_or_default();
    let unify = match m.get("unify") {
        Some(n) => {
            let v = cx.bool(n, "`unify`");
            if v == Some(false) {
                let loc = cx.loc(n);
                cx.error(
                    Code::Unsupported,
                    &loc,
                    "`unify: false` is not supported",
                    "only `true` (one node per package name)",
                    Some("split the packages into several environments instead".into()),
                );
            }
            true
        }
        None => true,
    };
    let duplicates = m
        .get("duplicates")
        .map(|n| duplicates(cx, n))
        .unwrap_or_default();
    let packages = m
        .get("packages")
        .map(|n| cluster::policies(cx, n))
        .unwrap_or_default();
    let views = m.get("views").map(|n| views(cx, n)).unwrap_or_default();
    let env = Environment {
        name,
        specs,
        compiler,
        other_compilers,
        network,
        variants,
        unify,
        duplicates,
        packages,
        views,
    };
    if env.specs.is_empty() && env.network.is_none() && !m.has("specs") {
        cx.error(
            Code::MissingField,
            &env.name.loc,
            format!("{what} has no `specs` and no `network`"),
            "nothing to build",
            Some("add `specs: [name@version …]`".into()),
        );
    }
    env
}

fn variants(cx: &mut Cx, node: &Node) -> Vec<SpecRef> {
    let mut out = Vec::new();
    for s in cx.strings(node, "`variants`", false) {
        let Some(spec) = read::spec_from(cx, &s, "a `variants` entry", Named::Forbidden) else {
            continue;
        };
        let sp = &spec.spec;
        if !sp.versions.is_any()
            || sp.compiler.is_some()
            || sp.target.is_some()
            || sp.platform.is_some()
            || sp.os.is_some()
            || !sp.deps.is_empty()
            || sp.variants.is_empty()
        {
            cx.error(
                Code::BadSpec,
                &s.loc,
                format!("`{}` in `variants` must set variants only", s.value),
                "expected `+name`, `~name` or `name=value`",
                Some("versions and other constraints go into `specs` or `packages`".into()),
            );
            continue;
        }
        out.push(spec);
    }
    out
}

/// An environment's `duplicates:`: `minimal` or `none`.
fn duplicates(cx: &mut Cx, n: &Node) -> Duplicates {
    let Some(v) = cx.string(n, "`duplicates`") else {
        return Duplicates::default();
    };
    match v.value.as_str() {
        "minimal" => Duplicates::Minimal,
        "none" => Duplicates::None,
        other => {
            cx.error(
                Code::InvalidValue,
                &v.loc,
                format!("`duplicates: {other}` is not a duplicates strategy"),
                "`minimal` (build tools may be built twice) or `none`",
                Some("`minimal` is the default; `none` keeps one node per package name".into()),
            );
            Duplicates::default()
        }
    }
}
