//! Cluster configurations (`cluster-configs/<c>/cluster.yaml`): what is true
//! of a system rather than of a stack — target, OS, system compilers,
//! externals and package policies, network defaults, mirrors, the audit
//! allow-list and the loader facts of the target.
//!
//! [`load_cluster`] reads and validates one; [`find_default`] finds
//! `cluster-configs/local` walking up from a directory. [`Policies`] (the
//! `packages:` shape) is shared with stack recipes, which merge theirs over
//! the cluster's ([`Policies::merged_with`]).

mod allow;
mod binary_cache;
mod ci;
pub mod detect;
pub mod detect_external;
pub(crate) mod fingerprint;
mod load;
mod model;
mod policy;

use std::path::{Path, PathBuf};

pub use allow::{SystemDirs, external_allow};
pub use binary_cache::BinaryCacheConfig;
pub use ci::CiConfig;
pub use fingerprint::{compiler_fingerprint, compiler_fingerprint_cached};
pub use load::{
    CLUSTER_FILE, HostFacts, audit, load_cluster, mirrors, network, parse_cluster,
    parse_cluster_on, policies,
};
pub use model::{AuditConfig, Cluster, Compiler, LoaderFacts, Mirror, Network};
pub use policy::{External, PackagePolicy, Policies};

/// The cluster configuration used when none is given: `cluster-configs/local`
/// in `start` or the nearest ancestor that has one, else in the source tree
/// `stack` was built from.
pub fn find_default(start: &Path) -> Option<PathBuf> {
    locate_default(start).map(|d| d.dir)
}

/// Where the default cluster configuration was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultCluster {
    /// The directory holding `cluster.yaml`.
    pub dir: PathBuf,
    /// `true`: not found above `start`; this is the source tree's
    /// `cluster-configs/local`, so the result depends on which binary runs.
    pub from_source_tree: bool,
}

/// [`find_default`], saying whether the source tree's fallback was used.
pub fn locate_default(start: &Path) -> Option<DefaultCluster> {
    if let Some(dir) = start
        .ancestors()
        .map(|a| a.join("cluster-configs/local"))
        .find(|p| p.join(CLUSTER_FILE).is_file())
    {
        return Some(DefaultCluster {
            dir,
            from_source_tree: false,
        });
    }
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/cluster-configs/local"
    ));
    dir.join(CLUSTER_FILE).is_file().then_some(DefaultCluster {
        dir,
        from_source_tree: true,
    })
}

#[cfg(test)]
mod tests;
