//! The build sandbox (issue 13): what a build command can and cannot do,
//! checked with real commands in real namespaces.
//!
//! Every test runs as whoever runs the suite; when that is root (CI), the
//! test `the_sandbox_tests_pass_as_an_unprivileged_user` runs them all again
//! as an unprivileged user (created if missing) through `setpriv`, so both
//! cases are covered on every run.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use nix::libc;
use stack::sandbox::Namespace;

/// The tests `the_sandbox_tests_pass_as_an_unprivileged_user` runs again.
const SANDBOX_TESTS: &[&str] = &[
    "shows_store_at_mount_and_keeps_host_read_only",
    "cannot_undo_the_sandbox",
    "private_tmp_and_shm",
    "package_writes_only_its_stage_and_prefix",
    "background_processes_end_with_the_command",
    "sandbox_dies_with_its_parent",
    "direct_mode_processes_end_with_the_command",
];

/// The unprivileged user the suite creates when it runs as root.
const TEST_USER: &str = "stack-sandbox-test";

struct Dirs {
    _d: tempfile::TempDir,
    build: PathBuf,
    store: PathBuf,
    mount: PathBuf,
    outside: PathBuf,
}

fn dirs() -> Dirs {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("build");
    let store = build.join("store");
    let mount = d.path().join("mnt");
    let outside = d.path().join("outside");
    for p in [&store, &mount, &outside] {
        fs_err::create_dir_all(p).unwrap();
    }
    Dirs {
        build,
        store,
        mount,
        outside,
        _d: d,
    }
}

fn sh(ns: &Arc<Namespace>, cwd: &Path, script: &str) -> std::process::Output {
    if let Err(e) = ns.probe() {
        panic!("user namespaces unavailable: {e}");
    }
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script);
    ns.apply(&mut cmd, cwd).unwrap();
    cmd.output().unwrap()
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn shows_store_at_mount_and_keeps_host_read_only() {
    let t = dirs();
    let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
    let out = sh(
        &ns,
        &t.build,
        &format!(
            "echo hi > {m}/file && mkdir -p {m}/pkg/lib && echo log > build.log && ! touch {o}/x 2>/dev/null",
            m = t.mount.display(),
            o = t.outside.display()
        ),
    );
    ok(&out);
    assert_eq!(
        fs_err::read_to_string(t.store.join("file")).unwrap(),
        "hi\n"
    );
    assert!(t.store.join("pkg/lib").is_dir());
    assert!(t.build.join("build.log").is_file());
    assert!(
        !t.mount.join("file").exists(),
        "nothing written to the real mount point"
    );
    assert!(!t.outside.join("x").exists(), "host stays read-only");
}

/// Issue 13, item 2: as root the build could remount `/` writable (it
/// kept every capability in its user namespace). Now it runs as a
/// non-zero uid without capabilities, with no_new_privs and locked
/// mounts, whoever starts it.
#[test]
fn cannot_undo_the_sandbox() {
    let t = dirs();
    let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
    let marker = t.outside.join("escape");
    let out = sh(
        &ns,
        &t.build,
        &format!(
            "id -u; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status; \
             mount -o remount,bind,rw / 2>&1; mount -o remount,bind,rw {o} 2>&1; \
             umount -l {o} 2>&1; echo x > {marker} 2>&1; true",
            o = t.outside.display(),
            marker = marker.display()
        ),
    );
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!marker.exists(), "the build wrote outside: {text}");
    assert_ne!(
        text.lines().next(),
        Some("0"),
        "runs as root inside: {text}"
    );
    for field in ["CapEff", "CapPrm", "CapBnd"] {
        assert!(
            text.contains(&format!("{field}:\t0000000000000000")),
            "{field} not empty: {text}"
        );
    }
    assert!(text.contains("NoNewPrivs:\t1"), "{text}");
}

/// Issue 13, item 2: `/tmp` and `/dev/shm` are private to the build.
#[test]
fn private_tmp_and_shm() {
    let t = dirs();
    let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
    let name = format!("stack-sandbox-test-{}", std::process::id());
    let host_tmp = Path::new("/tmp").join(&name);
    fs_err::write(&host_tmp, "host").unwrap();
    let out = sh(
        &ns,
        &t.build,
        &format!(
            "test ! -e /tmp/{name} && echo in > /tmp/{name}.new && echo shm > /dev/shm/{name} \
             && echo ok > {m}/seen",
            m = t.mount.display()
        ),
    );
    let _ = fs_err::remove_file(&host_tmp);
    ok(&out);
    assert!(!Path::new("/tmp").join(format!("{name}.new")).exists());
    assert!(!Path::new("/dev/shm").join(&name).exists());
    // The build's own paths stay visible (these tests live in /tmp).
    assert!(t.store.join("seen").is_file());
}

