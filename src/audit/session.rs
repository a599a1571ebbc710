//! Everything shared by all the load simulations of one audit: the virtual
//! file system, the loader facts, the `ld.so.cache`, and a cache of every
//! file read (parsed once, whatever the number of roots that load it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::elf::{self, Candidate, ElfInfo};
use super::fs::Vfs;
use super::ldcache::LdCache;
use super::ldconf;
use super::loader::LoaderModel;
use super::memo::Memo;

/// The process environment the loader runs in.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `LD_LIBRARY_PATH` (off unless asked for; ignored in secure mode).
    pub ld_library_path: Option<String>,
    /// Working directory for relative paths; `None`: relative paths find
    /// nothing (an audit has no meaningful working directory).
    pub cwd: Option<PathBuf>,
}

/// Where the name → path table came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CacheSource {
    /// The target's `ld.so.cache` file.
    File { path: String, entries: usize },
    /// No cache file: built from `ld.so.conf` like ldconfig would.
    Conf { path: String, entries: usize },
    /// The loader uses no cache (or neither file exists).
    None,
}

/// A file as read for the loader.
pub struct Object {
    /// Canonical virtual path.
    pub path: PathBuf,
    pub len: u64,
    pub mode: u32,
    /// (device, inode), when known.
    pub id: Option<(u64, u64)>,
    /// Shared between hard links of the same file.
    pub elf: Option<Arc<ElfInfo>>,
    /// `open_verify`'s verdict for this session's target.
    pub verdict: Candidate,
    /// Why the file could not be read (the loader skips it; an audit of the
    /// stack reports it as not examined).
    pub error: Option<String>,
}

impl Object {
    pub fn setid(&self) -> bool {
        self.mode & 0o6000 != 0
    }

    /// The loader's identity test (`_dl_file_id_match_p`): same device and
    /// inode; the path where the backend has no inodes.
    pub fn same_file(&self, other: &Object) -> bool {
        match (self.id, other.id) {
            (Some(a), Some(b)) => a == b,
            _ => self.path == other.path,
        }
    }
}

/// A parse result shared by hard links: (ELF contents, verdict, scanned).
type Parsed = (Option<Arc<ElfInfo>>, Candidate, bool);

/// Shared state of one audit (or one `stack ldd` run).
pub struct Session {
    pub vfs: Vfs,
    pub model: LoaderModel,
    pub env: Env,
    pub cache: LdCache,
    pub cache_source: CacheSource,
    /// Subdirectories tried in every search directory (hwcaps first).
    pub subdirs: Vec<String>,
    /// System directories with trailing slashes.
    pub trusted: Vec<String>,
    /// Scan read-only data of files under these prefixes for dlopen strings.
    pub scan_dlopen: Vec<PathBuf>,
    objects: Memo<std::ffi::OsString, Arc<Object>>,
    inodes: Memo<(u64, u64), Parsed>,
    /// Results of the requester-independent search steps (cache, default
    /// directories), without and with `DF_1_NODEFLIB`.
    pub(crate) system_searches: [Memo<String, SystemSearch>; 2],
    /// For each search directory: the subdirectories (index into
    /// `subdirs`) that exist, with their canonical paths.
    search_dirs: Memo<String, Arc<[(usize, PathBuf)]>>,
}

