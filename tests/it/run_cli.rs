//! `stack run` on a build directory and on its image: the store appears at
//! the mount point inside a user+mount namespace, the view is activated.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

/// A minimal build: store/ with a file and a view, meta/env.json naming a
/// mount point (an empty directory here).
fn build() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let mount = t.join("mnt");
    fs_err::create_dir_all(&mount).unwrap();
    write(&t.join("b/store/share/hello.txt"), "from the store\n");
    write(
        &t.join("b/store/env/default/activate.sh"),
        &format!("export HELLO_VIEW={}/share\n", mount.display()),
    );
    write(
        &t.join("b/meta/env.json"),
        &format!(
            r#"{{"mount": "{}", "views": {{"default": {{}}}}}}"#,
            mount.display()
        ),
    );
    tmp
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Stack::bare()
        .command()
        .args(["--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn namespaces_work() -> bool {
    Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn run_mounts_a_build_store_and_activates_the_view() {
    if !namespaces_work() {
        eprintln!("skipped: no unprivileged user namespaces here");
        return;
    }
    let b = build();
    let t = b.path();
    let build = t.join("b");
    let script = "cat \"$HELLO_VIEW/hello.txt\"; echo \"$HELLO_VIEW\"";
    let (code, out, err) = run(&[
        "run",
        build.to_str().unwrap(),
        "--view",
        "default",
        "--",
        "sh",
        "-c",
        script,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("from the store\n{}/mnt/share\n", t.display()));
    // Nothing stays mounted on the host.
    assert_eq!(fs_err::read_dir(t.join("mnt")).unwrap().count(), 0);
    // The command's exit status is passed on.
    let (code, _, _) = run(&["run", build.to_str().unwrap(), "--", "sh", "-c", "exit 7"]);
    assert_eq!(code, 7);
    let (code, _, err) = run(&[
        "run",
        build.to_str().unwrap(),
        "--view",
        "nope",
        "--",
        "true",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("view `nope` is not in the image (views: default)"),
        "{err}"
    );
}

#[test]
fn run_mounts_an_image_with_squashfuse() {
    let has = |p: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {p}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !namespaces_work()
        || !has("squashfuse")
        || !has("mksquashfs")
        || !Path::new("/dev/fuse").exists()
    {
        eprintln!("skipped: needs user namespaces, squashfuse, mksquashfs and /dev/fuse");
        return;
    }
    let b = build();
    let t = b.path();
    let st = Command::new("mksquashfs")
        .args([
            t.join("b/store").as_os_str(),
            t.join("b/store.squashfs").as_os_str(),
        ])
        .args(["-quiet", "-noappend"])
        .status()
        .unwrap();
    assert!(st.success());
    let image = t.join("b/store.squashfs");
    let (code, out, err) = run(&[
        "run",
        image.to_str().unwrap(),
        "--",
        "cat",
        &format!("{}/mnt/share/hello.txt", t.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "from the store\n");
}

/// `stack shell` starts `$SHELL` in the namespace with the view activated;
/// here the shell reads its commands from stdin, and its exit status is
/// `stack shell`'s.
#[test]
fn shell_starts_the_users_shell_with_the_store_mounted() {
    if !namespaces_work() {
        eprintln!("skipped: no unprivileged user namespaces here");
        return;
    }
    let b = build();
    let t = b.path();
    let build = t.join("b");
    let mut child = Stack::bare()
        .command()
        .args(["--color", "never", "shell", build.to_str().unwrap()])
        .args(["--view", "default"])
        .env("SHELL", "/bin/sh")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"cat \"$HELLO_VIEW/hello.txt\"\nexit 3\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from the store\n");
    assert_eq!(fs_err::read_dir(t.join("mnt")).unwrap().count(), 0);
    // An unknown view is bad input, before any shell starts.
    let (code, _, err) = run(&["shell", build.to_str().unwrap(), "--view", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope"), "{err}");
}

/// The processes whose command line holds `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs_err::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(needle) {
            out.push(format!("{}: {text}", e.file_name().to_string_lossy()));
        }
    }
    out
}

/// Issue 40, item 9: when the command ends, nothing `stack run` started
/// remains — not the squashfuse daemon, not what the command left running
/// — and nothing stays mounted.
#[test]
fn run_leaves_no_process_and_no_mount_behind() {
    let has = |p: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {p}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !namespaces_work()
        || !has("squashfuse")
        || !has("mksquashfs")
        || !Path::new("/dev/fuse").exists()
    {
        eprintln!("skipped: needs user namespaces, squashfuse, mksquashfs and /dev/fuse");
        return;
    }
    let b = build();
    let t = b.path();
    let image = t.join("b/store.squashfs");
    let st = Command::new("mksquashfs")
        .args([t.join("b/store").as_os_str(), image.as_os_str()])
        .args(["-quiet", "-noappend"])
        .status()
        .unwrap();
    assert!(st.success());
    let image_text = image.to_str().unwrap();
    // The command leaves a process of its own behind, too.
    let (code, out, err) = run(&[
        "run",
        image_text,
        "--",
        "sh",
        "-c",
        "sleep 4242 >/dev/null 2>&1 & cat \"$0\"",
        &format!("{}/mnt/share/hello.txt", t.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "from the store\n");
    let mut left = Vec::new();
    for _ in 0..20 {
        left = processes_with(image_text);
        left.extend(processes_with("sleep 4242"));
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(left.is_empty(), "left running: {left:?}");
    let mounts = fs_err::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(&t.join("mnt").display().to_string()),
        "{mounts}"
    );
    // The exit status is still the command's.
    let (code, _, _) = run(&["run", image_text, "--", "sh", "-c", "exit 5"]);
    assert_eq!(code, 5);
}