/// Issue 13, item 6: a package may write only its stage and its own
/// prefix, not its dependencies' prefixes or `meta/`.
#[test]
fn package_writes_only_its_stage_and_prefix() {
    let t = dirs();
    for d in ["dep/lib", "pkg", "meta"] {
        fs_err::create_dir_all(t.store.join(d)).unwrap();
    }
    fs_err::write(t.store.join("dep/lib/libdep.so"), "orig").unwrap();
    let stage = t.build.join("stage/pkg");
    fs_err::create_dir_all(&stage).unwrap();
    let ns = Namespace::new(&t.build, &t.store, &t.mount)
        .unwrap()
        .for_package(&stage, &t.mount.join("pkg"));
    let m = t.mount.display();
    let out = sh(
        &ns,
        &stage,
        &format!(
            "echo new > {m}/pkg/file && echo log > here && \
             ! echo evil > {m}/dep/lib/libdep.so 2>/dev/null && \
             ! ln -s /etc {m}/meta/x 2>/dev/null && ! rm -rf {m}/meta 2>/dev/null && \
             ! touch {b}/stack.lock 2>/dev/null && ! touch {b}/store/dep/x 2>/dev/null && \
             echo host > {b}/store/pkg/host",
            b = t.build.display()
        ),
    );
    ok(&out);
    assert_eq!(
        fs_err::read_to_string(t.store.join("pkg/file")).unwrap(),
        "new\n"
    );
    assert_eq!(
        fs_err::read_to_string(t.store.join("dep/lib/libdep.so")).unwrap(),
        "orig"
    );
    assert!(t.store.join("meta").is_dir() && !t.store.join("meta/x").exists());
    assert!(stage.join("here").is_file());
    assert!(t.store.join("pkg/host").is_file());
}

/// Issue 13, item 7: a backgrounded process does not outlive its
/// command (it wrote into the store after the image was packed).
#[test]
fn background_processes_end_with_the_command() {
    let t = dirs();
    let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
    let out = sh(
        &ns,
        &t.build,
        &format!(
            "(sleep 1; echo late > {m}/late.txt) >/dev/null 2>&1 & echo started",
            m = t.mount.display()
        ),
    );
    ok(&out);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        !t.store.join("late.txt").exists(),
        "a build process survived"
    );
}

/// Issue 13, item 10: when the process that started the build dies
/// (here: the thread that spawned it ends, as with `kill -9` of
/// `stack`), the whole sandbox dies with it.
#[test]
fn sandbox_dies_with_its_parent() {
    let t = dirs();
    let ns = Namespace::new(&t.build, &t.store, &t.mount).unwrap();
    ns.probe().unwrap();
    let late = t.store.join("late.txt");
    let m = t.mount.clone();
    let cwd = t.build.clone();
    let child = std::thread::spawn(move || {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(format!(
            "(sleep 2; echo late > {}/late.txt) & wait",
            m.display()
        ));
        // SAFETY: prctl is async-signal-safe (what the runner sets).
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        ns.apply(&mut cmd, &cwd).unwrap();
        cmd.spawn().unwrap()
    })
    .join()
    .unwrap();
    let mut child = child;
    let status = child.wait().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(!late.exists(), "the build outlived its parent ({status})");
}

/// Issue 13, items 7 and 10, in direct mode (no mount sandbox): each
/// command still gets its own PID namespace, so a backgrounded process
/// ends with it, while it writes the real mount point directly.
#[test]
fn direct_mode_processes_end_with_the_command() {
    let t = dirs();
    let ns = Namespace::processes_only(&t.build, &t.mount).unwrap();
    let out = sh(
        &ns,
        &t.build,
        &format!(
            "echo now > {m}/now.txt; (sleep 1; echo late > {m}/late.txt) >/dev/null 2>&1 & echo started",
            m = t.mount.display()
        ),
    );
    ok(&out);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        t.mount.join("now.txt").is_file(),
        "writes the mount point itself"
    );
    assert!(
        !t.mount.join("late.txt").exists(),
        "a build process survived"
    );
}

/// CI runs as root: run every sandbox test again as an unprivileged user.
#[test]
fn the_sandbox_tests_pass_as_an_unprivileged_user() {
    if !nix::unistd::getuid().is_root() {
        // This run already is the unprivileged case.
        assert!(!SANDBOX_TESTS.is_empty());
        return;
    }
    crate::harness::user::ensure_user(TEST_USER);
    // The checkout may be where the user cannot go (/root/…): run a copy
    // of this test binary from a world-readable temporary directory.
    let dir = tempfile::Builder::new()
        .prefix("stack-sandbox-as-user")
        .tempdir_in("/tmp")
        .unwrap();
    let exe = dir.path().join("sandbox-tests");
    fs_err::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    use std::os::unix::fs::PermissionsExt;
    for (p, mode) in [(dir.path(), 0o755), (exe.as_path(), 0o755)] {
        fs_err::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = crate::harness::user::setpriv(TEST_USER)
        .arg(&exe)
        .args(["--exact", "--test-threads=1"])
        .args(SANDBOX_TESTS.iter().map(|t| format!("sandbox::{t}")))
        .env("TMPDIR", "/tmp")
        .current_dir("/")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "as {TEST_USER}: {}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("{} passed", SANDBOX_TESTS.len())),
        "{text}"
    );
}
