//! What installed stacks hold (`stack find`, `stack diff`), and what the
//! machine has (`stack compiler find`, `stack external find`).

use std::path::{Path, PathBuf};

use crate::cluster::detect::{FoundCompiler, find_compilers as detect_compilers, path_dirs};
use crate::cluster::detect_external::{FoundExternal, find_external};
use crate::view::diff::{Differences, diff as diff_sides, locate};
use crate::view::query::{Installed, find_installed};

use super::OpError;

/// The packages a build directory, image or store holds that match
/// `query` (every one without), by spec (`stack find`).
pub fn find(path: &Path, query: Option<&str>) -> Result<Vec<Installed>, OpError> {
    Ok(find_installed(path, query)?)
}

/// How two builds, images or lock files differ (`stack diff`).
pub fn diff(a: &Path, b: &Path) -> Result<Differences, OpError> {
    let (a, b) = (locate(a)?, locate(b)?);
    Ok(diff_sides(&a, &b)?)
}

/// The directories searched: `dirs`, else `PATH`'s.
fn search_dirs(dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    if dirs.is_empty() { path_dirs() } else { dirs }
}

/// The gcc and clang compilers in `dirs` (else on `PATH`), and the
/// directories searched (`stack compiler find`).
pub fn find_compilers(dirs: Vec<PathBuf>) -> (Vec<FoundCompiler>, Vec<PathBuf>) {
    let dirs = search_dirs(dirs);
    (detect_compilers(&dirs), dirs)
}

/// The packages `names` found with pkg-config or in `dirs` (else on
/// `PATH`) (`stack external find`).
pub fn find_externals(names: &[String], dirs: Vec<PathBuf>) -> Vec<FoundExternal> {
    let dirs = search_dirs(dirs);
    names
        .iter()
        .filter_map(|n| find_external(n, &dirs))
        .collect()
}
