//! `--help` examples that cannot drift (issue 19): every example line of
//! every subcommand's `--help` (the clap `after_help` texts in src/cli/)
//! runs, in one copy of the shipped recipes, stacks, cluster configurations
//! and demo fixtures, with the harness of `docs_console.rs`.
//!
//! - An example is a line of the help indented by two spaces that runs
//!   `stack` (first, after `VAR=value` words, or after a `|`), or any line
//!   of an `Examples:` paragraph; a trailing `\` joins the next line and a
//!   trailing `# comment` is the help's, not the shell's.
//! - The examples run in the order `stack --help` lists the subcommands
//!   (`build-env` first), after `SETUP` (a demo build and the placeholder names the examples
//!   use), all in one workspace; each must exit 0 unless `STATUS` says
//!   otherwise.
//! - Examples that need what a test may not use (a network, a registry, a
//!   cluster, an editor) are listed in `NO_RUN` with the reason; a listed
//!   example that no help shows any more is an error too.
//! - What each subcommand's examples printed is an insta snapshot
//!   (`help_examples__<subcommand>.snap`), times and hashes redacted.

use std::path::Path;

use crate::harness::docs::{run, run_with};

/// Run first, in the workspace: the demo build the examples inspect
/// (`build/demo`, stages kept for `build-env`) and the placeholder names
/// they use (`my-stack.yaml` a stack of the shipped hwloc, empty
/// repositories, an older lock and build to `diff`, a source tarball to
/// `create` a recipe from, the shell completions directory).
const SETUP: &[&str] = &[
    "stack build stacks/demo.yaml --cluster cluster-configs/local --build build/demo --keep-stage",
    "printf 'name: my-stack\\nmount: /user-environment\\ncompiler: gcc\\nenvironments:\\n  tools:\\n    specs: [hwloc]\\n' > my-stack.yaml",
    "mkdir -p my-recipes site-recipes ../site-recipes .local/share/bash-completion/completions",
    "stack resolve stacks/demo.yaml --lock && cp stacks/demo.lock stacks/demo.lock.old",
    "cp -r build/demo build/demo-old && mkdir old && cp -r build/demo/store.squashfs build/demo/meta old/",
    "mkdir -p dist/libfoo-1.0 && printf 'all:\\n' > dist/libfoo-1.0/Makefile && tar -C dist -czf dist/libfoo-1.0.tar.gz libfoo-1.0",
];

/// The editor `stack edit` runs (`$EDITOR`): shows the recipe's first lines.
const EDITOR: &str = "head -n 4";

const NET: &str = "downloads from the internet";
const REGISTRY: &str = "needs an OCI registry";
const ALPS: &str = "downloads the Alps stack's sources from the internet";
const SITE: &str = "uses a site's directories (/srv, /scratch, /opt) outside the workspace";
const HOST: &str = "prints whatever this host has installed, which differs between machines";

