//! The spec language: Spack-compatible package specs, versions, version
//! constraints, variants, compilers and targets (docs/spec-syntax.md).
//!
//! Pure (no IO). Text in, values out; every error carries the byte offset
//! of the offending characters so loaders can point into the file.
//!
//! ```
//! use stack::spec::{Spec, Version};
//!
//! let concrete = Spec::parse("libfabric@=2.2.0 +cuda fabrics=cxi,shm target=neoverse_v2").unwrap();
//! let when = Spec::parse("@2: fabrics=cxi target=aarch64:").unwrap();
//! assert!(concrete.satisfies(&when));
//! assert!(Version::parse("main").unwrap() > Version::parse("2.5.1").unwrap());
//! ```
//!
//! | file | concept |
//! |------|---------|
//! | [`version`](Version) | versions and their ordering |
//! | [`constraint`](VersionConstraint) | `@1.2`, `@=1.2`, `@1.2:1.4`, lists |
//! | [`variant`](VariantValue) | `+x`, `~x`, `key=a,b` |
//! | [`FlagList`] | compiler flags: `cflags="-O2 -g"`, `fflags==-fPIC` |
//! | [`target`](TargetConstraint) | the microarchitecture table, `target=` |
//! | [`Spec`] | the spec type and its canonical text |
//! | `parse` | the parser |
//! | `ops` | `satisfies`, `intersects`, `constrain` |
//! | `error` | [`SpecError`], [`SpecParseError`], [`SpecConflict`] |
//!
//! User documentation: `docs/spec-syntax.md`.

mod constraint;
mod covered;
mod error;
mod ops;
mod parse;
#[allow(clippy::module_inception)]
mod spec;
mod target;
mod variant;
mod version;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod syntax_tests;

pub use constraint::{VersionConstraint, VersionRange};
pub use error::{SpecConflict, SpecError, SpecParseError};
pub use ops::SingleValued;
pub use spec::{CompilerSpec, FLAG_NAMES, FlagList, LANGUAGES, Spec, reserved_variant};
pub use target::{
    TargetConstraint, TargetRange, is_known_target, known_targets, suggest_target,
    target_descends_from, target_family, target_parents,
};
pub use variant::VariantValue;
pub use version::Version;
