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
pub mod discover;
pub mod env;
pub mod flags;
pub mod imported;
pub mod index;
mod json;
mod load;
mod load_build;
mod load_filter;
mod load_package_files;
mod load_resources;
pub mod located;
pub mod max_size;
pub mod overlay;
pub mod package;
pub mod placeholders;
pub mod read;
mod validate;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile, nearest};

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

/// One `<name>.yaml` in a repository, parsed on first use.
#[derive(Clone, Debug)]
struct Entry {
    file: PathBuf,
    /// The repository directory holding `file` (patches are found beside it).
    repo_dir: Arc<Path>,
    /// The file's text, or why it could not be read (read at load, or on
    /// first use for a recipe of an indexed repository).
    source: OnceLock<Result<SourceFile, String>>,
    /// For a recipe of an indexed repository: what the index says of it.
    indexed: Option<Indexed>,
    parsed: OnceLock<Parsed>,
    /// Same-named recipes in later repositories, hidden by this one.
    shadows: Vec<PathBuf>,
    /// `overlay: true`: this file amends `base`.
    overlay: bool,
    /// For an overlay: the same-named recipe of the next repository.
    base: Option<Box<Entry>>,
}

/// What a repository's index says of one of its recipes.
#[derive(Clone, Debug)]
struct Indexed {
    /// The virtuals it provides (under any condition).
    virtuals: Vec<String>,
    /// The cached index this comes from (deleted when the recipe read
    /// disagrees with it); `None` for a `.stack-index`.
    cache_file: Option<Arc<Path>>,
}

/// The outcome of parsing one recipe file.
#[derive(Clone, Debug)]
struct Parsed {
    recipe: Option<Arc<PackageRecipe>>,
    diagnostics: Diagnostics,
}

impl Entry {
    fn new(file: PathBuf, repo_dir: &Arc<Path>) -> Entry {
        let source = SourceFile::read(&file).map_err(|e| e.to_string());
        let overlay = source.as_ref().is_ok_and(overlay::is_overlay);
        Entry {
            file,
            repo_dir: repo_dir.clone(),
            source: OnceLock::from(source),
            indexed: None,
            parsed: OnceLock::new(),
            shadows: Vec::new(),
            overlay,
            base: None,
        }
    }

    /// A recipe of an indexed repository: its text is read on first use.
    fn indexed(file: PathBuf, repo_dir: &Arc<Path>, indexed: Indexed, overlay: bool) -> Entry {
        Entry {
            file,
            repo_dir: repo_dir.clone(),
            source: OnceLock::new(),
            indexed: Some(indexed),
            parsed: OnceLock::new(),
            shadows: Vec::new(),
            overlay,
            base: None,
        }
    }

    fn source(&self) -> &Result<SourceFile, String> {
        self.source
            .get_or_init(|| SourceFile::read(&self.file).map_err(|e| e.to_string()))
    }

    /// Where the next same-named recipe goes when this entry is an overlay
    /// (or a chain of overlays) still waiting for its base.
    fn open_base_slot(&mut self) -> Option<&mut Option<Box<Entry>>> {
        if !self.overlay {
            return None;
        }
        if self.base.is_none() {
            return Some(&mut self.base);
        }
        self.base.as_mut()?.open_base_slot()
    }

