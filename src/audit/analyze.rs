//! Auditing one ELF file of the stack: load it as a root (as the loader would
//! when it is executed, or loaded on its own), classify every resolution of
//! every stack object in that load, and check the file's own search paths,
//! interpreter and dlopen strings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::classify::{AllowList, Class, Stack};
use super::dst::{self, DstContext};
use super::elf::ElfKind;
use super::load::{self, LoadList, Outcome, RootProblem, Via};
use super::report::{FileKind, FileReport, FindingKind, Resolution, Severity};
use super::runpath::{PathFinding, PathPolicy};
use super::session::{Object, Session};

/// A run path or environment finding about the file `file` itself.
pub(super) fn path_raw(f: PathFinding, file: &str) -> Raw {
    Raw {
        kind: f.kind,
        severity: f.severity,
        file: file.to_string(),
        target: Some(f.target),
        path: f.path,
        message: f.message,
        chain: Vec::new(),
        hint: Some(f.hint),
        exe_context: false,
        root: file.to_string(),
    }
}

/// What the audit needs to know while analysing.
pub struct Ctx<'a> {
    pub s: &'a Session,
    pub allow: &'a AllowList,
    pub stack: &'a Stack,
    /// Run path and view policy (externals' library dirs, views).
    pub paths: &'a PathPolicy,
}

/// A finding before merging across roots.
#[derive(Clone, Debug)]
pub struct Raw {
    pub kind: FindingKind,
    pub severity: Severity,
    pub file: String,
    pub target: Option<String>,
    pub path: Option<String>,
    pub message: String,
    pub chain: Vec<String>,
    pub hint: Option<String>,
    /// The root of this load is an executable (a real process).
    pub exe_context: bool,
    /// The root this load started from.
    pub root: String,
}

/// Everything learnt from one root.
pub struct FileOut {
    pub report: FileReport,
    pub raw: Vec<Raw>,
    /// The stack objects this load contains (a pointer each: loads are not
    /// kept, a big stack has tens of thousands).
    pub loaded: Vec<Arc<Object>>,
    pub objects: usize,
    pub is_root: bool,
}

fn p2s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

