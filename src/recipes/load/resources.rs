//! `resources:`: more files fetched and checksummed like the main source
//! (or git repositories checked out at a commit) and unpacked into the same
//! source tree. A version entry may list its own (CUDA from NVIDIA's PyPI
//! wheels: nvcc, crt, nvvm, runtime, cccl, nvtx); the package may list
//! resources for every version, each used only by the nodes that meet its
//! `when:` (Spack's `resource(…)` directive).
//!
//! ```yaml
//! versions:
//!   - version: "13.0.2-wheels-x86_64"
//!     url: https://files.pythonhosted.org/…/nvidia_cuda_nvcc-13.0.88-…whl
//!     sha256: …
//!     resources:
//!       - {url: https://files.pythonhosted.org/…/nvidia_cuda_crt-13.0.88-…whl, sha256: …}
//!       - {url: …/extra-data.tar.gz, sha256: …, destination: data}
//! resources:
//!   - {name: manpages, url: …/manpages-2.40.0.tar.gz, sha256: …, placement: manpages, when: "@2.40.0 +man"}
//!   - {name: deps, git: https://…/psimd.git, commit: …, destination: deps, placement: psimd}
//! ```
//!
//! `destination:` is a directory of the source tree (relative, no `..`)
//! the resource goes into; without it, the tree's top. `placement:` renames
//! what was unpacked (a directory name, or a mapping of its paths).

use crate::diag::Code;
use crate::diag::yaml::{Cx, Map, Node};

use super::super::package::{ExtraFile, Placement, ResourceGit};
use super::super::read;

const KEYS: &[&str] = &[
    "name",
    "url",
    "git",
    "tag",
    "branch",
    "commit",
    "submodules",
    "sha256",
    "expand",
    "strip",
    "destination",
    "placement",
    "when",
    "max_size",
];

/// The `resources:` list of the version entry `m` (empty when absent).
pub(super) fn resources(cx: &mut Cx, m: &Map) -> Vec<ExtraFile> {
    match m.get("resources") {
        Some(node) => list(cx, node),
        None => Vec::new(),
    }
}

/// The package-level `resources:` list.
pub(super) fn package_resources(cx: &mut Cx, node: &Node) -> Vec<ExtraFile> {
    list(cx, node)
}

fn list(cx: &mut Cx, node: &Node) -> Vec<ExtraFile> {
    let Some(items) = cx.seq(node, "`resources`") else {
        return Vec::new();
    };
    items.iter().filter_map(|item| entry(cx, item)).collect()
}

fn entry(cx: &mut Cx, item: &Node) -> Option<ExtraFile> {
    let r = cx.map(item, "an entry of `resources`", KEYS)?;
    let (url, text, git) = match (r.get("url"), r.get("git")) {
        (Some(url), None) => {
            for key in ["tag", "branch", "commit", "submodules"] {
                misplaced(cx, &r, key, "a `git` resource");
            }
            let (url, text) = read::resource(cx, url, "`url`")?;
            (url, text, None)
        }
        (None, Some(git)) => {
            for key in ["sha256", "expand", "strip", "max_size"] {
                misplaced(cx, &r, key, "a `url` resource");
            }
            let (url, text) = read::resource(cx, git, "`git`")?;
            let (reference, commit, submodules) =
                super::versions::git_revision(cx, &r, &text.loc, "a git resource")?;
            let git = ResourceGit {
                reference,
                commit,
                submodules,
            };
            (url, text, Some(git))
        }
        (Some(_), Some(git)) => {
            let loc = cx.loc(git);
            cx.error(
                Code::BadSource,
                &loc,
                "a resource has both `url` and `git`",
                "second source here",
                Some("list them as two resources".into()),
            );
            return None;
        }
        (None, None) => {
            cx.error(
                Code::BadSource,
                &r.loc,
                "a resource needs a `url` (with `sha256`) or a `git` repository (with `commit`)",
                "no `url` or `git` in this entry",
                None,
            );
            return None;
        }
    };
    let name = r
        .get("name")
        .and_then(|n| cx.nonempty_string(n, "`name`"))
        .map(|s| s.value);
    let sha256 = r
        .get("sha256")
        .and_then(|n| read::sha256(cx, n, "`sha256`"));
    let flag = |cx: &mut Cx, key: &str| {
        r.get(key)
            .and_then(|n| cx.bool(n, &format!("`{key}`")))
            .unwrap_or(true)
    };
    let expand = flag(cx, "expand");
    let strip = flag(cx, "strip");
    let destination = r
        .get("destination")
        .and_then(|n| tree_dir(cx, n, "`destination`"));
    let placement = r
        .get("placement")
        .and_then(|n| placement(cx, n))
        .unwrap_or_default();
    let when = r.get("when").and_then(|n| read::when(cx, n));
    let max_size = r
        .get("max_size")
        .and_then(|n| super::super::max_size::read(cx, n));
    Some(ExtraFile {
        name,
        url,
        url_text: text.value,
        git,
        sha256,
        expand,
        strip,
        destination,
        placement,
        when,
        max_size,
        loc: text.loc,
    })
}

