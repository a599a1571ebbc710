//! The `view` stage: installed prefixes → views, modules and `meta/`.
//!
//! [`generate`] takes plain inputs ([`StoreContents`], [`ViewSpec`],
//! [`ModulesSpec`], [`MetaInfo`]) and writes, inside the store directory
//! (what will be mounted at the mount point):
//!
//! - `env/<view>/`: a symlink tree per view (see `link` for the rules and
//!   the conflict policy), with `activate.sh` and `env.json`;
//! - `modules/`: Lmod or Tcl module files (see [`modules`]);
//! - and into `meta_dir` (normally `<store>/meta`): `env.json` in the uenv
//!   schema (see [`env_json`]) plus recipe, lockfile, provenance, `extra/`
//!   and the audit report (see [`meta`]).
//!
//! The environment of a view is, in this order: the prefix inspections of
//! the view root (PATH ← `bin`, MANPATH, PKG_CONFIG_PATH, ACLOCAL_PATH,
//! CMAKE_PREFIX_PATH), the linked packages' `env:` (dependencies first,
//! roots last), `prefix_paths`, then the view's `env_vars`. Placeholders are
//! described in [`placeholder`]. Hooks are run by [`run_hook`].
//!
//! `env/` and `modules/` are owned by this stage and are replaced on every
//! run, so a view removed from the recipe disappears from the store.

pub mod diff;
pub mod env_json;
mod env_op;
mod environment;
mod error;
mod hook;
mod input;
mod link;
pub mod meta;
pub mod modules;
pub mod placeholder;
mod projection;
mod provenance;
pub mod query;
mod select;
mod template;
mod view_module;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tera::Context;

pub use env_json::{EnvJson, EnvValues, ListOp, OrderedMap, ViewEntry, ViewEnv, ViewEnvFile};
pub use env_op::{EnvOp, OpKind, PREFIX_INSPECTIONS, PREFIX_LIST_VARS};
pub use error::{ViewError, ViewWarning};
pub use hook::{HookContext, HookKind, HookRun, run_hook};
pub use input::{
    ConflictPolicy, CopyFile, InstalledPackage, LinkType, MetaInfo, ModuleFlavour, ModulesSpec,
    StoreContents, ViewSpec,
};
pub use link::LinkCounts;
pub use meta::copy_tree;
pub use modules::GeneratedModule;
pub use provenance::{BUILD_RECORD, HostInfo, Provenance};

use environment::Environment;
use placeholder::PlaceholderContext;
use select::{PackageIndex, view_packages};
use template::{ACTIVATE, Templates};

/// Top-level directories of the store that this stage owns.
pub const RESERVED_DIRS: &[&str] = &["env", "modules", "meta"];

/// What [`generate`] wrote.
#[derive(Debug, Clone)]
pub struct Generated {
    pub views: Vec<GeneratedView>,
    pub modules: Vec<GeneratedModule>,
    /// One module per view (`views/<view>`), with the view's environment.
    pub view_modules: Vec<GeneratedModule>,
    /// `<meta_dir>/env.json`.
    pub env_json: PathBuf,
    /// Conflicts and other things worth showing; generation went on.
    pub warnings: Vec<ViewWarning>,
}

/// One generated view.
#[derive(Debug, Clone)]
pub struct GeneratedView {
    pub name: String,
    pub env_name: String,
    /// `<mount>/env/<view>`.
    pub root: PathBuf,
    /// `<store>/env/<view>`.
    pub dir: PathBuf,
    /// `<mount>/env/<view>/activate.sh`.
    pub activate: PathBuf,
    /// `name@version` of every linked package, in view order.
    pub packages: Vec<String>,
    pub counts: LinkCounts,
}