/// Examples that are not run, and why.
const NO_RUN: &[(&str, &str)] = &[
    (
        "stack fetch stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200",
        ALPS,
    ),
    (
        "stack fetch stacks/demo.yaml --mirror file:///srv/stack-mirror --cache /scratch/cache",
        SITE,
    ),
    (
        "stack mirror create stacks/alps-cxi.yaml /srv/mirror --cluster cluster-configs/alps-gh200",
        ALPS,
    ),
    (
        "stack build stacks/alps-cxi.yaml --mirror file:///srv/mirror",
        SITE,
    ),
    (
        "stack build stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 -j 64",
        ALPS,
    ),
    (
        "stack build stacks/alps-cxi.yaml --mirror file:///srv/mirror --locked",
        SITE,
    ),
    (
        "stack build stacks/demo.yaml --build /dev/shm/demo --keep-stage",
        "writes to /dev/shm, outside the workspace",
    ),
    (
        "stack build stacks/demo.yaml --mount /user-tools --build build/demo-tools",
        "creates the mount point /user-tools on this machine",
    ),
    (
        "stack build stacks/cxi-mini.yaml --binary-cache oci://reg:5000/cache --executor slurm --slurm-args \"--partition=build --time=01:00:00\"",
        "needs an OCI registry and a Slurm cluster (tests/it/slurm/ starts real daemons)",
    ),
    (
        "stack build stacks/cxi-mini.yaml --binary-cache oci://reg:5000/cache --locked --only libfabric",
        REGISTRY,
    ),
    (
        "stack ci generate stacks/cxi-mini.yaml --cluster cluster-configs/local --binary-cache oci://registry:5000/stack-cache --out build.yml",
        "asks the binary cache, an OCI registry",
    ),
    (
        "stack ci generate stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 --image registry:5000/deploy/alps-cxi/1.0:v1 --out child.yml",
        "asks the binary cache, an OCI registry",
    ),
    (
        "stack push build/ localhost:5000/deploy/prgenv-gnu/24.11:v1@daint%gh200",
        REGISTRY,
    ),
    (
        "stack push build/store.squashfs registry.example/deploy/daint/gh200/prgenv-gnu/24.11:v1 --force",
        REGISTRY,
    ),
    (
        "echo \"$TOKEN\" | stack push build/ REF --username ci --password-stdin",
        REGISTRY,
    ),
    ("stack push build/ REF --sign-key site.key", REGISTRY),
    (
        "stack pull localhost:5000/deploy/prgenv-gnu/24.11:v1@daint%gh200 --to img/ --trusted-key site.pub",
        REGISTRY,
    ),
    (
        "stack pull registry.example/deploy/daint/gh200/prgenv-gnu/24.11:v1 --allow-unsigned",
        REGISTRY,
    ),
    ("stack images localhost:5000/deploy", REGISTRY),
    (
        "stack images registry.example/deploy --format json | jq '.[].label'",
        REGISTRY,
    ),
    (
        "stack import spack --from ~/src/spack-packages zlib-ng lz4 --out recipes",
        "needs a checkout of spack-packages (tests/it/import_spack.rs uses fixtures)",
    ),
    (
        "stack import spack --from ~/src/spack-packages --all --out /tmp/all --report /tmp/all/coverage.md",
        "needs a checkout of spack-packages (tests/it/import_spack.rs uses fixtures)",
    ),
    (
        "stack stackinator convert alps-uenv/recipes/prgenv-gnu/26.3/gh200 alps-cluster-config/daint --out site/prgenv-gnu",
        "needs checkouts of alps-uenv and alps-cluster-config (tests/it/stackinator.rs uses fixtures)",
    ),
    (
        "stack stackinator convert recipe/ cluster/local --out /tmp/s --spack-packages ~/src/spack-packages",
        "needs a stackinator recipe and spack-packages (tests/it/stackinator.rs uses fixtures)",
    ),
    (
        "stack check site/prgenv-gnu/stack.yaml --cluster site/prgenv-gnu/daint",
        "checks what the convert example above writes",
    ),
    (
        "stack resolve stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 --format dot | dot -Tsvg > plan.svg",
        "needs graphviz's dot, not installed here",
    ),
    ("stack ldd --sysroot /srv/rhel8 /usr/bin/ls", SITE),
    (
        "stack verify /user-environment",
        "needs a store installed in direct mode at /user-environment",
    ),
    (
        "stack completions zsh > \"${fpath[1]}/_stack\"",
        "zsh syntax ($fpath)",
    ),
    ("stack checksum zlib", NET),
    ("stack checksum zlib 1.3.2", NET),
    ("stack checksum hwloc --stack my-stack.yaml", NET),
    (
        "stack create https://download.open-mpi.org/release/hwloc/v2.12/hwloc-2.12.2.tar.bz2",
        NET,
    ),
    (
        "stack create file:///srv/src/libfoo-1.0.tar.gz --dir site/recipes",
        SITE,
    ),
    (
        "stack compiler find --path /opt/gcc-13/bin --path /usr/bin",
        SITE,
    ),
    (
        "stack external find --stack my-stack.yaml --path /opt/tools/bin",
        SITE,
    ),
    ("stack external find", HOST),
    ("stack audit /usr/lib/x86_64-linux-gnu /usr/bin", HOST),
];

/// Examples whose documented exit status is not 0.
const STATUS: &[(&str, i32)] = &[
    // the host's own libraries and programs: findings
    ("stack audit /usr/lib/x86_64-linux-gnu /usr/bin", 1),
];

/// `text` with each run of "fetched X from the cache" lines sorted: the
/// fetches run in parallel and report in the order they finish.
fn in_order(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim_start().starts_with("fetched ") {
            run.push(line);
            continue;
        }
        run.sort_unstable();
        out.extend(run.drain(..).map(str::to_string));
        out.push(line.to_string());
    }
    out.pop();
    out.iter().map(|l| format!("{l}\n")).collect()
}

/// The subcommands `stack --help` lists (and their own subcommands).
fn subcommands(dir: &Path) -> Vec<String> {
    let listed = |cmd: &str| -> Vec<String> {
        let (_, out) = run(&format!("stack {cmd} --help"), dir);
        let Some(start) = out.find("Commands:\n") else {
            return Vec::new();
        };
        out[start + 10..]
            .lines()
            .take_while(|l| l.starts_with("  "))
            .filter(|l| !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|c| *c != "help")
            .map(str::to_string)
            .collect()
    };
    let mut out = Vec::new();
    for c in listed("") {
        let subs = listed(&c);
        if subs.is_empty() {
            out.push(c);
        } else {
            out.extend(subs.into_iter().map(|s| format!("{c} {s}")));
        }
    }
    out
}

