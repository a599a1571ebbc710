//! spack-packages at the commit a recipe pins: `config.yaml`'s
//! `spack: {packages: {commit: …}}`. Stackinator clones spack-packages at
//! that commit; stack is offline, so it reads the commit from the local
//! checkout's git history (a sha, a tag or a branch) and translates its
//! `repos/` tree, read straight from the git objects
//! ([`crate::import::git_tree`]): the cache gets a directory named by the
//! commit that holds only the commit marker, and reads below it are
//! answered from the tree (writing out its ~10,900 files first cost more
//! than the translation on a disk file system). A commit the checkout does
//! not have is a warning at the `commit:` line, and the checkout is read
//! as it is.

use std::path::{Path, PathBuf};

use super::git_refs;
use crate::diag::{Code, Diagnostic, Diagnostics, Loc, SourceFile};

/// Written into an export's directory: the commit it holds (read by
/// [`crate::import::checkout_commit`], so translated recipes name it).
pub const COMMIT_MARKER: &str = crate::import::EXPORTED_COMMIT_FILE;

/// What `config.yaml` pins: the commit-ish and where it is written.
#[derive(Clone, Debug)]
pub struct Pin {
    pub commit: String,
    pub loc: Loc,
    /// config.yaml's text, for the warning's snippet.
    pub source: Option<SourceFile>,
}

/// The spack-packages tree to translate for `pin`: `checkout` itself when
/// its HEAD is the pinned commit (or nothing is pinned, or the commit is
/// unknown there: then a warning), else `exports/<sha>/`, whose `repos/`
/// tree is read from the checkout's git objects.
pub fn tree(
    checkout: &Path,
    pin: Option<&Pin>,
    exports: &Path,
    diags: &mut Diagnostics,
) -> PathBuf {
    let Some(pin) = pin else {
        return checkout.to_path_buf();
    };
    if let Some(out) = exported_already(checkout, pin, exports, diags) {
        return out;
    }
    let repo = match git2::Repository::discover(checkout) {
        Ok(r) => r,
        Err(_) => {
            diags.push(not_found(checkout, pin, "it is not a git checkout"));
            return checkout.to_path_buf();
        }
    };
    let Some(commit) = find(&repo, &pin.commit) else {
        diags.push(not_found(
            checkout,
            pin,
            "its history has no such commit, tag or branch",
        ));
        return checkout.to_path_buf();
    };
    let head = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    if head.is_some_and(|h| h.id() == commit.id()) {
        return checkout.to_path_buf();
    }
    let sha = commit.id().to_string();
    warn_shadowed(Some((&repo, &commit)), &sha, pin, exports, diags);
    let out = exports.join(&sha);
    if out.join(COMMIT_MARKER).is_file() {
        read_from_git(&out, repo.path(), &sha);
        return out;
    }
    match export(&commit, &out) {
        Ok(()) => {
            tracing::info!(
                "spack-packages {} read from the git objects of {} as {}",
                pin.commit,
                repo.path().display(),
                out.display()
            );
            read_from_git(&out, repo.path(), &sha);
            out
        }
        Err(e) => {
            diags.push(not_found(
                checkout,
                pin,
                &format!("exporting it into {} failed: {e}", out.display()),
            ));
            checkout.to_path_buf()
        }
    }
}

