//! `stack dependents PKG`: the recipes that depend on a package.

use std::io::Write;
use std::process::ExitCode;

use stack::ops::{dependents, dependents_transitive};

use super::lookup::{RepoArgs, recipe};
use super::{CliError, Global};

/// List the recipes that depend on a package (directly, or through a
/// virtual it provides).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack dependents libfabric          # package, dependency as written, condition, file:line
  stack dependents zlib --transitive  # every package reaching zlib, with its distance

Exit status: 0 listed (also when nothing depends on it), 2 unknown package.")]
pub struct Args {
    /// The package.
    #[arg(value_name = "PKG")]
    pub package: String,
    /// Also the packages that depend on it indirectly (name and distance).
    #[arg(long)]
    pub transitive: bool,
    #[command(flatten)]
    pub lookup: RepoArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let repo = args.lookup.load()?;
    let name = args.package.as_str();
    recipe(&repo, name)?;
    let mut out = super::output::stdout();
    if args.transitive {
        for (pkg, distance) in dependents_transitive(&repo, name) {
            let _ = writeln!(out, "{pkg}  {distance}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 4]> = dependents(&repo, name)
        .into_iter()
        .map(|r| {
            [
                r.package,
                r.spec,
                r.when.map(|w| format!("when {w}")).unwrap_or_default(),
                format!("{}:{}", stack::diag::display_path(&r.loc.file), r.loc.line),
            ]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].len()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for [pkg, spec, when, at] in rows {
        let line = format!("{pkg:<w0$}  {spec:<w1$}  {when:<w2$}  {at}");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    Ok(ExitCode::SUCCESS)
}
