//! `stack resolve --format json`: `{"nodes": [...]}`, one object per node
//! with exactly `name`, `version`, `hash`, `prefix`, `external`,
//! `variants`, `patches`, `source`, `deps` and `compiler` (`spec`,
//! `origin`: `cluster` or `stack`, `identity`; `null` for externals). The same node objects make up
//! `stack.lock`. An archive source with `resources:` lists them under
//! `resources` (`url`, `sha256`, `expand`, `destination`: `.` for the
//! source tree's top), in the order they are unpacked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::recipes::{GitRef, PatchSource, VariantKind};
use crate::spec::VariantValue;

use super::super::model::{CompilerOrigin, Node, NodeCompiler, NodeResource, NodeSource, Plan};

/// A node as written in JSON output and in `stack.lock`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonNode {
    pub name: String,
    pub version: String,
    /// SHA-256 of the build inputs (64 hex digits).
    pub hash: String,
    pub prefix: String,
    /// An external installation (`prefix` is where it lives).
    pub external: bool,
    /// Every variant: a boolean, a string (single-valued) or a list of
    /// strings (multi-valued).
    pub variants: BTreeMap<String, serde_json::Value>,
    pub patches: Vec<JsonPatch>,
    /// `null` for externals.
    pub source: Option<JsonSource>,
    pub deps: Vec<JsonDep>,
    /// The compiler the node is built with; `null` for externals.
    pub compiler: Option<JsonCompiler>,
    /// The languages built with another compiler (`%fortran=nvhpc`); left
    /// out when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub languages: BTreeMap<String, JsonCompiler>,
    /// The spec's compiler flags (`{"cflags": ["-fPIC"]}`); left out when
    /// there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flags: BTreeMap<String, Vec<String>>,
}

/// A compiler of the plan: a cluster compiler or one the stack builds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonCompiler {
    /// `gcc@12.2.0`
    pub spec: String,
    /// `cluster` or `stack` (built by this stack).
    pub origin: String,
    /// A cluster compiler's `cc` path and fingerprint, or the hash of the
    /// compiler node the stack builds.
    pub identity: String,
}

