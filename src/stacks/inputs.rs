//! Loading everything a build needs — stack recipe, cluster configuration,
//! package repositories — and checking them against each other.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::cluster::{Cluster, parse_cluster};
use crate::diag::yaml::Cx;
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile, did_you_mean};
use crate::recipes::{PackageRepo, RepoSearch, Source, SpecRef, check_spec};

use super::load::parse_stack_recipe;
use super::model::StackRecipe;
use super::policy_checks::{check_cluster, check_policies};

/// Where to find the inputs.
#[derive(Clone, Debug, Default)]
pub struct InputOptions {
    /// The stack recipe file.
    pub recipe: PathBuf,
    /// The cluster configuration dir (or file); `None`: `cluster-configs/local`
    /// found walking up from the recipe's dir (see [`crate::cluster::find_default`]).
    pub cluster: Option<PathBuf>,
    /// `--repo` flags, searched first.
    pub repos: Vec<PathBuf>,
    /// The value of `STACK_REPOS`.
    pub env_repos: Option<OsString>,
    /// Do not add the source tree's `recipes/` (tests).
    pub no_builtin: bool,
}

/// A stack recipe with its cluster and package repository, checked.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub recipe: StackRecipe,
    pub cluster: Cluster,
    pub repo: PackageRepo,
    /// Every package reachable from the recipe's specs (through
    /// dependencies, conditional ones included, and providers of virtuals).
    pub packages: BTreeSet<String>,
    /// Non-fatal diagnostics.
    pub warnings: Diagnostics,
}

/// Load the stack recipe, its cluster configuration and the package
/// repositories, and check all of them: every problem in every file is
/// reported (sorted by file and position), not just the first.
pub fn load_inputs(opts: &InputOptions) -> Result<Inputs, Diagnostics> {
    load_inputs_from(opts, &[])
}

/// [`load_inputs`] with some files already in hand: a stack recipe or
/// cluster configuration whose path is one of `given`'s is taken from
/// there (a translation, whose diagnostics point at the user's files it
/// came from) instead of read.
/// The chosen cluster configuration, read and parsed (problems in `diags`).
fn read_cluster(
    choice: Option<&super::lookup::ClusterChoice>,
    read: &dyn Fn(&Path) -> std::io::Result<SourceFile>,
    diags: &mut Diagnostics,
) -> Option<(Cluster, SourceFile)> {
    let Some(choice) = choice else {
        diags.push(
            Diagnostic::error(Code::Io, "no cluster configuration found")
                .with_help("pass `--cluster DIR` (a directory with cluster.yaml), or create cluster-configs/local/cluster.yaml"),
        );
        return None;
    };
    diags.extend(choice.warning.clone());
    match read(&choice.file) {
        Ok(src) => parse_cluster(&src, diags).map(|c| (c, src)),
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    Code::Io,
                    format!("cannot read the cluster configuration: {e}"),
                )
                .with_help("`--cluster DIR` takes a directory holding cluster.yaml"),
            );
            None
        }
    }
}

