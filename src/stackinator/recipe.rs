//! A stackinator recipe directory (`config.yaml`, `compilers.yaml` v1/v2,
//! `environments.yaml`, optional `modules.yaml`, `packages.yaml`, `repo/`,
//! `extra/`, `pre-install`, `post-install`) → the parts of a stack recipe.

use std::path::{Path, PathBuf};

use crate::diag::yaml::Cx;
use crate::diag::{Code, Diagnostics};
use crate::import::yaml_out::Yaml;

use super::packages::{self, PolicyList, is_null};
use super::read_yaml;

/// What the recipe directory says, translated.
#[derive(Clone, Debug, Default)]
pub struct RecipeDir {
    pub dir: PathBuf,
    pub name: String,
    pub description: Option<String>,
    pub mount: String,
    pub default_view: Option<String>,
    /// `compilers.yaml`: compilers to build (`gcc@14`); empty with `gcc: system`.
    pub compilers: Vec<String>,
    pub gcc_system: bool,
    /// Environments in file order, as our `environments:` entries.
    pub environments: Vec<(String, Yaml)>,
    /// The recipe's `packages.yaml`.
    pub policies: PolicyList,
    pub modules: Option<Yaml>,
    pub repo: Option<PathBuf>,
    /// `config.yaml`'s `spack.packages.commit`: the spack-packages commit
    /// the recipe was written against.
    pub packages_pin: Option<super::pinned::Pin>,
}

/// Whether `dir` is a stackinator recipe directory.
pub fn is_recipe_dir(dir: &Path) -> bool {
    dir.join("config.yaml").is_file() && dir.join("environments.yaml").is_file()
}

/// Read a recipe directory. `mpi` are the cluster's MPI templates.
pub fn read_recipe(
    dir: &Path,
    mpi: &[(String, Vec<String>)],
    diags: &mut Diagnostics,
) -> RecipeDir {
    let mut out = RecipeDir {
        dir: dir.to_path_buf(),
        mount: "/user-environment".into(),
        ..RecipeDir::default()
    };
    config(dir, &mut out, diags);
    compilers(dir, &mut out, diags);
    if let Some((src, root)) = read_yaml(&dir.join("environments.yaml"), diags) {
        let mut cx = Cx::new(&src, diags);
        if let Some(m) = cx.open_map(&root, "environments.yaml") {
            for (k, v) in m.entries() {
                if let Some(e) = super::environment::environment(&mut cx, k.as_str(), v, mpi) {
                    out.environments.push((k.as_str().to_string(), e));
                }
            }
        }
    }
    let pk = dir.join("packages.yaml");
    if pk.is_file() {
        if let Some((src, root)) = read_yaml(&pk, diags) {
            let mut cx = Cx::new(&src, diags);
            if let Some(n) = cx
                .map(&root, "packages.yaml", &["packages"])
                .and_then(|m| m.get("packages"))
            {
                out.policies = packages::read_body(&mut cx, n).policies;
            }
        }
    }
    let md = dir.join("modules.yaml");
    if md.is_file() {
        if let Some((src, root)) = read_yaml(&md, diags) {
            let mut cx = Cx::new(&src, diags);
            out.modules = super::modules::modules(&mut cx, &root);
        }
    }
    let repo = dir.join("repo");
    if repo.join("packages").is_dir() {
        out.repo = Some(repo);
    }
    out
}

const CONFIG_KEYS: &[&str] = &[
    "name",
    "store",
    "spack",
    "description",
    "default-view",
    "version",
    "modules",
    "cleanup",
    "mirror",
];

fn config(dir: &Path, out: &mut RecipeDir, diags: &mut Diagnostics) {
    let Some((src, root)) = read_yaml(&dir.join("config.yaml"), diags) else {
        return;
    };
    let mut cx = Cx::new(&src, diags);
    let Some(m) = cx.map(&root, "config.yaml", CONFIG_KEYS) else {
        return;
    };
    if let Some(n) = cx
        .required(&m, "name", "config.yaml")
        .and_then(|n| cx.nonempty_string(n, "`name`"))
    {
        out.name = n.value;
    }
    if let Some(spack) = cx.required(&m, "spack", "config.yaml") {
        out.packages_pin = packages_pin(&mut cx, spack, &src);
    }
    out.description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    if let Some(s) = m.get("store").and_then(|n| cx.string(n, "`store`")) {
        out.mount = s.value;
    }
    out.default_view = m
        .get("default-view")
        .and_then(|n| cx.string(n, "`default-view`"))
        .map(|s| s.value);
    for key in ["cleanup", "mirror"] {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            cx.warn(
                Code::Unsupported,
                &loc,
                format!("`{key}` has no equivalent in stack; ignored"),
                "ignored",
                None,
            );
        }
    }
}

/// `spack: {repo, commit, packages: {repo, commit}}`: Spack itself is not
/// used; the spack-packages commit is read from the local checkout
/// ([`super::pinned`]), its `repo` URL is not fetched.
fn packages_pin(
    cx: &mut Cx,
    spack: &crate::diag::yaml::Node,
    src: &crate::diag::SourceFile,
) -> Option<super::pinned::Pin> {
    let m = cx.map(spack, "`spack`", &["repo", "commit", "packages"])?;
    for key in ["repo", "commit"] {
        if let Some(n) = m.get(key) {
            let _ = cx.string(n, &format!("`spack.{key}`"));
        }
    }
    let p = cx.map(m.get("packages")?, "`spack.packages`", &["repo", "commit"])?;
    if let Some(n) = p.get("repo") {
        let _ = cx.string(n, "`spack.packages.repo`");
    }
    let commit = cx.nonempty_string(p.get("commit")?, "`spack.packages.commit`")?;
    Some(super::pinned::Pin {
        commit: commit.value,
        loc: commit.loc,
        source: Some(src.clone()),
    })
}

/// `compilers.yaml`, v2 (`gcc: {version: "14"}`) or v1 (`bootstrap:`,
/// `gcc: {specs: […]}`, `llvm: {requires, specs}`).
fn compilers(dir: &Path, out: &mut RecipeDir, diags: &mut Diagnostics) {
    let path = dir.join("compilers.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = read_yaml(&path, diags) else {
        return;
    };
    let mut cx = Cx::new(&src, diags);
    let keys = [
        "gcc",
        "llvm",
        "nvhpc",
        "llvm-amdgpu",
        "intel-oneapi-compilers",
        "bootstrap",
    ];
    let Some(m) = cx.map(&root, "compilers.yaml", &keys) else {
        return;
    };
    if m.get("gcc").is_none() {
        cx.required(&m, "gcc", "compilers.yaml");
    }
    for (k, v) in m.entries() {
        let name = k.as_str();
        if is_null(v) {
            continue;
        }
        let Some(c) = cx.open_map(v, &format!("`{name}`")) else {
            continue;
        };
        if let Some(ver) = c.get("version").and_then(|n| cx.string(n, "`version`")) {
            if name == "gcc" && ver.value == "system" {
                out.gcc_system = true;
            } else {
                out.compilers.push(format!("{name}@{}", ver.value));
            }
        }
        // v1: `bootstrap: {spec}`, `gcc: {specs: […]}`, `llvm: {specs: […]}`.
        if let Some(s) = c.get("spec").filter(|_| name == "bootstrap") {
            let _ = cx.string(s, "`spec`");
        }
        if let Some(s) = c.get("specs") {
            out.compilers
                .extend(cx.strings(s, "`specs`", true).into_iter().map(|s| s.value));
        }
    }
}
