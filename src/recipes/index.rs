//! Indexes of package repositories: which recipes a repository holds,
//! which of them provide virtuals (and which virtuals) and which are
//! overlays, so that loading the repository reads no recipe text and
//! finding the providers of a virtual parses only its providers.
//!
//! Without one, [`super::PackageRepo`] must read every file's text at load
//! (to see overlays) and parse every recipe whose text could declare
//! `provides` (about 2,000 of spack-packages' 8,500 translations, since
//! any escape could spell the key) the first time a virtual is met.
//!
//! Two kinds, one format (plain text):
//!
//! ```text
//! stack-repo-index 2
//! recipes 8535
//! provides mpich mpi
//! provides openblas blas lapack
//! ```
//!
//! - `<repo>/.stack-index`, in a repository that does not change once
//!   written (a Spack repository translated into the cache, which only the
//!   translation cache writes). It asserts that no recipe of the directory
//!   is an overlay, and is trusted while the directory still holds exactly
//!   `recipes` files.
//! - A cached index of a repository that people edit (the built-in one),
//!   kept outside it, in `<cache>/recipe-index/` ([`cache_file`]). It also
//!   names every recipe and the overlays, and records the directory's
//!   modification time, so that loading the repository neither lists nor
//!   reads it:
//!
//!   ```text
//!   stack-repo-index 2
//!   recipes 3
//!   dir /src/stack/recipes
//!   dir-mtime 1767225600123456789
//!   provides mpich mpi
//!   overlay zlib
//!   names
//!   mpich
//!   openblas
//!   zlib
//!   ```
//!
//!   It is trusted while the directory's modification time is the one
//!   recorded (a recipe added, removed or renamed changes it), and only
//!   when that time was at least [`SETTLED`] older than the index, since a
//!   directory changed again within the same clock tick keeps its time. A
//!   recipe edited in place does not change the directory: every recipe
//!   read is checked against the index, and a difference (it now provides
//!   other virtuals, or is an overlay) deletes the cached index, so the
//!   next command builds it again; a recipe not read that starts providing
//!   a virtual in an in-place edit is seen once the directory changes
//!   (`touch recipes/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The index's file name inside the repository directory.
pub const INDEX_FILE: &str = ".stack-index";
const HEADER: &str = "stack-repo-index 2";

/// How much older than its index a directory's modification time must be
/// for the cached index to be trusted: file times advance by clock ticks,
/// so a directory changed twice within one tick keeps its time.
pub const SETTLED: Duration = Duration::from_secs(2);

/// A repository's index: the virtuals each provider declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoIndex {
    /// Package name → the virtuals it provides (under any condition).
    pub provides: BTreeMap<String, BTreeSet<String>>,
    /// The recipes that are overlays (cached indexes only).
    pub overlays: BTreeSet<String>,
    /// Every recipe of the directory (cached indexes only; a
    /// `.stack-index` is checked against the directory's listing instead).
    pub names: Option<super::layer::Names>,
}

impl RepoIndex {
    /// Record the virtuals `recipe` provides (under any condition).
    pub fn add(&mut self, recipe: &super::PackageRecipe) {
        for p in &recipe.provides {
            self.provides
                .entry(recipe.name.clone())
                .or_default()
                .insert(p.name.clone());
        }
    }
}

/// Write `index` as the index of the repository at `dir`, which holds
/// only whole recipes (no overlay) and every one of them that provides a
/// virtual is in `index` — as the translation cache knows of the recipes
/// it has just loaded.
pub fn write(dir: &Path, index: &RepoIndex) -> std::io::Result<()> {
    let recipes = super::recipe_files(dir)?.len();
    let mut text = format!("{HEADER}\nrecipes {recipes}\n");
    for (package, virtuals) in &index.provides {
        let names: Vec<&str> = virtuals.iter().map(String::as_str).collect();
        text.push_str(&format!("provides {package} {}\n", names.join(" ")));
    }
    let tmp = dir.join(format!("{INDEX_FILE}.tmp-{}", std::process::id()));
    fs_err::write(&tmp, text)?;
    fs_err::rename(&tmp, dir.join(INDEX_FILE))
}

