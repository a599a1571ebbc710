//! The audit step of a build: the store as it will be packed, audited as
//! mounted at the mount point, with the recipe's and the cluster's
//! allow-lists and the cluster's loader facts.

use std::path::Path;

use crate::audit::{AuditOptions, AuditReport, LoaderModel};
use crate::cluster::{Cluster, LoaderFacts};
use crate::recipe::Inputs;
use crate::resolve::Plan;

use super::PipelineError;

/// Audit `store_dir` (what the image is made of).
pub fn audit_store(
    plan: &Plan,
    store_dir: &Path,
    inputs: &Inputs,
) -> Result<AuditReport, PipelineError> {
    let mut opts = AuditOptions {
        mount: Some(plan.mount.clone()),
        loader: inputs
            .cluster
            .loader
            .as_ref()
            .map(|l| loader_model(&inputs.cluster, l)),
        ..Default::default()
    };
    for a in inputs
        .recipe
        .audit
        .allow
        .iter()
        .chain(inputs.cluster.audit.allow.iter())
    {
        opts.allow.push(a.value.clone());
    }
    let mut report = crate::audit::audit_tree(store_dir, &opts)?;
    // The report goes into the image: name the tree by its mount point, not
    // by this build directory, and leave the wall time to the build summary,
    // so that two builds of one lockfile write the same report.
    for input in &mut report.inputs {
        input.path = plan.mount.display().to_string();
    }
    report.summary.elapsed_ms = 0;
    Ok(report)
}

/// The loader the cluster describes: the facts of its `loader:` block over
/// the defaults of its target's family (the host's `ld.so` when the family
/// is the host's, for the hwcaps levels).
pub fn loader_model(cluster: &Cluster, facts: &LoaderFacts) -> LoaderModel {
    let family =
        crate::spec::target_family(&cluster.target.value).unwrap_or(std::env::consts::ARCH);
    let mut m = if family == std::env::consts::ARCH {
        LoaderModel::host()
    } else {
        LoaderModel::defaults(family, Path::new("/"))
    };
    if !facts.default_dirs.is_empty() {
        m.default_dirs = facts
            .default_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
    }
    if let Some(lib) = &facts.lib {
        m.lib = lib.clone();
    }
    if let Some(platform) = &facts.platform {
        m.platform = platform.clone();
    }
    if let Some(cache) = &facts.ld_so_cache {
        m.ld_so_cache = Some(cache.display().to_string());
    }
    m.source = format!(
        "cluster `{}` ({}, line {})",
        cluster.name.value,
        crate::diag::display_path(&cluster.file),
        facts.loc.line
    );
    m
}
