//! Spack's `resource(…)` and `patch(…, working_dir=…)` imported and built
//! for real: the resources a node's spec asks for are fetched, checked and
//! laid out in its source tree (`destination`, `placement`, a kept top
//! directory, a git checkout) before its package.py runs; a patch applies
//! in its working directory. Fixtures: tests/fixtures/import/spack/packages
//! (`resource_demo`, `refused_demo`).

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::harness::Stack;
use crate::import_spack::{build_stack, check_stack, import_fixture_with, installed, write_stack};

fn sha256(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .output()
        .unwrap();
    assert!(out.status.success(), "{program} {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `dist/<top>.tar.gz` holding `<top>/<file>` with `text`.
fn tarball(dist: &Path, top: &str, file: &str, text: &str) -> String {
    let tree = dist.join("trees").join(top);
    let at = tree.join(file);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, text).unwrap();
    let name = format!("{top}.tar.gz");
    run(
        &dist.join("trees"),
        "tar",
        &["-czf", &format!("../{name}"), top],
    );
    sha256(&dist.join(name))
}

/// Import resource_demo (its archives, file and git repository made here),
/// check and build it: the prefix holds the source tree as Spack lays it
/// out, patched in `sub/`; the `+never` resource (a file that does not
/// exist) is not fetched.
#[test]
fn resources_and_a_patch_in_a_subdirectory_are_imported_and_built() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = tmp.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let main = tarball(&dist, "resdemo-1.0", "sub/msg.txt", "unpatched\n");
    let extra = tarball(&dist, "extra-2.0", "data.txt", "extra\n");
    let kept = tarball(&dist, "kept-1.0", "k.txt", "kept\n");
    std::fs::write(dist.join("note.bin"), "note\n").unwrap();
    let note = sha256(&dist.join("note.bin"));
    let git = dist.join("gitdep");
    std::fs::create_dir_all(&git).unwrap();
    std::fs::write(git.join("g.txt"), "from git\n").unwrap();
    run(&git, "git", &["init", "-q"]);
    run(&git, "git", &["add", "g.txt"]);
    run(&git, "git", &["commit", "-q", "-m", "one"]);
    let commit = run(&git, "git", &["rev-parse", "HEAD"]);
    let dist_text = dist.display().to_string();
    let recipe_path = import_fixture_with(
        tmp.path(),
        "resource_demo",
        "resource-demo",
        &[
            ("@DIST@", &dist_text),
            ("@SHA_MAIN@", &main),
            ("@SHA_EXTRA@", &extra),
            ("@SHA_KEPT@", &kept),
            ("@SHA_NOTE@", &note),
            ("@COMMIT@", &commit),
        ],
    );
    let recipe = std::fs::read_to_string(&recipe_path).unwrap();
    for expected in [
        "resources:\n",
        "placement: extra",
        "strip: false",
        "note.bin: share/note.txt",
        "when: \"+note\"",
        &commit,
        "system: spack",
        "working_dir: sub",
    ] {
        assert!(recipe.contains(expected), "{expected}: {recipe}");
    }
    assert!(!recipe.contains("kind: build"), "{recipe}");
    let stack_yaml = write_stack(tmp.path(), "res", "resource-demo");
    check_stack(&stack_yaml);
    // The plan lists the resources its node asks for: not `+never`'s.
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "resolve", "--format", "json"])
        .arg(&stack_yaml)
        .arg("--cluster")
        .arg(crate::harness::root().join("cluster-configs/local"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let node = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "resource-demo")
        .unwrap();
    let names: Vec<&str> = node["source"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["extra", "kept", "note", "gitdep"]);
    assert_eq!(node["patches"][0]["working_dir"], "sub");
    let built = build_stack(&stack_yaml, tmp.path(), "b");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{stderr}");
    let msg = installed(&tmp.path().join("b"), "msg.txt");
    let tree = msg.parent().unwrap().parent().unwrap();
    let read = |rel: &str| {
        std::fs::read_to_string(tree.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    };
    assert_eq!(read("sub/msg.txt"), "patched in sub\n");
    assert_eq!(read("deps/extra/data.txt"), "extra\n");
    assert_eq!(read("kept-1.0/k.txt"), "kept\n");
    assert_eq!(read("share/note.txt"), "note\n");
    assert_eq!(read("deps/gitdep/g.txt"), "from git\n");
    assert_eq!(read("seen.txt"), "install saw extra\n");
    assert!(!tree.join("missing").exists());
    // The mirror names a resource as Spack does: `<package>/<resource>-<version>`.
    let mirror = tmp.path().join("mirror");
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "mirror", "create"])
        .arg(&stack_yaml)
        .arg(&mirror)
        .arg("--cluster")
        .arg(crate::harness::root().join("cluster-configs/local"))
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for named in [
        "resource-demo/extra-1.0.tar.gz",
        "resource-demo/kept-1.0.tar.gz",
        "resource-demo/note-1.0.bin",
        "resource-demo/gitdep-1.0.tar.gz",
    ] {
        assert!(mirror.join(named).exists(), "{named}");
    }
}

/// A package `stack build` refuses is reported before its git branch is
/// pinned: offline, the refusal names the package and the package.py line
/// of the resource, and no repository is asked.
#[test]
fn a_refusal_comes_before_git_branches_are_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    import_fixture_with(tmp.path(), "refused_demo", "refused-demo", &[]);
    let stack_yaml = write_stack(tmp.path(), "refused", "refused-demo");
    let built = build_stack(&stack_yaml, tmp.path(), "b");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(!built.status.success(), "{stderr}");
    assert!(stderr.contains("refused-demo"), "{stderr}");
    assert!(stderr.contains("line 18: directive resource"), "{stderr}");
    assert!(!stderr.contains("127.0.0.1"), "{stderr}");
}

/// The package files are checked when the recipes load, before a git
/// branch is pinned: a package.py changed after the import is reported
/// offline.
#[test]
fn a_changed_package_file_is_reported_before_git_branches_are_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let resource = "    resource(\n        name=\"loose\",\n        git=\"https://127.0.0.1:9/loose.git\",\n        \
                    commit=\"0123456789abcdef0123456789abcdef01234567\",\n    )\n";
    // Without the resource, and with an install() the static translation
    // leaves to package.py (`system: spack`).
    let install = ("        mkdirp(prefix.bin)", "        which(\"true\")()");
    import_fixture_with(
        tmp.path(),
        "refused_demo",
        "refused-demo",
        &[(resource, ""), install],
    );
    let copied = walkdir::WalkDir::new(tmp.path().join("stack/spack"))
        .into_iter()
        .flatten()
        .find(|e| e.file_name() == "package.py")
        .expect("the importer copies package.py")
        .into_path();
    let text = std::fs::read_to_string(&copied).unwrap();
    assert!(!text.contains("resource("), "{text}");
    std::fs::write(
        &copied,
        text.replace("Never built.", "Changed after the import."),
    )
    .unwrap();
    let stack_yaml = write_stack(tmp.path(), "changed", "refused-demo");
    let built = build_stack(&stack_yaml, tmp.path(), "b");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(!built.status.success(), "{stderr}");
    assert!(stderr.contains("package-file-checksum"), "{stderr}");
    assert!(stderr.contains("package.py"), "{stderr}");
    assert!(!stderr.contains("127.0.0.1"), "{stderr}");
}
