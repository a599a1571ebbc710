//! Just enough of the unified diff format to point at a hunk: file sections and their hunks
//! with the patch line they start on.

/// One file section of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDiff {
    /// Path on the `---` line (without the timestamp).
    pub(crate) old: String,
    /// Path on the `+++` line.
    pub(crate) new: String,
    /// 1-based line of the `---` line.
    pub(crate) line: usize,
    pub(crate) hunks: Vec<Hunk>,
}

/// One hunk: its `@@` line and body, as in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// 1-based line of the `@@` line.
    pub(crate) line: usize,
    pub(crate) text: String,
}

impl FileDiff {
    /// The path `patch -p<level>` would use (the new name unless it is `/dev/null`).
    pub(crate) fn stripped(&self, level: u32) -> String {
        let name = if self.new == "/dev/null" {
            &self.old
        } else {
            &self.new
        };
        strip(name, level)
    }
}

/// Remove `level` leading components, as `patch -p` does.
pub(crate) fn strip(path: &str, level: u32) -> String {
    let mut rest = path;
    for _ in 0..level {
        match rest.split_once('/') {
            Some((_, r)) => rest = r.trim_start_matches('/'),
            None => break,
        }
    }
    rest.to_string()
}

fn header_path(s: &str) -> String {
    let s = s.split('\t').next().unwrap_or(s).trim_end();
    s.strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

/// `@@ -a,b +c,d @@` → (b, d) (a missing count is 1).
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let mut it = line.strip_prefix("@@ ")?.split_whitespace();
    let count = |r: &str| -> Option<usize> {
        match r.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => Some(1),
        }
    };
    let old = count(it.next()?.strip_prefix('-')?)?;
    let new = count(it.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

/// Parse the unified-diff sections of a patch (text outside them, such as a commit message,
/// is skipped).
pub(crate) fn parse(text: &str) -> Vec<FileDiff> {
    let lines: Vec<&str> = text.lines().collect();
    let mut files: Vec<FileDiff> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if let (Some(old), Some(new)) = (
            l.strip_prefix("--- "),
            lines.get(i + 1).and_then(|n| n.strip_prefix("+++ ")),
        ) {
            files.push(FileDiff {
                old: header_path(old),
                new: header_path(new),
                line: i + 1,
                hunks: Vec::new(),
            });
            i += 2;
            continue;
        }
        if let (Some(file), Some((mut old, mut new))) = (files.last_mut(), hunk_counts(l)) {
            let start = i;
            i += 1;
            while i < lines.len() && (old > 0 || new > 0) {
                match lines[i].as_bytes().first() {
                    Some(b' ') | None => {
                        old = old.saturating_sub(1);
                        new = new.saturating_sub(1);
                    }
                    Some(b'-') => old = old.saturating_sub(1),
                    Some(b'+') => new = new.saturating_sub(1),
                    Some(b'\\') => {}
                    _ => break,
                }
                i += 1;
            }
            while i < lines.len() && lines[i].starts_with('\\') {
                i += 1;
            }
            file.hunks.push(Hunk {
                line: start + 1,
                text: lines[start..i].join("\n"),
            });
            continue;
        }
        i += 1;
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "From abc\nSubject: fix\n\n---\n a | 2 +-\n\n\
diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\t2024-01-01\n+++ b/src/a.c\n\
@@ -1,3 +1,3 @@\n a\n--- not a header\n+y\n c\n@@ -10 +10,2 @@\n-x\n+x\n+z\n\\ No newline at end of file\n\
--- a/new.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n";

    #[test]
    fn sections_and_hunks() {
        let files = parse(PATCH);
        assert_eq!(files.len(), 2, "{files:#?}");
        assert_eq!(files[0].old, "a/src/a.c");
        assert_eq!(files[0].stripped(1), "src/a.c");
        assert_eq!(files[0].hunks.len(), 2);
        assert_eq!(files[0].hunks[0].line, 10);
        assert!(files[0].hunks[0].text.contains("--- not a header"));
        assert!(
            files[0].hunks[1]
                .text
                .ends_with("No newline at end of file")
        );
        assert_eq!(files[1].stripped(1), "new.txt");
        assert_eq!(files[1].hunks[0].text, "@@ -1 +0,0 @@\n-gone");
    }

    #[test]
    fn strip_levels() {
        assert_eq!(strip("a/b/c", 0), "a/b/c");
        assert_eq!(strip("a/b/c", 2), "c");
        assert_eq!(strip("a//b", 1), "b");
        assert_eq!(strip("c", 3), "c");
    }
}
