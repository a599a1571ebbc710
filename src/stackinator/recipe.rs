//! A stackinator recipe directory (`config.yaml`, `compilers.yaml` v1/v2,
//! `environments.yaml`, optional `modules.yaml`, `packages.yaml`, `repo/`,
//! `extra/`, `pre-install`, `post-install`) → the parts of a stack recipe.

use std::path::{Path, PathBuf};

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Loc, Spanned};
use crate::import::yaml_out::Yaml;

use super::packages::{self, PolicyList, is_null};
use super::reader::Reader;

/// A compiler `compilers.yaml` asks the stack to build.
#[derive(Clone, Debug)]
pub struct BuiltCompiler {
    /// `gcc@14`, `nvhpc@25.1` (with a v2 `spec:`'s variants).
    pub spec: Spanned<String>,
    /// The gcc that builds it (v1 `llvm: {requires: gcc@13}`); `None`: the
    /// stack's gcc.
    pub by: Option<String>,
}

/// What the recipe directory says, translated.
#[derive(Clone, Debug, Default)]
pub struct RecipeDir {
    pub dir: PathBuf,
    pub name: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub mount: Option<Spanned<String>>,
    pub default_view: Option<Spanned<String>>,
    /// `compilers.yaml`: compilers to build (`gcc@14`); empty with `gcc: system`.
    pub compilers: Vec<BuiltCompiler>,
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
    /// `config.yaml`'s start: the origin of what the recipe as a whole says.
    pub loc: Option<Loc>,
}

impl RecipeDir {
    /// The mount point (`store:`, default `/user-environment`).
    pub fn mount(&self) -> String {
        self.mount
            .as_ref()
            .map_or_else(|| "/user-environment".into(), |m| m.value.clone())
    }
}

/// Whether `dir` is a stackinator recipe directory.
pub fn is_recipe_dir(dir: &Path) -> bool {
    dir.join("config.yaml").is_file() && dir.join("environments.yaml").is_file()
}

