//! Reading `cluster.yaml`, and the sections shared with stack recipes
//! (`packages:`, `network:`, `mirrors:`, `audit:`).

use std::path::{Path, PathBuf};

use crate::diag::yaml::{self, Cx, Node};
use crate::diag::{Code, Diagnostics, SourceFile, Spanned};
use crate::recipes::read::{self, Named};
use crate::recipes::{PathRef, Resource};

use super::fingerprint::compiler_fingerprint;
use super::model::*;
use super::policy::{External, PackagePolicy, Policies};

const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "target",
    "os",
    "libc",
    "compilers",
    "packages",
    "network",
    "mirrors",
    "audit",
    "loader",
    "binary_cache",
    "ci",
];

/// The file name inside a cluster configuration directory.
pub const CLUSTER_FILE: &str = "cluster.yaml";

/// Load `dir/cluster.yaml` (or `dir` itself when it is a file).
pub fn load_cluster(dir: &Path) -> Result<(Cluster, Diagnostics), Diagnostics> {
    let file = if dir.is_file() {
        dir.to_path_buf()
    } else {
        dir.join(CLUSTER_FILE)
    };
    let src = SourceFile::read_input(&file, "the cluster configuration")?;
    let mut diags = Diagnostics::new();
    let cluster = parse_cluster(&src, &mut diags);
    diags.into_loaded(cluster)
}

/// What a cluster configuration falls back to from the machine that reads
/// it: the C library, when the configuration has no `libc:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFacts {
    pub libc: Option<String>,
}

impl HostFacts {
    /// This machine's.
    pub fn this_machine() -> HostFacts {
        HostFacts { libc: host_libc() }
    }
}

/// Parse a cluster configuration from source text (the path must be absolute).
pub fn parse_cluster(src: &SourceFile, diags: &mut Diagnostics) -> Option<Cluster> {
    parse_cluster_on(src, diags, &HostFacts::this_machine())
}

/// [`parse_cluster`] on a machine whose facts are `host`.
pub fn parse_cluster_on(
    src: &SourceFile,
    diags: &mut Diagnostics,
    host: &HostFacts,
) -> Option<Cluster> {
    let root = yaml::parse_into(src, diags)?;
    let mut cx = Cx::new(src, diags);
    let m = cx.map(&root, "a cluster configuration", TOP_KEYS)?;
    let what = "the cluster configuration";
    let name = cx
        .required(&m, "name", what)
        .and_then(|n| cx.nonempty_string(n, "`name`"));
    let description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    let target = cx
        .required(&m, "target", what)
        .and_then(|n| cx.nonempty_string(n, "`target`"));
    if let Some(t) = &target {
        check_target(&mut cx, t);
    }
    let os = m
        .get("os")
        .and_then(|n| cx.string(n, "`os`"))
        .map(|s| s.value);
    let libc = match m.get("libc") {
        Some(n) => cx.nonempty_string(n, "`libc`").map(|s| s.value),
        None => host.libc.clone(),
    };
    let compilers = match cx.required(&m, "compilers", what) {
        Some(n) => compilers(&mut cx, n),
        None => Vec::new(),
    };
    let packages = m
        .get("packages")
        .map(|n| policies(&mut cx, n))
        .unwrap_or_default();
    let network = m.get("network").map(|n| network(&mut cx, n));
    let mirrors = m
        .get("mirrors")
        .map(|n| mirrors(&mut cx, n))
        .unwrap_or_default();
    let audit = m
        .get("audit")
        .map(|n| audit(&mut cx, n))
        .unwrap_or_default();
    let loader = m.get("loader").and_then(|n| loader(&mut cx, n));
    let binary_cache = m
        .get("binary_cache")
        .and_then(|n| super::binary_cache::binary_cache(&mut cx, n));
    let ci = m.get("ci").and_then(|n| super::ci::ci(&mut cx, n));
    let file = src.path().to_path_buf();
    Some(Cluster {
        dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        file,
        name: name.unwrap_or_else(|| Spanned::new(String::new(), src.start())),
        description,
        target: target.unwrap_or_else(|| Spanned::new(String::new(), src.start())),
        os,
        libc,
        compilers,
        packages,
        network,
        mirrors,
        audit,
        loader,
        binary_cache,
        ci,
    })
}

fn check_target(cx: &mut Cx, t: &Spanned<String>) {
    if !crate::spec::is_known_target(t) {
        cx.error(
            Code::UnknownTarget,
            &t.loc,
            format!("unknown target `{}`", t.value),
            "not in the target table",
            Some(match crate::spec::suggest_target(t) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "known targets: {}",
                    crate::spec::known_targets().collect::<Vec<_>>().join(", ")
                ),
            }),
        );
    }
}