pub fn load_inputs_from(opts: &InputOptions, given: &[SourceFile]) -> Result<Inputs, Diagnostics> {
    let read = |path: &Path| match given.iter().find(|s| s.path() == path) {
        Some(s) => Ok(s.clone()),
        None => SourceFile::read(path),
    };
    let mut diags = Diagnostics::new();
    let cwd = std::env::current_dir().unwrap_or_default();
    let recipe_path = crate::recipes::absolutize(&opts.recipe, &cwd);
    // Read as far as possible even when a file has errors, so that one run
    // reports the problems of every file.
    let recipe = match read(&recipe_path) {
        Ok(src) => parse_stack_recipe(&src, &mut diags).map(|r| (r, src)),
        Err(e) => {
            diags.push(Diagnostic::error(
                Code::Io,
                format!("cannot read the stack recipe: {e}"),
            ));
            None
        }
    };
    let recipe_dir = recipe_path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let choice = super::lookup::choose_cluster(
        opts.cluster
            .as_ref()
            .map(|c| crate::recipes::absolutize(c, &cwd)),
        &recipe_dir,
    );
    let cluster = read_cluster(choice.as_ref(), &read, &mut diags);

    let search = RepoSearch {
        flags: opts.repos.clone(),
        env: opts.env_repos.clone(),
        recipe_repos: recipe
            .as_ref()
            .map(|(r, _)| r.repos.clone())
            .unwrap_or_default(),
        fallback_repos: recipe
            .as_ref()
            .map(|(r, _)| r.fallback_repos.clone())
            .unwrap_or_default(),
        start_dir: recipe_dir,
        no_builtin: opts.no_builtin,
    };
    let dirs = search.dirs();
    super::lookup::log_lookup(choice.as_ref(), &dirs);
    let cache_base = crate::settings::cache_base();
    let index_cache = cache_base.join("recipe-index");
    let parsed_cache = cache_base.join(crate::recipes::parsed_cache::CACHE_DIR);
    let repo = PackageRepo::load_with_caches(dirs, Some(&index_cache), Some(&parsed_cache));
    diags.extend(repo.problems().clone());
    if repo.is_empty() {
        diags.push(
            Diagnostic::error(Code::Io, "no package recipes found")
                .with_help("add `repos:` to the recipe, pass `--repo DIR`, or run from a tree with a `recipes/` directory"),
        );
    }

    let cluster_ref = cluster.as_ref().map(|(c, _)| c);
    // Without a readable stack recipe its `repos:` are unknown: the
    // cluster's "unknown package" warnings would follow from that error.
    if let (Some((c, src)), Some(_)) = (&cluster, &recipe) {
        check_cluster(c, src, &repo, &mut diags);
    }
    let mut packages = BTreeSet::new();
    if let Some((r, src)) = &recipe {
        packages = reachable_with(r, cluster_ref, &repo);
        check_recipe(r, src, cluster_ref, &repo, &packages, &mut diags);
        for name in &packages {
            diags.extend(repo.check(name));
            if let Some(pkg) = repo.get(name) {
                super::template_refs::check_package(pkg, &repo, &mut diags);
            }
            if !r.allow_unverified {
                check_verified(&repo, name, &mut diags);
            }
        }
    }
    let diags = super::unreviewed::summarize(diags);
    match (recipe, cluster) {
        (Some((recipe, _)), Some((cluster, _))) if !diags.has_errors() => Ok(Inputs {
            recipe,
            cluster,
            repo,
            packages,
            warnings: diags,
        }),
        _ => Err(diags),
    }
}

/// The recipe against the cluster and the packages.
fn check_recipe(
    recipe: &StackRecipe,
    src: &SourceFile,
    cluster: Option<&Cluster>,
    repo: &PackageRepo,
    reached: &BTreeSet<String>,
    diags: &mut Diagnostics,
) {
    let mut cx = Cx::new(src, diags);
    let cluster = cluster.filter(|c| !c.compilers.is_empty());
    if let Some(cluster) = cluster {
        let chosen = recipe.compiler.iter().chain(
            recipe
                .environments
                .iter()
                .flat_map(|e| e.compiler.iter().chain(&e.other_compilers)),
        );
        for c in chosen {
            check_compiler_choice(&mut cx, recipe, cluster, c);
        }
    }
    for c in &recipe.compilers {
        check_spec(&mut cx, repo, c, None, "stack compiler");
    }
    // Stack-wide variants are usually defined by the packages the stack
    // reaches; every recipe is parsed only when one is not.
    let reached_variants: BTreeSet<&str> = reached
        .iter()
        .filter_map(|n| repo.get(n))
        .flat_map(|p| p.variant_names())
        .collect();
    let all_variants = std::cell::OnceCell::new();
    let all_variants = || {
        all_variants.get_or_init(|| {
            repo.packages()
                .flat_map(|p| p.variant_names())
                .collect::<BTreeSet<&str>>()
        })
    };
    for env in &recipe.environments {
        for spec in &env.specs {
            check_spec(&mut cx, repo, spec, None, "root spec");
        }
        if let Some(net) = &env.network {
            for spec in net.mpi.iter().chain(&net.specs) {
                check_spec(&mut cx, repo, spec, None, "network spec");
            }
        }
        if let Some(cluster) = cluster {
            let net = env
                .network
                .iter()
                .flat_map(|n| n.mpi.iter().chain(&n.specs));
            for spec in env.specs.iter().chain(net) {
                check_compilers(&mut cx, cluster, &recipe.compilers, spec);
            }
        }
        for v in &env.variants {
            for name in v.spec.variants.keys() {
                if !reached_variants.contains(name.as_str())
                    && !all_variants().contains(name.as_str())
                {
                    cx.error(
                        Code::UnknownVariant,
                        &v.loc,
                        format!(
                            "no package has a variant `{name}` (in `variants` of environment `{}`)",
                            env.name.value
                        ),
                        "unknown variant",
                        did_you_mean(name, all_variants()),
                    );
                }
            }
        }
        check_policies(&mut cx, repo, &env.packages, true);
        if let Some(cluster) = cluster {
            super::external_roots::check_external_roots(&mut cx, env, cluster);
            let merged = env.policies(cluster);
            for (name, pol) in &merged.entries {
                if pol.buildable == Some(false)
                    && pol.externals.as_ref().is_none_or(Vec::is_empty)
                    && repo.knows(name)
                {
                    let d = Diagnostic::warning(
                        Code::MissingField,
                        format!("`{name}` is not buildable and has no externals in environment `{}`", env.name.value),
                    )
                    .at(&pol.loc, "`buildable: false` without `externals`")
                    .with_help("add `externals: [{spec: …, prefix: …}]` here or in the cluster configuration");
                    cx.push(d);
                }
            }
        }
        for (_, view) in recipe.views() {
            check_view_names(&mut cx, repo, view);
        }
    }
}

