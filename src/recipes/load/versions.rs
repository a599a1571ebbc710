//! A recipe's `versions:` list: each entry's version and its source (a URL
//! with its checksum, a git revision, or none), and the keys each kind refuses.

use super::*;

pub(super) const VERSION_KEYS: &[&str] = &[
    "version",
    "url",
    "sha256",
    "expand",
    "preferred",
    "git",
    "tag",
    "branch",
    "commit",
    "submodules",
    "resources",
    "max_size",
    "source",
];

pub(in crate::recipes) fn versions(
    cx: &mut Cx,
    node: &Node,
    may_be_empty: bool,
) -> Vec<VersionEntry> {
    let Some(items) = cx.seq(node, "`versions`") else {
        return Vec::new();
    };
    if items.is_empty() && !may_be_empty {
        let loc = cx.loc(node);
        cx.error(
            Code::MissingField,
            &loc,
            "`versions` is empty",
            "expected at least one version",
            None,
        );
    }
    let mut out: Vec<VersionEntry> = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a version entry", VERSION_KEYS) else {
            continue;
        };
        let Some(entry) = version_entry(cx, &m) else {
            continue;
        };
        if let Some(prev) = out.iter().find(|v| v.version == entry.version) {
            let d = Diagnostic::error(
                Code::DuplicateVersion,
                format!("version `{}` is listed twice", entry.text),
            )
            .at(&entry.loc, "listed again here")
            .at(&prev.loc, "first listed here")
            .with_help(
                "remove one of the two entries (give a git branch its own name, e.g. `main`)",
            );
            cx.push(d);
            continue;
        }
        out.push(entry);
    }
    out
}

pub(super) fn version_entry(cx: &mut Cx, m: &Map) -> Option<VersionEntry> {
    let text = cx
        .required(m, "version", "a version entry")
        .and_then(|n| cx.nonempty_string(n, "`version`"));
    let version = text.as_ref().and_then(|t| match Version::parse(t) {
        Ok(v) => Some(v),
        Err(e) => {
            cx.error(
                Code::InvalidValue,
                &t.loc,
                format!("invalid version `{}`: {}", t.value, e.reason()),
                "expected a version such as `1.2.3`, `2.29.7-1` or `main`",
                None,
            );
            None
        }
    });
    let preferred = m
        .get("preferred")
        .and_then(|n| cx.bool(n, "`preferred`"))
        .unwrap_or(false);
    let source = source(cx, m);
    let (text, version, source) = (text?, version?, source?);
    Some(VersionEntry {
        version,
        text: text.value,
        loc: text.loc,
        source,
        preferred,
    })
}

/// `source: none`, alone: no `url`, `git` or their keys beside it.
pub(super) fn no_source(cx: &mut Cx, m: &Map, none: &Node) -> Option<Source> {
    let value = cx.string(none, "`source`")?;
    if value.value != "none" {
        cx.error(
            Code::BadSource,
            &value.loc,
            format!(
                "`source` takes only the value `none`, not `{}`",
                value.value
            ),
            "not `none`",
            Some("give the source as `url` or `git`, or write `source: none`".into()),
        );
        return None;
    }
    let mut ok = true;
    for key in ["url", "git"].iter().chain(GIT_ONLY).chain(URL_ONLY) {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadSource,
                &loc,
                format!("a version with `source: none` has no `{key}`"),
                "beside `source: none`",
                Some("keep either `source: none` or the source".into()),
            );
            ok = false;
        }
    }
    ok.then_some(Source::None)
}

pub(super) const GIT_ONLY: &[&str] = &["tag", "branch", "commit", "submodules"];
pub(super) const URL_ONLY: &[&str] = &["sha256", "expand", "resources", "max_size"];

