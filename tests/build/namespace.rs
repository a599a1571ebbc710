//! Builds in a private user+mount namespace (forced here: the tests run as
//! root, for whom every mount point is writable).

use std::process::Command;

use stack::build::*;

use crate::support::*;

#[test]
fn a_namespace_build_installs_into_the_build_store_seen_at_the_mount_point() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    fs_err::create_dir_all(&mount).unwrap();
    let calc = makefile_calc(&mount);
    let mk = makefile_mktool(&mount, &calc);
    let greet = cmake_greet(&mount, &calc);
    let (mk_prefix, greet_prefix) = (mk.prefix.clone(), greet.prefix.clone());
    let mut g = BuildGraph::new();
    let c = g.add(calc);
    let m = g.add(mk);
    let gr = g.add(greet);
    g.depends_on(m, c);
    g.depends_on(gr, c);
    let mut opts = options(&build, &mount, MountMode::Namespace);
    // The `stack` binary itself as the wrapper (argv[0] dispatch).
    opts.wrapper_exe = Some(env!("CARGO_BIN_EXE_stack").into());
    let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert_success(&summary);
    assert!(summary.namespaced);
    let store = build.join("store");
    assert_eq!(summary.store_root, store);

    // Nothing on the host's mount point; everything in <build>/store.
    assert_eq!(fs_err::read_dir(&mount).unwrap().count(), 0);
    let rel = mk_prefix.strip_prefix(&mount).unwrap();
    assert!(store.join(rel).join("bin/mktool").is_file());
    assert!(store.join(rel).join(".stack/installed.json").is_file());

    // RPATHs name the mount point, and resolve inside the store mounted there.
    let checked = assert_self_contained(&store, &mount);
    assert!(checked.len() >= 5, "{checked:?}");

    // The programs run once the store is mounted at the mount point.
    let script = format!(
        "mount --bind {} {} && {}/bin/mk && {}/bin/greeter",
        store.display(),
        mount.display(),
        mk_prefix.display(),
        greet_prefix.display()
    );
    let out = run(Command::new("unshare").args(["-Urm", "sh", "-c", &script]));
    assert_eq!(out, "twice 42\nhello cmake (42)\n");

    // Rerun: nothing to do.
    let again = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert_eq!(again.reused().count(), 3);
}

#[test]
fn a_namespace_build_cannot_write_outside_the_build_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let outside = tmp.path().join("outside");
    fs_err::create_dir_all(&mount).unwrap();
    fs_err::create_dir_all(&outside).unwrap();
    let leak = outside.join("leak");
    let mut j = generic_headers(&mount);
    // Like an install step writing udev rules or init scripts to the host.
    j.steps.post_install = vec![vec![
        "cp".into(),
        "include/hdr/hdr.h".into(),
        leak.display().to_string(),
    ]];
    let mut g = BuildGraph::new();
    g.add(j);
    let summary = run_plan(
        &g,
        &options(&build, &mount, MountMode::Namespace),
        &NoopReporter,
    )
    .unwrap();
    let PackageStatus::Failed {
        phase, log_tail, ..
    } = &summary.packages[0].status
    else {
        panic!("{:?}", summary.packages[0].status)
    };
    assert_eq!(*phase, Phase::Install);
    // `outside` is below /tmp, which is private to the build: the path is
    // not even there (elsewhere: "Read-only file system").
    assert!(
        log_tail
            .iter()
            .any(|l| l.contains("Read-only file system") || l.contains("No such file or directory")),
        "{log_tail:?}"
    );
    assert!(!leak.exists());
}