/// A view's `select:` names packages of the stack (an unknown one is an
/// error); an `exclude:` entry is matched against what the view holds, as
/// Spack and stackinator match it against the installed specs, so one that
/// matches nothing (paraview's `exclude: [paraview-osmesa]`) is a warning.
fn check_view_names(cx: &mut Cx, repo: &PackageRepo, view: &super::model::View) {
    let names = view
        .select
        .iter()
        .map(|s| (s, true))
        .chain(view.exclude.iter().map(|s| (s, false)));
    for (s, select) in names {
        if repo.knows(&s.value) {
            continue;
        }
        let help = repo
            .suggest(&s.value)
            .map(|n| format!("did you mean `{n}`?"));
        let msg = format!(
            "unknown package `{}` in view `{}`",
            s.value, view.name.value
        );
        let d = if select {
            Diagnostic::error(Code::UnknownPackage, msg)
                .at(&s.loc, "no recipe for this package")
                .with_help_opt(help)
        } else {
            let help = help.or(Some(
                "an exclude that matches no package of the stack excludes nothing".into(),
            ));
            Diagnostic::warning(Code::UnknownPackage, msg)
                .at(&s.loc, "excludes nothing: no recipe for this package")
                .with_help_opt(help)
        };
        cx.push(d.about(&s.value));
    }
}

/// Whether a stack compiler (`compilers:`) can be what `spec` names.
fn is_stack_compiler(
    stack: &[SpecRef],
    name: &str,
    versions: &crate::spec::VersionConstraint,
) -> bool {
    stack
        .iter()
        .any(|s| s.spec.name.as_deref() == Some(name) && s.spec.versions.intersects(versions))
}

/// A `compiler:` (stack-wide or an environment's) must match a stack
/// compiler or a cluster compiler.
fn check_compiler_choice(cx: &mut Cx, recipe: &StackRecipe, cluster: &Cluster, c: &SpecRef) {
    let stack = c
        .spec
        .name
        .as_deref()
        .is_some_and(|n| is_stack_compiler(&recipe.compilers, n, &c.spec.versions));
    if stack || cluster.find_compiler(&c.spec).is_some() {
        return;
    }
    let have: Vec<_> = cluster
        .compilers
        .iter()
        .map(|c| c.spec.text.as_str())
        .collect();
    let built: Vec<_> = recipe.compilers.iter().map(|c| c.text.as_str()).collect();
    cx.error(
        Code::UnknownCompiler,
        &c.loc,
        format!(
            "compiler `{}` is not provided by cluster `{}` nor built by the stack",
            c.text, cluster.name.value
        ),
        "no matching compiler",
        Some(format!(
            "the cluster has: {} (see {}); {}",
            have.join(", "),
            crate::diag::display_path(&cluster.file),
            if built.is_empty() {
                format!("to build it, add `compilers: [{}]`", c.text)
            } else {
                format!("the stack builds: {}", built.join(", "))
            }
        )),
    );
}

/// `%compiler` parts of a stack's specs must match a cluster compiler or a
/// stack compiler.
fn check_compilers(cx: &mut Cx, cluster: &Cluster, built: &[SpecRef], spec: &SpecRef) {
    let mut stack = vec![&spec.spec];
    while let Some(s) = stack.pop() {
        stack.extend(s.deps.iter());
        if let Some(c) = &s.compiler {
            check_compiler(cx, cluster, built, spec, c, format!("%{c}"));
        }
        for (lang, c) in &s.languages {
            check_compiler(cx, cluster, built, spec, c, format!("%{lang}={c}"));
        }
    }
}

