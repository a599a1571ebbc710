//! The one place the library reads the process environment. Every variable
//! `stack` reacts to is a function here, so that what the environment can
//! change is visible at a glance (and `clippy.toml` forbids
//! `std::env::var*` everywhere else). Clap's `env =` attribute is not used:
//! what a flag or a variable may set is decided once per command by
//! [`Settings::resolve`] (`rules.rs`: one rule per setting, for every
//! command).
//!
//! | variable | read by |
//! |----------|---------|
//! | `STACK_REPOS` | package repository search (after `--repo`) |
//! | `STACK_BUILTIN_REPO` | where the built-in repository is (searched after the stack's own, before `fallback_repos:`) |
//! | `STACK_SPACK_PACKAGES` | the spack-packages checkout a stackinator recipe's `spack.packages` stands for |
//! | `STACK_CACHE`, `XDG_CACHE_HOME`, `HOME`, `TMPDIR` | the base of the caches and the default source cache ([`Settings::cache_base`]) |
//! | `SOURCE_DATE_EPOCH` | image timestamps, provenance, the image fingerprint (after `--source-date-epoch`) |
//! | `PATH` | finding build tools and `mksquashfs` |
//! | `NO_COLOR` | the CLI's colour choice |
//! | `VISUAL`, `EDITOR`, `SHELL` | `stack edit`'s editor, `stack shell`'s shell |
//! | `DOCKER_CONFIG`, `HOME` | registry credentials (docker's `config.json`) |
//! | `SSL_CERT_FILE` | a PEM file of CA certificates trusted beside the built-in roots and the system's store, for every HTTPS connection (`src/tls.rs`) |
//! | `STACK_SIGNING_KEY` | the secret key `stack push` and binary-cache pushes sign with, when `--sign-key` is not given |
//! | `STACK_NSSWITCH` | `system`: the static glibc binary keeps `/etc/nsswitch.conf`'s services (`src/cli/nss.rs`) |
//! | `STACK_WRAP_*` | the compiler wrapper's configuration (set by the build for it) |
//! | `STACK_PYTHON` | the Python that runs build logic (`spack` packages), instead of the cluster's `python` external or `python3` on `PATH` |
//! | `STACK_TEST_ALPS_UENV`, `STACK_TEST_ALPS_CLUSTER_CONFIG` | tests only: checkouts of alps-uenv and alps-cluster-config whose every key the stackinator translation must handle (`tests/it/stackinator_keys.rs`) |

#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;
use std::path::PathBuf;

mod rules;

pub use rules::{
    BinaryCacheSettings, ClusterBinaryCache, ClusterDefaults, DEFAULT_GROUP_SECONDS, Env, Flags,
    Origin, RegistrySettings, Settings, TEMP_CACHE_DIR,
};

/// Every variable this module reads, as docs/cli.md's table lists them
/// (a unit test checks both directions). `STACK_WRAP_*` are the compiler
/// wrapper's protocol, not the user's.
pub const VARIABLES: &[&str] = &[
    "STACK_REPOS",
    "STACK_BUILTIN_REPO",
    "STACK_SPACK_PACKAGES",
    "STACK_CACHE",
    "XDG_CACHE_HOME",
    "HOME",
    "TMPDIR",
    "SOURCE_DATE_EPOCH",
    "PATH",
    "NO_COLOR",
    "VISUAL",
    "EDITOR",
    "SHELL",
    "DOCKER_CONFIG",
    "SSL_CERT_FILE",
    "STACK_SIGNING_KEY",
    "STACK_NSSWITCH",
    "STACK_PYTHON",
    "STACK_TEST_ALPS_UENV",
    "STACK_TEST_ALPS_CLUSTER_CONFIG",
];

