//! Per-package build logs.
//!
//! Every command's stdout and stderr go straight to `<build>/logs/<slug>.log`
//! (the same file, append mode), after a `==> phase: argv` header line.
//! On failure the last [`TAIL_LINES`] lines are shown.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many log lines a failure shows.
pub const TAIL_LINES: usize = 30;

/// An open build log.
#[derive(Debug)]
pub struct BuildLog {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl BuildLog {
    /// Create (truncate) the log.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            fs_err::create_dir_all(dir)?;
        }
        fs_err::write(path, b"")?;
        // Append mode, so children writing through their own fds interleave safely.
        let file = fs_err::OpenOptions::new()
            .append(true)
            .open(path)?
            .into_parts()
            .0;
        Ok(BuildLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write one line (a header or a note of our own).
    pub fn line(&self, text: &str) {
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(f, "{text}");
    }

    /// A handle for a child's stdout/stderr.
    pub fn stdio(&self) -> std::io::Result<std::fs::File> {
        self.file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .try_clone()
    }
}

/// The last `n` lines of a file (reads at most its last 64 KiB).
pub fn tail(path: &Path, n: usize) -> Vec<String> {
    let Ok(mut f) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(64 * 1024);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0); // probably a partial line
    }
    let skip = lines.len().saturating_sub(n);
    lines[skip..].iter().map(|l| l.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_of_log() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.log");
        let log = BuildLog::create(&p).unwrap();
        for i in 0..100 {
            log.line(&format!("line {i}"));
        }
        let t = tail(&p, TAIL_LINES);
        assert_eq!(t.len(), 30);
        assert_eq!(t[0], "line 70");
        assert_eq!(t[29], "line 99");
        assert!(tail(&d.path().join("missing"), 5).is_empty());
    }
}
