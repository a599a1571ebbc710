//! Before a build starts: warnings for what would otherwise surprise
//! (building for a machine this one cannot run, creating the mount point
//! directory on this machine), and the preflight of build logic — what can
//! still refuse a `stack build` before anything is fetched: no Python (or
//! one too old) to run the `spack` packages to build, a package file that
//! is missing or changed.

use std::path::Path;

use petgraph::graph::NodeIndex;

use crate::build_logic::job::LogicRuntime;
use crate::build_logic::{BuildLogicError, interpreter};
use crate::resolve::Plan;
use crate::stacks::Inputs;

/// Why a build with build logic cannot start.
#[derive(Debug, thiserror::Error)]
pub enum PreflightError {
    #[error("preflight: {0}")]
    Interpreter(#[from] interpreter::InterpreterError),
    #[error("preflight: {0}")]
    PackageFile(#[from] BuildLogicError),
}

/// The runtime of the build logic of the nodes in `to_build` that run any
/// (with the package files of their closures checked and the interpreter
/// chosen and checked); the default when none does.
pub fn build_logic(
    plan: &Plan,
    to_build: &[NodeIndex],
    inputs: &Inputs,
    build_dir: &Path,
) -> Result<LogicRuntime, PreflightError> {
    let runs = |i: &NodeIndex| plan.node(*i).recipe.build.system.kind.runs_build_logic();
    let with_logic: Vec<NodeIndex> = to_build.iter().copied().filter(runs).collect();
    if with_logic.is_empty() {
        return Ok(LogicRuntime::default());
    }
    for idx in &with_logic {
        let node = plan.node(*idx);
        for f in node.recipe.build.system.package_files() {
            if let Some(pf) = f.to_package_file() {
                pf.verify(&node.name)?;
            }
        }
    }
    let names: Vec<&str> = with_logic
        .iter()
        .map(|i| plan.node(*i).name.as_str())
        .collect();
    let shown = match names.len() {
        n if n > 5 => format!("{} and {} more", names[..5].join(", "), n - 5),
        _ => names.join(", "),
    };
    let cluster_python = inputs
        .cluster
        .packages
        .get("python")
        .and_then(|p| p.externals.as_ref())
        .and_then(|e| e.first())
        .map(|e| e.prefix.clone());
    let python = interpreter::choose(cluster_python.as_deref(), &shown)?;
    tracing::info!(
        "build logic of {shown} runs with Python {} ({}, {})",
        python.version_text(),
        python.path.display(),
        python.choice
    );
    let runtime = LogicRuntime::new(python.path, build_dir);
    // The layer and its bytecode, once for the whole build.
    let compiled = crate::build_logic::write_layer(&runtime.layer_root)
        .and_then(|dir| crate::build_logic::embedded::compile_layer(&dir, &runtime.python));
    if let Err(e) = compiled {
        tracing::warn!(
            "the build logic's layer is not precompiled (each package compiles it): {e}"
        );
    }
    Ok(runtime)
}

/// The warning for building `target` on a machine of architecture
/// `host_arch` (`std::env::consts::ARCH`), when its programs cannot run here.
pub fn foreign_target(target: &str, host_arch: &str) -> Option<String> {
    let family = crate::spec::target_family(target)?;
    (family != host_arch).then(|| {
        format!(
            "building for `{target}` ({family}) on a {host_arch} machine: programs built here cannot run here, \
             so configure checks that run test programs and the packages' own tests will fail; \
             build on a {family} node (or under emulation)"
        )
    })
}

/// Create the missing mount point `mount` (an empty directory for the
/// build namespace to mount over), saying so first; `false` when it could
/// not be created (the build then explains what to do).
pub fn create_mount_point(mount: &Path) -> bool {
    if mount.exists() {
        return true;
    }
    tracing::warn!(
        "creating the mount point {} on this machine: an empty directory for the build to mount \
         its store over (nothing is written into it; `rmdir` it when no longer needed)",
        mount.display()
    );
    fs_err::create_dir_all(mount).is_ok()
}

/// Log the warnings that apply before building for `target`.
pub fn warn_before_build(target: &str) {
    if let Some(w) = foreign_target(target, std::env::consts::ARCH) {
        tracing::warn!("{w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_architecture_is_warned_about() {
        let w = foreign_target("neoverse_v2", "x86_64").expect("a warning");
        assert!(
            w.contains("`neoverse_v2` (aarch64) on a x86_64 machine"),
            "{w}"
        );
        assert_eq!(foreign_target("zen3", "x86_64"), None);
        assert_eq!(foreign_target("x86_64", "x86_64"), None);
        assert_eq!(foreign_target("unknown-target", "x86_64"), None);
    }

    #[test]
    fn the_mount_point_is_created_once() {
        let tmp = tempfile::tempdir().unwrap();
        let m = tmp.path().join("user-environment");
        assert!(create_mount_point(&m));
        assert!(m.is_dir());
        assert!(create_mount_point(&m));
        assert!(!create_mount_point(Path::new("/proc/not-here/x")));
    }
}
