//! A GitLab child pipeline for the work of a plan (`stack ci generate`):
//! one job per group of packages ([`Work::groups`]) in stage `build`,
//! `needs:` from the plan (only the
//! jobs of this pipeline: what the binary cache has is not rebuilt), and an
//! `assemble` job in the last stage that makes views, modules, the audit and
//! the image from the cache, and pushes the image when a label is given.
//!
//! GitLab caps `needs:` at 50 entries per job; the assemble job has none and
//! waits for the whole `build` stage instead, so the pipeline stays valid for
//! stacks of any size. A package job with more than 50 needs (a package with
//! more than 50 dependencies built in this pipeline) falls back to the same.

use serde_json::{Map, Value, json};

use crate::cluster::CiConfig;

use super::work::{JobCommand, Work};

/// GitLab's limit of `needs:` entries per job.
pub const MAX_NEEDS: usize = 50;

/// What the pipeline's jobs run.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// `stack build` arguments that select recipe, cluster and binary cache
    /// (`--locked` included): per package `--build build/<job> --only PKG` is added.
    pub command: JobCommand,
    /// `stack push` target of the assembled image (`REGISTRY/…:TAG`), if any.
    pub image_label: Option<String>,
    /// Options of that `stack push` (registry, TLS, signing key).
    pub push_args: Vec<String>,
    /// Tags, variables and image from the cluster's `ci:`.
    pub ci: CiConfig,
    /// The stack's name (the assemble job's build directory).
    pub stack_name: String,
    /// Group packages into jobs of about this many estimated seconds (0:
    /// one job per package).
    pub group_seconds: f64,
}

/// The pipeline as a JSON value (write it with [`super::to_yaml`]).
pub fn pipeline(work: &Work, opts: &PipelineOptions) -> Value {
    let mut top = Map::new();
    top.insert("stages".into(), json!(["build", "assemble"]));
    if !opts.ci.variables.is_empty() {
        top.insert("variables".into(), json!(opts.ci.variables));
    }
    let mut default = Map::new();
    if !opts.ci.tags.is_empty() {
        default.insert("tags".into(), json!(opts.ci.tags));
    }
    if let Some(image) = &opts.ci.image {
        default.insert("image".into(), json!(image));
    }
    if !default.is_empty() {
        top.insert("default".into(), Value::Object(default));
    }
    let groups = work.groups(opts.group_seconds);
    for g in &groups {
        let build_dir = format!("build/ci/{}", g.name);
        let packages: Vec<&str> = g
            .packages
            .iter()
            .map(|k| work.packages[*k].name.as_str())
            .collect();
        let hashes: Vec<&str> = g
            .packages
            .iter()
            .map(|k| work.packages[*k].hash.as_str())
            .collect();
        let selected: Vec<&super::work::Package> =
            g.packages.iter().map(|k| &work.packages[*k]).collect();
        let argv = opts.command.for_packages(&selected, &build_dir);
        let mut job = Map::new();
        job.insert("stage".into(), json!("build"));
        let needs: Vec<String> = g.deps.iter().map(|d| job_name(&groups[*d].name)).collect();
        if needs.len() <= MAX_NEEDS {
            job.insert("needs".into(), json!(needs));
        }
        job.insert(
            "variables".into(),
            json!({"STACK_PACKAGE": packages.join(" "), "STACK_HASH": hashes.join(" ")}),
        );
        job.insert("script".into(), json!([shell_line(&argv)]));
        job.insert(
            "artifacts".into(),
            json!({"when": "on_failure", "paths": [format!("{build_dir}/logs/"), format!("{build_dir}/report.html")], "expire_in": "1 week"}),
        );
        top.insert(job_name(&g.name), Value::Object(job));
    }
    top.insert("assemble".into(), assemble(opts));
    Value::Object(top)
}

fn job_name(name: &str) -> String {
    format!("build:{name}")
}

