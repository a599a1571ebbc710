//! git remotes over smart HTTP, served on loopback by the real `git http-backend`: tags,
//! branches and commits over http:// and https:// (a CA trusted through `ca_files`, refused
//! without it), a redirected repository, and the errors of a missing repository and of a server
//! that does not speak git.

use std::path::{Path, PathBuf};

use crate::harness::Stack;
use crate::harness::fetch::*;
use crate::harness::git_http::{GitHttp, Twist, publish};
use stack::fetch::{
    FetchError, FetchOptions, Fetched, GitRef, Origin, Source, SourceRequest, Verification,
    fetch_all, resolve_git_ref, stage,
};

/// A repository published under `root/srv` as `up.git`: `c1` (annotated tag `v1`), `c2` (tip
/// of `main`).
struct Upstream {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    srv: PathBuf,
    c1: String,
    c2: String,
}

fn upstream() -> Upstream {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "-q"]);
    let c1 = commit(&work, &[("README", "v1\n"), ("src/a.c", "int a;\n")], "one");
    git(&work, &["tag", "-a", "v1", "-m", "release 1"]);
    let c2 = commit(&work, &[("README", "v2\n")], "two");
    let srv = root.join("srv");
    std::fs::create_dir_all(&srv).unwrap();
    publish(&work, &srv, "up.git");
    Upstream {
        _tmp: tmp,
        root,
        srv,
        c1,
        c2,
    }
}

fn fetch_with(
    req: SourceRequest,
    opts: &FetchOptions,
    recorder: &Recorder,
) -> Result<Fetched, FetchError> {
    fetch_all(&[req], opts, recorder).map(|mut v| v.pop().unwrap())
}

fn readme(f: &Fetched, dir: &Path) -> String {
    stage(f, dir).unwrap();
    std::fs::read_to_string(dir.join("README")).unwrap()
}

#[test]
fn tags_branches_and_commits_over_http() {
    let up = upstream();
    let server = GitHttp::start(&up.srv);
    let url = server.url("/up.git");
    let opts = options(&up.root.join("cache"));

    assert_eq!(
        resolve_git_ref(&url, &GitRef::Tag("v1".into()), &opts).unwrap(),
        up.c1
    );
    assert_eq!(
        resolve_git_ref(&url, &GitRef::Branch("main".into()), &opts).unwrap(),
        up.c2
    );
    assert_eq!(
        resolve_git_ref(&url, &GitRef::Commit(up.c1[..10].into()), &opts).unwrap(),
        up.c1
    );

    // Fetch runs, each into an empty cache: a pinned tag, a branch pinned to an older commit,
    // a commit. The transfer reports its progress.
    let cases = [
        (GitRef::Tag("v1".into()), up.c1.clone(), "v1\n"),
        (GitRef::Branch("main".into()), up.c1.clone(), "v1\n"),
        (GitRef::Commit(up.c2.clone()), up.c2.clone(), "v2\n"),
    ];
    for (i, (reference, pin, text)) in cases.into_iter().enumerate() {
        let opts = options(&up.root.join(format!("cache{i}")));
        let recorder = Recorder::default();
        let f = fetch_with(git_req(&url, reference, Some(&pin)), &opts, &recorder).unwrap();
        assert_eq!(f.commit(), Some(pin.as_str()));
        assert_eq!(f.verification, Verification::PinnedCommit);
        assert_eq!(f.origin, Origin::Upstream(url.clone()));
        assert_eq!(readme(&f, &up.root.join(format!("stage{i}"))), text);
        let progressed = recorder.events().iter().any(|e| {
            e.strip_prefix("progress 0 ")
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n > 0)
        });
        assert!(progressed, "{:?}", recorder.events());
    }

    // The protocol as git speaks it: the advertisement, then upload-pack POSTs.
    let requests = server.requests();
    assert!(
        requests.contains(&"GET /up.git/info/refs?service=git-upload-pack".to_string()),
        "{requests:?}"
    );
    assert!(
        requests.contains(&"POST /up.git/git-upload-pack".to_string()),
        "{requests:?}"
    );
    // stack's agent behind the `git/` prefix hosting services expect.
    let agent = concat!("git/2.0 (stack/", env!("CARGO_PKG_VERSION"), ")");
    let agents = server.user_agents();
    assert!(agents.iter().all(|a| a == agent), "{agents:?}");
}

