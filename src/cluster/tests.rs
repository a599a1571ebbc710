//! Tests of cluster loading and package policies.

use std::path::Path;

use crate::diag::yaml::{self, Cx};
use crate::diag::{Code, Diagnostics, SourceFile};

use super::*;

fn parse(text: &str) -> (Option<Cluster>, Diagnostics) {
    let src = SourceFile::new("/site/cluster-configs/c/cluster.yaml", text);
    let mut d = Diagnostics::new();
    let c = parse_cluster(&src, &mut d);
    (c, d)
}

fn read_policies(text: &str) -> (Policies, Diagnostics) {
    let src = SourceFile::new("/x/p.yaml", text);
    let root = yaml::parse(&src).unwrap();
    let mut d = Diagnostics::new();
    let mut cx = Cx::new(&src, &mut d);
    let node = root
        .as_mapping()
        .unwrap()
        .get_node("packages")
        .unwrap()
        .clone();
    let p = policies(&mut cx, &node);
    (p, d)
}

#[test]
fn a_cluster_converts_to_the_model() {
    let (c, d) = parse(
        r#"
name: alps
description: GH200 nodes
target: neoverse_v2
os: sles15
compilers:
  - {spec: gcc@12.3.0, cc: /usr/bin/gcc-12, cxx: /usr/bin/g++-12}
  - {spec: gcc@13.2.0, cc: /opt/gcc13/bin/gcc}
packages:
  xpmem: {buildable: false, externals: [{spec: "xpmem@2.9.6 ~kernel-module", prefix: /usr}]}
  all: {prefer: ["%gcc@12"]}
network: {mpi: "cray-mpich@8.1.30", specs: ["libfabric fabrics=cxi"]}
mirrors: [file:///srv/mirror, ../mirror]
audit: {allow: ["/usr/lib64/libcuda.so*"]}
loader: {default_dirs: [/lib64, /usr/lib64], lib: lib64, platform: aarch64, ld_so_cache: /etc/ld.so.cache}
"#,
    );
    let c = c.unwrap();
    // compiler paths of another system only warn
    assert!(!d.has_errors(), "{d}");
    assert_eq!(c.name.value, "alps");
    assert_eq!(c.target.value, "neoverse_v2");
    assert_eq!(c.compilers.len(), 2);
    assert_eq!(c.default_compiler().unwrap().spec.text, "gcc@12.3.0");
    let want = crate::spec::Spec::parse("gcc@13").unwrap();
    assert_eq!(
        c.find_compiler(&want).unwrap().cc.path,
        Path::new("/opt/gcc13/bin/gcc")
    );
    let x = c.packages.get("xpmem").unwrap();
    assert_eq!(x.buildable, Some(false));
    assert_eq!(x.externals.as_ref().unwrap()[0].prefix, Path::new("/usr"));
    assert!(c.packages.all().is_some());
    let net = c.network.as_ref().unwrap();
    assert_eq!(net.mpi.as_ref().unwrap().name(), Some("cray-mpich"));
    assert_eq!(net.specs.len(), 1);
    assert_eq!(
        c.mirrors[1].resource,
        crate::recipes::Resource::Local("/site/cluster-configs/mirror".into())
    );
    assert_eq!(c.audit.allow.len(), 1);
    let l = c.loader.as_ref().unwrap();
    assert_eq!(l.default_dirs.len(), 2);
    assert_eq!(l.lib.as_deref(), Some("lib64"));
}

#[test]
fn cluster_problems_are_collected() {
    let (c, d) = parse(
        "name: c\ntarget: neoverse-v2\ncompilers: []\nloader: {ld_so_cache: etc/ld.so.cache}\nextra: 1\n",
    );
    assert!(c.is_some());
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::UnknownKey,
            Code::UnknownTarget,
            Code::MissingField,
            Code::BadPath
        ],
        "{d}"
    );
    let target = d.iter().find(|d| d.code == Code::UnknownTarget).unwrap();
    assert_eq!(target.help.as_deref(), Some("did you mean `neoverse_v2`?"));
}

