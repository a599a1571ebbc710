//! Stackinator recipe directories and cluster configurations as `stack`
//! inputs (the format of github:eth-cscs/alps-uenv and
//! github:eth-cscs/alps-cluster-config).
//!
//! [`translate`] reads a recipe directory and a cluster directory with
//! stackinator's merge rules (cluster `packages.yaml` ∪ `network.yaml:
//! packages` ∪ recipe `packages.yaml`, per package, right side winning) and
//! repository precedence (recipe `repo/`, then the site repositories, then
//! our built-in recipes in the place of Spack's `builtin`, then
//! spack-packages as `fallback_repos:`), and writes the equivalent
//! stack recipe and cluster configuration ([`Translation`]). Spack
//! repositories are translated by [`crate::import`] on the fly, cached by
//! content ([`spack_repo`]). `stack check|resolve|fetch|build DIR` and
//! `stack stackinator convert` both use it; nothing after loading sees it.
//!
//! What stack does not support is a warning (or an error) at its position.

mod cluster;
mod environment;
mod modules;
mod packages;
mod pinned;
mod recipe;
pub mod spack_repo;
mod view;

use std::path::{Path, PathBuf};

use crate::diag::yaml::Node;
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile};
use crate::import::yaml_out::Yaml;

pub use cluster::is_cluster_dir;
pub use recipe::is_recipe_dir;

/// What to translate.
#[derive(Clone, Debug)]
pub struct TranslateOptions {
    /// The recipe directory (config.yaml, environments.yaml, …).
    pub recipe: PathBuf,
    /// The cluster directory (packages.yaml, network.yaml, repos.yaml).
    pub cluster: PathBuf,
    /// A spack-packages checkout standing for `config.yaml:spack.packages`.
    pub spack_packages: Option<PathBuf>,
    /// Where translated Spack repositories are cached; `None`: Spack
    /// repositories are not read (`convert` without them).
    pub cache: Option<PathBuf>,
}

/// A translated recipe and cluster.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The stack recipe (YAML text).
    pub stack_yaml: String,
    /// The cluster configuration (YAML text).
    pub cluster_yaml: String,
    pub cluster_name: String,
    /// The post-install hook written beside the recipe (`post-install`):
    /// it writes `<mount>/config/packages.yaml` for downstream users, then
    /// runs the recipe's own `post-install`.
    pub post_install: String,
    pub warnings: Diagnostics,
    /// The packages of `compilers.yaml` the stack builds (`gcc`, `nvhpc`,
    /// `llvm`, …): an unknown one gets a help saying where its recipe can
    /// come from.
    pub compiler_packages: Vec<String>,
}

/// Read and translate; every problem of every file at once.
pub fn translate(opts: &TranslateOptions) -> Result<Translation, Diagnostics> {
    let mut diags = Diagnostics::new();
    let c = cluster::read_cluster(&opts.cluster, &mut diags);
    let r = recipe::read_recipe(&opts.recipe, &c.mpi, &mut diags);
    let target = cluster::target(&c, &mut diags);
    let (repos, fallback) = spack_repos(opts, &r, &c, &mut diags);
    if opts.spack_packages.is_none() {
        diags.push(
            Diagnostic::warning(
                Code::BadPath,
                "no spack-packages checkout given: only the recipe's repo/, the site repositories and stack's own recipes are searched",
            )
            .with_help("set STACK_SPACK_PACKAGES to a checkout of github:spack/spack-packages"),
        );
    }
    let mut policies = c.policies.clone();
    packages::merge(&mut policies, r.policies.clone());
    packages::expand_providers(&mut policies);
    let compiler = c.compilers.first().map(|c| c.spec.clone());
    if compiler.is_none() {
        diags.push(Diagnostic::error(
            Code::MissingField,
            format!(
                "cluster `{}` names no system compiler (a `gcc` external with `extra_attributes.compilers`)",
                c.name
            ),
        ));
    }
    let built = built_gcc(&r);
    let built_compilers = stack_compilers(&r, built.as_deref());
    let stack = stack_yaml(
        &r,
        (compiler.as_deref(), built.as_deref(), &built_compilers),
        (&repos, fallback.as_deref()),
    );
    let post_install = post_install_hook(&r, &policies, &c.compilers);
    let cluster_yaml = Yaml::map([
        ("name", Some(Yaml::str(&c.name))),
        (
            "description",
            Some(Yaml::str(format!(
                "translated from the stackinator cluster configuration {}",
                c.dir.display()
            ))),
        ),
        ("target", Some(Yaml::str(target))),
        (
            "compilers",
            Some(Yaml::Seq(c.compilers.iter().map(|c| c.to_yaml()).collect())),
        ),
        ("packages", Some(Yaml::Map(policies))),
    ]);
    if diags.has_errors() {
        diags.sort();
        return Err(diags);
    }
    diags.sort();
    Ok(Translation {
        stack_yaml: header(&r) + &stack.to_document(),
        cluster_yaml: cluster_yaml.to_document(),
        cluster_name: c.name,
        post_install,
        warnings: diags,
        compiler_packages: built_compilers
            .iter()
            .filter_map(|c| crate::spec::Spec::parse(c).ok()?.name)
            .collect(),
    })
}

