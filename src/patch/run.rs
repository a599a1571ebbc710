//! Running GNU `patch` and reading what it says.

use std::path::Path;
use std::process::{Command, Output};

use super::diff::FileDiff;
use super::error::Rejection;

/// Run `patch -p<level> --batch --forward` on `patch_file` in `dir` (`dry_run`: change nothing).
pub(crate) fn run(
    dir: &Path,
    patch_file: &Path,
    level: u32,
    dry_run: bool,
) -> std::io::Result<Output> {
    let mut cmd = Command::new("patch");
    cmd.arg(format!("-p{level}"))
        .args(["--batch", "--forward", "--no-backup-if-mismatch"])
        .arg("--reject-file=-")
        .arg("-d")
        .arg(dir)
        .arg("-i")
        .arg(patch_file)
        .env("LC_ALL", "C")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("PATCH_GET")
        .env_remove("PATCH_VERSION_CONTROL")
        .env_remove("VERSION_CONTROL")
        .env_remove("SIMPLE_BACKUP_SUFFIX");
    if dry_run {
        cmd.arg("--dry-run");
    }
    cmd.output()
}

/// What a run reported, file by file.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// Files `patch` checked or patched, in order.
    pub(crate) files: Vec<String>,
    /// Hunks that applied only with an offset or fuzz (`file: message`).
    pub(crate) inexact: Vec<String>,
    pub(crate) rejections: Vec<Rejection>,
}

/// Parse `patch` output, pointing rejections at hunks of `diffs` (the parsed patch).
pub(crate) fn parse_output(output: &str, diffs: &[FileDiff], level: u32) -> Report {
    let mut report = Report::default();
    // Index of the file section `patch` is working on.
    let mut section: Option<usize> = None;
    let mut next_section = 0usize;
    let mut current_file = String::new();
    for line in output.lines() {
        if let Some(f) = line
            .strip_prefix("checking file ")
            .or_else(|| line.strip_prefix("patching file "))
        {
            let f = f.trim_matches(['\'', '"']).to_string();
            // Sections are processed in order; prefer the next section with this name.
            let found = diffs
                .iter()
                .enumerate()
                .skip(next_section)
                .find(|(_, d)| d.stripped(level) == f || d.old.ends_with(&f) || d.new.ends_with(&f))
                .map(|(i, _)| i);
            section = found.or(Some(next_section)).filter(|&i| i < diffs.len());
            next_section = section.map(|i| i + 1).unwrap_or(next_section + 1);
            current_file = f.clone();
            report.files.push(f);
        } else if let Some(rest) = line.strip_prefix("can't find file to patch at input line ") {
            let at: usize = rest.trim().parse().unwrap_or(0);
            // The section whose header precedes that input line.
            let idx = diffs.iter().rposition(|d| d.line <= at);
            let file = idx
                .map(|i| diffs[i].stripped(level))
                .unwrap_or_else(|| "?".into());
            if let Some(i) = idx {
                next_section = i + 1;
            }
            section = None;
            report.rejections.push(Rejection {
                file: file.clone(),
                hunk: None,
                reason: format!("can't find file to patch (tried `{file}` with -p{level})"),
                patch_line: idx.map(|i| diffs[i].line),
                text: None,
            });
            current_file = file;
        } else if line.starts_with("Reversed (or previously applied) patch detected") {
            report.rejections.push(Rejection {
                file: current_file.clone(),
                hunk: None,
                reason: "reversed or previously applied patch detected".into(),
                patch_line: section.and_then(|i| diffs.get(i)).map(|d| d.line),
                text: None,
            });
        } else if let Some(rest) = line.strip_prefix("Hunk #") {
            let (num, what) = rest.split_once(' ').unwrap_or((rest, ""));
            let Ok(n) = num.parse::<usize>() else {
                continue;
            };
            let hunk = section
                .and_then(|i| diffs.get(i))
                .and_then(|d| d.hunks.get(n.wrapping_sub(1)));
            if what.starts_with("FAILED") {
                report.rejections.push(Rejection {
                    file: current_file.clone(),
                    hunk: Some(n),
                    reason: what.trim_end_matches('.').to_string(),
                    patch_line: hunk.map(|h| h.line),
                    text: hunk.map(|h| h.text.clone()),
                });
            } else if what.contains("fuzz") || what.contains("offset") {
                report.inexact.push(format!(
                    "{current_file}: hunk #{n} {}",
                    what.trim_end_matches('.')
                ));
            }
        } else if line.starts_with("patch: ****") || line.contains("malformed patch") {
            report.rejections.push(Rejection {
                file: current_file.clone(),
                hunk: None,
                reason: line.trim_start_matches("patch: **** ").to_string(),
                patch_line: None,
                text: None,
            });
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::super::diff::parse;
    use super::*;

    #[test]
    fn reads_failures() {
        let patch = "--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -9,2 +9,2 @@\n q\n-r\n+s\n\
                     --- a/gone.c\n+++ b/gone.c\n@@ -1 +1 @@\n-1\n+2\n";
        let diffs = parse(patch);
        let out = "checking file x.c\nHunk #1 succeeded at 3 (offset 2 lines).\n\
                   Hunk #2 FAILED at 9.\n1 out of 2 hunks FAILED\n\
                   can't find file to patch at input line 13\nPerhaps you used the wrong -p?\n\
                   No file to patch.  Skipping patch.\n1 out of 1 hunk ignored\n";
        let r = parse_output(out, &diffs, 1);
        assert_eq!(r.files, vec!["x.c"]);
        assert_eq!(
            r.inexact,
            vec!["x.c: hunk #1 succeeded at 3 (offset 2 lines)"]
        );
        assert_eq!(r.rejections.len(), 2, "{r:#?}");
        assert_eq!(r.rejections[0].hunk, Some(2));
        assert_eq!(r.rejections[0].patch_line, Some(7));
        assert_eq!(
            r.rejections[0].text.as_deref(),
            Some("@@ -9,2 +9,2 @@\n q\n-r\n+s")
        );
        assert_eq!(r.rejections[1].file, "gone.c");
        assert!(r.rejections[1].reason.contains("can't find file"));
    }
}