/// Generate views, modules (when `modules` is given) and `meta/`.
pub fn generate(
    store: &StoreContents,
    views: &[ViewSpec],
    modules: Option<&ModulesSpec>,
    meta: &MetaInfo,
    meta_dir: &Path,
) -> Result<Generated, ViewError> {
    check_store(store)?;
    check_views(views, modules.is_some(), meta)?;
    let index = PackageIndex::new(store)?;
    let mount = store.mount.to_string_lossy().into_owned();
    let mut warnings = Vec::new();

    let env_dir = store.store_dir.join("env");
    let modules_dir = store.store_dir.join("modules");
    meta::remove_any(&env_dir)?;
    meta::remove_any(&modules_dir)?;

    let templates = Templates::builtin();
    let mut generated_views = Vec::new();
    let mut view_envs = Vec::new();
    let mut entries = OrderedMap::default();
    for spec in views {
        let (view, entry, env) =
            generate_view(store, &index, spec, meta, &templates, &mut warnings)?;
        entries.insert(spec.name.clone(), entry);
        generated_views.push(view);
        view_envs.push(env);
    }

    let mut generated_modules = Vec::new();
    let mut view_modules = Vec::new();
    if let Some(mspec) = modules {
        fs_err::create_dir_all(&modules_dir)?;
        generated_modules = modules::generate_modules(store, mspec, &modules_dir)?;
        for ((spec, view), env) in views.iter().zip(&generated_views).zip(&view_envs) {
            let v = view_module::ViewModule {
                view: &spec.name,
                description: &spec.description,
                root: &view.root,
                env,
            };
            view_modules.push(view_module::write_view_module(
                &v,
                &meta.name,
                mspec.flavour,
                &modules_dir,
            )?);
        }
        entries.insert("modules", EnvJson::modules_view(&mount));
    }

    let env_json = EnvJson {
        name: meta.name.clone(),
        description: meta.description.clone(),
        mount: mount.clone(),
        modules: modules.map(|_| env_json::ModulesRoot {
            root: format!("{mount}/modules"),
        }),
        default_view: meta.default_view.clone(),
        views: entries,
    };
    let env_json = meta::write_meta(meta_dir, meta, &env_json)?;
    tracing::info!(
        views = generated_views.len(),
        modules = generated_modules.len(),
        warnings = warnings.len(),
        "generated views, modules and meta"
    );
    Ok(Generated {
        views: generated_views,
        modules: generated_modules,
        view_modules,
        env_json,
        warnings,
    })
}

/// The view's description, naming the roots of its environment that an
/// external installation met: they are not in the view (`uenv view` shows
/// the description, so they do not disappear silently).
fn with_external_roots(description: &str, store: &StoreContents, spec: &ViewSpec) -> String {
    let external: Vec<String> = store
        .packages
        .iter()
        .filter(|p| p.external && p.root_in.contains(&spec.env_name))
        .filter(|p| spec.select.is_empty() || spec.select.contains(&p.name))
        .filter(|p| !spec.exclude.contains(&p.name))
        .map(|p| format!("{}@{} at {}", p.name, p.version, p.prefix.display()))
        .collect();
    if external.is_empty() {
        return description.to_string();
    }
    let note = format!("from the system, not in this view: {}", external.join(", "));
    if description.is_empty() {
        note
    } else {
        format!("{description} ({note})")
    }
}

fn generate_view(
    store: &StoreContents,
    index: &PackageIndex<'_>,
    spec: &ViewSpec,
    meta: &MetaInfo,
    templates: &Templates,
    warnings: &mut Vec<ViewWarning>,
) -> Result<(GeneratedView, ViewEntry, Environment), ViewError> {
    let root = store.mount.join("env").join(&spec.name);
    let dir = store.store_dir.join("env").join(&spec.name);
    let root_str = root.to_string_lossy().into_owned();
    let packages = view_packages(store, index, spec, warnings)?;
    if packages.is_empty() {
        warnings.push(ViewWarning::EmptyView {
            view: spec.name.clone(),
        });
    }
    let counts = link::link_view(store, &spec.name, &dir, &packages, spec.conflicts, warnings)?;

    let ctx = PlaceholderContext {
        mount: store.mount.to_string_lossy().into_owned(),
        view: Some((spec.name.clone(), root_str.clone())),
    };
    let mut env = Environment::default();
    env.push_inspections(&root, &dir);
    for p in packages.iter().rev() {
        let origin = format!("package {} (view `{}`)", p.label(), spec.name);
        for op in &p.env {
            env.push_op(op, &ctx, &origin)?;
        }
    }
    for (var, subdirs) in &spec.prefix_paths {
        if !env_op::valid_var_name(var) {
            return Err(ViewError::InvalidVarName {
                origin: format!("view `{}`, prefix_paths", spec.name),
                var: var.clone(),
            });
        }
        env.push_existing_dirs(var, &root, &dir, subdirs);
    }
    let origin = format!("view `{}`, env_vars", spec.name);
    for op in &spec.env_vars {
        env.push_op(op, &ctx, &origin)?;
    }

    let activate = root.join("activate.sh");
    let mut tctx = Context::new();
    tctx.insert("view", &spec.name);
    tctx.insert("name", &meta.name);
    tctx.insert("path", &activate.to_string_lossy());
    tctx.insert("stack_version", env!("CARGO_PKG_VERSION"));
    tctx.insert("lines", &env.shell_lines());
    fs_err::write(dir.join("activate.sh"), templates.render(ACTIVATE, &tctx)?)?;

    let values = env.uenv_values();
    let per_view = ViewEnvFile {
        version: 1,
        values: values.clone(),
    };
    let mut text = serde_json::to_string_pretty(&per_view).map_err(|source| ViewError::Json {
        what: format!("env.json of view `{}`", spec.name),
        source,
    })?;
    text.push('\n');
    fs_err::write(dir.join("env.json"), text)?;

    let entry = ViewEntry {
        root: root_str,
        activate: activate.to_string_lossy().into_owned(),
        description: with_external_roots(&spec.description, store, spec),
        kind: env_json::VIEW_TYPE.into(),
        env: ViewEnv {
            version: 1,
            kind: env_json::VIEW_TYPE.into(),
            values,
        },
    };
    let view = GeneratedView {
        name: spec.name.clone(),
        env_name: spec.env_name.clone(),
        root,
        dir,
        activate,
        packages: packages.iter().map(|p| p.label()).collect(),
        counts,
    };
    Ok((view, entry, env))
}

