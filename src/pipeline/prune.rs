//! Removing from the store what earlier plans left there.

use std::path::{Path, PathBuf};

use crate::resolve::{self, Plan};
use crate::store;

use super::PipelineError;

/// Where a prefix under the mount point lives in the store directory.
pub(super) fn host_path(plan: &Plan, store_dir: &Path, prefix: &Path) -> PathBuf {
    store::host_path(&plan.mount, store_dir, prefix).unwrap_or_else(|| prefix.to_path_buf())
}

/// Remove what earlier plans left in the store: directories beside this
/// plan's prefixes, named like a prefix (`<name>-<version>-<8 hex>`), that
/// the plan does not name — old hashes of changed packages, packages dropped
/// from the recipe, partial prefixes of failed builds. Without this they
/// would end up in the image. Returns the removed host paths.
///
/// In a shared store (direct mode) only prefixes this build directory's
/// record names are removed ([`store::Owned`]); anything else is kept.
pub(super) fn prune_store(
    plan: &Plan,
    store_dir: &Path,
    owned: Option<&store::Owned>,
) -> Result<Vec<PathBuf>, PipelineError> {
    let mut keep: std::collections::BTreeMap<
        PathBuf,
        std::collections::BTreeSet<std::ffi::OsString>,
    > = Default::default();
    for i in plan.topo_order() {
        let n = plan.node(i);
        if n.is_external() {
            continue;
        }
        let host = host_path(plan, store_dir, &n.prefix);
        if let (Some(parent), Some(name)) = (host.parent(), host.file_name())
            && parent.starts_with(store_dir)
        {
            keep.entry(parent.to_path_buf())
                .or_default()
                .insert(name.to_os_string());
        }
    }
    let mut removed = Vec::new();
    for (parent, names) in keep {
        let Ok(entries) = fs_err::read_dir(&parent) else {
            continue;
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            if names.contains(&name)
                || !entry.file_type()?.is_dir()
                || !name.to_str().is_some_and(resolve::is_prefix_name)
            {
                continue;
            }
            if owned.is_some_and(|o| !o.owns(&entry.path())) {
                tracing::info!(
                    "kept {}: not installed by this build",
                    entry.path().display()
                );
                continue;
            }
            store::wipe(&entry.path())?;
            removed.push(entry.path());
        }
    }
    removed.sort();
    Ok(removed)
}
