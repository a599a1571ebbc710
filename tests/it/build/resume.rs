//! kill -9 at several points, rerun → the same result as an uninterrupted
//! build; two builds on one build directory.
//!
//! The interrupted build runs in a child process: this test binary again,
//! running the ignored helper test `resume::child_build`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use stack::build::*;
use stack::lock::LockWait;
use stack::store::StoreError;

use crate::harness::build::*;

const CHILD_ENV: &str = "STACK_BUILD_TEST_CHILD";

/// Four packages over three build systems, with sleeps in different phases
/// so the kill points land in staging, building, installing and registering.
fn slow_graph(mount: &Path) -> BuildGraph {
    let sleep = |s: &str| vec![vec!["sleep".to_string(), s.to_string()]];
    let mut calc = makefile_calc(mount);
    calc.steps.pre_build = sleep("0.3");
    let mut mk = makefile_mktool(mount, &calc);
    mk.steps.pre_install = sleep("0.3");
    let greet = cmake_greet(mount, &calc);
    let mut headers = generic_headers(mount);
    headers.steps.post_install = sleep("0.4");
    let mut g = BuildGraph::new();
    let c = g.add(calc);
    let m = g.add(mk);
    let gr = g.add(greet);
    g.add(headers);
    g.depends_on(m, c);
    g.depends_on(gr, c);
    g
}

#[test]
#[ignore = "helper process of the kill -9 and lock tests; does nothing on its own"]
fn child_build() {
    let Some(spec) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let spec = spec.to_string_lossy().into_owned();
    let (mount, build) = spec.split_once('\n').unwrap();
    let (mount, build) = (PathBuf::from(mount), PathBuf::from(build));
    let summary = run_plan(
        &slow_graph(&mount),
        &options(&build, &mount, MountMode::Direct),
        &NoopReporter,
    )
    .unwrap();
    assert_success(&summary);
}

fn spawn_child(mount: &Path, build: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "build::resume::child_build",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .env(
            CHILD_ENV,
            format!("{}\n{}", mount.display(), build.display()),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn kill9(child: &mut Child) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    child.wait().unwrap();
}

/// A prefix with `installed.json` must be complete: its manifest matches the disk.
fn assert_installed_means_complete(mount: &Path) -> usize {
    let mut complete = 0;
    for e in fs_err::read_dir(mount).unwrap() {
        let p = e.unwrap().path();
        if p.join(".stack/installed.json").exists() {
            let recorded = stack::store::record::read_manifest(&p).unwrap();
            let actual = stack::store::manifest(&p).unwrap();
            assert_eq!(
                recorded,
                actual,
                "{} is registered but incomplete",
                p.display()
            );
            complete += 1;
        }
    }
    complete
}

fn clear(dir: &Path) {
    if dir.exists() {
        fs_err::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn kill_9_at_several_points_then_rerun_gives_the_uninterrupted_result() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let g = slow_graph(&mount);
    let opts = options(&build, &mount, MountMode::Direct);

    let reference = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert_success(&reference);
    let expected = manifests(&mount);
    assert_eq!(expected.len(), 4);

    let mut resumed_some = false;
    for delay in [100u64, 450, 900, 1500, 2500] {
        clear(&mount);
        clear(&build);
        let mut child = spawn_child(&mount, &build);
        std::thread::sleep(Duration::from_millis(delay));
        kill9(&mut child);
        // Orphaned grandchildren (a compiler under the killed make) finish quickly.
        std::thread::sleep(Duration::from_millis(200));
        let complete = if mount.exists() {
            assert_installed_means_complete(&mount)
        } else {
            0
        };

        let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
        assert_success(&summary);
        assert_eq!(
            summary.reused().count(),
            complete,
            "after kill at {delay} ms"
        );
        assert_eq!(summary.built().count(), 4 - complete);
        resumed_some |= complete > 0 && complete < 4;
        assert_eq!(manifests(&mount), expected, "after kill at {delay} ms");
        assert_eq!(assert_installed_means_complete(&mount), 4);
    }
    assert!(resumed_some, "no kill point fell between two installs");
}

#[test]
fn a_second_build_on_one_build_dir_fails_clearly_or_waits() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let build = tmp.path().join("build");
    let g = slow_graph(&mount);
    let mut child = spawn_child(&mount, &build);
    let lock = build.join("build.lock");
    let holder = format!("pid {}", child.id());
    let t0 = Instant::now();
    while fs_err::read_to_string(&lock)
        .map(|s| s.trim() != holder)
        .unwrap_or(true)
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "child never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut fail = options(&build, &mount, MountMode::Direct);
    fail.lock_wait = LockWait::Fail;
    let err = run_plan(&g, &fail, &NoopReporter).unwrap_err();
    assert!(
        matches!(err, BuildError::Store(StoreError::Locked { .. })),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("is locked by another `stack` process"),
        "{msg}"
    );
    assert!(msg.contains(&holder), "{msg}");

    let rec = Recorder::default();
    let summary = run_plan(&g, &options(&build, &mount, MountMode::Direct), &rec).unwrap();
    assert!(
        rec.events.borrow()[0].starts_with("waiting "),
        "{:?}",
        rec.events.borrow()
    );
    assert!(child.wait().unwrap().success());
    // The other build installed everything while we waited.
    assert_eq!(summary.reused().count(), 4);
}
