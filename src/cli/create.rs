//! `stack create URL`: a package recipe skeleton from a source archive.

use std::path::PathBuf;
use std::process::ExitCode;

use super::inputs::SourceArgs;
use super::output::outln;
use super::{CliError, Global};

/// Write a package recipe skeleton for a source archive: name and version
/// from the file name, sha256 from the download, build system detected
/// (CMakeLists.txt, meson.build, configure(.ac), Makefile).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack create https://download.open-mpi.org/release/hwloc/v2.12/hwloc-2.12.2.tar.bz2
  stack create file:///srv/src/libfoo-1.0.tar.gz --dir site/recipes
  stack create ./dist/libfoo-1.0.tar.gz --print

The recipe is written to DIR/<name>.yaml (never over an existing file
without --force); fill in what it marks FIXME, then `stack info <name>` and
`stack check` your stack.

Exit status: 0 written, 1 download or unpacking failed, 2 no name and
version in the file name, or the recipe exists.")]
pub struct Args {
    /// The source archive: https://, file:// or a path.
    #[arg(value_name = "URL")]
    pub url: String,
    /// The package repository to write into.
    #[arg(long, value_name = "DIR", default_value = "recipes")]
    pub dir: PathBuf,
    /// Print the recipe instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// Replace an existing recipe.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub sources: SourceArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let resolved = super::settings::resolve(&args.sources.flags(), None);
    let settings = args.sources.sources(&resolved)?;
    let url = match args.url.strip_prefix("file://") {
        Some(_) => args.url.clone(),
        None if !args.url.contains("://") => std::path::absolute(&args.url)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| args.url.clone()),
        None => args.url.clone(),
    };
    let skeleton = stack::ops::create_recipe(&url, settings)
        .map_err(|e| CliError::failure(miette::miette!("{e}")))?
        .ok_or_else(|| {
            CliError::input(miette::miette!(
                help = "the file name must look like NAME-VERSION.tar.gz",
                "no package name and version in `{url}`"
            ))
        })?;
    let text = skeleton.recipe();
    if args.print {
        outln!("{}", text.trim_end_matches('\n'));
        return Ok(ExitCode::SUCCESS);
    }
    let file = args.dir.join(format!("{}.yaml", skeleton.name));
    if file.exists() && !args.force {
        return Err(CliError::input(miette::miette!(
            help = "pass --force to replace it, or --print",
            "{} exists",
            file.display()
        )));
    }
    fs_err::create_dir_all(&args.dir).and_then(|()| fs_err::write(&file, text))?;
    outln!(
        "wrote {} ({}@{}, build system {})",
        file.display(),
        skeleton.name,
        skeleton.version,
        skeleton.system
    );
    Ok(ExitCode::SUCCESS)
}
