//! `binary`: an unpacked prebuilt tree. Copy it (or the parts the
//! `install:` steps name, e.g. `mpich-gcc/` of a cray-mpich tarball) into
//! the prefix; the relocation phase then fixes RPATHs, NEEDED entries and
//! placeholders (`relocate:`).

use super::KeyType::Relocate;
use super::{BuildKind, Key, key};

#[derive(Debug)]
pub(super) struct Binary;

/// The `build:` keys.
const KEYS: &[Key] = &[key("relocate", Relocate)];

impl BuildKind for Binary {
    fn name(&self) -> &'static str {
        "binary"
    }
    fn estimated_seconds(&self) -> f64 {
        10.0
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn copies_tree(&self) -> bool {
        true
    }
}
