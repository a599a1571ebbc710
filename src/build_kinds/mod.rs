//! The build system kinds. A kind is **one registration**: a file here
//! implementing [`BuildKind`] and its line in [`KINDS`]. It owns
//!
//! * its recipe keyword (`system: cmake`) and its `build:` keys with their
//!   value types ([`Key`], [`KeyType`]): the package-recipe loader reads,
//!   checks, writes back, hashes, describes and renders every key by its
//!   type, so no other module names a kind;
//! * the host programs choosing it declares (docs/build.md, "Declared tools
//!   only");
//! * its phases: the commands it runs to bootstrap, configure, build and
//!   install, given its rendered settings ([`JobSettings`]) and the build
//!   stage's narrow [`Phases`] interface.
//!
//! Both the recipe model ([`crate::recipes`]) and the build stage
//! ([`crate::build`]) read this module; it depends on neither. Every kind
//! runs the same skeleton (`build::systems`), with the recipe's extra steps
//! around each phase:
//!
//! ```text
//! [bootstrap]  pre_bootstrap, <bootstrap>  (when the kind bootstraps the tree, or pre_bootstrap steps exist)
//! configure    pre_configure, <configure>, post_configure
//! build        pre_build,     <build>,     post_build
//! install      pre_install,   <install>, the recipe's `install:` steps, post_install
//! ```

mod autotools;
mod binary;
mod cmake;
mod external;
mod generic;
mod makefile;
mod meson;
mod phases;
#[cfg(test)]
mod probe;
mod settings;
mod spack;

use std::path::Path;

pub use phases::{PhaseError, Phases};
pub use settings::{JobSettings, JobValue};

/// The registry: `KINDS`, plus (in the crate's unit tests) the test-only
/// `probe` kind, which proves that a kind registered here alone is read,
/// checked, written, hashed and rendered (`pipeline::kind_tests`).
macro_rules! registry {
    ($($kind:expr),* $(,)?) => {
        /// Every kind, in the order error messages list them.
        #[cfg(not(test))]
        pub static KINDS: &[&dyn BuildKind] = &[$(&$kind),*];
        /// Every kind, in the order error messages list them.
        #[cfg(test)]
        pub static KINDS: &[&dyn BuildKind] = &[$(&$kind,)* &probe::Probe];
    };
}

registry![
    autotools::Autotools,
    cmake::CMake,
    meson::Meson,
    makefile::Makefile,
    generic::Generic,
    binary::Binary,
    external::External,
    spack::Spack,
];

/// The value type of a kind's `build:` key: how the recipe loader reads it,
/// the writer writes it, the node hash and `stack info` show it and the
/// renderer turns it into a [`JobValue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// `true`, or `{when: SPEC}` (a condition on the concrete spec).
    Toggle,
    /// A plain boolean, default `false`; hashed only when `true`.
    Flag,
    /// An argument list: templates, or `{when, args}` blocks.
    Args,
    /// An optional plain string; hashed only when set.
    Text,
    /// A target list with this default: an argument list (templates, or
    /// `{when, args}` blocks) whose default is plain words.
    Words(&'static [&'static str]),
    /// `binary`'s `relocate:` block (`rpath`, `needed`, `placeholders`):
    /// rendered into the job's relocation, not into its settings.
    Relocate,
    /// A package file, required: `{file, sha256}` with `file` below the
    /// repository's `spack/` directory (`<namespace>/<dir>/package.py`),
    /// checked against `sha256` when the recipe loads and before it runs.
    /// Rendered into the job's build logic, not into its settings.
    File,
    /// A list of package files (as [`KeyType::File`]), default empty.
    Files,
}

/// One `build:` key of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    pub ty: KeyType,
}

/// A key (for the kinds' tables).
pub const fn key(name: &'static str, ty: KeyType) -> Key {
    Key { name, ty }
}

