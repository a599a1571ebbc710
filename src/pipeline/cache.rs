//! The binary cache in a build: before sources are fetched, install what
//! the cache has (so nothing is downloaded for it); the build itself
//! consults and feeds it as its [`crate::build::PrefixCache`] (see
//! [`crate::binary_cache::CachePrefixes`]).

use std::path::Path;

use petgraph::graph::NodeIndex;

use crate::binary_cache::{CacheEntry, CacheOutcome, CachePrefixes, PushSummary};
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

impl From<CacheOutcome> for CacheReport {
    fn from(o: CacheOutcome) -> CacheReport {
        CacheReport {
            enabled: true,
            fetched: o.fetched,
            rejected: o.rejected,
            pushes: o.pushes,
            offline: o.offline,
        }
    }
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
        build_seconds: None,
    }
}

/// Install every node of `missing` that the cache has; returns the nodes
/// still to build.
pub(super) fn fill_from_cache(
    cache: &CachePrefixes,
    plan: &Plan,
    store_dir: &Path,
    missing: Vec<NodeIndex>,
) -> Result<Vec<NodeIndex>, PipelineError> {
    let mut still = Vec::new();
    for idx in missing {
        if !cache.install(&entry(plan, store_dir, idx))? {
            still.push(idx);
        }
    }
    Ok(still)
}
