//! The compilers a job runs, found once per distinct setting: the
//! wrapper program (`stack-wrap`, or `stack` itself) and the host
//! compilers and linker behind it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::env::RealTools;
use super::error::BuildError;
use super::graph::BuildGraph;
use super::job::CompilerPaths;
use super::package;

/// The directories the wrapper program lives in: where its path points, and
/// where that resolves to when it is a link.
pub(crate) fn wrapper_dirs(exe: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = exe.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(real) = fs_err::canonicalize(exe)
        .ok()
        .and_then(|r| r.parent().map(Path::to_path_buf))
        && !dirs.contains(&real)
    {
        dirs.push(real);
    }
    dirs
}

/// `stack-wrap` next to the running executable (small, fast to start), or
/// the running executable itself (`stack` dispatches on `argv[0]` too).
pub(super) fn default_wrapper() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let small = exe.with_file_name(WRAPPER_PROGRAM);
    Ok(if package::is_executable(&small) {
        small
    } else {
        exe
    })
}

/// File name of the dedicated wrapper program.
pub const WRAPPER_PROGRAM: &str = "stack-wrap";

/// Absolute compilers per job (looked up once per distinct setting).
pub(super) fn resolve_tools(
    graph: &BuildGraph,
    done: &[bool],
) -> Result<Vec<Option<RealTools>>, BuildError> {
    let ld = which_host(Path::new("ld"));
    let mut cache: HashMap<CompilerPaths, RealTools> = HashMap::new();
    let mut out = Vec::with_capacity(graph.len());
    for (id, job) in graph.jobs() {
        if done[id.0] {
            out.push(None);
            continue;
        }
        if let Some(t) = cache.get(&job.compiler) {
            out.push(Some(t.clone()));
            continue;
        }
        let c = &job.compiler;
        if c.built {
            let tools = RealTools {
                cc: c.cc.clone(),
                cxx: c.cxx.clone(),
                fc: c.fc.clone(),
                ld: ld.clone(),
            };
            cache.insert(c.clone(), tools.clone());
            out.push(Some(tools));
            continue;
        }
        let cc =
            which_host(&c.cc).ok_or_else(|| BuildError::CompilerNotFound { name: c.cc.clone() })?;
        let opt = |p: &Option<PathBuf>| -> Result<Option<PathBuf>, BuildError> {
            match p {
                None => Ok(None),
                Some(p) => which_host(p)
                    .map(Some)
                    .ok_or_else(|| BuildError::CompilerNotFound { name: p.clone() }),
            }
        };
        let tools = RealTools {
            cc,
            cxx: opt(&c.cxx)?,
            fc: opt(&c.fc)?,
            ld: ld.clone(),
        };
        cache.insert(c.clone(), tools.clone());
        out.push(Some(tools));
    }
    Ok(out)
}

/// Find a program on the host `PATH` (or check an explicit path).
fn which_host(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return package::is_executable(name)
            .then(|| std::path::absolute(name).ok())
            .flatten();
    }
    let path = crate::settings::search_path().unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_absolute() && package::is_executable(p))
}
