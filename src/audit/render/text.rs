//! The human-readable report: what was audited with which loader facts,
//! then the findings grouped by package/prefix, each with the load chain
//! that explains it, then a summary line.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::audit::report::{AuditReport, Finding, Severity};
use crate::audit::session::CacheSource;

fn cache(c: &CacheSource) -> String {
    match c {
        CacheSource::File { path, entries } => format!("{path} ({entries} entries)"),
        CacheSource::Conf { path, entries } => {
            format!("none; built from {path} like ldconfig ({entries} entries)")
        }
        CacheSource::None => "none".into(),
    }
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `s` with control characters escaped (`\n`, `\t`, `\x1b`, …): a file
/// name with a newline must not forge a line of the report.
pub fn esc(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\r' => o.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(o, "\\x{:02x}", c as u32);
            }
            c => o.push(c),
        }
    }
    Cow::Owned(o)
}

fn finding(out: &mut String, f: &Finding) {
    let _ = writeln!(
        out,
        "  {}[{}]: {}",
        severity(f.severity),
        f.kind.code(),
        esc(&f.message)
    );
    if f.chain.len() > 1 {
        let chain: Vec<_> = f.chain.iter().map(|c| esc(c)).collect();
        let _ = write!(out, "      loaded by: {}", chain.join(" → "));
        if f.contexts > 1 {
            let _ = write!(out, " (and {} other loads)", f.contexts - 1);
        }
        out.push('\n');
    } else if f.contexts > 1 {
        let _ = writeln!(out, "      seen in {} loads", f.contexts);
    }
    if let Some(h) = &f.hint {
        let _ = writeln!(out, "      hint: {}", esc(h));
    }
}

/// Renders the report as text.
pub fn text(r: &AuditReport) -> String {
    let mut out = String::new();
    let s = &r.summary;
    for i in &r.inputs {
        let _ = writeln!(
            out,
            "stack audit: {} ({}), mounted at {} (from {})",
            esc(&i.path),
            i.kind,
            esc(&i.mount),
            esc(&i.mount_from)
        );
        if let Some(a) = &i.allow_from {
            let _ = writeln!(out, "allow-list recorded by the build: {}", esc(a));
        }
    }
    let l = &r.loader;
    let _ = writeln!(
        out,
        "loader: {}; cache {}; default dirs {}; $LIB={} $PLATFORM={}; hwcaps {}",
        l.source,
        cache(&l.cache),
        l.default_dirs.join(":"),
        l.lib,
        l.platform,
        if l.hwcaps.is_empty() {
            "none".to_string()
        } else {
            l.hwcaps.join(",")
        }
    );
    if let Some(p) = &l.ld_library_path {
        let _ = writeln!(out, "LD_LIBRARY_PATH: {p}");
    }
    if l.sysroot != "/" {
        let _ = writeln!(out, "target system root: {}", l.sysroot);
    }
    out.push('\n');
    let mut groups: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in &r.findings {
        groups.entry(f.group.as_str()).or_default().push(f);
    }
    for (g, fs) in &groups {
        let e = fs.iter().filter(|f| f.severity == Severity::Error).count();
        let w = fs.len() - e;
        let _ = writeln!(
            out,
            "{}  ({e} error{}, {w} warning{})",
            esc(g),
            plural(e),
            plural(w)
        );
        for f in fs {
            finding(&mut out, f);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{} files, {} ELF, {} loaded as roots ({} objects in all loads); {} direct dependencies: {} in the stack, {} allowed, {} leaks, {} unresolved",
        s.files,
        s.elf_files,
        s.roots,
        s.loaded_objects,
        s.resolutions,
        s.in_stack,
        s.allowed,
        s.leaks,
        s.unresolved
    );
    if s.unreadable > 0 {
        let _ = writeln!(
            out,
            "{} file{} or director{} could not be read and {} not examined",
            s.unreadable,
            plural(s.unreadable),
            if s.unreadable == 1 { "y" } else { "ies" },
            if s.unreadable == 1 { "was" } else { "were" }
        );
    }
    let _ = writeln!(out, "{}", result_line(r));
    out
}

/// `result: clean|FINDINGS (N errors, M warnings) in T ms`.
pub fn result_line(r: &AuditReport) -> String {
    let s = &r.summary;
    format!(
        "result: {} ({} error{}, {} warning{}) in {} ms",
        if s.errors == 0 { "clean" } else { "FINDINGS" },
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.elapsed_ms
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
