//! The wrapper's configuration: which directories and prefix maps it
//! injects, carried from `stack build` to the wrapper in `STACK_WRAP_*`
//! environment variables.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::{ENV_DTAGS, ENV_HOST_LIBS, ENV_INCLUDES, ENV_LIBDIRS, ENV_PREFIX_MAPS, ENV_RPATHS};

/// How to mark RPATH entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtags {
    /// `--disable-new-dtags`: `DT_RPATH`.
    Rpath,
    /// `--enable-new-dtags`: `DT_RUNPATH`.
    Runpath,
    /// Leave the linker default.
    Keep,
}

/// The injected directories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrapConfig {
    pub includes: Vec<PathBuf>,
    pub libdirs: Vec<PathBuf>,
    pub rpaths: Vec<PathBuf>,
    pub dtags: Dtags,
    /// `(old, new)` prefixes for `-ffile-prefix-map=old=new`.
    pub prefix_maps: Vec<(PathBuf, PathBuf)>,
    /// Flags a recipe injects (`STACK_WRAP_CFLAGS`, …).
    pub flags: super::InjectedFlags,
    /// The link guard ([`super::host_link`]): `None` is off; else the
    /// library names (`libz`) a link may take from the host besides glibc's
    /// and the compiler runtime.
    pub host_libs: Option<Vec<String>>,
}

impl WrapConfig {
    /// Read the configuration from the `STACK_WRAP_*` variables.
    pub fn from_env() -> Self {
        Self::from_lookup(crate::settings::wrapper_var)
    }

    /// Read the configuration through `get` (a variable lookup).
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Self {
        let list = |var: &str| -> Vec<PathBuf> {
            get(var)
                .map(|v| {
                    std::env::split_paths(&v)
                        .filter(|p| !p.as_os_str().is_empty())
                        .collect()
                })
                .unwrap_or_default()
        };
        let dtags = match get(ENV_DTAGS).as_deref().map(OsStr::as_bytes) {
            Some(b"runpath") => Dtags::Runpath,
            Some(b"keep") => Dtags::Keep,
            _ => Dtags::Rpath,
        };
        WrapConfig {
            flags: super::InjectedFlags::from_lookup(&get),
            host_libs: get(ENV_HOST_LIBS).map(|v| {
                v.to_string_lossy()
                    .split(':')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            }),
            includes: list(ENV_INCLUDES),
            libdirs: list(ENV_LIBDIRS),
            rpaths: list(ENV_RPATHS),
            dtags,
            prefix_maps: list(ENV_PREFIX_MAPS)
                .into_iter()
                .filter_map(|p| {
                    let b = p.as_os_str().as_bytes();
                    let eq = b.iter().position(|&c| c == b'=')?;
                    Some((
                        PathBuf::from(OsStr::from_bytes(&b[..eq])),
                        PathBuf::from(OsStr::from_bytes(&b[eq + 1..])),
                    ))
                })
                .collect(),
        }
    }

    /// The variables that carry this configuration to the wrapper.
    pub fn to_env(&self) -> Vec<(&'static str, OsString)> {
        let join = |v: &[PathBuf]| std::env::join_paths(v).unwrap_or_default();
        let mut out = vec![
            (ENV_INCLUDES, join(&self.includes)),
            (ENV_LIBDIRS, join(&self.libdirs)),
            (ENV_RPATHS, join(&self.rpaths)),
            (
                ENV_PREFIX_MAPS,
                join(
                    &self
                        .prefix_maps
                        .iter()
                        .map(|(old, new)| {
                            let mut s = old.clone().into_os_string();
                            s.push("=");
                            s.push(new);
                            PathBuf::from(s)
                        })
                        .collect::<Vec<_>>(),
                ),
            ),
            (
                ENV_DTAGS,
                match self.dtags {
                    Dtags::Rpath => "rpath",
                    Dtags::Runpath => "runpath",
                    Dtags::Keep => "keep",
                }
                .into(),
            ),
        ];
        if let Some(libs) = &self.host_libs {
            out.push((ENV_HOST_LIBS, libs.join(":").into()));
        }
        out.extend(self.flags.to_env());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_round_trip() {
        let cfg = WrapConfig {
            includes: vec!["/m/a/include".into()],
            libdirs: vec!["/m/a/lib".into()],
            rpaths: vec!["/m/a/lib".into(), "/m/self/lib".into()],
            dtags: Dtags::Runpath,
            prefix_maps: vec![("/b/stage/x-1-ab".into(), "/stack-stage/x-1-ab".into())],
            flags: super::super::InjectedFlags::default(),
            host_libs: Some(vec!["libz".into(), "libbz2".into()]),
        };
        let env = cfg.to_env();
        let get = |k: &str| env.iter().find(|(n, _)| *n == k).unwrap().1.clone();
        assert_eq!(get(ENV_PREFIX_MAPS), "/b/stage/x-1-ab=/stack-stage/x-1-ab");
        let back =
            WrapConfig::from_lookup(|k| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone()));
        assert_eq!(back, cfg);
    }
}
