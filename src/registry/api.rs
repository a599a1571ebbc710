//! Manifests, tags, the catalog and referrers.

use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::client::Registry;
use super::limits;
use super::manifest::{self, Descriptor, INDEX_V1, Index, MANIFEST_V1, Manifest, sha256_digest};
use super::{Reference, RegistryError};

/// A manifest as fetched: its bytes (which its digest is over), digest and media type.
#[derive(Clone, Debug)]
pub struct FetchedManifest {
    pub bytes: Vec<u8>,
    pub digest: String,
    pub media_type: String,
}

impl FetchedManifest {
    /// Parse as an image manifest.
    pub fn manifest(&self, url: &str) -> Result<Manifest, RegistryError> {
        serde_json::from_slice(&self.bytes).map_err(|e| RegistryError::BadResponse {
            url: url.to_string(),
            message: format!("not an OCI image manifest: {e}"),
        })
    }

    /// The descriptor that points at this manifest.
    pub fn descriptor(&self) -> Descriptor {
        Descriptor {
            media_type: self.media_type.clone(),
            digest: self.digest.clone(),
            size: self.bytes.len() as u64,
            artifact_type: None,
            annotations: Default::default(),
        }
    }
}

impl Registry {
    /// GET the manifest `reference` names (its digest, else its tag); a
    /// digest reference is verified against the bytes.
    pub fn get_manifest(&self, r: &Reference) -> Result<FetchedManifest, RegistryError> {
        let path = format!("/v2/{}/manifests/{}", r.repository, r.manifest_ref());
        let (_, headers, bytes) = self.simple(
            Method::GET,
            &r.repository,
            &path,
            &[(ACCEPT.as_str(), manifest::ACCEPT)],
            (limits::MANIFEST, "manifest"),
        )?;
        let digest = sha256_digest(&bytes);
        if let Some(expected) = &r.digest
            && *expected != digest
        {
            return Err(RegistryError::DigestMismatch {
                what: self.url(&path),
                expected: expected.clone(),
                actual: digest,
            });
        }
        let media_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_string())
            .or_else(|| {
                serde_json::from_slice::<serde_json::Value>(&bytes)
                    .ok()?
                    .get("mediaType")?
                    .as_str()
                    .map(str::to_string)
            })
            .unwrap_or_else(|| MANIFEST_V1.to_string());
        Ok(FetchedManifest {
            bytes,
            digest,
            media_type,
        })
    }

    /// The digest of the manifest at `reference`, `None` when there is none (HEAD).
    pub fn manifest_digest(&self, r: &Reference) -> Result<Option<String>, RegistryError> {
        let path = format!("/v2/{}/manifests/{}", r.repository, r.manifest_ref());
        match self.simple(
            Method::HEAD,
            &r.repository,
            &path,
            &[(ACCEPT.as_str(), manifest::ACCEPT)],
            (limits::MANIFEST, "manifest"),
        ) {
            Ok((_, headers, _)) => Ok(headers
                .get("docker-content-digest")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .or_else(|| Some(String::new()))),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// PUT `bytes` of `media_type` at `repo` under `reference` (a tag, or
    /// its digest). Returns the digest and whether the registry processed a
    /// `subject` itself (the `OCI-Subject` header).
    pub fn put_manifest(
        &self,
        repo: &str,
        reference: &str,
        media_type: &str,
        bytes: &[u8],
    ) -> Result<(String, bool), RegistryError> {
        let url = self.url(&format!("/v2/{repo}/manifests/{reference}"));
        let body = bytes.to_vec();
        let response = self.runtime.block_on(async {
            let build = |c: &reqwest::Client| {
                Ok(c.put(&url)
                    .header(CONTENT_TYPE, media_type)
                    .body(body.clone()))
            };
            self.send(repo, &url, &build).await
        })?;
        let subject = response.headers().contains_key("oci-subject");
        Ok((sha256_digest(bytes), subject))
    }

    /// Push an image manifest by digest and, when it has a subject and the
    /// registry has no referrers API, add it to the subject's referrers tag
    /// (`sha256-<hex>`, the fallback schema of distribution-spec 1.1).
    pub fn put_referrer(&self, repo: &str, m: &Manifest) -> Result<Descriptor, RegistryError> {
        let bytes = m.to_bytes();
        let digest = sha256_digest(&bytes);
        let (_, handled) = self.put_manifest(repo, &digest, MANIFEST_V1, &bytes)?;
        let mut desc = Descriptor::of_bytes(MANIFEST_V1, &bytes);
        desc.artifact_type = m.artifact_type.clone();
        desc.annotations = m.annotations.clone();
        if let Some(subject) = &m.subject
            && !handled
        {
            let tag = manifest::referrers_tag(&subject.digest);
            let at = Reference {
                registry: self.host().to_string(),
                repository: repo.to_string(),
                tag: Some(tag.clone()),
                digest: None,
            };
            let mut index = match self.get_manifest(&at) {
                Ok(f) => {
                    serde_json::from_slice::<Index>(&f.bytes).unwrap_or_else(|_| Index::new(vec![]))
                }
                Err(e) if e.is_not_found() => Index::new(vec![]),
                Err(e) => return Err(e),
            };
            if !index.manifests.iter().any(|d| d.digest == desc.digest) {
                index.manifests.push(desc.clone());
                self.put_manifest(repo, &tag, INDEX_V1, &index.to_bytes())?;
            }
        }
        Ok(desc)
    }

    /// The referrers of `digest` in `repo`, of `artifact_type` when given:
    /// from the referrers API, else from the fallback tag.
    pub fn referrers(
        &self,
        repo: &str,
        digest: &str,
        artifact_type: Option<&str>,
    ) -> Result<Vec<Descriptor>, RegistryError> {
        let path = format!("/v2/{repo}/referrers/{digest}");
        let from_api = match self.simple(
            Method::GET,
            repo,
            &path,
            &[(ACCEPT.as_str(), INDEX_V1)],
            (limits::REFERRERS, "referrers list"),
        ) {
            Ok((_, headers, body)) if is_index(&headers, &body) => {
                serde_json::from_slice::<Index>(&body).ok()
            }
            Ok(_) => None,
            Err(e) if e.is_not_found() => None,
            Err(RegistryError::Status {
                status: 400 | 405, ..
            }) => None,
            Err(e) => return Err(e),
        };
        let index = match from_api {
            Some(i) => i,
            None => {
                let at = Reference {
                    registry: self.host().to_string(),
                    repository: repo.to_string(),
                    tag: Some(manifest::referrers_tag(digest)),
                    digest: None,
                };
                match self.get_manifest(&at) {
                    Ok(f) => serde_json::from_slice(&f.bytes).map_err(|e| {
                        RegistryError::BadResponse {
                            url: self.url(&format!("/v2/{repo}/manifests/{}", at.manifest_ref())),
                            message: format!("the referrers tag is not an image index: {e}"),
                        }
                    })?,
                    Err(e) if e.is_not_found() => Index::new(vec![]),
                    Err(e) => return Err(e),
                }
            }
        };
        Ok(index
            .manifests
            .into_iter()
            .filter(|d| artifact_type.is_none_or(|t| d.artifact_type.as_deref() == Some(t)))
            .collect())
    }

    /// Every tag of `repo` (following `Link` pagination); empty when the
    /// repository does not exist.
    pub fn tags(&self, repo: &str) -> Result<Vec<String>, RegistryError> {
        match self.paged(
            repo,
            &format!("/v2/{repo}/tags/list?n=1000"),
            "tags",
            "the tag list",
        ) {
            Err(e) if e.is_not_found() => Ok(Vec::new()),
            r => r,
        }
    }

    /// Every repository of the registry (`/v2/_catalog`, paginated).
    pub fn catalog(&self) -> Result<Vec<String>, RegistryError> {
        self.paged("", "/v2/_catalog?n=1000", "repositories", "the catalog")
    }

    /// The strings of `field` in every page of a paginated list, from
    /// `first` on: each page read under [`limits::PAGE`], at most
    /// [`limits::PAGES`] pages, a page never asked for twice. A 404 of a
    /// later page is an error; of the first, returned as it is.
    fn paged(
        &self,
        scope: &str,
        first: &str,
        field: &str,
        what: &'static str,
    ) -> Result<Vec<String>, RegistryError> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut next = Some(first.to_string());
        while let Some(path) = next.take() {
            if !seen.insert(path.clone()) || seen.len() > limits::PAGES {
                return Err(RegistryError::EndlessPages {
                    url: self.url(first),
                    what,
                    pages: limits::PAGES,
                });
            }
            let (_, headers, body) =
                self.simple(Method::GET, scope, &path, &[], (limits::PAGE, "page"))?;
            let v: serde_json::Value =
                serde_json::from_slice(&body).map_err(|e| RegistryError::BadResponse {
                    url: self.url(&path),
                    message: e.to_string(),
                })?;
            if let Some(items) = v.get(field).and_then(|t| t.as_array()) {
                out.extend(items.iter().filter_map(|t| t.as_str()).map(str::to_string));
            }
            next = next_link(&headers).map_err(|message| RegistryError::BadResponse {
                url: self.url(&path),
                message,
            })?;
        }
        Ok(out)
    }
}

