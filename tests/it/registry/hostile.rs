//! A hostile registry (issue 40): `stack pull` and `stack images` against
//! a real registry whose content an attacker rewrote (with the library's
//! own client), or behind a loopback proxy that answers what no registry
//! should: layer titles with `..`, setuid and device entries, a meta/
//! swapped under a signed image, a signed image copied under another label,
//! blobs larger than announced, endless manifests, pages and tokens.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use stack::registry::manifest::{
    INDEX_V1, LAYER_TAR_GZIP, MANIFEST_V1, ORAS_UNPACK, TITLE, referrers_tag,
};
use stack::registry::{ClientOptions, Descriptor, Index, Manifest, Reference, Registry};

use super::proxy::{Action, Proxy};
use super::{image_dir, text};
use crate::harness::registry::TestRegistry;
use crate::harness::registry::stack_client;

const REPO: &str = "deploy/s/u/demo/1.0";

fn run(args: &[&str]) -> Output {
    let out = stack_client()
        .args(args)
        .args(["--plain-http", "--retries", "1"])
        .output()
        .unwrap();
    eprintln!("{}", text(&out));
    out
}

/// The attacker's client: the library's own, on the plain registry.
fn client(host: &str) -> Registry {
    Registry::new(
        host,
        ClientOptions {
            plain_http: true,
            attempts: 1,
            ..ClientOptions::default()
        },
    )
    .unwrap()
}

fn label(host: &str) -> String {
    format!("{host}/deploy/demo/1.0:v1@s%u")
}

/// `stack push` of a small image with meta/ (signed with `key` if given).
fn push(host: &str, key: Option<&Path>) {
    let img = image_dir(4096, 40);
    let src = img.path().to_str().unwrap();
    let l = label(host);
    let mut args = vec!["push", src, &l];
    let key = key.map(|k| k.to_str().unwrap().to_string());
    if let Some(k) = &key {
        args.extend(["--sign-key", k]);
    }
    assert!(run(&args).status.success());
}

fn image_digest(reg: &Registry) -> String {
    let r = Reference::parse(&format!("{}/{REPO}:v1", reg.host())).unwrap();
    reg.get_manifest(&r).unwrap().digest
}

/// One tar entry: (name, kind, mode, content).
type Entry<'a> = (&'a str, tar::EntryType, u32, &'a [u8]);

