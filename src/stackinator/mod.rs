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
mod coverage;
mod environment;
mod git_refs;
mod modules;
mod packages;
mod pinned;
mod reader;
mod recipe;
pub mod spack_repo;
mod view;

use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Diagnostics, Loc, Origins, SourceFile};
use crate::import::yaml_out::Yaml;

pub use cluster::is_cluster_dir;
pub use recipe::is_recipe_dir;

use reader::Reader;

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
    /// repositories are not read.
    pub cache: Option<PathBuf>,
}

/// A translated recipe and cluster.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The stack recipe (a top-level map), its values with their origins.
    pub stack: Yaml,
    /// The cluster configuration, its values with their origins.
    pub cluster: Yaml,
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
    /// Their specs as compilers.yaml asks for them (`gcc@14`, `nvhpc@25.1`).
    pub compiler_specs: Vec<String>,
    /// The translated package repositories: the recipe's `repo/` and the
    /// site repositories (`repos:`, in this order), and spack-packages
    /// (`fallback_repos:`).
    pub repos: Vec<TranslatedRepo>,
    pub fallback: Option<TranslatedRepo>,
    /// The recipe's `extra/` and `pre-install`, when present.
    pub extra: Option<PathBuf>,
    pub pre_install: Option<PathBuf>,
    /// The user's files read, for diagnostics through the translation.
    pub sources: Vec<SourceFile>,
    /// Where the recipe and the cluster as a whole are described
    /// (config.yaml, the cluster's packages.yaml).
    pub recipe_loc: Option<Loc>,
    pub cluster_loc: Option<Loc>,
    /// The directories translated.
    pub recipe_dir: PathBuf,
    pub cluster_dir: PathBuf,
    /// config.yaml's `spack.packages.commit`.
    pub packages_pin: Option<String>,
}

/// A Spack repository the translation reads, translated.
#[derive(Clone, Debug)]
pub struct TranslatedRepo {
    /// The Spack repository (or the spack-packages tree at the pinned commit).
    pub spack: PathBuf,
    /// Its translation's `recipes/` (in the cache).
    pub recipes: PathBuf,
    /// Where the user's files name it (repos.yaml's entry, the pinned
    /// commit), if anywhere.
    pub origin: Option<Loc>,
}

