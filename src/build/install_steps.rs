//! Explicit install steps: copy (path or glob) → dir, mkdir, symlink.
//!
//! - `copy: "libfoo.so*"` copies every match of the glob (relative to the
//!   build directory; `*` does not cross `/`) into `to`; a matched directory
//!   is copied as a whole (`to/<name>/…`).
//! - `copy: include/` (a literal path with a trailing `/`, or `.`) copies the
//!   directory's *contents* into `to`.
//! - `copy: README` copies one file (or directory as a whole) into `to`.
//!
//! Destinations are relative to the prefix and may not leave it.

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use super::error::PackageError;
use super::job::InstallStep;
use super::tree::{copy_entry, copy_tree};

fn inside(prefix: &Path, rel: &Path) -> Result<PathBuf, PackageError> {
    if rel.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    }) {
        return Err(PackageError::BadPattern {
            pattern: rel.display().to_string(),
            message: "install destinations must be relative paths inside the prefix".into(),
        });
    }
    Ok(prefix.join(rel))
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// Run `steps`, reading from `from_dir` and writing below `host_prefix`.
pub fn run_steps(
    steps: &[InstallStep],
    from_dir: &Path,
    host_prefix: &Path,
) -> Result<(), PackageError> {
    for step in steps {
        match step {
            InstallStep::Mkdir { path } => {
                fs_err::create_dir_all(inside(host_prefix, path)?)?;
            }
            InstallStep::Symlink { target, at } => {
                let at = inside(host_prefix, at)?;
                if let Some(parent) = at.parent() {
                    fs_err::create_dir_all(parent)?;
                }
                if fs_err::symlink_metadata(&at).is_ok() {
                    fs_err::remove_file(&at)?;
                }
                fs_err::os::unix::fs::symlink(target, &at)?;
            }
            InstallStep::Copy { from, to } => copy_step(from, to, from_dir, host_prefix)?,
        }
    }
    Ok(())
}

fn copy_step(
    from: &str,
    to: &Path,
    from_dir: &Path,
    host_prefix: &Path,
) -> Result<(), PackageError> {
    let dest = inside(host_prefix, to)?;
    let nothing = || PackageError::NothingToCopy {
        from: from.to_string(),
        dir: from_dir.to_path_buf(),
    };
    if !has_glob(from) {
        let contents = from.ends_with('/') || from == ".";
        let rel = Path::new(from.trim_end_matches('/'));
        if rel.is_absolute() || rel.components().any(|c| c == Component::ParentDir) {
            return Err(PackageError::BadPattern {
                pattern: from.to_string(),
                message: "copy sources must be relative to the build directory".into(),
            });
        }
        let src = from_dir.join(rel);
        let md = fs_err::symlink_metadata(&src).map_err(|_| nothing())?;
        if md.is_dir() && contents {
            copy_tree(&src, &dest)?;
        } else {
            copy_match(&src, &dest)?;
        }
        return Ok(());
    }
    let glob = GlobBuilder::new(from)
        .literal_separator(true)
        .build()
        .map_err(|e| PackageError::BadPattern {
            pattern: from.to_string(),
            message: e.to_string(),
        })?
        .compile_matcher();
    let mut matched = 0usize;
    let mut walk = walkdir::WalkDir::new(from_dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(|e| std::io::Error::other(e.to_string()))?;
        let rel = entry.path().strip_prefix(from_dir).expect("below root");
        if glob.is_match(rel) {
            copy_match(entry.path(), &dest)?;
            matched += 1;
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    if matched == 0 {
        return Err(nothing());
    }
    Ok(())
}

/// Copy `src` (file, symlink or whole directory) into directory `dest`.
fn copy_match(src: &Path, dest: &Path) -> std::io::Result<()> {
    fs_err::create_dir_all(dest)?;
    let name = src.file_name().unwrap_or_default();
    let md = fs_err::symlink_metadata(src)?;
    if md.is_dir() {
        copy_tree(src, &dest.join(name))
    } else {
        copy_entry(src, &dest.join(name), md.file_type())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps() {
        let d = tempfile::tempdir().unwrap();
        let b = d.path().join("build");
        let p = d.path().join("prefix");
        fs_err::create_dir_all(b.join("include/sub")).unwrap();
        fs_err::write(b.join("include/a.h"), "a").unwrap();
        fs_err::write(b.join("include/sub/b.h"), "b").unwrap();
        fs_err::write(b.join("libfoo.so.1"), "elf").unwrap();
        std::os::unix::fs::symlink("libfoo.so.1", b.join("libfoo.so")).unwrap();
        fs_err::write(b.join("README"), "r").unwrap();
        let steps = vec![
            InstallStep::Copy {
                from: "libfoo.so*".into(),
                to: "lib".into(),
            },
            InstallStep::Copy {
                from: "include/".into(),
                to: "include".into(),
            },
            InstallStep::Copy {
                from: "README".into(),
                to: "share/doc".into(),
            },
            InstallStep::Mkdir {
                path: "share/empty".into(),
            },
            InstallStep::Symlink {
                target: "libfoo.so.1".into(),
                at: "lib/libfoo.so.0".into(),
            },
        ];
        run_steps(&steps, &b, &p).unwrap();
        assert!(p.join("lib/libfoo.so.1").is_file());
        assert_eq!(
            fs_err::read_link(p.join("lib/libfoo.so")).unwrap(),
            Path::new("libfoo.so.1")
        );
        assert_eq!(
            fs_err::read_link(p.join("lib/libfoo.so.0")).unwrap(),
            Path::new("libfoo.so.1")
        );
        assert!(p.join("include/a.h").is_file() && p.join("include/sub/b.h").is_file());
        assert!(p.join("share/doc/README").is_file());
        assert!(p.join("share/empty").is_dir());

        let err = run_steps(
            &[InstallStep::Copy {
                from: "*.nothing".into(),
                to: "x".into(),
            }],
            &b,
            &p,
        )
        .unwrap_err();
        assert!(err.to_string().contains("matched nothing"), "{err}");
        let err = run_steps(
            &[InstallStep::Mkdir {
                path: "../escape".into(),
            }],
            &b,
            &p,
        )
        .unwrap_err();
        assert!(err.to_string().contains("inside the prefix"), "{err}");
    }
}
