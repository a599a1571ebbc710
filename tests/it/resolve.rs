//! The resolver, feature by feature, on the fixture repository in
//! `tests/fixtures/resolve/` (an Alps-shaped set of ~40 recipes with fake
//! sources: resolution never downloads anything).

use crate::harness::resolve::*;
use stack::resolve::RootKind;

#[test]
fn conditional_dependencies_follow_the_variants() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  cxi:
    specs: ["libfabric fabrics=cxi"]
  plain:
    specs: ["libfabric"]
"#,
        "local",
    ));
    let cxi = env_names(&plan, "cxi");
    for dep in ["libcxi", "cassini-headers", "cxi-driver", "json-c", "curl"] {
        assert!(cxi.contains(&dep.to_string()), "{dep} in {cxi:?}");
    }
    assert_eq!(env_names(&plan, "plain"), ["libfabric"]);
    // The dependencies for the main branch (`when: "@main"`) stay out.
    let lf = plan
        .find_hash(
            &named(&plan, "libfabric")
                .iter()
                .find(|n| variants(n).contains("cxi"))
                .unwrap()
                .hash,
        )
        .unwrap();
    let direct: Vec<String> = plan
        .deps(lf)
        .into_iter()
        .map(|(d, _)| plan.node(d).name.clone())
        .collect();
    assert_eq!(
        direct,
        ["cassini-headers", "curl", "cxi-driver", "json-c", "libcxi"]
    );
    let fabrics: Vec<String> = named(&plan, "libfabric")
        .iter()
        .map(|n| variants(n))
        .collect();
    assert!(
        fabrics.contains(&"~cuda fabrics=cxi".to_string()),
        "{fabrics:?}"
    );
    assert!(
        fabrics.contains(&"~cuda fabrics=sockets,tcp,udp".to_string()),
        "{fabrics:?}"
    );
}

#[test]
fn dependency_types_become_typed_edges() {
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [\"libfabric fabrics=cxi\"]\n",
        "local",
    ));
    let lf = plan.find_hash(&node(&plan, "libfabric").hash).unwrap();
    let deps: Vec<(String, Vec<&str>)> = plan
        .deps(lf)
        .into_iter()
        .map(|(d, t)| (plan.node(d).name.clone(), t.names()))
        .collect();
    assert!(
        deps.contains(&("cassini-headers".into(), vec!["build"])),
        "{deps:?}"
    );
    assert!(
        deps.contains(&("libcxi".into(), vec!["build", "link"])),
        "{deps:?}"
    );
}

#[test]
fn conditional_variants_exist_only_when_their_condition_holds() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  gpu:
    specs: ["libfabric +cuda +gdrcopy"]
  cpu:
    specs: ["libfabric"]
"#,
        "local",
    ));
    let all = named(&plan, "libfabric");
    let gpu = all.iter().find(|n| variants(n).contains("+cuda")).unwrap();
    let cpu = all.iter().find(|n| variants(n).contains("~cuda")).unwrap();
    assert!(gpu.variants.contains_key("gdrcopy"));
    assert!(!cpu.variants.contains_key("gdrcopy"));
    assert_eq!(env_names(&plan, "gpu"), ["cuda", "gdrcopy", "libfabric"]);
}

#[test]
fn conditional_patches_apply_by_version_variant_and_target() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  old:
    specs: ["libfabric@2.1 fabrics=cxi"]
  new:
    specs: ["libfabric@2.2 fabrics=cxi"]
"#,
        "local",
    ));
    let lf = named(&plan, "libfabric");
    let v21 = lf.iter().find(|n| n.version.as_str() == "2.1.0").unwrap();
    let v22 = lf.iter().find(|n| n.version.as_str() == "2.2.0").unwrap();
    assert_eq!(v21.patches.len(), 1);
    assert_eq!(v21.patches[0].level, 1);
    assert!(v22.patches.is_empty());
    // libfuse 2.9.9's aarch64 header fix: only on the GH200 cluster.
    let body = "environments:\n  e:\n    specs: [\"libfuse@2\"]\n";
    let x86 = ok(resolve_yaml(body, "local"));
    let arm = ok(resolve_yaml(body, "gh200"));
    assert!(node(&x86, "libfuse").patches.is_empty());
    assert_eq!(node(&arm, "libfuse").patches.len(), 1);
    assert_eq!(node(&arm, "libfuse").target, "neoverse_v2");
}

