//! The check over packages of a repository: each converted as `stack
//! import spack` converts it, each recorded by the oracle, compared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Counts, Difference, OracleError, compare, records};
use crate::import::{Repos, SpackRepo, convert_one, dir_name, package_name, packages_dir};

/// The differences of one package.
#[derive(Clone, Debug)]
pub struct PackageCheck {
    pub name: String,
    /// The oracle could not evaluate the class body (its message).
    pub oracle_error: Option<String>,
    /// The importer could not read the file (its message).
    pub import_error: Option<String>,
    pub differences: Vec<Difference>,
}

/// The package names of a repository (`from`: a checkout or a directory
/// of `<dir>/package.py`), sorted.
pub fn package_names(from: &Path) -> Vec<String> {
    let Ok(dir) = packages_dir(from) else {
        return Vec::new();
    };
    let mut names: Vec<String> = fs_err::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().join("package.py").is_file())
                .map(|e| package_name(&e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// `n` names of `names` picked by a fixed seed (the same sample on every
/// run for the same repository).
pub fn sample(names: &[String], n: usize, seed: u64) -> Vec<String> {
    let mut state = seed;
    let mut pool: Vec<&String> = names.iter().collect();
    let mut out = Vec::new();
    while out.len() < n && !pool.is_empty() {
        // 64-bit LCG (Knuth's constants).
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = (state >> 33) as usize % pool.len();
        out.push(pool.swap_remove(i).clone());
    }
    out.sort();
    out
}

/// Compare packages `names` of the repository `from` with the oracle's
/// records (`python` running `<layer>/directives.py`).
pub fn check(
    from: &Path,
    names: &[String],
    python: &Path,
    layer: &Path,
) -> Result<(Counts, Vec<PackageCheck>), OracleError> {
    let files = package_files(from, names)?;
    let oracle = records(python, layer, &files)?;
    Ok(compare_all(from, names, &oracle))
}

/// The `package.py` of each of `names` in the repository `from`.
pub fn package_files(from: &Path, names: &[String]) -> Result<Vec<PathBuf>, OracleError> {
    let dir = packages_dir(from).map_err(|e| OracleError::Failed {
        script: from.to_path_buf(),
        status: "no packages".into(),
        stderr: e.to_string(),
    })?;
    Ok(names
        .iter()
        .map(|n| dir.join(dir_name(n)).join("package.py"))
        .collect())
}

/// Compare packages `names` of the repository `from` with records the
/// oracle gave before (keyed by [`package_files`]' paths): the
/// whole-repository script keeps them while the comparison is worked on.
pub fn compare_all(
    from: &Path,
    names: &[String],
    oracle: &BTreeMap<PathBuf, serde_json::Value>,
) -> (Counts, Vec<PackageCheck>) {
    let files = package_files(from, names).unwrap_or_default();
    let Ok(dir) = packages_dir(from) else {
        return (Counts::default(), Vec::new());
    };
    let repos = Repos {
        own: SpackRepo::at(&dir),
        others: Vec::new(),
    };
    let checks: Vec<PackageCheck> = names
        .par_iter()
        .zip(files.par_iter())
        .map(|(name, file)| {
            let record = oracle.get(file).cloned().unwrap_or_default();
            let oracle_error = record.get("error").map(|e| e.to_string());
            match convert_one(name, &repos, from, None) {
                Ok(c) => PackageCheck {
                    name: name.clone(),
                    oracle_error,
                    import_error: None,
                    differences: compare(&c, &record, file),
                },
                Err(why) => PackageCheck {
                    name: name.clone(),
                    oracle_error,
                    import_error: Some(why),
                    differences: Vec::new(),
                },
            }
        })
        .collect();
    let mut counts = Counts::default();
    for c in &checks {
        counts.add(&c.differences, c.oracle_error.is_some());
    }
    (counts, checks)
}