fn compilers(cx: &mut Cx, node: &Node) -> Vec<Compiler> {
    let Some(items) = cx.seq(node, "`compilers`") else {
        return Vec::new();
    };
    if items.is_empty() {
        let loc = cx.loc(node);
        cx.error(
            Code::MissingField,
            &loc,
            "`compilers` is empty",
            "expected at least one compiler",
            Some("e.g. `- {spec: gcc@12.2.0, cc: /usr/bin/gcc, cxx: /usr/bin/g++}`".into()),
        );
    }
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(
            item,
            "a compiler",
            &["spec", "cc", "cxx", "fc", "fingerprint"],
        ) else {
            continue;
        };
        let spec = cx
            .required(&m, "spec", "a compiler")
            .and_then(|n| read::spec(cx, n, "a compiler", Named::Required));
        if let Some(s) = &spec {
            if s.spec.versions.is_any() {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!("compiler `{}` needs an exact version", s.text),
                    "expected `name@version`",
                    Some("e.g. `gcc@12.2.0`; `gcc --version` shows it".into()),
                );
            }
        }
        let cc = cx
            .required(&m, "cc", "a compiler")
            .and_then(|n| compiler_path(cx, n, "`cc`"));
        let cxx = m.get("cxx").and_then(|n| compiler_path(cx, n, "`cxx`"));
        let fc = m.get("fc").and_then(|n| compiler_path(cx, n, "`fc`"));
        // `fingerprint: none` (a compiler of another system, as translated
        // stackinator clusters say) or 16 hex digits: not read here, so the
        // machine that resolves does not change a hash.
        let fingerprint = m.get("fingerprint").map(|n| {
            let s = cx.nonempty_string(n, "`fingerprint`")?;
            let hex = s.value.len() == 16 && s.value.chars().all(|c| c.is_ascii_hexdigit());
            if s.value == "none" {
                return None;
            }
            if !hex {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!(
                        "`fingerprint: {}` is neither `none` nor 16 hex digits",
                        s.value
                    ),
                    "expected `none` or 16 hex digits",
                    Some("leave it out to fingerprint the `cc` program of this machine".into()),
                );
                return None;
            }
            Some(s.value.to_ascii_lowercase())
        });
        if let (Some(spec), Some(cc)) = (spec, cc) {
            out.push(Compiler {
                fingerprint: fingerprint.unwrap_or_else(|| compiler_fingerprint(&cc.path)),
                spec,
                cc,
                cxx,
                fc,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

fn compiler_path(cx: &mut Cx, node: &Node, what: &str) -> Option<PathRef> {
    let p = read::path(cx, node, what)?;
    if !Path::new(&p.text).is_absolute() {
        cx.error(
            Code::BadPath,
            &p.loc,
            format!("{what} must be an absolute path, found `{}`", p.text),
            "expected /path/to/compiler",
            None,
        );
        return None;
    }
    if !p.path.exists() {
        cx.warn(
            Code::BadPath,
            &p.loc,
            format!("{what} `{}` does not exist on this machine", p.text),
            "not found",
            Some("fine if this configuration describes another system".into()),
        );
    }
    Some(p)
}

const POLICY_KEYS: &[&str] = &["buildable", "externals", "require", "prefer", "version"];

/// Read a `packages:` mapping.
pub fn policies(cx: &mut Cx, node: &Node) -> Policies {
    let mut out = Policies::default();
    let Some(m) = cx.open_map(node, "`packages`") else {
        return out;
    };
    for (key, value) in m.entries() {
        let name = key.as_str().to_string();
        let loc = cx.scalar_loc(key);
        let what = format!("the policy for `{name}`");
        let mut pol = PackagePolicy::new(&name, loc);
        if let Some(pm) = cx.map(value, &what, POLICY_KEYS) {
            pol.buildable = pm.get("buildable").and_then(|n| cx.bool(n, "`buildable`"));
            pol.externals = pm.get("externals").map(|n| externals(cx, n, &name));
            pol.require = pm
                .get("require")
                .map(|n| read::specs(cx, n, "a `require` entry", Named::Any));
            pol.prefer = pm
                .get("prefer")
                .map(|n| read::specs(cx, n, "a `prefer` entry", Named::Any));
            pol.version = pm.get("version").map(|n| {
                let vs = cx.strings(n, "`version`", true);
                for v in &vs {
                    if let Err(e) = crate::spec::Version::parse(v) {
                        cx.error(
                            Code::InvalidValue,
                            &v.loc,
                            format!("invalid version `{}`: {}", v.value, e.reason()),
                            "expected a version",
                            None,
                        );
                    }
                }
                vs
            });
        }
        out.entries.insert(name, pol);
    }
    out
}

fn externals(cx: &mut Cx, node: &Node, package: &str) -> Vec<External> {
    let Some(items) = cx.seq(node, "`externals`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "an external", &["spec", "prefix"]) else {
            continue;
        };
        let spec = cx
            .required(&m, "spec", "an external")
            .and_then(|n| read::spec(cx, n, "an external", Named::Required));
        if let Some(s) = &spec {
            if package != "all" && s.name() != Some(package) {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!(
                        "external `{}` is listed under `{package}` but names `{}`",
                        s.text,
                        s.name().unwrap_or_default()
                    ),
                    format!("expected `{package}@<version> …`"),
                    None,
                );
            }
            if s.spec.versions.is_any() {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!("external `{}` needs a version", s.text),
                    "expected `name@version`",
                    Some("the version installed on the system, e.g. `zlib@1.2.13`".into()),
                );
            }
        }
        let prefix = cx.required(&m, "prefix", "an external").and_then(|n| {
            let p = read::path(cx, n, "`prefix`")?;
            if !Path::new(&p.text).is_absolute() {
                cx.error(
                    Code::BadPath,
                    &p.loc,
                    format!("an external prefix must be absolute, found `{}`", p.text),
                    "expected /path",
                    None,
                );
                return None;
            }
            Some(p.path)
        });
        if let (Some(spec), Some(prefix)) = (spec, prefix) {
            out.push(External {
                spec,
                prefix,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

/// Read `network: {mpi: spec, specs: [spec…]}`.
pub fn network(cx: &mut Cx, node: &Node) -> Network {
    let mut net = Network {
        loc: Some(cx.loc(node)),
        ..Network::default()
    };
    let Some(m) = cx.map(node, "`network`", &["mpi", "specs"]) else {
        return net;
    };
    net.mpi = m
        .get("mpi")
        .and_then(|n| read::spec(cx, n, "`network.mpi`", Named::Required));
    net.specs = m
        .get("specs")
        .map(|n| read::specs(cx, n, "`network.specs`", Named::Required))
        .unwrap_or_default();
    net
}

/// Read `mirrors: [url-or-path…]`.
pub fn mirrors(cx: &mut Cx, node: &Node) -> Vec<Mirror> {
    let dir = cx.dir();
    cx.strings(node, "`mirrors`", false)
        .into_iter()
        .map(|s| Mirror {
            resource: Resource::parse(&s, &dir),
            text: s.value,
            loc: s.loc,
        })
        .collect()
}

/// Read `audit: {allow: [glob…]}`.
pub fn audit(cx: &mut Cx, node: &Node) -> AuditConfig {
    let Some(m) = cx.map(node, "`audit`", &["allow"]) else {
        return AuditConfig::default();
    };
    let allow = m
        .get("allow")
        .map(|n| cx.strings(n, "`audit.allow`", false))
        .unwrap_or_default();
    for a in &allow {
        if let Err(e) = globset::Glob::new(a) {
            cx.error(
                Code::InvalidValue,
                &a.loc,
                format!("invalid glob `{}`: {}", a.value, e.kind()),
                "expected a glob such as `/usr/lib64/libcuda.so*`",
                None,
            );
        }
    }
    AuditConfig { allow }
}

fn loader(cx: &mut Cx, node: &Node) -> Option<LoaderFacts> {
    let m = cx.map(
        node,
        "`loader`",
        &["default_dirs", "lib", "platform", "ld_so_cache"],
    )?;
    let abs = |cx: &mut Cx, s: Spanned<String>| -> Option<PathBuf> {
        if Path::new(&s.value).is_absolute() {
            Some(PathBuf::from(s.value))
        } else {
            cx.error(
                Code::BadPath,
                &s.loc,
                format!("`{}` must be an absolute path", s.value),
                "expected /path",
                None,
            );
            None
        }
    };
    let default_dirs = m
        .get("default_dirs")
        .map(|n| cx.strings(n, "`default_dirs`", false))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| abs(cx, s))
        .collect();
    let lib = m
        .get("lib")
        .and_then(|n| cx.string(n, "`lib`"))
        .map(|s| s.value);
    let platform = m
        .get("platform")
        .and_then(|n| cx.string(n, "`platform`"))
        .map(|s| s.value);
    let ld_so_cache = m
        .get("ld_so_cache")
        .and_then(|n| cx.string(n, "`ld_so_cache`"))
        .and_then(|s| abs(cx, s));
    Some(LoaderFacts {
        default_dirs,
        lib,
        platform,
        ld_so_cache,
        loc: m.loc.clone(),
    })
}
