//! `makefile`: `make ARGS TARGETS`, then `make ARGS INSTALL_TARGETS` and/or
//! explicit install steps (for projects without an install target, like
//! mukautuva).

use super::KeyType::{Args, Words};
use super::{BuildKind, JobSettings, Key, PhaseError, Phases, key};

#[derive(Debug)]
pub(super) struct Makefile;

/// The `build:` keys.
const KEYS: &[Key] = &[
    key("make_args", Args),
    key("build_targets", Words(&[])),
    // Empty: no install call, `install:` steps only.
    key("install_targets", Words(&["install"])),
];

/// `make ARGS TARGETS` in the build directory.
fn make(s: &JobSettings, targets: &[String], cx: &mut dyn Phases) -> Result<(), PhaseError> {
    let mut argv = vec!["make".to_string()];
    argv.extend(s.list("make_args").iter().cloned());
    argv.extend(targets.iter().cloned());
    let dir = cx.build_dir().to_path_buf();
    cx.run(argv, &dir)
}

impl BuildKind for Makefile {
    fn name(&self) -> &'static str {
        "makefile"
    }
    fn estimated_seconds(&self) -> f64 {
        30.0
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn compiles(&self) -> bool {
        true
    }
    fn build(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        make(s, s.list("build_targets"), cx)
    }
    fn install(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let targets = s.list_or("install_targets", &["install"]);
        if targets.is_empty() {
            return Ok(());
        }
        make(s, &targets, cx)
    }
}
