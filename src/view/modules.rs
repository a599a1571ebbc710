//! Lmod (lua) and Tcl module files under `<store>/modules/`.
//!
//! One module per installed, non-external package, named by its projection.
//! A module loads the modules of its link/run dependencies, conflicts with
//! the projections listed in [`ModulesSpec::conflicts`] (by default other
//! versions of the same package), and applies the prefix inspections
//! (PATH ← `bin`, …) and the package's `env:`. Packages that are a root of
//! no environment are hidden (`hide_version` in the directory's
//! `.modulerc.lua`, or `hide-version`/`module-hide` in `.modulerc` for Tcl)
//! when `hide_implicits` is set: they load as dependencies but do not show
//! in `module avail`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use tera::Context;

use super::environment::Environment;
use super::error::ViewError;
use super::input::{InstalledPackage, ModuleFlavour, ModulesSpec, StoreContents};
use super::placeholder::PlaceholderContext;
use super::projection::{project, projection_for};
use super::template::{MODULE_LUA, MODULE_TCL, Templates};

/// One written module file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedModule {
    /// What users type: `module load <name>`.
    pub name: String,
    /// `name@version` of the package.
    pub package: String,
    pub hash: String,
    /// The file in the store.
    pub file: PathBuf,
    /// Hidden from `module avail` (an implicit package).
    pub hidden: bool,
}

/// The module name of each package (by hash); two packages whose
/// projections give one name are an error, found before anything is
/// built (the pipeline checks the plan with it).
pub fn module_names<'p>(
    packages: &[&'p InstalledPackage],
    spec: &ModulesSpec,
) -> Result<Vec<(&'p str, String)>, ViewError> {
    let mut out = Vec::new();
    let mut owner: HashMap<String, &InstalledPackage> = HashMap::new();
    for p in packages {
        let projection = spec
            .projection_of
            .get(&p.hash)
            .map(String::as_str)
            .unwrap_or_else(|| projection_for(&spec.projections, p));
        let name = project(projection, p)?;
        if let Some(first) = owner.get(&name) {
            return Err(ViewError::ModuleNameClash {
                module: name,
                first: first.label(),
                second: p.label(),
            });
        }
        owner.insert(name.clone(), p);
        out.push((p.hash.as_str(), name));
    }
    Ok(out)
}

/// The recipe's prefix inspections by variable, directories in order.
fn inspections_by_var(spec: &ModulesSpec) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for (dir, vars) in &spec.prefix_inspections {
        for var in vars {
            match out.iter_mut().find(|(v, _)| v == var) {
                Some((_, dirs)) => dirs.push(dir),
                None => out.push((var, vec![dir])),
            }
        }
    }
    out
}

/// What the module of `p` sets: the prefix inspections (built-in, then
/// the recipe's), the package's `env:`, then the recipe's environment for
/// it.
fn module_environment(
    store: &StoreContents,
    spec: &ModulesSpec,
    inspections: &[(&str, Vec<&str>)],
    p: &InstalledPackage,
    name: &str,
    ctx: &PlaceholderContext,
) -> Result<Environment, ViewError> {
    let mut env = Environment::default();
    let store_prefix = store
        .store_path(&p.prefix)
        .expect("prefixes were checked to lie under the mount point");
    env.push_inspections(&p.prefix, &store_prefix);
    for (var, dirs) in inspections {
        env.push_existing_dirs(var, &p.prefix, &store_prefix, dirs);
    }
    let origin = format!("package {} (module {name})", p.label());
    for op in p
        .env
        .iter()
        .chain(spec.env.get(&p.hash).into_iter().flatten())
    {
        env.push_op(op, ctx, &origin)?;
    }
    Ok(env)
}

