//! The binary cache's two hooks into a build: before building, install what
//! the cache has; while building, push what was built (see
//! [`crate::binary_cache`]).

use std::path::Path;

use petgraph::graph::NodeIndex;

use crate::binary_cache::{BinaryCache, CacheEntry, Fetched, PushSummary};
use crate::distribute::DistributeError;
use crate::resolve::Plan;

use super::PipelineError;
use super::prune::host_path;

/// What the binary cache did for one build.
#[derive(Clone, Debug, Default)]
pub struct CacheReport {
    /// A binary cache was given (`--binary-cache` or the cluster's).
    pub enabled: bool,
    /// Packages installed from the cache.
    pub fetched: Vec<String>,
    /// `name: reason` of cached packages refused (corrupt, untrusted): built instead.
    pub rejected: Vec<String>,
    pub pushes: PushSummary,
    /// The registry could not be reached or refused us: nothing was installed
    /// from it after that, and nothing is pushed.
    pub offline: bool,
}

/// The cache's view of a plan node.
pub(super) fn entry(plan: &Plan, store_dir: &Path, idx: NodeIndex) -> CacheEntry {
    let n = plan.node(idx);
    CacheEntry {
        name: n.name.clone(),
        version: n.version.to_string(),
        hash: n.hash.clone(),
        prefix: n.prefix.clone(),
        host_prefix: host_path(plan, store_dir, &n.prefix),
    }
}

/// Install every node of `missing` that the cache has; returns the nodes
/// still to build.
pub(super) fn fill_from_cache(
    cache: &BinaryCache,
    plan: &Plan,
    store_dir: &Path,
    missing: Vec<NodeIndex>,
    report: &mut CacheReport,
) -> Result<Vec<NodeIndex>, PipelineError> {
    report.enabled = true;
    let mut still = Vec::new();
    let mut unreachable = None;
    for idx in missing {
        if unreachable.is_some() {
            still.push(idx);
            continue;
        }
        let e = entry(plan, store_dir, idx);
        match cache.fetch(&e) {
            Ok(Fetched::Installed) => {
                tracing::info!("{}: installed from the binary cache", e.name);
                report.fetched.push(e.name);
            }
            Ok(Fetched::Miss) => still.push(idx),
            Ok(Fetched::Rejected(reason)) => {
                tracing::warn!("{}: not using the binary cache: {reason}", e.name);
                report.rejected.push(format!("{}: {reason}", e.name));
                still.push(idx);
            }
            Err(DistributeError::Io(err)) => return Err(err.into()),
            Err(err) => {
                // The registry is unreachable or refuses us: build everything
                // rather than fail, and say so once.
                tracing::warn!("binary cache {}: {err}; building without it", cache.url());
                report
                    .rejected
                    .push(format!("binary cache {} not used: {err}", cache.url()));
                unreachable = Some(err);
                report.offline = true;
                still.push(idx);
            }
        }
    }
    Ok(still)
}
