//! Package recipes and the repositories that hold them.
//!
//! A package repository is a directory of `<name>.yaml` files (the built-in
//! one is `recipes/`); patch files referenced by its recipes live in the
//! sibling directory `patches/` (`<repo>/../patches/<file>`). A
//! [`PackageRepo`] is an ordered list of repository directories (see
//! [`discover`] for the search order): the first directory that has
//! `<name>.yaml` defines package `name`.
//!
//! [`PackageRepo::load`] lists the repositories and reads every recipe's
//! text, but parses a recipe only when it is first asked for
//! ([`PackageRepo::get`]), so a stack pays only for the packages it
//! reaches. A repository with an [`index`] (a translation in the cache,
//! or the built-in repository through [`PackageRepo::load_cached`]) is
//! not even read: its recipes are read when first asked for. The
//! providers of a virtual are found on first use: among the recipes an
//! index names as its providers, and among the other repositories'
//! recipes whose text can declare `provides` at all; only the providers
//! of the virtuals asked for are parsed. Each file's
//! diagnostics are kept; [`PackageRepo::check`] adds the checks that need
//! other packages (dependencies exist, their variants exist).
//!
//! The model: [`PackageRecipe`] with [`VersionEntry`], [`VariantDef`],
//! [`Dependency`], [`Conflict`], [`Patch`], [`Provide`], [`Build`] and
//! [`EnvOp`]. Every spec is a parsed [`SpecRef`] with its source location.

pub mod build;
mod cycles;
pub mod dependents;
mod dir_layer;
pub mod discover;
pub mod env;
pub mod flags;
pub mod imported;
pub mod index;
mod json;
mod layer;
mod load;
pub mod located;
pub mod max_size;
pub mod overlay;
pub mod package;
pub mod parsed_cache;
pub mod placeholders;
pub mod read;
mod validate;
mod virtuals;
mod write;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::diag::{Code, Diagnostic, Diagnostics, nearest};

pub use dir_layer::recipe_files;
use dir_layer::{dir_layer, empty_repository};
use layer::{Entry, Layer, LayerIndex, Names, Parsed};
use parsed_cache::ParsedCache;
use virtuals::VirtualEntry;

pub use build::{
    Build, BuildSystem, Filter, InstallAction, InstallStep, NeededEntry, PackageFileRef, Phase,
    Relocate, Setting, Step, Toggle, plain_words,
};
pub use discover::{RepoDir, RepoOrigin, RepoSearch, builtin_recipes, find_upwards};
pub use env::{EnvOp, EnvOpKind};
pub use flags::{FlagEntry, FlagName, FlagVia};
pub use imported::{Imported, UntranslatedItem};
pub use load::{is_commit_id, load_package, parse_package};
pub use located::{ArgList, Conditional, PathRef, Resource, SpecRef, When, absolutize};
pub use max_size::MaxSize;
pub use package::{
    ArchiveSource, Conflict, DepTypes, Dependency, ExtraFile, GitRef, GitSource, PackageRecipe,
    Patch, PatchSource, Placement, Provide, ResourceGit, Source, VariantDef, VariantKind,
    VariantValueError, VersionEntry,
};
pub use validate::check_spec;

/// A package that provides a virtual, possibly under a condition.
#[derive(Clone, Debug)]
pub struct Provider {
    pub package: String,
    /// The versions of the virtual it provides (`provides: [mpi@:3]`).
    pub versions: crate::spec::VersionConstraint,
    pub when: Option<When>,
}

/// An ordered set of package repositories with every recipe loaded.
#[derive(Clone, Debug, Default)]
pub struct PackageRepo {
    dirs: Vec<RepoDir>,
    /// The directories read, in search order.
    layers: Vec<Layer>,
    virtuals: OnceLock<BTreeMap<String, VirtualEntry>>,
    problems: Diagnostics,
    /// [`PackageRepo::suggest`]'s candidates (every package name, then
    /// every virtual name) and the answers given so far (an index into
    /// them): checking a stack's recipes asks for the same unknown names
    /// again and again.
    suggestions: OnceLock<Suggestions>,
    /// Where loaded recipes are kept between commands ([`parsed_cache`]).
    parsed_cache: Option<ParsedCache>,
}

#[derive(Debug, Default)]
struct Suggestions {
    candidates: Vec<String>,
    answers: std::sync::Mutex<std::collections::HashMap<String, Option<usize>>>,
}

impl Clone for Suggestions {
    fn clone(&self) -> Self {
        Suggestions {
            candidates: self.candidates.clone(),
            answers: std::sync::Mutex::new(
                self.answers.lock().map(|a| a.clone()).unwrap_or_default(),
            ),
        }
    }
}

