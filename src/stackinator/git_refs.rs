//! A git repository's refs read from its files (`HEAD`, loose refs under
//! `refs/`, `packed-refs`), without libgit2: starting libgit2 reads the
//! system's CA certificates (~240 million instructions), more than the
//! rest of a small stack's resolve, and a pinned tag or branch usually
//! only needs its commit id looked up. Whatever these files do not settle
//! (an abbreviated sha, revision syntax, a worktree's `.git` file, a
//! symbolic ref chain) is `None`, and the caller asks libgit2.

use std::path::{Path, PathBuf};

/// How many symbolic refs are followed (`HEAD` → `refs/heads/main` →
/// …) before giving up.
const MAX_SYMBOLIC: usize = 5;

/// The git directory of `checkout`: `checkout/.git` when it is a
/// directory, `checkout` itself when it is a bare repository (`HEAD`,
/// `objects/` and `refs/` in it). `None` otherwise (a worktree's `.git`
/// file, a subdirectory of a checkout).
pub fn git_dir(checkout: &Path) -> Option<PathBuf> {
    let dot_git = checkout.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let bare = checkout.join("HEAD").is_file()
        && checkout.join("objects").is_dir()
        && checkout.join("refs").is_dir();
    bare.then(|| checkout.to_path_buf())
}

/// The object `HEAD` names (a detached HEAD or the branch it is on).
pub fn head(git_dir: &Path) -> Option<String> {
    let packed = Packed::read(git_dir);
    reference(git_dir, &packed, "HEAD").map(|r| r.target)
}

/// The commit-ish `spec` names as `git rev-parse` finds a ref (`v1.0`:
/// `refs/tags/v1.0` before `refs/heads/v1.0` before
/// `refs/remotes/v1.0`), then as a branch of `origin`
/// (`releases/v1` → `refs/remotes/origin/releases/v1`): the object the
/// ref points at, peeled through an annotated tag when `packed-refs`
/// records the peeled commit. The caller must check that the id is a
/// commit it knows (a loose annotated tag names the tag object).
/// `None`: no such ref, or a spec these files cannot settle.
pub fn resolve(git_dir: &Path, spec: &str) -> Option<String> {
    if !plain_ref_name(spec) {
        return None;
    }
    let packed = Packed::read(git_dir);
    let found = dwim(git_dir, &packed, spec);
    if found.is_none() && (spec.bytes().all(|b| b.is_ascii_hexdigit()) || spec.contains("-g")) {
        // libgit2 would look for an abbreviated sha or a `describe`
        // output (`v1.0-3-gabc123`) before the `origin/` branches.
        return None;
    }
    let r = found
        .or_else(|| reference(git_dir, &packed, &format!("refs/tags/{spec}")))
        .or_else(|| dwim(git_dir, &packed, &format!("origin/{spec}")))?;
    Some(r.peeled.unwrap_or(r.target))
}

/// A ref's object, and the commit an annotated tag peels to when
/// `packed-refs` says.
struct Ref {
    target: String,
    peeled: Option<String>,
}

