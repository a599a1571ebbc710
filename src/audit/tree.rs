//! Auditing trees: set up the virtual file system (each tree at its mount
//! point, the target system under it), read every file in parallel, load
//! every ELF file as a root in parallel, merge.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::analyze::{Ctx, FileOut, stack_files};
use super::classify::{AllowList, Stack};
use super::error::AuditError;
use super::findings;
use super::fs::{Backend, HostDir, Vfs, clean};
use super::loader::LoaderModel;
use super::recorded;
use super::report::{AuditReport, Input, LoaderSummary};
use super::runpath::PathPolicy;
use super::session::{Env, Session};
use super::squashfs::{self, SquashImage};
use super::unreadable;

/// The mount point used for an image without `meta/env.json` or `--mount`.
pub const DEFAULT_MOUNT: &str = "/user-environment";

/// How to audit.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// Where the tree is mounted at run time. Default: for a directory, the
    /// directory itself; for an image, `mount` of its `meta/env.json`
    /// (beside it, then inside it), else [`DEFAULT_MOUNT`].
    pub mount: Option<PathBuf>,
    /// Root of the target system (default `/`, the host).
    pub sysroot: Option<PathBuf>,
    /// The target's loader facts. Default: the host's `ld.so --help`, or
    /// guessed from the layout of `sysroot`.
    pub loader: Option<LoaderModel>,
    /// Extra allow-list globs (matched against names, sonames, paths and
    /// their last component), e.g. from a cluster configuration.
    pub allow: Vec<String>,
    /// Include the default allow-list (glibc, GCC runtime, CUDA driver).
    pub default_allow: bool,
    /// Search this `LD_LIBRARY_PATH` too (default: none).
    pub ld_library_path: Option<String>,
    /// Scan files that import `dlopen` for hard-coded library paths.
    pub dlopen_scan: bool,
    /// Audit only the files below these virtual paths (inside the tree);
    /// empty: every file of the tree. The rest of the tree still counts as
    /// the stack when libraries resolve. A build audits its prefixes only,
    /// so that views, modules and `meta/` left by an earlier run do not
    /// change its report.
    pub only_below: Vec<PathBuf>,
    /// Also allow what the build allowed: the `allow` list of the build's
    /// report, `meta/audit/audit.json` inside the tree or image, or in the
    /// `meta/` beside it (see [`super::recorded`]).
    pub recorded_allow: bool,
    /// Library directories of declared externals: RPATH/RUNPATH elements
    /// there are accepted; elsewhere outside the mount point they are
    /// findings (see [`super::runpath`]).
    pub external_lib_dirs: Vec<PathBuf>,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            mount: None,
            sysroot: None,
            loader: None,
            allow: Vec::new(),
            default_allow: true,
            ld_library_path: None,
            dlopen_scan: true,
            only_below: Vec::new(),
            recorded_allow: false,
            external_lib_dirs: Vec::new(),
        }
    }
}

/// Audits one directory or squashfs image.
pub fn audit_tree(root: &Path, options: &AuditOptions) -> Result<AuditReport, AuditError> {
    audit_paths(&[root.to_path_buf()], options)
}

/// Audits several directories as one stack (or exactly one image).
pub fn audit_paths(roots: &[PathBuf], options: &AuditOptions) -> Result<AuditReport, AuditError> {
    let start = Instant::now();
    if roots.len() > 1 && options.mount.is_some() {
        return Err(AuditError::MountWithManyRoots { count: roots.len() });
    }
    if let Some(m) = &options.mount {
        if !m.is_absolute() {
            return Err(AuditError::RelativeMount { path: m.clone() });
        }
    }
    let sysroot = options
        .sysroot
        .clone()
        .unwrap_or_else(|| PathBuf::from("/"));
    let mut opened = Opened::default();
    for root in roots {
        opened.open(root, roots.len(), options)?;
    }
    let allow = allow_list(options, opened.recorded_allow)?;
    let mut vfs = Vfs::new(Box::new(HostDir::new(&sysroot)));
    let mut prefixes = Vec::new();
    for (mount, b) in opened.backends {
        prefixes.push(mount.clone());
        vfs = vfs.mount(&mount, b);
    }
    let stack = Stack { prefixes };
    let t0 = Instant::now();
    // Asking the host's ld.so for its facts (a process) overlaps the walk.
    let (model, walked) = rayon::join(
        || match &options.loader {
            Some(m) => m.clone(),
            None if options.sysroot.is_some() => {
                LoaderModel::defaults(std::env::consts::ARCH, &sysroot)
            }
            None => LoaderModel::host(),
        },
        || {
            if options.only_below.is_empty() {
                stack_files(&vfs, &stack.prefixes)
            } else {
                let only: Vec<PathBuf> = options.only_below.iter().map(|p| clean(p)).collect();
                stack_files(&vfs, &only)
            }
        },
    );
    let files = &walked.files;
    let t1 = Instant::now();
    let env = Env {
        ld_library_path: options.ld_library_path.clone(),
        cwd: None,
    };
    let mut session = Session::new(vfs, model, env);
    if options.dlopen_scan {
        session.scan_dlopen = stack.prefixes.clone();
    }
    let paths = PathPolicy::read(&session.vfs, &stack, &options.external_lib_dirs);
    let ctx = Ctx {
        s: &session,
        allow: &allow,
        stack: &stack,
        paths: &paths,
    };
    // Read and parse everything first (I/O bound, parallel), then load.
    files.par_iter().for_each(|f| {
        session.object(f);
    });
    let t2 = Instant::now();
    let outs: Vec<FileOut> = files.par_iter().filter_map(|f| ctx.file(f)).collect();
    let t3 = Instant::now();
    let (files_out, mut findings, mut summary) =
        findings::merge(outs, &stack, &|root, file, needed| {
            ctx.resolved_in(root, file, needed)
        });
    let unread = unreadable::findings(&walked, &session, &stack);
    summary.unreadable = unread.len();
    summary.errors += unread.len();
    if !unread.is_empty() {
        findings.extend(unread);
        findings::sort(&mut findings);
    }
    tracing::debug!(
        setup_ms = (t0 - start).as_secs_f64() * 1e3,
        walk_ms = (t1 - t0).as_secs_f64() * 1e3,
        read_ms = (t2 - t1).as_secs_f64() * 1e3,
        load_ms = (t3 - t2).as_secs_f64() * 1e3,
        merge_ms = t3.elapsed().as_secs_f64() * 1e3,
        files_read = session.files_read(),
        "audit phases"
    );
    summary.files = files.len();
    summary.elapsed_ms = start.elapsed().as_millis() as u64;
    let report = AuditReport {
        inputs: opened.inputs,
        loader: loader_summary(&session, &sysroot),
        allow: allow.patterns().to_vec(),
        summary,
        findings,
        files: files_out,
    };
    // The session's caches are freed off the caller's path.
    let _ = std::thread::Builder::new().spawn(move || drop(session));
    Ok(report)
}

