//! `ci:` in a cluster configuration: what `stack ci generate` puts into
//! every job of the pipeline it writes.
//!
//! ```yaml
//! ci:
//!   tags: [alps-builder]              # runner tags of every job
//!   variables: {STACK_JOBS: "64"}     # pipeline variables
//!   image: registry.example/stack:1   # the job image, if runners use one
//!   stack: /opt/stack/bin/stack       # how jobs call stack [default: stack]
//!   group_seconds: 60                 # group small packages into jobs of ~60 s (0: one per package)
//!   shared_store: true                # Slurm jobs see the submitter's build directory
//! ```
//!
//! `group_seconds` and `shared_store` apply to `stack build --executor
//! slurm` too (the command line's `--group-seconds` wins).

use std::collections::BTreeMap;

use crate::diag::Loc;
use crate::diag::yaml::{Cx, Node};

/// The cluster's CI settings.
#[derive(Clone, Debug, Default)]
pub struct CiConfig {
    pub tags: Vec<String>,
    pub variables: BTreeMap<String, String>,
    pub image: Option<String>,
    /// The command that runs `stack` in a job.
    pub stack: Option<String>,
    /// Estimated seconds of packages grouped into one job (0: one job per
    /// package; `None`: the default).
    pub group_seconds: Option<u32>,
    /// The build directory is on a file system every build node mounts at
    /// the same path: Slurm jobs build straight into its store (no
    /// binary cache hand-over).
    pub shared_store: bool,
    pub loc: Option<Loc>,
}

/// Read `ci: {tags, variables, image, stack}`.
pub fn ci(cx: &mut Cx, node: &Node) -> Option<CiConfig> {
    let m = cx.map(
        node,
        "`ci`",
        &[
            "tags",
            "variables",
            "image",
            "stack",
            "group_seconds",
            "shared_store",
        ],
    )?;
    let tags = m
        .get("tags")
        .map(|n| cx.strings(n, "`ci.tags`", true))
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.value)
        .collect();
    let mut variables = BTreeMap::new();
    if let Some(v) = m.get("variables")
        && let Some(vm) = cx.open_map(v, "`ci.variables`")
    {
        for (k, val) in vm.entries() {
            if let Some(s) = cx.string(val, "a `ci.variables` value") {
                variables.insert(k.as_str().to_string(), s.value);
            }
        }
    }
    let image = m
        .get("image")
        .and_then(|n| cx.nonempty_string(n, "`ci.image`"))
        .map(|s| s.value);
    let stack = m
        .get("stack")
        .and_then(|n| cx.nonempty_string(n, "`ci.stack`"))
        .map(|s| s.value);
    let group_seconds = m
        .get("group_seconds")
        .and_then(|n| cx.u32(n, "`ci.group_seconds` (seconds)"));
    let shared_store = m
        .get("shared_store")
        .and_then(|n| cx.bool(n, "`ci.shared_store`"))
        .unwrap_or(false);
    Some(CiConfig {
        tags,
        variables,
        image,
        stack,
        group_seconds,
        shared_store,
        loc: Some(m.loc.clone()),
    })
}

#[cfg(test)]
mod tests {
    use crate::diag::{Diagnostics, SourceFile};

    fn parse(extra: &str) -> (Option<crate::cluster::Cluster>, Diagnostics) {
        let text = format!(
            "name: c\ntarget: x86_64\ncompilers:\n  - {{spec: gcc@12.2.0, cc: /usr/bin/gcc}}\n{extra}"
        );
        let src = SourceFile::new("/site/cluster-configs/c/cluster.yaml", &text);
        let mut d = Diagnostics::new();
        let c = crate::cluster::parse_cluster(&src, &mut d);
        (c, d)
    }

    #[test]
    fn reads_tags_variables_image_and_stack() {
        let (c, d) = parse(
            "ci:\n  tags: [builder, x86]\n  variables: {STACK_JOBS: \"64\"}\n  image: r.example/stack:1\n  stack: /opt/stack\n  group_seconds: 120\n  shared_store: true\n",
        );
        assert!(!d.has_errors(), "{d:?}");
        let ci = c.unwrap().ci.unwrap();
        assert_eq!(ci.tags, ["builder", "x86"]);
        assert_eq!(ci.variables["STACK_JOBS"], "64");
        assert_eq!(ci.image.as_deref(), Some("r.example/stack:1"));
        assert_eq!(ci.stack.as_deref(), Some("/opt/stack"));
        assert_eq!(ci.group_seconds, Some(120));
        assert!(ci.shared_store);
    }

    #[test]
    fn group_seconds_must_be_a_count() {
        let (_, d) = parse("ci:\n  group_seconds: soon\n");
        assert!(d.has_errors());
        assert!(format!("{d:?}").contains("group_seconds"), "{d:?}");
    }

    #[test]
    fn unknown_keys_are_errors() {
        let (_, d) = parse("ci:\n  tag: [builder]\n");
        assert!(d.has_errors());
        assert!(format!("{d:?}").contains("tag"), "{d:?}");
    }
}
