//! Merging what each root's load found into one list of findings.
//!
//! The same problem shows up in many loads (a library's missing dependency
//! appears in every program that loads it), so findings are keyed by
//! (kind, file, target, path) and count their contexts. A name that is not
//! found when a library is loaded on its own, but is found in some other load
//! (because another object loaded it first), is a warning, not an error,
//! unless a real program of the stack fails on it.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::hash::BuildHasherDefault;
use std::path::Path;
use std::sync::Arc;

use super::analyze::{FileOut, Raw};
use super::classify::{Class, Stack};
use super::memo::FxHasher;
use super::report::{FileKind, FileReport, Finding, FindingKind, Severity, Summary};
use super::session::Object;

type Key = (FindingKind, String, Option<String>, Option<String>);
type Fx = BuildHasherDefault<FxHasher>;

/// A root's path, whether it is an executable, and the objects its load mapped.
type Root = (String, bool, Vec<Arc<Object>>);
/// Which roots (indices into the roots) loaded each stack object.
type LoadedBy<'a> = HashMap<&'a OsStr, Vec<usize>, Fx>;
/// Where `needed` of `file` resolved in another root's load: the path and that root.
type ResolvedSomewhere<'a> = dyn Fn(&str, &str) -> Option<(String, String)> + 'a;

/// Files, findings and counts from the per-root results. `resolved_in(root,
/// file, needed)` loads `root` again and tells where `needed` of `file`
/// resolved there (asked only for the few names that fail somewhere).
pub fn merge(
    outs: Vec<FileOut>,
    stack: &Stack,
    resolved_in: &(dyn Fn(&Path, &Path, &str) -> Option<String> + Sync),
) -> (Vec<FileReport>, Vec<Finding>, Summary) {
    let mut summary = Summary::default();
    let (mut files, raws, roots) = collect(outs, &mut summary);
    let mut loaded_by: LoadedBy = HashMap::default();
    for (i, (_, _, loaded)) in roots.iter().enumerate() {
        for obj in loaded {
            loaded_by.entry(obj.path.as_os_str()).or_default().push(i);
        }
    }
    count_resolutions(&mut files, &loaded_by, &roots, &mut summary);
    // Where (file, needed) resolved in some other load: asked only for the
    // few names that fail somewhere, and only of the roots that load `file`.
    let resolved_somewhere = |file: &str, needed: &str| -> Option<(String, String)> {
        let rs = loaded_by.get(OsStr::new(file))?;
        rs.iter().find_map(|&r| {
            let root = &roots[r].0;
            if root == file {
                return None;
            }
            resolved_in(Path::new(root), Path::new(file), needed).map(|p| (p, root.clone()))
        })
    };
    let merged = merge_raws(raws, &resolved_somewhere);
    let mut findings: Vec<Finding> = merged
        .into_values()
        .map(|(r, n)| Finding {
            severity: r.severity,
            kind: r.kind,
            group: stack.group(Path::new(&r.file)),
            file: r.file,
            target: r.target,
            path: r.path,
            message: r.message,
            chain: r.chain,
            contexts: n,
            hint: r.hint,
        })
        .collect();
    sort(&mut findings);
    summary.errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    summary.warnings = findings.len() - summary.errors;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, findings, summary)
}

/// The per-file reports, the raw findings and the roots of the per-root
/// results, counting files, roots and loaded objects into `summary`.
fn collect(outs: Vec<FileOut>, summary: &mut Summary) -> (Vec<FileReport>, Vec<Raw>, Vec<Root>) {
    let mut raws: Vec<Raw> = Vec::new();
    let mut files = Vec::with_capacity(outs.len());
    let mut roots: Vec<Root> = Vec::new();
    for o in outs {
        summary.elf_files += 1;
        if o.is_root {
            summary.roots += 1;
        }
        summary.loaded_objects += o.objects;
        raws.extend(o.raw);
        if o.is_root {
            roots.push((
                o.report.path.clone(),
                o.report.kind == FileKind::Executable,
                o.loaded,
            ));
        }
        files.push(o.report);
    }
    (files, raws, roots)
}

