//! The shipped GPU-stack recipes rendered for a real plan (issue 20): the
//! aws-ofi-nccl recipe on the `local` cluster with Debian's hwloc as an
//! external at `/usr` writes `.release_version` before its bootstrap and
//! never passes `/usr` as `--with-hwloc`; with a stack-built hwloc it does.

use std::path::{Path, PathBuf};

use stack::pipeline::build_job;
use stack::resolve::Plan;

use crate::harness::Stack;

/// The `local` cluster, plus `extra` lines under `packages:`.
fn cluster(dir: &Path, extra: &str) -> PathBuf {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster-configs/local/cluster.yaml");
    let text = std::fs::read_to_string(local).unwrap();
    let text = text.replacen("packages:\n", &format!("packages:\n{extra}"), 1);
    let c = dir.join("cluster");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("cluster.yaml"), text).unwrap();
    c
}

fn plan(spec: &str, extra: &str) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    std::fs::write(
        &file,
        format!("name: t\nenvironments:\n  net:\n    specs: [\"{spec}\"]\n"),
    )
    .unwrap();
    crate::harness::resolve::plan_with_builtin(file, cluster(dir.path(), extra))
}

fn job_of(plan: &Plan, name: &str) -> stack::build::BuildJob {
    let idx = plan
        .nodes_sorted()
        .into_iter()
        .find(|&i| plan.node(i).name == name)
        .unwrap();
    build_job(plan, idx, PathBuf::from("/src"), 2).unwrap()
}

fn configure_args(job: &stack::build::BuildJob) -> Vec<String> {
    assert_eq!(job.system.kind, "autotools");
    job.system.settings.list("configure_args").to_vec()
}

const DEBIAN_HWLOC: &str =
    "  hwloc: {buildable: false, externals: [{spec: hwloc@2.9.0, prefix: /usr}]}\n";

#[test]
fn aws_ofi_nccl_with_debian_hwloc_never_names_usr() {
    let p = plan("aws-ofi-nccl@1.21.1 ~cuda +neuron", DEBIAN_HWLOC);
    let j = job_of(&p, "aws-ofi-nccl");
    let args = configure_args(&j);
    assert!(
        !args.iter().any(|a| a.starts_with("--with-hwloc")),
        "{args:?}"
    );
    assert!(!args.iter().any(|a| a.contains("=/usr")), "{args:?}");
    // .release_version holds the version before autoreconf
    assert_eq!(j.steps.pre_bootstrap.len(), 1, "{:?}", j.steps);
    let step = &j.steps.pre_bootstrap[0];
    assert_eq!(step[0], "sh");
    assert!(step[2].contains(".release_version"), "{step:?}");
    assert_eq!(step.last().unwrap(), "1.21.1");
}

#[test]
fn aws_ofi_nccl_with_stack_hwloc_passes_its_prefix() {
    let p = plan("aws-ofi-nccl@1.21.1 ~cuda +neuron", "");
    let j = job_of(&p, "aws-ofi-nccl");
    let hwloc = job_of(&p, "hwloc").prefix;
    let args = configure_args(&j);
    assert!(
        args.contains(&format!("--with-hwloc={}", hwloc.display())),
        "{args:?}"
    );
}

#[test]
fn older_aws_ofi_nccl_needs_no_release_version() {
    let p = plan("aws-ofi-nccl@1.18.0 ~cuda +neuron", DEBIAN_HWLOC);
    assert!(job_of(&p, "aws-ofi-nccl").steps.pre_bootstrap.is_empty());
}

fn info(name: &str) -> String {
    let out = Stack::bare()
        .command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--color", "never", "info", name])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn stack_info_shows_the_wheels_and_nccls_fixed_fp8_kernels() {
    let cuda = info("cuda");
    // the nvcc wheel is the source, six more wheels are resources (nvml-dev for libfabric's
    // nvml.h), each with its sha256
    assert!(cuda.contains("13.0.2-wheels-x86_64"), "{cuda}");
    assert_eq!(
        cuda.matches("  + https://files.pythonhosted.org/").count(),
        12,
        "{cuda}"
    );
    assert!(cuda.contains("nvidia_nvml_dev-13.0.87"), "{cuda}");
    assert!(
        cuda.contains("sha256 2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4")
    );
    // libfabric +cuda dlopens CUDA by default: wheels have no libcuda stub to link
    let fabric = info("libfabric");
    assert!(
        fabric.contains("needed with wheel CUDA: no libcuda stubs"),
        "{fabric}"
    );
    let nccl = info("nccl");
    assert!(
        nccl.contains("4 FP8 kernels for sm_100f whatever this says"),
        "{nccl}"
    );
}
