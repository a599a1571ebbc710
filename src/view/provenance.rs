//! Build provenance (`meta/provenance.json`): which tool built the image,
//! when, where, for which cluster, with which command line.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What `meta/provenance.json` records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub stack_version: String,
    /// RFC 3339, UTC. From `SOURCE_DATE_EPOCH` when it is set (so that two
    /// builds of one lockfile give the same image), else the current time.
    pub time: String,
    pub source_date_epoch: Option<i64>,
    pub host: HostInfo,
    pub cluster: String,
    pub mount: String,
    /// The command line of the build.
    pub args: Vec<String>,
}

/// `uname`-like facts about the build host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    pub system: String,
    pub node: String,
    pub release: String,
    pub version: String,
    pub machine: String,
}

impl HostInfo {
    /// Read the facts of this host from `/proc/sys/kernel` (empty when
    /// unreadable).
    pub fn current() -> HostInfo {
        let read = |name: &str| {
            std::fs::read_to_string(Path::new("/proc/sys/kernel").join(name))
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        HostInfo {
            system: read("ostype"),
            node: read("hostname"),
            release: read("osrelease"),
            version: read("version"),
            machine: std::env::consts::ARCH.to_string(),
        }
    }
}

impl Provenance {
    /// Collect provenance for a build of `cluster` at `mount` run as `args`.
    pub fn collect(cluster: &str, mount: &Path, args: Vec<String>) -> Provenance {
        let epoch = std::env::var("SOURCE_DATE_EPOCH")
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        let time = epoch
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .unwrap_or_else(jiff::Timestamp::now);
        Provenance {
            stack_version: env!("CARGO_PKG_VERSION").to_string(),
            time: time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            source_date_epoch: epoch,
            host: HostInfo::current(),
            cluster: cluster.to_string(),
            mount: mount.to_string_lossy().into_owned(),
            args,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_host_facts() {
        let p = Provenance::collect(
            "local",
            Path::new("/user-environment"),
            vec!["stack".into()],
        );
        assert_eq!(p.stack_version, env!("CARGO_PKG_VERSION"));
        assert_eq!(p.host.system, "Linux");
        assert!(!p.host.release.is_empty());
        assert!(p.time.ends_with('Z') && p.time.len() == 20, "{}", p.time);
    }
}
