//! Explicit install steps: copy (path or glob) → dir, mkdir, symlink.
//!
//! - `copy: "libfoo.so*"` copies every match of the glob (relative to the
//!   build directory; `*` does not cross `/`) into `to`; a matched directory
//!   is copied as a whole (`to/<name>/…`).
//! - `copy: include/` (a literal path with a trailing `/`, or `.`) copies the
//!   directory's *contents* into `to`.
//! - `copy: README` copies one file (or directory as a whole) into `to`.
//!
//! Destinations are relative to the prefix and may not leave it: every
//! directory written to is resolved beneath the prefix without following a
//! symlink ([`Beneath`]), so a link the build left in the prefix
//! (`out -> /home/me`) makes the step fail instead of writing through it.

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use super::error::PackageError;
use super::job::InstallStep;
use super::tree::copy_entry;
use crate::store::Beneath;

fn inside(rel: &Path) -> Result<PathBuf, PackageError> {
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
    Ok(rel.to_path_buf())
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
    if fs_err::symlink_metadata(host_prefix).is_err() {
        fs_err::create_dir_all(host_prefix)?;
    }
    let prefix = Beneath::open(host_prefix)?;
    for step in steps {
        match step {
            InstallStep::Mkdir { path } => {
                prefix.create_dir_all(&inside(path)?)?;
            }
            InstallStep::Symlink { target, at } => {
                let at = prefix.prepare_entry(&inside(at)?)?;
                fs_err::os::unix::fs::symlink(target, &at)?;
            }
            InstallStep::Copy { from, to } => copy_step(from, to, from_dir, &prefix)?,
        }
    }
    Ok(())
}

fn copy_step(from: &str, to: &Path, from_dir: &Path, prefix: &Beneath) -> Result<(), PackageError> {
    let dest = inside(to)?;
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
            copy_tree_beneath(&src, prefix, &dest)?;
        } else {
            copy_match(&src, prefix, &dest)?;
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
            copy_match(entry.path(), prefix, &dest)?;
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

/// Copy `src` (file, symlink or whole directory) into directory `dest`
/// (relative to the prefix).
fn copy_match(src: &Path, prefix: &Beneath, dest: &Path) -> std::io::Result<()> {
    prefix.create_dir_all(dest)?;
    let name = src.file_name().unwrap_or_default();
    let md = fs_err::symlink_metadata(src)?;
    if md.is_dir() {
        copy_tree_beneath(src, prefix, &dest.join(name))
    } else {
        let to = prefix.prepare_entry(&dest.join(name))?;
        copy_entry(src, &to, md.file_type())
    }
}

/// Copy the contents of `src` into `dest` (relative to the prefix), every
/// entry's directory resolved beneath the prefix.
fn copy_tree_beneath(src: &Path, prefix: &Beneath, dest: &Path) -> std::io::Result<()> {
    prefix.create_dir_all(dest)?;
    for entry in walkdir::WalkDir::new(src).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| std::io::Error::other(e.to_string()))?;
        let rel = dest.join(entry.path().strip_prefix(src).expect("below root"));
        let ft = entry.file_type();
        if ft.is_dir() {
            prefix.create_dir_all(&rel)?;
        }
        let to = prefix.prepare_entry(&rel)?;
        copy_entry(entry.path(), &to, ft)?;
    }
    Ok(())
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

    /// Issue 13, item 1: a symlink in the prefix must not let install steps
    /// write outside it.
    #[test]
    fn never_write_through_a_symlink_out_of_the_prefix() {
        let d = tempfile::tempdir().unwrap();
        let b = d.path().join("build");
        let p = d.path().join("prefix");
        let victim = d.path().join("victim");
        for dir in [&b, &p, &victim] {
            fs_err::create_dir_all(dir).unwrap();
        }
        fs_err::write(b.join("payload.txt"), "pwned").unwrap();
        fs_err::create_dir_all(b.join("tree/sub")).unwrap();
        fs_err::write(b.join("tree/sub/f"), "pwned").unwrap();
        let link = |at: &str| InstallStep::Symlink {
            target: victim.clone(),
            at: at.into(),
        };
        let attempts = [
            vec![
                link("out"),
                InstallStep::Copy {
                    from: "payload.txt".into(),
                    to: "out".into(),
                },
            ],
            vec![
                link("out"),
                InstallStep::Mkdir {
                    path: "out/x".into(),
                },
            ],
            vec![
                link("out"),
                InstallStep::Symlink {
                    target: "x".into(),
                    at: "out/y".into(),
                },
            ],
            vec![
                link("tree"),
                InstallStep::Copy {
                    from: "tree".into(),
                    to: ".".into(),
                },
            ],
            vec![
                link("d/sub"),
                InstallStep::Copy {
                    from: "tree/".into(),
                    to: "d".into(),
                },
            ],
        ];
        for steps in attempts {
            let err = run_steps(&steps, &b, &p).unwrap_err();
            assert!(
                err.to_string().contains("symbolic link"),
                "{steps:?}: {err}"
            );
            assert_eq!(
                fs_err::read_dir(&victim).unwrap().count(),
                0,
                "{steps:?} wrote outside the prefix"
            );
        }
        // The prefix itself replaced by a link is refused too.
        let moved = d.path().join("moved");
        std::os::unix::fs::symlink(&victim, &moved).unwrap();
        let err = run_steps(&[InstallStep::Mkdir { path: "x".into() }], &b, &moved).unwrap_err();
        assert!(err.to_string().contains("not a real directory"), "{err}");
        assert_eq!(fs_err::read_dir(&victim).unwrap().count(), 0);
    }
}