    /// The overlay applied to its base.
    fn parse_overlay(&self) -> Parsed {
        let mut diagnostics = Diagnostics::new();
        let (Some(base), Ok(src)) = (&self.base, self.source()) else {
            diagnostics.push(
                Diagnostic::error(
                    Code::UnknownPackage,
                    format!(
                        "overlay {} has nothing to extend: no repository searched after it has `{}`",
                        crate::diag::display_path(&self.file),
                        self.file.file_name().unwrap_or_default().to_string_lossy()
                    ),
                )
                .with_help("an overlay (`overlay: true`) amends the same-named recipe of a later repository; `stack -v …` lists the repositories in order"),
            );
            return Parsed {
                recipe: None,
                diagnostics,
            };
        };
        let b = base.parsed();
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

    fn parsed(&self) -> &Parsed {
        self.parsed.get_or_init(|| {
            tracing::trace!("parsing {}", self.file.display());
            if self.overlay {
                return self.parse_overlay();
            }
            let mut diagnostics = Diagnostics::new();
            let recipe = match self.source() {
                Ok(src) => parse_package(src, &self.repo_dir, &mut diagnostics).map(Arc::new),
                Err(e) => {
                    diagnostics.push(Diagnostic::error(
                        Code::Io,
                        format!("cannot read package recipe: {e}"),
                    ));
                    None
                }
            };
            self.check_index(recipe.as_deref());
            Parsed {
                recipe,
                diagnostics,
            }
        })
    }

    /// A recipe of a repository with a cached index, read: when it no
    /// longer is what the index says (edited in place), the index is
    /// deleted, so that the next command builds it again.
    fn check_index(&self, recipe: Option<&PackageRecipe>) {
        let Some(Indexed {
            virtuals,
            cache_file: Some(cache_file),
        }) = &self.indexed
        else {
            return;
        };
        let now: std::collections::BTreeSet<&str> = recipe
            .iter()
            .flat_map(|r| r.provides.iter().map(|p| p.name.as_str()))
            .collect();
        let indexed: std::collections::BTreeSet<&str> =
            virtuals.iter().map(String::as_str).collect();
        let overlay = self.source().as_ref().is_ok_and(overlay::is_overlay);
        if now != indexed || overlay {
            tracing::warn!(
                "{} changed since the repository was indexed: the index {} is built again by the next command",
                self.file.display(),
                cache_file.display()
            );
            let _ = std::fs::remove_file(cache_file);
        }
    }

    /// The entry that says which virtuals this one provides: an overlay's
    /// base (overlays cannot change `provides`).
    fn provides_entry(&self) -> &Entry {
        match &self.base {
            Some(base) => base.provides_entry(),
            None => self,
        }
    }

    /// Whether this file can declare a `provides` key: its text names it,
    /// or uses escapes that could spell it (for a recipe of an indexed
    /// repository: whether the index says it provides).
    fn may_provide(&self) -> bool {
        let e = self.provides_entry();
        if let Some(ix) = &e.indexed {
            return !ix.virtuals.is_empty();
        }
        match e.source() {
            Ok(src) => src.text().contains("provides") || src.text().contains('\\'),
            Err(_) => false,
        }
    }
}

/// A package that provides a virtual, possibly under a condition.
#[derive(Clone, Debug)]
pub struct Provider {
    pub package: String,
    /// The versions of the virtual it provides (`provides: [mpi@:3]`).
    pub versions: crate::spec::VersionConstraint,
    pub when: Option<When>,
}

/// The providers of one virtual: the packages that may provide it (by an
/// index, or by their parsed recipe), and the providers found among them
/// on first use.
#[derive(Clone, Debug, Default)]
struct VirtualEntry {
    candidates: Vec<String>,
    providers: OnceLock<Vec<Provider>>,
}

/// An ordered set of package repositories with every recipe loaded.
#[derive(Clone, Debug, Default)]
pub struct PackageRepo {
    dirs: Vec<RepoDir>,
    entries: BTreeMap<String, Entry>,
    virtuals: OnceLock<BTreeMap<String, VirtualEntry>>,
    problems: Diagnostics,
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
    /// missing or stale; see [`index`]): loading reads none of its recipes.
    pub fn load_cached(dirs: Vec<RepoDir>, index_cache: Option<&Path>) -> PackageRepo {
        let mut repo = PackageRepo {
            dirs,
            ..PackageRepo::default()
        };
        for dir in repo.dirs.clone() {
            let cache_file = index_cache
                .filter(|_| dir.origin == RepoOrigin::BuiltIn)
                .map(|c| index::cache_file(c, &dir.path));
            let entries = match dir_entries(&dir.path, cache_file) {
                Ok(entries) => entries,
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
            if entries.is_empty() && matches!(dir.origin, RepoOrigin::Flag | RepoOrigin::Env) {
                repo.problems.push(empty_repository(&dir));
            }
            for (stem, entry) in entries {
                if let Some(existing) = repo.entries.get_mut(&stem) {
                    if let Some(slot) = existing.open_base_slot() {
                        tracing::debug!("{} is the base of an overlay", entry.file.display());
                        *slot = Some(Box::new(entry));
                        continue;
                    }
                    tracing::debug!(
                        "{} is hidden by {}",
                        entry.file.display(),
                        existing.file.display()
                    );
                    existing.shadows.push(entry.file);
                    continue;
                }
                repo.entries.insert(stem, entry);
            }
        }
        repo
    }

    /// Which packages may provide which virtuals, found on first use: the
    /// providers an index names, and the recipes of the other repositories
    /// whose text can declare `provides` (parsed now, in parallel).
    fn virtuals(&self) -> &BTreeMap<String, VirtualEntry> {
        self.virtuals.get_or_init(|| {
            let mut virtuals: BTreeMap<String, VirtualEntry> = BTreeMap::new();
            let mut unindexed = Vec::new();
            for (name, entry) in &self.entries {
                match &entry.provides_entry().indexed {
                    Some(ix) => {
                        for v in &ix.virtuals {
                            virtuals
                                .entry(v.clone())
                                .or_default()
                                .candidates
                                .push(name.clone());
                        }
                    }
                    None if entry.may_provide() => unindexed.push((name, entry)),
                    None => {}
                }
            }
            parse_parallel(unindexed.iter().map(|(_, e)| *e));
            for (name, entry) in unindexed {
                for p in entry.parsed().recipe.iter().flat_map(|r| &r.provides) {
                    let c = &mut virtuals.entry(p.name.clone()).or_default().candidates;
                    if c.last() != Some(name) {
                        c.push(name.clone());
                    }
                }
            }
            for v in virtuals.values_mut() {
                v.candidates.sort_unstable();
                v.candidates.dedup();
            }
            virtuals
        })
    }

    /// The providers of virtual `name` among its candidates, parsed on
    /// first use (in parallel).
    fn virtual_providers<'a>(&'a self, name: &str, v: &'a VirtualEntry) -> &'a [Provider] {
        v.providers.get_or_init(|| {
            self.prefetch(v.candidates.iter().map(String::as_str));
            let mut out = Vec::new();
            for package in &v.candidates {
                let provides = self.get(package).into_iter().flat_map(|r| &r.provides);
                for p in provides.filter(|p| p.name == name) {
                    out.push(Provider {
                        package: package.clone(),
                        versions: p.versions.clone(),
                        when: p.when.clone(),
                    });
                }
            }
            out
        })
    }

    /// Parse every recipe now, in parallel (for commands that need them
    /// all; [`PackageRepo::packages`] does this).
    pub fn parse_all(&self) {
        parse_parallel(self.entries.values());
    }

    /// Parse the recipes of `names` now, in parallel (names without a
    /// recipe are ignored): for walks that know the next packages they
    /// will ask for.
    pub fn prefetch<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        parse_parallel(names.into_iter().filter_map(|n| self.entries.get(n)));
    }

