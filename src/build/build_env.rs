//! `stack build-env`: a package's exact build environment, recorded in its
//! stage (`<stage>/build-env.json`) when the package is staged, and
//! commands run in it later — in the stage's build directory, with the same
//! variables, `PATH`, wrapper and (when builds are sandboxed) the same
//! sandbox. Stages are kept for failed packages (and with `--keep-stage`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::sandbox::Namespace;

/// The record's file name in a stage directory.
pub const RECORD: &str = "build-env.json";

/// Everything needed to run a command as the build ran it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildEnvRecord {
    pub package: String,
    pub version: String,
    /// The install prefix (as builds see it).
    pub prefix: PathBuf,
    /// The stage directory.
    pub stage: PathBuf,
    /// Where the build system's commands run (the stage's build directory).
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
    /// Set when builds run in the private mount namespace.
    pub sandbox: Option<SandboxRecord>,
}

/// The parameters of a package's sandbox ([`Namespace::for_package`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SandboxRecord {
    pub build_dir: PathBuf,
    pub store: PathBuf,
    pub mount: PathBuf,
    /// Directories kept visible below the private `/tmp` (the wrapper's).
    pub keep: Vec<PathBuf>,
}

/// Why `stack build-env` cannot run.
#[derive(Debug, thiserror::Error)]
pub enum BuildEnvError {
    #[error(
        "no stage of `{package}` in {}{}\n  hint: stages are kept for packages that failed (and for all with `stack build --keep-stage`); run the build first",
        stage_dir.display(),
        if others.is_empty() { String::new() } else { format!(" (staged: {})", others.join(", ")) }
    )]
    NoStage {
        package: String,
        stage_dir: PathBuf,
        others: Vec<String>,
    },

    #[error("{}: {message}", path.display())]
    BadRecord { path: PathBuf, message: String },

    #[error("cannot prepare the build sandbox: {0}")]
    Sandbox(std::io::Error),
}

/// Write the record into its stage.
pub fn write(rec: &BuildEnvRecord) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(rec).map_err(std::io::Error::other)?;
    fs_err::write(rec.stage.join(RECORD), json + "\n")
}

/// The record of `package` in `build_dir/stage` (the newest, when several
/// versions were staged).
pub fn find(build_dir: &Path, package: &str) -> Result<BuildEnvRecord, BuildEnvError> {
    let stage_dir = build_dir.join("stage");
    let mut found: Vec<(std::time::SystemTime, BuildEnvRecord)> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&stage_dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for dir in entries {
        let path = dir.join(RECORD);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let rec = read(&path)?;
        if rec.package == package {
            found.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), rec));
        } else {
            others.push(rec.package);
        }
    }
    found.sort_by_key(|(t, _)| *t);
    found
        .pop()
        .map(|(_, r)| r)
        .ok_or_else(|| BuildEnvError::NoStage {
            package: package.to_string(),
            stage_dir,
            others,
        })
}

fn read(path: &Path) -> Result<BuildEnvRecord, BuildEnvError> {
    let bad = |message: String| BuildEnvError::BadRecord {
        path: path.to_path_buf(),
        message,
    };
    let text = fs_err::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
}

/// `argv` as the package's build commands run: its environment only, in
/// its build directory, in its sandbox. Standard streams are inherited.
pub fn command(rec: &BuildEnvRecord, argv: &[String]) -> Result<Command, BuildEnvError> {
    let (program, args) = argv
        .split_first()
        .map_or(("sh", &[][..]), |(p, a)| (p.as_str(), a));
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&rec.cwd)
        .env_clear()
        .envs(&rec.env);
    if let Some(s) = &rec.sandbox {
        // A failed build leaves no prefix; the sandbox mounts it writable,
        // so it is made again (empty) for the build by hand to install into.
        if let Ok(rel) = rec.prefix.strip_prefix(&s.mount) {
            fs_err::create_dir_all(s.store.join(rel)).map_err(BuildEnvError::Sandbox)?;
        }
        let ns = Namespace::new(&s.build_dir, &s.store, &s.mount)
            .and_then(|ns| ns.keeping(&s.keep))
            .map_err(BuildEnvError::Sandbox)?
            .for_package(&rec.stage, &rec.prefix);
        ns.apply(&mut cmd, &rec.cwd)
            .map_err(BuildEnvError::Sandbox)?;
    }
    Ok(cmd)
}

/// No stage or a bad record is the input's fault; the sandbox failing is not.
impl crate::diag::Classify for BuildEnvError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(!matches!(self, BuildEnvError::Sandbox(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_are_found_by_package() {
        let d = tempfile::tempdir().unwrap();
        let stage = d.path().join("stage/libx-1.0-abcdef01");
        fs_err::create_dir_all(&stage).unwrap();
        let rec = BuildEnvRecord {
            package: "libx".into(),
            version: "1.0".into(),
            prefix: "/m/libx".into(),
            stage: stage.clone(),
            cwd: stage.join("src"),
            env: [("PATH".to_string(), "/w".to_string())].into(),
            sandbox: None,
        };
        write(&rec).unwrap();
        assert_eq!(find(d.path(), "libx").unwrap(), rec);
        let err = find(d.path(), "liby").unwrap_err().to_string();
        assert!(
            err.contains("no stage of `liby`") && err.contains("(staged: libx)"),
            "{err}"
        );
        let cmd = command(&rec, &["make".into(), "-n".into()]).unwrap();
        assert_eq!(cmd.get_current_dir(), Some(stage.join("src").as_path()));
        let envs: Vec<_> = cmd.get_envs().collect();
        assert_eq!(envs.len(), 1);
    }
}
