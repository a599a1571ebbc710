//! `stack checksum PKG [VERSION…]`: fetch sources and print recipe lines.

use std::io::Write;
use std::process::ExitCode;

use stack::ops::{ChecksumError, Recorded};

use super::inputs::SourceArgs;
use super::lookup::{RepoArgs, recipe};
use super::{CliError, Global};

/// Fetch a package's sources and print its `versions:` lines with sha256
/// (archives) or commits (git tags and branches).
///
/// Every version of the recipe, or the VERSIONs given; a version the
/// recipe does not list gets the URL of the newest archive version with
/// the version text replaced. Downloads go into the source cache.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack checksum zlib                 # check every version of the recipe
  stack checksum zlib 1.3.2           # a new version: URL derived from the newest one
  stack checksum hwloc --stack my-stack.yaml

Each line is a `versions:` entry to paste into the recipe, followed by a
comment: `matches the recipe`, `differs from the recipe (recipe: …)` or `new`.

Exit status: 0 every version matches or is new, 1 a download failed or a
version differs from the recipe, 2 unknown package or version.")]
pub struct Args {
    /// The package.
    #[arg(value_name = "PKG")]
    pub package: String,
    /// Versions to check (default: every version of the recipe).
    #[arg(value_name = "VERSION")]
    pub versions: Vec<String>,
    #[command(flatten)]
    pub lookup: RepoArgs,
    #[command(flatten)]
    pub sources: SourceArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let repo = args.lookup.load()?;
    let r = recipe(&repo, &args.package)?;
    let resolved = super::settings::resolve(&args.sources.flags(), None);
    let settings = args.sources.sources(&resolved)?;
    let results = stack::ops::checksum(&r, &args.versions, settings);
    let mut out = super::output::stdout();
    let mut err = super::output::stderr();
    let (mut differs, mut failed, mut bad_input) = (false, 0, false);
    for result in &results {
        let l = match result {
            Ok(l) => l,
            Err((version, e)) => {
                // Every version is tried; each failure is reported in its place.
                failed += 1;
                bad_input |= matches!(e, ChecksumError::NoUrl { .. });
                let _ = writeln!(err, "error: {} {version}: {e}", r.name);
                continue;
            }
        };
        let note = match &l.recorded {
            Recorded::New => "new".to_string(),
            Recorded::Matches => "matches the recipe".to_string(),
            Recorded::Differs(old) => {
                differs = true;
                format!(
                    "differs from the recipe (recipe: {})",
                    old.as_deref().unwrap_or("none")
                )
            }
        };
        let _ = writeln!(out, "  {}  # {note}", l.yaml());
    }
    if failed > 0 {
        let _ = writeln!(
            err,
            "{failed} of {} version{} could not be checksummed",
            results.len(),
            if results.len() == 1 { "" } else { "s" }
        );
    }
    Ok(if bad_input {
        ExitCode::from(2)
    } else if differs || failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
