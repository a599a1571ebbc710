//! `stack diff A B`: two lock files, builds (`BUILD/meta/`) or images
//! (`store.squashfs` with `meta/` beside it) compared: the plan (versions,
//! variants, hashes, sources — [`Lock::diff`]), the environment metadata
//! (`meta/env.json`: views and their variables) and, for two builds, the
//! files in their stores.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::resolve::{Lock, ResolveError};

/// What one side of a diff is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffSide {
    /// The lock file.
    pub lock: PathBuf,
    /// `meta/env.json`, for a build or an image.
    pub env_json: Option<PathBuf>,
    /// `BUILD/store`, for a build.
    pub store: Option<PathBuf>,
}

/// Why a side cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(
        "{0}: not a lock file, a build directory (with meta/stack.lock) or an image (with meta/ beside it)"
    )]
    NotFound(PathBuf),
    #[error(transparent)]
    Lock(#[from] Box<ResolveError>),
    #[error("{path}: {message}")]
    Read { path: PathBuf, message: String },
}

/// The differences, by section; all empty when A and B agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Differences {
    pub plan: Vec<String>,
    pub env: Vec<String>,
    pub files: Vec<String>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.plan.is_empty() && self.env.is_empty() && self.files.is_empty()
    }
}

/// What `path` is: a lock file, a build directory or an image.
pub fn locate(path: &Path) -> Result<DiffSide, DiffError> {
    let side = |meta: PathBuf, store: Option<PathBuf>| {
        let lock = meta.join("stack.lock");
        lock.is_file().then(|| DiffSide {
            env_json: Some(meta.join("env.json")).filter(|p| p.is_file()),
            lock,
            store: store.filter(|s| s.is_dir()),
        })
    };
    let found = if path.is_dir() {
        side(path.join("meta"), Some(path.join("store")))
            .or_else(|| side(path.to_path_buf(), None))
            .or_else(|| {
                let lock = path.join("stack.lock");
                lock.is_file().then_some(DiffSide {
                    lock,
                    env_json: None,
                    store: None,
                })
            })
    } else if path.extension().is_some_and(|e| e == "squashfs") {
        path.parent().and_then(|d| side(d.join("meta"), None))
    } else if path.is_file() {
        Some(DiffSide {
            lock: path.to_path_buf(),
            env_json: None,
            store: None,
        })
    } else {
        None
    };
    found.ok_or_else(|| DiffError::NotFound(path.to_path_buf()))
}

/// Compare two sides.
pub fn diff(a: &DiffSide, b: &DiffSide) -> Result<Differences, DiffError> {
    let read_lock = |p: &Path| Lock::read(p).map_err(Box::new);
    let mut out = Differences {
        plan: read_lock(&a.lock)?.diff(&read_lock(&b.lock)?),
        ..Differences::default()
    };
    if let (Some(ea), Some(eb)) = (&a.env_json, &b.env_json) {
        out.env = json_changes(&read_json(ea)?, &read_json(eb)?);
    }
    if let (Some(sa), Some(sb)) = (&a.store, &b.store) {
        out.files = file_changes(sa, sb);
    }
    Ok(out)
}

fn read_json(path: &Path) -> Result<Value, DiffError> {
    let err = |message: String| DiffError::Read {
        path: path.to_path_buf(),
        message,
    };
    let text = fs_err::read_to_string(path).map_err(|e| err(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| err(e.to_string()))
}

/// Leaf values by dotted path (`views.default.env.values.PATH`).
fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => m.iter().for_each(|(k, v)| flatten(&key(k), v, out)),
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            out.insert(prefix.to_string(), v.to_string());
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| flatten(&key(&i.to_string()), v, out)),
        _ => {
            out.insert(prefix.to_string(), v.to_string());
        }
    }
}

/// Changed, added and removed leaves of two JSON documents.
pub fn json_changes(a: &Value, b: &Value) -> Vec<String> {
    let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
    flatten("", a, &mut fa);
    flatten("", b, &mut fb);
    let keys: BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    keys.into_iter()
        .filter_map(|k| match (fa.get(k), fb.get(k)) {
            (Some(x), Some(y)) if x == y => None,
            (Some(x), Some(y)) => Some(format!("{k}: {x} → {y}")),
            (Some(x), None) => Some(format!("{k}: {x} removed")),
            (None, Some(y)) => Some(format!("{k}: {y} added")),
            (None, None) => None,
        })
        .collect()
}

/// Files (and symlinks) only in one of two store trees, by relative path.
pub fn file_changes(a: &Path, b: &Path) -> Vec<String> {
    let list = |root: &Path| -> BTreeSet<PathBuf> {
        walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| !e.file_type().is_dir())
            .filter_map(|e| e.path().strip_prefix(root).ok().map(Path::to_path_buf))
            .collect()
    };
    let (la, lb) = (list(a), list(b));
    let mut out: Vec<String> = la
        .difference(&lb)
        .map(|p| format!("- {}", p.display()))
        .collect();
    out.extend(lb.difference(&la).map(|p| format!("+ {}", p.display())));
    out
}

/// What `stack diff` cannot find or read is the input's fault.
impl crate::diag::Classify for DiffError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::ErrorClass::Input
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_leaves_are_compared_by_path() {
        let a = serde_json::json!({"views": {"default": {"env": {"PATH": ["/a/bin"], "X": "1"}}}, "mount": "/m"});
        let b = serde_json::json!({"views": {"default": {"env": {"PATH": ["/a/bin", "/b/bin"], "Y": "2"}}}, "mount": "/m"});
        assert_eq!(
            json_changes(&a, &b),
            [
                "views.default.env.PATH: [\"/a/bin\"] → [\"/a/bin\",\"/b/bin\"]",
                "views.default.env.X: \"1\" removed",
                "views.default.env.Y: \"2\" added",
            ]
        );
    }

    #[test]
    fn sides_are_found_for_locks_builds_and_images() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        fs_err::create_dir_all(t.join("b/meta")).unwrap();
        fs_err::create_dir_all(t.join("b/store")).unwrap();
        fs_err::write(t.join("b/meta/stack.lock"), "{}").unwrap();
        fs_err::write(t.join("b/meta/env.json"), "{}").unwrap();
        fs_err::write(t.join("b/store.squashfs"), "").unwrap();
        let build = locate(&t.join("b")).unwrap();
        assert_eq!(build.store, Some(t.join("b/store")));
        assert_eq!(build.env_json, Some(t.join("b/meta/env.json")));
        let image = locate(&t.join("b/store.squashfs")).unwrap();
        assert_eq!(
            (image.lock, image.store),
            (t.join("b/meta/stack.lock"), None)
        );
        let lock = locate(&t.join("b/meta/stack.lock")).unwrap();
        assert_eq!(lock.env_json, None);
        assert!(matches!(
            locate(&t.join("nope")),
            Err(DiffError::NotFound(_))
        ));
    }
}
