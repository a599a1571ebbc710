//! Run paths and environments that reach outside the stack.
//!
//! Two checks that GPU stacks in particular get wrong:
//!
//! - an RPATH/RUNPATH element outside the mount point and outside every
//!   declared external's library directory (a CUDA toolkit's `lib64` baked
//!   in by its build system): as `DT_RPATH` it outranks `LD_LIBRARY_PATH` on
//!   the cluster, so it is an error; as `DT_RUNPATH` a warning;
//! - a library `dlopen`ed by bare name (NCCL opens `libnccl-net.so`) that
//!   the calling file's own search does not find, but that a view's
//!   `LD_LIBRARY_PATH` provides: it works only while that view is active,
//!   so it is reported as reachable only through the environment, naming
//!   the view.
//!
//! The views are read from `meta/env.json` of the audited tree (the uenv
//! schema written by `stack build`).

use std::path::{Path, PathBuf};

use super::classify::{Stack, under};
use super::fs::{Lookup, Vfs};
use super::report::{FindingKind, Severity};

/// What may appear in run paths besides the stack, and which views offer
/// which library directories.
#[derive(Clone, Debug, Default)]
pub struct PathPolicy {
    /// Library directories of declared externals (absolute).
    pub external_dirs: Vec<PathBuf>,
    /// The views' `LD_LIBRARY_PATH` directories.
    pub views: Vec<ViewPath>,
}

/// One view's `LD_LIBRARY_PATH`, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewPath {
    pub view: String,
    pub dirs: Vec<PathBuf>,
}

/// A finding of these checks (turned into a `Raw` by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathFinding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub target: String,
    pub path: Option<String>,
    pub message: String,
    pub hint: String,
}

impl PathPolicy {
    /// The policy for `stack`: `external_dirs` as given, views from the
    /// `meta/env.json` of every audited tree that has one.
    pub fn read(vfs: &Vfs, stack: &Stack, external_dirs: &[PathBuf]) -> PathPolicy {
        let mut views = Vec::new();
        for p in &stack.prefixes {
            if let Ok(bytes) = vfs.read_all(&p.join("meta/env.json")) {
                views.extend(views_from_env_json(&bytes));
            }
        }
        PathPolicy {
            external_dirs: external_dirs.to_vec(),
            views,
        }
    }

    /// Checks one expanded run path element `dir` (raw text `raw`) of the
    /// file `file`, found in its `tag` (`RPATH` or `RUNPATH`).
    pub fn check_element(
        &self,
        stack: &Stack,
        file: &str,
        tag: &str,
        raw: &str,
        dir: &str,
    ) -> Option<PathFinding> {
        if !dir.starts_with('/') {
            return None; // relative and empty elements have findings of their own
        }
        let d = Path::new(dir);
        if stack.prefixes.iter().any(|m| under(d, m))
            || self.external_dirs.iter().any(|e| under(d, e))
        {
            return None;
        }
        let rpath = tag == "RPATH";
        Some(PathFinding {
            kind: FindingKind::SearchPathOutside,
            severity: if rpath {
                Severity::Error
            } else {
                Severity::Warning
            },
            target: raw.to_string(),
            path: Some(dir.to_string()),
            message: if rpath {
                format!(
                    "{file}: RPATH element \"{raw}\" is outside the stack and outside every declared external; as DT_RPATH it outranks LD_LIBRARY_PATH, so a library there shadows the one the user's environment selects"
                )
            } else {
                format!(
                    "{file}: RUNPATH element \"{raw}\" is outside the stack and outside every declared external; libraries there are found on hosts that have the directory"
                )
            },
            hint: "drop the element (a dependency's build system added it; the compiler wrapper adds the stack's own), or declare the directory's package as an external".into(),
        })
    }

