//! Reading a repository directory into a [`Layer`]: from its index when
//! it has a valid one (nothing listed or read), else listed, else read and
//! indexed; and the recipe files of a directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::layer::Layer;
use super::parsed_cache::ParsedCache;
use super::*;

/// The recipes of the repository directory `dir`: from its cached index
/// `cache_file` when that is valid (nothing listed or read), else listed
/// (and with a `.stack-index`, nothing read either), else read, and then
/// indexed into `cache_file` (see [`index`]).
pub(super) fn dir_layer(
    dir: &Path,
    cache_file: Option<PathBuf>,
    parsed_cache: Option<&ParsedCache>,
) -> std::io::Result<Layer> {
    let repo_dir: Arc<Path> = Arc::from(dir);
    if let Some(cache_file) = &cache_file {
        if let Some(mut index) = index::read_cached(cache_file, dir) {
            let names = index.names.take().unwrap_or_default();
            let cache_file = Some(Arc::from(cache_file.as_path()));
            return Ok(Layer::indexed(
                repo_dir,
                names,
                LayerIndex { index, cache_file },
            ));
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
        let names = Names::from_unsorted(files.iter().map(|f| stem(f)));
        let cache_file = None;
        return Ok(Layer::indexed(
            repo_dir,
            names,
            LayerIndex { index, cache_file },
        ));
    }
    let entries: Vec<(String, Entry)> = files
        .into_iter()
        .map(|f| (stem(&f), Entry::read(f)))
        .collect();
    let layer = Layer::read(repo_dir, entries);
    if let (Some(cache_file), Some(mtime)) = (cache_file, mtime) {
        let index = index_of(&layer, parsed_cache);
        let names: Vec<&str> = layer.names.iter().collect();
        match index::write_cached(&cache_file, dir, mtime, &index, &names) {
            Ok(()) => tracing::debug!("{} indexed into {}", dir.display(), cache_file.display()),
            Err(e) => tracing::debug!("no index for {}: {e}", dir.display()),
        }
    }
    Ok(layer)
}

/// The index of one directory's recipes, just read: its overlays, and what
/// the others provide (the recipes whose text can declare it are parsed).
pub(super) fn index_of(layer: &Layer, parsed_cache: Option<&ParsedCache>) -> index::RepoIndex {
    let mut index = index::RepoIndex::default();
    let whole: Vec<usize> = (0..layer.names.len())
        .filter(|&i| !layer.is_overlay(i))
        .collect();
    let may: Vec<usize> = whole
        .iter()
        .copied()
        .filter(|&i| layer.may_provide(i))
        .collect();
    in_parallel(&may, |&i| {
        layer.entry(i).parse_whole(&layer.dir, parsed_cache, |_| {});
    });
    for i in 0..layer.names.len() {
        let name = layer.names.get(i);
        if layer.is_overlay(i) {
            index.overlays.insert(name.to_string());
        } else if let Some(recipe) = layer.entry(i).parsed.get().and_then(|p| p.recipe.as_ref()) {
            for p in &recipe.provides {
                index
                    .provides
                    .entry(name.to_string())
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
pub(super) fn empty_repository(dir: &RepoDir) -> Diagnostic {
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
