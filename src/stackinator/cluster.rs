//! A stackinator cluster ("system") directory: `packages.yaml` (required,
//! with the system gcc), `network.yaml` (MPI templates and network package
//! policies; often a symlink to a site file), `repos.yaml` (site Spack
//! repositories, relative to the directory) and, in the older layout,
//! `compilers.yaml` (Spack's `compilers:` list) and `concretizer.yaml`.

use std::path::{Path, PathBuf};

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Diagnostic, Loc, Spanned};

use super::packages::{self, PackagesBody, PolicyList, SystemCompiler};
use super::reader::Reader;

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
    pub mpi: Vec<(String, Vec<Spanned<String>>)>,
    /// Site Spack repositories, in precedence order, with the repos.yaml
    /// entry naming each.
    pub repos: Vec<(PathBuf, Loc)>,
    /// The node type the network file is for (`gh200`, `zen`, `a100`,
    /// `amdgpu`), from the symlink's target directory.
    pub node_type: Option<String>,
    /// The target family the older layout's compilers name (`aarch64`).
    pub compiler_target: Option<String>,
    /// `packages.yaml`'s start: where facts of the cluster as a whole
    /// (its target, OS and C library) come from.
    pub loc: Option<Loc>,
}

/// Whether `dir` looks like a stackinator cluster directory.
pub fn is_cluster_dir(dir: &Path) -> bool {
    dir.join("packages.yaml").is_file() && !dir.join("cluster.yaml").is_file()
}