impl Env {
    /// The process environment, read once.
    pub fn read() -> Env {
        let path = |k: &str| non_empty(k).map(PathBuf::from);
        Env {
            stack_cache: path("STACK_CACHE"),
            xdg_cache_home: path("XDG_CACHE_HOME"),
            home: path("HOME"),
            signing_key: path("STACK_SIGNING_KEY"),
            docker_config: path("DOCKER_CONFIG"),
            spack_packages: path("STACK_SPACK_PACKAGES"),
            stack_repos: stack_repos(),
            temp_dir: std::env::temp_dir(),
        }
    }
}

/// A variable, `None` when unset or empty.
fn non_empty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// `STACK_REPOS`: `:`-separated package repositories.
pub fn stack_repos() -> Option<OsString> {
    std::env::var_os("STACK_REPOS")
}

/// The base directory of the caches (sources, the recipe index, translated
/// repositories): `$STACK_CACHE`, else `$XDG_CACHE_HOME/stack`, else
/// `$HOME/.cache/stack`, else the temporary directory's `stack-cache`
/// (`rules.rs`).
pub fn cache_base() -> PathBuf {
    rules::cache_base(&Env::read()).0
}

/// `SOURCE_DATE_EPOCH` as written (`None` when unset or blank).
pub fn source_date_epoch() -> Option<String> {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// `PATH` (`None` when unset).
pub fn search_path() -> Option<OsString> {
    std::env::var_os("PATH")
}

/// `STACK_NSSWITCH=system`: the static glibc binary leaves host and user
/// lookups to every service `/etc/nsswitch.conf` names instead of glibc's
/// built-in `files` and `dns` (which may load the host's NSS modules).
pub fn nsswitch_system() -> bool {
    non_empty("STACK_NSSWITCH").is_some_and(|v| v == "system")
}

/// `NO_COLOR` is set to something.
pub fn no_color() -> bool {
    non_empty("NO_COLOR").is_some()
}

/// A variable of the compiler wrapper's protocol (`STACK_WRAP_*`, the
/// real compilers' variables), set by the build for the wrapper.
pub fn wrapper_var(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// `SSL_CERT_FILE`: CA certificates trusted for every HTTPS connection.
pub fn ssl_cert_file() -> Option<PathBuf> {
    non_empty("SSL_CERT_FILE").map(PathBuf::from)
}

/// `STACK_BUILTIN_REPO`: the built-in package repository, searched after
/// the stack's own repositories (before its `fallback_repos:`).
pub fn builtin_repo() -> Option<OsString> {
    std::env::var_os("STACK_BUILTIN_REPO")
}

/// `STACK_PYTHON`: the Python that runs the build logic of `spack`
/// packages (a path, or a name looked up on `PATH`); see
/// `crate::build_logic::interpreter`.
pub fn python() -> Option<PathBuf> {
    non_empty("STACK_PYTHON").map(PathBuf::from)
}

/// `STACK_SPACK_PACKAGES`: a spack-packages checkout, read (translated) for
/// stackinator recipes in place of their `spack.packages` repository.
pub fn spack_packages() -> Option<PathBuf> {
    non_empty("STACK_SPACK_PACKAGES").map(PathBuf::from)
}

/// `STACK_TEST_ALPS_UENV`: a checkout of github:eth-cscs/alps-uenv (tests).
pub fn test_alps_uenv() -> Option<PathBuf> {
    non_empty("STACK_TEST_ALPS_UENV").map(PathBuf::from)
}

/// `STACK_TEST_ALPS_CLUSTER_CONFIG`: a checkout of
/// github:eth-cscs/alps-cluster-config (tests).
pub fn test_alps_cluster_config() -> Option<PathBuf> {
    non_empty("STACK_TEST_ALPS_CLUSTER_CONFIG").map(PathBuf::from)
}

/// A variable naming the user's own tools (`VISUAL`, `EDITOR`, `SHELL`), as
/// UTF-8 text; `None` when unset, empty or not UTF-8.
pub fn user_var(name: &str) -> Option<String> {
    non_empty(name).and_then(|v| v.into_string().ok())
}
