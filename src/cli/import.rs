//! `stack import spack`: Spack package.py files → stack package recipes.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use stack::ops::{ImportOptions, ImportRequest, import_spack};

use super::{CliError, Global};

/// Import package recipes from another package manager.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub source: Source,
}

#[derive(Debug, clap::Subcommand)]
pub enum Source {
    Spack(SpackArgs),
}

/// Convert Spack package.py files into stack package recipes.
///
/// Reads package.py statically (no Spack, no Python): directives, base
/// classes and build hooks become the recipe (`patch()`/`edit()` bodies of
/// `filter_file` calls become `build.filter` entries, applied with Python
/// regex semantics to the staged source); every construct that is not
/// translated is listed in the recipe's `imported:` block with its line in
/// package.py. `stack build` refuses a recipe with untranslated build logic
/// until a human has reviewed it and set `imported.reviewed: true`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack import spack --from ~/src/spack-packages zlib-ng lz4 --out recipes
  stack import spack --from ~/src/spack-packages --all --out /tmp/all --report /tmp/all/coverage.md

Patch files are copied to <OUT>/../patches/<package>/. With --report FILE the
coverage report is written to FILE (Markdown) and FILE with the extension
.json (summary). See docs/import.md.")]
pub struct SpackArgs {
    /// A spack-packages checkout (or a directory of <name>/package.py).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// Packages to import (Spack names: `zlib-ng`, `py-numpy`).
    #[arg(
        value_name = "PKG",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub packages: Vec<String>,
    /// Import every package of the checkout.
    #[arg(long)]
    pub all: bool,
    /// Directory the recipes are written to (<OUT>/<name>.yaml).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Another Spack repository whose packages the imported ones import
    /// (a site repository's packages importing spack-packages' `mpich`);
    /// repeatable, found by namespace.
    #[arg(long = "with-repo", value_name = "DIR")]
    pub with_repos: Vec<PathBuf>,
    /// Write the coverage report (Markdown) here, and a JSON summary beside it.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let Source::Spack(a) = args.source;
    let req = ImportRequest {
        options: ImportOptions {
            from: a.from,
            packages: if a.all { Vec::new() } else { a.packages },
            out: a.out,
            with_repos: a.with_repos,
            dry_run: false,
        },
        report: a.report,
    };
    let summary = import_spack(&req)?;
    let opts = &req.options;
    let failed = &summary.report.failed;
    let r = &summary.report;
    let mut out = super::output::stdout();
    let _ = writeln!(
        out,
        "imported {} packages into {}: directives complete {} ({:.1}%), hooks complete {} of {} ({:.1}%), {:.2} s",
        r.packages,
        opts.out.display(),
        r.directives_complete,
        r.directives_share(),
        r.hooks_complete,
        r.hook_packages,
        r.hooks_share(),
        r.wall_seconds
    );
    for o in r
        .outcomes
        .iter()
        .filter(|o| o.error.is_none())
        .take(if a.all { 0 } else { usize::MAX })
    {
        let n = o.untranslated.iter().filter(|(k, _)| k != "info").count();
        let runs = if o.runs_package_py {
            "build logic runs from package.py at build time; "
        } else {
            ""
        };
        if n > 0 || !runs.is_empty() {
            let _ = writeln!(
                out,
                "  {}: {runs}{n} untranslated construct(s), see imported.untranslated",
                o.name
            );
        }
    }
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let lines: Vec<String> = failed
        .iter()
        .map(|(n, why)| format!("{n}: {why}"))
        .collect();
    Err(CliError::input(miette::miette!(
        help = "the other packages were imported",
        "{} package(s) not imported:\n  {}",
        failed.len(),
        lines.join("\n  ")
    )))
}
