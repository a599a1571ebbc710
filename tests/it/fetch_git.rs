//! git sources from real repositories created by the tests: tags (annotated and lightweight),
//! branches pinned to commits, commits, submodules, the bare-repo cache, and mirrors.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::harness::fetch::*;
use stack::fetch::{
    FetchError, FetchOptions, Fetched, GitRef, NoopReporter, Origin, Source, SourceRequest,
    Verification, fetch_all, mirror, resolve_git_ref, stage,
};

struct Upstream {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    repo: PathBuf,
    /// First commit (tag v1, lightweight tag `light`).
    c1: String,
    /// Second commit (tip of `main`).
    c2: String,
}

fn upstream() -> Upstream {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let repo = root.join("up");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("run.sh"), "#!/bin/sh\necho run\n").unwrap();
    std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("README", repo.join("link")).unwrap();
    let c1 = commit(&repo, &[("README", "v1\n"), ("src/a.c", "int a;\n")], "one");
    git(&repo, &["tag", "-a", "v1", "-m", "release 1"]);
    git(&repo, &["tag", "light"]);
    let c2 = commit(&repo, &[("README", "v2\n")], "two");
    Upstream {
        _tmp: tmp,
        root,
        repo,
        c1,
        c2,
    }
}

fn fetch_one(req: SourceRequest, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    fetch_all(&[req], opts, &NoopReporter).map(|mut v| v.pop().unwrap())
}

fn stage_into(f: &Fetched, dir: &Path) -> PathBuf {
    stage(f, dir).unwrap();
    dir.to_path_buf()
}

fn check_v1_tree(dir: &Path) {
    assert_eq!(std::fs::read_to_string(dir.join("README")).unwrap(), "v1\n");
    assert_eq!(
        std::fs::read_to_string(dir.join("src/a.c")).unwrap(),
        "int a;\n"
    );
    let mode = std::fs::metadata(dir.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable bit from git");
    assert_eq!(
        std::fs::read_link(dir.join("link")).unwrap(),
        Path::new("README")
    );
    assert!(!dir.join(".git").exists());
}

#[test]
fn resolve_tags_branches_and_commits() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let url = up.repo.to_str().unwrap();
    assert_eq!(
        resolve_git_ref(url, &GitRef::Tag("v1".into()), &opts).unwrap(),
        up.c1
    );
    assert_eq!(
        resolve_git_ref(url, &GitRef::Tag("light".into()), &opts).unwrap(),
        up.c1
    );
    assert_eq!(
        resolve_git_ref(url, &GitRef::Branch("main".into()), &opts).unwrap(),
        up.c2
    );
    assert_eq!(
        resolve_git_ref(url, &GitRef::Commit(up.c1[..10].into()), &opts).unwrap(),
        up.c1
    );
    // The branch moves on: resolving again sees the new tip.
    let c3 = commit(&up.repo, &[("README", "v3\n")], "three");
    assert_eq!(
        resolve_git_ref(url, &GitRef::Branch("main".into()), &opts).unwrap(),
        c3
    );
    // file:// URLs work too.
    let file_url = format!("file://{url}");
    assert_eq!(
        resolve_git_ref(&file_url, &GitRef::Tag("v1".into()), &opts).unwrap(),
        up.c1
    );

    let err = resolve_git_ref(url, &GitRef::Tag("v9".into()), &opts).unwrap_err();
    assert!(matches!(err, FetchError::GitRefNotFound { .. }), "{err}");
    assert!(err.to_string().contains("git ls-remote --tags"), "{err}");
}

#[test]
fn tag_pinned_to_its_commit_is_fetched_staged_and_cached() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let url = up.repo.to_str().unwrap().to_string();
    let req = git_req(&url, GitRef::Tag("v1".into()), Some(&up.c1));
    let f = fetch_one(req.clone(), &opts).unwrap();
    assert_eq!(f.commit(), Some(up.c1.as_str()));
    assert_eq!(f.verification, Verification::PinnedCommit);
    assert_eq!(f.origin, Origin::Upstream(url.clone()));
    check_v1_tree(&stage_into(&f, &up.root.join("s1")));

    // The cache serves it without the upstream repository.
    std::fs::rename(&up.repo, up.root.join("gone")).unwrap();
    let again = fetch_one(req, &opts).unwrap();
    assert_eq!(again.origin, Origin::Cache);
    check_v1_tree(&stage_into(&again, &up.root.join("s2")));
}

#[test]
fn tag_that_disagrees_with_its_pin_is_refused() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let req = git_req(
        up.repo.to_str().unwrap(),
        GitRef::Tag("v1".into()),
        Some(&up.c2),
    );
    let err = fetch_one(req, &opts).unwrap_err();
    let FetchError::GitCommitMismatch {
        expected, actual, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((expected, actual), (&up.c2, &up.c1));
}

