//! JUnit XML: one test suite per package/prefix. A file without findings is
//! one passing test case; a file with findings gets one test case per
//! finding (`<file>: <code>`), a `<failure>` for an error and a `<skipped>`
//! for a warning, so that CI pages (GitLab's test report) count and show
//! every finding, warnings included.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::audit::report::{AuditReport, Finding, Severity};

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

fn body(f: &Finding) -> String {
    let mut b = f.message.clone();
    if f.chain.len() > 1 {
        b.push_str("\nloaded by: ");
        b.push_str(&f.chain.join(" -> "));
    }
    if let Some(h) = &f.hint {
        b.push_str("\nhint: ");
        b.push_str(h);
    }
    b
}

/// Renders the report as JUnit XML.
pub fn junit(r: &AuditReport) -> String {
    let mut by_file: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in &r.findings {
        by_file.entry(f.file.as_str()).or_default().push(f);
    }
    let mut suites: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &r.files {
        suites
            .entry(f.group.as_str())
            .or_default()
            .push(f.path.as_str());
    }
    // Findings about files that are not in the list (should not happen) get
    // their own cases too.
    for f in &r.findings {
        if !r.files.iter().any(|x| x.path == f.file) {
            let v = suites.entry(f.group.as_str()).or_default();
            if !v.contains(&f.file.as_str()) {
                v.push(f.file.as_str());
            }
        }
    }
    // One case per finding, one per clean file.
    let cases = |file: &str| by_file.get(file).map_or(1, Vec::len);
    let count = |files: &[&str], sev: Severity| -> usize {
        files
            .iter()
            .filter_map(|f| by_file.get(f))
            .flatten()
            .filter(|f| f.severity == sev)
            .count()
    };
    let total: usize = suites.values().flatten().map(|f| cases(f)).sum();
    let all: Vec<&str> = suites.values().flatten().copied().collect();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"stack audit\" tests=\"{total}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
        count(&all, Severity::Error),
        count(&all, Severity::Warning),
        r.summary.elapsed_ms as f64 / 1000.0
    );
    for (group, files) in &suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
            esc(group),
            files.iter().map(|f| cases(f)).sum::<usize>(),
            count(files, Severity::Error),
            count(files, Severity::Warning),
        );
        for file in files {
            let Some(fs) = by_file.get(file) else {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"{}\" name=\"{}\"/>",
                    esc(group),
                    esc(file)
                );
                continue;
            };
            for f in fs {
                let _ = writeln!(
                    out,
                    "    <testcase classname=\"{}\" name=\"{}: {}\">",
                    esc(group),
                    esc(file),
                    f.kind.code()
                );
                match f.severity {
                    Severity::Error => {
                        let _ = writeln!(
                            out,
                            "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                            f.kind.code(),
                            esc(&f.message),
                            esc(&body(f))
                        );
                    }
                    Severity::Warning => {
                        let _ = writeln!(
                            out,
                            "      <skipped message=\"warning[{}]: {}\"/>",
                            f.kind.code(),
                            esc(&body(f))
                        );
                    }
                }
                out.push_str("    </testcase>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn escapes_xml() {
        assert_eq!(esc("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;?");
    }
}
