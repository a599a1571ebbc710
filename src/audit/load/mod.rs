//! Simulating `ld.so` loading one program: breadth-first over `DT_NEEDED`,
//! matching already-loaded objects by name and soname, searching new names
//! along the RPATH chain, `LD_LIBRARY_PATH`, RUNPATH, the cache and the
//! default directories (reference §1; glibc `_dl_map_object_deps`,
//! `_dl_map_object`, `open_path`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use super::dst::{self, DstContext};
use super::elf::{Candidate, DF_1_PIE, ElfKind};
use super::fs::Lookup;
use super::session::{Object, Session};

mod search;
pub(crate) use search::SearchResult;

/// How a name was satisfied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// The root itself.
    Main,
    /// The name contains a slash: opened as a path.
    Path,
    /// Matched an already-loaded object by a name it was loaded under.
    LoadedName,
    /// Matched an already-loaded object by its `DT_SONAME`.
    LoadedSoname,
    /// Found in the `DT_RPATH` of this object (index into the load list).
    Rpath(usize),
    LdLibraryPath,
    Runpath,
    Cache,
    DefaultDir,
}

impl Via {
    /// Short machine-readable name (JSON `via`).
    pub fn code(&self) -> &'static str {
        match self {
            Via::Main => "main",
            Via::Path => "path",
            Via::LoadedName => "already-loaded",
            Via::LoadedSoname => "already-loaded-soname",
            Via::Rpath(_) => "rpath",
            Via::LdLibraryPath => "ld-library-path",
            Via::Runpath => "runpath",
            Via::Cache => "ld.so.cache",
            Via::DefaultDir => "default-dir",
        }
    }
}

/// One object in the load list.
#[derive(Clone)]
pub struct Loaded {
    /// The first name it was requested under (`l_libname`).
    pub name: Arc<str>,
    /// The path it was opened as (`l_name`), as the loader prints it.
    pub path: Arc<str>,
    /// The object that first needed it.
    pub loader: Option<usize>,
    pub via: Via,
    /// Search directory and hwcaps subdirectory it was found in, if searched.
    pub dir: Option<String>,
    /// `$ORIGIN` of this object (computed only for objects whose strings
    /// use tokens).
    pub origin: Option<String>,
    /// Further names it was requested under (besides `name`).
    pub names: Vec<Arc<str>>,
    pub object: Arc<Object>,
    pub rtld: bool,
}

impl Loaded {
    /// Canonical virtual path of the file.
    pub fn file(&self) -> &Path {
        &self.object.path
    }

    pub fn soname(&self) -> Option<&str> {
        self.object.elf.as_ref().and_then(|e| e.soname.as_deref())
    }
}

/// What one `DT_NEEDED` entry resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Found {
        to: usize,
        via: Via,
        /// The search found a file that was already loaded under another
        /// name (same file): no new object.
        same_file: bool,
    },
    NotFound {
        /// Candidates skipped on the way (wrong class or machine).
        skipped: Vec<(String, &'static str)>,
    },
    /// The loader stops with an error (invalid candidate, empty token
    /// substitution, …).
    Fatal { path: String, reason: String },
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub from: usize,
    pub needed: Arc<str>,
    pub outcome: Outcome,
}

/// An entry of the printed load list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Object(usize),
    NotFound { name: Arc<str>, from: usize },
}

/// The result of loading one root.
#[derive(Clone)]
pub struct LoadList {
    /// The path the root was given as.
    pub root: String,
    /// Secure mode (the root is a set-uid/set-gid executable).
    pub secure: bool,
    /// Index 0 is the root; the interpreter follows if it exists.
    pub objects: Vec<Loaded>,
    /// Load order as `ldd` prints it (root excluded).
    pub entries: Vec<Entry>,
    pub edges: Vec<Edge>,
    /// The loader stopped here.
    pub fatal: Option<(usize, String, String)>,
    /// `PT_INTERP` of the root, and whether it exists.
    pub interp: Option<(String, bool)>,
}

