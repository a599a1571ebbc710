//! A package whose source cannot be fetched fails alone: its dependents are
//! skipped, independent packages build (unless `--fail-fast`), as
//! docs/sources.md and docs/cli.md say.

use std::path::Path;
use std::process::Command;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn sha256(p: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
}

/// `good` (a real archive), `bad` (its archive does not exist) and `user`
/// (depends on `bad`).
fn project(t: &Path) {
    write(t, "src/good-1.0/README", "good\n");
    let st = Command::new("tar")
        .args(["czf", "good-1.0.tar.gz", "good-1.0"])
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    let sha = sha256(&t.join("src/good-1.0.tar.gz"));
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    let recipe = |name: &str, url: &str, sha: &str, deps: &str| {
        format!(
            "name: {name}\ndescription: {name}\nversions:\n  - {{version: \"1.0\", url: {url}, sha256: {sha}}}\n{deps}\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share/README}}\n"
        )
    };
    let good = t.join("src/good-1.0.tar.gz");
    write(
        t,
        "recipes/good.yaml",
        &recipe("good", good.to_str().unwrap(), &sha, ""),
    );
    let missing = t.join("src/bad-1.0.tar.gz");
    let other = "ab".repeat(32);
    write(
        t,
        "recipes/bad.yaml",
        &recipe("bad", missing.to_str().unwrap(), &other, ""),
    );
    write(
        t,
        "recipes/user.yaml",
        &recipe(
            "user",
            good.to_str().unwrap(),
            &sha,
            "dependencies: [bad]\n",
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [good, user]\n",
    );
}

use crate::harness::tiny_build::build;

fn installed(t: &Path, name: &str) -> bool {
    walkdir::WalkDir::new(t.join("build/store"))
        .max_depth(2)
        .into_iter()
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{name}-1.0-"))
                && e.path().join("share").is_dir()
        })
}

#[test]
fn a_failed_source_fails_its_package_alone() {
    let t = tempfile::tempdir().unwrap();
    project(t.path());

    let (code, text) = build(t.path(), &["--fail-fast"]);
    assert_eq!(code, 1, "{text}");
    assert!(!installed(t.path(), "good"), "{text}");

    let (code, text) = build(t.path(), &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        installed(t.path(), "good"),
        "independent package not built:\n{text}\n{:?}",
        walkdir::WalkDir::new(t.path().join("build/store"))
            .into_iter()
            .flatten()
            .map(|e| e.path().display().to_string())
            .collect::<Vec<_>>()
    );
    assert!(!installed(t.path(), "user"), "{text}");
    assert!(
        text.contains("error: bad@1.0 failed in stage: its source could not be fetched or staged"),
        "{text}"
    );
    assert!(
        text.contains("1 built, 0 reused, 1 failed, 1 skipped"),
        "{text}"
    );
}