/// The translated Spack repositories: the recipe's `repo/` and the site
/// repositories (searched before the built-in one, in this order), and
/// spack-packages (searched after it: a `fallback_repos:` entry, so that
/// stack's shipped recipes win over its on-the-fly translations).
fn spack_repos(
    opts: &TranslateOptions,
    r: &recipe::RecipeDir,
    c: &cluster::ClusterDir,
    diags: &mut Diagnostics,
) -> (Vec<PathBuf>, Option<PathBuf>) {
    let Some(cache) = &opts.cache else {
        return (Vec::new(), None);
    };
    // spack-packages, as it was at the recipe's pinned commit.
    let builtin = opts.spack_packages.as_deref().map(|dir| {
        // Beside the translations: `<cache>/../spack-packages/<sha>/`.
        let exports = cache.parent().unwrap_or(cache).join("spack-packages");
        pinned::tree(dir, r.packages_pin.as_ref(), &exports, diags)
    });
    // The recipe's and the site's packages may import spack-packages' ones.
    let with: Vec<PathBuf> = builtin.iter().cloned().collect();
    let repos = r
        .repo
        .iter()
        .chain(&c.repos)
        .filter_map(|dir| spack_repo::translated(dir, &with, cache, diags))
        .collect();
    let fallback = builtin.and_then(|pinned| spack_repo::translated(&pinned, &[], cache, diags));
    (repos, fallback)
}

/// The compilers the stack builds, as `compilers:` entries: the gcc of
/// `compilers.yaml` first, then the others (nvhpc, llvm, llvm-amdgpu,
/// intel-oneapi-compilers) built with it (`"nvhpc@25.1 %gcc@14"`, as
/// stackinator builds them with its gcc; with `gcc: system` with the
/// cluster's). nvhpc comes from `recipes/nvhpc.yaml`, the others from
/// whichever repository has their recipe (a missing one is the resolver's
/// "unknown package" at the entry).
fn stack_compilers(r: &recipe::RecipeDir, gcc: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = gcc.iter().map(|g| g.to_string()).collect();
    for c in r.compilers.iter().filter(|c| Some(c.as_str()) != gcc) {
        out.push(match gcc {
            Some(g) if !c.contains('%') => format!("{c} %{g}"),
            _ => c.clone(),
        });
    }
    out
}

fn header(r: &recipe::RecipeDir) -> String {
    let mut h = format!(
        "# Translated by `stack` from the stackinator recipe {}\n",
        r.dir.display()
    );
    if !r.compilers.is_empty() {
        h += &format!(
            "# compilers.yaml: {} (built by the stack: `compilers:`)\n",
            r.compilers.join(", ")
        );
    }
    h
}