/// The first ref of `name`'s rev-parse expansions that exists.
fn dwim(git_dir: &Path, packed: &Packed, name: &str) -> Option<Ref> {
    // The name as it is; a one-level name is a ref only in capitals
    // (`HEAD`, `FETCH_HEAD`).
    let top = name.contains('/') || name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
    let candidates = [
        top.then(|| name.to_string()),
        Some(format!("refs/{name}")),
        Some(format!("refs/tags/{name}")),
        Some(format!("refs/heads/{name}")),
        Some(format!("refs/remotes/{name}")),
        Some(format!("refs/remotes/{name}/HEAD")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|c| reference(git_dir, packed, &c))
}

/// The ref `name`: its loose file, else its `packed-refs` line, symbolic
/// refs followed.
fn reference(git_dir: &Path, packed: &Packed, name: &str) -> Option<Ref> {
    let mut name = name.to_string();
    for _ in 0..MAX_SYMBOLIC {
        let loose = git_dir.join(&name);
        let text = if loose.is_file() {
            fs_err::read_to_string(&loose).ok()?
        } else {
            return packed.find(&name);
        };
        let text = text.trim();
        match text.strip_prefix("ref: ") {
            Some(target) => name = target.trim().to_string(),
            None => {
                return is_sha(text).then(|| Ref {
                    target: text.to_ascii_lowercase(),
                    peeled: None,
                });
            }
        }
    }
    None
}

/// `packed-refs`: `<sha> <name>` lines, each optionally followed by
/// `^<sha>`, the commit an annotated tag peels to.
struct Packed(String);

impl Packed {
    fn read(git_dir: &Path) -> Packed {
        Packed(fs_err::read_to_string(git_dir.join("packed-refs")).unwrap_or_default())
    }

    fn find(&self, name: &str) -> Option<Ref> {
        let mut lines = self.0.lines();
        while let Some(line) = lines.next() {
            let Some((sha, n)) = line.split_once(' ') else {
                continue;
            };
            if n.trim_end() != name || !is_sha(sha) {
                continue;
            }
            let peeled = lines
                .next()
                .and_then(|l| l.strip_prefix('^'))
                .map(str::trim)
                .filter(|p| is_sha(p))
                .map(str::to_ascii_lowercase);
            return Some(Ref {
                target: sha.to_ascii_lowercase(),
                peeled,
            });
        }
        None
    }
}

/// A full sha-1 in hex.
pub fn is_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A name these files can settle: the characters of branch and tag names
/// (no revision syntax such as `^`, `~`, `@{` or `:`), no empty, `.` or
/// `..` component, not ending in `.lock`.
fn plain_ref_name(spec: &str) -> bool {
    let chars = spec
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/' | b'+'));
    chars
        && !spec.ends_with(".lock")
        && !spec.starts_with('-')
        && spec
            .split('/')
            .all(|c| !c.is_empty() && !c.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::import::git_tree::git_for_test as git;

    fn commit(dir: &Path, msg: &str) -> String {
        fs_err::write(dir.join("f"), msg).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-qm", msg]);
        git(dir, &["rev-parse", "HEAD"])
    }

    /// A repository with a lightweight tag, an annotated tag, a branch and
    /// a remote branch with a slash, a tag and a branch of the same name.
    fn repo(dir: &Path) -> [String; 3] {
        git(dir, &["init", "-q", "-b", "main"]);
        let a = commit(dir, "a");
        git(dir, &["tag", "light"]);
        git(dir, &["tag", "-a", "-m", "annotated", "heavy"]);
        git(dir, &["branch", "feature"]);
        git(dir, &["update-ref", "refs/remotes/origin/releases/v1", &a]);
        let b = commit(dir, "b");
        git(dir, &["tag", "both"]);
        let c = commit(dir, "c");
        git(dir, &["branch", "both"]);
        [a, b, c]
    }

    #[test]
    fn refs_are_read_as_git_rev_parse_reads_them_loose_and_packed() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("co");
        fs_err::create_dir_all(&co).unwrap();
        let [a, b, c] = repo(&co);
        let gd = git_dir(&co).unwrap();
        assert_eq!(gd, co.join(".git"));
        let check = |packed: bool| {
            let how = if packed { "packed" } else { "loose" };
            assert_eq!(resolve(&gd, "light").as_deref(), Some(&*a), "{how}");
            assert_eq!(resolve(&gd, "feature").as_deref(), Some(&*a), "{how}");
            assert_eq!(resolve(&gd, "releases/v1").as_deref(), Some(&*a), "{how}");
            assert_eq!(resolve(&gd, "origin/releases/v1").as_deref(), Some(&*a));
            // The tag wins over the branch of the same name, as in git.
            assert_eq!(resolve(&gd, "both"), Some(git(&co, &["rev-parse", "both"])));
            assert_eq!(resolve(&gd, "both").as_deref(), Some(&*b), "{how}");
            assert_eq!(resolve(&gd, "main").as_deref(), Some(&*c), "{how}");
            assert_eq!(resolve(&gd, "refs/heads/main").as_deref(), Some(&*c));
            assert_eq!(head(&gd).as_deref(), Some(&*c), "{how}");
            // Unknown, or not for these files to settle.
            for spec in [
                "nope",
                "main~1",
                "light^{commit}",
                "HEAD@{1}",
                &a[..8],
                "a/../b",
            ] {
                assert_eq!(resolve(&gd, spec), None, "{spec} ({how})");
            }
        };
        // Loose: an annotated tag names its tag object (the caller checks
        // that the id is a commit it exported).
        check(false);
        let heavy_tag = git(&co, &["rev-parse", "heavy"]);
        assert_ne!(heavy_tag, a);
        assert_eq!(resolve(&gd, "heavy"), Some(heavy_tag));
        // Packed (`git pack-refs` writes the peeled commit of each tag).
        git(&co, &["pack-refs", "--all"]);
        assert!(!gd.join("refs/tags/light").exists());
        check(true);
        assert_eq!(resolve(&gd, "heavy").as_deref(), Some(&*a));
        // A loose ref wins over a stale packed one.
        git(&co, &["update-ref", "refs/tags/light", &b]);
        assert_eq!(resolve(&gd, "light").as_deref(), Some(&*b));
        // A detached HEAD.
        git(&co, &["checkout", "-q", "--detach", &a]);
        assert_eq!(head(&gd).as_deref(), Some(&*a));
    }

    #[test]
    fn a_bare_repository_is_its_own_git_dir_and_a_worktree_file_is_not_read() {
        let t = tempfile::tempdir().unwrap();
        let co = t.path().join("co");
        fs_err::create_dir_all(&co).unwrap();
        let [a, _, c] = repo(&co);
        let bare = t.path().join("bare.git");
        let out = std::process::Command::new("git")
            .args(["clone", "-q", "--bare"])
            .arg(&co)
            .arg(&bare)
            .status()
            .unwrap();
        assert!(out.success());
        assert_eq!(git_dir(&bare).as_deref(), Some(bare.as_path()));
        assert_eq!(resolve(&bare, "heavy").as_deref(), Some(&*a));
        assert_eq!(resolve(&bare, "feature").as_deref(), Some(&*a));
        assert_eq!(head(&bare).as_deref(), Some(&*c));
        // A linked worktree has a `.git` file: libgit2 reads it.
        let wt = t.path().join("wt");
        git(
            &co,
            &["worktree", "add", "-q", "--detach", wt.to_str().unwrap()],
        );
        assert!(wt.join(".git").is_file());
        assert_eq!(git_dir(&wt), None);
        assert_eq!(git_dir(t.path()), None);
    }
}
