//! Build provenance: which tool built the image, when, where, for which
//! cluster, with which command line.
//!
//! Two files carry it. `meta/provenance.json`, inside the image, holds only
//! what follows from the inputs ([`Provenance::for_image`]: tool version,
//! cluster, mount, and the time only when `SOURCE_DATE_EPOCH` fixes it), so
//! that two builds of one lockfile give byte-identical images.
//! `<build>/meta/build.json`, beside the image, holds the whole record: the
//! real time, the host and the command line.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The full provenance of the last build: `<build>/meta/build.json`, beside
/// the image only.
pub const BUILD_RECORD: &str = "build.json";

/// What `meta/provenance.json` records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub stack_version: String,
    /// RFC 3339, UTC. From `SOURCE_DATE_EPOCH` when it is set, else the
    /// current time (left out of the image's copy then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub source_date_epoch: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostInfo>,
    pub cluster: String,
    pub mount: String,
    /// The command line of the build (left out of the image's copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
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
            fs_err::read_to_string(Path::new("/proc/sys/kernel").join(name))
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
        let epoch = crate::settings::source_date_epoch().and_then(|s| s.trim().parse::<i64>().ok());
        let time = epoch
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .unwrap_or_else(jiff::Timestamp::now);
        Provenance {
            stack_version: env!("CARGO_PKG_VERSION").to_string(),
            time: Some(time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
            source_date_epoch: epoch,
            host: Some(HostInfo::current()),
            cluster: cluster.to_string(),
            mount: mount.to_string_lossy().into_owned(),
            args: Some(args),
        }
    }

    /// The reproducible part, for `meta/provenance.json` inside the image:
    /// no host, no command line, and a time only when `SOURCE_DATE_EPOCH`
    /// gave it.
    pub fn for_image(&self) -> Provenance {
        Provenance {
            time: self.source_date_epoch.and(self.time.clone()),
            host: None,
            args: None,
            ..self.clone()
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
        let host = p.host.as_ref().unwrap();
        assert_eq!(host.system, "Linux");
        assert!(!host.release.is_empty());
        let time = p.time.as_deref().unwrap();
        assert!(time.ends_with('Z') && time.len() == 20, "{time}");
    }

    #[test]
    fn image_copy_is_reproducible() {
        let mut p = Provenance::collect("c", Path::new("/m"), vec!["stack".into(), "/b1".into()]);
        p.source_date_epoch = None;
        let img = p.for_image();
        assert_eq!((img.time, img.host, img.args), (None, None, None));
        assert_eq!(img.cluster, "c");
        p.source_date_epoch = Some(1);
        p.time = Some("1970-01-01T00:00:01Z".into());
        assert_eq!(p.for_image().time.as_deref(), Some("1970-01-01T00:00:01Z"));
    }
}
