//! `stack build-env`: a command in the environment a package was built in.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use crate::build::build_env::{self, BuildEnvError, BuildEnvRecord};

use super::OpError;

/// Run `argv` in the recorded build environment of `package` (in the build
/// directory `build`, else in the one directory of `./build/` that has
/// it); its exit status.
pub fn run_in_build_env(
    build: Option<&Path>,
    package: &str,
    argv: &[String],
) -> Result<ExitStatus, OpError> {
    let rec = find(build, package)?;
    build_env::command(&rec, argv)?
        .status()
        .map_err(|e| OpError::Spawn {
            message: format!(
                "cannot run `{}` in the build environment of {}: {e}",
                argv[0], rec.package
            ),
            help: "the program must be on the build PATH: a base tool or a declared build dependency (docs/build.md)".into(),
        })
}

/// The record in `build`, else in the one directory of `./build/` that has it.
fn find(build: Option<&Path>, package: &str) -> Result<BuildEnvRecord, BuildEnvError> {
    if let Some(dir) = build {
        return build_env::find(dir, package);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("build")
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    let mut first_err = None;
    for dir in dirs {
        match build_env::find(&dir, package) {
            Ok(rec) => return Ok(rec),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| BuildEnvError::NoStage {
        package: package.to_string(),
        stage_dir: PathBuf::from("build/*/stage"),
        others: Vec::new(),
    }))
}