fn is_index(headers: &reqwest::header::HeaderMap, body: &[u8]) -> bool {
    let ct = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    ct.starts_with(INDEX_V1)
        || serde_json::from_slice::<Index>(body).is_ok_and(|i| i.schema_version == 2)
}

/// `Link: </v2/...?last=x&n=100>; rel="next"` → the path. Absolute links
/// keep only their path and query, which must be below `/v2/`: a link
/// never leads to another host (the request carries our credentials).
fn next_link(headers: &reqwest::header::HeaderMap) -> Result<Option<String>, String> {
    let Some(v) = headers.get("link").and_then(|v| v.to_str().ok()) else {
        return Ok(None);
    };
    if !v.contains("rel=\"next\"") {
        return Ok(None);
    }
    let (Some(start), Some(end)) = (v.find('<'), v.find('>')) else {
        return Err(format!("unreadable Link header `{}`", v.escape_debug()));
    };
    let link = v.get(start + 1..end).unwrap_or("");
    let path = match link.find("/v2/") {
        Some(i) if i == 0 || link[..i].contains("://") => &link[i..],
        _ => link,
    };
    let well_formed = path.starts_with("/v2/")
        && !path.contains("/../")
        && path.bytes().all(|b| b.is_ascii_graphic());
    if !well_formed {
        return Err(format!(
            "the Link header's next page `{}` is not a /v2/ path of this registry",
            link.escape_debug()
        ));
    }
    Ok(Some(path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_next_links() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(
            "link",
            r#"</v2/_catalog?last=b&n=2>; rel="next""#.parse().unwrap(),
        );
        assert_eq!(
            next_link(&h).unwrap().as_deref(),
            Some("/v2/_catalog?last=b&n=2")
        );
        h.insert(
            "link",
            r#"<https://r.example/v2/a/tags/list?last=x>; rel="next""#
                .parse()
                .unwrap(),
        );
        assert_eq!(
            next_link(&h).unwrap().as_deref(),
            Some("/v2/a/tags/list?last=x")
        );
        assert_eq!(next_link(&reqwest::header::HeaderMap::new()), Ok(None));
        // Never a path that would change the host once joined to the base URL.
        for bad in [
            "<@evil.example/v2/x>; rel=\"next\"",
            "<evil.example/x>; rel=\"next\"",
            "<//evil.example/x>; rel=\"next\"",
            "<x/v2/a>; rel=\"next\"",
            "</v2/../../x>; rel=\"next\"",
        ] {
            h.insert("link", bad.parse().unwrap());
            assert!(next_link(&h).is_err(), "{bad}");
        }
    }
}