    /// The repository directories, in search order.
    pub fn dirs(&self) -> &[RepoDir] {
        &self.dirs
    }

    /// The recipe of package `name` (a recipe with errors is still returned
    /// when it could be read; see [`PackageRepo::diagnostics`]).
    pub fn get(&self, name: &str) -> Option<&Arc<PackageRecipe>> {
        self.entries.get(name)?.parsed().recipe.as_ref()
    }

    /// Whether a recipe file for `name` exists (even if it does not parse).
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The file defining `name`.
    pub fn file(&self, name: &str) -> Option<&Path> {
        self.entries.get(name).map(|e| e.file.as_path())
    }

    /// All package names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// All readable recipes, sorted by name (parses every recipe).
    pub fn packages(&self) -> impl Iterator<Item = &Arc<PackageRecipe>> {
        self.parse_all();
        self.entries
            .values()
            .filter_map(|e| e.parsed().recipe.as_ref())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `name` is a virtual (some package provides it).
    /// (By the indexes: the providers themselves are not parsed.)
    pub fn is_virtual(&self, name: &str) -> bool {
        self.virtuals().contains_key(name)
    }

    /// The packages providing virtual `name`, sorted by package name.
    pub fn providers(&self, name: &str) -> &[Provider] {
        match self.virtuals().get(name) {
            Some(v) => self.virtual_providers(name, v),
            None => &[],
        }
    }

    /// The packages that may provide virtual `name`, sorted: those its
    /// repository's index names (not parsed: unlike
    /// [`PackageRepo::providers`], this reads no recipe of an indexed
    /// repository), and those of the other repositories whose recipe
    /// declares it.
    pub fn provider_names(&self, name: &str) -> &[String] {
        self.virtuals()
            .get(name)
            .map(|v| v.candidates.as_slice())
            .unwrap_or_default()
    }

    /// All virtual names, sorted.
    pub fn virtual_names(&self) -> impl Iterator<Item = &str> {
        self.virtuals().keys().map(String::as_str)
    }

    /// Whether `name` is a package or a virtual.
    pub fn knows(&self, name: &str) -> bool {
        self.contains(name) || self.is_virtual(name)
    }

    /// The known package or virtual name closest to `name`.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        nearest(name, self.names().chain(self.virtual_names()))
    }

