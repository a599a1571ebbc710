//! Reading a stack recipe file into a [`StackRecipe`].

use std::path::{Path, PathBuf};

use crate::cluster::{self, AuditConfig};
use crate::diag::yaml::{self, Cx, Map, Node};
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile, Spanned};
use crate::recipes::read::{self, Named};
use crate::recipes::{EnvOp, EnvOpKind, PathRef, SpecRef};

use super::model::*;

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
const VIEW_KEYS: &[&str] = &[
    "link",
    "select",
    "exclude",
    "description",
    "prefix_paths",
    "env_vars",
    "add_compilers",
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

fn views(cx: &mut Cx, node: &Node) -> Vec<View> {
    let Some(m) = cx.open_map(node, "`views`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in m.entries() {
        let name = Spanned::new(key.as_str().to_string(), cx.scalar_loc(key));
        check_identifier(cx, &name, "a view name");
        let what = format!("view `{}`", name.value);
        let mut view = View {
            name,
            link: ViewLink::Roots,
            select: Vec::new(),
            exclude: Vec::new(),
            description: None,
            prefix_paths: Vec::new(),
            env_vars: Vec::new(),
            add_compilers: false,
        };
        let is_null = matches!(value, Node::Scalar(s) if yaml::is_null(s));
        if !is_null {
            if let Some(vm) = cx.map(value, &what, VIEW_KEYS) {
                view_fields(cx, &vm, &mut view);
            }
        }
        out.push(view);
    }
    out
}

fn view_fields(cx: &mut Cx, m: &Map, view: &mut View) {
    if let Some(n) = m.get("link") {
        view.link = match cx
            .choice(n, "`link`", &ViewLink::NAMES)
            .as_deref()
            .map(String::as_str)
        {
            Some("all") => ViewLink::All,
            Some("run") => ViewLink::Run,
            _ => ViewLink::Roots,
        };
    }
    view.select = m
        .get("select")
        .map(|n| cx.strings(n, "`select`", false))
        .unwrap_or_default();
    view.exclude = m
        .get("exclude")
        .map(|n| cx.strings(n, "`exclude`", false))
        .unwrap_or_default();
    view.add_compilers = m
        .get("add_compilers")
        .and_then(|n| cx.bool(n, "`add_compilers`"))
        .unwrap_or(false);
    view.description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    if let Some(pm) = m
        .get("prefix_paths")
        .and_then(|n| cx.open_map(n, "`prefix_paths`"))
    {
        for (k, v) in pm.entries() {
            let loc = cx.scalar_loc(k);
            read::check_var_name(cx, k.as_str(), &loc);
            let dirs = cx
                .strings(v, "a `prefix_paths` entry", true)
                .into_iter()
                .map(|s| s.value)
                .collect();
            view.prefix_paths.push((k.as_str().to_string(), dirs));
        }
    }
    if let Some(em) = m
        .get("env_vars")
        .and_then(|n| cx.map(n, "`env_vars`", &EnvOpKind::KEYS))
    {
        for kind in [
            EnvOpKind::Set,
            EnvOpKind::Unset,
            EnvOpKind::PrependPath,
            EnvOpKind::AppendPath,
        ] {
            if let Some(n) = em.get(kind.key()) {
                view.env_vars.extend(view_env_ops(cx, kind, n));
            }
        }
    }
}

/// `set: [{VAR: value}]`, `unset: [VAR]`, `prepend_path: [{VAR: value}]` …
fn view_env_ops(cx: &mut Cx, kind: EnvOpKind, node: &Node) -> Vec<EnvOp> {
    let what = format!("`env_vars.{}`", kind.key());
    let Some(items) = cx.seq(node, &what) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        if kind == EnvOpKind::Unset {
            if let Some(v) = cx.string(item, &what) {
                read::check_var_name(cx, &v, &v.loc);
                out.push(EnvOp {
                    kind,
                    var: v.value,
                    value: String::new(),
                    when: None,
                    loc: v.loc,
                });
            }
            continue;
        }
        let Some(m) = cx.open_map(item, &what) else {
            continue;
        };
        for (k, v) in m.entries() {
            let loc = cx.scalar_loc(k);
            read::check_var_name(cx, k.as_str(), &loc);
            if let Some(value) = cx.string(v, &format!("the value of {}", k.as_str())) {
                crate::recipes::placeholders::check(cx, &value);
                out.push(EnvOp {
                    kind,
                    var: k.as_str().to_string(),
                    value: value.value,
                    when: None,
                    loc,
                });
            }
        }
    }
    out
}

const MODULES_KEYS: &[&str] = &[
    "flavour",
    "projections",
    "hide_implicits",
    "exclude_implicits",
    "autoload",
    "prefix_inspections",
    "exclude",
    "include",
    "environment",
];

