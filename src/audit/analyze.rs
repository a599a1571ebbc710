//! Auditing one ELF file of the stack: load it as a root (as the loader would
//! when it is executed, or loaded on its own), classify every resolution of
//! every stack object in that load, and check the file's own search paths,
//! interpreter and dlopen strings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::classify::{AllowList, Class, Stack};
use super::dlopen::{self, DlopenKind};
use super::dst::{self, DstContext};
use super::elf::ElfKind;
use super::fs::Lookup;
use super::load::{self, LoadList, Outcome, RootProblem, Via};
use super::report::{DlopenRef, FileKind, FileReport, FindingKind, Resolution, Severity};
use super::runpath::{PathFinding, PathPolicy};
use super::session::{Object, Session};

/// A run path or environment finding about the file `file` itself.
fn path_raw(f: PathFinding, file: &str) -> Raw {
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
    #[allow(
        clippy::too_many_lines,
        reason = "over 120 lines before the limit was enforced (issue 18); split it"
    )]
    pub fn file(&self, path: &Path) -> Option<FileOut> {
        let obj = self.s.object(path);
        let elf = obj.elf.as_ref()?;
        let spath = p2s(path);
        let report = FileReport {
            path: spath.clone(),
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
        };
        let mut out = FileOut {
            report,
            raw: Vec::new(),
            loaded: Vec::new(),
            objects: 0,
            is_root: false,
        };
        let group_raw =
            |kind, severity, target: Option<String>, message: String, hint: Option<&str>| Raw {
                kind,
                severity,
                file: spath.clone(),
                target,
                path: None,
                message,
                chain: Vec::new(),
                hint: hint.map(str::to_string),
                exe_context: false,
                root: spath.clone(),
            };
        let list = match load::load(self.s, path) {
            Ok(list) => list,
            Err(problem) => {
                let (kind, note) = match problem {
                    RootProblem::Static => (FileKind::Static, None),
                    RootProblem::NotDynamic => (FileKind::NotDynamic, None),
                    RootProblem::Foreign(why) => (
                        FileKind::Foreign,
                        Some(format!("{why} for this target; the loader skips it")),
                    ),
                    RootProblem::Broken(why) => {
                        out.raw.push(group_raw(
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
                return Some(out);
            }
        };
        out.is_root = true;
        out.objects = list.objects.len();
        let exe = elf.kind() == ElfKind::Executable;
        out.report.kind = if exe {
            FileKind::Executable
        } else {
            FileKind::Library
        };

        // The file's own resolutions (loaded on its own).
        for e in list.edges.iter().filter(|e| e.from == 0) {
            let (class, rpath) = self.classify(&list, &e.needed, &e.outcome);
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
            out.report.needed.push(Resolution {
                needed: e.needed.to_string(),
                path: rpath.map(str::to_string),
                via,
                via_object,
                class,
            });
        }

        // Every resolution of a stack object in this load.
        for e in &list.edges {
            let from = &list.objects[e.from];
            if !self.stack.contains(from.file()) {
                continue;
            }
            let (class, rpath) = self.classify(&list, &e.needed, &e.outcome);
            if matches!(class, Class::Stack | Class::Allowed | Class::AllowedMissing) {
                continue;
            }
            let from_path = p2s(from.file());
            let raw = |kind, severity, message: String, hint: &str| Raw {
                kind,
                severity,
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
                root: spath.clone(),
            };
            match class {
                Class::Stack | Class::Allowed | Class::AllowedMissing => {}
                Class::Leak => {
                    let via = match &e.outcome {
                        Outcome::Found { via, .. } => describe_via(&list, via),
                        _ => String::new(),
                    };
                    let base = e.needed.rsplit('/').next().unwrap_or(&e.needed);
                    out.raw.push(raw(
                        FindingKind::Leak,
                        Severity::Error,
                        format!(
                            "{from_path} needs {}: resolves outside the stack to {} ({via})",
                            e.needed,
                            rpath.unwrap_or("?")
                        ),
                        &format!(
                            "build {base} in the stack and point RUNPATH at it, or allow the host copy with --allow '{base}'"
                        ),
                    ));
                }
                Class::Unresolved => {
                    out.raw.push(raw(
                        FindingKind::Unresolved,
                        Severity::Error,
                        format!(
                            "{from_path} needs {}: not found ({})",
                            e.needed,
                            searched(from.object.elf.as_deref())
                        ),
                        "add the directory that holds it to the RUNPATH of the file (e.g. $ORIGIN/../lib), or build it in the stack",
                    ));
                }
                Class::LoaderError => {
                    let reason = match &e.outcome {
                        Outcome::Fatal { reason, .. } => reason.clone(),
                        _ => String::new(),
                    };
                    out.raw.push(raw(
                        FindingKind::LoaderError,
                        Severity::Error,
                        format!(
                            "{from_path} needs {}: the loader stops at {}: {reason}",
                            e.needed,
                            rpath.unwrap_or("?")
                        ),
                        "a file of that name that is not a loadable library shadows the real one; remove it or fix the search path",
                    ));
                }
            }
        }
        // The interpreter.
        if let Some((interp, false)) = &list.interp {
            out.raw.push(group_raw(
                FindingKind::InterpreterMissing,
                Severity::Error,
                Some(interp.clone()),
                format!("{spath}: program interpreter {interp} does not exist on the target"),
                Some("link with the target's loader path (e.g. -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2)"),
            ));
        }

        // The file's own search paths.
        let origin = path.parent().map(p2s);
        let trusted = &self.s.trusted;
        let dctx = DstContext {
            origin: origin.as_deref(),
            lib: &self.s.model.lib,
            platform: &self.s.model.platform,
            secure: false,
            is_main: true,
            trusted,
        };
        for (tag, value) in [("RPATH", &elf.rpath), ("RUNPATH", &elf.runpath)] {
            let Some(value) = value else { continue };
            if tag == "RPATH" && elf.runpath.is_some() {
                continue; // ignored by the loader
            }
            let elements = dst::elements(value, &[':'], &dctx);
            if elements.iter().any(|e| e.raw.is_empty()) {
                out.raw.push(group_raw(
                    FindingKind::EmptySearchPath,
                    Severity::Error,
                    Some(value.clone()),
                    format!("{spath}: {tag} \"{value}\" has an empty element, which the loader searches as the working directory"),
                    Some("remove the stray `:` (often from an empty variable in LDFLAGS)"),
                ));
            }
            for e in &elements {
                if let Some(d) = &e.dir {
                    if let Some(f) = self.paths.check_element(self.stack, &spath, tag, &e.raw, d) {
                        out.raw.push(path_raw(f, &spath));
                    }
                    if !d.is_empty() && !d.starts_with('/') {
                        out.raw.push(group_raw(
                            FindingKind::RelativeSearchPath,
                            Severity::Error,
                            Some(e.raw.clone()),
                            format!("{spath}: {tag} element \"{}\" is relative: the loader resolves it against the working directory", e.raw),
                            Some("use $ORIGIN/... for paths relative to the file"),
                        ));
                    }
                }
            }
            if obj.setid() && exe && dst::has_origin(value) {
                out.raw.push(group_raw(
                    FindingKind::SetidOrigin,
                    Severity::Error,
                    Some(value.clone()),
                    format!("{spath} is set-uid/set-gid and its {tag} \"{value}\" uses $ORIGIN, which the loader ignores for such programs unless it expands into a system directory"),
                    Some("use absolute paths in set-uid programs"),
                ));
            }
        }
        for n in &elf.needed {
            if n.contains('/') {
                let abs = n.starts_with('/') || n.starts_with('$');
                out.raw.push(group_raw(
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

        // dlopen strings.
        let bare: Vec<String> = elf
            .dlopen_strings
            .iter()
            .filter(|s| dlopen::kind_of(s) == DlopenKind::Bare)
            .cloned()
            .collect();
        let mut bare_found = if bare.is_empty() {
            Vec::new()
        } else {
            load::dlopen_lookup(self.s, &list, 0, &bare)
        }
        .into_iter();
        for s in &elf.dlopen_strings {
            let kind = dlopen::kind_of(s);
            let (path, class) = match kind {
                DlopenKind::Absolute => match self.s.vfs.lookup(Path::new(s)) {
                    Lookup::File(c) if self.stack.contains(&c) => (Some(s.clone()), Class::Stack),
                    _ if self.stack.contains(Path::new(s)) => (None, Class::Unresolved),
                    found => {
                        let exists = matches!(found, Lookup::File(_));
                        let real = match &found {
                            Lookup::File(c) => c.to_string_lossy(),
                            _ => "".into(),
                        };
                        if self.allow.allows_any([s.as_str(), &*real]) {
                            (exists.then(|| s.clone()), Class::Allowed)
                        } else {
                            out.raw.push(Raw {
                                path: exists.then(|| s.clone()),
                                ..group_raw(
                                    FindingKind::DlopenPath,
                                    Severity::Error,
                                    Some(s.clone()),
                                    format!(
                                        "{spath} calls dlopen and contains the path \"{s}\" outside the stack{}",
                                        if exists { "" } else { " (absent here, present on some hosts)" }
                                    ),
                                    Some("make it dlopen the stack's copy (a bare soname found through RUNPATH, or a path below the mount point)"),
                                )
                            });
                            (exists.then(|| s.clone()), Class::Leak)
                        }
                    }
                },
                DlopenKind::Relative if self.allow.allows(s) => (None, Class::AllowedMissing),
                DlopenKind::Relative => {
                    out.raw.push(group_raw(
                        FindingKind::DlopenName,
                        Severity::Warning,
                        Some(s.clone()),
                        format!("{spath} calls dlopen and contains the relative path \"{s}\", which resolves against the working directory"),
                        None,
                    ));
                    (None, Class::Unresolved)
                }
                DlopenKind::Bare => match bare_found.next().flatten() {
                    Some((opened, file)) => {
                        let opened = opened.to_string();
                        if self.stack.contains(&file.path) {
                            (Some(opened), Class::Stack)
                        } else if self.allow.allows_any([
                            s.as_str(),
                            &*opened,
                            &file.path.to_string_lossy(),
                            file.elf
                                .as_ref()
                                .and_then(|e| e.soname.as_deref())
                                .unwrap_or(""),
                        ]) {
                            (Some(opened), Class::Allowed)
                        } else {
                            out.raw.push(Raw {
                                path: Some(opened.clone()),
                                ..group_raw(
                                    FindingKind::DlopenName,
                                    Severity::Warning,
                                    Some(s.clone()),
                                    format!("{spath} calls dlopen and names \"{s}\": from this file that loads {opened}, outside the stack"),
                                    Some("provide the library in the stack and make it findable through this file's RUNPATH"),
                                )
                            });
                            (Some(opened), Class::Leak)
                        }
                    }
                    None if self.allow.allows(s) => (None, Class::AllowedMissing),
                    None => {
                        let env =
                            self.paths
                                .dlopen_through_view(&self.s.vfs, self.stack, &spath, s);
                        match env {
                            Some(f) => {
                                let at = f.path.clone();
                                out.raw.push(path_raw(f, &spath));
                                (at, Class::Stack)
                            }
                            None => (None, Class::Unresolved),
                        }
                    }
                },
            };
            out.report.dlopen.push(DlopenRef {
                string: s.clone(),
                kind,
                path,
                class,
            });
        }
        out.loaded = list
            .objects
            .iter()
            .filter(|o| self.stack.contains(o.file()))
            .map(|o| o.object.clone())
            .collect();
        Some(out)
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
