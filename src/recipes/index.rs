//! The index of a package repository that does not change once written
//! (a Spack repository translated into the cache): which of its recipes
//! provide virtuals, so that loading the repository reads no recipe text
//! and finding the providers of a virtual parses only the providers.
//!
//! Without it, [`super::PackageRepo`] must read every file's text at load
//! (to see overlays) and parse every recipe whose text could declare
//! `provides` (about 2,000 of spack-packages' 8,500 translations, since
//! any escape could spell the key) the first time a virtual is met.
//!
//! The file is `<repo>/.stack-index`, plain text:
//!
//! ```text
//! stack-repo-index 1
//! recipes 8535
//! provides mpich mpi
//! provides openblas blas lapack
//! ```
//!
//! It is trusted only when its first line matches and the repository
//! still holds exactly `recipes` files; it asserts that no recipe of the
//! directory is an overlay. Only the translation cache writes it, into a
//! directory nothing edits afterwards.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The index's file name inside the repository directory.
pub const INDEX_FILE: &str = ".stack-index";
const HEADER: &str = "stack-repo-index 1";

/// A repository's index: the virtuals each provider declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoIndex {
    /// Package name → the virtuals it provides (under any condition).
    pub provides: BTreeMap<String, BTreeSet<String>>,
}

impl RepoIndex {
    /// Whether `package` declares any `provides`.
    pub fn provides_any(&self, package: &str) -> bool {
        self.provides.contains_key(package)
    }

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
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let count: usize = lines.next()?.strip_prefix("recipes ")?.parse().ok()?;
    if count != recipes {
        return None;
    }
    let mut index = RepoIndex::default();
    for line in lines {
        let mut words = line.strip_prefix("provides ")?.split_whitespace();
        let package = words.next()?.to_string();
        let virtuals: BTreeSet<String> = words.map(str::to_string).collect();
        if virtuals.is_empty() {
            return None;
        }
        index.provides.insert(package, virtuals);
    }
    Some(index)
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
            "stack-repo-index 1\nrecipes 3\nprovides mpich mpi\nprovides openblas blas lapack\n"
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
        assert!(repo.entries.values().all(|e| e.source.get().is_none()));
        let providers: Vec<&str> = repo
            .providers("mpi")
            .iter()
            .map(|p| p.package.as_str())
            .collect();
        assert_eq!(providers, ["mpich"]);
        assert!(repo.entries["zlib"].source.get().is_none());
        assert!(repo.entries["mpich"].parsed.get().is_some());
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
        let good = "stack-repo-index 1\nrecipes 2\nprovides mpich mpi\n";
        assert!(parse_index(good, 2).is_some());
        assert_eq!(parse_index(good, 3), None, "a recipe was added");
        assert_eq!(parse_index("stack-repo-index 2\nrecipes 2\n", 2), None);
        assert_eq!(
            parse_index("stack-repo-index 1\nrecipes 2\nprovides mpich\n", 2),
            None
        );
        assert_eq!(
            parse_index("stack-repo-index 1\nrecipes 2\nbogus\n", 2),
            None
        );
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
