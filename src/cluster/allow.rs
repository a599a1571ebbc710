//! What the linkage audit allows because of a cluster configuration: its
//! `audit.allow` globs, and the libraries of externals, allowed by
//! construction (no hand-written glob per external).
//!
//! An external in a directory of its own (`/opt/cray/pe/mpich/8.1.30`)
//! owns everything below it: `<prefix>/*` is allowed. An external in a
//! directory that holds the system's libraries — `/`, `/usr`,
//! `/usr/local`, a `lib`, `lib64`, `lib32` or multiarch directory of one of
//! them, a default directory of the loader, however the path is spelled
//! (`//usr/lib/../lib64/`, a symbolic link such as `/lib` → `usr/lib`) —
//! owns only its own libraries: `<libdir>/<name>.so` and
//! `<libdir>/<name>.so.*` for each of its library names (the recipe's
//! `libraries:`, else `lib<name>`) in each library directory of the prefix,
//! each directory also as its real path. The audit matches allow globs
//! against the path the loader opened and against the real file behind it,
//! so `/lib/x86_64-linux-gnu/libz.so.1` (what ld.so.cache names on a merged
//! `/usr`) is allowed by `/usr/lib/x86_64-linux-gnu/libz.so.*`, and a host
//! `libz.so.1` is never allowed because some external sits in its
//! directory.

use std::path::{Component, Path, PathBuf};

use super::model::Cluster;

/// The library directories of a system: what `is_system_dir` refuses to
/// allow anything of by prefix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SystemDirs {
    /// Directories the loader searches by default (the cluster's `loader:`
    /// facts, else the usual ones of the target family).
    pub default_dirs: Vec<PathBuf>,
    /// The multiarch names of library directories (`x86_64-linux-gnu`).
    pub multiarch: Vec<String>,
}

