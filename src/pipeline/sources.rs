//! From plan nodes to fetch requests, and from fetched sources to patched
//! source trees in `<build>/sources/`.

use std::path::{Path, PathBuf};

use petgraph::graph::NodeIndex;

use crate::fetch::{self, Fetched, SourceRequest};
use crate::patch::{self, AppliedPatch, PatchFile};
use crate::recipes::{GitRef, PatchSource, Resource};
use crate::resolve::{Node, NodeSource, Plan};

use super::PipelineError;

/// The fetch request for a node's source (`None` for externals).
pub fn source_request(node: &Node) -> Option<SourceRequest> {
    let source = match node.source.as_ref()? {
        NodeSource::Archive {
            url,
            sha256,
            expand,
            ..
        } => fetch::Source::Archive {
            url: resource_url(url),
            sha256: sha256.clone(),
            expand: *expand,
            max_size: recipe_archive(node).and_then(|a| a.max_size.as_ref().map(|m| m.bytes)),
        },
        NodeSource::Git {
            repo,
            reference,
            commit,
            submodules,
            ..
        } => fetch::Source::Git {
            url: resource_url(repo),
            reference: fetch_ref(reference),
            commit: commit.clone(),
            submodules: *submodules,
        },
    };
    Some(SourceRequest {
        mirror_name: None,
        package: node.name.clone(),
        version: node.version.to_string(),
        source,
    })
}

/// Whether the node's version has `source: none` (nothing to fetch).
pub fn sourceless(node: &Node) -> bool {
    node.external.is_none()
        && node
            .recipe
            .version(&node.version)
            .is_some_and(|v| matches!(v.source, crate::recipes::Source::None))
}

/// The recipe's archive source of the node's version (for `max_size:`).
fn recipe_archive(node: &Node) -> Option<&crate::recipes::ArchiveSource> {
    match &node.recipe.version(&node.version)?.source {
        crate::recipes::Source::Archive(a) => Some(a),
        crate::recipes::Source::Git(_) | crate::recipes::Source::None => None,
    }
}

/// Fetch requests for the resources of a node's source, in order. Named
/// `<name>-resource@<sha256[..12]>` (a git resource by its commit) for
/// messages and mirror paths (the content-addressed mirror path works as
/// for any archive, a git resource's tarball as for any git source).
pub fn resource_requests(node: &Node) -> Vec<SourceRequest> {
    let Some(source) = &node.source else {
        return Vec::new();
    };
    source
        .resources()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let pinned = r.git.as_ref().and_then(|g| g.pinned());
            let version = match (&r.sha256, pinned) {
                (Some(sha), _) => sha[..12].to_string(),
                (None, Some(commit)) => commit[..12.min(commit.len())].to_string(),
                (None, None) => format!("{}-{i}", node.version),
            };
            let source = match &r.git {
                Some(g) => fetch::Source::Git {
                    url: resource_url(&r.url),
                    reference: fetch_ref(&g.reference),
                    commit: pinned.map(str::to_string),
                    submodules: g.submodules,
                },
                None => fetch::Source::Archive {
                    url: resource_url(&r.url),
                    sha256: r.sha256.clone(),
                    expand: r.expand,
                    max_size: r.max_size,
                },
            };
            // Spack's mirror path of a resource: `<package>/<resource>-<version>`.
            let mirror_name = r
                .name
                .as_ref()
                .map(|n| format!("{}/{}-{}", node.name, n.replace('/', "_"), node.version));
            SourceRequest {
                mirror_name,
                package: format!("{}-resource", node.name),
                version,
                source,
            }
        })
        .collect()
}

fn fetch_ref(r: &GitRef) -> fetch::GitRef {
    match r {
        GitRef::Tag(t) => fetch::GitRef::Tag(t.clone()),
        GitRef::Branch(b) => fetch::GitRef::Branch(b.clone()),
        GitRef::Commit(c) => fetch::GitRef::Commit(c.clone()),
    }
}

/// `e` with the recipe line of each source whose sha256 did not match
/// (found through the plan node the request was made for).
pub fn with_recipe_lines(mut e: fetch::FetchError, plan: &Plan) -> fetch::FetchError {
    fill_recipe_lines(&mut e, plan);
    e
}

