//! A stackinator cluster ("system") directory: `packages.yaml` (required,
//! with the system gcc), `network.yaml` (MPI templates and network package
//! policies; often a symlink to a site file), `repos.yaml` (site Spack
//! repositories, relative to the directory) and, in the older layout,
//! `compilers.yaml` (Spack's `compilers:` list).

use std::path::{Path, PathBuf};

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Diagnostic, Diagnostics};

use super::packages::{self, PackagesBody, PolicyList, SystemCompiler};
use super::read_yaml;

/// What a cluster directory says.
#[derive(Clone, Debug, Default)]
pub struct ClusterDir {
    pub dir: PathBuf,
    /// The directory's name (`daint`).
    pub name: String,
    /// `packages.yaml` ∪ `network.yaml:packages`, merged per package.
    pub policies: PolicyList,
    pub compilers: Vec<SystemCompiler>,
    /// `network.yaml:mpi`: MPI name → default network specs.
    pub mpi: Vec<(String, Vec<String>)>,
    /// Site Spack repositories, in precedence order.
    pub repos: Vec<PathBuf>,
    /// The node type the network file is for (`gh200`, `zen`, `a100`,
    /// `amdgpu`), from the symlink's target directory.
    pub node_type: Option<String>,
}

/// Whether `dir` looks like a stackinator cluster directory.
pub fn is_cluster_dir(dir: &Path) -> bool {
    dir.join("packages.yaml").is_file() && !dir.join("cluster.yaml").is_file()
}

/// Read a cluster directory; errors go to `diags`.
pub fn read_cluster(dir: &Path, diags: &mut Diagnostics) -> ClusterDir {
    let mut out = ClusterDir {
        dir: dir.to_path_buf(),
        name: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "cluster".into()),
        ..ClusterDir::default()
    };
    let pk = dir.join("packages.yaml");
    let mut body = PackagesBody::default();
    match read_yaml(&pk, diags) {
        Some((src, root)) => {
            let mut cx = Cx::new(&src, diags);
            if let Some(m) = cx.map(&root, "a cluster packages.yaml", &["packages"]) {
                match m.get("packages") {
                    Some(n) => body = packages::read_body(&mut cx, n),
                    None => {
                        cx.required(&m, "packages", "packages.yaml");
                    }
                }
            }
            if !body.has_gcc {
                cx.push(
                    Diagnostic::error(
                        Code::MissingField,
                        "the cluster's packages.yaml has no `gcc` entry (stackinator requires the system gcc there)",
                    )
                    .at(&src.start(), "no `packages:gcc`")
                    .with_help("add `gcc: {externals: [{spec: gcc@X, prefix: /usr, extra_attributes: {compilers: {c: …, cxx: …, fortran: …}}}]}`"),
                );
            }
        }
        None => return out,
    }
    out.policies = body.policies;
    out.compilers = body.compilers;
    old_compilers(dir, &mut out, diags);
    network(dir, &mut out, diags);
    repos(dir, &mut out, diags);
    out
}

/// `network.yaml`: `mpi:` templates and `packages:` merged over the cluster's.
fn network(dir: &Path, out: &mut ClusterDir, diags: &mut Diagnostics) {
    let path = dir.join("network.yaml");
    if !path.is_file() {
        return;
    }
    if let Ok(target) = fs_err::read_link(&path) {
        out.node_type = target
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
    }
    let Some((src, root)) = read_yaml(&path, diags) else {
        return;
    };
    let mut cx = Cx::new(&src, diags);
    let Some(m) = cx.map(&root, "network.yaml", &["mpi", "packages"]) else {
        return;
    };
    if let Some(mm) = m.get("mpi").and_then(|n| cx.open_map(n, "`mpi`")) {
        for (k, v) in mm.entries() {
            let mut specs = Vec::new();
            if !packages::is_null(v) {
                if let Some(e) = cx.map(v, "an MPI template", &["specs"]) {
                    if let Some(s) = e.get("specs") {
                        specs = cx
                            .strings(s, "`specs`", false)
                            .into_iter()
                            .map(|s| s.value)
                            .collect();
                    }
                }
            }
            out.mpi.push((k.as_str().to_string(), specs));
        }
    }
    if let Some(n) = m.get("packages") {
        let body = packages::read_body(&mut cx, n);
        packages::merge(&mut out.policies, body.policies);
        out.compilers.extend(body.compilers);
    }
}

