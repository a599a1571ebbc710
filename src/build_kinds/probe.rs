//! `probe`: a kind that exists only in the crate's unit tests, registered
//! in `KINDS` and nowhere else, with a key of every [`KeyType`] but
//! `relocate`. `pipeline::kind_tests` loads, checks, writes, hashes and
//! renders a recipe of this kind: nothing outside this file and its
//! registry line names it.

use super::KeyType::{Args, Flag, Text, Toggle, Words};
use super::{BuildKind, JobSettings, Key, PhaseError, Phases};

#[derive(Debug)]
pub(super) struct Probe;

/// The `build:` keys.
const KEYS: &[Key] = &[
    Key {
        name: "probe_toggle",
        ty: Toggle,
    },
    Key {
        name: "probe_flag",
        ty: Flag,
    },
    Key {
        name: "probe_args",
        ty: Args,
    },
    Key {
        name: "probe_text",
        ty: Text,
    },
    Key {
        name: "probe_words",
        ty: Words(&["all"]),
    },
];

impl BuildKind for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn tools(&self) -> &'static [&'static str] {
        &["probe-tool"]
    }
    fn out_of_source(&self, s: &JobSettings) -> bool {
        s.flag("probe_flag")
    }
    fn build(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let mut argv = vec!["make".to_string()];
        argv.extend(s.list("probe_args").iter().cloned());
        let dir = cx.build_dir().to_path_buf();
        cx.run(argv, &dir)
    }
}