/// stack's own recipes stand in for Spack's `builtin` and win over
/// spack-packages (they are reviewed builds); one warning names those
/// whose `package.py` at the pinned commit differs from the one they were
/// imported from, since the recipe was written against the pinned one.
/// Without `git` (the repository and the pinned commit) only a cached
/// answer is used: `false` when there is none (and nothing was pushed).
fn warn_shadowed(
    git: Option<(&git2::Repository, &git2::Commit)>,
    sha: &str,
    pin: &Pin,
    exports: &Path,
    diags: &mut Diagnostics,
) -> bool {
    let Some(dir) = crate::recipes::builtin_recipes() else {
        return true;
    };
    let files = crate::recipes::recipe_files(&dir).unwrap_or_default();
    // The answer depends only on the pinned commit and the recipes' bytes:
    // kept beside the exports, it spares every later command the parse of
    // each shipped recipe and the git tree walks.
    let cache = exports.join(format!("{sha}.shadowed-{}", recipes_key(&files)));
    let differ = match (fs_err::read_to_string(&cache), git) {
        (Ok(text), _) => text.lines().map(str::to_string).collect(),
        (Err(_), None) => return false,
        (Err(_), Some((repo, pinned))) => {
            let differ = differing_recipes(repo, pinned, &files, &dir);
            let text: String = differ.iter().map(|n| format!("{n}\n")).collect();
            let tmp = cache.with_extension(format!("tmp-{}", std::process::id()));
            let _ = fs_err::create_dir_all(exports)
                .and_then(|()| fs_err::write(&tmp, text))
                .and_then(|()| fs_err::rename(&tmp, &cache));
            differ
        }
    };
    if differ.is_empty() {
        return true;
    }
    let mut d = Diagnostic::warning(
        Code::Unsupported,
        format!(
            "stack's own recipes of {} package(s) differ from spack-packages `{}` and are used in its place: {}",
            differ.len(),
            pin.commit,
            differ.join(", ")
        ),
    )
    .at(&pin.loc, "pinned here")
    .with_help(format!(
        "stack's recipes (in {}) were imported from another spack-packages commit and reviewed; \
         a version, variant or constraint the recipe needs from the pinned commit is then missing \
         there: add it to stack's recipe, or put the pinned package.py into the recipe's repo/",
        dir.display()
    ));
    if let Some(src) = &pin.source {
        d.attach_source(src);
    }
    diags.push(d);
    true
}

/// The tree of a pin told without libgit2 (whose start-up reads the
/// system's CA certificates: ~240 million instructions, more than the rest
/// of a small stack's resolve): the pin (a full sha, or a tag or branch
/// [`git_refs::resolve`] finds in the refs' files) is the checkout's HEAD,
/// or an export of it was made before and the cached answer of
/// [`warn_shadowed`] settles the warning. `None`: libgit2 decides (an
/// abbreviated sha, a ref these files do not settle, no export yet).
fn exported_already(
    checkout: &Path,
    pin: &Pin,
    exports: &Path,
    diags: &mut Diagnostics,
) -> Option<PathBuf> {
    let git_dir = git_refs::git_dir(checkout)?;
    let sha = if git_refs::is_sha(&pin.commit) {
        pin.commit.to_ascii_lowercase()
    } else {
        git_refs::resolve(&git_dir, &pin.commit)?
    };
    if git_refs::head(&git_dir)? == sha {
        // libgit2 finds the same commit checked out: the checkout is read.
        return Some(checkout.to_path_buf());
    }
    // An export is named by its commit's id: a ref naming anything else
    // (a loose annotated tag names the tag object) finds none.
    let out = exports.join(&sha);
    if !out.join(COMMIT_MARKER).is_file() {
        return None;
    }
    let found = warn_shadowed(None, &sha, pin, exports, diags).then_some(out)?;
    read_from_git(&found, &git_dir, &sha);
    Some(found)
}

/// Answer the reads below the export `out` of `sha` from the git objects
/// of `git_dir` (nothing is read before the first use: a command whose
/// translations are cached reads nothing), unless it holds the files
/// themselves (an export written by an earlier version of stack).
fn read_from_git(out: &Path, git_dir: &Path, sha: &str) {
    if !out.join("repos").is_dir() {
        crate::import::git_tree::register(out, git_dir, sha);
    }
}

/// The sha256 (16 hex digits) of the recipe files' names, sizes and
/// modification times (a changed recipe changes them; reading every
/// recipe's bytes on every command would cost more than the answer).
fn recipes_key(files: &[PathBuf]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in files {
        h.update(f.file_name().unwrap_or_default().as_encoded_bytes());
        h.update([0]);
        if let Ok(m) = std::fs::metadata(f) {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            h.update(format!("{} {mtime}\n", m.len()).as_bytes());
        }
    }
    format!("{:x}", h.finalize())[..16].to_string()
}