/// A remembered system search and the candidates it skipped.
pub(crate) type SystemSearch = (super::load::SearchResult, Vec<(String, &'static str)>);

impl Session {
    pub fn new(vfs: Vfs, model: LoaderModel, env: Env) -> Session {
        let (cache, cache_source) = load_cache(&vfs, &model);
        Session {
            subdirs: model.subdirs(),
            trusted: model.system_dirs_slashed(),
            vfs,
            model,
            env,
            cache,
            cache_source,
            scan_dlopen: Vec::new(),
            objects: Memo::default(),
            inodes: Memo::default(),
            system_searches: [Memo::default(), Memo::default()],
            search_dirs: Memo::default(),
        }
    }

    /// The file at a canonical virtual path, read and parsed once.
    pub fn object(&self, path: &Path) -> Arc<Object> {
        self.objects
            .get_or_insert_with(path.as_os_str(), || Arc::new(self.read(path)))
    }

    fn read(&self, path: &Path) -> Object {
        let scan = self.scan_dlopen.iter().any(|p| path.starts_with(p));
        match self.vfs.load(path) {
            Ok(mut loaded) => {
                // Hard links of a file parsed already (with the scan if
                // this one needs it) are not parsed again.
                let cached = loaded
                    .id
                    .and_then(|id| self.inodes.get(&id))
                    .filter(|p| p.2 || !scan);
                let (elf, verdict, _) = cached.unwrap_or_else(|| {
                    let elf = elf::parse_from(&mut loaded.data, scan).map(Arc::new);
                    let verdict = elf::verify(
                        loaded.data.head(),
                        loaded.len,
                        elf.as_deref(),
                        self.model.target(),
                    );
                    let parsed = (elf, verdict, scan);
                    if let Some(id) = loaded.id {
                        self.inodes.insert(id, parsed.clone());
                    }
                    parsed
                });
                Object {
                    path: path.to_path_buf(),
                    len: loaded.len,
                    mode: loaded.mode,
                    id: loaded.id,
                    elf,
                    verdict,
                    error: None,
                }
            }
            Err(e) => Object {
                path: path.to_path_buf(),
                len: 0,
                mode: 0,
                id: None,
                elf: None,
                error: Some(e.to_string()),
                verdict: if e.raw_os_error() == Some(21) {
                    Candidate::Fatal("cannot read file data: Is a directory".into())
                } else {
                    // EACCES and friends: the loader moves on.
                    Candidate::Skip("cannot open file")
                },
            },
        }
    }

    /// The existing subdirectories (hwcaps first, the directory itself last)
    /// of a search directory (`""` = the working directory).
    pub fn search_dir(&self, dir: &str) -> Arc<[(usize, PathBuf)]> {
        use super::fs::Lookup;
        self.search_dirs.get_or_insert_with(dir, || {
            let base = if dir.starts_with('/') {
                Some(PathBuf::from(dir))
            } else {
                self.env.cwd.as_ref().map(|c| c.join(dir))
            };
            let Some(base) = base else {
                return Arc::from(Vec::new());
            };
            self.subdirs
                .iter()
                .enumerate()
                .filter_map(|(i, sub)| {
                    let p = if sub.is_empty() {
                        base.clone()
                    } else {
                        base.join(sub)
                    };
                    match self.vfs.lookup_dir(&p) {
                        Lookup::Dir(c) => Some((i, c)),
                        _ => None,
                    }
                })
                .collect::<Vec<_>>()
                .into()
        })
    }

    /// Number of files read so far.
    pub fn files_read(&self) -> usize {
        self.objects.len()
    }

    /// A virtual path for a possibly relative path string.
    pub fn absolute(&self, p: &str) -> Option<PathBuf> {
        if p.starts_with('/') {
            Some(PathBuf::from(p))
        } else {
            self.env.cwd.as_ref().map(|c| c.join(p))
        }
    }
}

fn load_cache(vfs: &Vfs, model: &LoaderModel) -> (LdCache, CacheSource) {
    use super::fs::Lookup;
    let Some(cache_path) = &model.ld_so_cache else {
        return (LdCache::default(), CacheSource::None);
    };
    if let Lookup::File(real) = vfs.lookup(Path::new(cache_path)) {
        if let Ok(bytes) = vfs.read_all(&real) {
            match LdCache::parse(&bytes, model.data == 2) {
                Ok(c) => {
                    let n = c.len();
                    return (
                        c,
                        CacheSource::File {
                            path: cache_path.clone(),
                            entries: n,
                        },
                    );
                }
                Err(e) => tracing::warn!("{cache_path}: {e}; falling back to {}", model.ld_so_conf),
            }
        }
    }
    let conf = Path::new(&model.ld_so_conf);
    if !matches!(vfs.lookup(conf), Lookup::File(_)) {
        return (LdCache::default(), CacheSource::None);
    }
    let mut dirs = ldconf::conf_dirs(vfs, conf);
    for d in &model.default_dirs {
        if !dirs.contains(d) {
            dirs.push(d.clone());
        }
    }
    let pairs = ldconf::scan(vfs, &dirs);
    let flags = native_flags(model);
    let cache = LdCache::from_pairs(pairs, flags);
    let n = cache.len();
    (
        cache,
        CacheSource::Conf {
            path: model.ld_so_conf.clone(),
            entries: n,
        },
    )
}

/// Entry flags ldconfig would write for this target.
fn native_flags(model: &LoaderModel) -> i32 {
    (0..0x2000)
        .find(|&f| model.cache_flags_ok(f))
        .unwrap_or(0x0303)
}