/// One recipe file: the `pos`th recipe of `layers[layer]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    layer: usize,
    pos: usize,
}

impl PackageRepo {
    /// List every `*.yaml` in `dirs` (earlier dirs win) and read its text;
    /// recipes are parsed on first use. Never fails: a
    /// missing directory or a broken recipe is recorded as diagnostics
    /// ([`PackageRepo::problems`], [`PackageRepo::diagnostics`]).
    pub fn load(dirs: Vec<RepoDir>) -> PackageRepo {
        PackageRepo::load_cached(dirs, None)
    }

    /// [`PackageRepo::load`], with the built-in repository read through
    /// its cached index under `index_cache` (built and written there when
    /// missing or stale; see [`index`]): loading reads none of its recipes,
    /// and makes none of their entries (a recipe's entry is made when it is
    /// first asked for).
    pub fn load_cached(dirs: Vec<RepoDir>, index_cache: Option<&Path>) -> PackageRepo {
        PackageRepo::load_with_caches(dirs, index_cache, None)
    }

    /// [`PackageRepo::load_cached`], with every recipe read through the
    /// cache of loaded recipes in `parsed_cache` (see [`parsed_cache`]): a
    /// recipe an earlier command loaded without a diagnostic is decoded
    /// instead of parsed.
    pub fn load_with_caches(
        dirs: Vec<RepoDir>,
        index_cache: Option<&Path>,
        parsed_cache: Option<&Path>,
    ) -> PackageRepo {
        let mut repo = PackageRepo {
            dirs,
            parsed_cache: parsed_cache.map(ParsedCache::new),
            ..PackageRepo::default()
        };
        for dir in &repo.dirs {
            let cache_file = index_cache
                .filter(|_| dir.origin == RepoOrigin::BuiltIn)
                .map(|c| index::cache_file(c, &dir.path));
            let layer = match dir_layer(&dir.path, cache_file, repo.parsed_cache.as_ref()) {
                Ok(layer) => layer,
                Err(e) => {
                    let mut d = Diagnostic::warning(
                        Code::BadPath,
                        format!(
                            "package repository {} cannot be read: {e}",
                            crate::diag::display_path(&dir.path)
                        ),
                    );
                    if let RepoOrigin::Recipe(loc) = &dir.origin {
                        d = d.at(loc, "listed here");
                    }
                    repo.problems.push(d);
                    continue;
                }
            };
            if layer.names.is_empty() && matches!(dir.origin, RepoOrigin::Flag | RepoOrigin::Env) {
                repo.problems.push(empty_repository(dir));
            }
            repo.layers.push(layer);
        }
        repo
    }

    /// The first recipe file named `name` in the layers from `from` on.
    fn find_from(&self, from: usize, name: &str) -> Option<At> {
        self.layers
            .iter()
            .enumerate()
            .skip(from)
            .find_map(|(layer, l)| l.names.find(name).map(|pos| At { layer, pos }))
    }

    /// The file defining package `name`: the first one.
    fn top(&self, name: &str) -> Option<At> {
        self.find_from(0, name)
    }

    fn name(&self, at: At) -> &str {
        self.layers[at.layer].names.get(at.pos)
    }

    fn entry(&self, at: At) -> &Entry {
        self.layers[at.layer].entry(at.pos)
    }

    /// For an overlay: the same-named recipe of the next repository.
    fn base(&self, at: At) -> Option<At> {
        if !self.layers[at.layer].is_overlay(at.pos) {
            return None;
        }
        self.find_from(at.layer + 1, self.name(at))
    }

    /// The file that says which virtuals `at` provides, and whose recipe
    /// the cross-package checks concern: an overlay's base, followed
    /// through overlays (overlays cannot change `provides`).
    fn whole(&self, mut at: At) -> At {
        while let Some(b) = self.base(at) {
            at = b;
        }
        at
    }

    /// The recipe file `at`, parsed (an overlay applied to its base).
    fn parsed(&self, at: At) -> &Parsed {
        let layer = &self.layers[at.layer];
        if layer.is_overlay(at.pos) {
            let entry = layer.entry(at.pos);
            return entry.parsed.get_or_init(|| {
                tracing::trace!("parsing {}", entry.file.display());
                self.parse_overlay(at)
            });
        }
        layer
            .entry(at.pos)
            .parse_whole(&layer.dir, self.parsed_cache.as_ref(), |recipe| {
                self.check_index(at, recipe)
            })
    }

