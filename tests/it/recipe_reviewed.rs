//! The hand-reviewed imported recipes of prgenv-gnu (issue 14, item 3)
//! rendered for the real plans of `cluster-configs/alps-zen2` and
//! `alps-gh200`: every reviewed imported recipe of the plan renders its build
//! job (no template fails), and the rendered build of these (arguments,
//! environment, steps) is snapshot-tested, so a change of a translation or
//! of the renderer shows up as a reviewed diff.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use stack::build::{BuildJob, EnvOp};
use stack::pipeline::build_job;
use stack::resolve::Plan;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The reviewed recipes whose rendered build is snapshot-tested.
const REVIEWED: &[&str] = &[
    "fmt",
    "kokkos-tools",
    "libaec",
    "libtree",
    "netcdf-c",
    "netcdf-cxx",
    "netcdf-cxx4",
    "netcdf-fortran",
    "netlib-scalapack",
    "openblas",
    "osu-micro-benchmarks",
    "papi",
    "py-flit-core",
    "py-packaging",
    "py-pip",
    "py-setuptools",
    "py-wheel",
    "readline",
    "snappy",
    "superlu",
    "xz",
];

fn plan(cluster: &str) -> Plan {
    crate::harness::resolve::plan_with_builtin(
        Path::new(ROOT).join("stacks/prgenv-gnu.yaml"),
        Path::new(ROOT).join("cluster-configs").join(cluster),
    )
}

fn list(out: &mut String, key: &str, items: &[String]) {
    if !items.is_empty() {
        writeln!(out, "  {key}:").unwrap();
        for i in items {
            writeln!(out, "    {i}").unwrap();
        }
    }
}

fn steps(out: &mut String, phase: &str, steps: &[Vec<String>]) {
    for s in steps {
        writeln!(out, "  {phase}: {s:?}").unwrap();
    }
}

/// The parts of a job a recipe decides, one item a line.
pub(crate) fn describe(job: &BuildJob) -> String {
    let mut out = format!("{}@{} ({})\n", job.name, job.version, job.system.keyword());
    let keys: &[&str] = match job.system.keyword() {
        "autotools" => &["configure_args", "make_args"],
        "cmake" => &["cmake_args"],
        "makefile" => &["make_args", "build_targets", "install_targets"],
        _ => &[],
    };
    for key in keys {
        list(&mut out, key, job.system.settings.list(key));
    }
    let ops = |ops: &[EnvOp]| -> Vec<String> {
        ops.iter()
            .map(|op| match op {
                EnvOp::Set(k, v) => format!("{k}={v}"),
                other => format!("{other:?}"),
            })
            .collect()
    };
    // the `env:` of the build and link dependencies, applied first
    list(&mut out, "dep_env", &ops(&job.dep_env));
    list(&mut out, "build_env", &ops(&job.build_env));
    // Spack's filter_file, applied to the staged source tree
    let filters: Vec<String> = job
        .filters
        .iter()
        .map(|f| {
            format!(
                "{}: {:?} -> {:?} (string: {})",
                f.file, f.regex, f.replace, f.string
            )
        })
        .collect();
    list(&mut out, "filter", &filters);
    let s = &job.steps;
    steps(&mut out, "pre_bootstrap", &s.pre_bootstrap);
    steps(&mut out, "pre_configure", &s.pre_configure);
    steps(&mut out, "pre_build", &s.pre_build);
    steps(&mut out, "pre_install", &s.pre_install);
    steps(&mut out, "post_install", &s.post_install);
    out
}

fn rendered(cluster: &str) -> String {
    rendered_plan(&plan(cluster), cluster, REVIEWED)
}