impl Ctx<'_> {
    /// Classifies what `needed` resolved to in `list`, with the path
    /// opened (borrowed from the list).
    pub fn classify<'l>(
        &self,
        list: &'l LoadList,
        needed: &str,
        outcome: &'l Outcome,
    ) -> (Class, Option<&'l str>) {
        match outcome {
            Outcome::Found { to, .. } => {
                let o = &list.objects[*to];
                let path = Some(&*o.path);
                if self.stack.contains(o.file()) {
                    (Class::Stack, path)
                } else if self.allow.allows(needed)
                    || self.allow.allows(&o.path)
                    || o.soname().is_some_and(|s| self.allow.allows(s))
                    || self.allow.allows(&o.file().to_string_lossy())
                {
                    (Class::Allowed, path)
                } else {
                    (Class::Leak, path)
                }
            }
            Outcome::NotFound { .. } => {
                if self.allow.allows(needed) {
                    (Class::AllowedMissing, None)
                } else {
                    (Class::Unresolved, None)
                }
            }
            Outcome::Fatal { path, .. } => (Class::LoaderError, Some(path.as_str())),
        }
    }

    /// Audits the stack file at the canonical virtual path `path`; `None`
    /// when it is not an ELF file.
    pub fn file(&self, path: &Path) -> Option<FileOut> {
        let obj = self.s.object(path);
        let elf = obj.elf.as_ref()?;
        let spath = p2s(path);
        let mut out = FileOut {
            report: self.report(&obj, elf, &spath, path),
            raw: Vec::new(),
            loaded: Vec::new(),
            objects: 0,
            is_root: false,
        };
        let list = match load::load(self.s, path) {
            Ok(list) => list,
            Err(problem) => return not_loaded(out, problem, &spath),
        };
        out.is_root = true;
        out.objects = list.objects.len();
        let exe = elf.kind() == ElfKind::Executable;
        out.report.kind = if exe {
            FileKind::Executable
        } else {
            FileKind::Library
        };
        self.own_resolutions(&list, &mut out.report);
        self.load_findings(&list, exe, &spath, &mut out.raw);
        // The interpreter.
        if let Some((interp, false)) = &list.interp {
            out.raw.push(group_raw(
                &spath,
                FindingKind::InterpreterMissing,
                Severity::Error,
                Some(interp.clone()),
                format!("{spath}: program interpreter {interp} does not exist on the target"),
                Some("link with the target's loader path (e.g. -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2)"),
            ));
        }
        self.search_path_findings(path, obj.setid() && exe, elf, &spath, &mut out.raw);
        needed_with_slash(elf, &spath, &mut out.raw);
        self.dlopen_refs(&list, elf, &spath, &mut out);
        out.loaded = list
            .objects
            .iter()
            .filter(|o| self.stack.contains(o.file()))
            .map(|o| o.object.clone())
            .collect();
        Some(out)
    }

    /// The file's report before its load: what its dynamic section says.
    fn report(
        &self,
        obj: &Object,
        elf: &super::elf::ElfInfo,
        spath: &str,
        path: &Path,
    ) -> FileReport {
        FileReport {
            path: spath.to_string(),
            group: self.stack.group(path),
            kind: FileKind::Library,
            soname: elf.soname.clone(),
            interp: elf.interp.clone(),
            rpath: elf.rpath.clone(),
            runpath: elf.runpath.clone(),
            setid: obj.setid(),
            nodeflib: elf.nodeflib(),
            needed: Vec::new(),
            dlopen: Vec::new(),
            note: None,
        }
    }

    /// The file's own resolutions (loaded on its own) into its report.
    fn own_resolutions(&self, list: &LoadList, report: &mut FileReport) {
        for e in list.edges.iter().filter(|e| e.from == 0) {
            let (class, rpath) = self.classify(list, &e.needed, &e.outcome);
            let (via, via_object) = match &e.outcome {
                Outcome::Found { via, .. } => (
                    Some(via.code().to_string()),
                    match via {
                        Via::Rpath(i) => Some(list.objects[*i].path.to_string()),
                        _ => None,
                    },
                ),
                _ => (None, None),
            };
            report.needed.push(Resolution {
                needed: e.needed.to_string(),
                path: rpath.map(str::to_string),
                via,
                via_object,
                class,
            });
        }
    }

    /// Findings about every resolution of a stack object in the load of the
    /// root `spath` (an executable when `exe`).
    fn load_findings(&self, list: &LoadList, exe: bool, spath: &str, raws: &mut Vec<Raw>) {
        for e in &list.edges {
            let from = &list.objects[e.from];
            if !self.stack.contains(from.file()) {
                continue;
            }
            let (class, rpath) = self.classify(list, &e.needed, &e.outcome);
            if matches!(class, Class::Stack | Class::Allowed | Class::AllowedMissing) {
                continue;
            }
            let from_path = p2s(from.file());
            let raw = |kind, message: String, hint: &str| Raw {
                kind,
                severity: Severity::Error,
                file: from_path.clone(),
                target: Some(e.needed.to_string()),
                path: rpath.map(str::to_string),
                message,
                chain: list
                    .chain(e.from)
                    .iter()
                    .map(|&i| list.objects[i].path.to_string())
                    .collect(),
                hint: Some(hint.to_string()),
                exe_context: exe,
                root: spath.to_string(),
            };
            let needed = &e.needed;
            let at = rpath.unwrap_or("?");
            match class {
                Class::Stack | Class::Allowed | Class::AllowedMissing => {}
                Class::Leak => {
                    let via = match &e.outcome {
                        Outcome::Found { via, .. } => describe_via(list, via),
                        _ => String::new(),
                    };
                    let base = needed.rsplit('/').next().unwrap_or(needed);
                    raws.push(raw(
                        FindingKind::Leak,
                        format!("{from_path} needs {needed}: resolves outside the stack to {at} ({via})"),
                        &format!(
                            "build {base} in the stack and point RUNPATH at it, or allow the host copy with --allow '{base}'"
                        ),
                    ));
                }
                Class::Unresolved => raws.push(raw(
                    FindingKind::Unresolved,
                    format!(
                        "{from_path} needs {needed}: not found ({})",
                        searched(from.object.elf.as_deref())
                    ),
                    "add the directory that holds it to the RUNPATH of the file (e.g. $ORIGIN/../lib), or build it in the stack",
                )),
                Class::LoaderError => {
                    let reason = match &e.outcome {
                        Outcome::Fatal { reason, .. } => reason.clone(),
                        _ => String::new(),
                    };
                    raws.push(raw(
                        FindingKind::LoaderError,
                        format!("{from_path} needs {needed}: the loader stops at {at}: {reason}"),
                        "a file of that name that is not a loadable library shadows the real one; remove it or fix the search path",
                    ));
                }
            }
        }
    }

    /// Findings about the file's own search paths (RPATH, or RUNPATH which
    /// makes the loader ignore RPATH); `setid_exe` for a set-uid/set-gid
    /// program.
    fn search_path_findings(
        &self,
        path: &Path,
        setid_exe: bool,
        elf: &super::elf::ElfInfo,
        spath: &str,
        raws: &mut Vec<Raw>,
    ) {
        let origin = path.parent().map(p2s);
        let dctx = DstContext {
            origin: origin.as_deref(),
            lib: &self.s.model.lib,
            platform: &self.s.model.platform,
            secure: false,
            is_main: true,
            trusted: &self.s.trusted,
        };
        for (tag, value) in [("RPATH", &elf.rpath), ("RUNPATH", &elf.runpath)] {
            let Some(value) = value else { continue };
            if tag == "RPATH" && elf.runpath.is_some() {
                continue; // ignored by the loader
            }
            let elements = dst::elements(value, &[':'], &dctx);
            if elements.iter().any(|e| e.raw.is_empty()) {
                raws.push(group_raw(
                    spath,
                    FindingKind::EmptySearchPath,
                    Severity::Error,
                    Some(value.clone()),
                    format!("{spath}: {tag} \"{value}\" has an empty element, which the loader searches as the working directory"),
                    Some("remove the stray `:` (often from an empty variable in LDFLAGS)"),
                ));
            }
            for e in &elements {
                let Some(d) = &e.dir else { continue };
                if let Some(f) = self.paths.check_element(self.stack, spath, tag, &e.raw, d) {
                    raws.push(path_raw(f, spath));
                }
                if !d.is_empty() && !d.starts_with('/') {
                    raws.push(group_raw(
                        spath,
                        FindingKind::RelativeSearchPath,
                        Severity::Error,
                        Some(e.raw.clone()),
                        format!("{spath}: {tag} element \"{}\" is relative: the loader resolves it against the working directory", e.raw),
                        Some("use $ORIGIN/... for paths relative to the file"),
                    ));
                }
            }
            if setid_exe && dst::has_origin(value) {
                raws.push(group_raw(
                    spath,
                    FindingKind::SetidOrigin,
                    Severity::Error,
                    Some(value.clone()),
                    format!("{spath} is set-uid/set-gid and its {tag} \"{value}\" uses $ORIGIN, which the loader ignores for such programs unless it expands into a system directory"),
                    Some("use absolute paths in set-uid programs"),
                ));
            }
        }
    }
}

