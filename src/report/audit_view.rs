//! The parts of an audit report (`audit.json`, written by [`crate::audit`])
//! that the build report shows: the counts and the findings. Read as data,
//! so that a report of an older image (or a newer audit) still renders:
//! unknown fields are ignored.

use serde::Deserialize;

/// The counts of an audit.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct AuditCounts {
    #[serde(default)]
    pub files: usize,
    #[serde(default)]
    pub elf_files: usize,
    #[serde(default)]
    pub errors: usize,
    #[serde(default)]
    pub warnings: usize,
}

/// One finding.
#[derive(Clone, Debug, Deserialize)]
pub struct AuditFinding {
    /// `error` or `warning`.
    pub severity: String,
    /// The finding kind's code (`leak`, `unresolved`, …).
    pub kind: String,
    pub file: String,
    /// The package (prefix) the file belongs to.
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    pub message: String,
    /// The load chain from a root program to `file`.
    #[serde(default)]
    pub chain: Vec<String>,
    #[serde(default)]
    pub contexts: usize,
    #[serde(default)]
    pub hint: Option<String>,
}

/// The audit as the report shows it.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct AuditView {
    #[serde(default)]
    pub summary: AuditCounts,
    #[serde(default)]
    pub findings: Vec<AuditFinding>,
}

impl AuditView {
    /// Clean: no finding at all (errors or warnings).
    pub fn clean(&self) -> bool {
        self.findings.is_empty() && self.summary.errors == 0 && self.summary.warnings == 0
    }

    /// The findings grouped by kind, kinds with errors first, then by name.
    pub fn by_kind(&self) -> Vec<(&str, Vec<&AuditFinding>)> {
        let mut groups: Vec<(&str, Vec<&AuditFinding>)> = Vec::new();
        for f in &self.findings {
            match groups.iter_mut().find(|(k, _)| *k == f.kind) {
                Some((_, v)) => v.push(f),
                None => groups.push((&f.kind, vec![f])),
            }
        }
        let has_error = |v: &Vec<&AuditFinding>| v.iter().any(|f| f.severity == "error");
        groups.sort_by(|a, b| has_error(&b.1).cmp(&has_error(&a.1)).then(a.0.cmp(b.0)));
        groups
    }
}

/// What the report knows about the audit of the run it shows.
#[derive(Clone, Debug)]
pub enum AuditState {
    /// The audit's report.
    Ran(AuditView),
    /// This run did not audit (it failed before, or a job of a distributed
    /// build stops before the audit).
    NotRun,
    /// The audit report could not be read: why.
    Unreadable(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_are_grouped_by_kind_errors_first() {
        let json = r#"{"summary": {"files": 3, "errors": 1, "warnings": 2, "new": 1},
            "findings": [
              {"severity": "warning", "kind": "dlopen-name", "file": "/a", "message": "m"},
              {"severity": "error", "kind": "leak", "file": "/b", "message": "m", "chain": ["/x", "/b"]},
              {"severity": "warning", "kind": "dlopen-name", "file": "/c", "message": "m"}
            ], "files": []}"#;
        let a: AuditView = serde_json::from_str(json).unwrap();
        assert!(!a.clean());
        let g = a.by_kind();
        assert_eq!(g[0].0, "leak");
        assert_eq!(g[1].0, "dlopen-name");
        assert_eq!(g[1].1.len(), 2);
        let clean: AuditView = serde_json::from_str(r#"{"summary": {}, "findings": []}"#).unwrap();
        assert!(clean.clean());
    }
}
