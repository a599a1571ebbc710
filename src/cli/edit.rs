//! `stack edit PKG`: open a package's recipe in the editor.

use std::process::ExitCode;

use super::lookup::{RepoArgs, recipe};
use super::output::outln;
use super::{CliError, Global};

/// Open the recipe file that defines a package in $VISUAL / $EDITOR.
///
/// The file opened is the one lookup uses (the first repository that has
/// `<PKG>.yaml`; `-v` logs the order). `--print` prints its path instead.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack edit libfabric
  stack edit hwloc --stack my-stack.yaml     # the recipe that stack would use
  stack edit zlib --print                    # just the path

The editor is $VISUAL, else $EDITOR, else `vi`; it may carry arguments
(`EDITOR=\"code --wait\"`).

Exit status: the editor's (0 when it succeeds), 1 when it cannot be run,
2 unknown package.")]
pub struct Args {
    /// The package.
    #[arg(value_name = "PKG")]
    pub package: String,
    /// Print the recipe's path instead of opening it.
    #[arg(long)]
    pub print: bool,
    #[command(flatten)]
    pub lookup: RepoArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let repo = args.lookup.load()?;
    // A recipe that does not parse is still worth opening: only an
    // unknown name is an error.
    let Some(file) = repo.file(&args.package).map(|p| p.to_path_buf()) else {
        return recipe(&repo, &args.package).map(|_| ExitCode::from(2));
    };
    if args.print {
        outln!("{}", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| stack::settings::user_var(v))
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(&file)
        .status()
        .map_err(|e| {
            CliError::failure(miette::miette!(
                help = "set VISUAL or EDITOR to an editor on PATH",
                "cannot run the editor `{program}`: {e}"
            ))
        })?;
    Ok(ExitCode::from(
        status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)),
    ))
}
