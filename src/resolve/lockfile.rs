//! `stack.lock`: the whole plan as versioned JSON, written beside the stack
//! recipe by `stack resolve --lock`.
//!
//! ```json
//! {
//!   "lock_version": 3,
//!   "stack": "demo", "recipe": "demo.yaml", "cluster": "local",
//!   "mount": "/user-environment", "target": "x86_64", "os": "debian12", "libc": "glibc@2.36",
//!   "compiler": "gcc@12.2.0",
//!   "compilers": [{"spec": "gcc@12.2.0", "origin": "cluster", "identity": "…"}],
//!   "environments": [{"name": "tools", "compiler": {…}, "roots": [{"spec": "hello-make", "hash": "…"}], "packages": ["…"]}],
//!   "nodes": [ …the objects of `stack resolve --format json`… ]
//! }
//! ```
//!
//! Git sources record the commit of their branch or tag; resolving with a
//! lock reuses those commits, so a moving branch does not change the plan
//! until the lock is updated. Archive sources list their `resources:` (url,
//! sha256, expand, destination): `stack fetch --locked` fetches exactly
//! those, and a recipe whose resources differ from the lock is refused.
//!
//! Versions: 3 added `resources` to archive sources. A version 2 lock still
//! loads (its node hashes already covered the resources; it just does not
//! list them) and is written as version 3 the next time; version 1 locks
//! (hashes without compilers, OS, libc) are refused with a hint. [`Lock::compare`] lists, in words, how a new
//! plan differs from the lock (`--locked` refuses any difference).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::assemble::GitPins;
use super::error::{LockChange, ResolveError};
use super::model::Plan;
use super::render::{JsonCompiler, JsonNode, JsonResource, JsonSource, json_node};

/// The lock file's name.
pub const LOCK_FILE: &str = "stack.lock";
/// The format version written (and the newest accepted).
pub const LOCK_VERSION: u32 = 3;
/// The oldest format version still read (same node hashes; no `resources`).
pub const LOCK_VERSION_OLDEST: u32 = 2;

/// Where the lock of `recipe_file` lives: `<name>.lock` beside
/// `<name>.yaml` — `stack.lock` for the usual `stack.yaml` — so that each
/// recipe of a directory has its own. A `stack.lock` written for this
/// recipe (it names the recipe's file) is kept in use while there is no
/// `<name>.lock`: a directory whose one recipe has another name goes on
/// with its `stack.lock`.
pub fn lock_path(recipe_file: &Path) -> PathBuf {
    let dir = recipe_file.parent().unwrap_or(Path::new("."));
    let stem = recipe_file
        .file_stem()
        .map_or("stack".into(), |s| s.to_string_lossy());
    let own = dir.join(format!("{stem}.lock"));
    if stem == "stack" || own.exists() {
        return own;
    }
    let shared = dir.join(LOCK_FILE);
    let name = recipe_file.file_name().map(|f| f.to_string_lossy());
    let written_for_it = shared.is_file()
        && Lock::read(&shared).is_ok_and(|l| Some(l.recipe.as_str()) == name.as_deref());
    if written_for_it { shared } else { own }
}

/// One root of a locked environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockRoot {
    pub spec: String,
    pub hash: String,
}

/// A locked environment: its roots and every package (by hash).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockEnvironment {
    pub name: String,
    /// The compiler its packages are built with.
    pub compiler: JsonCompiler,
    pub roots: Vec<LockRoot>,
    pub packages: Vec<String>,
}