#[test]
fn policies_parse_every_field() {
    let (p, d) = read_policies(
        r#"
packages:
  mpi: {require: cray-mpich}
  libcalc: {require: ["@1.2:", "+shared"], prefer: ["+shared"], version: ["1.2", "1.1"]}
  zlib: {buildable: false, externals: [{spec: zlib@1.2.13, prefix: /usr}]}
"#,
    );
    assert!(d.is_empty(), "{d}");
    let mpi = p.get("mpi").unwrap();
    assert_eq!(mpi.require.as_ref().unwrap()[0].name(), Some("cray-mpich"));
    let calc = p.get("libcalc").unwrap();
    assert_eq!(calc.require.as_ref().unwrap().len(), 2);
    assert!(calc.require.as_ref().unwrap()[0].name().is_none());
    assert_eq!(calc.version.as_ref().unwrap()[1].value, "1.1");
    assert_eq!(calc.loc.line, 4);
    assert!(p.get("zlib").unwrap().externals.is_some());
}

#[test]
fn policy_errors_are_reported() {
    let (_, d) = read_policies(
        r#"
packages:
  zlib: {buildable: no, externals: [{spec: zlib, prefix: usr}], requires: x}
  curl: {externals: [{spec: "zlib@1", prefix: /usr}], version: ["1..2"]}
"#,
    );
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::UnknownKey,
            Code::WrongType,
            Code::InvalidValue,
            Code::BadPath,
            Code::InvalidValue,
            Code::InvalidValue
        ],
        "{d}"
    );
    assert_eq!(
        d.iter().next().unwrap().help.as_deref(),
        Some("did you mean `require`?")
    );
}

#[test]
fn policies_merge_per_package_and_field() {
    let (base, _) = read_policies(
        "packages:\n  curl: {buildable: false, externals: [{spec: curl@8.0.1, prefix: /usr}]}\n  zlib: {version: [\"1.3\"]}\n  all: {prefer: [\"+shared\"]}\n",
    );
    let (over, _) =
        read_policies("packages:\n  curl: {buildable: true}\n  hwloc: {require: \"@2\"}\n");
    let m = base.merged_with(&over);
    let curl = m.get("curl").unwrap();
    assert_eq!(curl.buildable, Some(true));
    assert_eq!(
        curl.externals.as_ref().unwrap().len(),
        1,
        "unset fields are kept"
    );
    assert!(m.get("zlib").is_some() && m.get("hwloc").is_some());
    let eff = m.effective("hwloc").unwrap();
    assert_eq!(eff.prefer.as_ref().unwrap()[0].text, "+shared");
    assert_eq!(eff.require.as_ref().unwrap()[0].text, "@2");
    assert!(eff.is_buildable());
    assert!(
        m.effective("nothing").is_some(),
        "`all` applies to every package"
    );
    assert!(Policies::default().effective("x").is_none());
}

#[test]
fn the_default_cluster_is_found_walking_up() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster-configs/local");
    fs_err::create_dir_all(&dir).unwrap();
    fs_err::write(dir.join(CLUSTER_FILE), "name: local\n").unwrap();
    let deep = tmp.path().join("stacks/x");
    fs_err::create_dir_all(&deep).unwrap();
    assert_eq!(find_default(&deep), Some(dir));
}

#[test]
fn libc_and_the_compiler_fingerprint_are_part_of_the_cluster() {
    let tmp = tempfile::tempdir().unwrap();
    let cc = tmp.path().join("gcc");
    fs_err::write(&cc, "a compiler").unwrap();
    let (c, d) = parse(&format!(
        "name: c\ntarget: x86_64\nlibc: glibc@2.31\ncompilers:\n  - {{spec: gcc@12.2.0, cc: {}}}\n  - {{spec: gcc@13.1.0, cc: /nonexistent/gcc}}\n",
        cc.display()
    ));
    let c = c.unwrap_or_else(|| panic!("{d}"));
    assert_eq!(c.libc.as_deref(), Some("glibc@2.31"));
    let fp = c.compilers[0].fingerprint.clone().unwrap();
    assert_eq!(fp.len(), 16);
    assert!(
        c.compilers[0]
            .identity()
            .ends_with(&format!("fingerprint={fp}"))
    );
    // another system's compiler: no fingerprint
    assert_eq!(c.compilers[1].fingerprint, None);
    assert!(c.compilers[1].identity().ends_with("fingerprint=none"));
    // without `libc:`, the host's glibc
    let (c, _) =
        parse("name: c\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\n");
    assert!(c.unwrap().libc.unwrap().starts_with("glibc@2."));
}