impl Ctx<'_> {
    /// Loads `root` again and returns where `needed` of the stack file
    /// `file` resolved in that load, if it did.
    pub fn resolved_in(&self, root: &Path, file: &Path, needed: &str) -> Option<String> {
        let list = load::load(self.s, root).ok()?;
        list.edges.iter().find_map(|e| match e.outcome {
            Outcome::Found { to, .. }
                if &*e.needed == needed && list.objects[e.from].file() == file =>
            {
                Some(list.objects[to].path.to_string())
            }
            _ => None,
        })
    }
}

/// A short description of where a not-found name was searched.
fn searched(elf: Option<&super::elf::ElfInfo>) -> String {
    let mut parts = Vec::new();
    if let Some(e) = elf {
        if let Some(r) = &e.runpath {
            parts.push(format!("RUNPATH {r}"));
        } else if let Some(r) = &e.rpath {
            parts.push(format!("RPATH {r}"));
        } else {
            parts.push("no RPATH/RUNPATH".to_string());
        }
        if e.nodeflib() {
            parts.push("NODEFLIB".into());
        }
    }
    parts.push("ld.so.cache and default directories".into());
    parts.join(", ")
}

/// `via` in words, for messages.
pub fn describe_via(list: &LoadList, via: &Via) -> String {
    match via {
        Via::Rpath(i) => format!("RPATH of {}", list.objects[*i].path),
        Via::Runpath => "RUNPATH".into(),
        Via::Cache => "ld.so.cache".into(),
        Via::DefaultDir => "default directory".into(),
        Via::LdLibraryPath => "LD_LIBRARY_PATH".into(),
        Via::LoadedName | Via::LoadedSoname => "already loaded".into(),
        Via::Path => "path in DT_NEEDED".into(),
        Via::Main => "the program".into(),
    }
}

