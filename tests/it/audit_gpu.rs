//! The audit findings GPU stacks need (issue 20), on tiny libraries built
//! with the real gcc in the test: run paths outside the stack and outside
//! the declared externals (DT_RPATH an error, DT_RUNPATH a warning), a
//! plugin that a library `dlopen`s by bare name and that only a view's
//! `LD_LIBRARY_PATH` finds, and the summary line counting warnings.

use crate::harness::audit::*;
use stack::audit::{AuditOptions, AuditReport, FindingKind, Severity, audit_tree};

/// A directory outside the stack that no host has (the CUDA toolkit of
/// the build machine, say).
const OUTSIDE: &str = "/nonexistent-cuda/lib64";

fn audit(c: &Case, external: &[&str]) -> AuditReport {
    let opts = AuditOptions {
        external_lib_dirs: external.iter().map(Into::into).collect(),
        ..AuditOptions::default()
    };
    audit_tree(&c.p("store"), &opts).unwrap()
}

fn of_kind(r: &AuditReport, kind: FindingKind) -> Vec<&stack::audit::Finding> {
    r.findings.iter().filter(|f| f.kind == kind).collect()
}

#[test]
fn rpath_outside_the_stack_is_an_error_runpath_a_warning() {
    let c = Case::new();
    c.lib(
        "nccl",
        &[],
        &[&format!("-Wl,--disable-new-dtags,-rpath,$ORIGIN:{OUTSIDE}")],
    );
    c.lib(
        "plugin",
        &[],
        &[&format!("-Wl,--enable-new-dtags,-rpath,$ORIGIN:{OUTSIDE}")],
    );
    c.put("libnccl.so", "store/nccl/lib");
    c.put("libplugin.so", "store/plugin/lib");
    c.done();

    let r = audit(&c, &[]);
    let found = of_kind(&r, FindingKind::SearchPathOutside);
    assert_eq!(found.len(), 2, "{:#?}", r.findings);
    let nccl = found
        .iter()
        .find(|f| f.file.ends_with("libnccl.so"))
        .unwrap();
    assert_eq!(nccl.severity, Severity::Error);
    assert_eq!(nccl.target.as_deref(), Some(OUTSIDE));
    assert!(
        nccl.message.contains("outranks LD_LIBRARY_PATH"),
        "{}",
        nccl.message
    );
    let plugin = found
        .iter()
        .find(|f| f.file.ends_with("libplugin.so"))
        .unwrap();
    assert_eq!(plugin.severity, Severity::Warning);
    assert!(r.has_errors());
    // $ORIGIN expands inside the stack: no finding for it.
    assert!(found.iter().all(|f| f.target.as_deref() != Some("$ORIGIN")));

    // Declared as an external's library directory, the element is accepted.
    let r = audit(&c, &[OUTSIDE]);
    assert!(
        of_kind(&r, FindingKind::SearchPathOutside).is_empty(),
        "{:#?}",
        r.findings
    );
    assert!(!r.has_errors(), "{:#?}", r.findings);
    assert_eq!(r.summary_line(), "audit: clean");
}

#[test]
fn a_runpath_warning_is_counted_in_the_summary_line() {
    let c = Case::new();
    c.lib(
        "plugin",
        &[],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{OUTSIDE}")],
    );
    c.put("libplugin.so", "store/plugin/lib");
    c.done();
    let r = audit(&c, &[]);
    assert!(!r.has_errors());
    assert_eq!(r.summary.warnings, 1, "{:#?}", r.findings);
    assert_eq!(r.summary_line(), "audit: 1 warning");
    assert_ne!(r.summary_line(), "audit: clean");
}

/// `libcore.so` dlopens `libnetplugin.so` by bare name, as NCCL does with
/// `libnccl-net.so`; the plugin lives in another package of the stack.
fn plugin_stack(c: &Case, core_rpath: &str) {
    c.lib("netplugin", &[], &[]);
    let src = c.p("b/core.c");
    std::fs::write(
        &src,
        "#include <dlfcn.h>\nvoid *load(void) { return dlopen(\"libnetplugin.so\", RTLD_NOW); }\n",
    )
    .unwrap();
    let out = c.s("b/libcore.so");
    let mut args = vec![
        "-shared",
        "-fPIC",
        "-o",
        &out,
        src.to_str().unwrap(),
        "-Wl,-soname,libcore.so",
        "-ldl",
    ];
    let flag = format!("-Wl,--enable-new-dtags,-rpath,{core_rpath}");
    if !core_rpath.is_empty() {
        args.push(&flag);
    }
    c.gcc_raw(&args);
    c.put("libcore.so", "store/core/lib");
    c.put("libnetplugin.so", "store/plugin/lib");
    c.done();
}

/// A `meta/env.json` whose view `default` puts the plugin's lib dir on
/// `LD_LIBRARY_PATH` (the directory is the mount point of the audit).
fn write_env_json(c: &Case) {
    let store = std::fs::canonicalize(c.p("store")).unwrap();
    let lib = store.join("plugin/lib");
    let doc = serde_json::json!({
        "name": "gpu", "mount": store,
        "views": {"default": {"env": {"version": 1, "type": "spack-view", "values": {
            "list": {"LD_LIBRARY_PATH": [{"op": "prepend", "value": [lib]}]},
            "scalar": {}}}}}
    });
    std::fs::create_dir_all(c.p("store/meta")).unwrap();
    std::fs::write(c.p("store/meta/env.json"), doc.to_string()).unwrap();
}

#[test]
fn dlopen_reachable_only_through_a_view_is_reported_with_the_view() {
    let c = Case::new();
    plugin_stack(&c, "");
    write_env_json(&c);
    let r = audit(&c, &[]);
    let found = of_kind(&r, FindingKind::DlopenOnlyThroughEnvironment);
    assert_eq!(found.len(), 1, "{:#?}", r.findings);
    let f = found[0];
    assert!(f.file.ends_with("core/lib/libcore.so"), "{}", f.file);
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.target.as_deref(), Some("libnetplugin.so"));
    assert!(
        f.message.contains("reachable only through the environment")
            && f.message.contains("view \"default\""),
        "{}",
        f.message
    );
    assert!(
        f.path
            .as_deref()
            .unwrap()
            .ends_with("plugin/lib/libnetplugin.so")
    );
    assert_eq!(r.summary_line(), "audit: 1 warning");
}

#[test]
fn dlopen_found_through_the_callers_runpath_is_fine() {
    let c = Case::new();
    plugin_stack(&c, "$ORIGIN/../../plugin/lib");
    write_env_json(&c);
    let r = audit(&c, &[]);
    assert!(
        of_kind(&r, FindingKind::DlopenOnlyThroughEnvironment).is_empty(),
        "{:#?}",
        r.findings
    );
    assert_eq!(r.summary_line(), "audit: clean", "{:#?}", r.findings);
}

#[test]
fn dlopen_found_nowhere_is_not_blamed_on_the_environment() {
    let c = Case::new();
    plugin_stack(&c, "");
    let r = audit(&c, &[]);
    assert!(of_kind(&r, FindingKind::DlopenOnlyThroughEnvironment).is_empty());
}