/// The described build jobs of `names` in `p`; every reviewed imported
/// recipe of the plan renders.
fn rendered_plan(p: &Plan, cluster: &str, names: &[&str]) -> String {
    let mut out = String::new();
    for idx in p.nodes_sorted() {
        let node = p.node(idx);
        if node.is_external() {
            continue;
        }
        // every reviewed imported recipe renders (unreviewed ones may not yet:
        // `stack build` refuses them anyway)
        let reviewed = node.recipe.imported.as_ref().is_some_and(|i| i.reviewed);
        if !reviewed {
            continue;
        }
        let job = build_job(p, idx, PathBuf::from("/src"), 2)
            .unwrap_or_else(|e| panic!("{cluster}: {e}"));
        if names.contains(&node.name.as_str()) {
            out.push_str(&describe(&job));
        }
    }
    for name in names {
        assert!(out.contains(&format!("{name}@")), "{name} not in the plan");
    }
    out
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({filters => vec![
        // install prefixes end in the node's hash
        (r"-[0-9a-f]{8}\b", "-[HASH]"),
        (crate::filters::regex_escape(ROOT).as_str(), "[ROOT]"),
    ]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn reviewed_recipes_render_for_alps_zen2() {
    let text = rendered("alps-zen2");
    // openblas: OpenBLAS's TARGET of Spack's _microarch_target_args for zen2
    assert!(text.contains("TARGET=ZEN\n"), "{text}");
    // py-setuptools runs `python -m pip`: py-pip's site-packages for the
    // stack's python 3.13 is on its PYTHONPATH
    let setuptools = &text[text.find("py-setuptools@").unwrap()..];
    let setuptools = &setuptools[..setuptools.find("\npy-wheel@").unwrap()];
    assert!(
        setuptools.contains("PrependPath(\"PYTHONPATH\", \"/user-environment/zen2/py-pip-"),
        "{setuptools}"
    );
    assert!(
        setuptools.contains("/lib/python3.13/site-packages\")"),
        "{setuptools}"
    );
    snapshot("reviewed_alps_zen2", &text);
}

#[test]
fn reviewed_recipes_render_for_alps_gh200() {
    let text = rendered("alps-gh200");
    // neoverse_v2 has SVE: ARMV8SVE from 0.3.19 on
    assert!(text.contains("TARGET=ARMV8SVE\n"), "{text}");
    snapshot("reviewed_alps_gh200", &text);
}

/// osu-micro-benchmarks `+cuda` on alps-gh200: configure gets CUDA and NCCL,
/// and NVCCFLAGS holds Spack's `cuda_flags` for each `cuda_arch` (not unset:
/// cuda_arch is not `none`).
#[test]
fn osu_micro_benchmarks_with_cuda_renders_nvccflags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    std::fs::write(
        &file,
        "name: t\nenvironments:\n  e:\n    network: {}\n    specs: [\"osu-micro-benchmarks +cuda\"]\n    variants: [+cuda, cuda_arch=90]\n",
    )
    .unwrap();
    let p = crate::harness::resolve::plan_with_builtin(
        file,
        Path::new(ROOT).join("cluster-configs/alps-gh200"),
    );
    let idx = p
        .nodes_sorted()
        .into_iter()
        .find(|&i| p.node(i).name == "osu-micro-benchmarks")
        .unwrap();
    let job = build_job(&p, idx, PathBuf::from("/src"), 2).unwrap();
    assert_eq!(job.system.keyword(), "autotools", "{:?}", job.system);
    let configure_args = job.system.settings.list("configure_args");
    let cuda = p
        .deps(idx)
        .into_iter()
        .map(|(d, _)| p.node(d))
        .find(|n| n.name == "cuda")
        .unwrap()
        .prefix
        .clone();
    assert!(
        configure_args.contains(&"--enable-cuda".to_string()),
        "{configure_args:?}"
    );
    assert!(
        configure_args.contains(&format!("--with-cuda={}", cuda.display())),
        "{configure_args:?}"
    );
    assert!(
        configure_args.contains(&"--enable-ncclomb".to_string()),
        "{configure_args:?}"
    );
    let nvcc = job.build_env.iter().find_map(|op| match op {
        EnvOp::Set(k, v) if k == "NVCCFLAGS" => Some(v.clone()),
        _ => None,
    });
    assert_eq!(
        nvcc.as_deref(),
        Some(
            "--generate-code arch=compute_90,code=sm_90 --generate-code arch=compute_90,code=compute_90"
        ),
        "{:?}",
        job.build_env
    );
    assert!(
        !job.build_env
            .iter()
            .any(|op| matches!(op, EnvOp::Unset(k) if k == "NVCCFLAGS")),
        "{:?}",
        job.build_env
    );
}

/// The imported recipes reviewed for issue #14 that prgenv-gnu does not
/// reach: X.org's xcb libraries (prgenv-gnu gh200's xcb-util-cursor and its
/// closure), libtree's old dependencies, libzip.
const REVIEWED_EXTRA: &[&str] = &[
    "chrpath",
    "cpp-termcolor",
    "cxxopts",
    "elfio",
    "libbsd",
    "libmd",
    "libpthread-stubs",
    "libxau",
    "libxcb",
    "libxdmcp",
    "libzip",
    "util-macros",
    "xcb-proto",
    "xcb-util",
    "xcb-util-cursor",
    "xcb-util-image",
    "xcb-util-keysyms",
    "xcb-util-renderutil",
    "xproto",
];

fn stack_plan(specs: &[&str], variants: &str, cluster: &str) -> (tempfile::TempDir, Plan) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    let specs: Vec<String> = specs.iter().map(|s| format!("\"{s}\"")).collect();
    std::fs::write(
        &file,
        format!(
            "name: t\nenvironments:\n  e:\n    network: {{}}\n    specs: [{}]\n    variants: [{variants}]\n",
            specs.join(", ")
        ),
    )
    .unwrap();
    let p = crate::harness::resolve::plan_with_builtin(
        file,
        Path::new(ROOT).join("cluster-configs").join(cluster),
    );
    (dir, p)
}

#[test]
fn reviewed_xcb_and_tools_render_for_alps_zen2() {
    let specs = [
        "xcb-util-cursor",
        "xcb-util-keysyms",
        "libzip ~gnutls ~lzma ~mbedtls",
        "chrpath",
        "cpp-termcolor",
        "cxxopts",
        "elfio",
    ];
    let (_dir, p) = stack_plan(&specs, "", "alps-zen2");
    let text = rendered_plan(&p, "alps-zen2", REVIEWED_EXTRA);
    // libxcb: Spack's `patch` as a filter of src/xcb.h, LC_ALL
    assert!(text.contains("LC_ALL=C.UTF-8"), "{text}");
    assert!(
        text.contains("src/xcb.h: \"typedef struct xcb_auth_info_t {\" -> \"typedef struct {\""),
        "{text}"
    );
    // xproto installs serially
    let xproto = &text[text.find("xproto@").unwrap()..];
    assert!(xproto.contains("make_args:\n    -j1\n"), "{xproto}");
    snapshot("reviewed_extra_alps_zen2", &text);
}

/// nccl-tests on alps-gh200 with cuda_arch=90: CUDA_HOME, NCCL_HOME, MPI
/// as make arguments, and NVCC_GENCODE holds Spack's cuda_flags.
#[test]
fn reviewed_nccl_tests_renders_nvcc_gencode() {
    let (_dir, p) = stack_plan(&["nccl-tests"], "+cuda, cuda_arch=90", "alps-gh200");
    let text = rendered_plan(&p, "alps-gh200", &["nccl-tests"]);
    assert!(
        text.contains(
            "NVCC_GENCODE=--generate-code arch=compute_90,code=sm_90 --generate-code arch=compute_90,code=compute_90\n"
        ),
        "{text}"
    );
    assert!(text.contains("MPI=1"), "{text}");
    snapshot("reviewed_nccl_tests_alps_gh200", &text);
}