/// The index of the repository at `dir` whose recipe files are `files`,
/// when it has a valid one.
pub(super) fn read_index(dir: &Path, files: &[PathBuf]) -> Option<RepoIndex> {
    let text = fs_err::read_to_string(dir.join(INDEX_FILE)).ok()?;
    let parsed = parse_index(&text, files.len());
    if parsed.is_none() {
        tracing::debug!(
            "{} is stale or malformed: reading the recipes instead",
            dir.join(INDEX_FILE).display()
        );
    }
    parsed
}

fn parse_index(text: &str, recipes: usize) -> Option<RepoIndex> {
    let (count, index) = parse(text)?;
    (count == recipes && index.names.is_none() && index.overlays.is_empty()).then_some(index)
}

/// An index's text: the recipe count it states, and the index. The names
/// (after a `names` line) are kept as one text, not one string each: a
/// repository of thousands of recipes loads as fast as one of a hundred.
fn parse(text: &str) -> Option<(usize, RepoIndex)> {
    let (head, names) = match text.split_once("\nnames\n") {
        Some((head, names)) => (head, Some(names)),
        None => (text, None),
    };
    let mut lines = head.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let count: usize = lines.next()?.strip_prefix("recipes ")?.parse().ok()?;
    let mut index = RepoIndex::default();
    for line in lines {
        let (key, rest) = line.split_once(' ')?;
        match key {
            "provides" => {
                let mut words = rest.split_whitespace();
                let package = words.next()?.to_string();
                let virtuals: BTreeSet<String> = words.map(str::to_string).collect();
                if virtuals.is_empty() {
                    return None;
                }
                index.provides.insert(package, virtuals);
            }
            "overlay" => {
                index.overlays.insert(rest.to_string());
            }
            // Read by [`read_cached`].
            "dir" | "dir-mtime" => {}
            _ => return None,
        }
    }
    if let Some(names) = names {
        let names = super::layer::Names::from_lines(names)?;
        if names.len() != count {
            return None;
        }
        index.names = Some(names);
    }
    Some((count, index))
}

/// Where the cached index of the repository `dir` is kept under `cache`
/// (the directory's absolute path, hashed).
pub fn cache_file(cache: &Path, dir: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache.join(name)
}

/// The directory's modification time in nanoseconds since the epoch.
fn mtime_ns(dir: &Path) -> Option<u128> {
    let m = std::fs::metadata(dir).ok()?.modified().ok()?;
    Some(m.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_nanos())
}

/// The cached index `file` of the repository `dir`, when it is still
/// valid: the same directory, its modification time unchanged and settled
/// when the index was written (see the module documentation).
pub(super) fn read_cached(file: &Path, dir: &Path) -> Option<RepoIndex> {
    let text = fs_err::read_to_string(file).ok()?;
    let valid = || {
        let mut lines = text.lines().skip(2);
        let recorded_dir = lines.next()?.strip_prefix("dir ")?;
        let recorded: u128 = lines.next()?.strip_prefix("dir-mtime ")?.parse().ok()?;
        let written = std::fs::metadata(file).ok()?.modified().ok()?;
        let written = written.duration_since(SystemTime::UNIX_EPOCH).ok()?;
        let settled = recorded + SETTLED.as_nanos() <= written.as_nanos();
        (recorded_dir == dir.to_string_lossy() && mtime_ns(dir)? == recorded && settled)
            .then_some(())
    };
    let index = valid().and_then(|()| parse(&text)).map(|(_, i)| i);
    match &index {
        Some(i) if i.names.is_some() => index,
        _ => {
            tracing::debug!("{} is stale: reading {}", file.display(), dir.display());
            None
        }
    }
}

/// Write the cached index of the repository `dir` (its recipes `names`;
/// `dir_mtime`: the directory's modification time read before
/// listing it) to `file`, atomically.
pub(super) fn write_cached(
    file: &Path,
    dir: &Path,
    dir_mtime: u128,
    index: &RepoIndex,
    names: &[&str],
) -> std::io::Result<()> {
    let mut text = format!(
        "{HEADER}\nrecipes {}\ndir {}\ndir-mtime {dir_mtime}\n",
        names.len(),
        dir.display()
    );
    for (package, virtuals) in &index.provides {
        let names: Vec<&str> = virtuals.iter().map(String::as_str).collect();
        text.push_str(&format!("provides {package} {}\n", names.join(" ")));
    }
    for o in &index.overlays {
        text.push_str(&format!("overlay {o}\n"));
    }
    text.push_str("names\n");
    let mut names = names.to_vec();
    names.sort_unstable();
    for n in names {
        text.push_str(n);
        text.push('\n');
    }
    if let Some(parent) = file.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let tmp = file.with_extension(format!("tmp-{}", std::process::id()));
    fs_err::write(&tmp, text)?;
    fs_err::rename(&tmp, file)
}

