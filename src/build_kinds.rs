//! The build system kinds, by name: the one table both the package-recipe
//! loader (`recipes`: which `system:` names exist, which `build:` keys each
//! accepts) and the build stage (`build`: which host programs choosing the
//! kind declares) read.
//!
//! A new kind starts here: its entry, then its settings in the recipe model
//! (`recipes::BuildSystem`) and its [`crate::build`] `System` implementation.
//! `tests/it/build_kinds.rs` fails until both sides know every entry.

/// One build system kind.
#[derive(Debug)]
pub struct BuildKind {
    /// The recipe keyword (`system: cmake`).
    pub name: &'static str,
    /// The `build:` keys it accepts besides the common ones
    /// (`system`, `install`, `build_env`, `steps`).
    pub keys: &'static [&'static str],
    /// The host programs it runs itself: choosing the kind declares them
    /// (docs/build.md, "Declared tools only").
    pub tools: &'static [&'static str],
}

/// Every kind, in the order error messages list them.
pub const KINDS: &[BuildKind] = &[
    BuildKind {
        name: "autotools",
        keys: &[
            "autoreconf",
            "autogen",
            "out_of_source",
            "configure_args",
            "make_args",
        ],
        tools: &[],
    },
    BuildKind {
        name: "cmake",
        keys: &["cmake_args", "source_subdir"],
        tools: &["cmake", "ctest", "cpack"],
    },
    BuildKind {
        name: "meson",
        keys: &["meson_args"],
        tools: &["meson", "ninja"],
    },
    BuildKind {
        name: "makefile",
        keys: &["make_args", "build_targets", "install_targets"],
        tools: &[],
    },
    BuildKind {
        name: "generic",
        keys: &[],
        tools: &[],
    },
    BuildKind {
        name: "binary",
        keys: &["relocate"],
        tools: &[],
    },
];

/// The kind named `name`.
pub fn get(name: &str) -> Option<&'static BuildKind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The names of every kind.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}
