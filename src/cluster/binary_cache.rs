//! `binary_cache:` in a cluster configuration: where the cluster's binary
//! cache is, whom to trust, and whether builds push to it.
//!
//! ```yaml
//! binary_cache:
//!   url: oci://registry.example:5000/stack-cache
//!   keys: ["ed25519:…"]        # trusted public keys (or files, relative to the cluster dir)
//!   push: true                 # push what is built (needs a signing key to sign)
//! ```

use std::path::PathBuf;

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Loc, Spanned};

/// The cluster's binary cache.
#[derive(Clone, Debug)]
pub struct BinaryCacheConfig {
    /// `oci://REGISTRY/NAMESPACE`.
    pub url: Spanned<String>,
    /// Trusted public keys, as written (`ed25519:…`), files already read.
    pub keys: Vec<Spanned<String>>,
    /// Push what this cluster's builds build (default true).
    pub push: bool,
    pub loc: Loc,
}

/// Read `binary_cache: {url, keys, push}`.
pub fn binary_cache(cx: &mut Cx, node: &Node) -> Option<BinaryCacheConfig> {
    let m = cx.map(node, "`binary_cache`", &["url", "keys", "push"])?;
    let url = cx
        .required(&m, "url", "`binary_cache`")
        .and_then(|n| cx.nonempty_string(n, "`binary_cache.url`"))?;
    if !url.value.starts_with("oci://") {
        cx.error(
            Code::InvalidValue,
            &url.loc,
            format!("`{}` is not an oci:// address", url.value),
            "expected oci://REGISTRY/NAMESPACE, e.g. oci://registry.example:5000/stack-cache",
            None,
        );
    }
    let dir = cx.dir();
    let mut keys = Vec::new();
    for k in m
        .get("keys")
        .map(|n| cx.strings(n, "`binary_cache.keys`", true))
        .unwrap_or_default()
    {
        if k.value.starts_with("ed25519:") {
            keys.push(k);
            continue;
        }
        let path: PathBuf = dir.join(&k.value);
        match fs_err::read_to_string(&path) {
            Ok(text) => keys.push(Spanned::new(text.trim().to_string(), k.loc)),
            Err(e) => cx.error(
                Code::BadPath,
                &k.loc,
                format!("cannot read the key file: {e}"),
                "expected `ed25519:<base64>` or a file holding one",
                None,
            ),
        }
    }
    for k in &keys {
        if let Err(e) = crate::sign::PublicKey::parse(&k.value, "binary_cache.keys") {
            cx.error(
                Code::InvalidValue,
                &k.loc,
                e.to_string(),
                "expected `ed25519:<base64>` (see `stack key generate`)",
                None,
            );
        }
    }
    let push = m
        .get("push")
        .and_then(|n| cx.bool(n, "`binary_cache.push`"))
        .unwrap_or(true);
    Some(BinaryCacheConfig {
        url,
        keys,
        push,
        loc: m.loc.clone(),
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
    fn reads_url_keys_and_push() {
        let key = crate::sign::SecretKey::generate()
            .unwrap()
            .public()
            .to_string();
        let (c, d) = parse(&format!(
            "binary_cache:\n  url: oci://r.example:5000/cache\n  keys: [\"{key}\"]\n  push: false\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        let b = c.unwrap().binary_cache.unwrap();
        assert_eq!(b.url.value, "oci://r.example:5000/cache");
        assert_eq!(b.keys.len(), 1);
        assert!(!b.push);
        let (c, _) = parse("");
        assert!(c.unwrap().binary_cache.is_none());
    }

    #[test]
    fn bad_urls_and_keys_are_errors_at_their_line() {
        let (_, d) =
            parse("binary_cache:\n  url: https://r.example/cache\n  keys: [\"ed25519:AAAA\"]\n");
        let text = format!("{d:?}");
        assert!(d.has_errors());
        assert!(text.contains("not an oci:// address"), "{text}");
        assert!(text.contains("not base64 of 32 bytes"), "{text}");
    }
}