pub(super) fn source(cx: &mut Cx, m: &Map) -> Option<Source> {
    if let Some(none) = m.get("source") {
        return no_source(cx, m, none);
    }
    match (m.get("url"), m.get("git")) {
        (Some(_), Some(git)) => {
            let loc = cx.loc(git);
            cx.error(
                Code::BadSource,
                &loc,
                "a version has both `url` and `git`",
                "second source here",
                Some("give each source its own version entry".into()),
            );
            None
        }
        (None, None) => {
            cx.error(
                Code::BadSource,
                &m.loc,
                "a version needs a source: `url` (with `sha256`), `git` (with `tag`, `branch` or `commit`) or `source: none`",
                "no `url` or `git` in this entry",
                None,
            );
            None
        }
        (Some(url), None) => {
            misplaced_keys(cx, m, GIT_ONLY, "git");
            let (resource, text) = read::resource(cx, url, "`url`")?;
            let sha256 = m
                .get("sha256")
                .and_then(|n| read::sha256(cx, n, "`sha256`"));
            let expand = m
                .get("expand")
                .and_then(|n| cx.bool(n, "`expand`"))
                .unwrap_or(true);
            let resources = resources::resources(cx, m);
            let max_size = m
                .get("max_size")
                .and_then(|n| crate::recipes::max_size::read(cx, n));
            Some(Source::Archive(ArchiveSource {
                url: resource,
                url_text: text.value,
                sha256,
                expand,
                resources,
                max_size,
                loc: text.loc,
            }))
        }
        (None, Some(git)) => {
            misplaced_keys(cx, m, URL_ONLY, "url");
            let (resource, text) = read::resource(cx, git, "`git`")?;
            let (reference, pin, submodules) = git_revision(cx, m, &text.loc, "a git version")?;
            Some(Source::Git(GitSource {
                repo: resource,
                repo_text: text.value,
                reference,
                commit: pin,
                submodules,
                loc: text.loc,
            }))
        }
    }
}

/// The revision of a git source or resource (`tag`, `branch` or `commit`,
/// a `commit` pin beside a tag or branch, `submodules`); `what` names the
/// entry in messages.
pub(super) fn git_revision(
    cx: &mut Cx,
    m: &Map,
    at: &Loc,
    what: &str,
) -> Option<(GitRef, Option<String>, bool)> {
    let tag = m.get("tag").and_then(|n| cx.nonempty_string(n, "`tag`"));
    let branch = m
        .get("branch")
        .and_then(|n| cx.nonempty_string(n, "`branch`"));
    let commit = m.get("commit").and_then(|n| commit(cx, n));
    let submodules = m
        .get("submodules")
        .and_then(|n| cx.bool(n, "`submodules`"))
        .unwrap_or(false);
    let (reference, pin) = match (tag, branch, commit) {
        (Some(_), Some(b), _) => {
            cx.error(
                Code::BadSource,
                &b.loc,
                format!("{what} has both `tag` and `branch`"),
                "choose one",
                Some("use `tag` for releases, `branch` for moving heads".into()),
            );
            return None;
        }
        (Some(t), None, c) => (GitRef::Tag(t.value), c),
        (None, Some(b), c) => (GitRef::Branch(b.value), c),
        (None, None, Some(c)) => (GitRef::Commit(c), None),
        (None, None, None) => {
            cx.error(
                Code::BadSource,
                at,
                format!("{what} needs one of `tag`, `branch` or `commit`"),
                "which revision?",
                None,
            );
            return None;
        }
    };
    Some((reference, pin, submodules))
}

pub(super) fn misplaced_keys(cx: &mut Cx, m: &Map, keys: &[&str], kind: &str) {
    for key in keys {
        if let Some(k) = m.key_node(key) {
            let loc = cx.scalar_loc(k);
            cx.error(
                Code::BadSource,
                &loc,
                format!("`{key}` only applies to `{kind}` sources"),
                "not used by this source",
                None,
            );
        }
    }
}

/// Whether `s` is a full git commit id, 40 hex digits (as
/// [`GitRef::Commit`] holds, lower-cased).
pub fn is_commit_id(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

pub(super) fn commit(cx: &mut Cx, node: &Node) -> Option<String> {
    let s = cx.string(node, "`commit`")?;
    if is_commit_id(&s) {
        Some(s.to_ascii_lowercase())
    } else {
        cx.error(
            Code::BadSource,
            &s.loc,
            format!("`{}` is not a full git commit id", s.value),
            "expected 40 hex digits",
            Some("run `git rev-parse <ref>` to get the full id".into()),
        );
        None
    }
}