pub(crate) fn generate_modules(
    store: &StoreContents,
    spec: &ModulesSpec,
    modules_dir: &Path,
) -> Result<Vec<GeneratedModule>, ViewError> {
    let mut templates = Templates::builtin();
    let template = match spec.flavour {
        ModuleFlavour::Lmod => MODULE_LUA,
        ModuleFlavour::Tcl => MODULE_TCL,
    };
    if let Some(file) = &spec.template {
        templates.override_with(template, file)?;
    }
    let packages: Vec<&InstalledPackage> = store
        .packages
        .iter()
        .filter(|p| spec.has_module(p))
        .collect();
    let names: HashMap<&str, String> = module_names(&packages, spec)?.into_iter().collect();
    let inspections = inspections_by_var(spec);

    let ctx = PlaceholderContext {
        mount: store.mount.to_string_lossy().into_owned(),
        view: None,
    };
    let mut out = Vec::new();
    let mut hidden_by_dir: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for p in &packages {
        let name = &names[p.hash.as_str()];
        let depends_on: Vec<&str> = p
            .deps
            .iter()
            .filter(|_| spec.autoload)
            .filter_map(|h| names.get(h.as_str()).map(String::as_str))
            .collect();
        let mut conflicts = Vec::new();
        for c in &spec.conflicts {
            let c = project(c, p)?;
            if &c != name && !conflicts.contains(&c) {
                conflicts.push(c);
            }
        }
        let env = module_environment(store, spec, &inspections, p, name, &ctx)?;
        let hidden = spec.hide_implicits && p.root_in.is_empty() && !spec.include.contains(&p.hash);

        let mut tctx = Context::new();
        tctx.insert("name", &p.name);
        tctx.insert("version", &p.version);
        tctx.insert("hash", &p.hash);
        tctx.insert("module", name);
        tctx.insert("prefix", &p.prefix.to_string_lossy());
        tctx.insert("stack_version", env!("CARGO_PKG_VERSION"));
        tctx.insert("depends_on", &depends_on);
        tctx.insert("conflicts", &conflicts);
        tctx.insert("hidden", &hidden);
        tctx.insert("explicit", &!p.root_in.is_empty());
        let file = match spec.flavour {
            ModuleFlavour::Lmod => {
                tctx.insert("description", &p.description.replace("]]", "] ]"));
                tctx.insert("env", &env.lua_lines());
                modules_dir.join(format!("{name}.lua"))
            }
            ModuleFlavour::Tcl => {
                insert_tcl_texts(&mut tctx, p);
                tctx.insert("env", &env.tcl_lines());
                modules_dir.join(name)
            }
        };
        let text = templates.render(template, &tctx)?;
        let parent = file.parent().expect("module files live in modules_dir");
        fs_err::create_dir_all(parent)?;
        fs_err::write(&file, text)?;
        if hidden {
            hidden_by_dir
                .entry(parent.to_path_buf())
                .or_default()
                .push(name.clone());
        }
        out.push(GeneratedModule {
            name: name.clone(),
            package: p.label(),
            hash: p.hash.clone(),
            file,
            hidden,
        });
    }
    for (dir, hidden) in hidden_by_dir {
        write_modulerc(&dir, &hidden, spec.flavour)?;
    }
    Ok(out)
}

/// A Tcl module's description, `module-whatis` and help texts.
fn insert_tcl_texts(tctx: &mut Context, p: &InstalledPackage) {
    let help = if p.description.is_empty() {
        format!("{}@{}\nPrefix: {}", p.name, p.version, p.prefix.display())
    } else {
        format!(
            "{}@{}: {}\nPrefix: {}",
            p.name,
            p.version,
            p.description,
            p.prefix.display()
        )
    };
    let whatis = if p.description.is_empty() {
        format!("{}@{}", p.name, p.version)
    } else {
        format!("{}@{}: {}", p.name, p.version, p.description)
    };
    tctx.insert("description", &p.description);
    tctx.insert("whatis_tcl", &tcl_word(&whatis));
    tctx.insert("help_tcl", &tcl_word(&help));
}

fn write_modulerc(dir: &Path, hidden: &[String], flavour: ModuleFlavour) -> Result<(), ViewError> {
    let mut text = String::new();
    match flavour {
        ModuleFlavour::Lmod => {
            text.push_str(
                "-- implicit packages: loadable as dependencies, hidden from `module avail`\n",
            );
            for m in hidden {
                text.push_str(&format!("hide_version(\"{m}\")\n"));
            }
            fs_err::write(dir.join(".modulerc.lua"), text)?;
        }
        ModuleFlavour::Tcl => {
            text.push_str("#%Module1.0\n");
            text.push_str(
                "## implicit packages: loadable as dependencies, hidden from `module avail`\n",
            );
            for m in hidden {
                // Environment Modules has module-hide; Lmod reads hide-version.
                text.push_str(&format!(
                    "if {{[info commands module-hide] ne \"\"}} {{ module-hide {m} }} else {{ hide-version {m} }}\n"
                ));
            }
            fs_err::write(dir.join(".modulerc"), text)?;
        }
    }
    Ok(())
}

pub(crate) fn tcl_word(s: &str) -> String {
    super::placeholder::Value::literal(s).to_tcl()
}
