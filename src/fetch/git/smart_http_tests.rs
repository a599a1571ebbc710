use super::*;
use crate::fetch::options::FetchOptions;
use crate::fetch::{FetchError, SourceCache};
use reqwest::StatusCode;
use reqwest::header::HeaderValue;

fn headers(content_type: Option<&str>) -> HeaderMap {
    let mut h = HeaderMap::new();
    if let Some(t) = content_type {
        h.insert(CONTENT_TYPE, HeaderValue::from_str(t).unwrap());
    }
    h
}

fn http() -> Http {
    let d = tempfile::tempdir().unwrap();
    Http::new(&FetchOptions::new(SourceCache::new(d.path()))).unwrap()
}

#[test]
fn request_urls_follow_git() {
    assert_eq!(
        refs_url("https://h.test/g/r.git"),
        "https://h.test/g/r.git/info/refs?service=git-upload-pack"
    );
    // A trailing slash is not doubled.
    assert_eq!(
        refs_url("https://h.test/g/r.git/"),
        "https://h.test/g/r.git/info/refs?service=git-upload-pack"
    );
    assert_eq!(
        upload_pack_url("http://h.test/r"),
        "http://h.test/r/git-upload-pack"
    );
    // Before an advertisement the POSTs go to the remote's own URL.
    assert_eq!(
        Base::default().get_or("http://h.test/r/"),
        "http://h.test/r"
    );
}

#[test]
fn the_user_agent_is_stacks_behind_a_git_prefix() {
    assert!(GIT_USER_AGENT.starts_with("git/"), "{GIT_USER_AGENT}");
    assert!(
        GIT_USER_AGENT.contains(concat!("stack/", env!("CARGO_PKG_VERSION"))),
        "{GIT_USER_AGENT}"
    );
}

#[test]
fn the_redirected_advertisement_sets_the_base() {
    let asked = "http://h.test/old/info/refs?service=git-upload-pack";
    let answered =
        reqwest::Url::parse("https://other.test/new.git/info/refs?service=git-upload-pack")
            .unwrap();
    assert_eq!(
        base_of(asked, &answered).unwrap(),
        "https://other.test/new.git"
    );
    // https is not given up for plain http.
    let https = "https://h.test/r/info/refs?service=git-upload-pack";
    let plain = reqwest::Url::parse("http://h.test/r/info/refs?service=git-upload-pack").unwrap();
    let err = base_of(https, &plain).unwrap_err();
    assert!(
        err.to_string()
            .contains("an https remote is not followed to plain http"),
        "{err}"
    );
    let login = reqwest::Url::parse("https://h.test/login?next=/old").unwrap();
    let err = base_of(asked, &login).unwrap_err();
    assert!(matches!(&err, FetchError::Request { url, .. } if url == asked));
    assert!(
        err.to_string()
            .contains("redirected to https://h.test/login?next=/old, which is not a git"),
        "{err}"
    );
}

#[test]
fn answers_need_success_and_the_smart_content_type() {
    let url = "http://h.test/r/info/refs?service=git-upload-pack";
    let ok = headers(Some("application/x-git-upload-pack-advertisement"));
    assert!(check_answer(url, StatusCode::OK, &ok, ADVERTISEMENT).is_ok());
    // Parameters and case do not matter.
    let with_params = headers(Some("Application/X-Git-Upload-Pack-Result; charset=binary"));
    assert!(check_answer(url, StatusCode::OK, &with_params, RESULT).is_ok());

    let err = check_answer(url, StatusCode::NOT_FOUND, &ok, ADVERTISEMENT).unwrap_err();
    assert!(
        matches!(&err, FetchError::HttpStatus { url: u, status: 404 } if u == url),
        "{err:?}"
    );
    assert!(err.to_string().starts_with(url), "{err}");

    // A dumb server (or a web page) answers text.
    let text = headers(Some("text/plain"));
    let err = check_answer(url, StatusCode::OK, &text, ADVERTISEMENT).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with(url), "{msg}");
    assert!(
        msg.contains(
            "Content-Type `text/plain`, expected `application/x-git-upload-pack-advertisement`"
        ),
        "{msg}"
    );
    let err = check_answer(url, StatusCode::OK, &headers(None), RESULT).unwrap_err();
    assert!(err.to_string().contains("no Content-Type"), "{err}");
}

#[test]
fn the_upload_pack_body_is_what_was_written_before_reading() {
    let session = Arc::new(Session::new(None));
    let mut s = Stream::upload_pack(http(), session.clone(), "http://127.0.0.1:9/r");
    s.write_all(b"0032want ").unwrap();
    s.write_all(b"x\n0000").unwrap();
    match &s.ask {
        Ask::UploadPack { body, .. } => assert_eq!(body, b"0032want x\n0000"),
        Ask::Refs { .. } => unreachable!(),
    }
    // A ref advertisement is a GET: nothing may be written to it.
    let mut refs = Stream::refs(
        http(),
        session.clone(),
        "http://127.0.0.1:9/r",
        Base::default(),
    );
    let err = refs.write(b"x").unwrap_err();
    assert!(err.to_string().contains("info/refs"), "{err}");
    assert!(session.take_error().is_some());
}

#[test]
fn blocking_inside_a_runtime_does_not_panic() {
    let http = http();
    let outer = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let got = outer.block_on(async { http.block_on(async { 7 }) });
    assert_eq!(got, 7);
}
