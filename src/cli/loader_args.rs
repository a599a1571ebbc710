//! The target loader's facts (`--sysroot`, `--loader-model`, …): shared by
//! `stack audit` and `stack ldd`.

use std::path::PathBuf;

use stack::ops::LoaderModel;

use super::CliError;

/// Facts about the target's loader (default: the host's `ld.so --help`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Target loader")]
pub struct LoaderArgs {
    /// Root of the target system: the cache, ld.so.conf, default directories
    /// and system libraries are looked up under DIR. Without it, the host is
    /// the target.
    #[arg(long, value_name = "DIR")]
    pub sysroot: Option<PathBuf>,
    /// Read all loader facts from a JSON file (the `LoaderModel` of a
    /// cluster configuration); the flags below override single facts.
    #[arg(long, value_name = "FILE")]
    pub loader_model: Option<PathBuf>,
    /// The target's ld.so.cache (a path on the target), or `none`.
    #[arg(long, value_name = "PATH")]
    pub ld_so_cache: Option<String>,
    /// The target's default library directories, colon-separated.
    #[arg(long, value_name = "DIRS")]
    pub default_dirs: Option<String>,
    /// What `$LIB` expands to on the target (e.g. `lib64`).
    #[arg(long = "lib", value_name = "STR")]
    pub lib: Option<String>,
    /// What `$PLATFORM` expands to on the target (e.g. `x86_64`).
    #[arg(long, value_name = "STR")]
    pub platform: Option<String>,
    /// Supported glibc-hwcaps subdirectories, best first, comma-separated
    /// (`x86-64-v3,x86-64-v2`), or `none`.
    #[arg(long, value_name = "LIST")]
    pub hwcaps: Option<String>,
    /// Search this LD_LIBRARY_PATH (off by default: a stack must not rely on it).
    #[arg(long, value_name = "PATH")]
    pub ld_library_path: Option<String>,
}

impl LoaderArgs {
    /// The loader model these flags describe.
    pub fn model(&self) -> Result<LoaderModel, CliError> {
        let mut m = if let Some(file) = &self.loader_model {
            let text = fs_err::read_to_string(file).map_err(CliError::bad_input)?;
            serde_json::from_str::<LoaderModel>(&text).map_err(|e| {
                CliError::input(miette::miette!(
                    help = "the file holds a JSON object with the fields of `LoaderModel` (see docs/audit.md)",
                    "{}: {e}",
                    file.display()
                ))
            })?
        } else if let Some(root) = &self.sysroot {
            if !root.is_dir() {
                return Err(CliError::input(miette::miette!(
                    "--sysroot {}: not a directory",
                    root.display()
                )));
            }
            LoaderModel::defaults(std::env::consts::ARCH, root)
        } else {
            LoaderModel::host()
        };
        if let Some(c) = &self.ld_so_cache {
            m.ld_so_cache = if c == "none" { None } else { Some(c.clone()) };
        }
        if let Some(d) = &self.default_dirs {
            m.default_dirs = d
                .split(':')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
        }
        if let Some(l) = &self.lib {
            m.lib = l.clone();
        }
        if let Some(p) = &self.platform {
            m.platform = p.clone();
        }
        if let Some(h) = &self.hwcaps {
            m.hwcaps = if h == "none" {
                Vec::new()
            } else {
                h.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            };
        }
        Ok(m)
    }
}