fn runs_stack(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words
        .iter()
        .find(|w| !w.contains('=') || w.starts_with('-'));
    first == Some(&"stack") || line.contains("| stack ")
}

/// The example lines of one help text, comments removed, continuations joined.
fn examples(help: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_examples = false;
    let mut continued = false;
    for line in help.lines() {
        if line.trim().is_empty() {
            in_examples = false;
            continue;
        }
        if line.starts_with("Examples:") {
            in_examples = true;
            continue;
        }
        let body = line.trim();
        let body = body
            .split("  #")
            .next()
            .unwrap()
            .split(" # ")
            .next()
            .unwrap();
        let body = body.trim();
        if continued {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(body.trim_end_matches('\\').trim());
        } else if line.starts_with("  ")
            && !line.starts_with("   ")
            && (in_examples || runs_stack(body))
        {
            out.push(body.trim_end_matches('\\').trim().to_string());
        } else {
            continue;
        }
        continued = body.ends_with('\\');
    }
    out
}

#[test]
fn every_help_example_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    fs_err::create_dir(&ws).unwrap();
    crate::harness::docs::workspace(root, &ws);
    for c in SETUP {
        let (code, text) = run(c, &ws);
        assert_eq!(code, 0, "setup `{c}`:\n{text}");
    }
    let (mut executed, mut skipped, mut failures) = (0, 0, Vec::new());
    let mut seen = Vec::new();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\b\d+(\.\d+)?\s?(ms|s|µs)\b", "[TIME]");
    settings.add_filter(r"\b[0-9a-f]{7,64}\b", "[HASH]");
    settings.add_filter(r"[A-Za-z0-9+/]{43}=", "[KEY]");
    // the host's loader cache grows with every package installed on the machine
    settings.add_filter(
        r"ld\.so\.cache \(\d+ entries\)",
        "ld.so.cache ([N] entries)",
    );
    // the loader's `$PLATFORM` and hwcaps subdirectories follow the host's CPU
    settings.add_filter(
        r"\$PLATFORM=\S+; hwcaps \S+",
        "$$PLATFORM=[CPU]; hwcaps [CPU]",
    );
    // the workspace's parent (`../site-recipes` of an example)
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]{6}/", "[TMP]/");
    // the checkout's own path (the built-in repository `stack info` names)
    settings.add_filter(
        &crate::filters::regex_escape(&root.display().to_string()),
        "[REPO]",
    );
    let _guard = settings.bind_to_scope();
    let mut cmds = subcommands(&ws);
    // `build-env` first: it enters the stages the setup kept, which any
    // later `stack build` of the demo removes.
    cmds.sort_by_key(|c| c != "build-env");
    for cmd in cmds {
        // Wide, so that clap does not wrap example lines.
        let (code, help) = run(&format!("COLUMNS=1000 stack {cmd} --help"), &ws);
        assert_eq!(code, 0, "stack {cmd} --help");
        let mut transcript = String::new();
        for ex in examples(&help) {
            seen.push(ex.clone());
            if let Some((_, why)) = NO_RUN.iter().find(|(e, _)| *e == ex) {
                assert!(!why.is_empty());
                transcript.push_str(&format!("$ {ex}\n(not run: {why})\n"));
                skipped += 1;
                continue;
            }
            let want = STATUS.iter().find(|(e, _)| *e == ex).map_or(0, |s| s.1);
            let quoted = ex.replace('\'', "'\\''");
            let line = format!("timeout 300 sh -c '{quoted}'");
            let (code, text) = run_with(&line, &ws, &[("EDITOR", EDITOR)]);
            executed += 1;
            if code != want {
                failures.push(format!(
                    "`stack {cmd} --help`: `{ex}` exited {code}, expected {want}:\n{text}"
                ));
            }
            transcript.push_str(&format!("$ {ex}\n{}? {code}\n", in_order(&text)));
        }
        if !transcript.is_empty() {
            insta::assert_snapshot!(cmd.replace(' ', "_"), transcript);
        }
    }
    let listed = NO_RUN
        .iter()
        .map(|(e, _)| e)
        .chain(STATUS.iter().map(|(e, _)| e));
    for e in listed {
        if !seen.iter().any(|s| s == e) {
            failures.push(format!("`{e}` is listed here but no --help shows it"));
        }
    }
    eprintln!("help-examples: {executed} executed, {skipped} not executed (NO_RUN)");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(executed >= 40, "only {executed} help examples executed");
}
