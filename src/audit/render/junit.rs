//! JUnit XML: one test suite per package/prefix, one test case per audited
//! ELF file; errors are `<failure>`s, warnings go to `<system-out>`.

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
    let failing = |file: &str| {
        by_file
            .get(file)
            .is_some_and(|v| v.iter().any(|f| f.severity == Severity::Error))
    };
    let total: usize = suites.values().map(Vec::len).sum();
    let failures: usize = suites.values().flatten().filter(|f| failing(f)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"stack audit\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" time=\"{:.3}\">",
        r.summary.elapsed_ms as f64 / 1000.0
    );
    for (group, files) in &suites {
        let f_fail = files.iter().filter(|f| failing(f)).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f_fail}\" errors=\"0\">",
            esc(group),
            files.len()
        );
        for file in files {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                esc(group),
                esc(file)
            );
            let Some(fs) = by_file.get(file) else {
                out.push_str("/>\n");
                continue;
            };
            out.push_str(">\n");
            for f in fs.iter().filter(|f| f.severity == Severity::Error) {
                let _ = writeln!(
                    out,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    f.kind.code(),
                    esc(&f.message),
                    esc(&body(f))
                );
            }
            let warnings: Vec<String> = fs
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .map(|f| format!("warning[{}]: {}", f.kind.code(), body(f)))
                .collect();
            if !warnings.is_empty() {
                let _ = writeln!(
                    out,
                    "      <system-out>{}</system-out>",
                    esc(&warnings.join("\n"))
                );
            }
            out.push_str("    </testcase>\n");
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
