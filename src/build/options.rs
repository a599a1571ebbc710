//! Options of [`run_plan`](super::run_plan).

use std::path::PathBuf;

use crate::lock::LockWait;

use super::wrapper::Dtags;

/// Where packages are installed and how the mount point is reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MountMode {
    /// Install directly when the mount point is writable (creating it if
    /// needed), otherwise use a private namespace.
    #[default]
    Auto,
    /// Always install directly into the mount point.
    Direct,
    /// Always build in a private user+mount namespace with `<build>/store`
    /// mounted at the mount point.
    Namespace,
}

/// How to run a build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Total parallelism (`-j`): jobserver tokens shared by all packages and
    /// their make/ninja children.
    pub jobs: usize,
    /// Where finished prefixes may come from instead of a build, and where
    /// built ones go ([`PrefixCache`](super::PrefixCache)); `None`: the
    /// local store only.
    pub prefix_cache: Option<std::sync::Arc<dyn super::PrefixCache>>,
    /// Stop starting new packages after the first failure.
    pub fail_fast: bool,
    /// The build directory: `stage/`, `logs/`, `store/` (namespace mode), the lock.
    pub build_dir: PathBuf,
    /// The mount point (default `/user-environment`).
    pub mount: PathBuf,
    pub mount_mode: MountMode,
    /// Keep stage directories of successful builds.
    pub keep_stage: bool,
    /// When another build holds the lock: wait or fail.
    pub lock_wait: LockWait,
    /// The program the wrapper symlinks point to; default: `stack-wrap` next
    /// to the current executable, else the current executable (which must
    /// then be the `stack` binary).
    pub wrapper_exe: Option<PathBuf>,
    /// Log every wrapped compiler call to `<stage>/wrapper.log`.
    pub wrapper_log: bool,
    /// `SOURCE_DATE_EPOCH` for every build (default 1980-01-01).
    pub source_date_epoch: i64,
    /// RPATH or RUNPATH from the wrapper (default RPATH).
    pub dtags: Dtags,
    /// `syncfs` the store once at the end when something was built (default true).
    pub sync: bool,
}

impl BuildOptions {
    /// Defaults: `-j` = available cores, mount `/user-environment`, auto mount mode.
    pub fn new(build_dir: impl Into<PathBuf>) -> Self {
        BuildOptions {
            jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            prefix_cache: None,
            fail_fast: false,
            build_dir: build_dir.into(),
            mount: PathBuf::from("/user-environment"),
            mount_mode: MountMode::Auto,
            keep_stage: false,
            lock_wait: LockWait::Wait,
            wrapper_exe: None,
            wrapper_log: false,
            source_date_epoch: 315_532_800,
            dtags: Dtags::Rpath,
            sync: true,
        }
    }
}
