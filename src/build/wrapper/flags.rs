//! Compiler flags a recipe injects (`flags:` with `via: inject`, Spack's
//! `inject_flags`), carried in `STACK_WRAP_CFLAGS`, `_CXXFLAGS`, `_FFLAGS`,
//! `_CPPFLAGS`, `_LDFLAGS` and `_LDLIBS` (each split on whitespace) and added
//! per mode as Spack's `cc` adds `SPACK_CFLAGS`, …: before the call's own
//! arguments (which may override them), `ldlibs` at the end of link lines.

use std::ffi::OsString;

use super::{Lang, Mode};

/// The variable carrying flags of a recipe flag name (`cflags` →
/// `STACK_WRAP_CFLAGS`).
pub fn flag_var(name: &str) -> &'static str {
    match name {
        "cflags" => ENV_CFLAGS,
        "cxxflags" => ENV_CXXFLAGS,
        "fflags" => ENV_FFLAGS,
        "cppflags" => ENV_CPPFLAGS,
        "ldflags" => ENV_LDFLAGS,
        _ => ENV_LDLIBS,
    }
}

pub const ENV_CFLAGS: &str = "STACK_WRAP_CFLAGS";
pub const ENV_CXXFLAGS: &str = "STACK_WRAP_CXXFLAGS";
pub const ENV_FFLAGS: &str = "STACK_WRAP_FFLAGS";
pub const ENV_CPPFLAGS: &str = "STACK_WRAP_CPPFLAGS";
pub const ENV_LDFLAGS: &str = "STACK_WRAP_LDFLAGS";
pub const ENV_LDLIBS: &str = "STACK_WRAP_LDLIBS";

/// The injected flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InjectedFlags {
    pub cflags: Vec<OsString>,
    pub cxxflags: Vec<OsString>,
    pub fflags: Vec<OsString>,
    pub cppflags: Vec<OsString>,
    pub ldflags: Vec<OsString>,
    pub ldlibs: Vec<OsString>,
}

impl InjectedFlags {
    /// Read them through `get` (a variable lookup).
    pub fn from_lookup(get: &impl Fn(&str) -> Option<OsString>) -> Self {
        let words = |var: &str| -> Vec<OsString> {
            get(var)
                .map(|v| {
                    v.to_string_lossy()
                        .split_whitespace()
                        .map(OsString::from)
                        .collect()
                })
                .unwrap_or_default()
        };
        InjectedFlags {
            cflags: words(ENV_CFLAGS),
            cxxflags: words(ENV_CXXFLAGS),
            fflags: words(ENV_FFLAGS),
            cppflags: words(ENV_CPPFLAGS),
            ldflags: words(ENV_LDFLAGS),
            ldlibs: words(ENV_LDLIBS),
        }
    }

    /// The variables that carry them (only those with flags).
    pub fn to_env(&self) -> Vec<(&'static str, OsString)> {
        let lists = [
            (ENV_CFLAGS, &self.cflags),
            (ENV_CXXFLAGS, &self.cxxflags),
            (ENV_FFLAGS, &self.fflags),
            (ENV_CPPFLAGS, &self.cppflags),
            (ENV_LDFLAGS, &self.ldflags),
            (ENV_LDLIBS, &self.ldlibs),
        ];
        lists
            .into_iter()
            .filter(|(_, l)| !l.is_empty())
            .map(|(var, l)| (var, l.join(std::ffi::OsStr::new(" "))))
            .collect()
    }

    /// Flags before the call's arguments: `fflags` (Fortran) and `cppflags`
    /// when preprocessing, assembling, compiling or linking; `cflags` (C) or
    /// `cxxflags` (C++) when compiling or linking; `ldflags` when linking.
    pub fn before(&self, lang: Lang, mode: Mode) -> Vec<OsString> {
        let mut out = Vec::new();
        let any = matches!(
            mode,
            Mode::Preprocess | Mode::Assemble | Mode::Compile | Mode::Link
        );
        if !any {
            return out;
        }
        if lang == Lang::Fortran {
            out.extend(self.fflags.iter().cloned());
        }
        out.extend(self.cppflags.iter().cloned());
        if matches!(mode, Mode::Compile | Mode::Link) {
            match lang {
                Lang::C => out.extend(self.cflags.iter().cloned()),
                Lang::Cxx => out.extend(self.cxxflags.iter().cloned()),
                _ => {}
            }
        }
        if mode == Mode::Link {
            out.extend(self.ldflags.iter().cloned());
        }
        out
    }

    /// Flags after everything else: `ldlibs` on link lines.
    pub fn after(&self, mode: Mode) -> Vec<OsString> {
        if mode == Mode::Link {
            self.ldlibs.clone()
        } else {
            Vec::new()
        }
    }
}
