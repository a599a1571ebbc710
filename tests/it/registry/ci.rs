//! `stack ci generate`: the GitLab child pipeline of the demo stack, checked
//! against GitLab's CI schema, its jobs run one after the other as a runner
//! would (credentials, CA, signing key and source cache from the
//! environment, as CI variables give them), and the assembled image
//! compared with a local build of the same lock file.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;

use super::{root, text, with_password};
use crate::harness::STACK;
use crate::harness::registry::stack_client;
use crate::harness::registry::{PASSWORD, TestRegistry, USER};

/// A YAML document as JSON (what the schema validator takes).
fn yaml_to_json(text: &str) -> serde_json::Value {
    use marked_yaml::Node;
    fn conv(n: &Node) -> serde_json::Value {
        match n {
            Node::Scalar(s) => {
                let t = s.as_str();
                match t {
                    "true" => true.into(),
                    "false" => false.into(),
                    _ => t.into(),
                }
            }
            Node::Sequence(q) => q.iter().map(conv).collect(),
            Node::Mapping(m) => m
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), conv(v)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
    conv(&marked_yaml::parse_yaml(0, text).expect("the pipeline is YAML"))
}

fn validate(pipeline: &serde_json::Value) {
    let schema: serde_json::Value = serde_json::from_str(
        &fs_err::read_to_string(root().join("tests/schemas/gitlab-ci.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).expect("GitLab's schema compiles");
    let errors: Vec<String> = v.iter_errors(pipeline).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "not a valid GitLab pipeline: {errors:#?}"
    );
}

fn generate(reg: &TestRegistry, w: &Path, lock: &Path, public: &Path, out: &Path) -> String {
    generate_for(
        &root().join("stacks/demo.yaml"),
        reg,
        w,
        lock,
        public,
        out,
        "100",
    )
}

fn generate_for(
    recipe: &Path,
    reg: &TestRegistry,
    w: &Path,
    lock: &Path,
    public: &Path,
    out: &Path,
    group_seconds: &str,
) -> String {
    let mut c = stack_client();
    c.current_dir(w)
        .arg("ci")
        .arg("generate")
        .arg(recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .arg("--lock-file")
        .arg(lock)
        .arg("--binary-cache")
        .arg(format!("oci://{}/ci-cache", reg.host()))
        .arg("--trusted-key")
        .arg(public)
        .arg("--out")
        .arg(out)
        .args(["--group-seconds", group_seconds])
        .arg("--ca-file")
        .arg(reg.ca())
        .args(["--username", USER, "--password-stdin"]);
    let o = with_password(&mut c, PASSWORD);
    assert!(o.status.success(), "{}", text(&o));
    fs_err::read_to_string(out).unwrap()
}

/// The `build_seconds` of the build records in `logs`.
fn build_seconds(logs: &Path) -> Vec<f64> {
    fs_err::read_dir(logs)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            let v: serde_json::Value =
                serde_json::from_slice(&fs_err::read(e.path()).unwrap()).unwrap();
            v["build_seconds"].as_f64().unwrap()
        })
        .collect()
}

/// Run one job's script lines as a runner would: `sh -c`, in the checkout.
fn run_job(job: &serde_json::Value, env: &[(&str, PathBuf)], cwd: &Path) -> String {
    let mut log = String::new();
    for line in job["script"].as_array().unwrap() {
        let path = format!(
            "{}:{}",
            Path::new(STACK).parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("sh")
            .arg("-c")
            .arg(line.as_str().unwrap())
            .current_dir(cwd)
            .env("PATH", path)
            .env("HOME", "/nonexistent")
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .output()
            .unwrap();
        let t = text(&out);
        assert!(out.status.success(), "job line `{line}` failed:\n{t}");
        log.push_str(&t);
    }
    log
}

#[test]
fn gitlab_pipeline_of_the_demo_stack_validates_and_its_jobs_build_the_image() {
    let reg = TestRegistry::start_tls();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let sources = w.join("sources");
    let lock = w.join("demo.lock");
    let keygen = stack_client()
        .args(["key", "generate"])
        .arg(w.join("site"))
        .output();
    assert!(keygen.unwrap().status.success());
    let public = w.join("site.pub");
    let resolve = stack_client()
        .current_dir(w)
        .arg("resolve")
        .arg(root().join("stacks/demo.yaml"))
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .args(["--lock", "--lock-file"])
        .arg(&lock)
        .output()
        .unwrap();
    assert!(resolve.status.success(), "{}", text(&resolve));

    // Nothing cached yet: every package in a job, small ones grouped
    // (--group-seconds 100, estimated by build system).
    let yml = generate(&reg, w, &lock, &public, &w.join("child.yml"));
    let pipeline = yaml_to_json(&yml);
    validate(&pipeline);
    let jobs: Vec<&String> = pipeline
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("build:"))
        .collect();
    assert!(jobs.len() < 6, "small packages share jobs:\n{yml}");
    let only: usize = jobs
        .iter()
        .map(|j| {
            pipeline[j.as_str()]["script"][0]
                .as_str()
                .unwrap()
                .matches(" --only ")
                .count()
        })
        .sum();
    assert_eq!(only, 6, "every package in exactly one job:\n{yml}");
    let root_text = root().display().to_string();
    let host = reg.host();
    let ca = reg.ca().display().to_string();
    insta::with_settings!({filters => vec![
        (root_text.as_str(), "[ROOT]"),
        (ca.as_str(), "[CA]"),
        (w.to_str().unwrap(), "[WORK]"),
        (host.as_str(), "[REGISTRY]"),
        (r"\b[0-9a-f]{64}\b", "[HASH]"),
    ]}, {
        insta::assert_snapshot!("demo_gitlab_pipeline", yml);
    });

    // The jobs in file order (dependencies first), as a runner runs them.
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    let docker = w.join("docker");
    fs_err::create_dir_all(&docker).unwrap();
    fs_err::write(
        docker.join("config.json"),
        format!(r#"{{"auths": {{"{host}": {{"auth": "{auth}"}}}}}}"#),
    )
    .unwrap();
    let env = [
        ("DOCKER_CONFIG", docker),
        ("SSL_CERT_FILE", reg.ca()),
        ("STACK_SIGNING_KEY", w.join("site.key")),
        ("STACK_CACHE", sources.clone()),
    ];
    let checkout = w.join("checkout");
    fs_err::create_dir_all(&checkout).unwrap();
    for name in &jobs {
        let job = &pipeline[name.as_str()];
        let n = job["script"][0]
            .as_str()
            .unwrap()
            .matches(" --only ")
            .count();
        let log = run_job(job, &env, &checkout);
        assert!(
            log.contains(&format!("{n} built")),
            "{name} builds its {n} package(s) only:\n{log}"
        );
    }
    let log = run_job(&pipeline["assemble"], &env, &checkout);
    assert!(log.contains("0 built, 6 reused"), "{log}");
    assert!(log.contains("6 installed, 0 rejected"), "{log}");
    // The assemble job's artifact: the build report of the whole stack,
    // one graph node per package.
    let page = fs_err::read_to_string(checkout.join("build/demo/report.html")).unwrap();
    for name in ["demo-headers", "demo-prebuilt", "hello-make"] {
        assert!(
            page.contains(name),
            "{name} missing from the assemble report"
        );
    }

    // Everything cached: only the assemble job is left.
    let again = yaml_to_json(&generate(&reg, w, &lock, &public, &w.join("again.yml")));
    validate(&again);
    let keys: Vec<&String> = again.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["stages", "assemble"]);

    // The same packages at another mount point (other hashes: none of them
    // in the cache) cost what their builds above took, as the pushed
    // manifests record it, not the build-system estimates.
    let measured: Vec<f64> = jobs
        .iter()
        .flat_map(|j| {
            build_seconds(
                &checkout
                    .join("build/ci")
                    .join(&j["build:".len()..])
                    .join("logs"),
            )
        })
        .collect();
    assert_eq!(measured.len(), 6, "{measured:?}");
    let sum: f64 = measured.iter().sum();
    assert!(
        sum < 90.0,
        "the demo's builds took {sum} s: too slow for this test"
    );
    let moved = w.join("moved.lock");
    let recipe = w.join("moved.yaml");
    let demo = fs_err::read_to_string(root().join("stacks/demo.yaml")).unwrap();
    let stacks = format!("{}/", root().join("stacks").display());
    let text_moved = demo
        .replace("mount: /user-environment", "mount: /other-environment")
        .replace("[demo/", &format!("[{stacks}demo/"))
        .replace(": demo/", &format!(": {stacks}demo/"));
    assert_ne!(demo, text_moved);
    fs_err::write(&recipe, text_moved).unwrap();
    let resolve = stack_client()
        .current_dir(w)
        .arg("resolve")
        .arg(&recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .args(["--lock", "--lock-file"])
        .arg(&moved)
        .output()
        .unwrap();
    assert!(resolve.status.success(), "{}", text(&resolve));
    let costed = generate_for(
        &recipe,
        &reg,
        w,
        &moved,
        &public,
        &w.join("costed.yml"),
        "30",
    );
    let costed = yaml_to_json(&costed);
    validate(&costed);
    let builds: Vec<&String> = costed
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("build:"))
        .collect();
    // At 30 s the estimates put every package in a job of its own (none
    // is under 30 s but demo-headers, whose wave mate libgreet is a
    // makefile at 30 s); the measured seconds (the demo's builds take a few)
    // group each wave: at least one job per wave (libgreet, demo-headers |
    // libcalc, demo-prebuilt | hello-make, tally), fewer than 6.
    assert!((3..6).contains(&builds.len()), "{costed:#?}");
    let only: usize = builds
        .iter()
        .map(|b| {
            costed[b.as_str()]["script"][0]
                .as_str()
                .unwrap()
                .matches(" --only ")
                .count()
        })
        .sum();
    assert_eq!(only, 6, "{costed:#?}");

    // The same image, byte for byte, as a local build of the same lock file.
    let local = stack_client()
        .current_dir(w)
        .arg("build")
        .arg(root().join("stacks/demo.yaml"))
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .args(["--locked", "--lock-file"])
        .arg(&lock)
        .arg("--build")
        .arg(w.join("local"))
        .arg("--cache")
        .arg(&sources)
        .output()
        .unwrap();
    assert!(local.status.success(), "{}", text(&local));
    let ci_image = checkout.join("build/demo/store.squashfs");
    assert_eq!(
        fs_err::read(&ci_image).unwrap(),
        fs_err::read(w.join("local/store.squashfs")).unwrap(),
        "the pipeline's image differs from the local build's"
    );
}

#[test]
fn ci_generate_needs_a_lock_file_and_a_binary_cache() {
    let w = tempfile::tempdir().unwrap();
    let base = |c: &mut Command| {
        c.current_dir(w.path())
            .args(["ci", "generate"])
            .arg(root().join("stacks/demo.yaml"))
            .arg("--cluster")
            .arg(root().join("cluster-configs/local"))
            .arg("--lock-file")
            .arg(w.path().join("none.lock"));
    };
    let mut c = stack_client();
    base(&mut c);
    let out = c
        .args(["--binary-cache", "oci://127.0.0.1:1/x", "--plain-http"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("there is no lock file"),
        "{}",
        text(&out)
    );
    let lock = w.path().join("none.lock");
    let r = stack_client()
        .arg("resolve")
        .arg(root().join("stacks/demo.yaml"))
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .args(["--lock", "--lock-file"])
        .arg(&lock)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", text(&r));
    let mut c = stack_client();
    base(&mut c);
    let out = c.arg("--no-binary-cache").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("needs a binary cache"),
        "{}",
        text(&out)
    );
}

/// Issue 40, item 14: the jobs carry every registry, trust, signing and
/// mirror option the pipeline was generated with (a plain-HTTP cache is
/// reached over plain HTTP), and two packages of one name are two jobs
/// that each build their own node.
#[test]
fn jobs_carry_every_option_and_select_their_node_by_hash() {
    let reg = TestRegistry::start_plain();
    let host = reg.host();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let keygen = stack_client()
        .args(["key", "generate"])
        .arg(w.join("site"))
        .output()
        .unwrap();
    assert!(keygen.status.success());
    fs_err::create_dir_all(w.join("mirror")).unwrap();
    let recipe = w.join("twice.yaml");
    fs_err::write(
        &recipe,
        format!(
            "name: twice\nversion: \"1\"\nmount: /user-environment\ncompiler: gcc\nrepos: [{}]\n\
             environments:\n  hello: {{specs: [\"libgreet greeting=Hello\"]}}\n  hi: {{specs: [\"libgreet greeting=Hi\"]}}\n",
            root().join("stacks/demo/recipes").display()
        ),
    )
    .unwrap();
    let lock = w.join("twice.lock");
    let cluster = root().join("cluster-configs/local");
    let out = stack_client()
        .current_dir(w)
        .arg("resolve")
        .arg(&recipe)
        .arg("--cluster")
        .arg(&cluster)
        .args(["--lock", "--lock-file"])
        .arg(&lock)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let mirror = format!("file://{}", w.join("mirror").display());
    let label = format!("{host}/deploy/twice/1:v1@s%u");
    let out = stack_client()
        .current_dir(w)
        .args(["ci", "generate"])
        .arg(&recipe)
        .arg("--cluster")
        .arg(&cluster)
        .arg("--lock-file")
        .arg(&lock)
        .args(["--binary-cache", &format!("oci://{host}/ci-cache")])
        .args(["--plain-http", "--retries", "3", "--timeout", "30"])
        .args(["--trusted-key", "site.pub", "--sign-key", "site.key"])
        .args(["--mirror", &mirror, "--group-seconds", "0"])
        .args(["--image", &label, "--out", "child.yml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let yml = fs_err::read_to_string(w.join("child.yml")).unwrap();
    let pipeline = yaml_to_json(&yml);
    validate(&pipeline);
    let jobs: Vec<&String> = pipeline
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("build:"))
        .collect();
    assert_eq!(jobs.len(), 2, "{yml}");
    let mut hashes = Vec::new();
    for j in &jobs {
        let script = pipeline[j.as_str()]["script"][0].as_str().unwrap();
        let hash = pipeline[j.as_str()]["variables"]["STACK_HASH"]
            .as_str()
            .unwrap();
        assert!(
            script.contains(&format!("--only libgreet/{hash}")),
            "{j} selects its node by hash: {script}"
        );
        for flag in [
            "--plain-http",
            "--retries 3",
            "--timeout 30",
            "--trusted-key site.pub",
            "--sign-key site.key",
            &format!("--mirror {mirror}"),
        ] {
            assert!(script.contains(flag), "{j} lacks {flag}: {script}");
        }
        hashes.push(hash.to_string());
    }
    assert_ne!(hashes[0], hashes[1]);
    let push = pipeline["assemble"]["script"][1].as_str().unwrap();
    assert!(
        push.contains("--plain-http") && push.contains("--sign-key site.key"),
        "{push}"
    );

    // The jobs as a runner runs them, in the directory with the keys.
    let env = [("STACK_CACHE", w.join("sources"))];
    for j in &jobs {
        let log = run_job(&pipeline[j.as_str()], &env, w);
        assert!(
            log.contains("1 built"),
            "{j} builds its own node only:\n{log}"
        );
    }
    let log = run_job(&pipeline["assemble"], &env, w);
    assert!(log.contains("2 installed, 0 rejected"), "{log}");
    assert!(log.contains("signed"), "{log}");
    let to = w.join("pulled");
    let out = stack_client()
        .args(["pull", &label, "--plain-http", "--trusted-key"])
        .arg(w.join("site.pub"))
        .arg("--to")
        .arg(&to)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}
