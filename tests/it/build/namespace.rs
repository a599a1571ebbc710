//! Builds in a private user+mount namespace (forced here: the tests run as
//! root, for whom every mount point is writable).

use std::process::Command;

use stack::build::*;

use crate::harness::build::*;

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
    opts.wrapper_exe = Some(crate::harness::STACK.into());
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

const KILL_CHILD_ENV: &str = "STACK_SANDBOX_KILL_CHILD";

/// A build whose install step backgrounds a process that writes into the
/// prefix 4 s later (`(sleep 4; echo late > $prefix/late) & wait`).
fn lingering_job(mount: &std::path::Path) -> BuildJob {
    let mut j = generic_headers(mount);
    let p = j.prefix.display().to_string();
    j.steps.post_install = vec![vec![
        "sh".into(),
        "-c".into(),
        format!("echo > {p}/started; (sleep 4; echo late > {p}/late) & wait"),
    ]];
    j
}

#[test]
#[ignore = "helper process of kill_9_of_stack_ends_every_build_process"]
fn kill_child_build() {
    let Some(spec) = std::env::var_os(KILL_CHILD_ENV) else {
        return;
    };
    let spec = spec.to_string_lossy().into_owned();
    let (mode, rest) = spec.split_once('\n').unwrap();
    let (mount, build) = rest.split_once('\n').unwrap();
    let mode = match mode {
        "direct" => MountMode::Direct,
        _ => MountMode::Namespace,
    };
    let mut g = BuildGraph::new();
    g.add(lingering_job(std::path::Path::new(mount)));
    let _ = run_plan(
        &g,
        &options(
            std::path::Path::new(build),
            std::path::Path::new(mount),
            mode,
        ),
        &NoopReporter,
    );
}

/// Issue 13, item 10: `kill -9` of `stack` left make and its compilers
/// running (re-parented to PID 1) and writing into the store. Now every
/// process of the build dies with it, in both mount modes.
#[test]
fn kill_9_of_stack_ends_every_build_process() {
    for mode in ["namespace", "direct"] {
        let tmp = tempfile::tempdir().unwrap();
        let mount = tmp.path().join("ue");
        let build = tmp.path().join("build");
        fs_err::create_dir_all(&mount).unwrap();
        let rel = lingering_job(&mount)
            .prefix
            .strip_prefix(&mount)
            .unwrap()
            .to_path_buf();
        let host_prefix = match mode {
            "direct" => mount.join(&rel),
            _ => build.join("store").join(&rel),
        };
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "build::namespace::kill_child_build",
                "--exact",
                "--ignored",
                "--test-threads=1",
            ])
            .env(
                KILL_CHILD_ENV,
                format!("{mode}\n{}\n{}", mount.display(), build.display()),
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t0 = std::time::Instant::now();
        while !host_prefix.join("started").exists() {
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(120),
                "{mode}: the install step never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        child.wait().unwrap();
        std::thread::sleep(std::time::Duration::from_secs(6));
        assert!(
            !host_prefix.join("late").exists(),
            "{mode}: a build process outlived kill -9 of stack"
        );
    }
}
