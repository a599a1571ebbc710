//! The search for a name not yet loaded: the RPATH chain, `LD_LIBRARY_PATH`,
//! RUNPATH, the cache and the default directories, each candidate file
//! checked the way `open_path` checks it (reference §1).

use std::sync::Arc;

use super::super::dst;
use super::super::elf::Candidate;
use super::super::fs::Lookup;
use super::super::session::Object;
use super::{Bfs, Via};

/// What one search found (cached per session for the steps that do not
/// depend on the requester).
#[derive(Clone)]
pub(crate) enum SearchResult {
    Found {
        opened: Arc<str>,
        file: Arc<Object>,
        via: Via,
        dir: Option<String>,
    },
    NotFound,
    Fatal(String, String),
}

impl Bfs<'_> {
    /// The expanded DT_RPATH directories of object `i` (cached).
    fn rpath_dirs(&self, i: usize) -> Option<Vec<String>> {
        {
            let cache = self.rpaths.borrow();
            if let Some(Some(v)) = cache.get(i) {
                return v.clone();
            }
        }
        let raw = self.list.objects[i]
            .object
            .elf
            .as_ref()
            .and_then(|e| e.effective_rpath().map(str::to_string));
        let dirs = raw
            .map(|r| dst::search_dirs(&r, &[':'], &self.dst_ctx(i)))
            .filter(|d| !d.is_empty());
        let mut cache = self.rpaths.borrow_mut();
        if cache.len() <= i {
            cache.resize(i + 1, None);
        }
        cache[i] = Some(dirs.clone());
        dirs
    }

    pub(super) fn search(&mut self, from: usize, name: &str) -> SearchResult {
        if name.contains('/') {
            return match self.try_file(name) {
                Try::Accept(file) => SearchResult::Found {
                    opened: name.into(),
                    file,
                    via: Via::Path,
                    dir: None,
                },
                Try::Fatal(p, r) => SearchResult::Fatal(p, r),
                Try::Next => SearchResult::NotFound,
            };
        }
        let object = self.list.objects[from].object.clone();
        let runpath = object.elf.as_ref().and_then(|e| e.runpath.as_deref());
        let nodeflib = object.elf.as_ref().is_some_and(|e| e.nodeflib());
        if runpath.is_none() && self.chain_has_rpath(from) {
            let mut did_main = false;
            let mut cur = Some(from);
            let mut hops = 0;
            while let Some(i) = cur {
                if let Some(dirs) = self.rpath_dirs(i) {
                    if let r @ (SearchResult::Found { .. } | SearchResult::Fatal(..)) =
                        self.open_path(name, &dirs, Via::Rpath(i))
                    {
                        return r;
                    }
                    did_main |= i == 0;
                }
                cur = self.list.objects[i].loader;
                hops += 1;
                if hops > self.list.objects.len() {
                    break;
                }
            }
            if !did_main {
                if let Some(dirs) = self.rpath_dirs(0) {
                    if let r @ (SearchResult::Found { .. } | SearchResult::Fatal(..)) =
                        self.open_path(name, &dirs, Via::Rpath(0))
                    {
                        return r;
                    }
                }
            }
        }
        if !self.list.secure {
            if let Some(llp) = self.s.env.ld_library_path.clone() {
                // Expanded with the main program's tokens.
                let dirs = dst::search_dirs(&llp, &[':', ';'], &self.dst_ctx(0));
                if let r @ (SearchResult::Found { .. } | SearchResult::Fatal(..)) =
                    self.open_path(name, &dirs, Via::LdLibraryPath)
                {
                    return r;
                }
            }
        }
        if let Some(rp) = runpath {
            let dirs = dst::search_dirs(rp, &[':'], &self.dst_ctx(from));
            if let r @ (SearchResult::Found { .. } | SearchResult::Fatal(..)) =
                self.open_path(name, &dirs, Via::Runpath)
            {
                return r;
            }
        }
        self.system_search(name, nodeflib)
    }

    /// Whether an object on the loader chain of `from`, or the program,
    /// has an effective DT_RPATH.
    fn chain_has_rpath(&self, from: usize) -> bool {
        let has = |i: usize| {
            self.list.objects[i]
                .object
                .elf
                .as_ref()
                .is_some_and(|e| e.effective_rpath().is_some())
        };
        if has(0) {
            return true;
        }
        let mut cur = Some(from);
        let mut hops = 0;
        while let Some(i) = cur {
            if has(i) {
                return true;
            }
            cur = self.list.objects[i].loader;
            hops += 1;
            if hops > self.list.objects.len() {
                break;
            }
        }
        false
    }

    /// Steps 4 and 5 (cache, default directories): they depend only on the
    /// name and `DF_1_NODEFLIB`, so the session remembers the result.
    fn system_search(&mut self, name: &str, nodeflib: bool) -> SearchResult {
        let memo = &self.s.system_searches[usize::from(nodeflib)];
        if let Some((r, skipped)) = memo.get(name) {
            self.skipped.extend(skipped);
            return r;
        }
        let before = self.skipped.len();
        let r = self.system_search_uncached(name, nodeflib);
        memo.insert(
            name.to_string(),
            (r.clone(), self.skipped[before..].to_vec()),
        );
        r
    }

    fn system_search_uncached(&mut self, name: &str, nodeflib: bool) -> SearchResult {
        if let Some(cached) = self.s.cache.lookup(name, &self.s.model) {
            let filtered = nodeflib
                && self
                    .s
                    .trusted
                    .iter()
                    .any(|t| cached.starts_with(t.as_str()));
            if !filtered {
                let cached = cached.to_string();
                match self.try_file(&cached) {
                    Try::Accept(file) => {
                        return SearchResult::Found {
                            opened: cached.into(),
                            file,
                            via: Via::Cache,
                            dir: None,
                        };
                    }
                    Try::Fatal(p, r) => return SearchResult::Fatal(p, r),
                    Try::Next => {}
                }
            }
        }
        if !nodeflib {
            let s = self.s;
            if let r @ (SearchResult::Found { .. } | SearchResult::Fatal(..)) =
                self.open_path(name, &s.trusted, Via::DefaultDir)
            {
                return r;
            }
        }
        SearchResult::NotFound
    }

    /// `open_path`: every directory, every hwcaps subdirectory, in order.
    fn open_path(&mut self, name: &str, dirs: &[String], via: Via) -> SearchResult {
        let s = self.s;
        for dir in dirs {
            // Only the (hwcaps sub)directories that exist, canonical.
            for (sub, cdir) in s.search_dir(dir).iter() {
                let sub = &s.subdirs[*sub];
                let found = s.vfs.lookup_in(cdir, name);
                let opened = || format!("{dir}{sub}{name}");
                match found {
                    Lookup::File(c) => {
                        let obj = s.object(&c);
                        match &obj.verdict {
                            Candidate::Accept => {
                                return SearchResult::Found {
                                    opened: opened().into(),
                                    file: obj.clone(),
                                    via,
                                    dir: Some(format!("{dir}{sub}")),
                                };
                            }
                            Candidate::Skip(why) => self.skipped.push((opened(), why)),
                            Candidate::Fatal(why) => {
                                return SearchResult::Fatal(opened(), why.clone());
                            }
                        }
                    }
                    Lookup::Dir(_) => {
                        return SearchResult::Fatal(
                            opened(),
                            "cannot read file data: Is a directory".into(),
                        );
                    }
                    Lookup::Other(_) | Lookup::Missing | Lookup::Loop => {}
                }
            }
        }
        SearchResult::NotFound
    }

    /// Opens one path (a name with a slash, or a cache hit).
    fn try_file(&mut self, path: &str) -> Try {
        let Some(abs) = self.s.absolute(path) else {
            return Try::Next;
        };
        match self.s.vfs.lookup(&abs) {
            Lookup::File(c) => {
                let obj = self.s.object(&c);
                match &obj.verdict {
                    Candidate::Accept => Try::Accept(obj.clone()),
                    Candidate::Skip(why) => {
                        self.skipped.push((path.to_string(), why));
                        Try::Next
                    }
                    Candidate::Fatal(why) => Try::Fatal(path.to_string(), why.clone()),
                }
            }
            Lookup::Dir(_) => Try::Fatal(
                path.to_string(),
                "cannot read file data: Is a directory".into(),
            ),
            _ => Try::Next,
        }
    }
}

enum Try {
    Accept(Arc<Object>),
    Next,
    Fatal(String, String),
}
