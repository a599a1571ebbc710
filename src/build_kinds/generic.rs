//! `generic`: copy trees into the prefix (header-only packages such as
//! cassini-headers): the `install:` steps; a recipe with `steps:` of its
//! own (`pip install --prefix`, a vendor installer) installs through them;
//! a recipe with neither gets the whole source tree.

use super::BuildKind;

#[derive(Debug)]
pub(super) struct Generic;

impl BuildKind for Generic {
    fn name(&self) -> &'static str {
        "generic"
    }
    fn estimated_seconds(&self) -> f64 {
        2.0
    }
    fn copies_tree(&self) -> bool {
        true
    }
}
