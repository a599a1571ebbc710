//! A file's dlopen strings, resolved as the loader would open them from
//! that file, and the findings about those that leave the stack.

use std::path::Path;

use super::analyze::{Ctx, FileOut, Raw, group_raw, path_raw};
use super::classify::Class;
use super::dlopen::{self, DlopenKind};
use super::elf::ElfInfo;
use super::fs::Lookup;
use super::load::{self, LoadList};
use super::report::{DlopenRef, FindingKind, Severity};

impl Ctx<'_> {
    /// Resolves every dlopen string of the root `spath` (loaded as `list`)
    /// into its report, and its findings into `out.raw`.
    pub(super) fn dlopen_refs(
        &self,
        list: &LoadList,
        elf: &ElfInfo,
        spath: &str,
        out: &mut FileOut,
    ) {
        let bare: Vec<String> = elf
            .dlopen_strings
            .iter()
            .filter(|s| dlopen::kind_of(s) == DlopenKind::Bare)
            .cloned()
            .collect();
        let mut bare_found = if bare.is_empty() {
            Vec::new()
        } else {
            load::dlopen_lookup(self.s, list, 0, &bare)
        }
        .into_iter();
        for s in &elf.dlopen_strings {
            let kind = dlopen::kind_of(s);
            let (path, class) = match kind {
                DlopenKind::Absolute => self.dlopen_absolute(s, spath, &mut out.raw),
                DlopenKind::Relative if self.allow.allows(s) => (None, Class::AllowedMissing),
                DlopenKind::Relative => {
                    out.raw.push(group_raw(
                        spath,
                        FindingKind::DlopenName,
                        Severity::Warning,
                        Some(s.clone()),
                        format!("{spath} calls dlopen and contains the relative path \"{s}\", which resolves against the working directory"),
                        None,
                    ));
                    (None, Class::Unresolved)
                }
                DlopenKind::Bare => {
                    let found = bare_found.next().flatten();
                    self.dlopen_bare(s, found, spath, &mut out.raw)
                }
            };
            out.report.dlopen.push(DlopenRef {
                string: s.clone(),
                kind,
                path,
                class,
            });
        }
    }

    /// An absolute path `s` given to dlopen: in the stack, allowed, or a leak.
    fn dlopen_absolute(
        &self,
        s: &str,
        spath: &str,
        raws: &mut Vec<Raw>,
    ) -> (Option<String>, Class) {
        match self.s.vfs.lookup(Path::new(s)) {
            Lookup::File(c) if self.stack.contains(&c) => (Some(s.to_string()), Class::Stack),
            _ if self.stack.contains(Path::new(s)) => (None, Class::Unresolved),
            found => {
                let exists = matches!(found, Lookup::File(_));
                let real = match &found {
                    Lookup::File(c) => c.to_string_lossy(),
                    _ => "".into(),
                };
                if self.allow.allows_any([s, &*real]) {
                    return (exists.then(|| s.to_string()), Class::Allowed);
                }
                raws.push(Raw {
                    path: exists.then(|| s.to_string()),
                    ..group_raw(
                        spath,
                        FindingKind::DlopenPath,
                        Severity::Error,
                        Some(s.to_string()),
                        format!(
                            "{spath} calls dlopen and contains the path \"{s}\" outside the stack{}",
                            if exists { "" } else { " (absent here, present on some hosts)" }
                        ),
                        Some("make it dlopen the stack's copy (a bare soname found through RUNPATH, or a path below the mount point)"),
                    )
                });
                (exists.then(|| s.to_string()), Class::Leak)
            }
        }
    }

    /// A bare name `s` given to dlopen, which opened `found` (the path opened
    /// and the file) from the root, or nothing.
    fn dlopen_bare(
        &self,
        s: &str,
        found: Option<(std::sync::Arc<str>, std::sync::Arc<super::session::Object>)>,
        spath: &str,
        raws: &mut Vec<Raw>,
    ) -> (Option<String>, Class) {
        let Some((opened, file)) = found else {
            if self.allow.allows(s) {
                return (None, Class::AllowedMissing);
            }
            return match self
                .paths
                .dlopen_through_view(&self.s.vfs, self.stack, spath, s)
            {
                Some(f) => {
                    let at = f.path.clone();
                    raws.push(path_raw(f, spath));
                    (at, Class::Stack)
                }
                None => (None, Class::Unresolved),
            };
        };
        let opened = opened.to_string();
        if self.stack.contains(&file.path) {
            return (Some(opened), Class::Stack);
        }
        let soname = file.elf.as_ref().and_then(|e| e.soname.as_deref());
        if self.allow.allows_any([
            s,
            &*opened,
            &file.path.to_string_lossy(),
            soname.unwrap_or(""),
        ]) {
            return (Some(opened), Class::Allowed);
        }
        raws.push(Raw {
            path: Some(opened.clone()),
            ..group_raw(
                spath,
                FindingKind::DlopenName,
                Severity::Warning,
                Some(s.to_string()),
                format!("{spath} calls dlopen and names \"{s}\": from this file that loads {opened}, outside the stack"),
                Some("provide the library in the stack and make it findable through this file's RUNPATH"),
            )
        });
        (Some(opened), Class::Leak)
    }
}
