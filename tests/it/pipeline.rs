//! End to end: `stack build` of the shipped demo and CXI-shaped stacks from
//! the fixture sources, then the image, the audit, a no-op rebuild and the
//! programs run through the view with the store mounted at the mount point.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{Stack, root};

fn build(recipe: &str, build: &Path, cache: &Path) -> std::process::Output {
    build_with(recipe, build, cache, &[])
}

fn build_with(recipe: &str, build: &Path, cache: &Path, extra: &[&str]) -> std::process::Output {
    let out = Stack::bare()
        .command()
        .current_dir(root())
        .args(["--color", "never", "build", recipe, "--build"])
        .arg(build)
        .arg("--cache")
        .arg(cache)
        .args(["-j", "2"])
        .args(extra)
        .output()
        .expect("run stack build");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Run `script` with `store` bind-mounted at /user-environment in a private
/// user+mount namespace (what uenv's squashfs-mount does with the image).
fn in_mounted_store(store: &Path, script: &str) -> String {
    let out = Command::new("unshare")
        .args(["-rm", "sh", "-ec"])
        .arg(format!(
            "mount --bind '{}' /user-environment\n{script}",
            store.display()
        ))
        .output()
        .expect("unshare");
    assert!(
        out.status.success(),
        "script failed: {}\n{}",
        script,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn demo_stack_builds_audits_packs_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("build");
    let cache = tmp.path().join("cache");
    let out = build("stacks/demo.yaml", &b, &cache);
    assert!(out.status.success(), "demo build failed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("6 built, 0 reused, 0 failed"), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    assert!(b.join("store.squashfs").is_file());
    let env_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("meta/env.json")).unwrap()).unwrap();
    assert_eq!(env_json["name"], "demo");
    assert_eq!(env_json["mount"], "/user-environment");
    assert!(env_json["views"]["default"].is_object());
    // The lockfile of the plan, intact (not the build directory's lock).
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("meta/stack.lock")).unwrap()).unwrap();
    assert_eq!(lock["stack"], "demo", "{lock}");
    assert!(b.join("meta/audit/audit.json").is_file());

    // The image lists views, modules and meta.
    let list = Command::new("unsquashfs")
        .arg("-l")
        .arg(b.join("store.squashfs"))
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for needle in [
        "squashfs-root/env/default/activate.sh",
        "squashfs-root/modules",
        "squashfs-root/meta/env.json",
    ] {
        assert!(
            list.contains(needle),
            "{needle} missing from the image:\n{list}"
        );
    }

    // The standalone audit agrees, on the image itself (not mounted).
    let audit = Stack::bare()
        .command()
        .args(["audit"])
        .arg(b.join("store.squashfs"))
        .args(["--allow", "libz.so.1"])
        .output()
        .unwrap();
    assert_eq!(
        audit.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&audit.stdout)
    );

    // The programs run from the view, with RPATHs into the stack only.
    let out = in_mounted_store(
        &b.join("store"),
        ". /user-environment/env/default/activate.sh\nhello-make\ntally 1 2 3\ndemo-prebuilt\n\
         echo UCX=$UCX_MEMTYPE_CACHE JULIA=$JULIA_CUDA_MEMORY_POOL",
    );
    assert!(out.contains("UCX=no JULIA=none"), "{out}");
    // The hooks ran with the store at the mount point.
    let out = in_mounted_store(
        &b.join("store"),
        "cat /user-environment/config/site.txt /user-environment/config/views.txt",
    );
    assert_eq!(out, "stack demo for /user-environment\ndefault\nlibs\n");
    assert!(!out.trim().is_empty());

    // And through the real Lmod, from the generated modules.
    let out = in_mounted_store(
        &b.join("store"),
        ". /usr/share/lmod/lmod/init/sh\nmodule use /user-environment/modules\n\
         module load tally\ncommand -v tally\ntally 1 2 3\nmodule --terse list 2>&1",
    );
    assert!(out.contains("/user-environment/x86_64/tally-0.3-"), "{out}");
    assert!(out.contains("tally/0.3"), "{out}");

    // Reproducible: a second clean build into another build directory gives
    // a byte-identical image, and the provenance that differs stays beside it.
    let b2 = tmp.path().join("build-two");
    let out2 = build("stacks/demo.yaml", &b2, &cache);
    assert!(out2.status.success(), "second demo build failed");
    let sha = |p: &Path| {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
    };
    assert_eq!(
        sha(&b.join("store.squashfs")),
        sha(&b2.join("store.squashfs")),
        "two clean builds of the demo differ; compare {} and {}",
        b.join("store").display(),
        b2.join("store").display()
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b2.join("meta/build.json")).unwrap())
            .unwrap();
    assert!(
        record["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str() == b2.to_str()),
        "{record}"
    );
    assert!(record["host"]["node"].is_string(), "{record}");
    let in_image: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(b2.join("store/meta/provenance.json")).unwrap(),
    )
    .unwrap();
    assert!(
        in_image.get("args").is_none() && in_image.get("host").is_none(),
        "{in_image}"
    );

    // A no-op rebuild does nothing.
    let again = build("stacks/demo.yaml", &b, &cache);
    assert!(again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("0 built, 6 reused"), "{stderr}");
    assert!(String::from_utf8_lossy(&again.stdout).contains("up to date"));

    // A prefix the plan does not name (an old hash, a failed partial build)
    // is removed before the image is made; other directories are left alone.
    let arch = b.join("store").join(std::env::consts::ARCH);
    let stale = arch.join("old-pkg-1.0-deadbeef");
    std::fs::create_dir_all(stale.join("lib")).unwrap();
    std::fs::write(stale.join("lib/libold.so"), "x").unwrap();
    std::fs::create_dir_all(arch.join("notes")).unwrap();
    let pruned = build("stacks/demo.yaml", &b, &cache);
    assert!(pruned.status.success());
    assert!(!String::from_utf8_lossy(&pruned.stdout).contains("up to date"));
    assert!(!stale.exists());
    assert!(arch.join("notes").is_dir());
}