/// `repos.yaml`: `repos: [../site/spack_repo/alps]` (a list, or Spack 1.x's
/// map name → path).
fn repos(dir: &Path, out: &mut ClusterDir, diags: &mut Diagnostics) {
    let path = dir.join("repos.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = read_yaml(&path, diags) else {
        return;
    };
    let mut cx = Cx::new(&src, diags);
    let Some(m) = cx.map(&root, "repos.yaml", &["repos"]) else {
        return;
    };
    let Some(r) = m.get("repos") else { return };
    let items: Vec<Node> = match r {
        Node::Mapping(_) => cx
            .open_map(r, "`repos`")
            .map(|m| m.entries().map(|(_, v)| v.clone()).collect())
            .unwrap_or_default(),
        n => cx.one_or_many(n).to_vec(),
    };
    for item in &items {
        let Some(p) = cx.string(item, "a `repos` entry") else {
            continue;
        };
        let full = dir.join(&p.value);
        if full.is_dir() {
            out.repos.push(full);
        } else {
            cx.error(
                Code::BadPath,
                &p.loc,
                format!("site repository `{}` does not exist", p.value),
                "no such directory",
                Some("paths in repos.yaml are relative to the cluster directory".into()),
            );
        }
    }
}

/// The older layout's `compilers.yaml` (`compilers: [{compiler: {spec,
/// paths: {cc, cxx, f77, fc}}}]`).
fn old_compilers(dir: &Path, out: &mut ClusterDir, diags: &mut Diagnostics) {
    let path = dir.join("compilers.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = read_yaml(&path, diags) else {
        return;
    };
    let mut cx = Cx::new(&src, diags);
    let Some(m) = cx.open_map(&root, "compilers.yaml") else {
        return;
    };
    let Some(items) = m.get("compilers").and_then(|n| cx.seq(n, "`compilers`")) else {
        return;
    };
    for item in items {
        let c = cx
            .open_map(item, "a compiler")
            .and_then(|c| c.get("compiler"))
            .and_then(|n| cx.open_map(n, "`compiler`"));
        let Some(c) = c else { continue };
        let spec = c.get("spec").and_then(|n| cx.string(n, "`spec`"));
        let paths = c.get("paths").and_then(|n| cx.open_map(n, "`paths`"));
        let get = |cx: &mut Cx, k: &str| {
            paths
                .as_ref()
                .and_then(|p| p.get(k))
                .and_then(|n| cx.string(n, k))
                .map(|s| s.value)
        };
        if let (Some(spec), Some(cc)) = (spec, get(&mut cx, "cc")) {
            let cxx = get(&mut cx, "cxx");
            let fc = get(&mut cx, "fc");
            out.compilers.push(SystemCompiler {
                spec: spec.value,
                cc,
                cxx,
                fc,
            });
        }
    }
}

/// Our target for a cluster: by the node type of its network file, else by
/// the Alps cluster names, else `x86_64` with a warning.
pub fn target(c: &ClusterDir, diags: &mut Diagnostics) -> String {
    let by_type = |t: &str| match t {
        "gh200" => Some("neoverse_v2"),
        "a100" => Some("zen3"),
        "zen" | "mc" | "zen2" => Some("zen2"),
        "amdgpu" => Some("zen3"),
        _ => None,
    };
    let by_name = |n: &str| match n {
        "daint" | "santis" | "clariden" => Some("neoverse_v2"),
        "eiger" => Some("zen2"),
        "bristen" | "balfrin" | "besso" | "beverin" | "starlex" => Some("zen3"),
        _ => None,
    };
    if let Some(t) = c
        .node_type
        .as_deref()
        .and_then(by_type)
        .or_else(|| by_name(&c.name))
    {
        return t.to_string();
    }
    diags.push(Diagnostic::warning(
        Code::Unsupported,
        format!(
            "cluster `{}`: no target known (stackinator configurations do not name one); x86_64 assumed",
            c.name
        ),
    ));
    "x86_64".into()
}
