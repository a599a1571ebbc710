//! Packing with the real `mksquashfs`.
//!
//! Flags: stackinator's `-noappend -no-recovery` and gzip level 3
//! (`-comp gzip -Xcompression-level 3`), then for reproducibility
//! `-reproducible`, `-force-uid 65534 -force-gid 65534` (instead of
//! `-all-root`), `-all-time E -mkfs-time E` (E = SOURCE_DATE_EPOCH, where
//! stackinator uses the current time), `-no-xattrs`, and
//! `-action 'chmod(a+rX)@true'` (stackinator runs `chmod -R a+rX` on the store
//! instead; the action leaves the store untouched). `-exit-on-error` (4.5+)
//! turns unreadable files into failures instead of silent omissions;
//! `-no-hardlinks` (4.5+) stores hard links as files, so a prefix built in
//! place and the same prefix installed from the binary cache (copies) give
//! the same image, as the embedded writer does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::ImageError;
use super::{Compression, IMAGE_GID, IMAGE_UID, ImageOptions, WriterUsed};

/// A usable mksquashfs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mksquashfs {
    pub program: PathBuf,
    pub version: String,
    /// `(major, minor)`.
    pub release: (u32, u32),
}

impl Mksquashfs {
    pub(crate) fn into_used(self) -> WriterUsed {
        WriterUsed::Mksquashfs {
            program: self.program,
            version: self.version,
        }
    }
}

/// Find mksquashfs (`explicit`, else on PATH, else in /usr/sbin and /sbin)
/// and check that it is 4.4 or newer.
pub fn find(explicit: Option<&Path>) -> Result<Mksquashfs, ImageError> {
    let program = match explicit {
        Some(p) => p.to_path_buf(),
        None => search_path("mksquashfs").ok_or_else(|| ImageError::MksquashfsNotFound {
            program: "mksquashfs on PATH".into(),
        })?,
    };
    let out = Command::new(&program)
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .map_err(|_| ImageError::MksquashfsNotFound {
            program: program.display().to_string(),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = parse_version(&text).ok_or_else(|| ImageError::MksquashfsNotFound {
        program: format!("{} does not print a mksquashfs version", program.display()),
    })?;
    let release = release_of(&version);
    if release < (4, 4) {
        return Err(ImageError::MksquashfsTooOld {
            program: program.display().to_string(),
            version,
        });
    }
    Ok(Mksquashfs {
        program,
        version,
        release,
    })
}

fn search_path(name: &str) -> Option<PathBuf> {
    let path = crate::settings::search_path().unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `mksquashfs version 4.5.1 (2022/03/17)` → `4.5.1`.
pub fn parse_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("mksquashfs version"))?;
    line.split_whitespace().nth(2).map(str::to_string)
}

fn release_of(version: &str) -> (u32, u32) {
    let mut parts = version
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The full argument list (after the program name).
pub fn args(
    tool: &Mksquashfs,
    store_dir: &Path,
    out: &Path,
    epoch: u32,
    opts: &ImageOptions,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![store_dir.into(), out.into()];
    let mut push = |s: &[&str]| a.extend(s.iter().map(OsString::from));
    push(&["-noappend", "-no-recovery", "-quiet", "-no-progress"]);
    match opts.compression {
        Compression::Gzip { level } => {
            push(&["-comp", "gzip", "-Xcompression-level", &level.to_string()])
        }
        Compression::Zstd { level } => {
            push(&["-comp", "zstd", "-Xcompression-level", &level.to_string()])
        }
        Compression::Xz => push(&["-comp", "xz"]),
    }
    push(&["-b", &opts.block_size.to_string()]);
    push(&["-reproducible"]);
    push(&["-force-uid", &IMAGE_UID.to_string()]);
    push(&["-force-gid", &IMAGE_GID.to_string()]);
    push(&["-all-time", &epoch.to_string()]);
    push(&["-mkfs-time", &epoch.to_string()]);
    push(&["-no-xattrs"]);
    push(&["-action", "chmod(a+rX)@true"]);
    if tool.release >= (4, 5) {
        push(&["-exit-on-error"]);
        // Hard links stored as files (their bytes once, by duplicate
        // detection): a prefix built in place has hard links (ncurses'
        // terminfo) where the same prefix installed from the binary cache
        // has copies, and the image must not tell them apart.
        push(&["-no-hardlinks"]);
    }
    if let Some(n) = opts.processors {
        push(&["-processors", &n.to_string()]);
    }
    a
}

pub(crate) fn write(
    tool: &Mksquashfs,
    store_dir: &Path,
    out: &Path,
    epoch: u32,
    opts: &ImageOptions,
) -> Result<(), ImageError> {
    let args = args(tool, store_dir, out, epoch, opts);
    tracing::debug!(program = %tool.program.display(), ?args, "running mksquashfs");
    let output = Command::new(&tool.program)
        .args(&args)
        .env_remove("SOURCE_DATE_EPOCH") // the flags set every time explicitly
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            ImageError::Io(std::io::Error::new(
                e.kind(),
                format!("{e} (running {})", tool.program.display()),
            ))
        })?;
    if !output.status.success() {
        let mut stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if stderr.trim().is_empty() {
            stderr = String::from_utf8_lossy(&output.stdout).into_owned();
        }
        let lines: Vec<&str> = stderr.lines().collect();
        return Err(ImageError::Mksquashfs {
            program: tool.program.display().to_string(),
            status: output.status.to_string(),
            store: store_dir.to_path_buf(),
            stderr: lines[lines.len().saturating_sub(20)..].join("\n"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("mksquashfs version 4.5.1 (2022/03/17)\ncopyright").as_deref(),
            Some("4.5.1")
        );
        assert_eq!(
            parse_version("mksquashfs version 4.6.1-git (2023/11/27)").as_deref(),
            Some("4.6.1-git")
        );
        assert_eq!(parse_version("something else"), None);
        assert_eq!(release_of("4.5.1"), (4, 5));
        assert_eq!(release_of("4.3"), (4, 3));
        assert_eq!(release_of("4.6.1-git"), (4, 6));
    }

    #[test]
    fn flags() {
        let tool = Mksquashfs {
            program: "mksquashfs".into(),
            version: "4.5.1".into(),
            release: (4, 5),
        };
        let a = args(
            &tool,
            Path::new("/b/store"),
            Path::new("/b/store.squashfs"),
            315576060,
            &ImageOptions::default(),
        );
        let a: Vec<String> = a.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        assert_eq!(
            a.join(" "),
            "/b/store /b/store.squashfs -noappend -no-recovery -quiet -no-progress \
             -comp gzip -Xcompression-level 3 -b 131072 -reproducible \
             -force-uid 65534 -force-gid 65534 -all-time 315576060 -mkfs-time 315576060 \
             -no-xattrs -action chmod(a+rX)@true -exit-on-error -no-hardlinks"
        );
    }
}
