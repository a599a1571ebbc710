//! `stack build IMAGE.squashfs`: rebuild an image from its own metadata.
//!
//! An image's `meta/recipe/` holds the stack recipe, the cluster
//! configuration (`cluster/cluster.yaml`), the package recipes the plan
//! used and their patches (`packages/recipes/`, `packages/patches/`, one
//! repository) and the hooks at the paths the recipe names; `meta/stack.lock`
//! the lock. Extracted, they are the inputs of a `--locked` build that gives
//! the same image, byte for byte, given the same sources.

use std::path::{Path, PathBuf};

use crate::pipeline::PipelineError;
use crate::stacks::InputOptions;

use super::OpError;

/// Where a rebuild's inputs were extracted to.
#[derive(Clone, Debug)]
pub struct RebuildInputs {
    /// Load these: the extracted recipe, cluster and repository only (no
    /// built-in recipes, no `STACK_REPOS`).
    pub options: InputOptions,
    /// The image's lock file, beside the extracted recipe.
    pub lock: PathBuf,
}

fn bad(image: &Path, message: impl Into<String>) -> OpError {
    OpError::Stage(PipelineError::from(crate::image::ImageError::BadImage {
        path: image.to_path_buf(),
        message: message.into(),
    }))
}

/// Extract `meta/` of `image` to `<work>/meta` (`work` is emptied first)
/// and say how to load what the image was built from.
pub fn rebuild_inputs(image: &Path, work: &Path) -> Result<RebuildInputs, OpError> {
    let abs = std::path::absolute(work).map_err(PipelineError::from)?;
    let work = &lexical(&abs).unwrap_or(abs);
    if work.exists() {
        fs_err::remove_dir_all(work).map_err(PipelineError::from)?;
    }
    fs_err::create_dir_all(work).map_err(PipelineError::from)?;
    let meta = crate::image::extract_meta(image, work).map_err(PipelineError::from)?;
    let recipe_dir = meta.join("recipe");
    let lock = meta.join("stack.lock");
    if !lock.is_file() {
        return Err(bad(image, "meta/stack.lock is missing"));
    }
    // The lock names the recipe's file.
    let recorded = crate::resolve::Lock::read(&lock).map_err(PipelineError::from)?;
    let name = Path::new(&recorded.recipe);
    if name.components().count() != 1
        || !matches!(
            name.components().next(),
            Some(std::path::Component::Normal(_))
        )
    {
        return Err(bad(
            image,
            format!(
                "meta/stack.lock names the recipe `{}`, not a file name",
                recorded.recipe
            ),
        ));
    }
    let recipe = &recipe_dir.join(name);
    if !recipe.is_file() {
        return Err(bad(
            image,
            format!(
                "meta/recipe/{} (the recipe meta/stack.lock names) is missing (an image built before stack recorded its inputs?)",
                recorded.recipe
            ),
        ));
    }
    let cluster = recipe_dir.join("cluster");
    if !cluster.join("cluster.yaml").is_file() {
        return Err(bad(image, "meta/recipe/cluster/cluster.yaml is missing"));
    }
    link_recipe_repos(recipe, &recipe_dir.join("packages/recipes"), work)?;
    let beside = crate::resolve::lock_path(recipe);
    fs_err::copy(&lock, &beside).map_err(PipelineError::from)?;
    let packages = recipe_dir.join("packages/recipes");
    Ok(RebuildInputs {
        options: InputOptions {
            recipe: recipe.clone(),
            cluster: Some(cluster),
            repos: if packages.is_dir() {
                vec![packages]
            } else {
                Vec::new()
            },
            env_repos: None,
            no_builtin: true,
        },
        lock: beside,
    })
}

/// The recipe's `repos:` entries, where they fall inside `work`, become
/// links to the extracted repository (the recipe names them; they must
/// exist). Entries outside (absolute paths) are left as they are.
fn link_recipe_repos(recipe: &Path, packages: &Path, work: &Path) -> Result<(), OpError> {
    use crate::diag::{Diagnostics, SourceFile, yaml};
    // The entries as written: the recipe loader drops the missing ones.
    let src = SourceFile::read(recipe).map_err(PipelineError::from)?;
    let mut diags = Diagnostics::new();
    let mut cx = yaml::Cx::new(&src, &mut diags);
    let texts: Vec<String> = yaml::parse(&src)
        .ok()
        .and_then(|root| {
            let map = cx.open_map(&root, "a stack recipe")?;
            let repos = map.get("repos")?;
            Some(cx.strings(repos, "a repository", true))
        })
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.value)
        .collect();
    let dir = recipe.parent().unwrap_or(work);
    for text in texts {
        if Path::new(&text).is_absolute() {
            continue;
        }
        let Some(at) = lexical(&dir.join(&text)) else {
            continue;
        };
        if !at.starts_with(work) || at.exists() {
            continue;
        }
        let Some(parent) = at.parent() else { continue };
        fs_err::create_dir_all(parent).map_err(PipelineError::from)?;
        // Never through a link of the image out of `work`.
        let real = fs_err::canonicalize(parent).map_err(PipelineError::from)?;
        let real_work = fs_err::canonicalize(work).map_err(PipelineError::from)?;
        if !real.starts_with(&real_work) {
            continue;
        }
        fs_err::os::unix::fs::symlink(packages, &at).map_err(PipelineError::from)?;
    }
    Ok(())
}

/// `path` with `.` and `..` resolved by name; `None` above `/`.
fn lexical(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_resolves_dots_by_name() {
        assert_eq!(
            lexical(Path::new("/w/meta/recipe/../recipes")),
            Some(PathBuf::from("/w/meta/recipes"))
        );
        assert_eq!(lexical(Path::new("/a/./b")), Some(PathBuf::from("/a/b")));
        assert_eq!(lexical(Path::new("/..")), None);
    }

    #[test]
    fn a_file_that_is_no_image_is_bad_input() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x.squashfs");
        fs_err::write(&f, b"hsqs but nothing else").unwrap();
        let e = rebuild_inputs(&f, &d.path().join("work")).unwrap_err();
        assert_eq!(e.class(), crate::pipeline::ErrorClass::Input, "{e}");
        assert!(e.to_string().contains("cannot read the image"), "{e}");
    }
}