/// The trees and images to audit, opened: what the report says about
/// each, the allow-lists their builds recorded, and each backend at its
/// mount point.
#[derive(Default)]
struct Opened {
    inputs: Vec<Input>,
    recorded_allow: Vec<String>,
    backends: Vec<(PathBuf, Box<dyn Backend>)>,
}

impl Opened {
    /// Opens `root`, one of `count` roots: a directory, or a squashfs
    /// image (only alone).
    fn open(
        &mut self,
        root: &Path,
        count: usize,
        options: &AuditOptions,
    ) -> Result<(), AuditError> {
        let meta = std::fs::metadata(root).map_err(|_| AuditError::NotFound {
            path: root.to_path_buf(),
        })?;
        let (kind, mount, from, recorded, backend): (_, _, _, _, Box<dyn Backend>) =
            if meta.is_dir() {
                let host = std::fs::canonicalize(root).map_err(|source| AuditError::Io {
                    path: root.to_path_buf(),
                    source,
                })?;
                let (mount, from) = match &options.mount {
                    Some(m) => (clean(m), "--mount".to_string()),
                    None => (host.clone(), "the directory itself".to_string()),
                };
                let recorded = options
                    .recorded_allow
                    .then(|| recorded::for_directory(&host))
                    .flatten();
                (
                    "directory",
                    mount,
                    from,
                    recorded,
                    Box::new(HostDir::new(host)),
                )
            } else if meta.is_file() && squashfs::is_image(root) {
                if count > 1 {
                    return Err(AuditError::ImageAmongMany {
                        path: root.to_path_buf(),
                        count,
                    });
                }
                let image = SquashImage::open(root)?;
                let (mount, from) = match &options.mount {
                    Some(m) => (clean(m), "--mount".to_string()),
                    None => match squashfs::image_mount(root, &image)? {
                        Some((m, from)) => (clean(Path::new(&m)), from),
                        None => (
                            PathBuf::from(DEFAULT_MOUNT),
                            "default (no meta/env.json beside or inside the image)".to_string(),
                        ),
                    },
                };
                let recorded = options
                    .recorded_allow
                    .then(|| recorded::for_image(root, &image))
                    .flatten();
                ("squashfs", mount, from, recorded, Box::new(image))
            } else {
                return Err(AuditError::NotTreeOrImage {
                    path: root.to_path_buf(),
                });
            };
        self.inputs.push(Input {
            path: root.display().to_string(),
            kind: kind.into(),
            mount: mount.display().to_string(),
            mount_from: from,
            allow_from: recorded.as_ref().map(|r| r.1.clone()),
        });
        self.recorded_allow
            .extend(recorded.map(|r| r.0).unwrap_or_default());
        self.backends.push((mount, backend));
        Ok(())
    }
}

/// The allow-list: the options' patterns and what the builds recorded.
fn allow_list(
    options: &AuditOptions,
    recorded_allow: Vec<String>,
) -> Result<AllowList, AuditError> {
    let mut extra = options.allow.clone();
    for p in recorded_allow {
        // The recorded list holds the defaults too: they come (or stay
        // off) with `default_allow`.
        let default = super::classify::DEFAULT_ALLOW.contains(&p.as_str());
        if !default && !extra.contains(&p) {
            extra.push(p);
        }
    }
    AllowList::new(&extra, options.default_allow)
}

/// What the report says about the loader the session modelled.
fn loader_summary(session: &Session, sysroot: &Path) -> LoaderSummary {
    let m = &session.model;
    LoaderSummary {
        source: m.source.clone(),
        default_dirs: m.default_dirs.clone(),
        lib: m.lib.clone(),
        platform: m.platform.clone(),
        hwcaps: m.hwcaps.clone(),
        legacy_hwcaps: m.legacy_hwcaps.clone(),
        cache: session.cache_source.clone(),
        ld_library_path: session.env.ld_library_path.clone(),
        sysroot: sysroot.display().to_string(),
    }
}
