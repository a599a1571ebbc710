//! Diagnostics as JSON (`stack check --format json`): one object each with
//! severity, code, message, primary location, labels, help, the package
//! it is about (`subject`, or null) and related notes.

use serde_json::{Value, json};

use super::{Diagnostic, Diagnostics, Severity};

impl Diagnostic {
    /// This diagnostic as a JSON object.
    pub fn to_json(&self) -> Value {
        let loc = self.loc();
        json!({
            "severity": match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            "code": self.code.as_str(),
            "message": self.message,
            "file": loc.map(|l| l.file.display().to_string()),
            "line": loc.map(|l| l.line),
            "column": loc.map(|l| l.col),
            "translated_at": loc.and_then(|l| l.via.as_ref()).map(|v| v.to_string()),
            "labels": self.labels.iter().map(|l| json!({
                "file": l.loc.file.display().to_string(),
                "line": l.loc.line,
                "column": l.loc.col,
                "text": l.text,
            })).collect::<Vec<_>>(),
            "help": self.help,
            "subject": self.subject,
            "related": self.related.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
        })
    }
}

impl Diagnostics {
    /// Every diagnostic, in order, as a JSON array.
    pub fn to_json(&self) -> Value {
        Value::Array(self.iter().map(Diagnostic::to_json).collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::{Code, Diagnostic, Loc};

    #[test]
    fn a_located_error_with_help() {
        let d = Diagnostic::error(Code::UnknownPackage, "unknown package `x`")
            .at(&Loc::new("/r/s.yaml", 3, 7), "no recipe")
            .with_help("did you mean `y`?");
        let v = d.to_json();
        assert_eq!(v["severity"], "error");
        assert_eq!(v["code"], "stack::unknown-package");
        assert_eq!(
            (v["file"].as_str(), v["line"].as_u64(), v["column"].as_u64()),
            (Some("/r/s.yaml"), Some(3), Some(7))
        );
        assert_eq!(v["labels"][0]["text"], "no recipe");
        assert_eq!(v["help"], "did you mean `y`?");
        assert_eq!(v["subject"], serde_json::Value::Null);
        let about = Diagnostic::error(Code::UnknownPackage, "`packages` names `x`").about("x");
        assert_eq!(about.to_json()["subject"], "x");
    }
}