/// The gcc that `compilers.yaml` asks stackinator to build (`gcc: {version:
/// "14"}`, v1 `gcc: {specs: [gcc@13]}`), as a spec `gcc@14`; `None` with
/// `gcc: {version: system}`. It becomes the stack's `compilers:` and the
/// compiler of every environment (built with the cluster's gcc first).
fn built_gcc(r: &recipe::RecipeDir) -> Option<String> {
    r.compilers
        .iter()
        .find(|c| c.split(['@', ' ']).next() == Some("gcc"))
        .cloned()
}

/// `environments:` with the stack's gcc for `gcc` in each environment's
/// `compiler:` (`[gcc, nvhpc]` → `[gcc@14, nvhpc]`; none: `gcc@14`).
fn with_compiler(envs: &[(String, Yaml)], gcc: &str) -> Vec<(String, Yaml)> {
    envs.iter()
        .map(|(name, env)| {
            let env = match env {
                Yaml::Map(entries) => {
                    let listed = entries.iter().find_map(|(k, v)| match v {
                        Yaml::Seq(items) if k == "compiler" => Some(items.clone()),
                        _ => None,
                    });
                    let compilers = match listed {
                        Some(items) if items.len() > 1 => Yaml::Seq(
                            items
                                .into_iter()
                                .map(|c| match c {
                                    Yaml::Str(n) if n == "gcc" => Yaml::str(gcc),
                                    c => c,
                                })
                                .collect(),
                        ),
                        _ => Yaml::str(gcc),
                    };
                    let mut e = vec![("compiler".to_string(), compilers)];
                    e.extend(entries.iter().filter(|(k, _)| k != "compiler").cloned());
                    Yaml::Map(e)
                }
                other => other.clone(),
            };
            (name.clone(), env)
        })
        .collect()
}

/// The stack recipe; `compiler`: the cluster's, `built`: the stack's gcc,
/// `compilers`: every compiler the stack builds (gcc first).
fn stack_yaml(
    r: &recipe::RecipeDir,
    (compiler, built, compilers): (Option<&str>, Option<&str>, &[String]),
    (repos, fallback): (&[PathBuf], Option<&Path>),
) -> Yaml {
    let envs = match built {
        Some(gcc) => with_compiler(&r.environments, gcc),
        None => r.environments.clone(),
    };
    let path = |p: PathBuf| p.is_file().then(|| Yaml::str(p.display().to_string()));
    let extra = r.dir.join("extra");
    Yaml::map([
        ("name", Some(Yaml::str(&r.name))),
        ("description", r.description.as_ref().map(Yaml::str)),
        ("mount", Some(Yaml::str(&r.mount))),
        (
            "compilers",
            (!compilers.is_empty()).then(|| Yaml::Seq(compilers.iter().map(Yaml::str).collect())),
        ),
        ("compiler", built.or(compiler).map(Yaml::str)),
        (
            "repos",
            (!repos.is_empty()).then(|| {
                Yaml::Seq(
                    repos
                        .iter()
                        .map(|p| Yaml::str(p.display().to_string()))
                        .collect(),
                )
            }),
        ),
        (
            "fallback_repos",
            fallback.map(|p| Yaml::Seq(vec![Yaml::str(p.display().to_string())])),
        ),
        ("environments", Some(Yaml::Map(envs))),
        (
            "default_view",
            r.default_view
                .as_ref()
                .filter(|v| *v != "modules" && *v != "spack")
                .map(Yaml::str),
        ),
        ("modules", r.modules.clone()),
        ("pre_install", path(r.dir.join("pre-install"))),
        // Written by [`write`] beside the recipe; runs the recipe's own.
        ("post_install", Some(Yaml::str("post-install"))),
        (
            "extra",
            extra
                .is_dir()
                .then(|| Yaml::str(extra.display().to_string())),
        ),
    ])
}

