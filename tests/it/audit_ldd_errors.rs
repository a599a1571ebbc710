//! `stack ldd` says what is wrong with a path that is not a readable
//! regular file (a directory, a device, a FIFO, an unreadable file) instead
//! of "No such file or directory" or "not a dynamic executable", exits 1,
//! and never blocks on a FIFO.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::harness::Stack;

fn ldd(args: &[&str], cwd: &Path, as_nobody: bool) -> (i32, String) {
    let mut cmd = if as_nobody {
        Stack::as_nobody().command()
    } else {
        Stack::bare().command()
    };
    let out = cmd.arg("ldd").args(args).current_dir(cwd).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn paths_that_are_not_readable_files_are_named_for_what_they_are() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::create_dir(d.join("dir")).unwrap();
    nix::unistd::mkfifo(
        &d.join("fifo"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    let (code, text) = ldd(&["dir"], d, false);
    assert_eq!(
        (code, text.as_str()),
        (1, "dir: is a directory, not a file\n")
    );
    for p in ["fifo", "/dev/null"] {
        let (code, text) = ldd(&[p], d, false);
        assert_eq!(code, 1, "{text}");
        assert!(
            text.starts_with(&format!("{p}: not a regular file")),
            "{text}"
        );
    }
    let (code, text) = ldd(&["missing"], d, false);
    assert_eq!(
        (code, text.as_str()),
        (1, "missing: No such file or directory\n")
    );

    // Unreadable: as an unprivileged user (root reads anything).
    std::fs::copy("/bin/true", d.join("prog")).unwrap();
    std::fs::set_permissions(d.join("prog"), std::fs::Permissions::from_mode(0o111)).unwrap();
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = nix::unistd::geteuid().is_root();
    let (code, text) = ldd(&["prog"], d, root);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with("prog: cannot read it: Permission denied"),
        "{text}"
    );
}