/// Read a cluster directory; errors go to the reader's diagnostics.
pub fn read_cluster(dir: &Path, rd: &mut Reader) -> ClusterDir {
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
    match rd.read(&pk) {
        Some((src, root)) => {
            out.loc = Some(src.start());
            let mut cx = rd.cx(&src);
            if let Some(m) = cx.map(&root, "a cluster packages.yaml", &["packages"]) {
                match m.get("packages") {
                    Some(n) => body = packages::read_body(&mut cx, n),
                    None => {
                        cx.required(&m, "packages", "packages.yaml");
                    }
                }
            }
            // The older layout names the system gcc in compilers.yaml.
            if !body.has_gcc && !dir.join("compilers.yaml").is_file() {
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
    old_compilers(dir, &mut out, rd);
    concretizer(dir, rd);
    network(dir, &mut out, rd);
    repos(dir, &mut out, rd);
    out
}

/// `network.yaml`: `mpi:` templates and `packages:` merged over the cluster's.
fn network(dir: &Path, out: &mut ClusterDir, rd: &mut Reader) {
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
    let Some((src, root)) = rd.read(&path) else {
        return;
    };
    let mut cx = rd.cx(&src);
    let Some(m) = cx.map(&root, "network.yaml", &["mpi", "packages"]) else {
        return;
    };
    if let Some(mm) = m.get("mpi").and_then(|n| cx.open_map(n, "`mpi`")) {
        for (k, v) in mm.entries() {
            let mut specs = Vec::new();
            if !packages::is_null(v) {
                if let Some(e) = cx.map(v, "an MPI template", &["specs"]) {
                    if let Some(s) = e.get("specs") {
                        specs = cx.strings(s, "`specs`", false);
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
fn repos(dir: &Path, out: &mut ClusterDir, rd: &mut Reader) {
    let path = dir.join("repos.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = rd.read(&path) else {
        return;
    };
    let mut cx = rd.cx(&src);
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
            out.repos.push((full, p.loc.clone()));
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
/// paths: {cc, cxx, f77, fc}, operating_system, target, …}}]`).
fn old_compilers(dir: &Path, out: &mut ClusterDir, rd: &mut Reader) {
    let path = dir.join("compilers.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = rd.read(&path) else {
        return;
    };
    let mut cx = rd.cx(&src);
    let Some(m) = cx.map(&root, "compilers.yaml", &["compilers"]) else {
        return;
    };
    let Some(items) = m.get("compilers").and_then(|n| cx.seq(n, "`compilers`")) else {
        return;
    };
    const KEYS: &[&str] = &[
        "spec",
        "paths",
        "flags",
        "operating_system",
        "target",
        "modules",
        "environment",
        "extra_rpaths",
    ];
    for item in items {
        let c = cx
            .map(item, "a compiler", &["compiler"])
            .and_then(|c| c.get("compiler"))
            .and_then(|n| cx.map(n, "`compiler`", KEYS));
        let Some(c) = c else { continue };
        let spec = c.get("spec").and_then(|n| cx.string(n, "`spec`"));
        let paths = c
            .get("paths")
            .and_then(|n| cx.map(n, "`paths`", &["cc", "cxx", "f77", "fc"]));
        let get = |cx: &mut Cx, k: &str| {
            paths
                .as_ref()
                .and_then(|p| p.get(k))
                .and_then(|n| cx.string(n, k))
                .map(|s| s.value)
        };
        let os = c
            .get("operating_system")
            .and_then(|n| cx.string(n, "`operating_system`"))
            .map(|s| s.value);
        if let Some(t) = c.get("target").and_then(|n| cx.string(n, "`target`")) {
            out.compiler_target.get_or_insert(t.value);
        }
        // f77 is the Fortran 77 name of the same compiler as fc here.
        let _ = get(&mut cx, "f77");
        // Empty settings are the defaults; anything else is not translated.
        for key in ["flags", "modules", "environment", "extra_rpaths"] {
            let (Some(k), Some(v)) = (c.key_node(key), c.get(key)) else {
                continue;
            };
            let empty = match v {
                Node::Mapping(m) => m.is_empty(),
                Node::Sequence(s) => s.is_empty(),
                _ => false,
            };
            if !empty {
                let loc = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!("the compiler's `{key}` is not translated; ignored"),
                    "not translated",
                    Some(
                        "stack's compiler wrapper sets the flags and run paths of every build"
                            .into(),
                    ),
                );
            }
        }
        if let (Some(spec), Some(cc)) = (spec, get(&mut cx, "cc")) {
            let cxx = get(&mut cx, "cxx");
            let fc = get(&mut cx, "fc");
            out.compilers.push(SystemCompiler {
                spec: spec.value,
                cc,
                cxx,
                fc,
                loc: spec.loc,
                os,
            });
        }
    }
}

/// The older layout's `concretizer.yaml`: `concretizer: {reuse: false}` is
/// what stack does (every package comes from the plan); anything else
/// warns.
fn concretizer(dir: &Path, rd: &mut Reader) {
    let path = dir.join("concretizer.yaml");
    if !path.is_file() {
        return;
    }
    let Some((src, root)) = rd.read(&path) else {
        return;
    };
    let mut cx = rd.cx(&src);
    let Some(m) = cx.map(&root, "concretizer.yaml", &["concretizer"]) else {
        return;
    };
    let Some(c) = m
        .get("concretizer")
        .and_then(|n| cx.open_map(n, "`concretizer`"))
    else {
        return;
    };
    for (k, v) in c.entries() {
        let loc = cx.scalar_loc(k);
        let same = k.as_str() == "reuse" && matches!(v, Node::Scalar(s) if s.as_str() == "false");
        if !same {
            cx.warn(
                Code::Unsupported,
                &loc,
                format!("`concretizer:{}` is not translated", k.as_str()),
                "not translated",
                Some("stack resolves every stack afresh (Spack's `reuse: false`)".into()),
            );
        }
    }
}

/// Our target for a cluster: by the node type of its network file, else by
/// the Alps cluster names, else the target family of the older layout's
/// compilers, else `x86_64` with a warning.
pub fn target(c: &ClusterDir, rd: &mut Reader) -> String {
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
    if let Some(t) = c
        .compiler_target
        .as_deref()
        .filter(|t| ["x86_64", "aarch64"].contains(t))
    {
        return t.to_string();
    }
    let mut d = Diagnostic::warning(
        Code::Unsupported,
        format!(
            "cluster `{}`: no target known (stackinator configurations do not name one); x86_64 assumed",
            c.name
        ),
    );
    if let Some(loc) = &c.loc {
        d = d.at(loc, "this cluster").with_help(
            "convert the recipe (`stack stackinator convert`) and set `target:` in its cluster.yaml",
        );
    }
    rd.push(d);
    "x86_64".into()
}

/// What the translated cluster says of its OS and C library: the OS its
/// compilers' descriptions name, else `unknown`; the C library `unknown`
/// (stackinator's configurations never name it). Either is part of every
/// node hash, so it is written out instead of being read from the machine
/// that resolves; one warning says what is unknown.
pub fn os_and_libc(c: &ClusterDir, rd: &mut Reader) -> (String, String) {
    let os = c.compilers.iter().find_map(|c| c.os.clone());
    let mut unknown = Vec::new();
    if os.is_none() {
        unknown.push("OS");
    }
    unknown.push("C library");
    let mut d = Diagnostic::warning(
        Code::Unsupported,
        format!(
            "cluster `{}` does not say its {}: the translation writes `{}libc: unknown`",
            c.name,
            unknown.join(" or "),
            if os.is_none() { "os: unknown`, `" } else { "" }
        ),
    )
    .with_help(
        "they are part of every package hash; written out, the plan does not depend on the machine \
         that resolves it. To name them, convert the recipe (`stack stackinator convert`) and set \
         `os:` and `libc:` (e.g. `glibc@2.38`) in its cluster.yaml",
    );
    if let Some(loc) = &c.loc {
        d = d.at(loc, "this cluster");
    }
    rd.push(d);
    (os.unwrap_or_else(|| "unknown".into()), "unknown".into())
}
