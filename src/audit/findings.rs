//! Merging what each root's load found into one list of findings.
//!
//! The same problem shows up in many loads (a library's missing dependency
//! appears in every program that loads it), so findings are keyed by
//! (kind, file, target, path) and count their contexts. A name that is not
//! found when a library is loaded on its own, but is found in some other load
//! (because another object loaded it first), is a warning, not an error,
//! unless a real program of the stack fails on it.

use std::collections::{BTreeMap, HashSet};
use std::hash::BuildHasherDefault;
use std::path::Path;

use super::analyze::{FileOut, Raw};
use super::classify::{Class, Stack};
use super::load::Outcome;
use super::memo::FxHasher;
use super::report::{FileKind, FileReport, Finding, FindingKind, Severity, Summary};

type Key = (FindingKind, String, Option<String>, Option<String>);
type Fx = BuildHasherDefault<FxHasher>;

/// Files, findings and counts from the per-root results.
pub fn merge(outs: Vec<FileOut>, stack: &Stack) -> (Vec<FileReport>, Vec<Finding>, Summary) {
    let mut summary = Summary::default();
    let mut raws: Vec<Raw> = Vec::new();
    let mut files = Vec::with_capacity(outs.len());
    let mut lists = Vec::new();
    for o in outs {
        summary.elf_files += 1;
        if o.is_root {
            summary.roots += 1;
        }
        summary.loaded_objects += o.objects;
        raws.extend(o.raw);
        if let Some(l) = o.list {
            lists.push((o.report.kind == FileKind::Executable, l));
        }
        files.push(o.report);
    }
    // Stack files some executable of the stack loads.
    let mut loaded_by_exe: HashSet<&Path, Fx> = HashSet::default();
    for (exe, l) in &lists {
        if *exe {
            loaded_by_exe.extend(
                l.objects
                    .iter()
                    .map(|o| o.file())
                    .filter(|f| stack.contains(f)),
            );
        }
    }
    for f in &mut files {
        for r in &f.needed {
            summary.resolutions += 1;
            match r.class {
                Class::Stack => summary.in_stack += 1,
                Class::Allowed | Class::AllowedMissing => summary.allowed += 1,
                Class::Leak => summary.leaks += 1,
                Class::Unresolved | Class::LoaderError => summary.unresolved += 1,
            }
        }
        if f.kind == FileKind::Library
            && f.note.is_none()
            && !loaded_by_exe.contains(Path::new(&f.path))
        {
            f.note = Some("loaded by no executable of the stack; audited on its own".into());
        }
    }
    // Where (file, needed) resolved in some load: looked up only for the
    // few names that fail somewhere.
    let resolved_somewhere = |file: &str, needed: &str| -> Option<(String, String)> {
        for (_, l) in &lists {
            for e in &l.edges {
                if e.needed != needed || l.objects[e.from].file() != Path::new(file) {
                    continue;
                }
                if let Outcome::Found { to, .. } = e.outcome {
                    return Some((l.objects[to].path.clone(), l.root.clone()));
                }
            }
        }
        None
    };

    // Unresolved names: decide per (file, needed) over all loads.
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
    for ((file, needed), rs) in unresolved {
        let in_program = rs.iter().any(|r| r.exe_context);
        match (!in_program)
            .then(|| resolved_somewhere(&file, &needed))
            .flatten()
        {
            Some((path, by)) => {
                let r0 = &rs[0];
                let r = Raw {
                    kind: FindingKind::ResolvesOnlyWhenPreloaded,
                    severity: Severity::Warning,
                    path: Some(path.clone()),
                    message: format!(
                        "{file} needs {needed}: not found when {file} is loaded on its own; it resolves to {path} only because {by} loads it first"
                    ),
                    hint: Some(format!(
                        "give {file} a RUNPATH that contains {} so it resolves on its own",
                        Path::new(&path)
                            .parent()
                            .map(|p| p.display().to_string())
                            .unwrap_or_default()
                    )),
                    ..r0.clone()
                };
                for _ in &rs {
                    add(&mut merged, r.clone());
                }
            }
            _ => {
                // Prefer a real program's chain in the report.
                let mut rs = rs;
                rs.sort_by_key(|r| (!r.exe_context, r.chain.len()));
                for r in rs {
                    add(&mut merged, r);
                }
            }
        }
    }
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
    findings.sort_by(|a, b| {
        (a.severity, &a.group, &a.file, a.kind, &a.target)
            .cmp(&(b.severity, &b.group, &b.file, b.kind, &b.target))
    });
    // Freeing thousands of load lists takes a while; nobody waits for it.
    let _ = std::thread::Builder::new().spawn(move || drop(lists));
    summary.errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    summary.warnings = findings.len() - summary.errors;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, findings, summary)
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
