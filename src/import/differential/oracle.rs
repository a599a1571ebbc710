//! The oracle: `python3 -I <layer>/directives.py FILE…`, which evaluates each
//! package class body with directives that record what they are given
//! (seam §4), and prints the records as JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the oracle gave no records.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("cannot run {python} {script}: {source}")]
    Spawn {
        python: PathBuf,
        script: PathBuf,
        source: std::io::Error,
    },
    #[error("{script} failed ({status}): {stderr}")]
    Failed {
        script: PathBuf,
        status: String,
        stderr: String,
    },
    #[error("{script} printed no JSON: {source}")]
    Json {
        script: PathBuf,
        source: serde_json::Error,
    },
}

/// Files per run of the oracle (one Python process each).
const CHUNK: usize = 400;

/// The x86_64 record of each file (keyed by the path given), from
/// `<layer>/directives.py` run by `python`.
pub fn records(
    python: &Path,
    layer: &Path,
    files: &[PathBuf],
) -> Result<BTreeMap<PathBuf, serde_json::Value>, OracleError> {
    let script = layer.join("directives.py");
    let mut out = BTreeMap::new();
    for chunk in files.chunks(CHUNK) {
        let o = Command::new(python)
            .arg("-I")
            .arg("-B")
            .arg(&script)
            .args(chunk)
            .output()
            .map_err(|source| OracleError::Spawn {
                python: python.to_path_buf(),
                script: script.clone(),
                source,
            })?;
        // Exit 1: some file's class body raised (recorded per file).
        if !matches!(o.status.code(), Some(0 | 1)) {
            return Err(OracleError::Failed {
                script,
                status: o.status.to_string(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            });
        }
        let json: serde_json::Value =
            serde_json::from_slice(&o.stdout).map_err(|source| OracleError::Json {
                script: script.clone(),
                source,
            })?;
        let packages = json["packages"].as_array().cloned().unwrap_or_default();
        for (file, p) in chunk.iter().zip(packages) {
            out.insert(file.clone(), p["archs"]["x86_64"].clone());
        }
    }
    Ok(out)
}