fn check_store(store: &StoreContents) -> Result<(), ViewError> {
    let mount_ok = store.mount.is_absolute()
        && store.mount.components().all(|c| {
            !matches!(
                c,
                std::path::Component::ParentDir | std::path::Component::CurDir
            )
        })
        && store.mount.parent().is_some();
    if !mount_ok {
        return Err(ViewError::InvalidMount {
            mount: store.mount.clone(),
        });
    }
    for p in store.packages.iter().filter(|p| !p.external) {
        let rel = p
            .prefix
            .strip_prefix(&store.mount)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
            .ok_or_else(|| ViewError::PrefixOutsideMount {
                package: p.label(),
                prefix: p.prefix.clone(),
                mount: store.mount.clone(),
            })?;
        if let Some(std::path::Component::Normal(first)) = rel.components().next()
            && let Some(dir) = RESERVED_DIRS.iter().find(|d| first == **d)
        {
            return Err(ViewError::PrefixInReservedDir {
                package: p.label(),
                prefix: p.prefix.clone(),
                dir,
            });
        }
        let path = store.store_dir.join(rel);
        if !path.is_dir() {
            return Err(ViewError::PrefixMissing {
                package: p.label(),
                path,
            });
        }
    }
    Ok(())
}

fn check_views(views: &[ViewSpec], with_modules: bool, meta: &MetaInfo) -> Result<(), ViewError> {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for v in views {
        let name = v.name.as_str();
        let valid = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        if !valid {
            return Err(ViewError::InvalidViewName {
                name: name.to_string(),
                reason: "use letters, digits, `_`, `-` and `.` (not first)".into(),
            });
        }
        if with_modules && name == "modules" {
            return Err(ViewError::InvalidViewName {
                name: name.to_string(),
                reason: "`modules` is the pseudo-view that activates the module files".into(),
            });
        }
        if let Some(first) = seen.insert(name, &v.env_name) {
            return Err(ViewError::DuplicateView {
                name: name.to_string(),
                first_env: first.to_string(),
                second_env: v.env_name.clone(),
            });
        }
    }
    if let Some(d) = &meta.default_view {
        let exists = seen.contains_key(d.as_str()) || (with_modules && d == "modules");
        if !exists {
            let mut available: Vec<String> = views.iter().map(|v| v.name.clone()).collect();
            if with_modules {
                available.push("modules".into());
            }
            return Err(ViewError::UnknownDefaultView {
                name: d.clone(),
                available,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod external_root_tests {
    use std::path::PathBuf;

    use super::*;

    fn pkg(name: &str, external: bool, roots: &[&str]) -> InstalledPackage {
        InstalledPackage {
            name: name.into(),
            version: "3.25.1".into(),
            hash: format!("h-{name}"),
            description: String::new(),
            prefix: PathBuf::from(if external { "/usr" } else { "/m/x" }),
            deps: vec![],
            build_deps: vec![],
            root_in: roots.iter().map(|s| s.to_string()).collect(),
            external,
            env: vec![],
        }
    }

    #[test]
    fn the_description_names_roots_met_by_externals() {
        let store = StoreContents {
            mount: "/m".into(),
            store_dir: "/s".into(),
            packages: vec![
                pkg("cmake", true, &["e"]),
                pkg("zlib", true, &[]),
                pkg("app", false, &["e"]),
                pkg("ninja", true, &["other"]),
            ],
        };
        let spec = ViewSpec {
            env_name: "e".into(),
            name: "default".into(),
            description: "tools".into(),
            ..ViewSpec::default()
        };
        assert_eq!(
            with_external_roots(&spec.description, &store, &spec),
            "tools (from the system, not in this view: cmake@3.25.1 at /usr)"
        );
        let excluded = ViewSpec {
            exclude: vec!["cmake".into()],
            ..spec.clone()
        };
        assert_eq!(with_external_roots("tools", &store, &excluded), "tools");
    }
}
