//! Running as another user: `setpriv` to an unprivileged uid when the
//! tests run as root (CI), so permission checks mean something.

use std::process::Command;

use super::command::{STACK, Stack};

/// The uid and gid of `nobody`.
pub const NOBODY: &str = "65534";

/// Whether the tests run as root.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// `setpriv` as `user` (a name or a uid; its group of the same name or id),
/// no supplementary groups, no inheritable capabilities; the program and
/// its arguments follow.
pub fn setpriv(user: &str) -> Command {
    let mut c = Command::new("setpriv");
    c.args([
        &format!("--reuid={user}"),
        &format!("--regid={user}"),
        "--clear-groups",
        "--inh-caps=-all",
        "--",
    ]);
    c
}

impl Stack {
    /// `stack` (without `--color never`) as `nobody` when the tests run as
    /// root, else as the current user.
    pub fn unprivileged() -> Stack {
        if is_root() {
            let mut c = setpriv(NOBODY);
            c.arg(STACK);
            Stack::wrapping(c)
        } else {
            Stack::bare()
        }
    }

    /// `stack` (without `--color never`) as `nobody`.
    pub fn as_nobody() -> Stack {
        let mut c = setpriv(NOBODY);
        c.arg(STACK);
        Stack::wrapping(c)
    }
}

/// Creates the system user `name` (no home, no login shell) unless it
/// exists; another test process may create it at the same time.
pub fn ensure_user(name: &str) {
    let exists = || {
        Command::new("id")
            .arg("-u")
            .arg(name)
            .output()
            .unwrap()
            .status
            .success()
    };
    if exists() {
        return;
    }
    let st = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            name,
        ])
        .status()
        .unwrap();
    assert!(st.success() || exists(), "useradd {name}: {st}");
}