fn misplaced(cx: &mut Cx, r: &Map, key: &str, belongs: &str) {
    if let Some(k) = r.key_node(key) {
        let loc = cx.scalar_loc(k);
        cx.error(
            Code::BadSource,
            &loc,
            format!("`{key}` belongs to {belongs}"),
            "not used by this resource",
            None,
        );
    }
}

/// A `placement:`: a directory name, or a mapping of paths of the unpacked
/// tree to paths below the destination.
fn placement(cx: &mut Cx, node: &Node) -> Option<Placement> {
    if let Node::Mapping(_) = node {
        let m = cx.open_map(node, "`placement`")?;
        let mut out = Vec::new();
        for (key, value) in m.entries() {
            let from = key.as_str().to_string();
            let from_ok = plain_file_name(&from) || relative_inside(&from).is_some();
            if !from_ok {
                let loc = cx.scalar_loc(key);
                bad_path(cx, &loc, "a `placement` key", "path");
                continue;
            }
            let to = tree_path(cx, value, "a `placement` value", "path")?;
            out.push((from, to));
        }
        return (!out.is_empty()).then_some(Placement::Files(out));
    }
    tree_dir(cx, node, "`placement`").map(Placement::Dir)
}

/// A file name as a download names it (`extension-functions.c?get=25`):
/// one path component.
fn plain_file_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\0'])
}

/// A relative directory (or file) inside the source tree, in normal form
/// (`None` for its top, `.`).
pub(super) fn tree_dir(cx: &mut Cx, node: &Node, what: &str) -> Option<String> {
    tree_path(cx, node, what, "directory")
}

fn tree_path(cx: &mut Cx, node: &Node, what: &str, noun: &str) -> Option<String> {
    let s = cx.nonempty_string(node, what)?;
    match relative_inside(&s.value) {
        Some(norm) => (!norm.is_empty()).then_some(norm),
        None => {
            bad_path(cx, &s.loc, what, noun);
            None
        }
    }
}

fn bad_path(cx: &mut Cx, loc: &crate::diag::Loc, what: &str, noun: &str) {
    cx.error(
        Code::InvalidValue,
        loc,
        format!("{what} must be a relative {noun} inside the source tree"),
        "leaves the source tree",
        Some("write a path relative to the unpacked main source, without `..`".into()),
    );
}

/// `p` in normal form (`./x/` → `x`, `.` → empty) when it is relative and
/// has no `..`.
fn relative_inside(p: &str) -> Option<String> {
    use std::path::{Component, Path};
    let path = Path::new(p);
    if path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
        return None;
    }
    let norm: std::path::PathBuf = path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    Some(norm.to_string_lossy().into_owned())
}