fn fill_recipe_lines(e: &mut fetch::FetchError, plan: &Plan) {
    match e {
        fetch::FetchError::ChecksumMismatch {
            package, recipe, ..
        } if recipe.is_none() => {
            let node = plan
                .graph
                .node_weights()
                .find(|n| format!("{}@{}", n.name, n.version) == **package);
            *recipe = node.and_then(|n| {
                let entry = n.recipe.version(&n.version)?;
                let at = match &entry.source {
                    crate::recipes::Source::Archive(a) => a.loc.to_string(),
                    _ => entry.loc.to_string(),
                };
                Some(at.into())
            });
        }
        fetch::FetchError::AllLocationsFailed { attempts, .. } => {
            for (_, e) in attempts {
                fill_recipe_lines(e, plan);
            }
        }
        _ => {}
    }
}

/// Fetch requests for patches given by URL (fetched like sources, kept as files).
pub fn patch_requests(node: &Node) -> Vec<SourceRequest> {
    node.patches
        .iter()
        .filter_map(|p| match &p.source {
            PatchSource::Url(url) => Some(SourceRequest {
                mirror_name: None,
                package: format!("{}-patch", node.name),
                version: p.sha256[..12].to_string(),
                source: fetch::Source::Archive {
                    url: url.value.clone(),
                    sha256: Some(p.sha256.clone()),
                    expand: false,
                    max_size: None,
                },
            }),
            PatchSource::File(_) => None,
        })
        .collect()
}

fn resource_url(r: &Resource) -> String {
    match r {
        Resource::Remote(u) => u.clone(),
        Resource::Local(p) => p.display().to_string(),
    }
}

/// `<build>/sources/<name>-<version>-<hash8>`.
pub fn source_dir(build_dir: &Path, node: &Node) -> PathBuf {
    build_dir.join("sources").join(format!(
        "{}-{}-{}",
        node.name,
        node.version,
        node.short_hash()
    ))
}

