//! The audit step of a build: the store as it will be packed, audited as
//! mounted at the mount point, with the recipe's and the cluster's
//! allow-lists and the cluster's loader facts.

use std::path::{Path, PathBuf};

use crate::audit::{AuditOptions, AuditReport, LoaderModel};
use crate::cluster::{Cluster, LoaderFacts};
use crate::resolve::Plan;
use crate::stacks::Inputs;

use super::PipelineError;

/// Audit `store_dir` (what the image is made of).
pub fn audit_store(
    plan: &Plan,
    store_dir: &Path,
    inputs: &Inputs,
) -> Result<AuditReport, PipelineError> {
    let mut opts = AuditOptions {
        mount: Some(plan.mount.clone()),
        only_below: audited_entries(plan, store_dir)?,
        // Run paths may name the library dirs of the externals it links.
        external_lib_dirs: linked_externals(plan)
            .into_iter()
            .filter_map(|i| plan.node(i).external.as_ref())
            .flat_map(|p| [p.join("lib"), p.join("lib64")])
            .collect(),
        loader: inputs
            .cluster
            .loader
            .as_ref()
            .map(|l| loader_model(&inputs.cluster, l)),
        ..Default::default()
    };
    opts.allow = inputs
        .cluster
        .audit
        .allow
        .iter()
        .chain(&inputs.recipe.audit.allow)
        .map(|a| a.value.clone())
        .collect();
    // The libraries of the externals this plan links are allowed by
    // construction; nothing of an external it does not link.
    let sys = inputs.cluster.system_dirs();
    for n in linked_externals(plan) {
        let n = plan.node(n);
        for g in crate::cluster::external_allow(&n.prefix, &n.recipe.library_names(), &sys) {
            if !opts.allow.contains(&g) {
                opts.allow.push(g);
            }
        }
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

/// The externals some built package of the plan links, directly or
/// through other packages (link dependencies), sorted: not those only
/// built with (cmake, perl).
fn linked_externals(plan: &Plan) -> Vec<petgraph::graph::NodeIndex> {
    let link = crate::recipes::DepTypes {
        build: false,
        link: true,
        run: false,
        test: false,
    };
    let mut out = std::collections::BTreeSet::new();
    for i in plan.graph.node_indices() {
        if plan.node(i).is_external() {
            continue;
        }
        for d in plan.closure(i, link) {
            if plan.node(d).is_external() {
                out.insert(d);
            }
        }
    }
    out.into_iter().collect()
}

/// Everything the image is made of except `meta/`: prefixes, views, modules
/// and what hooks added — but not the metadata, which holds the previous
/// run's report (the image must be a function of the lock file).
fn audited_entries(plan: &Plan, store_dir: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(store_dir)? {
        let name = entry?.file_name();
        if name != "meta" {
            out.push(plan.mount.join(name));
        }
    }
    out.sort();
    if out.is_empty() {
        // An empty store: audit nothing rather than everything.
        out.push(plan.mount.join(".empty"));
    }
    Ok(out)
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
    // The file name only: the report goes into the image, which must not
    // depend on where the configuration was checked out (or extracted, by
    // `stack build IMAGE`).
    m.source = format!(
        "cluster `{}` ({}, line {})",
        cluster.name.value,
        cluster
            .file
            .file_name()
            .map(|f| f.to_string_lossy())
            .unwrap_or_default(),
        facts.loc.line
    );
    m
}