#[test]
fn branch_pinned_to_an_older_commit_checks_out_the_pin() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let req = git_req(
        up.repo.to_str().unwrap(),
        GitRef::Branch("main".into()),
        Some(&up.c1),
    );
    let f = fetch_one(req, &opts).unwrap();
    assert_eq!(f.commit(), Some(up.c1.as_str()));
    assert_eq!(f.verification, Verification::PinnedCommit);
    check_v1_tree(&stage_into(&f, &up.root.join("s")));
}

#[test]
fn commit_references() {
    let up = upstream();
    let mut opts = options(&up.root.join("cache"));
    let url = up.repo.to_str().unwrap();
    // A full commit is its own pin.
    let f = fetch_one(git_req(url, GitRef::Commit(up.c2.clone()), None), &opts).unwrap();
    assert_eq!(f.commit(), Some(up.c2.as_str()));
    assert!(f.is_verified());
    let dir = stage_into(&f, &up.root.join("s"));
    assert_eq!(std::fs::read_to_string(dir.join("README")).unwrap(), "v2\n");

    // A short commit is not a pin.
    let short = git_req(url, GitRef::Commit(up.c1[..8].into()), None);
    let err = fetch_one(short.clone(), &opts).unwrap_err();
    assert!(matches!(err, FetchError::UnpinnedGit { .. }), "{err}");
    opts.allow_unverified = true;
    let f = fetch_one(short, &opts).unwrap();
    assert_eq!(f.commit(), Some(up.c1.as_str()));
    assert_eq!(f.verification, Verification::Unverified);
}

#[test]
fn unpinned_branch_is_refused_unless_allowed() {
    let up = upstream();
    let mut opts = options(&up.root.join("cache"));
    let req = git_req(
        up.repo.to_str().unwrap(),
        GitRef::Branch("main".into()),
        None,
    );
    let err = fetch_one(req.clone(), &opts).unwrap_err();
    assert!(err.to_string().contains("not pinned to a commit"), "{err}");
    opts.allow_unverified = true;
    let f = fetch_one(req, &opts).unwrap();
    assert_eq!(f.commit(), Some(up.c2.as_str()));
    assert!(!f.is_verified());
}

#[test]
fn pin_missing_upstream_is_reported() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let bogus = "0123456789abcdef0123456789abcdef01234567";
    let req = git_req(
        up.repo.to_str().unwrap(),
        GitRef::Branch("main".into()),
        Some(bogus),
    );
    let err = fetch_one(req, &opts).unwrap_err();
    assert!(matches!(err, FetchError::GitRefNotFound { .. }), "{err}");
    assert!(err.to_string().contains(bogus), "{err}");
}

fn with_submodule() -> (Upstream, PathBuf, String) {
    let up = upstream();
    let sub = up.root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    git(&sub, &["init", "-q"]);
    commit(&sub, &[("lib.c", "int lib;\n")], "lib");
    let main = up.root.join("withsub");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q"]);
    commit(&main, &[("main.c", "int main;\n")], "main");
    // A relative URL, resolved against the superproject's URL.
    git(&main, &["submodule", "add", "-q", "../sub", "ext/sub"]);
    git(&main, &["commit", "-q", "-m", "add submodule"]);
    let head = git(&main, &["rev-parse", "HEAD"]);
    (up, main, head)
}

#[test]
fn submodules_are_fetched_and_checked_out_when_asked() {
    let (up, main, head) = with_submodule();
    let opts = options(&up.root.join("cache"));
    let mut req = git_req(main.to_str().unwrap(), GitRef::Commit(head.clone()), None);
    let f = fetch_one(req.clone(), &opts).unwrap();
    let dir = stage_into(&f, &up.root.join("plain"));
    assert!(dir.join("ext/sub").is_dir());
    assert_eq!(std::fs::read_dir(dir.join("ext/sub")).unwrap().count(), 0);

    if let Source::Git { submodules, .. } = &mut req.source {
        *submodules = true;
    }
    let f = fetch_one(req, &opts).unwrap();
    let stack::fetch::FetchedContent::Git { submodules, .. } = &f.content else {
        panic!()
    };
    assert_eq!(submodules.len(), 1);
    assert_eq!(submodules[0].path, "ext/sub");
    assert_eq!(submodules[0].url, up.root.join("sub").to_str().unwrap());
    let dir = stage_into(&f, &up.root.join("full"));
    assert_eq!(
        std::fs::read_to_string(dir.join("ext/sub/lib.c")).unwrap(),
        "int lib;\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("main.c")).unwrap(),
        "int main;\n"
    );
}