#[test]
fn https_remotes_trust_the_ca_files_and_refuse_an_unknown_ca() {
    let up = upstream();
    let certs = up.root.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    crate::harness::registry::make_ca_and_cert(&certs);
    let server = GitHttp::start_tls(&up.srv, &certs);
    let url = server.url("/up.git");
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");

    let mut opts = options(&up.root.join("cache"));
    let err = resolve_git_ref(&url, &GitRef::Tag("v1".into()), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, FetchError::Request { .. }), "{err:?}");
    assert!(
        msg.starts_with(&format!("{url}/info/refs?service=git-upload-pack: ")),
        "{msg}"
    );
    assert!(msg.contains("certificate"), "{msg}");

    opts.ca_files = vec![certs.join("ca.pem")];
    assert_eq!(
        resolve_git_ref(&url, &GitRef::Tag("v1".into()), &opts).unwrap(),
        up.c1
    );
    let recorder = Recorder::default();
    let f = fetch_with(
        git_req(&url, GitRef::Tag("v1".into()), Some(&up.c1)),
        &options_with_ca(&up.root.join("cache2"), &certs),
        &recorder,
    )
    .unwrap();
    assert_eq!(readme(&f, &up.root.join("stage")), "v1\n");
}

/// The command line: `stack fetch` of a stack whose package comes from the https remote,
/// refused until `--ca-file` or `SSL_CERT_FILE` names the test CA.
#[test]
fn stack_fetch_trusts_ca_file_and_ssl_cert_file_for_git_remotes() {
    let up = upstream();
    let certs = up.root.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    crate::harness::registry::make_ca_and_cert(&certs);
    let server = GitHttp::start_tls(&up.srv, &certs);
    let url = server.url("/up.git");
    let p = up.root.join("project");
    let write = |rel: &str, text: String| {
        let f = p.join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    };
    write(
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n"
            .into(),
    );
    write(
        "recipes/gitpkg.yaml",
        format!(
            "name: gitpkg\ndescription: over https\nversions:\n  - {{version: \"1.0\", git: {url}, tag: v1, commit: {}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share}}\n",
            up.c1
        ),
    );
    write(
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [gitpkg@1.0]\n".into(),
    );
    let ca = certs.join("ca.pem");
    let fetch = |cache: &str| {
        Stack::new()
            .args([
                "fetch",
                "stacks/s.yaml",
                "--cluster",
                "cluster-configs/local",
            ])
            .args(["--cache", cache])
            .env_remove("STACK_REPOS")
            .current_dir(&p)
    };
    let (code, text) = fetch("c1").run().code_flat();
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("{url}/info/refs?service=git-upload-pack")),
        "{text}"
    );
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    fetch("c2").arg("--ca-file").arg(&ca).run().assert_success();
    fetch("c3").env("SSL_CERT_FILE", &ca).run().assert_success();
}

fn options_with_ca(cache: &Path, certs: &Path) -> FetchOptions {
    let mut o = options(cache);
    o.ca_files = vec![certs.join("ca.pem")];
    o
}

#[test]
fn a_redirected_repository_is_fetched_from_where_it_moved() {
    let up = upstream();
    let server = GitHttp::start(&up.srv);
    server.twist("/old.git", Twist::Redirect("/up.git".into()));
    let url = server.url("/old.git");
    let opts = options(&up.root.join("cache"));
    let recorder = Recorder::default();
    let f = fetch_with(
        git_req(&url, GitRef::Tag("v1".into()), Some(&up.c1)),
        &opts,
        &recorder,
    )
    .unwrap();
    assert_eq!(readme(&f, &up.root.join("stage")), "v1\n");
    let requests = server.requests();
    assert!(
        requests.contains(&"GET /old.git/info/refs?service=git-upload-pack".to_string()),
        "{requests:?}"
    );
    // The POSTs go to the redirected base, as git's do.
    assert!(
        requests.contains(&"POST /up.git/git-upload-pack".to_string()),
        "{requests:?}"
    );
    assert!(!requests.iter().any(|r| r.starts_with("POST /old.git")));
}

