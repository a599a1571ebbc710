//! Merging a staged resource tree into a package's source tree (the wheels
//! of a CUDA toolkit all unpack below `nvidia/cu13/`), laid out as its
//! `destination`, `placement` and `strip` say.

use std::path::Path;

use crate::recipes::Placement;
use crate::resolve::NodeResource;

use super::PipelineError;

fn other(msg: String) -> PipelineError {
    PipelineError::Io(std::io::Error::other(msg))
}

/// Move the staged resource `staged` (its single top-level directory
/// `stripped` removed, if it had one) into the source tree `tree` as `r`
/// says: below its `destination`, merged (`Placement::Merge`), as the
/// directory `placement` (`Placement::Dir`), or path by path
/// (`Placement::Files`); with `strip: false` the top-level directory keeps
/// its name.
pub fn place(
    tree: &Path,
    staged: &Path,
    stripped: Option<&str>,
    r: &NodeResource,
) -> Result<(), PipelineError> {
    let into = match &r.destination {
        Some(d) => inside(tree, d)?,
        None => tree.to_path_buf(),
    };
    // The unpacked tree as it is placed: with its top directory kept, the
    // content sits one level down.
    if let (false, Some(top)) = (r.strip, stripped) {
        let mut name = staged.file_name().unwrap_or_default().to_os_string();
        name.push("-top");
        let wrap = staged.with_file_name(name);
        if wrap.exists() {
            fs_err::remove_dir_all(&wrap)?;
        }
        fs_err::create_dir_all(&wrap)?;
        fs_err::rename(staged, wrap.join(top))?;
        fs_err::rename(&wrap, staged)?;
    }
    match &r.placement {
        Placement::Merge => merge_tree(staged, &into),
        Placement::Dir(name) => {
            fs_err::create_dir_all(&into)?;
            merge_tree(staged, &inside(&into, name.as_str())?)
        }
        Placement::Files(files) => {
            fs_err::create_dir_all(&into)?;
            for (from, to) in files {
                let src = inside(staged, from.as_str())?;
                if fs_err::symlink_metadata(&src).is_err() {
                    return Err(other(format!(
                        "resource {}: placement names `{from}`, which it does not have (it has: {})",
                        r.url_text,
                        listing(staged)
                    )));
                }
                let dst = inside(&into, to.as_str())?;
                if let Some(parent) = dst.parent() {
                    fs_err::create_dir_all(parent)?;
                }
                if fs_err::symlink_metadata(&src)?.is_dir() {
                    merge_tree(&src, &dst)?;
                } else if fs_err::symlink_metadata(&dst).is_ok() {
                    return Err(other(format!(
                        "{} is provided by two sources of the package (the main source or an earlier resource, and {})",
                        dst.display(),
                        r.url_text
                    )));
                } else {
                    fs_err::rename(&src, &dst)?;
                }
            }
            Ok(())
        }
    }
}