/// The names of the recipes in `files` imported from a `package.py` that
/// differs at `pinned` from the commit they were imported from.
fn differing_recipes(
    repo: &git2::Repository,
    pinned: &git2::Commit,
    files: &[PathBuf],
    dir: &Path,
) -> Vec<String> {
    let pinned_tree = pinned.tree().ok();
    let mut commits = std::collections::HashMap::new();
    let mut dirs = TreeDirs::default();
    let mut differ = Vec::new();
    for f in files {
        let (Some(recipe), _) = crate::recipes::load_package(f, dir) else {
            continue;
        };
        let Some(imp) = &recipe.imported else {
            continue;
        };
        let (Some(file), Some(from)) = (&imp.file, &imp.commit) else {
            continue;
        };
        let theirs = commits
            .entry(from.clone())
            .or_insert_with(|| find(repo, from).and_then(|c| c.tree().ok()));
        let (a, b) = (
            dirs.blob(repo, theirs.as_ref(), file),
            dirs.blob(repo, pinned_tree.as_ref(), file),
        );
        if a.is_some() && b.is_some() && a != b {
            differ.push(recipe.name.clone());
        }
    }
    differ
}

/// The trees holding the package directories (`repos/…/packages`), kept
/// once read: libgit2 caches no tree object above 4 KiB, so each path
/// lookup through a tree of ~9,000 packages would inflate and parse it
/// again.
#[derive(Default)]
struct TreeDirs<'r> {
    trees: std::collections::HashMap<(git2::Oid, PathBuf), Option<git2::Tree<'r>>>,
}

impl<'r> TreeDirs<'r> {
    /// The blob id of `file` (`<dir>/<package>/package.py`) in `tree`.
    fn blob(
        &mut self,
        repo: &'r git2::Repository,
        tree: Option<&git2::Tree<'r>>,
        file: &str,
    ) -> Option<git2::Oid> {
        let tree = tree?;
        let path = Path::new(file);
        let parent = path
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        let rest = path.strip_prefix(parent).ok()?;
        if parent.as_os_str().is_empty() {
            return tree.get_path(rest).ok().map(|e| e.id());
        }
        let sub = self
            .trees
            .entry((tree.id(), parent.to_path_buf()))
            .or_insert_with(|| {
                tree.get_path(parent)
                    .and_then(|e| e.to_object(repo))
                    .and_then(|o| o.peel_to_tree())
                    .ok()
            });
        sub.as_ref()?.get_path(rest).ok().map(|e| e.id())
    }
}

/// `5ece166d…`, `v2026.03.0`, `releases/v2025.07` (a local or remote branch).
fn find<'r>(repo: &'r git2::Repository, spec: &str) -> Option<git2::Commit<'r>> {
    [
        spec.to_string(),
        format!("refs/tags/{spec}"),
        format!("origin/{spec}"),
        format!("refs/remotes/origin/{spec}"),
    ]
    .iter()
    .find_map(|s| repo.revparse_single(s).ok()?.peel_to_commit().ok())
}

fn not_found(checkout: &Path, pin: &Pin, why: &str) -> Diagnostic {
    let mut d = Diagnostic::warning(
        Code::BadPath,
        format!(
            "config.yaml pins spack-packages `{}`, but the checkout {} cannot give it ({why}): its working tree is read instead",
            pin.commit,
            checkout.display()
        ),
    )
    .at(&pin.loc, "pinned here")
    .with_help(format!(
        "fetch it into the checkout (`git -C {} fetch origin {}`), or point STACK_SPACK_PACKAGES at a checkout that has it",
        checkout.display(),
        pin.commit
    ));
    if let Some(src) = &pin.source {
        d.attach_source(src);
    }
    d
}