impl JsonCompiler {
    pub fn of(c: &NodeCompiler) -> JsonCompiler {
        JsonCompiler {
            spec: c.to_string(),
            origin: match c.origin {
                CompilerOrigin::System { .. } => "cluster".into(),
                CompilerOrigin::Built { .. } => "stack".into(),
            },
            identity: match &c.origin {
                CompilerOrigin::System { identity } => identity.clone(),
                CompilerOrigin::Built { hash } => hash.clone(),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonPatch {
    /// Absolute path of a patch file …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// … or the URL of a downloaded patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub sha256: String,
    pub level: u32,
    /// The directory of the source tree it applies in (absent: the top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum JsonSource {
    Archive {
        /// A URL, or an absolute path for local files.
        url: String,
        sha256: Option<String>,
        expand: bool,
        /// More files unpacked into the same tree (absent when none: the
        /// key is new in lock_version 3).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        resources: Vec<JsonResource>,
    },
    Git {
        /// A URL, or an absolute path for local repositories.
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tag: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
        /// The commit checked out; `null` while a branch or tag is not
        /// resolved yet.
        commit: Option<String>,
        submodules: bool,
        /// Resources unpacked into the checkout (absent when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        resources: Vec<JsonResource>,
    },
}

/// One of a source's `resources:`. The keys after `destination` are
/// present only when they say something (a git resource, a placement, a
/// kept top-level directory), so locks of plain resources keep their form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonResource {
    /// A URL (a git repository's with `git`), or an absolute path for local files.
    pub url: String,
    pub sha256: Option<String>,
    pub expand: bool,
    /// The directory of the source tree it is unpacked into (`.`: the top).
    pub destination: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A git resource: `{"tag"|"branch"|"commit": …, "commit": …, "submodules": …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<serde_json::Value>,
    /// `placement:`: a directory name or a mapping of paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<serde_json::Value>,
    /// `false`: an archive's top-level directory is kept.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub strip: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl JsonResource {
    fn of(r: &NodeResource) -> JsonResource {
        JsonResource {
            url: r.url.to_string(),
            sha256: r.sha256.clone(),
            expand: r.expand,
            destination: r.destination.clone().unwrap_or_else(|| ".".into()),
            name: r.name.clone(),
            git: r.git.as_ref().map(resource_git),
            placement: placement_json(&r.placement),
            strip: r.strip,
        }
    }
}

/// A git resource's revision as JSON.
pub(crate) fn resource_git(g: &crate::recipes::ResourceGit) -> serde_json::Value {
    let mut v = match &g.reference {
        GitRef::Tag(t) => serde_json::json!({"tag": t}),
        GitRef::Branch(b) => serde_json::json!({"branch": b}),
        GitRef::Commit(c) => serde_json::json!({"commit": c}),
    };
    if let Some(c) = &g.commit {
        v["commit"] = serde_json::json!(c);
    }
    v["submodules"] = serde_json::json!(g.submodules);
    v
}

/// A `placement:` as JSON (`None` for the default).
pub(crate) fn placement_json(p: &crate::recipes::Placement) -> Option<serde_json::Value> {
    use crate::recipes::Placement;
    match p {
        Placement::Merge => None,
        Placement::Dir(d) => Some(serde_json::json!(d)),
        Placement::Files(files) => Some(serde_json::Value::Object(
            files
                .iter()
                .map(|(f, t)| (f.clone(), serde_json::json!(t)))
                .collect(),
        )),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonDep {
    pub name: String,
    pub hash: String,
    /// `build`, `link`, `run`.
    #[serde(rename = "type")]
    pub types: Vec<String>,
}

/// The JSON value of a variant (single-valued variants as a string).
pub fn variant_value(node: &Node, name: &str, v: &VariantValue) -> serde_json::Value {
    match v {
        VariantValue::Bool(b) => serde_json::Value::Bool(*b),
        VariantValue::Values(vals) => {
            let single = node
                .recipe
                .variant(name)
                .is_some_and(|d| matches!(d.kind, VariantKind::Single { .. }));
            if single && vals.len() == 1 {
                serde_json::Value::String(vals.iter().next().cloned().unwrap_or_default())
            } else {
                serde_json::Value::Array(
                    vals.iter()
                        .map(|s| serde_json::Value::String(s.clone()))
                        .collect(),
                )
            }
        }
    }
}

/// A node of `plan` as a JSON object.
pub fn json_node(plan: &Plan, idx: petgraph::graph::NodeIndex) -> JsonNode {
    let n = plan.node(idx);
    let source = n.source.as_ref().map(|s| match s {
        NodeSource::Archive {
            url,
            sha256,
            expand,
            resources,
            ..
        } => JsonSource::Archive {
            url: url.to_string(),
            sha256: sha256.clone(),
            expand: *expand,
            resources: resources.iter().map(JsonResource::of).collect(),
        },
        NodeSource::Git {
            repo,
            reference,
            commit,
            submodules,
            resources,
            ..
        } => {
            let (tag, branch) = match reference {
                GitRef::Tag(t) => (Some(t.clone()), None),
                GitRef::Branch(b) => (None, Some(b.clone())),
                GitRef::Commit(_) => (None, None),
            };
            JsonSource::Git {
                url: repo.to_string(),
                tag,
                branch,
                commit: commit.clone(),
                submodules: *submodules,
                resources: resources.iter().map(JsonResource::of).collect(),
            }
        }
    });
    JsonNode {
        name: n.name.clone(),
        version: n.version.to_string(),
        hash: n.hash.clone(),
        prefix: n.prefix.to_string_lossy().into_owned(),
        external: n.is_external(),
        variants: n
            .variants
            .iter()
            .map(|(k, v)| (k.clone(), variant_value(n, k, v)))
            .collect(),
        patches: n
            .patches
            .iter()
            .map(|p| {
                let (file, url) = match &p.source {
                    PatchSource::File(f) => (Some(f.path.to_string_lossy().into_owned()), None),
                    PatchSource::Url(u) => (None, Some(u.value.clone())),
                };
                JsonPatch {
                    file,
                    url,
                    sha256: p.sha256.clone(),
                    level: p.level,
                    working_dir: p.working_dir.clone(),
                }
            })
            .collect(),
        source,
        deps: plan
            .deps(idx)
            .into_iter()
            .map(|(d, t)| JsonDep {
                name: plan.node(d).name.clone(),
                hash: plan.node(d).hash.clone(),
                types: t.names().into_iter().map(str::to_string).collect(),
            })
            .collect(),
        compiler: (!n.is_external()).then(|| JsonCompiler::of(&n.compiler)),
        languages: n
            .languages
            .iter()
            .map(|(l, c)| (l.clone(), JsonCompiler::of(c)))
            .collect(),
        flags: n
            .spec
            .flags
            .iter()
            .map(|(k, f)| (k.clone(), f.flags.clone()))
            .collect(),
    }
}

#[derive(Serialize)]
struct Output {
    nodes: Vec<JsonNode>,
}

/// The whole plan: `{"nodes": [...]}`, nodes sorted by name, version, hash;
/// pretty-printed, ending in a newline.
pub fn render_json(plan: &Plan) -> String {
    let out = Output {
        nodes: plan
            .nodes_sorted()
            .into_iter()
            .map(|i| json_node(plan, i))
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&out).expect("plan serialises");
    s.push('\n');
    s
}