fn modules(cx: &mut Cx, node: &Node) -> Option<Modules> {
    let m = cx.map(node, "`modules`", MODULES_KEYS)?;
    let flavour = match m
        .get("flavour")
        .and_then(|n| cx.choice(n, "`flavour`", &["lmod", "tcl"]))
        .as_deref()
        .map(String::as_str)
    {
        Some("tcl") => ModuleFlavour::Tcl,
        _ => ModuleFlavour::Lmod,
    };
    let mut projections = Vec::new();
    if let Some(pm) = m
        .get("projections")
        .and_then(|n| cx.open_map(n, "`projections`"))
    {
        for (k, v) in pm.entries() {
            if k.as_str() != "all" {
                let key = Spanned::new(k.as_str().to_string(), cx.scalar_loc(k));
                let _ = read::spec_from(cx, &key, "a projection key", Named::Any);
            }
            if let Some(t) = cx.string(v, "a projection") {
                projections.push((k.as_str().to_string(), t.value));
            }
        }
    }
    let hide_implicits = m
        .get("hide_implicits")
        .and_then(|n| cx.bool(n, "`hide_implicits`"))
        .unwrap_or(true);
    let exclude_implicits = m
        .get("exclude_implicits")
        .and_then(|n| cx.bool(n, "`exclude_implicits`"))
        .unwrap_or(false);
    let autoload = m
        .get("autoload")
        .and_then(|n| cx.choice(n, "`autoload`", &["direct", "none"]))
        .is_none_or(|s| s.value == "direct");
    let prefix_inspections = m
        .get("prefix_inspections")
        .map(|n| prefix_inspections(cx, n))
        .unwrap_or_default();
    let specs = |cx: &mut Cx, key: &str| {
        m.get(key)
            .map(|n| read::specs(cx, n, &format!("a `modules.{key}` entry"), Named::Any))
            .unwrap_or_default()
    };
    let exclude = specs(cx, "exclude");
    let include = specs(cx, "include");
    let environment = m
        .get("environment")
        .map(|n| module_environment(cx, n))
        .unwrap_or_default();
    Some(Modules {
        flavour,
        projections,
        hide_implicits,
        exclude_implicits,
        autoload,
        prefix_inspections,
        exclude,
        include,
        environment,
        loc: m.loc.clone(),
    })
}

/// `modules: {prefix_inspections}`: directories inside a prefix and the
/// variables they are prepended to.
fn prefix_inspections(cx: &mut Cx, node: &Node) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let Some(pm) = cx.open_map(node, "`prefix_inspections`") else {
        return out;
    };
    for (k, v) in pm.entries() {
        let dir = k.as_str().trim_start_matches("./").trim_end_matches('/');
        if dir.split('/').any(|c| c == "..") || dir.starts_with('/') {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadPath,
                &loc,
                format!(
                    "`{}` is not a directory inside a package's prefix",
                    k.as_str()
                ),
                "expected a relative path such as `lib64`",
                None,
            );
            continue;
        }
        let vars = cx.strings(v, "the variables of a prefix inspection", true);
        for var in &vars {
            read::check_var_name(cx, &var.value, &var.loc);
        }
        out.push((dir.to_string(), vars.into_iter().map(|s| s.value).collect()));
    }
    out
}

/// `modules: {environment}`: per spec (or `all`), the environment
/// operations of its modules.
fn module_environment(cx: &mut Cx, node: &Node) -> Vec<(Spanned<String>, Vec<EnvOp>)> {
    let mut environment = Vec::new();
    let Some(em) = cx.open_map(node, "`environment`") else {
        return environment;
    };
    for (k, v) in em.entries() {
        let key = Spanned::new(k.as_str().to_string(), cx.scalar_loc(k));
        if key.value != "all" {
            let _ = read::spec_from(cx, &key, "a module environment's key", Named::Any);
        }
        let Some(ops) = cx.map(v, &format!("`environment.{}`", key.value), &EnvOpKind::KEYS) else {
            continue;
        };
        let mut list = Vec::new();
        for kind in [
            EnvOpKind::Set,
            EnvOpKind::Unset,
            EnvOpKind::PrependPath,
            EnvOpKind::AppendPath,
        ] {
            if let Some(n) = ops.get(kind.key()) {
                list.extend(view_env_ops(cx, kind, n));
            }
        }
        environment.push((key, list));
    }
    environment
}

/// View names are unique across environments; `default_view` names one.
fn check_views(cx: &mut Cx, recipe: &StackRecipe) {
    let mut seen: Vec<&Spanned<String>> = Vec::new();
    for (_, view) in recipe.views() {
        if let Some(prev) = seen.iter().find(|v| v.value == view.name.value) {
            let d = Diagnostic::error(
                Code::Duplicate,
                format!("view `{}` is defined twice", view.name.value),
            )
            .at(&view.name.loc, "defined again here")
            .at(&prev.loc, "first defined here")
            .with_help("view names must be unique across environments");
            cx.push(d);
        } else {
            seen.push(&view.name);
        }
    }
    if let Some(dv) = &recipe.default_view {
        if !seen.iter().any(|v| v.value == dv.value) {
            let names: Vec<&str> = seen.iter().map(|v| v.value.as_str()).collect();
            cx.error(
                Code::InvalidValue,
                &dv.loc,
                format!("`default_view` names `{}`, which is not a view", dv.value),
                "no such view",
                crate::diag::did_you_mean(dv, &names).or_else(|| {
                    Some(if names.is_empty() {
                        "no environment defines `views`".to_string()
                    } else {
                        format!("views: {}", names.join(", "))
                    })
                }),
            );
        }
    }
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