fn tar_gz(entries: &[Entry<'_>]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for (name, kind, mode, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(*kind);
        h.set_mode(*mode);
        h.set_size(data.len() as u64);
        if matches!(kind, tar::EntryType::Char) {
            h.set_device_major(1).unwrap();
            h.set_device_minor(3).unwrap();
        }
        b.append_data(&mut h, name, *data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// The attacker uploads a uenv/meta referrer of `subject` (layer `title`,
/// content `tgz`) and returns its descriptor.
fn hostile_meta(reg: &Registry, subject: &str, title: &str, tgz: &[u8]) -> Descriptor {
    let mut layer = Descriptor::of_bytes(LAYER_TAR_GZIP, tgz);
    reg.push_blob_bytes(REPO, &layer, tgz).unwrap();
    layer.annotations.insert(TITLE.into(), title.into());
    layer.annotations.insert(ORAS_UNPACK.into(), "true".into());
    reg.push_blob_bytes(REPO, &Descriptor::empty_config(), b"{}")
        .unwrap();
    let mut m = Manifest::artifact("uenv/meta", vec![layer]);
    m.subject = Some(Descriptor {
        media_type: MANIFEST_V1.into(),
        digest: subject.into(),
        size: 0,
        artifact_type: None,
        annotations: Default::default(),
    });
    let bytes = m.to_bytes();
    let (digest, _) = reg
        .put_manifest(REPO, &digest_of(&bytes), MANIFEST_V1, &bytes)
        .unwrap();
    let mut d = Descriptor::of_bytes(MANIFEST_V1, &bytes);
    assert_eq!(d.digest, digest);
    d.artifact_type = Some("uenv/meta".into());
    d
}

fn digest_of(bytes: &[u8]) -> String {
    stack::registry::manifest::sha256_digest(bytes)
}

/// The attacker rewrites the referrers tag of `subject`: `first` in front
/// of what is there, or only `first`.
fn rewrite_referrers(reg: &Registry, subject: &str, first: Descriptor, keep: bool) {
    let tag = referrers_tag(subject);
    let at = Reference::parse(&format!("{}/{REPO}:{tag}", reg.host())).unwrap();
    let mut list = vec![first];
    if keep {
        let old: Index = serde_json::from_slice(&reg.get_manifest(&at).unwrap().bytes).unwrap();
        list.extend(old.manifests);
    }
    reg.put_manifest(REPO, &tag, INDEX_V1, &Index::new(list).to_bytes())
        .unwrap();
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs_err::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn key_pair(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let out = stack_client()
        .args(["key", "generate"])
        .arg(dir.join("site"))
        .output()
        .unwrap();
    assert!(out.status.success());
    (dir.join("site.key"), dir.join("site.pub"))
}

/// Issue 40, item 2: layer titles from the registry never select a path
/// outside the staging directory; nothing outside `--to` is moved.
#[test]
fn meta_layer_titles_never_move_anything_from_outside_to() {
    let reg = TestRegistry::start_plain();
    let host = reg.host();
    push(&host, None);
    let c = client(&host);
    let subject = image_digest(&c);
    let work = tempfile::tempdir().unwrap();
    let victim = work.path().join("victim");
    fs_err::create_dir_all(&victim).unwrap();
    fs_err::write(victim.join("precious"), "mine").unwrap();
    let tgz = tar_gz(&[("meta/env.json", tar::EntryType::Regular, 0o644, b"{}")]);
    for title in ["../../../victim".to_string(), victim.display().to_string()] {
        let meta = hostile_meta(&c, &subject, &title, &tgz);
        rewrite_referrers(&c, &subject, meta, false);
        let to = work.path().join("to");
        let out = run(&[
            "pull",
            &label(&host),
            "--to",
            to.to_str().unwrap(),
            "--allow-unsigned",
        ]);
        assert_eq!(out.status.code(), Some(1), "title {title}");
        assert!(
            text(&out).contains("not a plain directory name"),
            "{}",
            text(&out)
        );
        assert_eq!(
            fs_err::read_to_string(victim.join("precious")).unwrap(),
            "mine"
        );
        assert!(listing(&to).is_empty(), "{:?}", listing(&to));
    }
}

/// Issue 40, item 3: pulled meta/ keeps no setuid bit, and a device entry
/// is an error (nothing written), never skipped.
#[test]
fn pulled_meta_has_no_setuid_bits_and_no_special_files() {
    use std::os::unix::fs::PermissionsExt;
    let reg = TestRegistry::start_plain();
    let host = reg.host();
    push(&host, None);
    let c = client(&host);
    let subject = image_digest(&c);
    let to = tempfile::tempdir().unwrap();
    let dir = to.path().to_str().unwrap();

    let suid = tar_gz(&[
        ("meta", tar::EntryType::Directory, 0o1777, b""),
        ("meta/env.json", tar::EntryType::Regular, 0o644, b"{}"),
        ("meta/tool", tar::EntryType::Regular, 0o4755, b"#!/bin/sh\n"),
        ("meta/group", tar::EntryType::Regular, 0o2775, b"x"),
    ]);
    let meta = hostile_meta(&c, &subject, "meta", &suid);
    rewrite_referrers(&c, &subject, meta, false);
    let out = run(&["pull", &label(&host), "--to", dir, "--allow-unsigned"]);
    assert!(out.status.success());
    let mode = |p: &str| {
        fs_err::metadata(to.path().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("meta/tool"), 0o755);
    assert_eq!(mode("meta/group"), 0o755);
    assert_eq!(mode("meta"), 0o755);

    let device = tar_gz(&[
        ("meta/env.json", tar::EntryType::Regular, 0o644, b"{}"),
        ("meta/null", tar::EntryType::Char, 0o666, b""),
    ]);
    let meta = hostile_meta(&c, &subject, "meta", &device);
    rewrite_referrers(&c, &subject, meta, false);
    let fresh = tempfile::tempdir().unwrap();
    let out = run(&[
        "pull",
        &label(&host),
        "--to",
        fresh.path().to_str().unwrap(),
        "--allow-unsigned",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("meta/null") && text(&out).contains("a device"),
        "{}",
        text(&out)
    );
    assert!(listing(fresh.path()).is_empty());
}

/// Issue 40, item 4: with trusted keys, meta/ is the one the signature
/// covers: a referrer swapped in by an attacker is never written, and a
/// meta/ attached to an image signed without one is refused.
#[test]
fn a_swapped_meta_is_never_written_under_a_trusted_signature() {
    let reg = TestRegistry::start_plain();
    let host = reg.host();
    let keys = tempfile::tempdir().unwrap();
    let (secret, public) = key_pair(keys.path());
    push(&host, Some(&secret));
    let c = client(&host);
    let subject = image_digest(&c);
    let evil = tar_gz(&[(
        "meta/env.json",
        tar::EntryType::Regular,
        0o644,
        br#"{"mount": "/evil", "views": {"default": {"env": {"LD_PRELOAD": "/tmp/evil.so"}}}}"#,
    )]);
    let meta = hostile_meta(&c, &subject, "meta", &evil);
    rewrite_referrers(&c, &subject, meta, true);
    let to = tempfile::tempdir().unwrap();
    let dir = to.path().to_str().unwrap();
    let pub_key = public.to_str().unwrap();
    let out = run(&["pull", &label(&host), "--to", dir, "--trusted-key", pub_key]);
    assert!(out.status.success());
    assert!(text(&out).contains("signed by"));
    assert_eq!(
        fs_err::read_to_string(to.path().join("meta/env.json")).unwrap(),
        r#"{"name":"demo"}"#,
        "the signed meta/, not the attacker's"
    );

    // An image signed without meta/: an attached one is not covered.
    let bare = tempfile::tempdir().unwrap();
    fs_err::write(bare.path().join("store.squashfs"), b"bare image").unwrap();
    let bare_label = format!("{host}/deploy/bare/1.0:v1@s%u");
    let out = run(&[
        "push",
        bare.path().join("store.squashfs").to_str().unwrap(),
        &bare_label,
        "--sign-key",
        secret.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let bare_repo = "deploy/s/u/bare/1.0";
    let r = Reference::parse(&format!("{host}/{bare_repo}:v1")).unwrap();
    let bare_digest = c.get_manifest(&r).unwrap().digest;
    let mut layer = Descriptor::of_bytes(LAYER_TAR_GZIP, &evil);
    c.push_blob_bytes(bare_repo, &layer, &evil).unwrap();
    layer.annotations.insert(TITLE.into(), "meta".into());
    let mut m = Manifest::artifact("uenv/meta", vec![layer]);
    m.subject = Some(Descriptor {
        media_type: MANIFEST_V1.into(),
        digest: bare_digest,
        size: 0,
        artifact_type: None,
        annotations: Default::default(),
    });
    c.put_referrer(bare_repo, &m).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let out = run(&[
        "pull",
        &bare_label,
        "--to",
        fresh.path().to_str().unwrap(),
        "--trusted-key",
        pub_key,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("not covered by the trusted signature"),
        "{}",
        text(&out)
    );
    assert!(listing(fresh.path()).is_empty());
}

/// Issue 40, item 5: the signed manifest of one image, copied byte for
/// byte under another tag or another name/version, is refused.
#[test]
fn a_signed_image_under_another_label_is_refused() {
    let reg = TestRegistry::start_plain();
    let host = reg.host();
    let keys = tempfile::tempdir().unwrap();
    let (secret, public) = key_pair(keys.path());
    push(&host, Some(&secret));
    let c = client(&host);
    let at = Reference::parse(&format!("{host}/{REPO}:v1")).unwrap();
    let fetched = c.get_manifest(&at).unwrap();
    // Another tag of the same repository: the referrers (signature) are shared.
    c.put_manifest(REPO, "v2", MANIFEST_V1, &fetched.bytes)
        .unwrap();
    // Another name and version: blobs, manifest and referrers copied.
    let other = "deploy/s/u/evil/6.6";
    let m = fetched.manifest("x").unwrap();
    let copy_blob = |d: &Descriptor| {
        let bytes = c.pull_blob_bytes(REPO, d).unwrap();
        c.push_blob_bytes(other, d, &bytes).unwrap();
    };
    c.push_blob_bytes(other, &Descriptor::empty_config(), b"{}")
        .unwrap();
    let blob = {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("b");
        c.pull_blob(
            REPO,
            &m.layers[0],
            &p,
            &stack::registry::NoopTransferReporter,
        )
        .unwrap();
        fs_err::read(p).unwrap()
    };
    c.push_blob_bytes(other, &m.layers[0], &blob).unwrap();
    c.put_manifest(other, "v9", MANIFEST_V1, &fetched.bytes)
        .unwrap();
    for r in c.referrers(REPO, &fetched.digest, None).unwrap() {
        let rm = c
            .get_manifest(&at.with_digest(&r.digest))
            .unwrap()
            .manifest("x")
            .unwrap();
        for l in &rm.layers {
            copy_blob(l);
        }
        c.put_referrer(other, &rm).unwrap();
    }
    let pub_key = public.to_str().unwrap();
    for (address, why) in [
        (format!("{host}/deploy/demo/1.0:v2@s%u"), "demo/1.0:v2"),
        (format!("{host}/deploy/evil/6.6:v9@s%u"), "evil/6.6:v9"),
    ] {
        let to = tempfile::tempdir().unwrap();
        let out = run(&[
            "pull",
            &address,
            "--to",
            to.path().to_str().unwrap(),
            "--trusted-key",
            pub_key,
        ]);
        assert_eq!(out.status.code(), Some(1), "{address}");
        let t = text(&out);
        assert!(
            t.contains("demo/1.0:v1`, not as") && t.contains(why) && t.contains("another label"),
            "{t}"
        );
        assert!(listing(to.path()).is_empty());
    }
}

fn is_blob_get(s: &super::proxy::Seen) -> bool {
    s.method == "GET" && s.path.contains("/blobs/sha256:")
}

/// Issue 40, item 6: a blob larger than its descriptor stops as soon as it
/// exceeds the announced size, announced or streamed.
#[test]
fn a_blob_larger_than_announced_stops_at_the_announced_size() {
    let reg = TestRegistry::start_plain();
    push(&reg.host(), None);
    for announce in [Some(256u64 << 20), None] {
        let sent = Arc::new(AtomicU64::new(0));
        let s = sent.clone();
        let squash_gets = Arc::new(AtomicUsize::new(0));
        let g = squash_gets.clone();
        let proxy = Proxy::start(reg.port, move |seen| {
            // The first blob GET of a pull is store.squashfs (4096 bytes).
            if is_blob_get(seen) && g.fetch_add(1, Ordering::SeqCst) == 0 {
                return Action::Endless {
                    status: 200,
                    headers: vec![],
                    announce,
                    sent: s.clone(),
                };
            }
            Action::Forward
        });
        let to = tempfile::tempdir().unwrap();
        let out = run(&[
            "pull",
            &label(&proxy.host()),
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
        ]);
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out).contains("more than announced"), "{}", text(&out));
        std::thread::sleep(std::time::Duration::from_millis(200));
        let n = sent.load(Ordering::SeqCst);
        assert!(n < 32 << 20, "{announce:?}: the server got {n} bytes out");
        assert!(listing(to.path()).is_empty());
    }
}

/// Issue 40, item 7: manifests, referrer lists, pages and token answers
/// are read under small caps, and pagination ends.
#[test]
fn endless_answers_and_pages_are_clear_errors() {
    let reg = TestRegistry::start_plain();
    push(&reg.host(), None);
    let endless = |path_part: &'static str, status: u16| {
        let sent = Arc::new(AtomicU64::new(0));
        let s = sent.clone();
        let proxy = Proxy::start(reg.port, move |seen| {
            if seen.method == "GET" && seen.path.contains(path_part) {
                return Action::Endless {
                    status,
                    headers: vec![(
                        "Content-Type".into(),
                        "application/vnd.oci.image.manifest.v1+json".into(),
                    )],
                    announce: None,
                    sent: s.clone(),
                };
            }
            Action::Forward
        });
        (proxy, sent)
    };
    let pull = |proxy: &Proxy| {
        let to = tempfile::tempdir().unwrap();
        run(&[
            "pull",
            &label(&proxy.host()),
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
        ])
    };
    // An endless manifest, an endless referrers list (the fallback tag), an endless error body.
    for (part, status, what) in [
        (
            "/manifests/v1",
            200,
            "the manifest is larger than 4194304 bytes",
        ),
        (
            "/manifests/sha256-",
            200,
            "the manifest is larger than 4194304 bytes",
        ),
        ("/manifests/v1", 500, "HTTP 500"),
    ] {
        let (proxy, sent) = endless(part, status);
        let out = pull(&proxy);
        assert_eq!(out.status.code(), Some(1), "{part}");
        assert!(text(&out).contains(what), "{part}: {}", text(&out));
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(sent.load(Ordering::SeqCst) < 32 << 20, "{part}");
    }

    // A catalog and a tag list that link to themselves.
    let requests = Arc::new(AtomicUsize::new(0));
    let r = requests.clone();
    let proxy = Proxy::start(reg.port, move |seen| {
        if seen.path.starts_with("/v2/_catalog") {
            r.fetch_add(1, Ordering::SeqCst);
            return Action::Respond(
                200,
                vec![("Link".into(), "</v2/_catalog?n=1000>; rel=\"next\"".into())],
                format!(r#"{{"repositories": ["{REPO}"]}}"#),
            );
        }
        Action::Forward
    });
    let out = run(&["images", &format!("{}/deploy", proxy.host())]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("does not end"), "{}", text(&out));
    assert!(requests.load(Ordering::SeqCst) <= 2);
    // A Link to another host is refused: our credentials would go there.
    let proxy = Proxy::start(reg.port, move |seen| {
        if seen.path.starts_with("/v2/_catalog") {
            return Action::Respond(
                200,
                vec![(
                    "Link".into(),
                    "<@127.0.0.1:9/v2/_catalog?last=x>; rel=\"next\"".into(),
                )],
                format!(r#"{{"repositories": ["{REPO}"]}}"#),
            );
        }
        Action::Forward
    });
    let out = run(&["images", &format!("{}/deploy", proxy.host())]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not a /v2/ path"), "{}", text(&out));

    // An endless token answer.
    let sent = Arc::new(AtomicU64::new(0));
    let s = sent.clone();
    let proxy = Proxy::start(reg.port, move |seen| {
        if seen.path.starts_with("/token") {
            return Action::Endless {
                status: 200,
                headers: vec![],
                announce: None,
                sent: s.clone(),
            };
        }
        let challenge = format!(
            r#"Bearer realm="http://127.0.0.1:{}/token",service="x""#,
            seen.port
        );
        Action::Respond(
            401,
            vec![("WWW-Authenticate".into(), challenge)],
            "{}".into(),
        )
    });
    let out = pull(&proxy);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("the token answer is larger than 65536 bytes"),
        "{}",
        text(&out)
    );
}
