//! `stack find BUILD|IMAGE [SPEC]`: what a build or image holds, from its
//! lock file, optionally only the packages that satisfy a spec.

use std::path::Path;

use serde_json::Value;

use crate::resolve::Lock;
use crate::resolve::render::JsonNode;
use crate::spec::{Spec, SpecParseError};

use super::diff::{DiffError, locate};

/// Why `stack find` cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Locate(#[from] DiffError),
    #[error("`{text}` is not a spec: {source}")]
    Spec {
        text: String,
        #[source]
        source: Box<SpecParseError>,
    },
}

/// One installed package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// `name@version +variant key=value …`.
    pub spec: String,
    pub hash: String,
    pub prefix: String,
    pub external: bool,
}

/// The packages of the build or image at `path` (or of a lock file) that
/// satisfy `query` (all when `None`), sorted by name.
pub fn find_installed(path: &Path, query: Option<&str>) -> Result<Vec<Installed>, FindError> {
    let side = locate(path)?;
    let lock = Lock::read(&side.lock).map_err(|e| DiffError::Lock(Box::new(e)))?;
    let query = query
        .map(|q| {
            Spec::parse(q).map_err(|source| FindError::Spec {
                text: q.to_string(),
                source: Box::new(source),
            })
        })
        .transpose()?;
    let mut out: Vec<Installed> = lock
        .nodes
        .iter()
        .filter(|n| {
            query
                .as_ref()
                .is_none_or(|q| Spec::parse(&concrete(n)).is_ok_and(|s| s.satisfies(q)))
        })
        .map(|n| Installed {
            spec: display(n),
            hash: n.hash.clone(),
            prefix: n.prefix.clone(),
            external: n.external,
        })
        .collect();
    out.sort_by(|a, b| a.spec.cmp(&b.spec));
    Ok(out)
}

/// The variants as spec text (`+a ~b k=v k=x,y`).
fn variants(n: &JsonNode) -> String {
    n.variants
        .iter()
        .map(|(k, v)| match v {
            Value::Bool(true) => format!("+{k}"),
            Value::Bool(false) => format!("~{k}"),
            Value::Array(a) => format!(
                "{k}={}",
                a.iter()
                    .map(|x| x.as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => format!("{k}={}", other.as_str().unwrap_or_default()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The node as a concrete spec (exact version).
fn concrete(n: &JsonNode) -> String {
    format!("{}@={} {}", n.name, n.version, variants(n))
}

fn display(n: &JsonNode) -> String {
    format!("{}@{} {}", n.name, n.version, variants(n))
        .trim_end()
        .to_string()
}

/// What `stack find` cannot find or parse is the input's fault.
impl crate::diag::Classify for FindError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::ErrorClass::Input
    }
}