/// One build system kind: its recipe side (keyword, keys, tools) and its
/// phases. Every phase does nothing by default; `install` is the kind's own
/// install (`make install`, `cmake --install`), the recipe's `install:`
/// steps run after it.
pub trait BuildKind: Sync + std::fmt::Debug {
    /// The recipe keyword (`system: cmake`).
    fn name(&self) -> &'static str;
    /// The `build:` keys it accepts besides the common ones (`system`,
    /// `install`, `build_env`, `steps`), in the order they are written.
    fn keys(&self) -> &'static [Key] {
        &[]
    }
    /// The host programs it runs itself: choosing the kind declares them.
    fn tools(&self) -> &'static [&'static str] {
        &[]
    }
    /// Seconds a package of this kind is assumed to take when no earlier
    /// build recorded it (grouping remote build jobs): copying a tree is
    /// quick, configure scripts are slow.
    fn estimated_seconds(&self) -> f64 {
        90.0
    }
    /// Never built: only a cluster external satisfies a package of this
    /// kind (the resolver offers no build candidate for it).
    fn external_only(&self) -> bool {
        false
    }
    /// Runs the compilers (its prefix gets the compiled-package checks:
    /// RPATHs restored, build IDs normalised).
    fn compiles(&self) -> bool {
        false
    }
    /// Builds in `<stage>/build` rather than in the source tree.
    fn out_of_source(&self, _settings: &JobSettings) -> bool {
        false
    }
    /// Without `install:` steps, copies the whole (built) tree into the
    /// prefix.
    fn copies_tree(&self) -> bool {
        false
    }
    /// Compiler flags as arguments of the build system (a recipe's `flags:`
    /// with `via: build_system`, Spack's `flags_to_build_system_args`):
    /// `flags` are `(name, flags joined by spaces)` pairs, names as in
    /// recipes (`cflags`, …, `ldlibs`). Returns the `Args` key to append to
    /// and the arguments; `None` (the default) puts them into the build
    /// environment instead (`CFLAGS`, …).
    fn flag_args(&self, _flags: &[(&str, String)]) -> Option<(&'static str, Vec<String>)> {
        None
    }
    /// Runs the package's own build logic (its package files, the
    /// [`KeyType::File`] keys) through the Python layer of
    /// [`crate::build_logic`]: its jobs carry a
    /// [`crate::build_logic::LogicJob`], node hashes cover
    /// [`crate::build_logic::API_VERSION`], the spec's compiler flags go to
    /// the package's `flag_handler` instead of being injected, and its
    /// recipe's untranslated build items are not refused (they run).
    fn runs_build_logic(&self) -> bool {
        false
    }
    /// Has a bootstrap of its own for the source tree `src`.
    fn bootstraps(&self, _settings: &JobSettings, _src: &Path) -> bool {
        false
    }
    fn bootstrap(&self, _s: &JobSettings, _cx: &mut dyn Phases) -> Result<(), PhaseError> {
        Ok(())
    }
    fn configure(&self, _s: &JobSettings, _cx: &mut dyn Phases) -> Result<(), PhaseError> {
        Ok(())
    }
    fn build(&self, _s: &JobSettings, _cx: &mut dyn Phases) -> Result<(), PhaseError> {
        Ok(())
    }
    fn install(&self, _s: &JobSettings, _cx: &mut dyn Phases) -> Result<(), PhaseError> {
        Ok(())
    }
}

/// The kind named `name`.
pub fn get(name: &str) -> Option<&'static dyn BuildKind> {
    KINDS.iter().copied().find(|k| k.name() == name)
}

/// The kind a recipe whose `build:` section does not load carries (such a
/// recipe has errors and is never built).
pub fn placeholder() -> &'static dyn BuildKind {
    &generic::Generic
}

/// The names of every kind.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name()).collect()
}

/// The names of a kind's keys.
pub fn key_names(kind: &dyn BuildKind) -> Vec<&'static str> {
    kind.keys().iter().map(|k| k.name).collect()
}