    /// The overlay `at` applied to its base.
    fn parse_overlay(&self, at: At) -> Parsed {
        let entry = self.entry(at);
        let mut diagnostics = Diagnostics::new();
        let (Some(base), Ok(src)) = (self.base(at), entry.source()) else {
            diagnostics.push(
                Diagnostic::error(
                    Code::UnknownPackage,
                    format!(
                        "overlay {} has nothing to extend: no repository searched after it has `{}`",
                        crate::diag::display_path(&entry.file),
                        entry.file.file_name().unwrap_or_default().to_string_lossy()
                    ),
                )
                .with_help("an overlay (`overlay: true`) amends the same-named recipe of a later repository; `stack -v …` lists the repositories in order"),
            );
            return Parsed {
                recipe: None,
                diagnostics,
            };
        };
        let b = self.parsed(base);
        diagnostics.extend(b.diagnostics.clone());
        let recipe = b
            .recipe
            .as_ref()
            .map(|r| Arc::new(overlay::apply_overlay(src, r, &mut diagnostics)));
        Parsed {
            recipe,
            diagnostics,
        }
    }

    /// A recipe of a repository with a cached index, read: when it no
    /// longer is what the index says (edited in place), the index is
    /// deleted, so that the next command builds it again.
    fn check_index(&self, at: At, recipe: Option<&PackageRecipe>) {
        let layer = &self.layers[at.layer];
        let Some(LayerIndex {
            index,
            cache_file: Some(cache_file),
        }) = &layer.index
        else {
            return;
        };
        let name = layer.names.get(at.pos);
        let now: std::collections::BTreeSet<&str> = recipe
            .iter()
            .flat_map(|r| r.provides.iter().map(|p| p.name.as_str()))
            .collect();
        let indexed: std::collections::BTreeSet<&str> = index
            .provides
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let entry = layer.entry(at.pos);
        if now != indexed || entry.is_overlay() {
            tracing::warn!(
                "{} changed since the repository was indexed: the index {} is built again by the next command",
                entry.file.display(),
                cache_file.display()
            );
            let _ = std::fs::remove_file(cache_file);
        }
    }

    /// Parse the recipe files `ats` not parsed yet, on as many threads as
    /// there are cores.
    fn parse_parallel(&self, ats: impl IntoIterator<Item = At>) {
        let todo: Vec<At> = ats
            .into_iter()
            .filter(|&at| {
                let made = self.layers[at.layer].made(at.pos);
                made.is_none_or(|e| e.parsed.get().is_none())
            })
            .collect();
        in_parallel(&todo, |&at| {
            self.parsed(at);
        });
    }

    /// Parse every recipe now, in parallel (for commands that need them
    /// all; [`PackageRepo::packages`] does this).
    pub fn parse_all(&self) {
        self.parse_parallel(self.names().filter_map(|n| self.top(n)));
    }

