//! `stack verify BUILD|STORE|IMAGE`: installed prefixes against their
//! manifests.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// Check that installed prefixes still hold what their manifests record.
///
/// Every prefix records `.stack/manifest.json` when it is installed: path,
/// kind, mode, size and sha256 of every file, link targets. `stack verify`
/// walks each prefix again — in a build directory's store, in any store
/// directory (a direct-mode mount point), or inside a squashfs image, read
/// in place — and lists every file that is missing, extra, or modified
/// (content, size, mode, kind or link target), like `spack verify` or
/// `nix-store --verify --check-contents`. Outside the prefixes, anything
/// but `env/`, `modules/`, `meta/` and what the post-install hook added
/// (recorded in `meta/store-manifest.json`) is extra, and so is anything
/// in a prefix's `.stack/` but its records; a file with extended
/// attributes (which no manifest records) is reported as modified.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack verify build/demo              # build/demo/store
  stack verify /user-environment       # a store installed in direct mode
  stack verify build/demo/store.squashfs   # the packed image

Exit status: 0 every prefix matches its manifest; 1 differences (listed on
stdout: `missing`, `extra` or `modified` with the path and what changed);
2 bad input (no such path, no installed prefix found, unreadable image or
manifest).")]
pub struct Args {
    /// A build directory, a store directory or a squashfs image.
    #[arg(value_name = "BUILD|STORE|IMAGE")]
    pub path: PathBuf,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let report = stack::ops::verify(&args.path)?;
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&f.to_string());
        out.push('\n');
    }
    let status = if report.ok() {
        "ok".to_string()
    } else {
        format!("{} differences", report.findings.len())
    };
    out.push_str(&format!(
        "{} prefixes, {} recorded entries: {status}\n",
        report.prefixes.len(),
        report.entries
    ));
    super::output::out_bytes(out.as_bytes());
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