#[test]
fn cxi_shaped_stack_builds_from_fixtures() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("build");
    // Built for another mount point than the recipe's (an empty directory
    // the namespace mounts over).
    let mount = tmp.path().join("ue");
    let out = build_with(
        "stacks/cxi-mini.yaml",
        &b,
        &tmp.path().join("cache"),
        &["--mount", mount.to_str().unwrap()],
    );
    assert!(out.status.success(), "cxi-mini build failed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("4 built"), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    assert!(b.join("store.squashfs").is_file());
    let env_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("meta/env.json")).unwrap()).unwrap();
    assert_eq!(env_json["mount"], mount.to_str().unwrap());
    let lock = std::fs::read_to_string(b.join("stack.lock")).unwrap();
    assert!(lock.contains(mount.to_str().unwrap()), "{lock}");
    assert_eq!(
        std::fs::read_dir(&mount).unwrap().count(),
        0,
        "the host mount point stays empty"
    );

    let bad = build_with(
        "stacks/cxi-mini.yaml",
        &b,
        &tmp.path().join("cache"),
        &["--mount", "relative/ue"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected an absolute path"));
}

#[test]
fn a_missing_recipe_is_bad_input() {
    let out = Stack::bare()
        .command()
        .args(["--color", "never", "build", "no/such/recipe.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Another build holding the build directory keeps a second one from
/// touching it (the lock is taken before the lockfile is written, sources
/// staged or hooks run), and `--mount-mode auto` with a writable mount point
/// installs into it directly and finds it there again on the no-op rerun
/// (nothing fetched or staged).
#[test]
fn the_build_directory_is_locked_first_and_auto_mode_reuses_a_direct_store() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("build");
    let cache = tmp.path().join("cache");
    let mount = tmp.path().join("ue");
    std::fs::create_dir_all(&b).unwrap();
    let holder = std::fs::File::create(b.join("build.lock")).unwrap();
    holder.lock().unwrap();
    let args = |cmd: &mut Command| {
        cmd.current_dir(root())
            .args([
                "--color",
                "never",
                "build",
                "stacks/cxi-mini.yaml",
                "--build",
            ])
            .arg(&b)
            .arg("--cache")
            .arg(&cache)
            .args(["-j", "2", "--mount-mode", "auto", "--mount"])
            .arg(&mount);
    };
    let mut cmd = Stack::bare().command();
    args(&mut cmd);
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        !b.join("stack.lock").exists() && !b.join("stage").exists() && !mount.exists(),
        "the waiting build wrote into the locked build directory or the mount point"
    );
    holder.unlock().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("4 built"), "{stderr}");
    // Installed directly into the (writable) mount point.
    let installed = std::fs::read_dir(&mount).unwrap().count();
    assert!(installed > 0, "nothing under {}", mount.display());
    assert!(!b.join("store").exists());

    let mut again = Stack::bare().command();
    args(&mut again);
    let out = again.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("up to date"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Fetch") && !stderr.contains("Stage"),
        "a no-op rerun fetched or staged: {stderr}"
    );
}

/// A one-package stack in a temporary directory: `tiny`, a CMake project from
/// a local git repository (branch `main`), with `install:` steps after CMake's
/// own install, a post-install hook, and a copy of the local cluster whose
/// `loader:` block names one more default directory.
struct Tiny {
    dir: tempfile::TempDir,
    git: PathBuf,
}

/// The extra directory the tiny stack's cluster gives its loader.
const TINY_LOADER_DIR: &str = "/opt/stack-test-cluster-loader";

impl Tiny {
    fn new() -> Tiny {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let git = d.join("tiny-src");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(
            git.join("CMakeLists.txt"),
            "cmake_minimum_required(VERSION 3.13)\nproject(tiny C)\n\
             add_executable(tiny tiny.c)\ninstall(TARGETS tiny DESTINATION bin)\n",
        )
        .unwrap();
        std::fs::write(
            git.join("tiny.c"),
            "#include <stdio.h>\nint main(void) { puts(\"tiny\"); return 0; }\n",
        )
        .unwrap();
        std::fs::write(git.join("NOTES"), "notes of tiny\n").unwrap();
        let run = |args: &[&str]| {
            let out = Command::new("git")
                .current_dir(&git)
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        run(&["init", "-q", "-b", "main"]);
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "tiny"]);

        std::fs::create_dir_all(d.join("recipes")).unwrap();
        std::fs::write(
            d.join("recipes/tiny.yaml"),
            format!(
                "name: tiny\ndescription: one program\nversions:\n  \
                 - {{version: main, git: 'file://{}', branch: main}}\n\
                 build:\n  system: cmake\n  install:\n    \
                 - {{mkdir: share/tiny}}\n    - {{copy: NOTES, to: share/tiny}}\n",
                git.display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all(d.join("hooks")).unwrap();
        std::fs::write(d.join("hooks/post.sh"), Tiny::hook("v1", "")).unwrap();
        std::fs::write(
            d.join("tiny.yaml"),
            "name: tiny\nversion: \"1\"\nmount: /user-environment\ncompiler: gcc\n\
             repos: [recipes]\nenvironments:\n  main:\n    specs: [tiny@main]\n    unify: true\n    \
             views:\n      default:\n        link: roots\n        prefix_paths: {PATH: [bin]}\n\
             post_install: hooks/post.sh\n",
        )
        .unwrap();
        let cluster = d.join("cluster");
        std::fs::create_dir_all(&cluster).unwrap();
        let text = std::fs::read_to_string(root().join("cluster-configs/local/cluster.yaml"))
            .unwrap()
            .replace(
                "default_dirs: [/lib/x86_64-linux-gnu,",
                &format!("default_dirs: [{TINY_LOADER_DIR}, /lib/x86_64-linux-gnu,"),
            );
        assert!(text.contains(TINY_LOADER_DIR));
        std::fs::write(cluster.join("cluster.yaml"), text).unwrap();
        Tiny { dir, git }
    }

    /// A post-install hook that writes `word` into the store, then runs `more`.
    fn hook(word: &str, more: &str) -> String {
        format!("#!/bin/sh\nset -eu\necho {word} > \"{{{{ env.mount }}}}/hook.txt\"\n{more}\n")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn run(&self, cmd: &str, extra: &[&str]) -> std::process::Output {
        let out = Stack::bare()
            .command()
            .current_dir(self.dir.path())
            .env_remove("STACK_REPOS")
            .args(["--color", "never", cmd, "tiny.yaml", "--cluster", "cluster"])
            .arg("--cache")
            .arg(self.path("cache"))
            .args(extra)
            .output()
            .expect("run stack");
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        out
    }

    fn build(&self) -> std::process::Output {
        self.run("build", &["--build", "build", "-j", "2"])
    }

    fn head(&self) -> String {
        let out = Command::new("git")
            .current_dir(&self.git)
            .args(["rev-parse", "HEAD"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }
}

/// Divergences of issue 18: `install:` steps under cmake run after CMake's
/// install; the cluster's `loader:` block reaches the build-time audit;
/// editing the post-install hook re-runs it and re-packs the image; the audit
/// runs last, on what is packed (an ELF file the hook adds is audited).
#[test]
fn tiny_stack_hooks_fingerprint_loader_and_audit_order() {
    let t = Tiny::new();
    let out = t.build();
    assert!(out.status.success(), "tiny build failed");
    let store = t.path("build/store");
    // install: steps after CMake's install
    let prefix = std::fs::read_dir(store.join(std::env::consts::ARCH))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("tiny-")
        })
        .expect("tiny prefix");
    assert!(prefix.join("bin/tiny").is_file());
    // The wrapper links with the prefix's lib and lib64 in the RPATH before
    // the install exists; tiny installs neither, so neither stays.
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(prefix.join("bin/tiny"))
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    let own = prefix.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        !dynamic.contains(&format!("{own}/lib")),
        "an RPATH entry for a directory that does not exist:\n{dynamic}"
    );
    assert_eq!(
        std::fs::read_to_string(prefix.join("share/tiny/NOTES")).unwrap(),
        "notes of tiny\n"
    );
    // the cluster's loader facts, not the host's
    let audit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path("build/audit.json")).unwrap())
            .unwrap();
    let dirs = audit["loader"]["default_dirs"].as_array().unwrap();
    assert_eq!(dirs[0], TINY_LOADER_DIR, "{}", audit["loader"]);
    assert_eq!(
        std::fs::read_to_string(store.join("hook.txt")).unwrap(),
        "v1\n"
    );

    let again = t.build();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("up to date"));
    let gzip = std::fs::read(t.path("build/store.squashfs")).unwrap();
    assert_eq!(
        u16::from_le_bytes([gzip[20], gzip[21]]),
        1,
        "gzip by default"
    );

    // `build --compression` is `image --compression`: the image options are in
    // the fingerprint, so another compressor re-packs (squashfs keeps the
    // compressor's id at byte 20: 6 is zstd).
    let zstd = t.run(
        "build",
        &[
            "--build",
            "build",
            "-j",
            "2",
            "--compression",
            "zstd",
            "--level",
            "3",
        ],
    );
    assert!(zstd.status.success());
    assert!(!String::from_utf8_lossy(&zstd.stdout).contains("up to date"));
    let sb = std::fs::read(t.path("build/store.squashfs")).unwrap();
    assert_eq!(&sb[0..4], b"hsqs");
    assert_eq!(u16::from_le_bytes([sb[20], sb[21]]), 6, "zstd");

    // An edited hook runs again and the image is packed again.
    let image = std::fs::read(t.path("build/store.squashfs")).unwrap();
    std::fs::write(t.path("hooks/post.sh"), Tiny::hook("v2", "")).unwrap();
    let edited = t.build();
    assert!(edited.status.success());
    assert!(!String::from_utf8_lossy(&edited.stdout).contains("up to date"));
    assert_eq!(
        std::fs::read_to_string(store.join("hook.txt")).unwrap(),
        "v2\n"
    );
    assert_ne!(
        image,
        std::fs::read(t.path("build/store.squashfs")).unwrap()
    );

    // An ELF file the hook adds is audited: a host program linking host
    // libraries (not allowed) fails the build.
    std::fs::write(
        t.path("hooks/post.sh"),
        Tiny::hook(
            "v3",
            "mkdir -p \"{{ env.mount }}/extra-bin\"\ncp \"$(command -v unsquashfs)\" \"{{ env.mount }}/extra-bin/\"",
        ),
    )
    .unwrap();
    let hooked = t.build();
    assert_eq!(hooked.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&hooked.stderr);
    assert!(stderr.contains("extra-bin/unsquashfs"), "{stderr}");
}