#[test]
fn multi_valued_variants_take_the_union_of_requirements() {
    // cray-mpich requires `libfabric fabrics=shm`; the stack asks for cxi.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [\"libfabric fabrics=cxi\", cray-mpich@8.1.30]\n",
        "local",
    ));
    assert_eq!(variants(node(&plan, "libfabric")), "~cuda fabrics=cxi,shm");
}

#[test]
fn single_valued_variants_take_the_requested_value_or_the_default() {
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [\"curl tls=gnutls\", nccl]\n",
        "local",
    ));
    assert_eq!(variants(node(&plan, "curl")), "~nghttp2 tls=gnutls");
    assert!(
        named(&plan, "openssl").is_empty(),
        "tls=gnutls drops openssl"
    );
    assert_eq!(variants(node(&plan, "nccl")), "cuda_arch=none fabrics=auto");
}

#[test]
fn environment_variants_apply_to_every_package_that_has_them() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  gpu:
    specs: [nccl, hwloc, "libfabric ~cuda", libuv]
    variants: [+cuda, cuda_arch=90]
"#,
        "local",
    ));
    assert_eq!(variants(node(&plan, "nccl")), "cuda_arch=90 fabrics=auto");
    assert_eq!(variants(node(&plan, "hwloc")), "+cuda");
    // An explicit spec wins over the environment's defaults.
    assert_eq!(
        variants(node(&plan, "libfabric")),
        "~cuda fabrics=sockets,tcp,udp"
    );
    assert_eq!(variants(node(&plan, "libuv")), "");
}

#[test]
fn virtuals_get_the_first_provider_unless_policy_or_the_stack_says_otherwise() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  first:
    specs: [mukautuva]
  requested:
    specs: [mukautuva, mpich]
  required:
    specs: ["mukautuva wrapper=ompi"]
    packages:
      mpi: {require: [openmpi]}
  preferred:
    specs: [mukautuva]
    packages:
      mpi: {prefer: [mpich]}
"#,
        "local",
    ));
    let mpi_of = |env: &str| {
        let names = env_names(&plan, env);
        ["cray-mpich", "mpich", "openmpi"]
            .into_iter()
            .filter(|p| names.contains(&p.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(mpi_of("first"), ["cray-mpich"]);
    assert_eq!(mpi_of("requested"), ["mpich"]);
    assert_eq!(mpi_of("required"), ["openmpi"]);
    assert_eq!(mpi_of("preferred"), ["mpich"]);
    // Edges from mukautuva go to the provider.
    let e = plan.environment("required").unwrap();
    let muk = e.roots[0].node;
    let deps: Vec<String> = plan
        .deps(muk)
        .into_iter()
        .map(|(d, _)| plan.node(d).name.clone())
        .collect();
    assert_eq!(deps, ["openmpi"]);
}

#[test]
fn fuse_and_zlib_api_virtuals() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  default:
    specs: [squashfuse]
  ng:
    specs: [squashfuse]
    packages:
      zlib-api: {prefer: [zlib-ng]}
"#,
        "local",
    ));
    let d = env_names(&plan, "default");
    assert!(
        d.contains(&"libfuse".to_string()) && d.contains(&"zlib".to_string()),
        "{d:?}"
    );
    assert_eq!(node(&plan, "libfuse").version.as_str(), "3.16.2");
    let ng = env_names(&plan, "ng");
    assert!(
        ng.contains(&"zlib-ng".to_string()) && !ng.contains(&"zlib".to_string()),
        "{ng:?}"
    );
}

#[test]
fn provider_conditions_constrain_the_provider() {
    // cray-mpich provides mpi only from 8 on; the newest is picked anyway.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [mukautuva]\n    packages:\n      mpi: {require: [cray-mpich]}\n",
        "local",
    ));
    assert_eq!(node(&plan, "cray-mpich").version.as_str(), "8.1.30");
    // A root naming the virtual itself resolves to its provider.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [mpi]\n",
        "local",
    ));
    let e = plan.environment("e").unwrap();
    assert_eq!(plan.node(e.roots[0].node).name, "cray-mpich");
}

#[test]
fn externals_end_the_graph() {
    // xpmem is `buildable: false` with an external in the cluster: its own
    // build dependency (autoconf) is not in the plan.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [cray-mpich@8.1.30]\n",
        "local",
    ));
    let x = node(&plan, "xpmem");
    assert_eq!(x.external.as_deref(), Some(std::path::Path::new("/usr")));
    assert_eq!(x.prefix, std::path::PathBuf::from("/usr"));
    assert!(x.source.is_none());
    assert_eq!(variants(x), "~kernel-module");
    assert!(named(&plan, "autoconf").is_empty());
    let xi = plan.find_hash(&x.hash).unwrap();
    assert!(plan.deps(xi).is_empty());
}

