//! `stack diff A B`: compare two lock files, builds or images.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// Compare two lock files, builds or images: versions, variants, hashes
/// and sources of every package; environment variables and views
/// (`meta/env.json`); for two build directories, the files in their stores.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack diff stacks/demo.lock.old stacks/demo.lock
  stack diff build/demo-old build/demo            # plan, env.json and store files
  stack diff old/store.squashfs build/demo/store.squashfs

A and B may each be a lock file, a build directory (BUILD/meta/stack.lock)
or an image (store.squashfs with meta/ beside it).

Exit status: 0 no differences, 1 differences (listed on stdout), 2 a side
cannot be read.")]
pub struct Args {
    /// The old side.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The new side.
    #[arg(value_name = "B")]
    pub b: PathBuf,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let d = stack::ops::diff(&args.a, &args.b)?;
    let mut out = super::output::stdout();
    for (title, lines) in [
        ("plan", &d.plan),
        ("environment (meta/env.json)", &d.env),
        ("files (store)", &d.files),
    ] {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}:");
        for l in lines {
            let _ = writeln!(out, "  {l}");
        }
    }
    if d.is_empty() {
        let _ = writeln!(out, "no differences");
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::from(1))
}