    /// Parse the recipes of `names` now, in parallel (names without a
    /// recipe are ignored): for walks that know the next packages they
    /// will ask for.
    pub fn prefetch<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        self.parse_parallel(names.into_iter().filter_map(|n| self.top(n)));
    }

    /// The repository directories, in search order.
    pub fn dirs(&self) -> &[RepoDir] {
        &self.dirs
    }

    /// The recipe of package `name` (a recipe with errors is still returned
    /// when it could be read; see [`PackageRepo::diagnostics`]).
    pub fn get(&self, name: &str) -> Option<&Arc<PackageRecipe>> {
        self.parsed(self.top(name)?).recipe.as_ref()
    }

    /// Whether a recipe file for `name` exists (even if it does not parse).
    pub fn contains(&self, name: &str) -> bool {
        self.top(name).is_some()
    }

    /// The file defining `name`.
    pub fn file(&self, name: &str) -> Option<&Path> {
        Some(self.entry(self.top(name)?).file.as_path())
    }

    /// All package names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> = self.layers.iter().flat_map(|l| l.names.iter()).collect();
        if self.layers.len() > 1 {
            names.sort_unstable();
            names.dedup();
        }
        names.into_iter()
    }

    /// All readable recipes, sorted by name (parses every recipe).
    pub fn packages(&self) -> impl Iterator<Item = &Arc<PackageRecipe>> {
        self.parse_all();
        self.names()
            .filter_map(|n| self.parsed(self.top(n)?).recipe.as_ref())
    }

    pub fn len(&self) -> usize {
        self.names().count()
    }

    pub fn is_empty(&self) -> bool {
        self.layers.iter().all(|l| l.names.is_empty())
    }

    /// Whether `name` is a package or a virtual.
    pub fn knows(&self, name: &str) -> bool {
        self.contains(name) || self.is_virtual(name)
    }

    /// The known package or virtual name closest to `name`.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        let s = self.suggestions.get_or_init(|| Suggestions {
            candidates: self
                .names()
                .chain(self.virtual_names())
                .map(str::to_string)
                .collect(),
            answers: Default::default(),
        });
        let known = s.answers.lock().ok().and_then(|a| a.get(name).copied());
        let at = known.unwrap_or_else(|| {
            let found = nearest(name, s.candidates.iter().map(String::as_str));
            // The candidates are distinct except where a virtual is also a
            // package: the first one is the one `nearest` keeps.
            let at = found.and_then(|f| s.candidates.iter().position(|c| c == f));
            if let Ok(mut a) = s.answers.lock() {
                a.insert(name.to_string(), at);
            }
            at
        });
        at.map(|i| s.candidates[i].as_str())
    }

    /// The overlay files applied to `name`'s recipe, first-searched first
    /// (empty when its recipe is not an overlay).
    pub fn overlays(&self, name: &str) -> Vec<&Path> {
        let mut out = Vec::new();
        let mut at = self.top(name);
        while let Some(a) = at.filter(|a| self.layers[a.layer].is_overlay(a.pos)) {
            out.push(self.entry(a).file.as_path());
            at = self.base(a);
        }
        out
    }

    /// Recipes in later repositories hidden by `name`'s recipe (and the
    /// overlays applied to it).
    pub fn shadowed(&self, name: &str) -> Vec<&Path> {
        let Some(top) = self.top(name) else {
            return Vec::new();
        };
        let last = self.whole(top);
        if self.layers[last.layer].is_overlay(last.pos) {
            // an overlay without a base: no later repository has `name`
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut next = self.find_from(last.layer + 1, name);
        while let Some(at) = next {
            out.push(self.entry(at).file.as_path());
            next = self.find_from(at.layer + 1, name);
        }
        out
    }

    /// Problems with the repositories themselves (unreadable directories).
    pub fn problems(&self) -> &Diagnostics {
        &self.problems
    }

    /// The diagnostics from reading `name`'s file (syntax, types, own
    /// consistency), without the cross-package checks.
    pub fn diagnostics(&self, name: &str) -> Option<&Diagnostics> {
        Some(&self.parsed(self.top(name)?).diagnostics)
    }

    /// All diagnostics for package `name`: reading its file, plus checks
    /// against other packages (dependencies and `^dep` constraints name
    /// known packages, their variants exist and accept the values).
    pub fn check(&self, name: &str) -> Diagnostics {
        let Some(top) = self.top(name) else {
            return Diagnostics::new();
        };
        let parsed = self.parsed(top);
        let mut diags = parsed.diagnostics.clone();
        // An overlay's cross-package checks concern its base's file.
        let base = self.whole(top);
        let repo_dir = &self.layers[base.layer].dir;
        if let (Some(recipe), Ok(source)) = (&parsed.recipe, self.entry(base).source()) {
            // Spack recipes translated on the fly: in `fallback_repos:`, or
            // not reviewed (a stackinator recipe's `repo/`, site repositories).
            let lenient = self
                .dirs
                .iter()
                .any(|d| *d.path == **repo_dir && matches!(d.origin, RepoOrigin::Fallback(_)))
                || recipe
                    .imported
                    .as_ref()
                    .is_some_and(|i| i.from == "spack" && !i.reviewed);
            validate::check_against_repo(recipe, source, self, lenient, &mut diags);
        }
        diags
    }

    /// Whether the text of `name`'s recipe file has been read (tests of
    /// what loading reads).
    #[cfg(test)]
    fn was_read(&self, name: &str) -> bool {
        let at = self.top(name).expect("a recipe");
        self.layers[at.layer]
            .made(at.pos)
            .is_some_and(|e| e.source.get().is_some())
    }

    /// How many recipe entries have been made (every recipe of a
    /// repository read at load, those asked for of an indexed one).
    #[cfg(test)]
    fn made_entries(&self) -> usize {
        self.layers
            .iter()
            .map(|l| (0..l.names.len()).filter(|&i| l.made(i).is_some()).count())
            .sum()
    }

    /// Whether `name`'s recipe has been parsed.
    #[cfg(test)]
    fn was_parsed(&self, name: &str) -> bool {
        let at = self.top(name).expect("a recipe");
        self.layers[at.layer]
            .made(at.pos)
            .is_some_and(|e| e.parsed.get().is_some())
    }
}

/// Call `work` on each of `items`, on as many threads as there are cores
/// (scoped threads that take items off a shared counter: no pool to
/// start, nothing spinning once the work is done).
fn in_parallel<T: Sync>(items: &[T], work: impl Fn(&T) + Sync) {
    // Asked once: each answer reads three cgroup files.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from));
    let threads = cores.min(items.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || {
        while let Some(item) = items.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
            work(item);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(run);
        }
        run();
    });
}

#[cfg(test)]
mod tests;