/// Counts every resolution by class into `summary`, and notes libraries that
/// no executable of the stack loads.
fn count_resolutions(
    files: &mut [FileReport],
    loaded_by: &LoadedBy,
    roots: &[Root],
    summary: &mut Summary,
) {
    for f in files {
        for r in &f.needed {
            summary.resolutions += 1;
            match r.class {
                Class::Stack => summary.in_stack += 1,
                Class::Allowed | Class::AllowedMissing => summary.allowed += 1,
                Class::Leak => summary.leaks += 1,
                Class::Unresolved | Class::LoaderError => summary.unresolved += 1,
            }
        }
        let by_exe = loaded_by
            .get(OsStr::new(&f.path))
            .is_some_and(|rs| rs.iter().any(|&r| roots[r].1));
        if f.kind == FileKind::Library && f.note.is_none() && !by_exe {
            f.note = Some("loaded by no executable of the stack; audited on its own".into());
        }
    }
}

/// Raw findings merged by key. Unresolved names are decided per (file,
/// needed) over all loads: one that `resolved_somewhere` finds in another
/// load, and that no real program fails on, becomes a warning.
fn merge_raws(
    raws: Vec<Raw>,
    resolved_somewhere: &ResolvedSomewhere,
) -> BTreeMap<Key, (Raw, usize)> {
    let mut unresolved: BTreeMap<(String, String), Vec<Raw>> = BTreeMap::new();
    let mut merged: BTreeMap<Key, (Raw, usize)> = BTreeMap::new();
    for r in raws {
        if r.kind == FindingKind::Unresolved {
            let key = (r.file.clone(), r.target.clone().unwrap_or_default());
            unresolved.entry(key).or_default().push(r);
        } else {
            add(&mut merged, r);
        }
    }
    for ((file, needed), mut rs) in unresolved {
        let in_program = rs.iter().any(|r| r.exe_context);
        match (!in_program)
            .then(|| resolved_somewhere(&file, &needed))
            .flatten()
        {
            Some((path, by)) => {
                let r = preloaded(&rs[0], &file, &needed, path, &by);
                for _ in &rs {
                    add(&mut merged, r.clone());
                }
            }
            None => {
                // Prefer a real program's chain in the report.
                rs.sort_by_key(|r| (!r.exe_context, r.chain.len()));
                for r in rs {
                    add(&mut merged, r);
                }
            }
        }
    }
    merged
}

/// The warning for `needed` of `file` that resolves to `path` only because
/// `by` loads it first.
fn preloaded(r0: &Raw, file: &str, needed: &str, path: String, by: &str) -> Raw {
    let dir = Path::new(&path)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    Raw {
        kind: FindingKind::ResolvesOnlyWhenPreloaded,
        severity: Severity::Warning,
        message: format!(
            "{file} needs {needed}: not found when {file} is loaded on its own; it resolves to {path} only because {by} loads it first"
        ),
        hint: Some(format!(
            "give {file} a RUNPATH that contains {dir} so it resolves on its own"
        )),
        path: Some(path),
        ..r0.clone()
    }
}

/// The report's order: errors first, then by group, file, kind and target.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (a.severity, &a.group, &a.file, a.kind, &a.target)
            .cmp(&(b.severity, &b.group, &b.file, b.kind, &b.target))
    });
}

fn add(merged: &mut BTreeMap<Key, (Raw, usize)>, r: Raw) {
    let key = (r.kind, r.file.clone(), r.target.clone(), r.path.clone());
    match merged.get_mut(&key) {
        Some((first, n)) => {
            *n += 1;
            // Keep the shortest chain from a real program.
            if (r.exe_context && !first.exe_context)
                || (r.exe_context == first.exe_context && r.chain.len() < first.chain.len())
            {
                *first = r;
            }
        }
        None => {
            merged.insert(key, (r, 1));
        }
    }
}
