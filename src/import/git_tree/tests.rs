use super::*;
use crate::import::confined::{self, Refusal};

use super::git_for_test as git;

/// A checkout whose commit has `repos/builtin/packages/zlib/` (a
/// package.py, a patch in a subdirectory, a link to a file outside the
/// checkout and a link to a directory outside it) and a `.git`.
fn checkout(t: &Path) -> (PathBuf, String) {
    let co = t.join("checkout");
    let pkg = co.join("repos/builtin/packages/zlib");
    fs_err::create_dir_all(pkg.join("sub")).unwrap();
    fs_err::write(pkg.join("package.py"), "class Zlib(Package):\n    pass\n").unwrap();
    fs_err::write(pkg.join("sub/fix.patch"), "patch").unwrap();
    fs_err::write(
        co.join("repos/builtin/repo.yaml"),
        "repo:\n  namespace: builtin\n",
    )
    .unwrap();
    let home = t.join("home");
    fs_err::create_dir_all(&home).unwrap();
    fs_err::write(home.join(".bashrc"), "secret").unwrap();
    std::os::unix::fs::symlink(home.join(".bashrc"), pkg.join("l.patch")).unwrap();
    std::os::unix::fs::symlink(&home, pkg.join("s")).unwrap();
    git(&co, &["init", "-q"]);
    git(&co, &["add", "-A"]);
    git(&co, &["commit", "-qm", "one"]);
    let sha = git(&co, &["rev-parse", "HEAD"]);
    (co, sha)
}

#[test]
fn reads_below_a_registered_root_come_from_the_commit_and_follow_no_link() {
    let t = tempfile::tempdir().unwrap();
    let (co, sha) = checkout(t.path());
    let root = t.path().join("exports").join(&sha);
    register(&root, &co.join(".git"), &sha);
    let pkgs = root.join("repos/builtin/packages");
    assert_eq!(
        confined::read_below(&pkgs, "zlib/package.py").unwrap(),
        b"class Zlib(Package):\n    pass\n"
    );
    assert_eq!(
        confined::read_below(&pkgs, "zlib/sub/fix.patch").unwrap(),
        b"patch"
    );
    // The links of the tree are refused, never followed (the target
    // exists on disk, outside the checkout).
    assert_eq!(
        confined::read_below(&pkgs, "zlib/l.patch"),
        Err(Refusal::Link)
    );
    assert_eq!(
        confined::read_below(&pkgs, "zlib/s/.bashrc"),
        Err(Refusal::Link)
    );
    assert!(!confined::is_dir_below(&pkgs, "zlib/s"));
    assert_eq!(
        confined::read_below(&pkgs, "zlib/../../x"),
        Err(Refusal::NotPlain)
    );
    assert_eq!(
        confined::read_below(&pkgs, "nope/package.py"),
        Err(Refusal::Missing)
    );
    assert_eq!(
        confined::read_below(&pkgs, "zlib/sub"),
        Err(Refusal::NotAFile)
    );
    assert_eq!(
        confined::read_below(&pkgs, "zlib/package.py/x"),
        Err(Refusal::NotAFile)
    );
    assert!(confined::is_dir_below(&pkgs, "zlib"));
    // The listing of the importer: directories, files and names.
    assert!(is_dir(&pkgs) && !is_dir(&pkgs.join("zlib/package.py")));
    assert!(is_file(&pkgs.join("zlib/package.py")) && !is_file(&pkgs.join("zlib/l.patch")));
    let mut listed = names(&pkgs.join("zlib")).unwrap();
    listed.sort();
    assert_eq!(listed, ["l.patch", "package.py", "s", "sub"]);
    assert_eq!(
        read(&root.join("repos/builtin/repo.yaml")).unwrap(),
        b"repo:\n  namespace: builtin\n"
    );
    // Nothing was written.
    assert!(!root.exists());
    // The importer finds the repository there.
    assert_eq!(
        crate::import::packages_dir(&root.join("repos/builtin")).unwrap(),
        pkgs
    );
    assert_eq!(crate::import::SpackRepo::at(&pkgs).namespace, "builtin");
}

#[test]
fn a_missing_blob_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    let (co, sha) = checkout(t.path());
    let blob = git(
        &co,
        &["rev-parse", "HEAD:repos/builtin/packages/zlib/package.py"],
    );
    let loose = co.join(".git/objects").join(&blob[..2]).join(&blob[2..]);
    fs_err::remove_file(loose).unwrap();
    let root = t.path().join("exports").join(&sha);
    register(&root, &co.join(".git"), &sha);
    let pkgs = root.join("repos/builtin/packages");
    let Err(Refusal::Io(why)) = confined::read_below(&pkgs, "zlib/package.py") else {
        panic!("a missing blob read");
    };
    assert!(why.contains(&format!("git object {blob}")), "{why}");
    assert!(why.contains("is missing from"), "{why}");
    assert!(why.contains(&sha), "{why}");
    // The other blobs are still read.
    assert_eq!(
        confined::read_below(&pkgs, "zlib/sub/fix.patch").unwrap(),
        b"patch"
    );
}

#[test]
fn a_commit_that_is_not_there_is_an_error_for_every_read() {
    let t = tempfile::tempdir().unwrap();
    let (co, _) = checkout(t.path());
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let root = t.path().join("exports").join(sha);
    register(&root, &co.join(".git"), sha);
    let pkgs = root.join("repos/builtin/packages");
    assert!(matches!(
        confined::read_below(&pkgs, "zlib/package.py"),
        Err(Refusal::Io(_))
    ));
    assert!(!is_dir(&pkgs));
    assert!(crate::import::packages_dir(&root).is_err());
}
