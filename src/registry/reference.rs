//! Image references: `[oci://]REGISTRY/REPOSITORY[:TAG][@sha256:HEX]`.

use std::fmt;

use super::RegistryError;

/// Where a manifest is: a registry host, a repository in it, and a tag or a
/// digest (a reference may carry both; the digest wins when fetching).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]`.
    pub registry: String,
    /// `a/b/c`, lowercase.
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:<64 hex>`.
    pub digest: Option<String>,
}

impl Reference {
    /// Parse a reference. The first path component is always the registry
    /// (there is no default registry); `oci://` in front is accepted.
    pub fn parse(text: &str) -> Result<Reference, RegistryError> {
        let bad = |message: &str| RegistryError::BadReference {
            text: text.to_string(),
            message: message.to_string(),
        };
        let rest = text.strip_prefix("oci://").unwrap_or(text);
        let (rest, digest) = match rest.split_once('@') {
            Some((r, d)) => {
                if !is_digest(d) {
                    return Err(bad(
                        "the digest must be sha256: and 64 lowercase hex digits",
                    ));
                }
                (r, Some(d.to_string()))
            }
            None => (rest, None),
        };
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| bad("no repository after the registry"))?;
        if registry.is_empty() {
            return Err(bad("no registry"));
        }
        // A tag is after the last `:` of the last path component.
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag.to_string())),
            _ => (path, None),
        };
        if let Some(t) = &tag
            && !is_tag(t)
        {
            return Err(bad(
                "a tag is 1-128 characters of [A-Za-z0-9_.-], not starting with . or -",
            ));
        }
        if repository.is_empty() || !repository.split('/').all(is_path_component) {
            return Err(bad(
                "repository components are lowercase [a-z0-9] separated by . _ __ or -",
            ));
        }
        Ok(Reference {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    /// What to put after `/manifests/`: the digest, else the tag, else `latest`.
    pub fn manifest_ref(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .unwrap_or("latest")
    }

    /// The same repository at another tag or digest.
    pub fn with_digest(&self, digest: &str) -> Reference {
        Reference {
            digest: Some(digest.to_string()),
            ..self.clone()
        }
    }

    /// The same repository at `tag` (no digest).
    pub fn with_tag(&self, tag: &str) -> Reference {
        Reference {
            tag: Some(tag.to_string()),
            digest: None,
            ..self.clone()
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(t) = &self.tag {
            write!(f, ":{t}")?;
        }
        if let Some(d) = &self.digest {
            write!(f, "@{d}")?;
        }
        Ok(())
    }
}

/// `sha256:` and 64 lowercase hex digits.
pub fn is_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The OCI tag grammar: `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`.
pub fn is_tag(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// One repository path component: `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`.
pub fn is_path_component(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    if b.is_empty() || !alnum(&b[0]) || !alnum(&b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if alnum(&b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !alnum(&b[i]) {
            i += 1;
        }
        let sep = &s[start..i];
        let ok = sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|c| c == b'-');
        if !ok {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn parses_registry_repository_tag_digest() {
        let r = Reference::parse("localhost:5000/deploy/daint/gh200/prgenv-gnu/24.11:v2").unwrap();
        assert_eq!(r.registry, "localhost:5000");
        assert_eq!(r.repository, "deploy/daint/gh200/prgenv-gnu/24.11");
        assert_eq!(r.tag.as_deref(), Some("v2"));
        assert_eq!(r.manifest_ref(), "v2");
        let r = Reference::parse(&format!("oci://reg.example/a/b@{D}")).unwrap();
        assert_eq!(r.registry, "reg.example");
        assert_eq!(r.repository, "a/b");
        assert_eq!(r.tag, None);
        assert_eq!(r.manifest_ref(), D);
        assert_eq!(r.to_string(), format!("reg.example/a/b@{D}"));
        let r = Reference::parse("127.0.0.1:5000/cache").unwrap();
        assert_eq!(r.manifest_ref(), "latest");
    }

    #[test]
    fn rejects_bad_references() {
        for bad in [
            "noslash",
            "/repo",
            "reg/Upper",
            "reg/a//b",
            "reg/a:-tag",
            "reg/a@sha256:abc",
            "reg/a--b_",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn path_components() {
        for ok in ["a", "a.b", "a__b", "a---b", "24.11", "x_y"] {
            assert!(is_path_component(ok), "{ok}");
        }
        for bad in ["", "A", ".a", "a.", "a..b", "a___b", "a._b"] {
            assert!(!is_path_component(bad), "{bad}");
        }
    }
}