#[test]
fn listed_externals_are_preferred_but_not_forced() {
    let body = r#"
environments:
  system:
    specs: [squashfuse]
    packages:
      zlib: {externals: [{spec: zlib@1.2.13, prefix: /usr}]}
  newer:
    specs: ["squashfuse", "zlib@1.3"]
    packages:
      zlib: {externals: [{spec: zlib@1.2.13, prefix: /usr}]}
"#;
    let plan = ok(resolve_yaml(body, "local"));
    let z = named(&plan, "zlib");
    assert_eq!(z.len(), 2);
    assert!(
        z.iter()
            .any(|n| n.is_external() && n.version.as_str() == "1.2.13")
    );
    assert!(
        z.iter()
            .any(|n| !n.is_external() && n.version.as_str() == "1.3.1")
    );
}

#[test]
fn policies_merge_cluster_then_environment_per_package() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  cluster-only:
    specs: [curl, libuv]
  overridden:
    specs: [curl, libuv]
    packages:
      curl: {require: ["tls=none"]}
      libuv: {version: ["1.49.2"]}
"#,
        "policy",
    ));
    let curls = named(&plan, "curl");
    let c1 = curls
        .iter()
        .find(|n| variants(n).contains("gnutls"))
        .unwrap();
    // cluster: require tls=gnutls, version 8.10.1; `all: prefer: [+nghttp2]`
    assert_eq!(c1.version.as_str(), "8.10.1");
    assert_eq!(variants(c1), "+nghttp2 tls=gnutls");
    // environment: require replaced (tls=none), version list kept from the cluster
    let c2 = curls
        .iter()
        .find(|n| variants(n).contains("tls=none"))
        .unwrap();
    assert_eq!(c2.version.as_str(), "8.10.1");
    let uv: Vec<&str> = named(&plan, "libuv")
        .iter()
        .map(|n| n.version.as_str())
        .collect();
    assert!(uv.contains(&"1.48.0") && uv.contains(&"1.49.2"), "{uv:?}");
    // the cluster's zlib external (listed, buildable) is used
    assert!(named(&plan, "zlib").iter().all(|n| n.is_external()));
}

#[test]
fn version_choice_newest_preferred_pinned_and_branches_only_when_named() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  newest:
    specs: [libuv, libcxi, hwloc, json-c]
  pinned:
    specs: ["libuv@1.48", "libcxi@main"]
  preferred:
    specs: [hwloc]
    packages:
      hwloc: {prefer: ["@2.9"]}
"#,
        "local",
    ));
    let versions = |name: &str| -> Vec<String> {
        let mut v: Vec<String> = named(&plan, name)
            .iter()
            .map(|n| n.version.to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(versions("libuv"), ["1.48.0", "1.49.2"]);
    assert_eq!(versions("libcxi"), ["12.0.0", "main"]);
    assert_eq!(versions("hwloc"), ["2.11.1", "2.9.3"]);
    // `preferred: true` in the recipe wins over the newer 0.18
    assert_eq!(versions("json-c"), ["0.17"]);
}

#[test]
fn backtracking_finds_an_older_plugin_for_a_pinned_nccl() {
    // aws-ofi-nccl 1.9+ requires nccl fabrics=auto; with verbs pinned the
    // resolver backs up to aws-ofi-nccl 1.8.1, which needs nccl@:2.22.
    let plan = ok(resolve_yaml(
        "environments:\n  ml:\n    specs: [\"aws-ofi-nccl ~mpi\", \"nccl fabrics=verbs\"]\n",
        "local",
    ));
    assert_eq!(node(&plan, "aws-ofi-nccl").version.as_str(), "1.8.1");
    assert_eq!(node(&plan, "nccl").version.as_str(), "2.22.3-1");
    assert_eq!(
        variants(node(&plan, "nccl")),
        "cuda_arch=none fabrics=verbs"
    );
}

#[test]
fn identical_nodes_are_shared_between_environments() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  a:
    specs: [hwloc, libuv]
  b:
    specs: ["hwloc +cuda", libuv]
"#,
        "local",
    ));
    assert_eq!(
        named(&plan, "libuv").len(),
        1,
        "same configuration, one node"
    );
    assert_eq!(named(&plan, "libxml2").len(), 1);
    assert_eq!(
        named(&plan, "hwloc").len(),
        2,
        "different variants, two nodes"
    );
    let a = plan.environment("a").unwrap();
    let b = plan.environment("b").unwrap();
    assert_eq!(
        a.roots
            .iter()
            .find(|r| r.spec.text == "libuv")
            .unwrap()
            .node,
        b.roots
            .iter()
            .find(|r| r.spec.text == "libuv")
            .unwrap()
            .node
    );
}