impl LoadList {
    /// The chain of loaders from the root to `idx` (root first).
    pub fn chain(&self, idx: usize) -> Vec<usize> {
        let mut out = vec![idx];
        let mut cur = self.objects[idx].loader;
        while let Some(i) = cur {
            if out.contains(&i) {
                break;
            }
            out.push(i);
            cur = self.objects[i].loader;
        }
        out.reverse();
        out
    }
}

/// Why a file cannot be a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootProblem {
    Missing,
    NotElf,
    /// ELF, but not loadable by the target (class, machine, type).
    Foreign(String),
    /// No `PT_DYNAMIC`.
    Static,
    /// `ET_REL` and friends.
    NotDynamic,
    Broken(String),
}

struct Bfs<'s> {
    s: &'s Session,
    list: LoadList,
    rpaths: RefCell<Vec<Option<Option<Vec<String>>>>>,
    skipped: Vec<(String, &'static str)>,
}

/// Loads `root` (an absolute virtual path, as given) the way the loader
/// would when the program is executed.
pub fn load(s: &Session, root: &Path) -> Result<LoadList, RootProblem> {
    let canon = match s.vfs.lookup(root) {
        Lookup::File(c) => c,
        _ => return Err(RootProblem::Missing),
    };
    let object = s.object(&canon);
    let Some(elf) = object.elf.as_ref() else {
        return Err(RootProblem::NotElf);
    };
    match &object.verdict {
        Candidate::Accept => {}
        Candidate::Skip(why) => return Err(RootProblem::Foreign((*why).to_string())),
        Candidate::Fatal(why) => {
            return Err(match elf.kind() {
                ElfKind::Other => RootProblem::NotDynamic,
                _ => RootProblem::Broken(why.clone()),
            });
        }
    }
    match elf.kind() {
        ElfKind::Static => return Err(RootProblem::Static),
        ElfKind::Other => return Err(RootProblem::NotDynamic),
        _ => {}
    }
    let is_exe = elf.kind() == ElfKind::Executable;
    let secure = is_exe && object.setid();
    let given = root.to_string_lossy().into_owned();
    // Real execution takes the program's $ORIGIN from /proc/self/exe (links
    // resolved); a library root keeps the path it was given (as ldd does).
    let origin_from = if is_exe {
        canon.to_string_lossy().into_owned()
    } else {
        given.clone()
    };
    let interp_name = elf
        .interp
        .clone()
        .unwrap_or_else(|| s.model.interpreter.clone());
    let given_arc: Arc<str> = given.as_str().into();
    let mut list = LoadList {
        root: given.clone(),
        secure,
        objects: vec![Loaded {
            name: given_arc.clone(),
            path: given_arc,
            loader: None,
            via: Via::Main,
            dir: None,
            origin: origin_of(s, &origin_from),
            names: Vec::new(),
            object: object.clone(),
            rtld: false,
        }],
        entries: Vec::with_capacity(16),
        edges: Vec::with_capacity(32),
        fatal: None,
        interp: elf.interp.clone().map(|i| (i, false)),
    };
    // The interpreter is loaded before anything else.
    if let Lookup::File(ic) = s.vfs.lookup(Path::new(&interp_name)) {
        let io = s.object(&ic);
        let mut names: Vec<Arc<str>> = Vec::new();
        if let Some(so) = io.elf.as_ref().and_then(|e| e.soname.as_deref()) {
            if so != interp_name {
                names.push(so.into());
            }
        }
        if let Some(i) = list.interp.as_mut() {
            i.1 = true;
        }
        let interp_arc: Arc<str> = interp_name.as_str().into();
        list.objects.push(Loaded {
            name: interp_arc.clone(),
            path: interp_arc,
            loader: None,
            via: Via::Main,
            dir: None,
            origin: origin_of(s, &interp_name),
            names,
            object: io,
            rtld: true,
        });
    }
    let mut bfs = Bfs::new(s, list);
    bfs.run();
    Ok(bfs.list)
}

