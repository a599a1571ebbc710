//! Report formats: text for people, JSON for tools, JUnit XML for CI.

mod junit;
mod text;

pub use junit::junit;
pub use text::{result_line, text};

use super::report::AuditReport;

/// The report as pretty-printed JSON (the [`AuditReport`] structure).
pub fn json(report: &AuditReport) -> String {
    let mut s =
        serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