#[test]
fn unify_gives_one_node_per_name_in_an_environment() {
    // Two roots want different things of libfabric: one node with both.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [\"libfabric fabrics=cxi\", \"libfabric +cuda\", mpich]\n",
        "local",
    ));
    let e = plan.environment("e").unwrap();
    let lf: Vec<_> = e
        .nodes
        .iter()
        .filter(|i| plan.node(**i).name == "libfabric")
        .collect();
    assert_eq!(lf.len(), 1);
    assert_eq!(variants(plan.node(*lf[0])), "+cuda fabrics=cxi ~gdrcopy");
}

#[test]
fn network_specs_and_cluster_defaults_are_roots() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  own:
    network: {mpi: "cray-mpich@8.1.30", specs: ["libfabric fabrics=cxi"]}
  defaults:
    network: {}
    specs: [libuv]
"#,
        "gh200",
    ));
    let own = plan.environment("own").unwrap();
    assert!(own.roots.iter().all(|r| r.kind == RootKind::Network));
    let d = plan.environment("defaults").unwrap();
    let kinds: Vec<(String, RootKind)> = d
        .roots
        .iter()
        .map(|r| (r.spec.text.clone(), r.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("libuv".to_string(), RootKind::Spec),
            ("cray-mpich@8.1.30".to_string(), RootKind::Network),
            ("libfabric fabrics=cxi,shm".to_string(), RootKind::Network),
        ]
    );
    // gh200's policy `curl: require: +nghttp2` applies.
    assert!(
        named(&plan, "curl")
            .iter()
            .all(|n| variants(n).contains("+nghttp2"))
    );
}

#[test]
fn plan_helpers_order_and_prefixes() {
    let plan = ok(resolve_fixture("alps-like.yaml", "gh200"));
    let order = plan.topo_order();
    assert_eq!(order.len(), plan.graph.node_count());
    let pos: std::collections::HashMap<_, _> =
        order.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    for e in plan.graph.edge_indices() {
        let (a, b) = plan.graph.edge_endpoints(e).unwrap();
        assert!(pos[&b] < pos[&a], "dependencies come first");
    }
    for n in plan.graph.node_weights() {
        if n.is_external() {
            continue;
        }
        let expected = format!(
            "/user-environment/neoverse_v2/{}-{}-{}",
            n.name,
            n.version,
            &n.hash[..8]
        );
        assert_eq!(n.prefix.to_string_lossy(), expected);
        assert_eq!(n.hash.len(), 64);
    }
    assert!(petgraph::algo::toposort(&plan.graph, None).is_ok());
    assert_eq!(plan.environments.len(), 2);
    assert_eq!(plan.environments[0].views.len(), 1);
}

#[test]
fn mount_override_changes_prefixes_and_hashes() {
    let inputs = load(&fixtures().join("stacks/alps-like.yaml"), "gh200");
    let a = ok(resolve_inputs(&inputs, &Default::default()));
    let opts = stack::resolve::ResolveOptions {
        mount: Some("/opt/stack".into()),
        ..Default::default()
    };
    let b = ok(resolve_inputs(&inputs, &opts));
    let (x, y) = (node(&a, "libuv"), node(&b, "libuv"));
    assert_ne!(x.hash, y.hash);
    assert!(y.prefix.starts_with("/opt/stack/neoverse_v2"));
    // externals keep their prefix
    assert_eq!(node(&b, "xpmem").prefix, std::path::PathBuf::from("/usr"));
}

#[test]
fn conflicts_naming_dependencies_steer_the_provider_choice() {
    // wrapper=ompi conflicts with ^cray-mpich and ^mpich: the search moves
    // on from the first providers to openmpi.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [\"mukautuva wrapper=ompi\"]\n",
        "local",
    ));
    let m = node(&plan, "mukautuva");
    assert_eq!(m.virtuals.get("mpi").map(String::as_str), Some("openmpi"));
    assert!(named(&plan, "cray-mpich").is_empty() && named(&plan, "mpich").is_empty());
    // Its spec lists its dependencies, so the build stage can test `^openmpi`.
    assert!(m.satisfies(&stack::spec::Spec::parse("^openmpi").unwrap()));
    assert!(!m.satisfies(&stack::spec::Spec::parse("^cray-mpich").unwrap()));
    // The default wrapper keeps the first provider.
    let plan = ok(resolve_yaml(
        "environments:\n  e:\n    specs: [mukautuva]\n",
        "local",
    ));
    assert_eq!(
        node(&plan, "mukautuva")
            .virtuals
            .get("mpi")
            .map(String::as_str),
        Some("cray-mpich")
    );
}