/// Make the export's directory `out` of `commit`, atomically: the commit
/// marker alone (its `repos/` tree, the package repositories, is read from
/// the git objects; the rest of spack-packages is CI and docs). A commit
/// without `repos/` is refused here.
fn export(commit: &git2::Commit, out: &Path) -> Result<(), String> {
    let tree = commit.tree().map_err(|e| e.to_string())?;
    tree.get_path(Path::new("repos"))
        .ok()
        .filter(|e| e.kind() == Some(git2::ObjectType::Tree))
        .ok_or_else(|| "the commit has no `repos/` directory".to_string())?;
    let tmp = out.with_extension(format!("tmp-{}", std::process::id()));
    let _ = fs_err::remove_dir_all(&tmp);
    fs_err::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    fs_err::write(tmp.join(COMMIT_MARKER), commit.id().to_string()).map_err(|e| e.to_string())?;
    if fs_err::rename(&tmp, out).is_err() && !out.join(COMMIT_MARKER).is_file() {
        return Err(format!("cannot move {} into place", tmp.display()));
    }
    let _ = fs_err::remove_dir_all(&tmp);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::import::git_tree::git_for_test as git;

    fn package(dir: &Path, body: &str) {
        let p = dir.join("repos/spack_repo/builtin/packages/zlib");
        fs_err::create_dir_all(&p).unwrap();
        fs_err::write(p.join("package.py"), body).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-qm", body]);
    }

    fn pin(commit: &str) -> Pin {
        Pin {
            commit: commit.into(),
            loc: Loc::file_start("config.yaml"),
            source: None,
        }
    }

    #[test]
    fn reads_the_pinned_commit_from_git_objects_and_reuses_it() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("checkout");
        fs_err::create_dir_all(&co).unwrap();
        git(&co, &["init", "-q"]);
        package(&co, "old");
        git(&co, &["tag", "v1"]);
        package(&co, "new");
        let cache = t.path().join("cache");
        let mut d = Diagnostics::new();
        let out = tree(&co, Some(&pin("v1")), &cache, &mut d);
        assert!(d.is_empty(), "{d}");
        assert_ne!(out, co);
        // The tree is read from the git objects: only the marker is written.
        let body = out.join("repos/spack_repo/builtin/packages/zlib/package.py");
        assert!(!body.exists());
        assert_eq!(crate::import::git_tree::read(&body).unwrap(), b"old");
        let names: Vec<_> = fs_err::read_dir(&out).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let sha = fs_err::read_to_string(out.join(COMMIT_MARKER)).unwrap();
        assert_eq!(crate::import::checkout_commit(&out).as_deref(), Some(&*sha));
        // Again: the export is reused; HEAD itself is read in place.
        assert_eq!(tree(&co, Some(&pin(&sha)), &cache, &mut d), out);
        assert_eq!(tree(&co, Some(&pin("HEAD")), &cache, &mut d), co);
        assert_eq!(tree(&co, None, &cache, &mut d), co);
        assert!(d.is_empty(), "{d}");
    }

    #[test]
    fn an_exported_pin_is_found_again_without_libgit2() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("checkout");
        fs_err::create_dir_all(&co).unwrap();
        git(&co, &["init", "-q"]);
        package(&co, "old");
        git(&co, &["tag", "v1"]);
        git(&co, &["tag", "-a", "-m", "annotated", "v1-annotated"]);
        package(&co, "new");
        let rev = |r: &str| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(&co)
                .args(["rev-parse", r])
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        };
        let cache = t.path().join("cache");
        let sha = rev("v1^{commit}");
        let mut d = Diagnostics::new();
        // Not exported yet: libgit2 decides.
        assert_eq!(exported_already(&co, &pin(&sha), &cache, &mut d), None);
        assert_eq!(exported_already(&co, &pin("v1"), &cache, &mut d), None);
        let out = tree(&co, Some(&pin("v1")), &cache, &mut d);
        assert_ne!(out, co);
        // Exported: the same tree, even with the git objects gone (libgit2
        // could not find the commit now), pinned by its sha or a tag.
        let objects = t.path().join("objects");
        fs_err::rename(co.join(".git/objects"), &objects).unwrap();
        for p in [sha.to_uppercase(), "v1".to_string()] {
            assert_eq!(
                exported_already(&co, &pin(&p), &cache, &mut d),
                Some(out.clone()),
                "{p}"
            );
            assert_eq!(tree(&co, Some(&pin(&p)), &cache, &mut d), out, "{p}");
        }
        // A loose annotated tag names its tag object, not the commit:
        // libgit2 peels it. Packed, its peeled commit is read.
        assert_eq!(
            exported_already(&co, &pin("v1-annotated"), &cache, &mut d),
            None
        );
        // (git needs the objects to peel the tags it packs.)
        fs_err::rename(&objects, co.join(".git/objects")).unwrap();
        git(&co, &["pack-refs", "--all"]);
        fs_err::rename(co.join(".git/objects"), &objects).unwrap();
        assert_eq!(
            exported_already(&co, &pin("v1-annotated"), &cache, &mut d),
            Some(out.clone())
        );
        assert!(d.is_empty(), "{d}");
        // The pinned commit checked out: the checkout itself is read, by
        // the files as by libgit2.
        fs_err::rename(&objects, co.join(".git/objects")).unwrap();
        git(&co, &["checkout", "-q", "v1"]);
        for p in [&*sha, "v1", "v1-annotated"] {
            assert_eq!(
                exported_already(&co, &pin(p), &cache, &mut d),
                Some(co.clone())
            );
            assert_eq!(tree(&co, Some(&pin(p)), &cache, &mut d), co);
        }
        assert!(d.is_empty(), "{d}");
    }

    fn recipe(dir: &Path, name: &str, commit: &str) -> PathBuf {
        let f = dir.join(format!("{name}.yaml"));
        let text = format!(
            "name: {name}\ndescription: d\nversions:\n  - version: \"1.0\"\n    url: \"https://example.org/{name}-1.0.tar.gz\"\n    sha256: {}\nbuild: {{system: autotools}}\nimported:\n  from: spack\n  file: repos/spack_repo/builtin/packages/{name}/package.py\n  commit: \"{commit}\"\n",
            "a".repeat(64)
        );
        fs_err::write(&f, text).unwrap();
        f
    }

    #[test]
    fn recipes_whose_package_py_changed_since_their_import_are_named() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("checkout");
        fs_err::create_dir_all(&co).unwrap();
        git(&co, &["init", "-q"]);
        let add = |name: &str, body: &str| {
            let p = co.join(format!("repos/spack_repo/builtin/packages/{name}"));
            fs_err::create_dir_all(&p).unwrap();
            fs_err::write(p.join("package.py"), body).unwrap();
        };
        add("zlib", "old");
        add("bzip2", "same");
        git(&co, &["add", "-A"]);
        git(&co, &["commit", "-qm", "first"]);
        add("zlib", "new");
        git(&co, &["add", "-A"]);
        git(&co, &["commit", "-qm", "second"]);
        let repo = git2::Repository::open(&co).unwrap();
        let first = find(&repo, "HEAD~1").unwrap().id().to_string();
        let recipes = t.path().join("recipes");
        fs_err::create_dir_all(&recipes).unwrap();
        // Both imported from the first commit; `absent` has no package.py.
        let files: Vec<PathBuf> = ["bzip2", "zlib", "absent"]
            .iter()
            .map(|n| recipe(&recipes, n, &first))
            .collect();
        let (loaded, d) = crate::recipes::load_package(&files[1], &recipes);
        assert!(loaded.is_some_and(|r| r.imported.is_some()), "{d}");
        let head = find(&repo, "HEAD").unwrap();
        assert_eq!(
            differing_recipes(&repo, &head, &files, &recipes),
            vec!["zlib".to_string()]
        );
        let first = find(&repo, "HEAD~1").unwrap();
        assert!(differing_recipes(&repo, &first, &files, &recipes).is_empty());
    }

    #[test]
    fn an_unknown_commit_is_a_warning_and_reads_the_checkout() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("checkout");
        fs_err::create_dir_all(&co).unwrap();
        git(&co, &["init", "-q"]);
        package(&co, "only");
        let mut d = Diagnostics::new();
        let out = tree(&co, Some(&pin("0123456789abcdef")), t.path(), &mut d);
        assert_eq!(out, co);
        assert!(!d.has_errors());
        let text = d.to_string();
        assert!(
            text.contains("pins spack-packages `0123456789abcdef`"),
            "{text}"
        );
        assert!(text.contains("no such commit"), "{text}");
    }
}
