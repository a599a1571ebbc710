//! `build.flags:`: extra compiler flags, as Spack's `flag_handler` adds
//! them, each list under a flag name, an optional `when:` and where the
//! flags go (`via:`).
//!
//! ```yaml
//! flags:
//!   - {cflags: ["-DNO_MMAP"], when: "~mmap"}
//!   - {ldlibs: ["-lintl"], via: build_system}
//! ```

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Loc};

use super::located::When;
use super::read;

/// A flag variable, as Spack names them.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum FlagName {
    Cflags,
    Cxxflags,
    Fflags,
    Cppflags,
    Ldflags,
    Ldlibs,
}

impl FlagName {
    pub const ALL: [FlagName; 6] = [
        FlagName::Cflags,
        FlagName::Cxxflags,
        FlagName::Fflags,
        FlagName::Cppflags,
        FlagName::Ldflags,
        FlagName::Ldlibs,
    ];

    /// The recipe key (`cflags`).
    pub fn key(self) -> &'static str {
        match self {
            FlagName::Cflags => "cflags",
            FlagName::Cxxflags => "cxxflags",
            FlagName::Fflags => "fflags",
            FlagName::Cppflags => "cppflags",
            FlagName::Ldflags => "ldflags",
            FlagName::Ldlibs => "ldlibs",
        }
    }

    pub fn from_key(key: &str) -> Option<FlagName> {
        FlagName::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The conventional environment variable (`CFLAGS`; `ldlibs`: `LDLIBS`).
    pub fn env_var(self) -> &'static str {
        match self {
            FlagName::Cflags => "CFLAGS",
            FlagName::Cxxflags => "CXXFLAGS",
            FlagName::Fflags => "FFLAGS",
            FlagName::Cppflags => "CPPFLAGS",
            FlagName::Ldflags => "LDFLAGS",
            FlagName::Ldlibs => "LDLIBS",
        }
    }
}

/// Where flags go (Spack's `flag_handler` return slots).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum FlagVia {
    /// Added by the compiler wrapper to every matching call (Spack's
    /// `inject_flags`, the first slot).
    #[default]
    Inject,
    /// Appended to `CFLAGS`, `LDFLAGS`, … in the build environment
    /// (`env_flags`, the second slot).
    Env,
    /// Arguments of the build system: `CFLAGS=…` configure arguments,
    /// `-DCMAKE_C_FLAGS=…` (`build_system_flags`, the third slot).
    BuildSystem,
}

impl FlagVia {
    pub const ALL: [FlagVia; 3] = [FlagVia::Inject, FlagVia::Env, FlagVia::BuildSystem];

    pub fn key(self) -> &'static str {
        match self {
            FlagVia::Inject => "inject",
            FlagVia::Env => "env",
            FlagVia::BuildSystem => "build_system",
        }
    }

    pub fn from_key(key: &str) -> Option<FlagVia> {
        FlagVia::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// One `flags:` entry.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FlagEntry {
    pub name: FlagName,
    /// Templates, one flag each (a flag may contain spaces: `-O3 -g` stays
    /// one word of the variable, as in Spack).
    pub values: Vec<String>,
    pub via: FlagVia,
    pub when: Option<When>,
    pub loc: Loc,
}

const OTHER_KEYS: &[&str] = &["via", "when"];

/// Read `flags:`, a list of `{<flag name>: [flags], via:, when:}`.
pub fn flags(cx: &mut Cx, node: &Node) -> Vec<FlagEntry> {
    let Some(items) = cx.seq(node, "`flags`") else {
        return Vec::new();
    };
    let keys: Vec<&str> = FlagName::ALL
        .iter()
        .map(|f| f.key())
        .chain(OTHER_KEYS.iter().copied())
        .collect();
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a `flags` entry", &keys) else {
            continue;
        };
        let names: Vec<FlagName> = FlagName::ALL
            .into_iter()
            .filter(|f| m.has(f.key()))
            .collect();
        let [name] = names[..] else {
            cx.error(
                Code::InvalidValue,
                &m.loc,
                "a `flags` entry names exactly one flag variable",
                format!("names {}", names.len()),
                Some(
                    "one of `cflags`, `cxxflags`, `fflags`, `cppflags`, `ldflags`, `ldlibs` per entry"
                        .into(),
                ),
            );
            continue;
        };
        let what = format!("`{}`", name.key());
        let values = match m.get(name.key()) {
            Some(n) => cx.strings(n, &what, true),
            None => Vec::new(),
        };
        read::check_templates(cx, &values);
        let via = match m.get("via") {
            Some(n) => {
                let allowed: Vec<&str> = FlagVia::ALL.iter().map(|v| v.key()).collect();
                match cx.choice(n, "`via`", &allowed) {
                    Some(s) => FlagVia::from_key(&s.value).unwrap_or_default(),
                    None => continue,
                }
            }
            None => FlagVia::Inject,
        };
        let when = m.get("when").and_then(|n| read::when(cx, n));
        out.push(FlagEntry {
            name,
            values: values.into_iter().map(|s| s.value).collect(),
            via,
            when,
            loc: m.loc.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_routes_round_trip_through_keys() {
        for f in FlagName::ALL {
            assert_eq!(FlagName::from_key(f.key()), Some(f));
        }
        for v in FlagVia::ALL {
            assert_eq!(FlagVia::from_key(v.key()), Some(v));
        }
        assert_eq!(FlagName::Ldlibs.env_var(), "LDLIBS");
    }
}