/// Spec compiler flags: the node's own (root spec, `packages:` requirement),
/// `cflags==` propagated along link dependencies but not to build tools, and
/// in the hash only when present (a node without flags hashes as before).
#[test]
fn spec_flags_reach_nodes_propagate_along_links_and_change_only_their_hashes() {
    let plan = ok(resolve_yaml(
        r#"
environments:
  flags:
    specs: ["libfabric fabrics=cxi cflags==-O2 ldflags=-Wl,-z,now"]
    packages:
      libcxi: {require: "cppflags=-DX"}
  plain:
    specs: ["libfabric fabrics=cxi"]
"#,
        "local",
    ));
    let texts = |name: &str| -> Vec<String> {
        let mut v: Vec<String> = named(&plan, name)
            .iter()
            .map(|n| {
                n.spec
                    .flags
                    .iter()
                    .map(|(k, f)| f.to_spec_text(k))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(texts("libfabric"), ["", "cflags==-O2 ldflags=-Wl,-z,now"]);
    // a link dependency: the propagated flag and its own requirement
    assert_eq!(texts("libcxi"), ["", "cflags==-O2 cppflags=-DX"]);
    // a build-only dependency gets nothing: one node for both environments
    assert_eq!(texts("cassini-headers"), [""]);
    let flagged = named(&plan, "libfabric");
    assert_ne!(flagged[0].hash, flagged[1].hash);
    assert!(
        flagged
            .iter()
            .any(|n| n.spec.to_string().contains("cflags==-O2"))
    );
}

/// A branch is the last resort: no release of libcxi satisfies `@13:`, so
/// `main` is chosen, as in Spack, unpinned until the fetch stage pins it.
#[test]
fn a_branch_is_chosen_when_no_release_satisfies() {
    let plan = ok(resolve_fixture("branch-last-resort.yaml", "local"));
    let libcxi = node(&plan, "libcxi");
    assert_eq!(libcxi.version.to_string(), "main");
    // A release that satisfies wins over the branch.
    let plan = ok(resolve_yaml(
        "environments:\n  net:\n    specs: [\"libcxi@:12\"]\n",
        "local",
    ));
    assert_ne!(node(&plan, "libcxi").version.to_string(), "main");
}

/// A git version that a requirement asks for (`@git.<ref>=<version>`, as
/// alps-cluster-config's `conduit` requirement) and the recipe does not list
/// is the recipe's git repository at that ref, compared as `<version>`.
#[test]
fn git_versions_asked_for_are_the_recipes_repository_at_that_ref() {
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let plan = ok(resolve_yaml(
        &format!(
            r#"environments:
  policy:
    specs: ["libcxi@12"]
    packages:
      libcxi: {{require: ["@git.{sha}=12.1.0"]}}
  root:
    specs: ["libcxi@git.v13.0.0rc1=13.0.0"]
"#
        ),
        "local",
    ));
    let by_env = |env: &str| {
        let names: Vec<_> = plan
            .graph
            .node_weights()
            .filter(|n| n.name == "libcxi")
            .collect();
        let want = if env == "policy" { "12.1.0" } else { "13.0.0" };
        *names
            .iter()
            .find(|n| n.version.to_string().ends_with(want))
            .unwrap_or_else(|| panic!("no libcxi {want}: {names:?}"))
    };
    let pinned = by_env("policy");
    assert_eq!(pinned.version.to_string(), format!("git.{sha}=12.1.0"));
    match pinned.source.as_ref().unwrap() {
        stack::resolve::NodeSource::Git {
            repo, reference, ..
        } => {
            assert!(repo.to_string().contains("shs-libcxi"), "{repo}");
            assert_eq!(*reference, stack::recipes::GitRef::Commit(sha.into()));
        }
        other => panic!("{other:?}"),
    }
    let tagged = by_env("root");
    match tagged.source.as_ref().unwrap() {
        stack::resolve::NodeSource::Git { reference, .. } => {
            assert_eq!(*reference, stack::recipes::GitRef::Tag("v13.0.0rc1".into()));
        }
        other => panic!("{other:?}"),
    }
}
