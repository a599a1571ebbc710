//! Stage directories of older hashes: a package that failed keeps its stage
//! (`<build>/stage/<name>-<version>-<hash8>`) for inspection; once the recipe
//! changes, that hash is never built again and its stage would stay forever.
//! Before a build, every stage directory named like a slug of a package of
//! this graph but with another version or hash is removed (stages of other
//! packages are left alone: a build of another recipe may share the directory).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::graph::BuildGraph;

/// Whether `dir_name` is `<name>-<something>-<8 hex>` for `name`.
fn is_stage_of(dir_name: &str, name: &str) -> bool {
    let Some(rest) = dir_name
        .strip_prefix(name)
        .and_then(|r| r.strip_prefix('-'))
    else {
        return false;
    };
    let Some((version, hash)) = rest.rsplit_once('-') else {
        return false;
    };
    // A version starts with a digit (`2.28.9-1`) or is one word (`main`), so
    // that `aws` does not claim `aws-ofi-nccl-1.21.1-…`.
    let version_like = version.starts_with(|c: char| c.is_ascii_digit()) || !version.contains('-');
    !version.is_empty()
        && version_like
        && hash.len() == 8
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Removes the stage directories of older versions or hashes of the graph's
/// packages; returns what was removed.
pub(crate) fn prune_stages(build_dir: &Path, graph: &BuildGraph) -> Vec<PathBuf> {
    let stage = build_dir.join("stage");
    let Ok(entries) = std::fs::read_dir(&stage) else {
        return Vec::new();
    };
    let current: HashSet<String> = graph.jobs().map(|(_, j)| j.slug()).collect();
    let names: HashSet<&str> = graph.jobs().map(|(_, j)| j.name.as_str()).collect();
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let file_name = e.file_name();
        let Some(dir) = file_name.to_str() else {
            continue;
        };
        if current.contains(dir) || !e.path().is_dir() {
            continue;
        }
        if !names.iter().any(|n| is_stage_of(dir, n)) {
            continue;
        }
        if super::package::remove_tree(&e.path()).is_ok() {
            tracing::debug!("removed stale stage {}", e.path().display());
            removed.push(e.path());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names() {
        assert!(is_stage_of("nccl-2.28.9-1-0123abcd", "nccl"));
        assert!(is_stage_of("aws-ofi-nccl-1.21.1-0123abcd", "aws-ofi-nccl"));
        assert!(!is_stage_of("aws-ofi-nccl-1.21.1-0123abcd", "nccl"));
        assert!(!is_stage_of("nccl-2.28.9-1-notahash", "nccl"));
        assert!(!is_stage_of("nccl", "nccl"));
        assert!(!is_stage_of("ncclx-1-0123abcd", "nccl"));
        assert!(!is_stage_of("aws-ofi-nccl-1.21.1-0123abcd", "aws"));
        assert!(is_stage_of("aws-ofi-nccl-master-0123abcd", "aws-ofi-nccl"));
    }
}
