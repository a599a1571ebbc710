//! A build directory held by one build: its lock, and where the store lives
//! on the host while packages are built.
//!
//! The pipeline opens the [`Workspace`] before it resolves and keeps it until
//! the image is packed, so the lockfile, the sources, the hooks and the store
//! of a build directory are never shared by two builds. [`run_plan`] opens
//! its own for callers that only build.
//!
//! [`run_plan`]: super::run_plan

use std::path::{Path, PathBuf};

use super::error::BuildError;
use super::options::{BuildOptions, MountMode};
use super::report::BuildReporter;
use crate::lock::{BuildLock, LockWait};
use crate::store::StoreError;

/// The lock on a build directory, and (once the mount point is known) how
/// builds reach it.
#[derive(Debug)]
pub struct Workspace {
    _lock: BuildLock,
    build_dir: PathBuf,
    mount: PathBuf,
    namespaced: bool,
    store_root: PathBuf,
}

impl Workspace {
    /// Locks `build_dir` (created if missing); with [`LockWait::Wait`] the
    /// reporter hears once that another build holds it.
    pub fn lock(
        build_dir: &Path,
        wait: LockWait,
        reporter: &dyn BuildReporter,
    ) -> Result<BuildLock, BuildError> {
        let build_dir = std::path::absolute(build_dir)?;
        Ok(
            BuildLock::acquire(&build_dir, wait, &|p| reporter.waiting_for_lock(p))
                .map_err(StoreError::from)?,
        )
    }

    /// Locks `opts.build_dir` and decides the mount mode.
    pub fn open(
        opts: &BuildOptions,
        reporter: &dyn BuildReporter,
    ) -> Result<Workspace, BuildError> {
        let lock = Workspace::lock(&opts.build_dir, opts.lock_wait, reporter)?;
        Workspace::with_lock(lock, opts)
    }

    /// Decides how builds with `opts` reach the mount point, in a build
    /// directory locked by `lock`: installing directly into the mount point
    /// (created if missing), or into `<build>/store` mounted over it in a
    /// private namespace ([`MountMode`]).
    pub fn with_lock(lock: BuildLock, opts: &BuildOptions) -> Result<Workspace, BuildError> {
        let build_dir = std::path::absolute(&opts.build_dir)?;
        let locked = lock.path().parent().map(Path::to_path_buf);
        if locked.as_deref() != Some(build_dir.as_path()) {
            return Err(BuildError::WorkspaceMismatch {
                options: (build_dir, opts.mount.clone()),
                workspace: (locked.unwrap_or_default(), opts.mount.clone()),
            });
        }
        let namespaced = namespaced(opts)?;
        let store_root = if namespaced {
            let store = build_dir.join("store");
            fs_err::create_dir_all(&store)?;
            // A link to a shared store (a Slurm job of `--shared-store`):
            // the sandbox mounts the real directory, not the link.
            match store.is_symlink() {
                true => fs_err::canonicalize(&store)?,
                false => store,
            }
        } else {
            opts.mount.clone()
        };
        Ok(Workspace {
            _lock: lock,
            build_dir,
            mount: opts.mount.clone(),
            namespaced,
            store_root,
        })
    }

    /// The (absolute) build directory.
    pub fn build_dir(&self) -> &Path {
        &self.build_dir
    }

    /// The mount point the packages are built for.
    pub fn mount(&self) -> &Path {
        &self.mount
    }

    /// Whether builds run in a private namespace with the store mounted at
    /// the mount point.
    pub fn namespaced(&self) -> bool {
        self.namespaced
    }

    /// Where the store is on the host: the mount point itself, or
    /// `<build>/store`.
    pub fn store_root(&self) -> &Path {
        &self.store_root
    }
}

/// Whether `opts` build in a private namespace (creating the mount point
/// where installing directly into it).
fn namespaced(opts: &BuildOptions) -> Result<bool, BuildError> {
    let mount = &opts.mount;
    let missing = |e: std::io::Error| BuildError::MountPointMissing {
        mount: mount.clone(),
        reason: format!("cannot be created ({e})"),
    };
    let create = |mount: &Path| {
        if !mount.exists() {
            tracing::warn!(
                "creating the mount point {} on this machine and installing into it directly",
                mount.display()
            );
        }
        fs_err::create_dir_all(mount).map_err(missing)
    };
    Ok(match opts.mount_mode {
        MountMode::Direct => {
            create(mount)?;
            false
        }
        MountMode::Namespace => {
            if !mount.is_dir() {
                return Err(BuildError::MountPointMissing {
                    mount: mount.clone(),
                    reason: "a private mount namespace needs an existing directory to mount over"
                        .into(),
                });
            }
            true
        }
        MountMode::Auto => {
            if mount.is_dir() {
                nix::unistd::access(mount.as_path(), nix::unistd::AccessFlags::W_OK).is_err()
            } else {
                create(mount)?;
                false
            }
        }
    })
}