/// What `dlopen(name)` called from object `from` of a loaded program would
/// open, for each of `names`: an already-loaded object, or the result of
/// the usual search (each opened object stays loaded for the next name, as
/// in a process). Returns the path opened and the file.
pub fn dlopen_lookup(
    s: &Session,
    list: &LoadList,
    from: usize,
    names: &[String],
) -> Vec<Option<(Arc<str>, Arc<Object>)>> {
    let mut bfs = Bfs::new(s, list.clone());
    names
        .iter()
        .map(|name| match bfs.map_object(from, name) {
            Outcome::Found { to, .. } => {
                let o = &bfs.list.objects[to];
                Some((o.path.clone(), o.object.clone()))
            }
            _ => None,
        })
        .collect()
}

/// `$ORIGIN` for an object opened as `path`: its directory (made absolute
/// with the working directory), not resolving links.
fn origin_of(s: &Session, path: &str) -> Option<String> {
    let abs = s.absolute(path)?;
    let abs = abs.to_string_lossy();
    let cut = abs.rfind('/')?;
    Some(if cut == 0 {
        "/".into()
    } else {
        abs[..cut].to_string()
    })
}

impl<'s> Bfs<'s> {
    fn new(s: &'s Session, list: LoadList) -> Bfs<'s> {
        Bfs {
            s,
            list,
            rpaths: RefCell::new(Vec::new()),
            skipped: Vec::new(),
        }
    }

    fn run(&mut self) {
        let mut queue = VecDeque::from([0usize]);
        let mut seen = vec![true];
        // The interpreter is already in the chain; ld.so moves it to just
        // after its predecessor in the breadth-first search list (which
        // holds no "not found" entries).
        let mut last_found: Option<usize> = None;
        let mut rtld_after: Option<Option<usize>> = None;
        self.walk(&mut queue, &mut seen, &mut last_found, &mut rtld_after);
        if let Some(after) = rtld_after {
            let rtld = self.list.objects.iter().position(|o| o.rtld);
            if let Some(r) = rtld {
                self.list.entries.retain(|e| *e != Entry::Object(r));
                let at = match after {
                    None => 0,
                    Some(a) => self
                        .list
                        .entries
                        .iter()
                        .position(|e| *e == Entry::Object(a))
                        .map_or(self.list.entries.len(), |p| p + 1),
                };
                self.list.entries.insert(at, Entry::Object(r));
            }
        }
    }

    fn walk(
        &mut self,
        queue: &mut VecDeque<usize>,
        seen: &mut Vec<bool>,
        last_found: &mut Option<usize>,
        rtld_after: &mut Option<Option<usize>>,
    ) {
        while let Some(l) = queue.pop_front() {
            let object = self.list.objects[l].object.clone();
            let Some(elf) = object.elf.as_ref() else {
                continue;
            };
            for raw in &elf.needed {
                let raw = raw.clone();
                // DSTs in DT_NEEDED (expand_dst): an empty result is fatal.
                let name: Arc<str> = if dst::has_dst(&raw) {
                    match dst::expand(&raw, &self.dst_ctx(l)) {
                        Some(n) if !n.is_empty() => n.into(),
                        _ => {
                            let why = "empty dynamic string token substitution".to_string();
                            self.fatal(l, raw.to_string(), why);
                            return;
                        }
                    }
                } else {
                    raw
                };
                let outcome = self.map_object_shared(l, &name);
                match &outcome {
                    Outcome::Found { to, .. } => {
                        let to = *to;
                        if seen.len() <= to {
                            seen.resize(to + 1, false);
                        }
                        if !seen[to] {
                            seen[to] = true;
                            if self.list.objects[to].rtld {
                                *rtld_after = Some(*last_found);
                            }
                            *last_found = Some(to);
                            self.list.entries.push(Entry::Object(to));
                            queue.push_back(to);
                        }
                    }
                    Outcome::NotFound { .. } => self.list.entries.push(Entry::NotFound {
                        name: name.clone(),
                        from: l,
                    }),
                    Outcome::Fatal { path, reason } => {
                        let (p, r) = (path.clone(), reason.clone());
                        self.list.edges.push(Edge {
                            from: l,
                            needed: name,
                            outcome,
                        });
                        self.list.fatal = Some((l, p, r));
                        return;
                    }
                }
                self.list.edges.push(Edge {
                    from: l,
                    needed: name,
                    outcome,
                });
            }
        }
    }

    fn fatal(&mut self, from: usize, needed: String, reason: String) {
        self.list.edges.push(Edge {
            from,
            needed: needed.as_str().into(),
            outcome: Outcome::Fatal {
                path: needed.clone(),
                reason: reason.clone(),
            },
        });
        self.list.fatal = Some((from, needed, reason));
    }

    fn dst_ctx(&self, i: usize) -> DstContext<'_> {
        let o = &self.list.objects[i];
        DstContext {
            origin: o.origin.as_deref(),
            lib: &self.s.model.lib,
            platform: &self.s.model.platform,
            secure: self.list.secure,
            is_main: i == 0,
            trusted: &self.s.trusted,
        }
    }

