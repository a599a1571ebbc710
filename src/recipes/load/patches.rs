//! A recipe's `patches:`: files below the repository's `patches/` directory
//! (checked there, also after following links) or URLs with their checksums.

use super::*;

pub(super) fn patches(cx: &mut Cx, node: &Node, repo_dir: &Path) -> Vec<Patch> {
    let Some(items) = cx.seq(node, "`patches`") else {
        return Vec::new();
    };
    let patch_dir = absolutize(Path::new("../patches"), repo_dir);
    let mut out = Vec::new();
    for item in items {
        let keys = &["file", "url", "sha256", "level", "working_dir", "when"];
        let Some(m) = cx.map(item, "a patch", keys) else {
            continue;
        };
        let sha = cx
            .required(&m, "sha256", "a patch")
            .and_then(|n| read::sha256(cx, n, "the patch `sha256`"));
        let level = m
            .get("level")
            .and_then(|n| cx.u32(n, "`level`"))
            .unwrap_or(1);
        let working_dir = m
            .get("working_dir")
            .and_then(|n| resources::tree_dir(cx, n, "`working_dir`"));
        let when = m.get("when").and_then(|n| read::when(cx, n));
        let source = match (m.get("file"), m.get("url")) {
            (Some(f), None) => cx.nonempty_string(f, "`file`").map(|f| {
                let path = absolutize(Path::new(&f.value), &patch_dir);
                check_patch_file(cx, &f, &path, &patch_dir, sha.as_deref());
                PatchSource::File(PathRef {
                    text: f.value,
                    path,
                    loc: f.loc,
                })
            }),
            (None, Some(u)) => cx.nonempty_string(u, "`url`").map(PatchSource::Url),
            (Some(_), Some(u)) => {
                let loc = cx.loc(u);
                cx.error(
                    Code::BadSource,
                    &loc,
                    "a patch has both `file` and `url`",
                    "choose one",
                    None,
                );
                None
            }
            (None, None) => {
                cx.error(
                    Code::MissingField,
                    &m.loc,
                    "a patch needs `file` (below the repository's `patches/` dir) or `url`",
                    "no `file` or `url`",
                    None,
                );
                None
            }
        };
        if let (Some(source), Some(sha256)) = (source, sha) {
            out.push(Patch {
                source,
                sha256,
                level,
                working_dir,
                when,
                loc: m.loc.clone(),
            });
        }
    }
    out
}

pub(super) fn check_patch_file(
    cx: &mut Cx,
    text: &Spanned<String>,
    path: &Path,
    patch_dir: &Path,
    sha: Option<&str>,
) {
    // Below patches/, also after following links: a recipe must not make
    // `stack check` read (and print the checksum of) any file it likes.
    let inside = path.starts_with(patch_dir) && below::stays_below(path, patch_dir);
    if !inside {
        cx.error(
            Code::InvalidValue,
            &text.loc,
            format!(
                "patch file `{}` is outside the repository's `patches/` directory",
                text.value
            ),
            "not below patches/",
            Some(
                "`file:` is relative to the `patches/` directory beside the repository; \
                 copy the patch there"
                    .into(),
            ),
        );
        return;
    }
    match fs_err::read(path) {
        Err(_) => {
            cx.error(
                Code::PatchMissing,
                &text.loc,
                format!("patch file `{}` not found", text.value),
                format!("expected {}", display_path(path)),
                Some(format!(
                    "`file:` is relative to {}/, the `patches/` directory beside the repository",
                    display_path(patch_dir)
                )),
            );
        }
        Ok(bytes) => {
            let actual = hex::encode(Sha256::digest(&bytes));
            if let Some(expected) = sha {
                if actual != expected {
                    cx.error(
                        Code::PatchChecksum,
                        &text.loc,
                        format!("sha256 mismatch for patch `{}`", text.value),
                        "this file's checksum differs from `sha256`",
                        Some(format!(
                            "the file's sha256 is {actual}; if the patch changed on purpose, put that in the recipe"
                        )),
                    );
                }
            }
        }
    }
}