fn assemble(opts: &PipelineOptions) -> Value {
    let build_dir = format!("build/{}", opts.stack_name);
    let mut argv = vec![opts.command.program.clone()];
    argv.extend(opts.command.args.iter().cloned());
    argv.extend(["--build".into(), build_dir.clone()]);
    let mut script = vec![shell_line(&argv)];
    if let Some(label) = &opts.image_label {
        let mut push = vec![
            opts.command.program.clone(),
            "push".into(),
            build_dir.clone(),
            label.clone(),
        ];
        push.extend(opts.push_args.iter().cloned());
        script.push(shell_line(&push));
    }
    json!({
        "stage": "assemble",
        "script": script,
        "artifacts": {
            "when": "always",
            "paths": [
                format!("{build_dir}/meta/"),
                format!("{build_dir}/audit.json"),
                format!("{build_dir}/run.json"),
                format!("{build_dir}/report.html"),
            ],
        },
    })
}

/// `argv` as one POSIX shell line (single quotes where needed).
pub fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            let safe = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
            if safe {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::work::Package;
    use super::*;

    fn work() -> Work {
        let p = |name: &str, deps: &[usize]| Package {
            name: name.into(),
            version: "1.0".into(),
            hash: format!("{name}hash"),
            deps: deps.to_vec(),
            cost: 1.0,
        };
        Work {
            packages: vec![p("zlib", &[]), p("libfabric", &[]), p("mpich", &[0, 1])],
        }
    }

    fn opts() -> PipelineOptions {
        PipelineOptions {
            command: JobCommand {
                program: "stack".into(),
                args: vec!["build".into(), "stacks/x.yaml".into(), "--locked".into()],
            },
            image_label: Some("r.example/deploy/x/1:v1".into()),
            push_args: vec!["--plain-http".into()],
            ci: CiConfig {
                tags: vec!["builder".into()],
                ..CiConfig::default()
            },
            stack_name: "x".into(),
            group_seconds: 0.0,
        }
    }

    #[test]
    fn one_job_per_package_with_needs_from_the_plan() {
        let p = pipeline(&work(), &opts());
        assert_eq!(
            p["build:mpich"]["needs"],
            json!(["build:zlib", "build:libfabric"])
        );
        assert_eq!(p["build:zlib"]["needs"], json!([]));
        assert_eq!(
            p["build:libfabric"]["script"][0],
            "stack build stacks/x.yaml --locked --build build/ci/libfabric --only libfabric/libfabrichash"
        );
        assert_eq!(p["default"]["tags"], json!(["builder"]));
        assert!(p["assemble"].get("needs").is_none());
        assert_eq!(
            p["assemble"]["script"][1],
            "stack push build/x r.example/deploy/x/1:v1 --plain-http"
        );
    }

    #[test]
    fn grouped_jobs_build_their_packages_in_order_and_need_other_groups() {
        let mut w = work();
        w.packages[0].cost = 5.0;
        w.packages[1].cost = 10.0;
        w.packages[2].cost = 100.0;
        let mut o = opts();
        o.group_seconds = 60.0;
        let p = pipeline(&w, &o);
        let jobs: Vec<&String> = p
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with("build:"))
            .collect();
        assert_eq!(jobs, ["build:zlib+1", "build:mpich"]);
        assert_eq!(
            p["build:zlib+1"]["script"][0],
            "stack build stacks/x.yaml --locked --build build/ci/zlib+1 --only zlib/zlibhash --only libfabric/libfabrichash"
        );
        assert_eq!(
            p["build:zlib+1"]["variables"]["STACK_PACKAGE"],
            "zlib libfabric"
        );
        assert_eq!(p["build:mpich"]["needs"], json!(["build:zlib+1"]));
    }

    #[test]
    fn shell_lines_quote_what_the_shell_would_split() {
        let argv = [
            "a b".to_string(),
            "it's".into(),
            "--x=1".into(),
            String::new(),
        ];
        assert_eq!(shell_line(&argv), r"'a b' 'it'\''s' --x=1 ''");
    }
}
