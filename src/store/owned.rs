//! What a build directory installed into a shared store (direct mode).
//!
//! In namespace mode the store is `<build>/store`: everything in it belongs
//! to that build directory. In direct mode the store is the mount point
//! itself, which may also hold other stacks' prefixes, a site's
//! `modules/site.lua` or someone else's `env/otherview`. The build then
//! keeps a record, `<build>/owned.json`, of what it put there — its
//! prefixes, its views (`env/<name>`), its module files and `meta/` — and
//! removes or replaces nothing else: a stale prefix is pruned only if the
//! record names it, and views, modules and `meta/` are regenerated only
//! when everything already under `env/`, `modules/` and `meta/` is recorded
//! (otherwise the build stops with [`StoreError::Foreign`] naming the
//! files).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::StoreError;
use super::atomic::write_atomic;

/// The record's file name in the build directory.
pub const OWNED_FILE: &str = "owned.json";

/// How many foreign paths an error lists.
const LISTED: usize = 10;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Record {
    store: PathBuf,
    entries: BTreeSet<String>,
}

/// The record of one build directory for one shared store.
#[derive(Debug)]
pub struct Owned {
    file: PathBuf,
    store: PathBuf,
    entries: BTreeSet<String>,
}

fn rel_string(store: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(store).ok()?;
    let s = rel.to_str()?;
    (!s.is_empty()).then(|| s.to_string())
}

impl Owned {
    /// The record for `store` as used by `build_dir`; `None` when the store
    /// lies inside the build directory (all of it is the build's own).
    pub fn for_store(build_dir: &Path, store: &Path) -> Result<Option<Owned>, StoreError> {
        if store.starts_with(build_dir) {
            return Ok(None);
        }
        let file = build_dir.join(OWNED_FILE);
        let record: Record = match fs_err::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StoreError::BadRecord {
                path: file.clone(),
                message: e.to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Record::default(),
            Err(e) => return Err(e.into()),
        };
        // A record of another store owns nothing here.
        let entries = if record.store == store {
            record.entries
        } else {
            BTreeSet::new()
        };
        Ok(Some(Owned {
            file,
            store: store.to_path_buf(),
            entries,
        }))
    }

    /// Whether the record names `path` (a path in the store).
    pub fn owns(&self, path: &Path) -> bool {
        rel_string(&self.store, path).is_some_and(|r| self.entries.contains(&r))
    }

    /// Record `prefixes` (host paths in the store) that exist now.
    pub fn add_prefixes<'a>(&mut self, prefixes: impl IntoIterator<Item = &'a Path>) {
        for p in prefixes {
            if p.is_dir()
                && let Some(r) = rel_string(&self.store, p)
            {
                self.entries.insert(r);
            }
        }
    }

    /// Forget `paths` (pruned prefixes).
    pub fn remove(&mut self, paths: &[PathBuf]) {
        for p in paths {
            if let Some(r) = rel_string(&self.store, p) {
                self.entries.remove(&r);
            }
        }
    }

    /// What regenerating views, modules and `meta/` would remove: entries
    /// of `env/` and files of `modules/` the record does not name, and a
    /// non-empty `meta/` it does not name.
    fn generated_now(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        if let Ok(rd) = fs_err::read_dir(self.store.join("env")) {
            for e in rd {
                out.push(e?.path());
            }
        }
        let modules = self.store.join("modules");
        if modules.is_dir() {
            for e in walkdir::WalkDir::new(&modules)
                .min_depth(1)
                .sort_by_file_name()
            {
                let e = e.map_err(|e| std::io::Error::other(e.to_string()))?;
                if !e.file_type().is_dir() {
                    out.push(e.path().to_path_buf());
                }
            }
        }
        let meta = self.store.join("meta");
        if fs_err::read_dir(&meta).is_ok_and(|mut rd| rd.next().is_some()) {
            out.push(meta);
        }
        out.sort();
        Ok(out)
    }

    /// Refuse to regenerate views, modules and `meta/` over files this
    /// build directory did not put there.
    pub fn check_generated(&self) -> Result<(), StoreError> {
        let foreign: Vec<PathBuf> = self
            .generated_now()?
            .into_iter()
            .filter(|p| !self.owns(p))
            .collect();
        if foreign.is_empty() {
            return Ok(());
        }
        Err(StoreError::Foreign {
            store: self.store.clone(),
            listed: foreign.iter().take(LISTED).cloned().collect(),
            more: foreign.len().saturating_sub(LISTED),
        })
    }

    /// After views, modules and `meta/` were generated: they are ours.
    pub fn record_generated(&mut self) -> std::io::Result<()> {
        self.entries
            .retain(|e| !(e.starts_with("env/") || e.starts_with("modules/") || e == "meta"));
        for p in self.generated_now()? {
            if let Some(r) = rel_string(&self.store, &p) {
                self.entries.insert(r);
            }
        }
        Ok(())
    }

    /// Write the record (atomically).
    pub fn save(&self) -> std::io::Result<()> {
        let record = Record {
            store: self.store.clone(),
            entries: self.entries.clone(),
        };
        let mut text = serde_json::to_string_pretty(&record).map_err(std::io::Error::other)?;
        text.push('\n');
        write_atomic(&self.file, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owns_only_what_it_recorded() {
        let d = tempfile::tempdir().unwrap();
        let build = d.path().join("build");
        let store = d.path().join("ue");
        for p in [
            "x86_64/mine-1.0-aaaaaaaa",
            "x86_64/other-1.0-bbbbbbbb",
            "env/v",
        ] {
            fs_err::create_dir_all(store.join(p)).unwrap();
        }
        fs_err::create_dir_all(&build).unwrap();
        assert!(
            Owned::for_store(&build, &build.join("store"))
                .unwrap()
                .is_none(),
            "a private store is all the build's own"
        );
        let mut o = Owned::for_store(&build, &store).unwrap().unwrap();
        let mine = store.join("x86_64/mine-1.0-aaaaaaaa");
        o.add_prefixes([mine.as_path()]);
        assert!(o.owns(&mine) && !o.owns(&store.join("x86_64/other-1.0-bbbbbbbb")));
        let err = o.check_generated().unwrap_err().to_string();
        assert!(err.contains("env/v"), "{err}");
        o.record_generated().unwrap();
        o.check_generated().unwrap();
        o.save().unwrap();

        // Someone else's module file appears: refused, named.
        fs_err::create_dir_all(store.join("modules")).unwrap();
        fs_err::write(store.join("modules/site.lua"), "--").unwrap();
        let o = Owned::for_store(&build, &store).unwrap().unwrap();
        assert!(o.owns(&mine));
        let err = o.check_generated().unwrap_err().to_string();
        assert!(
            err.contains("modules/site.lua") && !err.contains("env/v"),
            "{err}"
        );
    }
}