/// The modification time of `dir` to record in its cached index, read
/// before the directory is listed.
pub(super) fn dir_mtime(dir: &Path) -> Option<u128> {
    mtime_ns(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipes::{PackageRepo, RepoDir, RepoOrigin};

    /// Build the index of the repository at `dir` (parsing the recipes that
    /// may provide) and write it to `<dir>/.stack-index`. Fails, writing
    /// nothing, when a recipe of the directory is an overlay.
    fn write_index(dir: &Path) -> std::io::Result<RepoIndex> {
        let repo = PackageRepo::load(vec![RepoDir {
            path: dir.to_path_buf(),
            origin: RepoOrigin::BuiltIn,
        }]);
        if let Some(name) = repo.names().find(|n| !repo.overlays(n).is_empty()) {
            return Err(std::io::Error::other(format!(
                "{name} is an overlay: an indexed repository holds whole recipes only"
            )));
        }
        let mut index = RepoIndex::default();
        for v in repo.virtual_names() {
            for p in repo.providers(v) {
                index
                    .provides
                    .entry(p.package.clone())
                    .or_default()
                    .insert(v.to_string());
            }
        }
        write(dir, &index)?;
        Ok(index)
    }

    fn recipe(dir: &Path, name: &str, extra: &str) {
        fs_err::write(
            dir.join(format!("{name}.yaml")),
            format!(
                "name: {name}\ndescription: d\nversions:\n  - {{version: \"1.0\", url: \"https://example.org/{name}-1.0.tar.gz\", sha256: {}}}\nbuild: {{system: autotools}}\n{extra}",
                "0".repeat(64)
            ),
        )
        .unwrap();
    }

    #[test]
    fn the_index_names_each_provider_and_its_virtuals() {
        let tmp = tempfile::tempdir().unwrap();
        recipe(tmp.path(), "mpich", "provides: [mpi]\n");
        recipe(
            tmp.path(),
            "openblas",
            "provides: [blas, {virtual: lapack, when: \"@1:\"}]\n",
        );
        recipe(tmp.path(), "zlib", "");
        let index = write_index(tmp.path()).unwrap();
        let text = fs_err::read_to_string(tmp.path().join(INDEX_FILE)).unwrap();
        assert_eq!(
            text,
            "stack-repo-index 2\nrecipes 3\nprovides mpich mpi\nprovides openblas blas lapack\n"
        );
        assert_eq!(parse_index(&text, 3), Some(index));
    }

    /// The translation cache indexes the recipes it has loaded itself
    /// (`RepoIndex::add`): the same index as loading the repository.
    #[test]
    fn an_index_of_loaded_recipes_is_the_repositorys() {
        let tmp = tempfile::tempdir().unwrap();
        recipe(tmp.path(), "mpich", "provides: [mpi]\n");
        recipe(tmp.path(), "openblas", "provides: [blas, lapack]\n");
        recipe(tmp.path(), "zlib", "");
        let mut added = RepoIndex::default();
        for f in super::super::recipe_files(tmp.path()).unwrap() {
            let (r, d) = super::super::load_package(&f, tmp.path());
            assert!(!d.has_errors(), "{d:?}");
            added.add(&r.unwrap());
        }
        write(tmp.path(), &added).unwrap();
        let text = fs_err::read_to_string(tmp.path().join(INDEX_FILE)).unwrap();
        assert_eq!(write_index(tmp.path()).unwrap(), added);
        assert_eq!(
            fs_err::read_to_string(tmp.path().join(INDEX_FILE)).unwrap(),
            text
        );
    }

    #[test]
    fn an_indexed_repository_reads_only_the_recipes_it_needs() {
        let tmp = tempfile::tempdir().unwrap();
        recipe(tmp.path(), "mpich", "provides: [mpi]\n");
        // Text that could declare `provides`: parsed without an index.
        recipe(tmp.path(), "zlib", "# provides nothing\n");
        write_index(tmp.path()).unwrap();
        let repo = PackageRepo::load(vec![RepoDir {
            path: tmp.path().to_path_buf(),
            origin: RepoOrigin::BuiltIn,
        }]);
        assert!(repo.names().all(|n| !repo.was_read(n)));
        let providers: Vec<&str> = repo
            .providers("mpi")
            .iter()
            .map(|p| p.package.as_str())
            .collect();
        assert_eq!(providers, ["mpich"]);
        assert!(!repo.was_read("zlib"));
        assert!(repo.was_parsed("mpich"));
        // A recipe added after the index: the index is stale and ignored.
        recipe(tmp.path(), "openmpi", "provides: [mpi]\n");
        let repo = PackageRepo::load(vec![RepoDir {
            path: tmp.path().to_path_buf(),
            origin: RepoOrigin::BuiltIn,
        }]);
        assert_eq!(repo.providers("mpi").len(), 2);
    }

    #[test]
    fn a_stale_or_foreign_index_is_not_trusted() {
        let good = "stack-repo-index 2\nrecipes 2\nprovides mpich mpi\n";
        assert!(parse_index(good, 2).is_some());
        assert_eq!(parse_index(good, 3), None, "a recipe was added");
        assert_eq!(parse_index("stack-repo-index 3\nrecipes 2\n", 2), None);
        assert_eq!(
            parse_index("stack-repo-index 2\nrecipes 2\nprovides mpich\n", 2),
            None
        );
        assert_eq!(
            parse_index("stack-repo-index 2\nrecipes 2\nbogus\n", 2),
            None
        );
    }

    /// Set the modification time of `dir` to `secs` seconds ago.
    fn age(dir: &Path, secs: u64) {
        let t = SystemTime::now() - Duration::from_secs(secs);
        std::fs::File::open(dir)
            .unwrap()
            .set_times(std::fs::FileTimes::new().set_modified(t))
            .unwrap();
    }

    fn builtin(dir: &Path, cache: &Path) -> PackageRepo {
        PackageRepo::load_cached(
            vec![RepoDir {
                path: dir.to_path_buf(),
                origin: RepoOrigin::BuiltIn,
            }],
            Some(cache),
        )
    }

    /// The built-in repository is indexed on first load; later loads read
    /// no recipe, and a virtual's providers are the only recipes parsed.
    #[test]
    fn the_builtin_repository_is_read_through_its_cached_index() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("recipes"), tmp.path().join("cache"));
        fs_err::create_dir_all(&dir).unwrap();
        recipe(&dir, "mpich", "provides: [mpi]\n");
        recipe(&dir, "openblas", "provides: [blas, lapack]\n");
        recipe(&dir, "zlib", "# provides nothing\n");
        age(&dir, 60);
        let first = builtin(&dir, &cache);
        assert!(first.names().all(|n| first.was_read(n)));
        let file = cache_file(&cache, &dir);
        let text = fs_err::read_to_string(&file).unwrap();
        assert!(
            text.ends_with(
                "provides mpich mpi\nprovides openblas blas lapack\nnames\nmpich\nopenblas\nzlib\n"
            ),
            "{text}"
        );
        let repo = builtin(&dir, &cache);
        assert_eq!(repo.made_entries(), 0, "loading makes no entry");
        assert!(repo.names().all(|n| !repo.was_read(n)));
        assert!(repo.is_virtual("lapack") && !repo.is_virtual("zlib"));
        assert_eq!(repo.made_entries(), 0, "nor does finding the virtuals");
        assert!(repo.names().all(|n| !repo.was_read(n)));
        let providers: Vec<&str> = repo
            .providers("mpi")
            .iter()
            .map(|p| p.package.as_str())
            .collect();
        assert_eq!(providers, ["mpich"]);
        assert!(!repo.was_read("openblas"));
        assert_eq!(repo.made_entries(), 1, "mpich's");
        assert_eq!(
            repo.names().collect::<Vec<_>>(),
            ["mpich", "openblas", "zlib"]
        );
        assert!(repo.get("zlib").is_some());
        assert!(
            file.is_file(),
            "a recipe that is what the index says keeps it"
        );
    }

    /// A recipe added (the directory changed) or a directory changed too
    /// recently to be told apart from a later change: the index is not
    /// trusted, and is written again.
    #[test]
    fn a_changed_directory_is_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("recipes"), tmp.path().join("cache"));
        fs_err::create_dir_all(&dir).unwrap();
        recipe(&dir, "mpich", "provides: [mpi]\n");
        age(&dir, 60);
        builtin(&dir, &cache);
        recipe(&dir, "openmpi", "provides: [mpi]\n");
        // Just changed: not settled, read again (and indexed again).
        let repo = builtin(&dir, &cache);
        assert!(repo.names().all(|n| repo.was_read(n)));
        assert_eq!(repo.providers("mpi").len(), 2);
        let repo = builtin(&dir, &cache);
        assert!(repo.names().all(|n| repo.was_read(n)));
        age(&dir, 30);
        builtin(&dir, &cache);
        let repo = builtin(&dir, &cache);
        assert!(repo.names().all(|n| !repo.was_read(n)));
        assert_eq!(repo.providers("mpi").len(), 2);
    }

    /// A recipe edited in place (the directory unchanged) that the index no
    /// longer describes: read, it deletes the index.
    #[test]
    fn a_recipe_that_disagrees_with_the_index_deletes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, cache) = (tmp.path().join("recipes"), tmp.path().join("cache"));
        fs_err::create_dir_all(&dir).unwrap();
        recipe(&dir, "mpich", "provides: [mpi]\n");
        recipe(&dir, "zlib", "");
        age(&dir, 60);
        builtin(&dir, &cache);
        let file = cache_file(&cache, &dir);
        assert!(file.is_file());
        recipe(&dir, "zlib", "provides: [libz]\n");
        let repo = builtin(&dir, &cache);
        assert!(repo.get("zlib").is_some());
        assert!(!file.exists());
        assert!(builtin(&dir, &cache).is_virtual("libz"));
    }

    /// An overlay in the built-in repository is indexed as one, and still
    /// amends the recipe of a repository searched after it.
    #[test]
    fn an_indexed_overlay_still_amends_its_base() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, later, hidden, cache) = (
            tmp.path().join("recipes"),
            tmp.path().join("later"),
            tmp.path().join("hidden"),
            tmp.path().join("cache"),
        );
        for d in [&dir, &later, &hidden] {
            fs_err::create_dir_all(d).unwrap();
        }
        fs_err::write(
            dir.join("zlib.yaml"),
            format!(
                "name: zlib\noverlay: true\nversions:\n  - {{version: \"2.0\", url: \"https://example.org/zlib-2.0.tar.gz\", sha256: {}}}\n",
                "1".repeat(64)
            ),
        )
        .unwrap();
        recipe(&later, "zlib", "provides: [libz]\n");
        // hidden by `later`'s (which the overlay amends)
        recipe(&hidden, "zlib", "provides: [other-libz]\n");
        age(&dir, 60);
        let load = || {
            PackageRepo::load_cached(
                vec![
                    RepoDir {
                        path: dir.clone(),
                        origin: RepoOrigin::BuiltIn,
                    },
                    RepoDir {
                        path: later.clone(),
                        origin: RepoOrigin::Flag,
                    },
                    RepoDir {
                        path: hidden.clone(),
                        origin: RepoOrigin::Flag,
                    },
                ],
                Some(&cache),
            )
        };
        load();
        let text = fs_err::read_to_string(cache_file(&cache, &dir)).unwrap();
        assert!(text.contains("overlay zlib\n"), "{text}");
        let repo = load();
        let versions: Vec<&str> = repo
            .get("zlib")
            .unwrap()
            .versions
            .iter()
            .map(|v| v.text.as_str())
            .collect();
        assert_eq!(versions, ["1.0", "2.0"]);
        assert_eq!(repo.overlays("zlib"), [dir.join("zlib.yaml")]);
        assert_eq!(repo.providers("libz").len(), 1);
        assert!(
            !repo.is_virtual("other-libz"),
            "a hidden recipe provides nothing"
        );
        assert_eq!(repo.shadowed("zlib"), [hidden.join("zlib.yaml")]);
        assert_eq!(repo.file("zlib"), Some(dir.join("zlib.yaml").as_path()));
    }

    #[test]
    fn a_directory_with_an_overlay_gets_no_index() {
        let tmp = tempfile::tempdir().unwrap();
        fs_err::write(
            tmp.path().join("zlib.yaml"),
            "name: zlib\noverlay: true\nversions: []\n",
        )
        .unwrap();
        assert!(write_index(tmp.path()).is_err());
        assert!(!tmp.path().join(INDEX_FILE).exists());
    }
}