#[test]
fn mirror_tarballs_are_reproducible_and_serve_air_gapped_fetches() {
    let (up, main, head) = with_submodule();
    let url = main.to_str().unwrap().to_string();
    let mut req = git_req(&url, GitRef::Tag("none".into()), Some(&head));
    req.source = Source::Git {
        url: url.clone(),
        reference: GitRef::Branch("main".into()),
        commit: Some(head.clone()),
        submodules: true,
    };
    let m1 = up.root.join("mirror1");
    let m2 = up.root.join("mirror2");
    let r1 = mirror::create(
        std::slice::from_ref(&req),
        &m1,
        &options(&up.root.join("c1")),
        &NoopReporter,
    )
    .unwrap();
    let r2 = mirror::create(
        std::slice::from_ref(&req),
        &m2,
        &options(&up.root.join("c2")),
        &NoopReporter,
    )
    .unwrap();
    let e1 = &r1.entries[0];
    assert_eq!(e1.commit.as_deref(), Some(head.as_str()));
    assert_eq!(
        e1.sha256, r2.entries[0].sha256,
        "same commit, same tarball bytes"
    );
    let rel = mirror::git_path(&url, &head);
    assert!(rel.starts_with("_source-cache/git/") && rel.ends_with(&format!("{head}.tar.gz")));
    assert_eq!(e1.path, m1.join(&rel));
    assert_eq!(
        std::fs::read(m1.join("gitpkg/gitpkg-1.0.tar.gz")).unwrap(),
        std::fs::read(&e1.path).unwrap()
    );

    // Air-gapped: upstream gone, fresh cache, the mirror as file:// URL.
    std::fs::rename(&main, up.root.join("withsub-gone")).unwrap();
    let mut opts = options(&up.root.join("c3"));
    opts.mirrors = vec![format!("file://{}", m1.display())];
    let f = fetch_one(req.clone(), &opts).unwrap();
    assert!(matches!(f.origin, Origin::Mirror(_)), "{:?}", f.origin);
    assert_eq!(
        f.verification,
        Verification::MirrorTarball {
            commit: head.clone()
        }
    );
    assert_eq!(f.commit(), Some(head.as_str()));
    let dir = stage_into(&f, &up.root.join("s"));
    assert_eq!(
        std::fs::read_to_string(dir.join("main.c")).unwrap(),
        "int main;\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ext/sub/lib.c")).unwrap(),
        "int lib;\n"
    );

    // Next time the cache has it, even without the mirror.
    std::fs::rename(&m1, up.root.join("mirror1-gone")).unwrap();
    let again = fetch_one(req, &opts).unwrap();
    assert_eq!(again.origin, Origin::Cache);
    assert_eq!(again.content, f.content);
}

#[test]
fn two_threads_fetch_one_repository() {
    let up = upstream();
    let opts = options(&up.root.join("cache"));
    let req = git_req(
        up.repo.to_str().unwrap(),
        GitRef::Tag("v1".into()),
        Some(&up.c1),
    );
    std::thread::scope(|s| {
        let a = s.spawn(|| fetch_one(req.clone(), &opts));
        let b = s.spawn(|| fetch_one(req.clone(), &opts));
        let (a, b) = (a.join().unwrap().unwrap(), b.join().unwrap().unwrap());
        assert_eq!(a.content, b.content);
    });
}

#[test]
fn no_empty_cache_repository_for_mirror_served_or_failed_urls() {
    let up = upstream();
    let url = up.repo.to_str().unwrap().to_string();
    let req = git_req(&url, GitRef::Tag("v1".into()), Some(&up.c1));
    let m = up.root.join("mirror");
    mirror::create(
        std::slice::from_ref(&req),
        &m,
        &options(&up.root.join("c1")),
        &NoopReporter,
    )
    .unwrap();

    // Served from the mirror: the cache holds the tarball, and no repository for the URL.
    let mut opts = options(&up.root.join("c2"));
    opts.mirrors = vec![m.display().to_string()];
    let f = fetch_one(req, &opts).unwrap();
    assert!(matches!(f.origin, Origin::Mirror(_)), "{:?}", f.origin);
    let repo = opts.cache.git_repo_path(&url);
    assert!(!repo.exists(), "empty cache repository {}", repo.display());

    // A URL where nothing is: the fetch fails and leaves no repository either.
    let gone = up.root.join("nothing-here").display().to_string();
    let bad = git_req(&gone, GitRef::Branch("main".into()), Some(&up.c2));
    assert!(fetch_one(bad, &opts).is_err());
    assert!(!opts.cache.git_repo_path(&gone).exists());
    assert!(resolve_git_ref(&gone, &GitRef::Branch("main".into()), &opts).is_err());
    assert!(!opts.cache.git_repo_path(&gone).exists());
}