    /// [`Self::map_object_shared`] for a name not held in an `Arc` yet.
    fn map_object(&mut self, from: usize, name: &str) -> Outcome {
        self.map_object_shared(from, &Arc::from(name))
    }

    /// `_dl_map_object`: an already-loaded match, or a search.
    fn map_object_shared(&mut self, from: usize, name_arc: &Arc<str>) -> Outcome {
        let name: &str = name_arc;
        for (i, o) in self.list.objects.iter_mut().enumerate() {
            if &*o.name == name || &*o.path == name || o.names.iter().any(|n| &**n == name) {
                return Outcome::Found {
                    to: i,
                    via: Via::LoadedName,
                    same_file: false,
                };
            }
            if o.object.elf.as_ref().and_then(|e| e.soname.as_deref()) == Some(name) {
                o.names.push(name_arc.clone());
                return Outcome::Found {
                    to: i,
                    via: Via::LoadedSoname,
                    same_file: false,
                };
            }
        }
        self.skipped.clear();
        match self.search(from, name) {
            SearchResult::Found {
                opened,
                file,
                via,
                dir,
            } => {
                // The same file under another name is the same object.
                if let Some(i) = self
                    .list
                    .objects
                    .iter()
                    .position(|o| o.object.same_file(&file))
                {
                    self.list.objects[i].names.push(name_arc.clone());
                    return Outcome::Found {
                        to: i,
                        via,
                        same_file: true,
                    };
                }
                // Executables cannot be loaded as dependencies (glibc names
                // the requested name, not the path, in this error).
                if let Some(e) = &file.elf {
                    if e.e_type == goblin::elf::header::ET_EXEC {
                        return Outcome::Fatal {
                            path: name.to_string(),
                            reason: "cannot dynamically load executable".into(),
                        };
                    }
                    if e.flags_1 & DF_1_PIE != 0 {
                        return Outcome::Fatal {
                            path: name.to_string(),
                            reason: "cannot dynamically load position-independent executable"
                                .into(),
                        };
                    }
                }
                // $ORIGIN is only ever needed for strings with a token.
                let origin = file
                    .elf
                    .as_ref()
                    .is_some_and(|e| e.uses_tokens())
                    .then(|| origin_of(self.s, &opened))
                    .flatten();
                self.list.objects.push(Loaded {
                    name: name_arc.clone(),
                    path: opened,
                    loader: Some(from),
                    via: via.clone(),
                    dir,
                    origin,
                    names: Vec::new(),
                    object: file,
                    rtld: false,
                });
                Outcome::Found {
                    to: self.list.objects.len() - 1,
                    via,
                    same_file: false,
                }
            }
            SearchResult::NotFound => Outcome::NotFound {
                skipped: std::mem::take(&mut self.skipped),
            },
            SearchResult::Fatal(path, reason) => Outcome::Fatal { path, reason },
        }
    }
}
