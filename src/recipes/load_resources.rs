//! `resources:` of an archive version: more files fetched and checksummed
//! like the main one and unpacked into the same source tree (CUDA from
//! NVIDIA's PyPI wheels: nvcc, crt, nvvm, runtime, cccl, nvtx).
//!
//! ```yaml
//! - version: "13.0.2-wheels-x86_64"
//!   url: https://files.pythonhosted.org/…/nvidia_cuda_nvcc-13.0.88-…whl
//!   sha256: …
//!   resources:
//!     - {url: https://files.pythonhosted.org/…/nvidia_cuda_crt-13.0.88-…whl, sha256: …}
//!     - {url: …/extra-data.tar.gz, sha256: …, destination: data}
//! ```
//!
//! `destination:` is a directory of the source tree (relative, no `..`)
//! the resource is unpacked into; without it, the tree's top.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Map};

use super::package::ExtraFile;
use super::read;

const KEYS: &[&str] = &["url", "sha256", "expand", "destination", "max_size"];

/// The `resources:` list of the version entry `m` (empty when absent).
pub(super) fn resources(cx: &mut Cx, m: &Map) -> Vec<ExtraFile> {
    let Some(node) = m.get("resources") else {
        return Vec::new();
    };
    let Some(items) = cx.seq(node, "`resources`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(r) = cx.map(item, "an entry of `resources`", KEYS) else {
            continue;
        };
        let Some(url) = r.get("url") else {
            cx.error(
                Code::BadSource,
                &r.loc,
                "a resource needs a `url` (with `sha256`)",
                "no `url` in this entry",
                None,
            );
            continue;
        };
        let Some((url, text)) = read::resource(cx, url, "`url`") else {
            continue;
        };
        let sha256 = r
            .get("sha256")
            .and_then(|n| read::sha256(cx, n, "`sha256`"));
        let expand = r
            .get("expand")
            .and_then(|n| cx.bool(n, "`expand`"))
            .unwrap_or(true);
        let destination = r.get("destination").and_then(|n| destination(cx, n));
        let max_size = r.get("max_size").and_then(|n| super::max_size::read(cx, n));
        out.push(ExtraFile {
            url,
            url_text: text.value,
            sha256,
            expand,
            destination,
            max_size,
            loc: text.loc,
        });
    }
    out
}

/// A `destination:`: a relative directory inside the source tree.
fn destination(cx: &mut Cx, node: &crate::diag::yaml::Node) -> Option<String> {
    use std::path::{Component, Path};
    let s = cx.nonempty_string(node, "`destination`")?;
    let p = Path::new(&s.value);
    if p.is_absolute() || p.components().any(|c| c == Component::ParentDir) {
        cx.error(
            Code::InvalidValue,
            &s.loc,
            "`destination` must be a relative directory inside the source tree",
            "leaves the source tree",
            Some("write a path relative to the unpacked main source, without `..`".into()),
        );
        return None;
    }
    // `.`, `./x/` → the normal form (`None` for the top).
    let norm: std::path::PathBuf = p
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    (!norm.as_os_str().is_empty()).then(|| norm.to_string_lossy().into_owned())
}
