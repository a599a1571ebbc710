//! Site commands through the real binary: `checksum` (file URLs), `edit`,
//! `dependents`, and help text consistency.

use std::path::Path;
use std::process::Command;

use crate::harness::{Run, Stack};

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

fn sha256_of(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

/// `stack ARGS` in the project `dir` with `env` added, no built-in
/// repository; `dir` in the output is `[DIR]`.
fn site(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    Stack::new()
        .current_dir(dir)
        .env("STACK_BUILTIN_REPO", "")
        .envs(env.iter().copied())
        .args(args)
        .run()
        .replace_dir(dir, "[DIR]")
}

/// recipes/payload.yaml with two archive versions served as files, one
/// with a wrong sha256; recipes/app.yaml depends on it.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    for v in ["1.0", "1.1", "2.0"] {
        write(
            &t.join(format!("dist/payload-{v}.tar.gz")),
            &format!("payload {v}\n"),
        );
    }
    let good = sha256_of(&t.join("dist/payload-1.0.tar.gz"));
    write(
        &t.join("recipes/payload.yaml"),
        &format!(
            "name: payload\ndescription: d\nversions:\n  - {{version: \"1.0\", url: ../dist/payload-1.0.tar.gz, sha256: {good}}}\n  - {{version: \"1.1\", url: ../dist/payload-1.1.tar.gz, sha256: {}}}\nbuild: {{system: generic}}\n",
            "0".repeat(64)
        ),
    );
    write(
        &t.join("recipes/app.yaml"),
        "name: app\ndescription: d\nversions: [{version: \"1\", git: \"https://x/app.git\", tag: v1}]\nvariants: {extra: {default: false}}\ndependencies: [{spec: \"payload@1:\", when: +extra}]\nbuild: {system: generic}\n",
    );
    write(
        &t.join("recipes/top.yaml"),
        "name: top\ndescription: d\nversions: [{version: \"1\", git: \"https://x/top.git\", tag: v1}]\ndependencies: [app]\nbuild: {system: generic}\n",
    );
    tmp
}