/// The contents of `stack.lock`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    pub lock_version: u32,
    /// The stack recipe's `name`.
    pub stack: String,
    /// The stack recipe's file name.
    pub recipe: String,
    pub cluster: String,
    pub mount: String,
    pub target: String,
    pub os: Option<String>,
    pub libc: Option<String>,
    /// The cluster compiler (the stack's compilers are built with it).
    pub compiler: String,
    /// Every compiler of the plan: the cluster's, then those the stack builds.
    pub compilers: Vec<JsonCompiler>,
    pub environments: Vec<LockEnvironment>,
    pub nodes: Vec<JsonNode>,
    /// Where it was read from.
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl Lock {
    /// The lock that records `plan`.
    pub fn from_plan(plan: &Plan) -> Lock {
        Lock {
            lock_version: LOCK_VERSION,
            stack: plan.stack.clone(),
            recipe: plan
                .recipe_file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            cluster: plan.cluster.clone(),
            mount: plan.mount.to_string_lossy().into_owned(),
            target: plan.target.clone(),
            os: plan.os.clone(),
            libc: plan.libc.clone(),
            compiler: plan.compiler.to_string(),
            compilers: plan
                .compilers()
                .into_iter()
                .map(|(c, _)| JsonCompiler::of(c))
                .collect(),
            environments: plan
                .environments
                .iter()
                .map(|e| LockEnvironment {
                    name: e.name.clone(),
                    compiler: JsonCompiler::of(&e.compiler),
                    roots: e
                        .roots
                        .iter()
                        .map(|r| LockRoot {
                            spec: r.spec.text.clone(),
                            hash: plan.node(r.node).hash.clone(),
                        })
                        .collect(),
                    packages: e.nodes.iter().map(|n| plan.node(*n).hash.clone()).collect(),
                })
                .collect(),
            nodes: plan
                .nodes_sorted()
                .into_iter()
                .map(|i| json_node(plan, i))
                .collect(),
            path: None,
        }
    }

    /// Pretty JSON ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("lock serialises");
        s.push('\n');
        s
    }

    /// Parse a lock file's text.
    pub fn parse(text: &str, path: &Path) -> Result<Lock, ResolveError> {
        let err = |message: String| ResolveError::LockRead {
            path: path.to_path_buf(),
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
        match value.get("lock_version").and_then(|v| v.as_u64()) {
            Some(v) if (u64::from(LOCK_VERSION_OLDEST)..=u64::from(LOCK_VERSION)).contains(&v) => {}
            Some(v) if v < u64::from(LOCK_VERSION_OLDEST) => {
                return Err(err(format!(
                    "lock_version {v} was written by an older stack (node hash format before \
                     {}: no compilers, OS or libc in the hashes); this stack reads and writes \
                     {LOCK_VERSION}. Hint: run `stack resolve --lock` to write it anew (every \
                     package hash changes, so the packages are built again)",
                    super::hash::HASH_FORMAT
                )));
            }
            Some(v) => {
                return Err(err(format!(
                    "lock_version {v} is not supported (this stack reads and writes {LOCK_VERSION}); \
                     it was written by a newer stack"
                )));
            }
            None => return Err(err("no `lock_version`: not a stack lock file".into())),
        }
        let mut lock: Lock = serde_json::from_value(value).map_err(|e| err(e.to_string()))?;
        lock.path = Some(path.to_path_buf());
        Ok(lock)
    }

    /// Read a lock file.
    pub fn read(path: &Path) -> Result<Lock, ResolveError> {
        let text = fs_err::read_to_string(path).map_err(|e| ResolveError::LockRead {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Lock::parse(&text, path)
    }

    /// Write the lock atomically (a temporary sibling renamed into place).
    pub fn write(&self, path: &Path) -> Result<(), ResolveError> {
        let wrap = |source: std::io::Error| ResolveError::LockWrite {
            path: path.to_path_buf(),
            source,
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        // 0666 less the umask, like any file the user writes (not 0600).
        let mut tmp = tempfile::Builder::new()
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(wrap)?;
        std::io::Write::write_all(&mut tmp, self.to_json().as_bytes()).map_err(wrap)?;
        tmp.persist(path).map_err(|e| wrap(e.error))?;
        Ok(())
    }

    /// The commits recorded for git branches and tags.
    pub fn git_pins(&self) -> GitPins {
        let mut pins = GitPins::new();
        for n in &self.nodes {
            if let Some(JsonSource::Git {
                url,
                tag,
                branch,
                commit: Some(c),
                ..
            }) = &n.source
            {
                if let Some(r) = branch.as_ref().or(tag.as_ref()) {
                    pins.insert((url.clone(), r.clone()), c.clone());
                }
            }
        }
        pins
    }

    /// How `plan` differs from this lock, in words; empty when it matches.
    pub fn compare(&self, plan: &Plan) -> Vec<LockChange> {
        self.diff(&Lock::from_plan(plan))
    }

    /// What differs from this lock to `new` (`stack diff`): the same
    /// messages as [`Lock::compare`].
    pub fn diff(&self, new: &Lock) -> Vec<LockChange> {
        let mut out = Vec::new();
        for (what, a, b) in [
            ("mount point", &self.mount, &new.mount),
            ("target", &self.target, &new.target),
            ("compiler", &self.compiler, &new.compiler),
            ("cluster", &self.cluster, &new.cluster),
        ] {
            if a != b {
                out.push(format!("{what}: `{a}` → `{b}`"));
            }
        }
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
        for (what, a, b) in [("os", &self.os, &new.os), ("libc", &self.libc, &new.libc)] {
            if a != b {
                out.push(format!("{what}: `{}` → `{}`", text(a), text(b)));
            }
        }
        let old_nodes: BTreeMap<&str, &JsonNode> =
            self.nodes.iter().map(|n| (n.hash.as_str(), n)).collect();
        let new_nodes: BTreeMap<&str, &JsonNode> =
            new.nodes.iter().map(|n| (n.hash.as_str(), n)).collect();
        let env_names = |l: &Lock| {
            l.environments
                .iter()
                .map(|e| e.name.clone())
                .collect::<BTreeSet<_>>()
        };
        let (old_envs, new_envs) = (env_names(self), env_names(new));
        for e in old_envs.difference(&new_envs) {
            out.push(format!("environment `{e}` is gone"));
        }
        for e in new_envs.difference(&old_envs) {
            out.push(format!("environment `{e}` is new"));
        }
        // (name, old hash, new hash) → message and environments.
        let mut changes: BTreeMap<(String, String, String), (String, Vec<String>)> =
            BTreeMap::new();
        for old_env in &self.environments {
            let Some(new_env) = new.environments.iter().find(|e| e.name == old_env.name) else {
                continue;
            };
            let by_name = |hashes: &[String], nodes: &BTreeMap<&str, &JsonNode>| {
                let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for h in hashes {
                    let name = nodes.get(h.as_str()).map_or("?", |n| n.name.as_str());
                    m.entry(name.to_string()).or_default().push(h.clone());
                }
                m
            };
            let olds = by_name(&old_env.packages, &old_nodes);
            let news = by_name(&new_env.packages, &new_nodes);
            let names: BTreeSet<&String> = olds.keys().chain(news.keys()).collect();
            for name in names {
                let o = olds.get(name).and_then(|v| v.first());
                let n = news.get(name).and_then(|v| v.first());
                let (key, msg) = match (o, n) {
                    (Some(o), Some(n)) if o == n => continue,
                    (Some(o), Some(n)) => (
                        (name.clone(), o.clone(), n.clone()),
                        describe(old_nodes[o.as_str()], new_nodes[n.as_str()]),
                    ),
                    (Some(o), None) => (
                        (name.clone(), o.clone(), String::new()),
                        format!("`{name}` is no longer in the plan"),
                    ),
                    (None, Some(n)) => (
                        (name.clone(), String::new(), n.clone()),
                        format!(
                            "`{name}@{}` is new in the plan",
                            new_nodes[n.as_str()].version
                        ),
                    ),
                    (None, None) => continue,
                };
                changes
                    .entry(key)
                    .or_insert_with(|| (msg, Vec::new()))
                    .1
                    .push(old_env.name.clone());
            }
        }
        for (_, (msg, envs)) in changes {
            let envs: Vec<String> = envs.iter().map(|e| format!("`{e}`")).collect();
            out.push(format!(
                "{msg} (environment{} {})",
                if envs.len() == 1 { "" } else { "s" },
                envs.join(", ")
            ));
        }
        out
    }
}

fn short(h: &str) -> &str {
    &h[..8.min(h.len())]
}

fn source_text(s: &Option<JsonSource>) -> String {
    match s {
        None => "external".into(),
        Some(JsonSource::Archive { sha256, .. }) => format!(
            "archive sha256 {}",
            sha256.as_deref().map_or("(none)", short)
        ),
        Some(JsonSource::Git {
            commit,
            branch,
            tag,
            ..
        }) => match commit {
            Some(c) => format!("git commit {}", short(c)),
            None => format!(
                "git {} (unpinned)",
                branch.as_ref().or(tag.as_ref()).map_or("?", |s| s.as_str())
            ),
        },
    }
}

/// Resources by sha256 prefix (and destination when not the top).
fn resource_text(list: &[JsonResource]) -> String {
    list.iter()
        .map(|r| {
            let commit = r.git.as_ref().and_then(|g| g["commit"].as_str());
            let sha = r.sha256.as_deref().or(commit).map_or("(none)", short);
            match r.destination.as_str() {
                "." => sha.to_string(),
                d => format!("{sha} in {d}"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What changed between two versions of one package.
fn describe(old: &JsonNode, new: &JsonNode) -> String {
    let mut parts: Vec<String> = Vec::new();
    describe_spec(old, new, &mut parts);
    describe_sources(old, new, &mut parts);
    describe_deps(old, new, &mut parts);
    if parts.is_empty() {
        parts.push(
            "build inputs changed (the recipe's build section or environment, or the mount point)"
                .into(),
        );
    }
    format!(
        "`{}` {} → {}: {}",
        new.name,
        short(&old.hash),
        short(&new.hash),
        parts.join("; ")
    )
}

/// Version, variants, built or external.
fn describe_spec(old: &JsonNode, new: &JsonNode, parts: &mut Vec<String>) {
    if old.version != new.version {
        parts.push(format!("version {} → {}", old.version, new.version));
    }
    let keys: BTreeSet<&String> = old.variants.keys().chain(new.variants.keys()).collect();
    for k in keys {
        let (a, b) = (old.variants.get(k), new.variants.get(k));
        if a != b {
            let show = |v: Option<&serde_json::Value>| match v {
                None => "(absent)".to_string(),
                Some(v) => v.to_string(),
            };
            parts.push(format!("variant `{k}` {} → {}", show(a), show(b)));
        }
    }
    if old.external != new.external || (old.external && old.prefix != new.prefix) {
        let how = |n: &JsonNode| {
            if n.external {
                format!("external at {}", n.prefix)
            } else {
                "built".into()
            }
        };
        parts.push(format!("{} → {}", how(old), how(new)));
    }
}

/// Source, resources, patches.
fn describe_sources(old: &JsonNode, new: &JsonNode, parts: &mut Vec<String>) {
    if old.source != new.source && !(old.external && new.external) {
        let (a, b) = (source_text(&old.source), source_text(&new.source));
        if a != b {
            parts.push(format!("source {a} → {b}"));
        }
    }
    if let (
        Some(JsonSource::Archive { resources: a, .. } | JsonSource::Git { resources: a, .. }),
        Some(JsonSource::Archive { resources: b, .. } | JsonSource::Git { resources: b, .. }),
    ) = (&old.source, &new.source)
        && a != b
    {
        parts.push(format!(
            "resources [{}] → [{}]",
            resource_text(a),
            resource_text(b)
        ));
    }
    if old.patches != new.patches {
        let sums = |n: &JsonNode| {
            n.patches
                .iter()
                .map(|p| short(&p.sha256).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        parts.push(format!("patches [{}] → [{}]", sums(old), sums(new)));
    }
}

/// Dependencies added, dropped or changed.
fn describe_deps(old: &JsonNode, new: &JsonNode, parts: &mut Vec<String>) {
    let dep_names = |n: &JsonNode| {
        n.deps
            .iter()
            .map(|d| d.name.clone())
            .collect::<BTreeSet<_>>()
    };
    let (od, nd) = (dep_names(old), dep_names(new));
    for d in nd.difference(&od) {
        parts.push(format!("new dependency `{d}`"));
    }
    for d in od.difference(&nd) {
        parts.push(format!("no longer depends on `{d}`"));
    }
    let changed_deps: Vec<&str> = new
        .deps
        .iter()
        .filter(|d| {
            old.deps
                .iter()
                .any(|o| o.name == d.name && (o.hash != d.hash || o.types != d.types))
        })
        .map(|d| d.name.as_str())
        .collect();
    if !changed_deps.is_empty() {
        parts.push(format!("dependencies changed: {}", changed_deps.join(", ")));
    }
}
