//! The cluster configuration model (`cluster-configs/<c>/cluster.yaml`).

use std::path::PathBuf;

use crate::diag::{Loc, Spanned};
use crate::recipes::{PathRef, Resource, SpecRef};

use super::policy::Policies;

/// What is true of a system rather than of a stack.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// The `cluster.yaml` file (absolute).
    pub file: PathBuf,
    /// Its directory (absolute).
    pub dir: PathBuf,
    pub name: Spanned<String>,
    pub description: Option<String>,
    /// A target from the spec module's table (`x86_64`, `zen3`, `neoverse_v2`).
    pub target: Spanned<String>,
    pub os: Option<String>,
    /// The C library of the target (`glibc@2.36`): `libc:`, else the host's
    /// glibc when `stack` runs on glibc. Part of every node hash.
    pub libc: Option<String>,
    /// The system compilers; the first is the default.
    pub compilers: Vec<Compiler>,
    pub packages: Policies,
    /// Defaults for environments that have `network:` without specs.
    pub network: Option<Network>,
    pub mirrors: Vec<Mirror>,
    pub audit: AuditConfig,
    /// The target's loader facts; `None`: take them from the host.
    pub loader: Option<LoaderFacts>,
    /// `binary_cache:`: the cluster's binary cache.
    pub binary_cache: Option<super::binary_cache::BinaryCacheConfig>,
    /// `ci:`: what `stack ci generate` puts into every job.
    pub ci: Option<super::ci::CiConfig>,
}

impl Cluster {
    /// The compiler used when the stack does not name one.
    pub fn default_compiler(&self) -> Option<&Compiler> {
        self.compilers.first()
    }

    /// The first compiler satisfying `spec`.
    pub fn find_compiler(&self, spec: &crate::spec::Spec) -> Option<&Compiler> {
        self.compilers.iter().find(|c| c.spec.spec.satisfies(spec))
    }
}

/// A compiler installed on the system.
#[derive(Clone, Debug)]
pub struct Compiler {
    /// Name and exact version (`gcc@12.2.0`).
    pub spec: SpecRef,
    pub cc: PathRef,
    pub cxx: Option<PathRef>,
    pub fc: Option<PathRef>,
    /// A cheap fingerprint of the `cc` program (SHA-256 of its bytes, 16 hex
    /// digits), `None` when it cannot be read here (a configuration of
    /// another system). Part of the identity that node hashes cover.
    pub fingerprint: Option<String>,
    pub loc: Loc,
}

impl Compiler {
    /// What node hashes record of this compiler: `name@version`, the `cc`
    /// path and its fingerprint.
    pub fn identity(&self) -> String {
        format!(
            "{} cc={} fingerprint={}",
            self.spec.text,
            self.cc.path.display(),
            self.fingerprint.as_deref().unwrap_or("none")
        )
    }
}

/// The host's C library (`glibc@2.36`), when `stack` runs on glibc.
pub fn host_libc() -> Option<String> {
    // SAFETY: gnu_get_libc_version returns a pointer to a static string.
    let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    v.to_str().ok().map(|v| format!("glibc@{v}"))
}

/// The network part of an environment: which MPI, which libfabric.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub mpi: Option<SpecRef>,
    pub specs: Vec<SpecRef>,
    pub loc: Option<Loc>,
}

/// A source mirror, tried before upstream URLs.
#[derive(Clone, Debug)]
pub struct Mirror {
    pub resource: Resource,
    pub text: String,
    pub loc: Loc,
}

/// Audit settings.
#[derive(Clone, Debug, Default)]
pub struct AuditConfig {
    /// Globs of paths outside the stack that libraries may resolve to.
    pub allow: Vec<Spanned<String>>,
}

/// How the target's dynamic loader searches (for the audit).
#[derive(Clone, Debug)]
pub struct LoaderFacts {
    /// Default library dirs, in search order.
    pub default_dirs: Vec<PathBuf>,
    /// The value of `$LIB` (`lib64`).
    pub lib: Option<String>,
    /// The value of `$PLATFORM` (`aarch64`).
    pub platform: Option<String>,
    pub ld_so_cache: Option<PathBuf>,
    pub loc: Loc,
}

impl Cluster {
    /// What this configuration says about the command's settings
    /// (`binary_cache:`, `ci: {shared_store, group_seconds}`), for
    /// [`crate::settings::Settings::resolve`].
    pub fn setting_defaults(&self) -> crate::settings::ClusterDefaults {
        let ci = self.ci.clone().unwrap_or_default();
        crate::settings::ClusterDefaults {
            binary_cache: self
                .binary_cache
                .as_ref()
                .map(|c| crate::settings::ClusterBinaryCache {
                    url: c.url.value.clone(),
                    keys: c.keys.iter().map(|k| k.value.clone()).collect(),
                    push: c.push,
                }),
            shared_store: ci.shared_store,
            group_seconds: ci.group_seconds,
        }
    }
}