/// What `meta/recipe/` of the image holds: the stack recipe, the cluster
/// configuration (`cluster/cluster.yaml`) and the package recipes the plan
/// uses with their patch files, as one repository (`packages/recipes/`,
/// `packages/patches/`), so the image carries everything it was built from.
pub fn recipe_files(plan: &Plan, inputs: &crate::stacks::Inputs) -> Vec<crate::view::CopyFile> {
    use crate::view::CopyFile;
    let recipe = &inputs.recipe;
    let mut out = vec![CopyFile {
        from: recipe.file.clone(),
        to: PathBuf::from(recipe.file.file_name().unwrap_or_default()),
    }];
    out.push(CopyFile {
        from: inputs.cluster.file.clone(),
        to: PathBuf::from("cluster/cluster.yaml"),
    });
    // Hooks and `extra/` where the recipe names them, so that the copy of
    // the recipe finds them (`stack build IMAGE.squashfs`).
    for r in [&recipe.pre_install, &recipe.post_install, &recipe.extra]
        .into_iter()
        .flatten()
    {
        if let Some(to) = below(&r.text) {
            out.push(CopyFile {
                from: r.path.clone(),
                to,
            });
        }
    }
    // Every recipe the stack reaches, externals' and providers' too (they
    // take part in resolving).
    for name in &inputs.packages {
        if let Some(file) = inputs.repo.file(name) {
            out.push(CopyFile {
                from: file.to_path_buf(),
                to: PathBuf::from(format!("packages/recipes/{name}.yaml")),
            });
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut nodes: Vec<&Node> = plan
        .graph
        .node_weights()
        .filter(|n| !n.is_external())
        .collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    for n in nodes {
        if !seen.insert(n.name.clone()) {
            continue;
        }
        // Package files (`system: spack`), below `packages/spack/` as
        // they are below `spack/` beside the repository.
        for f in n.recipe.build.system.package_files() {
            if crate::build_logic::module_name(&f.file).is_some() {
                out.push(CopyFile {
                    from: f.path.clone(),
                    to: Path::new("packages/spack").join(&f.file),
                });
            }
        }
        for p in &n.patches {
            if let PatchSource::File(f) = &p.source {
                let rel = Path::new(&f.text);
                if rel.is_relative() && !rel.components().any(|c| c.as_os_str() == "..") {
                    out.push(CopyFile {
                        from: f.path.clone(),
                        to: Path::new("packages/patches").join(rel),
                    });
                }
            }
        }
    }
    out
}

/// `text` as a path relative to the recipe's directory that stays below
/// it, else `None` (an absolute or `..` path cannot be laid out again).
fn below(text: &str) -> Option<PathBuf> {
    let p = Path::new(text);
    let normal = p.components().all(|c| {
        matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    let rel: PathBuf = p
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    (normal && !rel.as_os_str().is_empty()).then_some(rel)
}

/// Remove source trees in `<build>/sources/` that no node of `plan` uses
/// (old hashes accumulate there otherwise); returns what was removed.
pub fn prune_sources(plan: &Plan, build_dir: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    let dir = build_dir.join("sources");
    let Ok(entries) = fs_err::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let keep: std::collections::BTreeSet<PathBuf> = plan
        .graph
        .node_weights()
        .filter(|n| !n.is_external())
        .map(|n| source_dir(build_dir, n))
        .collect();
    let mut removed = Vec::new();
    for entry in entries {
        let path = entry?.path();
        if keep.contains(&path) {
            continue;
        }
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => fs_err::remove_dir_all(&path)?,
            Ok(_) => fs_err::remove_file(&path)?,
            Err(_) => continue,
        }
        removed.push(path);
    }
    removed.sort();
    Ok(removed)
}

/// Stage `fetched` for `node` into a fresh source dir, unpack its
/// `resources` (already fetched, in order) into the same tree, and apply its
/// patches (URL patches come from `url_patches`, already fetched, in order).
pub fn stage_and_patch(
    plan: &Plan,
    idx: NodeIndex,
    fetched: &Fetched,
    resources: &[Fetched],
    url_patches: &[Fetched],
    build_dir: &Path,
) -> Result<(PathBuf, Vec<AppliedPatch>), PipelineError> {
    let node = plan.node(idx);
    let dir = source_dir(build_dir, node);
    if dir.exists() {
        fs_err::remove_dir_all(&dir)?;
    }
    fetch::stage(fetched, &dir)?;
    let wanted = node.source.as_ref().map_or(&[][..], |s| s.resources());
    for (i, r) in resources.iter().enumerate() {
        let Some(spec) = wanted.get(i) else {
            return Err(PipelineError::Internal(format!(
                "resource {i} of {} has no recipe entry",
                node.name
            )));
        };
        let tmp = dir.with_extension(format!("resource-{i}"));
        if tmp.exists() {
            fs_err::remove_dir_all(&tmp)?;
        }
        let staged = fetch::stage(r, &tmp)?;
        super::merge::place(&dir, &tmp, staged.stripped.as_deref(), spec)?;
        if tmp.exists() {
            fs_err::remove_dir_all(&tmp)?;
        }
    }
    let mut files = Vec::new();
    let mut url_iter = url_patches.iter();
    for p in &node.patches {
        let path = match &p.source {
            PatchSource::File(f) => f.path.clone(),
            PatchSource::Url(_) => match url_iter.next().map(|f| &f.content) {
                Some(fetch::FetchedContent::File { path, .. }) => path.clone(),
                _ => {
                    return Err(PipelineError::Internal(format!(
                        "URL patch of {} was not fetched",
                        node.name
                    )));
                }
            },
        };
        files.push(PatchFile {
            path,
            sha256: p.sha256.clone(),
            level: p.level,
            working_dir: p.working_dir.clone(),
        });
    }
    let applied = patch::apply(&node.label(), &dir, &files)?;
    Ok((dir, applied))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_below_the_recipe_are_laid_out_again() {
        assert_eq!(
            below("demo/hooks/x.sh"),
            Some(PathBuf::from("demo/hooks/x.sh"))
        );
        assert_eq!(below("./x.sh"), Some(PathBuf::from("x.sh")));
        assert_eq!(below("../x.sh"), None);
        assert_eq!(below("/etc/x.sh"), None);
        assert_eq!(below(""), None);
        assert_eq!(below("."), None);
    }
}