#[test]
fn checksum_prints_recipe_lines_and_flags_a_differing_sha256() {
    let p = project();
    let t = p.path();
    let cache = t.join("cache");
    let cache = cache.to_str().unwrap();
    let sha = |v: &str| sha256_of(&t.join(format!("dist/payload-{v}.tar.gz")));
    let out = site(t, &["checksum", "payload", "--cache", cache], &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "  - {{version: \"1.0\", url: \"../dist/payload-1.0.tar.gz\", sha256: {}}}  # matches the recipe\n  - {{version: \"1.1\", url: \"../dist/payload-1.1.tar.gz\", sha256: {}}}  # differs from the recipe (recipe: {})\n",
            sha("1.0"),
            sha("1.1"),
            "0".repeat(64)
        )
    );
    // A new version: the URL of the newest archive version, version replaced.
    let out = site(t, &["checksum", "payload", "2.0", "--cache", cache], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "  - {{version: \"2.0\", url: \"../dist/payload-2.0.tar.gz\", sha256: {}}}  # new\n",
            sha("2.0")
        )
    );
    // A version with nothing to download fails with the URL tried.
    let out = site(t, &["checksum", "payload", "3.0", "--cache", cache], &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("payload-3.0.tar.gz"), "{}", out.stderr);
    // Every version is tried: the one that fails is reported in its place,
    // the next one is still checksummed (issue 36).
    let out = site(
        t,
        &["checksum", "payload", "3.0", "2.0", "--cache", cache],
        &[],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: payload 3.0:"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 of 2 versions could not be checksummed"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("{version: \"2.0\", url: \"../dist/payload-2.0.tar.gz\""),
        "{}",
        out.stdout
    );
    let out = site(t, &["checksum", "paylod", "--cache", cache], &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `payload`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn dependents_lists_direct_entries_and_the_transitive_closure() {
    let p = project();
    let t = p.path();
    let out = site(t, &["dependents", "payload"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "app  payload@1:  when +extra  recipes/app.yaml:5\n"
    );
    let out = site(t, &["dependents", "payload", "--transitive"], &[]);
    assert_eq!(out.stdout, "app  1\ntop  2\n");
    let out = site(t, &["dependents", "top"], &[]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
}

#[test]
fn edit_opens_the_recipe_lookup_uses() {
    let p = project();
    let t = p.path();
    let out = site(t, &["edit", "app", "--print"], &[]);
    assert_eq!(out.stdout, "[DIR]/recipes/app.yaml\n");
    // The editor gets the path (here `head -2` shows the file).
    let out = site(
        t,
        &["edit", "app"],
        &[("VISUAL", ""), ("EDITOR", "head -2")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "name: app\ndescription: d\n");
    let out = site(t, &["edit", "app"], &[("VISUAL", "false")]);
    assert_eq!(out.code, 1);
    let out = site(t, &["edit", "nope"], &[]);
    assert_eq!(out.code, 2);
}

#[test]
fn help_keeps_global_options_apart_and_hides_empty_env_values() {
    let p = project();
    let out = site(p.path(), &["build", "--help"], &[("STACK_CACHE", "")]);
    assert_eq!(out.code, 0);
    assert!(!out.stdout.contains("[env: STACK_CACHE"), "{}", out.stdout);
    let options = out.stdout.find("\nOptions:").unwrap();
    let global = out.stdout.find("\nGlobal options:").unwrap();
    assert!(options < global);
    assert!(out.stdout[global..].contains("--verbose"));
    assert!(!out.stdout[options..global].contains("--verbose"));
    // `build` and `image` take the same image options.
    for cmd in ["build", "image"] {
        let out = site(p.path(), &[cmd, "--help"], &[]);
        for opt in [
            "--writer <WRITER>",
            "--compression <COMPRESSION>",
            "--level <N>",
        ] {
            assert!(out.stdout.contains(opt), "{cmd}: {opt}");
        }
    }
    // The old spelling still parses (the build then fails on the recipe).
    let out = site(
        p.path(),
        &["build", "nothere.yaml", "--embedded-squashfs"],
        &[],
    );
    assert_eq!(out.code, 2);
    assert!(
        !out.stderr.contains("unexpected argument"),
        "{}",
        out.stderr
    );
}

#[test]
fn check_list_and_info_speak_json() {
    let p = project();
    let t = p.path();
    write(
        &t.join("cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\n",
    );
    write(
        &t.join("stacks/s.yaml"),
        "name: s\nenvironments: {e: {specs: [top]}}\n",
    );
    let out = site(t, &["check", "stacks/s.yaml", "--format", "json"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["cluster"], "local");
    assert_eq!(v["packages"], serde_json::json!(["app", "payload", "top"]));
    write(
        &t.join("stacks/s.yaml"),
        "name: s\nenvironments: {e: {specs: [tpo]}}\n",
    );
    let out = site(t, &["check", "stacks/s.yaml", "--format", "json"], &[]);
    assert_eq!(out.code, 2);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["line"].as_u64()),
        (Some("stack::unknown-package"), Some(2))
    );
    assert_eq!(d["file"], "[DIR]/stacks/s.yaml");

    let out = site(t, &["list", "--format", "json"], &[]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let names: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["app", "payload", "top"]);
    assert_eq!(v[1]["version"], "1.1");

    let out = site(t, &["info", "app", "--format", "json"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["versions"][0]["tag"], "v1");
    assert_eq!(v["variants"][0]["name"], "extra");
    assert_eq!(v["variants"][0]["default"], false);
    assert_eq!(v["dependencies"][0]["when"], "+extra");
    assert_eq!(v["build_system"], "generic");
}

#[test]
fn compiler_find_prints_cluster_lines_for_the_compilers_on_a_path() {
    let p = project();
    let t = p.path();
    if !Path::new("/usr/bin/gcc").is_file() {
        return;
    }
    let bin = t.join("bin");
    fs_err::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink("/usr/bin/gcc", bin.join("gcc")).unwrap();
    let version = Command::new("/usr/bin/gcc")
        .arg("-dumpfullversion")
        .output()
        .unwrap();
    let version = String::from_utf8(version.stdout).unwrap();
    let out = site(
        t,
        &["compiler", "find", "--path", bin.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "compilers:\n  - {{spec: gcc@{}, cc: [DIR]/bin/gcc}}\n",
            version.trim()
        )
    );
    let out = site(
        t,
        &[
            "compiler",
            "find",
            "--path",
            t.join("dist").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.code, 1);
}

#[test]
fn external_find_prints_externals_found_on_a_path() {
    let p = project();
    let t = p.path();
    if !Path::new("/usr/bin/cmake").is_file() {
        return;
    }
    let bin = t.join("tools/bin");
    fs_err::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink("/usr/bin/cmake", bin.join("cmake")).unwrap();
    let v = Command::new("/usr/bin/cmake")
        .arg("--version")
        .output()
        .unwrap();
    let v = String::from_utf8(v.stdout).unwrap();
    let v = v
        .lines()
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_string();
    let path = bin.to_str().unwrap();
    let out = site(
        t,
        &[
            "external",
            "find",
            "cmake",
            "not-installed-x",
            "--path",
            path,
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "packages:\n  cmake: {{externals: [{{spec: cmake@{v}, prefix: [DIR]/tools}}]}}   # [DIR]/tools/bin/cmake\n"
        )
    );
    let out = site(
        t,
        &["external", "find", "not-installed-x", "--path", path],
        &[],
    );
    assert_eq!(out.code, 1);
}

#[test]
fn create_writes_a_recipe_skeleton_with_the_build_system_detected() {
    let p = project();
    let t = p.path();
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo/dist");
    let cache = t.join("cache");
    let cache = cache.to_str().unwrap();
    for (file, system) in [
        ("libcalc-1.2.tar.gz", "cmake"),
        ("libgreet-1.0.tar.gz", "autotools"),
        ("hello-make-1.0.tar.gz", "makefile"),
    ] {
        let url = dist.join(file);
        let out = site(
            t,
            &[
                "create",
                url.to_str().unwrap(),
                "--dir",
                "site",
                "--cache",
                cache,
            ],
            &[],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.ends_with(&format!("build system {system})\n")),
            "{}",
            out.stdout
        );
        assert_eq!(out.stderr, "", "no unverified-download warning");
    }
    let text = fs_err::read_to_string(t.join("site/libcalc.yaml")).unwrap();
    assert!(
        text.contains(&format!(
            "sha256: {}",
            sha256_of(&dist.join("libcalc-1.2.tar.gz"))
        )),
        "{text}"
    );
    // The skeleton is a valid recipe.
    let out = site(t, &["info", "libcalc", "--repo", "site"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Build system: cmake"), "{}", out.stdout);
    // Never over an existing recipe without --force.
    let url = dist.join("libcalc-1.2.tar.gz");
    let out = site(
        t,
        &[
            "create",
            url.to_str().unwrap(),
            "--dir",
            "site",
            "--cache",
            cache,
        ],
        &[],
    );
    assert_eq!(out.code, 2);
    let out = site(
        t,
        &[
            "create",
            "https://example.org/noversion.tar.gz",
            "--cache",
            cache,
        ],
        &[],
    );
    assert_eq!(out.code, 2);
}

/// The keys `stack create` writes as comments are the build system's:
/// uncommented, the skeleton is still a valid recipe (issue 36: `# args:`
/// was an unknown key); an unknown key of `build` suggests the build
/// system's own (`args` → `meson_args`).
#[test]
fn create_comments_are_valid_keys_when_uncommented() {
    let p = project();
    let t = p.path();
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo/dist");
    let cache = t.join("cache");
    let cache = cache.to_str().unwrap();
    for (file, name, key) in [
        ("libcalc-1.2.tar.gz", "libcalc", "cmake_args"),
        ("libgreet-1.0.tar.gz", "libgreet", "configure_args"),
        ("tally-0.3.tar.gz", "tally", "meson_args"),
    ] {
        let url = dist.join(file);
        let out = site(
            t,
            &[
                "create",
                url.to_str().unwrap(),
                "--dir",
                "site",
                "--cache",
                cache,
            ],
            &[],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
        let path = t.join(format!("site/{name}.yaml"));
        let text = fs_err::read_to_string(&path).unwrap();
        let commented = format!("  # {key}: ");
        assert!(text.contains(&commented), "{text}");
        fs_err::write(&path, text.replace(&commented, &format!("  {key}: "))).unwrap();
        let out = site(t, &["info", name, "--repo", "site"], &[]);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    }
    // `args` (the old comment) in a meson recipe: an error suggesting its key.
    let path = t.join("site/tally.yaml");
    let text = fs_err::read_to_string(&path).unwrap();
    fs_err::write(&path, text.replace("  meson_args: ", "  args: ")).unwrap();
    let out = site(t, &["info", "tally", "--repo", "site"], &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown key `args` in `build`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `meson_args`?"),
        "{}",
        out.stderr
    );
}

/// Without network (a host name that does not resolve, `.invalid` never
/// does): `create`, `checksum` and `fetch` fail at once, not after retries,
/// and say to use a mirror or a local file (issue 36).
#[test]
fn offline_fetches_fail_fast_with_a_hint() {
    let p = project();
    let t = p.path();
    write(
        &t.join("recipes/remote.yaml"),
        &format!(
            "name: remote\ndescription: d\nversions:\n  - {{version: \"1.0\", url: \"http://nosuch.invalid/remote-1.0.tar.gz\", sha256: {}}}\n  - {{version: \"0.9\", url: \"http://nosuch.invalid/remote-0.9.tar.gz\", sha256: {}}}\nbuild: {{system: generic}}\n",
            "1".repeat(64),
            "2".repeat(64)
        ),
    );
    write(
        &t.join("stacks/s.yaml"),
        "name: s\ncompiler: gcc\nenvironments: {e: {specs: [remote]}}\n",
    );
    write(
        &t.join("stacks/cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\n",
    );
    let cache = t.join("cache");
    let cache = cache.to_str().unwrap();
    let hint = "stack mirror create RECIPE DIR";
    for args in [
        vec![
            "create",
            "http://nosuch.invalid/thing-1.0.tar.gz",
            "--print",
            "--cache",
            cache,
        ],
        vec!["checksum", "remote", "--cache", cache],
        vec![
            "fetch",
            "stacks/s.yaml",
            "--repo",
            "recipes",
            "--cache",
            cache,
        ],
    ] {
        let started = std::time::Instant::now();
        let out = site(t, &args, &[]);
        let took = started.elapsed();
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        // miette wraps the message: compare without whitespace and margins.
        let flat: String = out
            .stderr
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '|')
            .collect();
        assert!(
            flat.contains("cannotresolvethehost`nosuch.invalid`"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            flat.contains(&hint.replace(' ', "")),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            !out.stderr.contains("attempt"),
            "{args:?}: retried: {}",
            out.stderr
        );
        // No retries with backoff: well under the 3.5 s they would wait.
        assert!(took.as_secs_f64() < 3.0, "{args:?} took {took:?}");
    }
    // checksum tried both versions.
    let out = site(t, &["checksum", "remote", "--cache", cache], &[]);
    assert!(out.stderr.contains("error: remote 1.0:"), "{}", out.stderr);
    assert!(out.stderr.contains("error: remote 0.9:"), "{}", out.stderr);
}