/// `stack resolve --lock` pins a git branch to its commit like `build` and
/// `fetch` do; `--locked` without a lock file is bad input (exit 2) under
/// every command.
#[test]
fn resolve_lock_pins_branches_and_locked_without_a_lock_exits_2() {
    let t = Tiny::new();
    for cmd in ["build", "fetch", "resolve"] {
        let extra: &[&str] = if cmd == "build" {
            &["--locked", "--build", "build"]
        } else {
            &["--locked"]
        };
        let out = t.run(cmd, extra);
        assert_eq!(out.status.code(), Some(2), "stack {cmd} --locked");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("tiny.lock"), "{cmd}: {stderr}");
    }
    // One search: the branch is pinned in the plan, not resolved again.
    let out = t.run("resolve", &["--lock", "-vv"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let searches = stderr.lines().filter(|l| l.contains(" searched")).count();
    assert_eq!(searches, 1, "one environment, searched once: {stderr}");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path("tiny.lock")).unwrap()).unwrap();
    let text = lock.to_string();
    assert!(text.contains(&t.head()), "branch not pinned: {text}");
    // and the pinned lock is what --locked accepts, under every command
    let out = t.run("resolve", &["--locked"]);
    assert!(out.status.success());
    let out = t.run("fetch", &["--locked"]);
    assert!(out.status.success());
}

