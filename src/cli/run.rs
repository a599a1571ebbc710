//! `stack run IMAGE|BUILD -- CMD` and `stack shell IMAGE|BUILD`: try an
//! image without root, as `uenv run` / `uenv start` would.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// Run a command with an image (or a build's store) mounted at its mount
/// point, without root.
///
/// A user, mount and PID namespace (`unshare`) bind-mounts BUILD/store, or
/// mounts the image with `squashfuse`, at the mount point from
/// meta/env.json; `--view` sources that view's activate.sh first. Nothing is
/// visible outside the command, and when it ends every process it left
/// (and squashfuse) ends with it: no process and no mount remains.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack run build/demo --view default -- hello-make
  stack run build/demo/store.squashfs -- ls /user-environment
  stack shell build/demo --view default

Needs `unshare` (util-linux), unprivileged user namespaces, squashfuse for
images, and the mount point directory on this machine (create it once as
root when missing). Inside, the user is mapped to root of the namespace.

Exit status: the command's; 2 when the image, build or view is not found.")]
pub struct Args {
    /// A build directory (with store/) or a store.squashfs.
    #[arg(value_name = "IMAGE|BUILD")]
    pub target: PathBuf,
    /// Activate this view first.
    #[arg(long, value_name = "VIEW")]
    pub view: Option<String>,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Start an interactive shell with an image (or a build's store) mounted,
/// as `uenv start` does.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack shell build/demo --view default
  stack shell build/demo/store.squashfs

The shell is $SHELL (else /bin/sh); `exit` leaves the namespace. See
`stack run --help` for what is needed.

Exit status: the shell's; 2 when the image, build or view is not found.")]
pub struct ShellArgs {
    /// A build directory (with store/) or a store.squashfs.
    #[arg(value_name = "IMAGE|BUILD")]
    pub target: PathBuf,
    /// Activate this view first.
    #[arg(long, value_name = "VIEW")]
    pub view: Option<String>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    exec(&args.target, args.view.as_deref(), &args.command)
}

pub fn shell(args: ShellArgs, _global: &Global) -> Result<ExitCode, CliError> {
    let sh = stack::settings::user_var("SHELL").unwrap_or_else(|| "/bin/sh".into());
    exec(&args.target, args.view.as_deref(), &[sh])
}

fn exec(
    target: &std::path::Path,
    view: Option<&str>,
    argv: &[String],
) -> Result<ExitCode, CliError> {
    let status = stack::ops::run_in_image(target, view, argv)?;
    Ok(ExitCode::from(
        status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)),
    ))
}