    /// A bare `dlopen` name that the caller's own search did not find:
    /// the first view whose `LD_LIBRARY_PATH` holds it inside the stack.
    pub fn dlopen_through_view(
        &self,
        vfs: &Vfs,
        stack: &Stack,
        file: &str,
        name: &str,
    ) -> Option<PathFinding> {
        for v in &self.views {
            for d in &v.dirs {
                if !stack.contains(d) {
                    continue;
                }
                let Lookup::File(found) = vfs.lookup(&d.join(name)) else {
                    continue;
                };
                if !stack.contains(&found) {
                    continue;
                }
                let at = d.join(name).display().to_string();
                return Some(PathFinding {
                    kind: FindingKind::DlopenOnlyThroughEnvironment,
                    severity: Severity::Warning,
                    target: name.to_string(),
                    path: Some(at.clone()),
                    message: format!(
                        "{file} calls dlopen and names \"{name}\": reachable only through the environment (LD_LIBRARY_PATH of view \"{}\" finds {at}); its own run paths do not",
                        v.view
                    ),
                    hint: format!(
                        "activate view \"{}\" (or load its module) before running, or add the directory to this file's RUNPATH",
                        v.view
                    ),
                });
            }
        }
        None
    }
}

/// The views of an env.json document (uenv schema) with the directories
/// their `LD_LIBRARY_PATH` operations add, in document order.
pub fn views_from_env_json(bytes: &[u8]) -> Vec<ViewPath> {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    let Some(views) = v.get("views").and_then(|v| v.as_object()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, view) in views {
        let ops = view
            .pointer("/env/values/list/LD_LIBRARY_PATH")
            .and_then(|o| o.as_array());
        let dirs: Vec<PathBuf> = ops
            .into_iter()
            .flatten()
            .filter_map(|op| op.get("value").and_then(|v| v.as_array()))
            .flatten()
            .filter_map(|d| d.as_str())
            .filter(|d| d.starts_with('/'))
            .map(PathBuf::from)
            .collect();
        if !dirs.is_empty() {
            out.push(ViewPath {
                view: name.clone(),
                dirs,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack() -> Stack {
        Stack {
            prefixes: vec![PathBuf::from("/user-environment")],
        }
    }

    #[test]
    fn rpath_outside_is_an_error_and_runpath_a_warning() {
        let p = PathPolicy::default();
        let f = p
            .check_element(
                &stack(),
                "/user-environment/lib/a.so",
                "RPATH",
                "/opt/cuda/lib64",
                "/opt/cuda/lib64",
            )
            .unwrap();
        assert_eq!(f.kind, FindingKind::SearchPathOutside);
        assert_eq!(f.severity, Severity::Error);
        let f = p
            .check_element(
                &stack(),
                "x",
                "RUNPATH",
                "/opt/cuda/lib64",
                "/opt/cuda/lib64",
            )
            .unwrap();
        assert_eq!(f.severity, Severity::Warning);
    }

    #[test]
    fn inside_the_mount_or_an_external_is_fine() {
        let p = PathPolicy {
            external_dirs: vec![PathBuf::from("/opt/cuda/lib64")],
            views: Vec::new(),
        };
        let s = stack();
        assert!(
            p.check_element(&s, "x", "RPATH", "$ORIGIN/../lib", "/user-environment/lib")
                .is_none()
        );
        assert!(
            p.check_element(&s, "x", "RPATH", "/opt/cuda/lib64", "/opt/cuda/lib64")
                .is_none()
        );
        assert!(
            p.check_element(&s, "x", "RPATH", "/opt/cuda/lib", "/opt/cuda/lib")
                .is_some()
        );
        // a prefix of the mount point's name is not inside it
        assert!(
            p.check_element(
                &s,
                "x",
                "RPATH",
                "/user-environment2/lib",
                "/user-environment2/lib"
            )
            .is_some()
        );
    }

    #[test]
    fn views_come_from_env_json() {
        let doc = br#"{"views": {
            "default": {"env": {"values": {"list": {"LD_LIBRARY_PATH": [
                {"op": "prepend", "value": ["/user-environment/env/default/lib", "rel"]}]}}}},
            "tools": {"env": {"values": {"list": {"PATH": [{"op": "prepend", "value": ["/x"]}]}}}}}}"#;
        assert_eq!(
            views_from_env_json(doc),
            vec![ViewPath {
                view: "default".into(),
                dirs: vec![PathBuf::from("/user-environment/env/default/lib")],
            }]
        );
        assert!(views_from_env_json(b"not json").is_empty());
    }
}
