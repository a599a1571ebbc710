//! Pinned git fetches: a broken branch elsewhere upstream does not block a
//! pin whose own history is intact (the pinned ref is fetched first), and a
//! pin that is an annotated tag object's id is explained.

use std::path::Path;

use crate::harness::fetch::*;
use stack::fetch::{FetchError, GitRef, NoopReporter, Source, SourceRequest, fetch_all, stage};

fn git_req(url: &Path, reference: GitRef, commit: &str) -> SourceRequest {
    SourceRequest {
        mirror_name: None,
        package: "gitpkg".into(),
        version: "1.0".into(),
        source: Source::Git {
            url: url.to_str().unwrap().into(),
            reference,
            commit: Some(commit.into()),
            submodules: false,
        },
    }
}

/// An upstream with tag v1 (annotated) on `main`, and a branch `broken`
/// whose newest blob is missing from the object store. Returns (repo, c1).
fn upstream_with_a_broken_branch(root: &Path) -> (std::path::PathBuf, String) {
    let repo = root.join("up");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let c1 = commit(&repo, &[("README", "v1\n")], "one");
    git(&repo, &["tag", "-a", "v1", "-m", "release 1"]);
    git(&repo, &["checkout", "-q", "-b", "broken"]);
    commit(&repo, &[("big.txt", "only on the broken branch\n")], "two");
    let blob = git(&repo, &["rev-parse", "HEAD:big.txt"]);
    git(&repo, &["checkout", "-q", "main"]);
    std::fs::remove_file(repo.join(".git/objects").join(&blob[..2]).join(&blob[2..])).unwrap();
    (repo, c1)
}

#[test]
fn a_broken_unrelated_branch_does_not_block_a_pinned_tag() {
    let t = tempfile::tempdir().unwrap();
    let (repo, c1) = upstream_with_a_broken_branch(t.path());
    let opts = options(&t.path().join("cache"));
    for (i, reference) in [GitRef::Tag("v1".into()), GitRef::Branch("main".into())]
        .into_iter()
        .enumerate()
    {
        let got = fetch_all(&[git_req(&repo, reference, &c1)], &opts, &NoopReporter)
            .unwrap_or_else(|e| panic!("{e}"));
        let dir = t.path().join(format!("stage-{i}"));
        stage(&got[0], &dir).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("README")).unwrap(), "v1\n");
    }
}

#[test]
fn a_pin_that_is_a_tag_object_is_explained() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("up");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let c1 = commit(&repo, &[("README", "v1\n")], "one");
    git(&repo, &["tag", "-a", "v1", "-m", "release 1"]);
    let tag_object = git(&repo, &["rev-parse", "v1"]);
    assert_ne!(tag_object, c1);
    let opts = options(&t.path().join("cache"));
    let err = fetch_all(
        &[git_req(&repo, GitRef::Tag("v1".into()), &tag_object)],
        &opts,
        &NoopReporter,
    )
    .unwrap_err();
    let FetchError::GitPinIsTagObject { tag, commit, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!((tag.as_str(), commit.as_str()), ("v1", c1.as_str()));
    let text = err.to_string();
    assert!(
        text.contains("annotated tag object `v1`") && text.contains(&c1),
        "{text}"
    );
}