/// The names at the top of `dir`, for messages.
fn listing(dir: &Path) -> String {
    let mut names: Vec<String> = fs_err::read_dir(dir)
        .map(|it| {
            it.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.join(", ")
}

/// `tree/rel` (a resource's `destination:`, relative without `..`), refusing
/// a path that goes through a symbolic link of the tree (it could lead out).
pub fn inside(tree: &Path, rel: &str) -> Result<std::path::PathBuf, PipelineError> {
    let mut at = tree.to_path_buf();
    for c in Path::new(rel).components() {
        let std::path::Component::Normal(c) = c else {
            return Err(PipelineError::Io(std::io::Error::other(format!(
                "resource destination `{rel}` is not a relative path inside the source tree"
            ))));
        };
        at.push(c);
        if fs_err::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(PipelineError::Io(std::io::Error::other(format!(
                "resource destination `{rel}`: {} is a symbolic link in the source tree",
                at.display()
            ))));
        }
    }
    Ok(at)
}

/// Moves everything below `from` into `into`: directories present in both
/// are merged, anything else is renamed into place. A file or link that
/// exists in both is an error (two resources must not disagree on a path).
pub fn merge_tree(from: &Path, into: &Path) -> Result<(), PipelineError> {
    fs_err::create_dir_all(into)?;
    let mut entries: Vec<_> = fs_err::read_dir(from)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let src = e.path();
        let dst = into.join(e.file_name());
        let is_dir = e.file_type()?.is_dir();
        match fs_err::symlink_metadata(&dst) {
            Ok(m) if m.is_dir() && is_dir => merge_tree(&src, &dst)?,
            Ok(_) => {
                return Err(PipelineError::Io(std::io::Error::other(format!(
                    "{} is provided by two sources of the package (the main source or an earlier resource, and {})",
                    dst.display(),
                    from.display()
                ))));
            }
            Err(_) => fs_err::rename(&src, &dst)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_merge_and_clashing_files_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        for (root, file) in [
            (&a, "nvidia/cu13/bin/nvcc"),
            (&b, "nvidia/cu13/include/crt/x.h"),
        ] {
            let p = root.join(file);
            fs_err::create_dir_all(p.parent().unwrap()).unwrap();
            fs_err::write(&p, file).unwrap();
        }
        fs_err::create_dir_all(b.join("nvidia_cuda_crt.dist-info")).unwrap();
        merge_tree(&b, &a).unwrap();
        assert!(a.join("nvidia/cu13/bin/nvcc").is_file());
        assert!(a.join("nvidia/cu13/include/crt/x.h").is_file());
        assert!(a.join("nvidia_cuda_crt.dist-info").is_dir());

        let c = t.path().join("c");
        fs_err::create_dir_all(c.join("nvidia/cu13/bin")).unwrap();
        fs_err::write(c.join("nvidia/cu13/bin/nvcc"), "other").unwrap();
        let err = merge_tree(&c, &a).unwrap_err().to_string();
        assert!(err.contains("nvidia/cu13/bin/nvcc"), "{err}");
    }

    fn resource(placement: Placement, strip: bool) -> NodeResource {
        NodeResource {
            name: None,
            url: crate::recipes::Resource::Remote("https://example.org/r.tgz".into()),
            url_text: "https://example.org/r.tgz".into(),
            git: None,
            sha256: None,
            expand: true,
            strip,
            destination: Some("deps".into()),
            placement,
            max_size: None,
        }
    }

    /// A staged resource tree `<t>/<name>` holding `files`.
    fn staged(t: &Path, name: &str, files: &[&str]) -> std::path::PathBuf {
        let dir = t.join(name);
        for f in files {
            let p = dir.join(f);
            fs_err::create_dir_all(p.parent().unwrap()).unwrap();
            fs_err::write(&p, f).unwrap();
        }
        dir
    }

    #[test]
    fn placements_lay_out_a_resource_as_spack_does() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("src");
        fs_err::create_dir_all(&tree).unwrap();
        let dir = Placement::Dir("extra".into());
        place(
            &tree,
            &staged(t.path(), "a", &["x.h"]),
            Some("extra-2.0"),
            &resource(dir, true),
        )
        .unwrap();
        assert!(tree.join("deps/extra/x.h").is_file());
        let kept = resource(Placement::Merge, false);
        place(
            &tree,
            &staged(t.path(), "b", &["k.txt"]),
            Some("kept-1.0"),
            &kept,
        )
        .unwrap();
        assert!(tree.join("deps/kept-1.0/k.txt").is_file());
        let files = Placement::Files(vec![("n.bin".into(), "share/n.txt".into())]);
        let r = resource(files, true);
        place(&tree, &staged(t.path(), "c", &["n.bin"]), None, &r).unwrap();
        assert!(tree.join("deps/share/n.txt").is_file());
        let err = place(&tree, &staged(t.path(), "d", &["other.bin"]), None, &r).unwrap_err();
        insta::assert_snapshot!(err.to_string(), @"resource https://example.org/r.tgz: placement names `n.bin`, which it does not have (it has: other.bin)");
    }

    #[test]
    fn destinations_stay_inside_the_tree() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("src");
        fs_err::create_dir_all(tree.join("data")).unwrap();
        std::os::unix::fs::symlink("/etc", tree.join("out")).unwrap();
        assert_eq!(inside(&tree, "data/x").unwrap(), tree.join("data/x"));
        let err = inside(&tree, "out/x").unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        let err = inside(&tree, "../x").unwrap_err().to_string();
        assert!(err.contains("not a relative path"), "{err}");
    }
}
