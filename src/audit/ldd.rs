//! `stack ldd`: the load list of one file, printed the way `ldd` prints it
//! (without load addresses and the vDSO), computed without running anything.

use std::fmt::Write as _;
use std::path::Path;

use super::load::{self, Entry, LoadList, Loaded, Outcome, RootProblem, Via};
use super::session::Session;

/// Why `path` cannot be listed at all, in words (instead of "No such file
/// or directory" for a directory or a FIFO, and "not a dynamic executable"
/// for a file that cannot be read). Never opens anything but a regular
/// file, so a FIFO cannot block.
fn not_a_readable_file(session: &Session, path: &Path) -> Option<String> {
    use super::fs::Lookup;
    match session.vfs.lookup(path) {
        Lookup::Dir(_) => Some("is a directory, not a file".into()),
        Lookup::Other(_) => {
            Some("not a regular file (a device, FIFO or socket): nothing to load".into())
        }
        Lookup::File(real) => match session.vfs.load(&real) {
            Ok(_) => None,
            Err(e) => Some(format!("cannot read it: {e}")),
        },
        Lookup::Missing | Lookup::Loop => None,
    }
}

/// Why one object is in the list, in words (`--why`).
pub fn explain(list: &LoadList, obj: &Loaded) -> String {
    let loader = obj
        .loader
        .map(|l| &*list.objects[l].path)
        .unwrap_or("the program");
    let dir = obj.dir.as_deref().unwrap_or("");
    match &obj.via {
        Via::Main if obj.rtld => "program interpreter (PT_INTERP)".into(),
        Via::Main => "the program".into(),
        Via::Path => format!("path in DT_NEEDED of {loader}"),
        Via::LoadedName | Via::LoadedSoname => "already loaded".into(),
        Via::Rpath(i) => format!("RPATH of {} ({dir})", list.objects[*i].path),
        Via::LdLibraryPath => format!("LD_LIBRARY_PATH ({dir})"),
        Via::Runpath => format!("RUNPATH of {loader} ({dir})"),
        Via::Cache => "ld.so.cache".into(),
        Via::DefaultDir => format!("default directory ({dir})"),
    }
}

/// Why a name was not found (`--why`).
pub fn explain_missing(outcome: Option<&Outcome>) -> String {
    match outcome {
        Some(Outcome::NotFound { skipped }) if !skipped.is_empty() => {
            let s: Vec<String> = skipped.iter().map(|(p, w)| format!("{p}: {w}")).collect();
            format!("skipped {}", s.join(", "))
        }
        _ => "not in any searched directory".into(),
    }
}

/// The `ldd`-style listing of a load list.
pub fn render(list: &LoadList, display: &str, why: bool) -> String {
    let mut out = String::new();
    if let Some((_, path, reason)) = &list.fatal {
        let _ = writeln!(
            out,
            "{display}: error while loading shared libraries: {path}: {reason}"
        );
        return out;
    }
    // ld.so's list mode says this for a dynamic object without DT_NEEDED.
    if list.objects[0]
        .object
        .elf
        .as_ref()
        .is_some_and(|e| e.needed.is_empty())
    {
        out.push_str("\tstatically linked\n");
        return out;
    }
    for e in &list.entries {
        match e {
            Entry::Object(i) => {
                let o = &list.objects[*i];
                if o.name == o.path {
                    let _ = write!(out, "\t{}", o.path);
                } else {
                    let _ = write!(out, "\t{} => {}", o.name, o.path);
                }
                if why {
                    let _ = write!(out, "  [{}]", explain(list, o));
                }
                out.push('\n');
            }
            Entry::NotFound { name, from } => {
                let _ = write!(out, "\t{name} => not found");
                if why {
                    let edge = list
                        .edges
                        .iter()
                        .find(|e| e.from == *from && &e.needed == name)
                        .map(|e| &e.outcome);
                    let _ = write!(
                        out,
                        "  [needed by {}; {}]",
                        list.objects[*from].path,
                        explain_missing(edge)
                    );
                }
                out.push('\n');
            }
        }
    }
    out
}

/// Result of `ldd` on one file.
pub struct LddResult {
    pub text: String,
    /// `ldd` would exit non-zero for this file.
    pub failed: bool,
    /// Libraries listed as `not found` (ldd still exits 0 for those).
    pub missing: usize,
}

/// `ldd FILE` for an absolute virtual path; `display` is the name the user
/// gave (used in error messages, as ldd does).
pub fn ldd(session: &Session, path: &Path, display: &str, why: bool) -> LddResult {
    if let Some(problem) = not_a_readable_file(session, path) {
        return LddResult {
            text: format!("{display}: {problem}\n"),
            failed: true,
            missing: 0,
        };
    }
    match load::load(session, path) {
        Ok(list) => LddResult {
            text: render(&list, display, why),
            failed: list.fatal.is_some(),
            missing: list
                .entries
                .iter()
                .filter(|e| matches!(e, Entry::NotFound { .. }))
                .count(),
        },

        Err(RootProblem::Missing) => LddResult {
            text: format!("{display}: No such file or directory\n"),
            failed: true,
            missing: 0,
        },
        Err(RootProblem::Broken(why)) => LddResult {
            text: format!("{display}: {why}\n"),
            failed: true,
            missing: 0,
        },
        // ldd says this (exit 1) for files without PT_DYNAMIC too.
        Err(
            RootProblem::Static
            | RootProblem::NotElf
            | RootProblem::NotDynamic
            | RootProblem::Foreign(_),
        ) => LddResult {
            text: "\tnot a dynamic executable\n".into(),
            failed: true,
            missing: 0,
        },
    }
}