/// Write a translation: `<out>/stack.yaml` and `<out>/<cluster>/cluster.yaml`.
/// Returns both paths (the recipe file, the cluster directory).
pub fn write(t: &Translation, out: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    let cdir = out.join(&t.cluster_name);
    fs_err::create_dir_all(&cdir)?;
    let stack = out.join("stack.yaml");
    fs_err::write(&stack, &t.stack_yaml)?;
    fs_err::write(cdir.join("cluster.yaml"), &t.cluster_yaml)?;
    fs_err::write(out.join("post-install"), &t.post_install)?;
    Ok((stack, cdir))
}

/// The post-install hook: `<mount>/config/packages.yaml` as stackinator
/// writes it for downstream Spack users (the merged packages; `gcc` only
/// with `gcc: system`), then the recipe's `post-install`, rendered with
/// the same template names, run as its own script.
fn post_install_hook(
    r: &recipe::RecipeDir,
    policies: &[(String, Yaml)],
    compilers: &[packages::SystemCompiler],
) -> String {
    let mut pk: Vec<(String, Yaml)> = policies.to_vec();
    if r.gcc_system {
        let ext: Vec<Yaml> = compilers
            .iter()
            .map(|c| {
                let prefix = Path::new(&c.cc)
                    .parent()
                    .and_then(Path::parent)
                    .map_or("/usr".to_string(), |p| p.display().to_string());
                Yaml::map([
                    ("spec", Some(Yaml::str(&c.spec))),
                    ("prefix", Some(Yaml::str(prefix))),
                ])
            })
            .collect();
        pk.push((
            "gcc".into(),
            Yaml::map([("externals", Some(Yaml::Seq(ext)))]),
        ));
    }
    let doc = Yaml::map([("packages", Some(Yaml::Map(pk)))]).to_document();
    let mut h = String::from(
        "#!/bin/sh\n# Generated by stack from a stackinator recipe.\nset -eu\nmkdir -p \"{{ env.mount }}/config\"\ncat > \"{{ env.mount }}/config/packages.yaml\" <<'STACK_PACKAGES_EOF'\n{% raw %}",
    );
    h += &doc;
    h += "{% endraw %}STACK_PACKAGES_EOF\n";
    if let Ok(own) = fs_err::read_to_string(r.dir.join("post-install")) {
        h += "hook=\"$STACK_BUILD/hooks/stackinator-post-install\"\ncat > \"$hook\" <<'STACK_HOOK_EOF'\n";
        if !own.starts_with("#!") {
            h += "#!/bin/sh\n";
        }
        h += &own;
        if !own.ends_with('\n') {
            h.push('\n');
        }
        h += "STACK_HOOK_EOF\nchmod +x \"$hook\"\n\"$hook\"\n";
    }
    h
}

/// Read and parse one YAML file; problems go to `diags`.
fn read_yaml(path: &Path, diags: &mut Diagnostics) -> Option<(SourceFile, Node)> {
    let src = match SourceFile::read(path) {
        Ok(s) => s,
        Err(e) => {
            diags.push(Diagnostic::error(
                Code::Io,
                format!("cannot read {}: {e}", path.display()),
            ));
            return None;
        }
    };
    let node = crate::diag::yaml::parse_into(&src, diags)?;
    Some((src, node))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stack's gcc takes the place of `gcc` in a list; an environment
    /// without a list gets it alone.
    #[test]
    fn the_stack_gcc_replaces_gcc_in_compiler_lists() {
        let envs = vec![
            (
                "vasp".to_string(),
                Yaml::Map(vec![(
                    "compiler".into(),
                    Yaml::Seq(vec![Yaml::str("gcc"), Yaml::str("nvhpc")]),
                )]),
            ),
            ("tools".to_string(), Yaml::Map(vec![])),
        ];
        let out = with_compiler(&envs, "gcc@14");
        let compiler = |i: usize| match &out[i].1 {
            Yaml::Map(e) => e.iter().find(|(k, _)| k == "compiler").unwrap().1.clone(),
            _ => unreachable!(),
        };
        assert_eq!(
            compiler(0),
            Yaml::Seq(vec![Yaml::str("gcc@14"), Yaml::str("nvhpc")])
        );
        assert_eq!(compiler(1), Yaml::str("gcc@14"));
    }
}
