//! From plan nodes to fetch requests, and from fetched sources to patched
//! source trees in `<build>/sources/`.

use std::path::{Path, PathBuf};

use petgraph::graph::NodeIndex;

use crate::fetch::{self, Fetched, SourceRequest};
use crate::patch::{self, AppliedPatch, PatchFile};
use crate::repo::{GitRef, PatchSource, Resource};
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
        },
        NodeSource::Git {
            repo,
            reference,
            commit,
            submodules,
            ..
        } => fetch::Source::Git {
            url: resource_url(repo),
            reference: match reference {
                GitRef::Tag(t) => fetch::GitRef::Tag(t.clone()),
                GitRef::Branch(b) => fetch::GitRef::Branch(b.clone()),
                GitRef::Commit(c) => fetch::GitRef::Commit(c.clone()),
            },
            commit: commit.clone(),
            submodules: *submodules,
        },
    };
    Some(SourceRequest {
        package: node.name.clone(),
        version: node.version.to_string(),
        source,
    })
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
                    crate::repo::Source::Archive(a) => a.loc.to_string(),
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
                package: format!("{}-patch", node.name),
                version: p.sha256[..12].to_string(),
                source: fetch::Source::Archive {
                    url: url.value.clone(),
                    sha256: Some(p.sha256.clone()),
                    expand: false,
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

/// Stage `fetched` for `node` into a fresh source dir and apply its patches
/// (URL patches come from `patch_files`, already fetched, in order).
pub fn stage_and_patch(
    plan: &Plan,
    idx: NodeIndex,
    fetched: &Fetched,
    url_patches: &[Fetched],
    build_dir: &Path,
) -> Result<(PathBuf, Vec<AppliedPatch>), PipelineError> {
    let node = plan.node(idx);
    let dir = source_dir(build_dir, node);
    if dir.exists() {
        fs_err::remove_dir_all(&dir)?;
    }
    fetch::stage(fetched, &dir)?;
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
        });
    }
    let applied = patch::apply(&node.label(), &dir, &files)?;
    Ok((dir, applied))
}