/// Read a recipe directory. `mpi` are the cluster's MPI templates.
pub fn read_recipe(
    dir: &Path,
    mpi: &[(String, Vec<Spanned<String>>)],
    rd: &mut Reader,
) -> RecipeDir {
    let mut out = RecipeDir {
        dir: dir.to_path_buf(),
        ..RecipeDir::default()
    };
    let modules_flag = config(dir, &mut out, rd);
    compilers(dir, &mut out, rd);
    if let Some((src, root)) = rd.read(&dir.join("environments.yaml")) {
        let mut cx = rd.cx(&src);
        if let Some(m) = cx.open_map(&root, "environments.yaml") {
            for (k, v) in m.entries() {
                let at = cx.scalar_loc(k);
                if let Some(e) = super::environment::environment(&mut cx, k.as_str(), v, mpi) {
                    out.environments
                        .push((k.as_str().to_string(), Yaml::at(e, &at)));
                }
            }
        }
    }
    let pk = dir.join("packages.yaml");
    if pk.is_file() {
        if let Some((src, root)) = rd.read(&pk) {
            let mut cx = rd.cx(&src);
            if let Some(n) = cx
                .map(&root, "packages.yaml", &["packages"])
                .and_then(|m| m.get("packages"))
            {
                out.policies = packages::read_body(&mut cx, n).policies;
            }
        }
    }
    let md = dir.join("modules.yaml");
    match (md.is_file(), modules_flag) {
        (true, Some((false, loc))) => {
            // Stackinator 5 generates no modules then; 6 refuses the
            // disagreement.
            rd.push(
                crate::diag::Diagnostic::warning(
                    Code::Unsupported,
                    "`modules: false` with a modules.yaml: no modules are generated (as stackinator 5 does; stackinator 6 refuses this)",
                )
                .at(&loc, "modules.yaml is not read")
                .with_help("remove `modules:` (deprecated) from config.yaml to generate the modules modules.yaml describes"),
            );
        }
        (true, _) => {
            if let Some((src, root)) = rd.read(&md) {
                let mut cx = rd.cx(&src);
                out.modules = super::modules::modules(&mut cx, &root);
            }
        }
        (false, Some((true, loc))) => {
            // Stackinator 5 generates modules with Spack's defaults then.
            rd.push(
                crate::diag::Diagnostic::warning(
                    Code::Unsupported,
                    "`modules: true` without a modules.yaml: tcl modules with stack's defaults (`{name}/{version}`)",
                )
                .at(&loc, "here")
                .with_help("add a modules.yaml to choose the flavour and projections"),
            );
            out.modules = Some(Yaml::at(
                Yaml::map([("flavour", Some(Yaml::str("tcl")))]),
                &loc,
            ));
        }
        (false, _) => {}
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

/// `config.yaml`; returns the deprecated `modules:` flag, if set.
fn config(dir: &Path, out: &mut RecipeDir, rd: &mut Reader) -> Option<(bool, Loc)> {
    let (src, root) = rd.read(&dir.join("config.yaml"))?;
    out.loc = Some(src.start());
    let mut cx = rd.cx(&src);
    let m = cx.map(&root, "config.yaml", CONFIG_KEYS)?;
    out.name = cx
        .required(&m, "name", "config.yaml")
        .and_then(|n| cx.nonempty_string(n, "`name`"));
    if let Some(spack) = cx.required(&m, "spack", "config.yaml") {
        out.packages_pin = spack_sources(&mut cx, spack, &src);
    }
    out.description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"));
    out.mount = m.get("store").and_then(|n| cx.string(n, "`store`"));
    out.default_view = m
        .get("default-view")
        .and_then(|n| cx.string(n, "`default-view`"));
    if let Some(v) = m.get("version") {
        // 1: stackinator 5's shapes, 2: 6's, 3: reserved by 7; both shapes
        // are read whatever the number says.
        if let Some(n) = cx.u32(v, "`version`").filter(|n| !(1..=3).contains(n)) {
            let loc = cx.loc(v);
            cx.error(
                Code::InvalidValue,
                &loc,
                format!("recipe `version: {n}` is not a stackinator recipe version"),
                "expected 1, 2 or 3",
                None,
            );
        }
    }
    let modules = m.get("modules").and_then(|n| {
        let b = cx.bool(n, "`modules`")?;
        Some((b, cx.loc(n)))
    });
    for key in ["cleanup", "mirror"] {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            let help = match key {
                "cleanup" => {
                    "stack keeps what it installed; `stack gc BUILD` removes sources and stages"
                }
                _ => "stack's binary cache is `--binary-cache` (docs/distribution.md)",
            };
            cx.warn(
                Code::Unsupported,
                &loc,
                format!("`{key}` has no equivalent in stack; ignored"),
                "ignored",
                Some(help.into()),
            );
        }
    }
    modules
}

/// `spack: {repo, commit, packages: …}`: Spack itself is not used; the
/// spack-packages commit is read from the local checkout
/// ([`super::pinned`]), its `repo` URL is not fetched. `packages` is one
/// repository (`{repo, commit, path}`, Spack's `builtin`) or several by
/// name; only `builtin` stands for spack-packages.
fn spack_sources(
    cx: &mut Cx,
    spack: &Node,
    src: &crate::diag::SourceFile,
) -> Option<super::pinned::Pin> {
    let m = cx.map(spack, "`spack`", &["repo", "commit", "packages"])?;
    for key in ["repo", "commit"] {
        if let Some(n) = m.get(key) {
            let _ = cx.string(n, &format!("`spack.{key}`"));
        }
    }
    let packages = m.get("packages")?;
    let pm = cx.open_map(packages, "`spack.packages`")?;
    let single = pm.has("repo") || pm.has("commit") || pm.has("path");
    if single {
        return package_repo(cx, packages, "builtin", src);
    }
    let mut pin = None;
    for (k, v) in pm.entries() {
        if k.as_str() == "builtin" {
            pin = package_repo(cx, v, "builtin", src);
        } else {
            let loc = cx.scalar_loc(k);
            cx.warn(
                Code::Unsupported,
                &loc,
                format!(
                    "package repository `{}` is not read: stack reads spack-packages (`builtin`) from a local checkout only",
                    k.as_str()
                ),
                "not read",
                Some("put the packages this recipe needs from it into the recipe's repo/".into()),
            );
        }
    }
    pin
}

/// One package repository: `{repo, commit, path}`.
fn package_repo(
    cx: &mut Cx,
    node: &Node,
    name: &str,
    src: &crate::diag::SourceFile,
) -> Option<super::pinned::Pin> {
    let p = cx.map(node, "`spack.packages`", &["repo", "commit", "path"])?;
    if let Some(n) = p.get("repo") {
        let _ = cx.string(n, "`spack.packages.repo`");
    }
    if let Some(path) = p.get("path").and_then(|n| cx.string(n, "`path`")) {
        let default = format!("repos/spack_repo/{name}");
        if path.value.trim_end_matches('/') != default {
            cx.warn(
                Code::Unsupported,
                &path.loc,
                format!(
                    "`path: {}`: stack reads the checkout's `{default}`",
                    path.value
                ),
                "not translated",
                Some("point STACK_SPACK_PACKAGES at a checkout with the packages there".into()),
            );
        }
    }
    let commit = cx.nonempty_string(p.get("commit")?, "`spack.packages.commit`")?;
    Some(super::pinned::Pin {
        commit: commit.value,
        loc: commit.loc,
        source: Some(src.clone()),
    })
}

/// The compilers of compilers.yaml.
const COMPILER_KEYS: &[&str] = &[
    "gcc",
    "llvm",
    "nvhpc",
    "llvm-amdgpu",
    "intel-oneapi-compilers",
    "bootstrap",
];

/// `compilers.yaml`, v2 (`gcc: {version: "14", spec: …}`) or v1
/// (`bootstrap: {spec}`, `gcc: {specs: […]}`, `llvm: {requires, specs}`).
fn compilers(dir: &Path, out: &mut RecipeDir, rd: &mut Reader) {
    let path = dir.join("compilers.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = rd.read(&path) else {
        return;
    };
    let mut cx = rd.cx(&src);
    let Some(m) = cx.map(&root, "compilers.yaml", COMPILER_KEYS) else {
        return;
    };
    if m.get("gcc").is_none() {
        cx.required(&m, "gcc", "compilers.yaml");
    }
    let mut bootstrap = None;
    for (k, v) in m.entries() {
        let name = k.as_str();
        if is_null(v) {
            continue;
        }
        let keys: &[&str] = match name {
            "bootstrap" => &["spec"],
            "gcc" => &["version", "spec", "specs"],
            "llvm" => &["version", "spec", "specs", "requires"],
            _ => &["version", "spec"],
        };
        let Some(c) = cx.map(v, &format!("`{name}`"), keys) else {
            continue;
        };
        if name == "bootstrap" {
            bootstrap = c.get("spec").and_then(|s| cx.string(s, "`spec`"));
            continue;
        }
        let variants = c.get("spec").and_then(|n| cx.string(n, "`spec`"));
        if let Some(ver) = c.get("version").and_then(|n| cx.string(n, "`version`")) {
            if name == "gcc" && ver.value == "system" {
                out.gcc_system = true;
                if let Some(s) = &variants {
                    cx.warn(
                        Code::Unsupported,
                        &s.loc,
                        "`spec` with `version: system` is ignored (as stackinator does)",
                        "ignored",
                        None,
                    );
                }
            } else {
                // v2: `spec:` replaces stackinator's default variants; the
                // defaults of stack's recipe stand in for those.
                let text = match &variants {
                    Some(s) => format!("{name}@{} {}", ver.value, s.value),
                    None => format!("{name}@{}", ver.value),
                };
                out.compilers.push(BuiltCompiler {
                    spec: Spanned::new(text, ver.loc),
                    by: None,
                });
            }
        }
        // v1: `gcc: {specs: […]}`, `llvm: {requires: gcc@13, specs: […]}`.
        let by = c
            .get("requires")
            .and_then(|n| cx.string(n, "`requires`"))
            .map(|s| s.value);
        if let Some(s) = c.get("specs") {
            out.compilers
                .extend(
                    cx.strings(s, "`specs`", true)
                        .into_iter()
                        .map(|spec| BuiltCompiler {
                            spec,
                            by: by.clone(),
                        }),
                );
        }
    }
    if let Some(b) = bootstrap {
        let gcc = out
            .compilers
            .iter()
            .find(|c| c.spec.value.starts_with("gcc"))
            .map_or("the stack's gcc".to_string(), |c| {
                format!("`{}`", c.spec.value)
            });
        cx.warn(
            Code::Unsupported,
            &b.loc,
            format!(
                "the bootstrap compiler `{}` is not built: {gcc} is built with the cluster's compiler",
                b.value
            ),
            "not built",
            Some("stackinator 5 built gcc in two steps; stack builds it once (docs/stackinator.md)".into()),
        );
    }
}
