//! `stack build --partial`: when packages fail, the image is made of the
//! packages that built. What is left out (the failed packages, and every
//! package that depends on one) is listed, with why, in `meta/left-out.json`
//! of the image, and the build still exits non-zero.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use crate::build::{BuildSummary, PackageStatus};

/// The file in `meta/` that lists what a partial image lacks.
pub const LEFT_OUT_FILE: &str = "left-out.json";

/// A package of the plan that is not in the image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    pub name: String,
    pub version: String,
    pub hash: String,
    /// ``failed in <phase>: <message>`` or ``dependency `<name>` failed``.
    pub why: String,
}

/// The packages of `summary` that neither built nor were reused, in the
/// summary's order.
pub fn left_out(summary: &BuildSummary) -> Vec<LeftOut> {
    summary
        .packages
        .iter()
        .filter_map(|p| {
            let why = match &p.status {
                PackageStatus::Built | PackageStatus::Reused => return None,
                PackageStatus::Failed { phase, message, .. } => {
                    format!("failed in {phase}: {message}")
                }
                PackageStatus::Skipped { because } => because.clone(),
            };
            Some(LeftOut {
                name: p.name.clone(),
                version: p.version.clone(),
                hash: p.hash.clone(),
                why,
            })
        })
        .collect()
}

/// `text` with each path that is `dir` or below it written as `BUILD…`
/// (`/b` in `/b/stage` and `/b` alone, not in `/bad` or `/b-2`).
fn without_dir(text: &str, dir: &str) -> String {
    if dir.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(dir) {
        let after = &rest[i + dir.len()..];
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| c == '/' || !(c.is_alphanumeric() || "-_.+@~".contains(c)));
        out.push_str(&rest[..i]);
        out.push_str(if whole { "BUILD" } else { dir });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The hashes of `left`.
pub fn hashes(left: &[LeftOut]) -> BTreeSet<String> {
    left.iter().map(|l| l.hash.clone()).collect()
}

/// Writes `meta/left-out.json` (a JSON list, sorted by name) into `meta`.
/// Paths in `build_dir` are written as `BUILD/…` (a failed command names
/// its stage): the image does not depend on where it was built, so a
/// rebuild elsewhere from the binary cache gives the same bytes.
pub fn write(meta: &Path, left: &[LeftOut], build_dir: &Path) -> std::io::Result<()> {
    let mut sorted = left.to_vec();
    sorted.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.hash.cmp(&b.hash)));
    let build = build_dir.to_string_lossy();
    for l in &mut sorted {
        l.why = without_dir(&l.why, &build);
    }
    let mut text = serde_json::to_string_pretty(&sorted).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::store::atomic::write_atomic(&meta.join(LEFT_OUT_FILE), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::build::{JobId, PackageReport, Phase, Timing};

    fn report(name: &str, status: PackageStatus) -> PackageReport {
        PackageReport {
            id: JobId(0),
            name: name.into(),
            version: "1.0".into(),
            hash: format!("{name}hash"),
            prefix: PathBuf::from("/p"),
            status,
            log: None,
            timing: Timing::default(),
        }
    }

    #[test]
    fn failed_and_skipped_packages_are_left_out_with_why() {
        let summary = BuildSummary {
            packages: vec![
                report("ok", PackageStatus::Built),
                report("old", PackageStatus::Reused),
                report(
                    "bad",
                    PackageStatus::Failed {
                        phase: Phase::Build,
                        message:
                            "`make -C /b/stage/bad-1.0-x/build` failed in /b/stage/bad-1.0-x/build"
                                .into(),
                        log_tail: Vec::new(),
                    },
                ),
                report(
                    "user",
                    PackageStatus::Skipped {
                        because: "dependency `bad` failed".into(),
                    },
                ),
            ],
            wall: Default::default(),
            critical_path: Default::default(),
            total_work: Default::default(),
            jobs: 1,
            store_root: PathBuf::from("/s"),
            namespaced: false,
            started: std::time::SystemTime::UNIX_EPOCH,
        };
        let left = left_out(&summary);
        let names: Vec<&str> = left.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["bad", "user"]);
        assert!(
            left[0]
                .why
                .starts_with("failed in build: `make -C /b/stage/")
        );
        assert_eq!(left[1].why, "dependency `bad` failed");
        assert_eq!(
            hashes(&left),
            BTreeSet::from(["badhash".to_string(), "userhash".to_string()])
        );
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &left, Path::new("/b")).unwrap();
        let text = fs_err::read_to_string(dir.path().join(LEFT_OUT_FILE)).unwrap();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back[0]["name"], "bad");
        assert_eq!(
            without_dir("/b /bad /b-2 `/b`", "/b"),
            "BUILD /bad /b-2 `BUILD`"
        );
        // The build directory is not in the image: a rebuild elsewhere
        // writes the same file.
        assert_eq!(
            back[0]["why"],
            "failed in build: `make -C BUILD/stage/bad-1.0-x/build` failed in BUILD/stage/bad-1.0-x/build"
        );
        assert_eq!(back[1]["why"], "dependency `bad` failed");
    }
}