impl SystemDirs {
    /// The usual directories of a glibc system of `family` (`x86_64`,
    /// `aarch64`), and `default_dirs` when the cluster names them.
    pub fn new(family: &str, default_dirs: &[PathBuf]) -> SystemDirs {
        let triplet = match family {
            "ppc64le" => "powerpc64le-linux-gnu".to_string(),
            f => format!("{f}-linux-gnu"),
        };
        let mut dirs: Vec<PathBuf> = default_dirs.to_vec();
        for base in ["/lib", "/usr/lib", "/usr/local/lib"] {
            for d in [
                base.to_string(),
                format!("{base}64"),
                format!("{base}/{triplet}"),
            ] {
                let d = PathBuf::from(d);
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
        SystemDirs {
            default_dirs: dirs,
            multiarch: vec![triplet],
        }
    }
}

/// `path` without `.`, `..`, repeated or trailing slashes (`None` when
/// relative).
pub fn normalize(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    Some(out)
}

/// The spellings of `path` worth matching: as normalised, and its real
/// path on this machine (symbolic links resolved) when that differs.
fn spellings(path: &Path) -> Vec<PathBuf> {
    let Some(p) = normalize(path) else {
        return Vec::new();
    };
    let mut out = vec![p.clone()];
    if let Ok(real) = std::fs::canonicalize(&p)
        && real != p
    {
        out.push(real);
    }
    out
}

/// Whether `dir` (normalised) holds the system's libraries, or contains a
/// directory that does: `/`, `/usr`, `/usr/local`, `lib*` directories of
/// those and their multiarch subdirectories, and every default directory of
/// the loader and its ancestors.
pub fn is_system_dir(dir: &Path, sys: &SystemDirs) -> bool {
    if sys
        .default_dirs
        .iter()
        .filter_map(|d| normalize(d))
        .any(|d| d.starts_with(dir))
    {
        return true;
    }
    let rest = ["/usr/local", "/usr", "/"]
        .iter()
        .find_map(|root| dir.strip_prefix(root).ok());
    let Some(rest) = rest else {
        return false;
    };
    let parts: Vec<&str> = rest.iter().filter_map(|c| c.to_str()).collect();
    match parts.as_slice() {
        [] => true,
        [lib] => lib.starts_with("lib"),
        [lib, arch] => {
            lib.starts_with("lib")
                && (sys.multiarch.iter().any(|m| m == arch) || arch.contains("-linux-"))
        }
        _ => false,
    }
}

/// The allow globs of an external installed at `prefix` whose shared
/// libraries are `libraries` (names before `.so`): see the module
/// documentation. Empty for a relative prefix.
pub fn external_allow(prefix: &Path, libraries: &[String], sys: &SystemDirs) -> Vec<String> {
    let forms = spellings(prefix);
    let system = forms.iter().any(|p| is_system_dir(p, sys));
    let mut out: Vec<String> = Vec::new();
    let mut add = |g: String| {
        if !out.contains(&g) {
            out.push(g);
        }
    };
    if !system {
        for p in &forms {
            add(format!("{}/*", p.display()));
        }
        return out;
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for p in &forms {
        // The prefix itself, its `lib*` directories, and the multiarch
        // directories below its `lib` (Debian's `/usr/lib/x86_64-linux-gnu`).
        let mut candidates = vec![p.clone()];
        for lib in ["lib", "lib64", "lib32", "libx32"] {
            candidates.push(p.join(lib));
        }
        for m in &sys.multiarch {
            candidates.push(p.join("lib").join(m));
        }
        for c in candidates {
            let is_lib_dir = c
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("lib") || sys.multiarch.iter().any(|m| m == n))
                || sys
                    .default_dirs
                    .iter()
                    .any(|d| normalize(d).as_ref() == Some(&c));
            if !is_lib_dir {
                continue;
            }
            for d in spellings(&c) {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
    }
    for d in &dirs {
        for l in libraries {
            add(format!("{}/{l}.so", d.display()));
            add(format!("{}/{l}.so.*", d.display()));
        }
    }
    out
}

impl Cluster {
    /// The usual library directories of this cluster's systems: the
    /// `loader:` facts' default directories, and those of the target family.
    pub fn system_dirs(&self) -> SystemDirs {
        let family = crate::spec::target_family(&self.target.value).unwrap_or("x86_64");
        let defaults = self
            .loader
            .as_ref()
            .map(|l| l.default_dirs.clone())
            .unwrap_or_default();
        SystemDirs::new(family, &defaults)
    }

    /// The audit's extra allow-list for stacks of this cluster when no plan
    /// says which externals are linked (`stack audit --cluster`): the
    /// `audit.allow` globs, then, for every external, what
    /// [`external_allow`] gives with the library name `lib<package>`.
    pub fn audit_allow(&self) -> Vec<String> {
        let mut out: Vec<String> = self.audit.allow.iter().map(|a| a.value.clone()).collect();
        let sys = self.system_dirs();
        for (name, policy) in &self.packages.entries {
            let lib = match name.strip_prefix("lib") {
                Some(_) => name.clone(),
                None => format!("lib{name}"),
            };
            for ext in policy.externals.iter().flatten() {
                for g in external_allow(&ext.prefix, std::slice::from_ref(&lib), &sys) {
                    if !out.contains(&g) {
                        out.push(g);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys() -> SystemDirs {
        SystemDirs::new("x86_64", &[])
    }

    fn libz() -> Vec<String> {
        vec!["libz".to_string()]
    }

    /// Issue 40, item 10: a directory of system libraries, however spelled,
    /// allows nothing by prefix; only the external's own libraries.
    #[test]
    fn system_library_dirs_allow_only_the_externals_libraries() {
        for p in [
            "/",
            "/usr",
            "/usr/",
            "//usr",
            "/usr/local",
            "/lib",
            "/lib64",
            "/usr/lib",
            "/usr/lib64/",
            "/usr/lib32",
            "/usr/lib/x86_64-linux-gnu",
            "/lib/x86_64-linux-gnu",
            "/usr/lib/../lib64",
            "/usr/./lib/x86_64-linux-gnu/",
            "/usr/local/lib/aarch64-linux-gnu",
        ] {
            let globs = external_allow(Path::new(p), &libz(), &sys());
            assert!(
                globs
                    .iter()
                    .all(|g| g.ends_with("/libz.so") || g.ends_with("/libz.so.*")),
                "{p}: {globs:?}"
            );
            assert!(!globs.is_empty(), "{p}");
        }
        let usr = external_allow(Path::new("/usr"), &libz(), &sys());
        assert!(
            usr.contains(&"/usr/lib/x86_64-linux-gnu/libz.so.*".to_string()),
            "{usr:?}"
        );
        assert!(usr.contains(&"/usr/lib64/libz.so.*".to_string()), "{usr:?}");
        // A loader default directory elsewhere is a system directory too.
        let custom = SystemDirs::new("x86_64", &[PathBuf::from("/opt/sys/lib")]);
        let g = external_allow(Path::new("/opt/sys"), &libz(), &custom);
        let dirs: Vec<String> = g
            .iter()
            .filter_map(|g| g.strip_suffix("/libz.so.*"))
            .map(str::to_string)
            .collect();
        assert_eq!(
            dirs,
            [
                "/opt/sys/lib",
                "/opt/sys/lib64",
                "/opt/sys/lib32",
                "/opt/sys/libx32",
                "/opt/sys/lib/x86_64-linux-gnu"
            ]
        );
        assert_eq!(g.len(), 2 * dirs.len(), "{g:?}");
    }

    #[test]
    fn an_external_of_its_own_owns_its_prefix() {
        assert_eq!(
            external_allow(Path::new("/opt/cray/pe/mpich/8.1.30/"), &libz(), &sys()),
            ["/opt/cray/pe/mpich/8.1.30/*"]
        );
        assert_eq!(
            external_allow(
                Path::new("/usr/lib/x86_64-linux-gnu/openmpi"),
                &libz(),
                &sys()
            ),
            ["/usr/lib/x86_64-linux-gnu/openmpi/*"]
        );
        assert!(external_allow(Path::new("relative"), &libz(), &sys()).is_empty());
    }

    #[test]
    fn a_link_to_a_system_dir_is_a_system_dir() {
        let d = tempfile::tempdir().unwrap();
        let link = d.path().join("sys");
        std::os::unix::fs::symlink("/usr", &link).unwrap();
        let g = external_allow(&link, &libz(), &sys());
        assert!(g.iter().all(|g| g.contains("libz.so")), "{g:?}");
        assert!(!g.iter().any(|g| g.ends_with("/*")), "{g:?}");
    }
}