/// Files below `dirs` (the stack's mount points), sorted per directory.
pub fn stack_files(vfs: &super::fs::Vfs, dirs: &[PathBuf]) -> super::unreadable::Walked {
    let mut w = super::unreadable::Walked::default();
    for m in dirs {
        // A file named directly (say, one a hook put at the top of a store)
        // is a file to examine, not a directory to list.
        if let (Some(parent), Some(name)) = (m.parent(), m.file_name())
            && matches!(vfs.entry(parent, name), Some(super::fs::NodeKind::File))
        {
            w.files.push(m.clone());
            continue;
        }
        let (files, unlisted) = vfs.walk_below(m);
        w.files.extend(files);
        w.unlisted.extend(unlisted);
    }
    w
}

/// A finding about the root file `spath` itself.
pub(super) fn group_raw(
    spath: &str,
    kind: FindingKind,
    severity: Severity,
    target: Option<String>,
    message: String,
    hint: Option<&str>,
) -> Raw {
    Raw {
        kind,
        severity,
        file: spath.to_string(),
        target,
        path: None,
        message,
        chain: Vec::new(),
        hint: hint.map(str::to_string),
        exe_context: false,
        root: spath.to_string(),
    }
}

/// The outcome for a file the loader does not load as a root (`None` for
/// one that is missing or not ELF).
fn not_loaded(mut out: FileOut, problem: RootProblem, spath: &str) -> Option<FileOut> {
    let (kind, note) = match problem {
        RootProblem::Static => (FileKind::Static, None),
        RootProblem::NotDynamic => (FileKind::NotDynamic, None),
        RootProblem::Foreign(why) => (
            FileKind::Foreign,
            Some(format!("{why} for this target; the loader skips it")),
        ),
        RootProblem::Broken(why) => {
            out.raw.push(group_raw(
                spath,
                FindingKind::BrokenElf,
                Severity::Warning,
                None,
                format!("{spath}: {why}; the loader would reject it"),
                Some("rebuild or remove the file"),
            ));
            (FileKind::Broken, Some(why))
        }
        RootProblem::Missing | RootProblem::NotElf => return None,
    };
    out.report.kind = kind;
    out.report.note = note;
    Some(out)
}

/// Findings about DT_NEEDED entries that hold a path instead of a soname.
fn needed_with_slash(elf: &super::elf::ElfInfo, spath: &str, raws: &mut Vec<Raw>) {
    for n in elf.needed.iter().filter(|n| n.contains('/')) {
        let abs = n.starts_with('/') || n.starts_with('$');
        raws.push(group_raw(
            spath,
            FindingKind::NeededWithSlash,
            if abs { Severity::Warning } else { Severity::Error },
            Some(n.to_string()),
            if abs {
                format!("{spath} needs \"{n}\" by path: no search happens, the file must exist exactly there")
            } else {
                format!("{spath} needs \"{n}\", a relative path the loader opens against the working directory")
            },
            Some("link against the library by soname (-L<dir> -l<name>) so DT_NEEDED holds only its soname"),
        ));
    }
}
