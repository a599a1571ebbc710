//! What the linkage audit allows because of a cluster configuration: its
//! `audit.allow` globs, and the libraries of its externals, allowed by
//! construction (no hand-written glob per external).

use std::path::Path;

use super::model::Cluster;

/// Prefixes shared by the whole system: an external installed there does
/// not own the libraries beside its own, so nothing is allowed for it by
/// prefix (list its libraries in `audit.allow`).
const SYSTEM_PREFIXES: &[&str] = &["/", "/usr", "/usr/local", "/lib", "/lib64", "/usr/lib"];

/// The allow glob for an external installed at `prefix`: everything below
/// it, unless it is a system-wide prefix (`None`).
pub fn external_allow(prefix: &Path) -> Option<String> {
    let p = prefix.to_str()?.trim_end_matches('/');
    let p = if p.is_empty() { "/" } else { p };
    if !prefix.is_absolute() || SYSTEM_PREFIXES.contains(&p) {
        return None;
    }
    Some(format!("{p}/*"))
}

impl Cluster {
    /// The audit's extra allow-list for stacks of this cluster: the
    /// `audit.allow` globs, then `<prefix>/*` of every external outside the
    /// system-wide prefixes (see [`external_allow`]).
    pub fn audit_allow(&self) -> Vec<String> {
        let mut out: Vec<String> = self.audit.allow.iter().map(|a| a.value.clone()).collect();
        for policy in self.packages.entries.values() {
            for ext in policy.externals.iter().flatten() {
                if let Some(g) = external_allow(&ext.prefix)
                    && !out.contains(&g)
                {
                    out.push(g);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prefixes_allow_nothing_by_prefix() {
        assert_eq!(external_allow(Path::new("/usr")), None);
        assert_eq!(external_allow(Path::new("/usr/")), None);
        assert_eq!(external_allow(Path::new("/")), None);
        assert_eq!(
            external_allow(Path::new("/opt/cray/pe/mpich/8.1.30")),
            Some("/opt/cray/pe/mpich/8.1.30/*".into())
        );
        assert_eq!(external_allow(Path::new("relative")), None);
    }
}