/// Read and translate; every problem of every file at once.
pub fn translate(opts: &TranslateOptions) -> Result<Translation, Diagnostics> {
    let mut rd = Reader::default();
    let c = cluster::read_cluster(&opts.cluster, &mut rd);
    let r = recipe::read_recipe(&opts.recipe, &c.mpi, &mut rd);
    let target = cluster::target(&c, &mut rd);
    let (os, libc) = cluster::os_and_libc(&c, &mut rd);
    let (repos, fallback) = spack_repos(opts, &r, &c, &mut rd.diags);
    if opts.spack_packages.is_none() && opts.cache.is_some() {
        rd.diags.push(
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
        rd.diags.push(Diagnostic::error(
            Code::MissingField,
            format!(
                "cluster `{}` names no system compiler (a `gcc` external with `extra_attributes.compilers`)",
                c.name
            ),
        ));
    }
    let built = built_gcc(&r);
    let built_compilers = stack_compilers(&r, built.as_ref());
    let extra = Some(r.dir.join("extra")).filter(|p| p.is_dir());
    let pre_install = Some(r.dir.join("pre-install")).filter(|p| p.is_file());
    let stack = stack_yaml(
        &r,
        (compiler.as_deref(), built.as_ref(), &built_compilers),
        (&repos, fallback.as_ref()),
        (extra.as_deref(), pre_install.as_deref()),
    );
    let post_install = post_install_hook(&r, &policies, &c.compilers);
    let cluster_yaml = Yaml::map([
        ("name", Some(Yaml::str(&c.name))),
        ("target", Some(at_opt(Yaml::str(target), c.loc.as_ref()))),
        ("os", Some(at_opt(Yaml::str(os), c.loc.as_ref()))),
        ("libc", Some(at_opt(Yaml::str(libc), c.loc.as_ref()))),
        (
            "compilers",
            Some(Yaml::Seq(c.compilers.iter().map(|c| c.to_yaml()).collect())),
        ),
        ("packages", Some(Yaml::Map(policies))),
    ]);
    let untranslated = coverage::untranslated(&rd.files, &rd.keys, &rd.diags);
    rd.diags.extend(untranslated);
    let mut diags = rd.diags;
    diags.sort();
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(Translation {
        stack,
        cluster: cluster_yaml,
        cluster_name: c.name,
        post_install,
        warnings: diags,
        compiler_packages: built_compilers
            .iter()
            .filter_map(|c| crate::spec::Spec::parse(&c.value).ok()?.name)
            .collect(),
        compiler_specs: r.compilers.iter().map(|c| c.spec.value.clone()).collect(),
        repos,
        fallback,
        extra,
        pre_install,
        sources: rd.files.into_iter().map(|(s, _)| s).collect(),
        recipe_loc: r.loc,
        cluster_loc: c.loc,
        packages_pin: r.packages_pin.as_ref().map(|p| p.commit.clone()),
        recipe_dir: r.dir,
        cluster_dir: c.dir,
    })
}

/// `value` with the origin `loc`, if known.
fn at_opt(value: Yaml, loc: Option<&Loc>) -> Yaml {
    match loc {
        Some(l) => Yaml::at(value, l),
        None => value,
    }
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
) -> (Vec<TranslatedRepo>, Option<TranslatedRepo>) {
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
    let named = r
        .repo
        .iter()
        .map(|d| (d, r.loc.clone()))
        .chain(c.repos.iter().map(|(d, l)| (d, Some(l.clone()))));
    let repos = named
        .filter_map(|(dir, origin)| {
            Some(TranslatedRepo {
                spack: dir.clone(),
                recipes: spack_repo::translated(dir, &with, cache, diags)?,
                origin,
            })
        })
        .collect();
    let fallback = builtin.and_then(|pinned| {
        let recipes = spack_repo::translated(&pinned, &[], cache, diags)?;
        Some(TranslatedRepo {
            spack: pinned,
            recipes,
            origin: r
                .packages_pin
                .as_ref()
                .map(|p| p.loc.clone())
                .or(r.loc.clone()),
        })
    });
    (repos, fallback)
}

/// The compilers the stack builds, as `compilers:` entries: the gcc of
/// `compilers.yaml` first, then the others (nvhpc, llvm, llvm-amdgpu,
/// intel-oneapi-compilers) built with it (`"nvhpc@25.1 %gcc@14"`, as
/// stackinator builds them with its gcc; v1's `requires:` names another;
/// with `gcc: system` with the cluster's). nvhpc comes from
/// `recipes/nvhpc.yaml`, the others from whichever repository has their
/// recipe (a missing one is the resolver's "unknown package" at the entry).
fn stack_compilers(
    r: &recipe::RecipeDir,
    gcc: Option<&crate::diag::Spanned<String>>,
) -> Vec<crate::diag::Spanned<String>> {
    let mut out: Vec<crate::diag::Spanned<String>> = gcc.into_iter().cloned().collect();
    for c in r
        .compilers
        .iter()
        .filter(|c| Some(&c.spec.value) != gcc.map(|g| &g.value))
    {
        let by = c.by.as_deref().or(gcc.map(|g| g.value.as_str()));
        let mut spec = c.spec.clone();
        if let Some(by) = by.filter(|_| !c.spec.value.contains('%')) {
            spec.value = format!("{} %{by}", spec.value);
        }
        out.push(spec);
    }
    out
}

/// The gcc that `compilers.yaml` asks stackinator to build (`gcc: {version:
/// "14"}`, v1 `gcc: {specs: [gcc@13]}`), as a spec `gcc@14`; `None` with
/// `gcc: {version: system}`. It becomes the stack's `compilers:` and the
/// compiler of every environment (built with the cluster's gcc first).
fn built_gcc(r: &recipe::RecipeDir) -> Option<crate::diag::Spanned<String>> {
    r.compilers
        .iter()
        .find(|c| c.spec.value.split(['@', ' ']).next() == Some("gcc"))
        .map(|c| c.spec.clone())
}

/// `environments:` with the stack's gcc for `gcc` in each environment's
/// `compiler:` (`[gcc, nvhpc]` → `[gcc@14, nvhpc]`; none: `gcc@14`).
fn with_compiler(
    envs: &[(String, Yaml)],
    gcc: &crate::diag::Spanned<String>,
) -> Vec<(String, Yaml)> {
    let gcc_yaml = || Yaml::at(Yaml::str(&gcc.value), &gcc.loc);
    envs.iter()
        .map(|(name, env)| {
            let mut env = env.clone();
            if let Some(Yaml::Map(entries)) = packages::plain_mut(&mut env) {
                let listed = entries.iter().find_map(|(k, v)| match v.plain() {
                    Yaml::Seq(items) if k == "compiler" => Some(items.clone()),
                    _ => None,
                });
                let compilers = match listed {
                    Some(items) if items.len() > 1 => Yaml::Seq(
                        items
                            .into_iter()
                            .map(|c| match c.plain() {
                                Yaml::Str(n) if n == "gcc" => gcc_yaml(),
                                _ => c,
                            })
                            .collect(),
                    ),
                    _ => gcc_yaml(),
                };
                entries.retain(|(k, _)| k != "compiler");
                entries.insert(0, ("compiler".to_string(), compilers));
            }
            (name.clone(), env)
        })
        .collect()
}

/// The stack recipe; `compiler`: the cluster's, `built`: the stack's gcc,
/// `compilers`: every compiler the stack builds (gcc first). Paths are
/// absolute; `stack stackinator convert` makes them relative.
fn stack_yaml(
    r: &recipe::RecipeDir,
    (compiler, built, compilers): (
        Option<&str>,
        Option<&crate::diag::Spanned<String>>,
        &[crate::diag::Spanned<String>],
    ),
    (repos, fallback): (&[TranslatedRepo], Option<&TranslatedRepo>),
    (extra, pre_install): (Option<&Path>, Option<&Path>),
) -> Yaml {
    let envs = match built {
        Some(gcc) => with_compiler(&r.environments, gcc),
        None => r.environments.clone(),
    };
    let path = |p: &Path| Yaml::str(p.display().to_string());
    let repo = |t: &TranslatedRepo| at_opt(path(&t.recipes), t.origin.as_ref());
    let spanned = |s: &crate::diag::Spanned<String>| Yaml::at(Yaml::str(&s.value), &s.loc);
    Yaml::map([
        ("name", r.name.as_ref().map(spanned)),
        ("description", r.description.as_ref().map(spanned)),
        (
            "mount",
            Some(match &r.mount {
                Some(m) => spanned(m),
                None => Yaml::str(r.mount()),
            }),
        ),
        (
            "compilers",
            (!compilers.is_empty()).then(|| Yaml::Seq(compilers.iter().map(spanned).collect())),
        ),
        ("compiler", built.map(spanned).or(compiler.map(Yaml::str))),
        (
            "repos",
            (!repos.is_empty()).then(|| Yaml::Seq(repos.iter().map(repo).collect())),
        ),
        ("fallback_repos", fallback.map(|t| Yaml::Seq(vec![repo(t)]))),
        ("environments", Some(Yaml::Map(envs))),
        (
            "default_view",
            r.default_view
                .as_ref()
                .filter(|v| v.value != "modules" && v.value != "spack")
                .map(spanned),
        ),
        ("modules", r.modules.clone()),
        ("pre_install", pre_install.map(path)),
        // Written by [`write`] beside the recipe; runs the recipe's own.
        ("post_install", Some(Yaml::str("post-install"))),
        ("extra", extra.map(path)),
    ])
}

impl Translation {
    /// Replace the value of a top-level key of the stack recipe (`None`:
    /// remove it).
    pub fn set_stack_key(&mut self, key: &str, value: Option<Yaml>) {
        if let Yaml::Map(entries) = &mut self.stack {
            match (entries.iter().position(|(k, _)| k == key), value) {
                (Some(i), Some(v)) => entries[i].1 = v,
                (Some(i), None) => {
                    entries.remove(i);
                }
                (None, Some(v)) => entries.push((key.to_string(), v)),
                (None, None) => {}
            }
        }
    }
}

/// What [`write()`] wrote: the stack recipe and the cluster configuration,
/// each as the file and its text with the span map back to the user's
/// files (to load them with).
pub struct Written {
    pub stack: SourceFile,
    pub cluster_dir: PathBuf,
    pub cluster: SourceFile,
}

/// How to name the translated directories in the written files' comments.
pub struct Labels {
    pub recipe: String,
    pub cluster: String,
}

/// Write a translation: `<out>/<stack_file>`, `<out>/<cluster>/cluster.yaml`
/// and `<out>/post-install`.
pub fn write(
    t: &Translation,
    out: &Path,
    stack_file: &str,
    labels: &Labels,
) -> std::io::Result<Written> {
    let cdir = out.join(&t.cluster_name);
    fs_err::create_dir_all(&cdir)?;
    let header = header(t, &labels.recipe);
    let (body, spans) = t.stack.to_document_with_origins();
    let stack_text = header.clone() + &body;
    let stack_path = out.join(stack_file);
    fs_err::write(&stack_path, &stack_text)?;
    let stack = SourceFile::translated(
        &stack_path,
        stack_text,
        origins(t, spans, header.len(), t.recipe_loc.clone()),
    );
    let cheader = format!(
        "# Translated by `stack` from the stackinator cluster configuration {}\n",
        labels.cluster
    );
    let (body, spans) = t.cluster.to_document_with_origins();
    let cluster_text = cheader.clone() + &body;
    // Our cluster configuration's file name (the cluster module's CLUSTER_FILE).
    let cluster_path = cdir.join("cluster.yaml");
    fs_err::write(&cluster_path, &cluster_text)?;
    let cluster = SourceFile::translated(
        &cluster_path,
        cluster_text,
        origins(t, spans, cheader.len(), t.cluster_loc.clone()),
    );
    fs_err::write(out.join("post-install"), &t.post_install)?;
    Ok(Written {
        stack,
        cluster_dir: cdir,
        cluster,
    })
}

/// The span map of a written file whose document follows a header of
/// `shift` bytes.
fn origins(
    t: &Translation,
    spans: Vec<crate::diag::OriginSpan>,
    shift: usize,
    fallback: Option<Loc>,
) -> Origins {
    Origins {
        spans: spans
            .into_iter()
            .map(|mut s| {
                s.start += shift;
                s.end += shift;
                s
            })
            .collect(),
        files: t.sources.clone(),
        fallback,
    }
}

fn header(t: &Translation, recipe: &str) -> String {
    let mut h = format!("# Translated by `stack` from the stackinator recipe {recipe}\n");
    if !t.compiler_specs.is_empty() {
        h += &format!(
            "# compilers.yaml: {} (built by the stack: `compilers:`)\n",
            t.compiler_specs.join(", ")
        );
    }
    h
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
        let gcc = crate::diag::Spanned::new("gcc@14".to_string(), Loc::new("c.yaml", 1, 1));
        let out = with_compiler(&envs, &gcc);
        let compiler = |i: usize| match &out[i].1 {
            Yaml::Map(e) => e
                .iter()
                .find(|(k, _)| k == "compiler")
                .unwrap()
                .1
                .to_document(),
            _ => unreachable!(),
        };
        assert_eq!(compiler(0), "- \"gcc@14\"\n- nvhpc\n");
        assert_eq!(compiler(1), "\"gcc@14\"\n");
    }
}