/// A template that does not render is bad input (exit 2), shown like the
/// loaders' problems: code, message, and the recipe line it came from.
#[test]
fn a_template_that_does_not_render_is_bad_input_with_its_yaml_location() {
    let t = Tiny::new();
    let recipe = t.path("recipes/tiny.yaml");
    let text = std::fs::read_to_string(&recipe).unwrap().replace(
        "  system: cmake\n",
        // `tiny` exists (so `stack check` cannot know), but is no dependency.
        "  system: cmake\n  cmake_args: [\"-DX={{ deps.tiny.prefix }}\"]\n",
    );
    std::fs::write(&recipe, text).unwrap();
    let out = t.build();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stack::bad-template"), "{stderr}");
    assert!(stderr.contains("tiny.yaml:7:"), "{stderr}");
    assert!(stderr.contains("deps.tiny.prefix"), "{stderr}");
}

/// What rendering would reject, `stack check` rejects at load time: a
/// template naming a dependency no repository has, a variant the package
/// does not define, a name templates do not know.
#[test]
fn check_rejects_templates_naming_unknown_dependencies_variants_and_names() {
    let t = Tiny::new();
    let recipe = t.path("recipes/tiny.yaml");
    let text = std::fs::read_to_string(&recipe).unwrap().replace(
        "  system: cmake\n",
        "  system: cmake\n  cmake_args: [\"-DX={{ deps.nothere.prefix }}\", \"{% if variants.cuda %}-DC{% endif %}\", \"{{ prefx }}\"]\n",
    );
    std::fs::write(&recipe, text).unwrap();
    let out = Stack::bare()
        .command()
        .current_dir(t.dir.path())
        .env_remove("STACK_REPOS")
        .args([
            "--color",
            "never",
            "check",
            "tiny.yaml",
            "--cluster",
            "cluster",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no package or virtual `nothere`"),
        "{stderr}"
    );
    assert!(stderr.contains("`tiny` has no variant `cuda`"), "{stderr}");
    assert!(stderr.contains("templates know no `prefx`"), "{stderr}");
    assert!(stderr.contains("tiny.yaml:7:"), "{stderr}");
    assert!(stderr.contains("found 3 errors"), "{stderr}");
}

/// `stack fetch --dry-run` shows the fetch stage's own plan: per source what
/// verifies it (here the pinned commit) and whether the cache has it (pinning
/// the branch fetched the repository into the cache).
#[test]
fn fetch_dry_run_shows_the_fetch_plan() {
    let t = Tiny::new();
    let out = t.run("fetch", &["--dry-run"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("tiny@main") && stdout.contains(&format!("commit:{}", t.head())),
        "{stdout}"
    );
    assert!(stdout.contains("[cached]"), "{stdout}");
    assert!(stdout.contains("1 sources"), "{stdout}");
}