    /// The overlay files applied to `name`'s recipe, first-searched first
    /// (empty when its recipe is not an overlay).
    pub fn overlays(&self, name: &str) -> Vec<&Path> {
        let mut out = Vec::new();
        let mut e = self.entries.get(name);
        while let Some(entry) = e.filter(|e| e.overlay) {
            out.push(entry.file.as_path());
            e = entry.base.as_deref();
        }
        out
    }

    /// Recipes in later repositories hidden by `name`'s recipe.
    pub fn shadowed(&self, name: &str) -> &[PathBuf] {
        self.entries
            .get(name)
            .map(|e| e.shadows.as_slice())
            .unwrap_or_default()
    }

    /// Problems with the repositories themselves (unreadable directories).
    pub fn problems(&self) -> &Diagnostics {
        &self.problems
    }

    /// The diagnostics from reading `name`'s file (syntax, types, own
    /// consistency), without the cross-package checks.
    pub fn diagnostics(&self, name: &str) -> Option<&Diagnostics> {
        self.entries.get(name).map(|e| &e.parsed().diagnostics)
    }

    /// All diagnostics for package `name`: reading its file, plus checks
    /// against other packages (dependencies and `^dep` constraints name
    /// known packages, their variants exist and accept the values).
    pub fn check(&self, name: &str) -> Diagnostics {
        let Some(entry) = self.entries.get(name) else {
            return Diagnostics::new();
        };
        let parsed = entry.parsed();
        let mut diags = parsed.diagnostics.clone();
        // An overlay's cross-package checks concern its base's file.
        let mut base = entry;
        while let Some(b) = base.base.as_deref() {
            base = b;
        }
        if let (Some(recipe), Ok(source)) = (&parsed.recipe, base.source()) {
            // Spack recipes translated on the fly: in `fallback_repos:`, or
            // not reviewed (a stackinator recipe's `repo/`, site repositories).
            let lenient =
                self.dirs.iter().any(|d| {
                    *d.path == *base.repo_dir && matches!(d.origin, RepoOrigin::Fallback(_))
                }) || recipe
                    .imported
                    .as_ref()
                    .is_some_and(|i| i.from == "spack" && !i.reviewed);
            validate::check_against_repo(recipe, source, self, lenient, &mut diags);
        }
        diags
    }
}

/// Parse the entries not parsed yet, on as many threads as there are
/// cores (scoped threads that take entries off a shared counter: no
/// pool to start, nothing spinning once the work is done).
fn parse_parallel<'a>(entries: impl IntoIterator<Item = &'a Entry>) {
    let todo: Vec<&Entry> = entries
        .into_iter()
        .filter(|e| e.parsed.get().is_none())
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(todo.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        while let Some(e) = todo.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
            e.parsed();
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
}

/// The recipes of the repository directory `dir`, by name, in name
/// order: from its cached index `cache_file` when that is valid (nothing
/// read), else listed (and with a `.stack-index`, nothing read either),
/// else read, and then indexed into `cache_file` (see [`index`]).
fn dir_entries(dir: &Path, cache_file: Option<PathBuf>) -> std::io::Result<Vec<(String, Entry)>> {
    let repo_dir: Arc<Path> = Arc::from(dir);
    let indexed = |index: &index::RepoIndex, name: &str, cache_file: Option<&Arc<Path>>| {
        let ix = Indexed {
            virtuals: index.virtuals_of(name),
            cache_file: cache_file.cloned(),
        };
        let file = dir.join(format!("{name}.yaml"));
        Entry::indexed(file, &repo_dir, ix, index.overlays.contains(name))
    };
    if let Some(cache_file) = &cache_file {
        if let Some(index) = index::read_cached(cache_file, dir) {
            let cache_file: Arc<Path> = Arc::from(cache_file.as_path());
            let names = index.names.as_deref().unwrap_or_default();
            return Ok(names
                .iter()
                .map(|n| (n.clone(), indexed(&index, n, Some(&cache_file))))
                .collect());
        }
    }
    let mtime = cache_file.as_ref().and_then(|_| index::dir_mtime(dir));
    let files = recipe_files(dir)?;
    let stem = |file: &Path| {
        file.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if let Some(index) = index::read_index(dir, &files) {
        return Ok(files
            .iter()
            .map(|f| {
                let name = stem(f);
                let e = indexed(&index, &name, None);
                (name, e)
            })
            .collect());
    }
    let entries: Vec<(String, Entry)> = files
        .into_iter()
        .map(|f| (stem(&f), Entry::new(f, &repo_dir)))
        .collect();
    if let (Some(cache_file), Some(mtime)) = (cache_file, mtime) {
        let index = index_of(&entries);
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        match index::write_cached(&cache_file, dir, mtime, &index, &names) {
            Ok(()) => tracing::debug!("{} indexed into {}", dir.display(), cache_file.display()),
            Err(e) => tracing::debug!("no index for {}: {e}", dir.display()),
        }
    }
    Ok(entries)
}

/// The index of one directory's recipes, just read: its overlays, and what
/// the others provide (the recipes whose text can declare it are parsed).
fn index_of(entries: &[(String, Entry)]) -> index::RepoIndex {
    let mut index = index::RepoIndex::default();
    let whole = || entries.iter().filter(|(_, e)| !e.overlay);
    parse_parallel(whole().filter(|(_, e)| e.may_provide()).map(|(_, e)| e));
    for (name, e) in entries {
        if e.overlay {
            index.overlays.insert(name.clone());
        } else if let Some(recipe) = e.parsed.get().and_then(|p| p.recipe.as_ref()) {
            for p in &recipe.provides {
                index
                    .provides
                    .entry(name.clone())
                    .or_default()
                    .insert(p.name.clone());
            }
        }
    }
    index
}

/// The recipe files of repository directory `dir` (`*.yaml`, symlinks
/// followed), sorted by file name: what [`PackageRepo::load`] reads.
pub fn recipe_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs_err::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        // The directory entry's type spares a stat per file; a symlink is
        // followed.
        let file = match entry.file_type() {
            Ok(t) if t.is_file() => true,
            Ok(t) if t.is_symlink() => path.is_file(),
            _ => false,
        };
        if file {
            files.push(path);
        }
    }
    // By name: the paths share `dir/`, so their bytes order as the names
    // do (comparing `file_name()`s would split each path on every
    // comparison: most of the listing's time for 8,000 recipes).
    files.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    Ok(files)
}

/// The warning for a repository named by `--repo` or `STACK_REPOS` without a
/// single recipe: usually the directory above one (`--repo site` for
/// `site/recipes/*.yaml`), which would otherwise be searched silently and
/// change nothing.
fn empty_repository(dir: &RepoDir) -> Diagnostic {
    let shown = crate::diag::display_path(&dir.path);
    let mut d = Diagnostic::warning(
        Code::BadPath,
        format!(
            "package repository {shown} ({}) holds no recipe (`<name>.yaml`)",
            dir.origin.describe()
        ),
    );
    let nested = dir.path.join("recipes");
    if nested.is_dir() {
        d = d.with_help(format!(
            "a repository is the directory of the recipe files: did you mean {}?",
            crate::diag::display_path(&nested)
        ));
    }
    d
}

#[cfg(test)]
mod tests;
