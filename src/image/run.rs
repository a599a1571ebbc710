//! `stack run` / `stack shell`: try an image (or a build's store) the way
//! `uenv start/run` would, without root: a user+mount+PID namespace
//! (`unshare --user --map-root-user --mount --pid --fork --kill-child
//! --mount-proc`) in
//! which the store is bind-mounted — or the image mounted with
//! `squashfuse` — at its mount point, a view optionally activated, then
//! the command run.
//!
//! The namespace's first process is a shell that runs the command and
//! exits with its status; when it exits, the kernel kills every process
//! left in the PID namespace (the `squashfuse` daemon, anything the command
//! left running), and with the last of them the mount namespace and its
//! mounts go. `unshare` dies with `stack` (`PR_SET_PDEATHSIG`) and takes
//! the namespace with it (`--kill-child`), so even a killed `stack run`
//! leaves no process and no mount behind.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What to mount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunSource {
    /// A build's `store/` directory (bind-mounted).
    Store(PathBuf),
    /// A squashfs image (mounted with squashfuse).
    Image(PathBuf),
}

/// A source and where it is mounted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunTarget {
    pub source: RunSource,
    pub mount: PathBuf,
}

/// Why an image or build cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}: not a squashfs image or a build directory with store/")]
    NotFound(PathBuf),
    #[error(
        "the mount point {0} does not exist on this machine\n  hint: create the empty directory once (as root: `mkdir {0}`); nothing is written into it"
    )]
    NoMountPoint(PathBuf),
    #[error("view `{view}` is not in the image (views: {known})")]
    UnknownView { view: String, known: String },
}

/// The default mount point when no `meta/env.json` says otherwise.
const DEFAULT_MOUNT: &str = "/user-environment";

/// Find the source and mount point of `path`: `store.squashfs` (mount from
/// `meta/env.json` beside it) or a build directory (`store/`, mount from
/// `meta/env.json` or `store/meta/env.json`).
pub fn locate(path: &Path) -> Result<RunTarget, RunError> {
    let (source, metas) = if path.is_file() && path.extension().is_some_and(|e| e == "squashfs") {
        let dir = path.parent().unwrap_or(Path::new("."));
        (
            RunSource::Image(path.to_path_buf()),
            vec![dir.join("meta/env.json")],
        )
    } else if path.join("store").is_dir() {
        (
            RunSource::Store(path.join("store")),
            vec![path.join("meta/env.json"), path.join("store/meta/env.json")],
        )
    } else {
        return Err(RunError::NotFound(path.to_path_buf()));
    };
    let mount = metas
        .iter()
        .find_map(|m| env_json(m)?.get("mount")?.as_str().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MOUNT));
    Ok(RunTarget { source, mount })
}

fn env_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&fs_err::read_to_string(path).ok()?).ok()
}

/// The views of the target (from `meta/env.json`), when known.
pub fn views(path: &Path) -> Vec<String> {
    let dir = if path.is_file() {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    };
    [dir.join("meta/env.json"), dir.join("store/meta/env.json")]
        .iter()
        .find_map(|m| env_json(m))
        .and_then(|v| {
            v.get("views")?
                .as_object()
                .map(|o| o.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// Runs as PID 1 of the namespace: mounts, activates the view, runs the
/// command as its child (not `exec`: when this shell exits, everything
/// else in the namespace is killed) and exits with the command's status.
const SCRIPT: &str = r#"set -e
src=$1 mnt=$2 how=$3 view=$4
shift 4
if [ "$how" = image ]; then squashfuse "$src" "$mnt"; else mount --bind "$src" "$mnt"; fi
if [ -n "$view" ]; then . "$mnt/env/$view/activate.sh"; fi
set +e
"$@"
exit $?
"#;

/// The command that runs `argv` with `target` mounted (and `view`
/// activated). Checks that the mount point exists.
pub fn command(
    target: &RunTarget,
    view: Option<&str>,
    argv: &[String],
) -> Result<Command, RunError> {
    if !target.mount.is_dir() {
        return Err(RunError::NoMountPoint(target.mount.clone()));
    }
    let (src, how) = match &target.source {
        RunSource::Store(p) => (p, "store"),
        RunSource::Image(p) => (p, "image"),
    };
    let mut cmd = Command::new("unshare");
    cmd.args([
        "--user",
        "--map-root-user",
        "--mount",
        "--pid",
        "--fork",
        "--kill-child",
        // /proc of the namespace: MPI's shared-memory transports find their
        // peers' memory by PID (`/proc/<pid>/fd/…`), PIDs of this namespace.
        "--mount-proc",
        "sh",
        "-c",
        SCRIPT,
        "sh",
    ])
    .arg(std::path::absolute(src).unwrap_or_else(|_| src.clone()))
    .arg(&target.mount)
    .arg(how)
    .arg(view.unwrap_or(""))
    .args(argv);
    // SAFETY: prctl is async-signal-safe; nothing else runs before exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                .map_err(std::io::Error::from)
        });
    }
    Ok(cmd)
}

/// What `stack run` cannot find is the input's fault.
impl crate::diag::Classify for RunError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::ErrorClass::Input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_and_builds_are_located_with_their_mount_point() {
        let tmp = tempfile::tempdir().unwrap();
        let b = tmp.path().join("b");
        fs_err::create_dir_all(b.join("store")).unwrap();
        fs_err::create_dir_all(b.join("meta")).unwrap();
        fs_err::write(
            b.join("meta/env.json"),
            r#"{"mount": "/opt/x", "views": {"default": {}}}"#,
        )
        .unwrap();
        fs_err::write(b.join("store.squashfs"), "").unwrap();
        let t = locate(&b).unwrap();
        assert_eq!(
            t,
            RunTarget {
                source: RunSource::Store(b.join("store")),
                mount: "/opt/x".into()
            }
        );
        let t = locate(&b.join("store.squashfs")).unwrap();
        assert_eq!(t.source, RunSource::Image(b.join("store.squashfs")));
        assert_eq!(t.mount, PathBuf::from("/opt/x"));
        assert_eq!(views(&b), ["default"]);
        assert!(matches!(
            locate(&tmp.path().join("nope")),
            Err(RunError::NotFound(_))
        ));
        let missing = RunTarget {
            source: t.source,
            mount: tmp.path().join("no-such-mount"),
        };
        assert!(matches!(
            command(&missing, None, &[]),
            Err(RunError::NoMountPoint(_))
        ));
    }
}