/// The paths `unsquashfs -l` lists in an image.
fn image_paths(image: &Path) -> String {
    let out = Command::new("unsquashfs")
        .args(["-l", "-d", ""])
        .arg(image)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_partial_build_makes_the_image_of_what_built() {
    let t = tempfile::tempdir().unwrap();
    project(t.path());

    let (code, text) = build(t.path(), &["--partial", "--fail-fast"]);
    assert_eq!(
        code, 2,
        "--partial and --fail-fast exclude each other:\n{text}"
    );

    let (code, text) = build(t.path(), &["--partial"]);
    assert_eq!(code, 1, "a partial image is still a failed build:\n{text}");
    assert!(
        text.contains("1 built, 0 reused, 1 failed, 1 skipped"),
        "{text}"
    );
    assert!(
        text.contains("partial image: 2 package(s) left out, listed in meta/left-out.json"),
        "{text}"
    );
    let image = t.path().join("build/store.squashfs");
    assert!(
        text.contains(&format!("image: {}", image.display())),
        "{text}"
    );
    let paths = image_paths(&image);
    assert!(paths.contains("/good-1.0-"), "{paths}");
    assert!(
        !paths.contains("/user-1.0-") && !paths.contains("/bad-1.0-"),
        "{paths}"
    );
    assert!(paths.contains("/meta/left-out.json"), "{paths}");

    let left: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(t.path().join("build/meta/left-out.json")).unwrap(),
    )
    .unwrap();
    let left = left.as_array().unwrap();
    assert_eq!(left.len(), 2, "{left:?}");
    assert_eq!(left[0]["name"], "bad");
    assert!(
        left[0]["why"]
            .as_str()
            .unwrap()
            .starts_with("failed in stage: its source could not be fetched or staged"),
        "{left:?}"
    );
    assert_eq!(left[1]["name"], "user");
    assert_eq!(left[1]["why"], "dependency `bad` failed");

    // The same failure again: nothing is rebuilt and the image is kept.
    let (code, text) = build(t.path(), &["--partial"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("0 built, 1 reused, 1 failed, 1 skipped"),
        "{text}"
    );
    assert!(
        text.contains(&format!("up to date: {}", image.display())),
        "{text}"
    );

    // Without --partial a failed build makes no image and says nothing of one.
    let (code, text) = build(t.path(), &[]);
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains("partial image"), "{text}");
}

/// A package that fails after its source was staged keeps its source tree
/// through a partial image: the next run resumes it instead of staging it
/// again.
#[test]
fn a_partial_image_keeps_the_source_trees_of_what_failed() {
    let t = tempfile::tempdir().unwrap();
    project(t.path());
    let sha = sha256(&t.path().join("src/good-1.0.tar.gz"));
    let good = t.path().join("src/good-1.0.tar.gz");
    write(
        t.path(),
        "recipes/broken.yaml",
        &format!(
            "name: broken\ndescription: broken\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: NOT-THERE, to: share/README}}\n",
            good.display()
        ),
    );
    write(
        t.path(),
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [good, broken]\n",
    );
    let (code, text) = build(t.path(), &["--partial"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("1 built, 0 reused, 1 failed, 0 skipped"),
        "{text}"
    );
    assert!(
        text.contains("partial image: 1 package(s) left out"),
        "{text}"
    );
    let trees: Vec<String> = std::fs::read_dir(t.path().join("build/sources"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        trees.iter().any(|n| n.starts_with("broken-1.0-")),
        "the failed package's source tree was pruned: {trees:?}\n{text}"
    );
}

/// A partial build whose audit fails makes no image and says why: the
/// audit's findings are printed although packages failed too (they were
/// not, and the run looked like an image was simply not written).
#[test]
fn a_partial_build_whose_audit_fails_says_so() {
    let t = tempfile::tempdir().unwrap();
    project(t.path());
    write(
        t.path(),
        "recipes/leaky.yaml",
        "name: leaky\ndescription: links with an RPATH outside the stack\n\
         versions:\n  - {version: \"1.0\", source: none}\n\
         build:\n  system: generic\n  steps:\n    post_install:\n      - [sh, -c, \
         \"printf 'int main(void){return 0;}\\\\n' > m.c && mkdir -p {{ prefix }}/bin && \
         cc m.c -o {{ prefix }}/bin/m -Wl,--disable-new-dtags -Wl,-rpath,/home/nobody/lib\"]\n",
    );
    write(
        t.path(),
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [good, leaky, user]\n",
    );
    let (code, text) = build(t.path(), &["--partial"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("2 built, 0 reused, 1 failed, 1 skipped"),
        "{text}"
    );
    assert!(text.contains("/home/nobody/lib"), "{text}");
    assert!(
        text.contains("error: the linkage audit found problems"),
        "{text}"
    );
    assert!(!text.contains("partial image:"), "{text}");
    assert!(!t.path().join("build/store.squashfs").exists(), "{text}");
}