#[test]
fn a_missing_repository_is_a_404_naming_the_url() {
    let up = upstream();
    let server = GitHttp::start(&up.srv);
    let url = server.url("/nope.git");
    let opts = options(&up.root.join("cache"));
    let err = resolve_git_ref(&url, &GitRef::Tag("v1".into()), &opts).unwrap_err();
    let refs = format!("{url}/info/refs?service=git-upload-pack");
    match &err {
        FetchError::HttpStatus { url: u, status } => assert_eq!((u, *status), (&refs, 404)),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("HTTP 404 (not found"), "{err}");
    // The same through a fetch run; no empty cache repository is left for the URL.
    let req = git_req(&url, GitRef::Tag("v1".into()), Some(&up.c1));
    let err = fetch_with(req, &opts, &Recorder::default()).unwrap_err();
    assert!(
        matches!(&err, FetchError::HttpStatus { status: 404, .. }),
        "{err:?}"
    );
    assert!(!opts.cache.git_repo_path(&url).exists());
}

#[test]
fn a_server_that_does_not_speak_git_is_refused() {
    let up = upstream();
    let server = GitHttp::start(&up.srv);
    server.twist("/web.git", Twist::Answer("text/html; charset=utf-8".into()));
    let url = server.url("/web.git");
    let opts = options(&up.root.join("cache"));
    let err = resolve_git_ref(&url, &GitRef::Branch("main".into()), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("{url}/info/refs?service=git-upload-pack: ")),
        "{msg}"
    );
    assert!(
        msg.contains("not a git smart-HTTP answer: Content-Type `text/html; charset=utf-8`"),
        "{msg}"
    );
}

#[test]
fn submodules_come_over_http_too() {
    let up = upstream();
    // The superproject names its submodule by a relative URL: over http it resolves to the
    // server's `sub.git`.
    let w = up.root.join("w");
    let (sub, main) = (w.join("sub.git"), w.join("withsub"));
    for d in [&sub, &main] {
        std::fs::create_dir_all(d).unwrap();
        git(d, &["init", "-q"]);
    }
    commit(&sub, &[("lib.c", "int lib;\n")], "lib");
    commit(&main, &[("main.c", "int main;\n")], "main");
    git(&main, &["submodule", "add", "-q", "../sub.git", "ext/sub"]);
    git(&main, &["commit", "-q", "-m", "add submodule"]);
    let head = git(&main, &["rev-parse", "HEAD"]);
    publish(&sub, &up.srv, "sub.git");
    publish(&main, &up.srv, "withsub.git");

    let server = GitHttp::start(&up.srv);
    let mut req = git_req(&server.url("/withsub.git"), GitRef::Commit(head), None);
    if let Source::Git { submodules, .. } = &mut req.source {
        *submodules = true;
    }
    let opts = options(&up.root.join("cache"));
    let f = fetch_with(req, &opts, &Recorder::default()).unwrap();
    let stack::fetch::FetchedContent::Git { submodules, .. } = &f.content else {
        panic!("{f:?}")
    };
    assert_eq!(submodules.len(), 1);
    assert_eq!(submodules[0].url, server.url("/sub.git"));
    let dir = up.root.join("stage");
    stage(&f, &dir).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("ext/sub/lib.c")).unwrap(),
        "int lib;\n"
    );
    let requests = server.requests();
    assert!(
        requests.contains(&"POST /sub.git/git-upload-pack".to_string()),
        "{requests:?}"
    );
}

/// A caller inside a tokio runtime (none of stack's is, but a library user may be): no
/// nested-runtime panic.
#[test]
fn fetching_from_inside_a_runtime_works() {
    let up = upstream();
    let server = GitHttp::start(&up.srv);
    let url = server.url("/up.git");
    let opts = options(&up.root.join("cache"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = rt.block_on(async { resolve_git_ref(&url, &GitRef::Tag("v1".into()), &opts) });
    assert_eq!(got.unwrap(), up.c1);
}