/// One `%compiler` (or `%fortran=compiler`) of `spec`.
fn check_compiler(
    cx: &mut Cx,
    cluster: &Cluster,
    built: &[SpecRef],
    spec: &SpecRef,
    c: &crate::spec::CompilerSpec,
    text: String,
) {
    let found = cluster.compilers.iter().any(|cc| {
        cc.spec.spec.name.as_deref() == Some(c.name.as_str())
            && cc.spec.spec.versions.intersects(&c.versions)
    });
    if found || cluster.compilers.is_empty() || is_stack_compiler(built, &c.name, &c.versions) {
        return;
    }
    let at = spec
        .text
        .find(&format!("%{}", c.name))
        .or_else(|| spec.text.find(&format!("={}", c.name)));
    let loc = match at {
        Some(at) => cx.sub_loc(&spec.loc, &spec.text, at, c.name.len() + 1),
        None => spec.loc.clone(),
    };
    let have: Vec<_> = cluster
        .compilers
        .iter()
        .map(|c| c.spec.text.as_str())
        .collect();
    cx.error(
        Code::UnknownCompiler,
        &loc,
        format!(
            "`{text}` in `{}` matches no compiler of cluster `{}`",
            spec.text, cluster.name.value
        ),
        "no such cluster compiler",
        Some(format!("the cluster has: {}", have.join(", "))),
    );
}

/// Url sources need sha256 unless the stack allows unverified sources.
fn check_verified(repo: &PackageRepo, name: &str, diags: &mut Diagnostics) {
    let Some(pkg) = repo.get(name) else { return };
    // A `sha256` that is there but malformed was reported when reading the
    // recipe; "no sha256" would be a second, false error about it.
    let malformed = repo
        .diagnostics(name)
        .is_some_and(|d| d.iter().any(|d| d.code == Code::BadChecksum));
    if malformed {
        return;
    }
    for v in &pkg.versions {
        if let Source::Archive(a) = &v.source {
            if a.sha256.is_none() {
                let mut d = Diagnostic::error(
                    Code::BadChecksum,
                    format!("version `{}` of `{name}` has a `url` but no `sha256`", v.text),
                )
                .at(&a.loc, "no checksum for this download")
                .with_help("add `sha256: <64 hex digits>` (`sha256sum FILE`), or set `allow_unverified: true` in the stack recipe");
                // `a.loc` is in an overlay's file when the overlay added it.
                if let Ok(src) = SourceFile::read(a.loc.file.as_path()) {
                    d.attach_source(&src);
                }
                diags.push(d);
            }
        }
    }
}

/// A provider that conflicts with `platform=linux` unconditionally (an
/// imported Windows package such as msmpi) is never chosen: its
/// dependencies (win-sdk) are not reached through it.
fn never_on_linux(repo: &PackageRepo, name: &str) -> bool {
    repo.get(name).is_some_and(|pkg| {
        pkg.conflicts
            .iter()
            .any(|c| c.when.text.trim() == "platform=linux")
    })
}

/// Names of all packages reachable from the recipe: root specs, network
/// specs (with the cluster's defaults) and their `^dep` constraints; then
/// dependencies (all, conditional ones included) and every provider of every
/// virtual met on the way. Policies (`packages:`) add nothing: they constrain
/// packages that are reached, and are checked on their own.
pub fn reachable(recipe: &StackRecipe, cluster: &Cluster, repo: &PackageRepo) -> BTreeSet<String> {
    reachable_with(recipe, Some(cluster), repo)
}

fn reachable_with(
    recipe: &StackRecipe,
    cluster: Option<&Cluster>,
    repo: &PackageRepo,
) -> BTreeSet<String> {
    let network = cluster.and_then(|c| c.network.as_ref());
    let push_spec = |q: &mut Vec<String>, s: &crate::spec::Spec| {
        let mut stack = vec![s];
        while let Some(s) = stack.pop() {
            if let Some(n) = &s.name {
                q.push(n.clone());
            }
            stack.extend(s.deps.iter());
        }
    };
    let mut packages = BTreeSet::new();
    for env in recipe.all_environments() {
        let policies = match cluster {
            Some(c) => env.policies(c),
            None => env.packages.clone(),
        };
        let mut frontier = Vec::new();
        for s in env.root_specs_with(network) {
            push_spec(&mut frontier, &s.spec);
        }
        // Breadth first, one level at a time, so that each level's
        // recipes are parsed in parallel.
        let mut seen = BTreeSet::new();
        while !frontier.is_empty() {
            frontier.retain(|n| seen.insert(n.clone()));
            repo.prefetch(frontier.iter().map(String::as_str));
            let mut next = Vec::new();
            for name in frontier {
                for p in repo.providers(&name) {
                    if policies.allows_provider(&name, &p.package)
                        && !never_on_linux(repo, &p.package)
                    {
                        next.push(p.package.clone());
                    }
                }
                if let Some(pkg) = repo.get(&name) {
                    packages.insert(name.clone());
                    for d in &pkg.dependencies {
                        push_spec(&mut next, &d.spec.spec);
                    }
                } else if repo.contains(&name) {
                    packages.insert(name);
                }
            }
            frontier = next;
        }
    }
    packages
}
