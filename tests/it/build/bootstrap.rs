//! Issue 20, aws-ofi-nccl's two breakages on a tiny autotools C++ project
//! (`tests/fixtures/build/relver`) that takes its version like aws-ofi-nccl
//! 1.19+ (a script reading `.release_version`) and turns `--with-hwloc=DIR`
//! into `-isystem DIR/include`: a `pre_bootstrap` step writes the version
//! before `autoreconf`, and hwloc is Debian's, an external at `/usr`.

use stack::build::*;

use crate::harness::build::*;

fn relver(mount: &std::path::Path, pre_bootstrap: Vec<Vec<String>>) -> BuildJob {
    let mut j = job(
        mount,
        "relver",
        fixture("relver"),
        // what the recipe passed before the fix, with hwloc external at /usr
        BuildSystem::new("autotools")
            .with("autoreconf", true)
            .with("configure_args", vec!["--with-hwloc=/usr".to_string()]),
    );
    j.steps.pre_bootstrap = pre_bootstrap;
    j.deps = autotools_deps();
    // what the pipeline passes for the external hwloc (its `libraries:`)
    j.host_libraries = vec!["libhwloc".into()];
    j
}

fn write_release_version(version: &str) -> Vec<Vec<String>> {
    vec![vec![
        "sh".into(),
        "-c".into(),
        "printf '%s\\n' \"$1\" > .release_version".into(),
        "release-version".into(),
        version.into(),
    ]]
}

#[test]
fn pre_bootstrap_writes_the_version_and_system_isystem_is_dropped() {
    if !std::path::Path::new("/usr/include/hwloc.h").exists() {
        panic!("libhwloc-dev is missing: run scripts/install-deps.sh");
    }
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let j = relver(&mount, write_release_version("1.21.1"));
    let prefix = j.prefix.clone();
    let mut g = BuildGraph::new();
    g.add(j);
    let opts = options(&build, &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    // The version reached AC_INIT, and <cstdlib> compiled although
    // configure added -isystem /usr/include.
    assert_eq!(
        run_clean(&prefix.join("bin/relver")),
        format!("relver 1.21.1 hwloc-api {}\n", hwloc_api_major())
    );
}

#[test]
fn without_the_version_file_the_bootstrap_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let mut g = BuildGraph::new();
    g.add(relver(&mount, Vec::new()));
    let opts = options(&build, &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    let failed: Vec<_> = summary.failed().collect();
    assert_eq!(failed.len(), 1, "{summary:?}");
    let PackageStatus::Failed {
        phase, log_tail, ..
    } = &failed[0].status
    else {
        unreachable!()
    };
    assert_eq!(*phase, Phase::Bootstrap);
    assert!(
        log_tail.iter().any(|l| l.contains("no version found")),
        "{log_tail:#?}"
    );
}

/// The major API version of the installed hwloc (`HWLOC_API_VERSION`).
fn hwloc_api_major() -> u32 {
    let h = std::fs::read_to_string("/usr/include/hwloc.h").unwrap();
    let line = h
        .lines()
        .find(|l| l.starts_with("#define HWLOC_API_VERSION"))
        .unwrap();
    let hex = line.split_whitespace().nth(2).unwrap();
    u32::from_str_radix(hex.trim_start_matches("0x"), 16).unwrap() >> 16
}

/// Issue 14: a tree like a GitHub tag archive (`configure.ac`, no
/// `configure`; dotconf, libestr, libfastjson) is bootstrapped with
/// `autoreconf -fi` although the recipe does not ask for it, as Spack's
/// autotools builder does.
#[test]
fn a_tree_without_configure_is_autoreconfed() {
    let fixture_dir = fixture("noconf");
    assert!(!fixture_dir.join("configure").exists());
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let mut j = job(&mount, "noconf", fixture_dir, BuildSystem::new("autotools"));
    j.deps = autotools_deps();
    let prefix = j.prefix.clone();
    let mut g = BuildGraph::new();
    g.add(j);
    let opts = options(&build, &mount, MountMode::Direct);
    let rec = Recorder::default();
    let summary = run_plan(&g, &opts, &rec).unwrap();
    assert_success(&summary);
    assert!(
        rec.events
            .borrow()
            .iter()
            .any(|e| e == "phase noconf bootstrap"),
        "{:?}",
        rec.events.borrow()
    );
    assert_eq!(run_clean(&prefix.join("bin/noconf")), "noconf 0.1\n");
}

/// `out_of_source: true` (Spack's `build_directory = "spack-build"`):
/// `<src>/configure` runs in `<stage>/build`, and so does make.
#[test]
fn out_of_source_configures_in_the_build_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let mut j = job(
        &mount,
        "noconf",
        fixture("noconf"),
        BuildSystem::new("autotools").with("out_of_source", true),
    );
    j.deps = autotools_deps();
    let prefix = j.prefix.clone();
    let mut g = BuildGraph::new();
    g.add(j);
    let opts = options(&build, &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    let log = std::fs::read_to_string(summary.packages[0].log.as_ref().unwrap()).unwrap();
    let configure = log
        .lines()
        .find(|l| l.starts_with("==> ") && l.contains("/src/configure --prefix="))
        .unwrap_or_else(|| panic!("no out-of-source configure in\n{log}"));
    assert!(configure.ends_with("/build)"), "{configure}");
    assert_eq!(run_clean(&prefix.join("bin/noconf")), "noconf 0.1\n");
}
