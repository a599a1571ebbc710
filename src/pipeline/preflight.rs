//! Warnings before a build starts, for what would otherwise surprise:
//! building for a machine this one cannot run, and creating the mount
//! point directory on this machine.

use std::path::Path;

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
