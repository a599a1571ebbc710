//! Credentials and the two authentication flows of the distribution API:
//! HTTP basic, and bearer tokens from the realm named in the registry's
//! `WWW-Authenticate` challenge.
//!
//! Credentials come from the caller (`--username` + `--password-stdin`, a
//! token file) or from the `auths` of a docker `config.json`; they are never
//! logged: [`Credentials`]' `Debug` shows only which kind it is.

use std::fmt;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;

use super::RegistryError;

/// How to authenticate to one registry.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Credentials {
    /// Anonymous (a bearer flow may still get an anonymous token).
    #[default]
    Anonymous,
    /// A user name and password (or personal access token).
    Basic { username: String, password: String },
    /// A registry token, sent as `Authorization: Bearer` as it is.
    Token(String),
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Anonymous => f.write_str("Anonymous"),
            Credentials::Basic { username, .. } => write!(f, "Basic({username}, ****)"),
            Credentials::Token(_) => f.write_str("Token(****)"),
        }
    }
}

impl Credentials {
    /// The `Authorization: Basic` value, when there is a user and password.
    pub fn basic_header(&self) -> Option<String> {
        match self {
            Credentials::Basic { username, password } => Some(format!(
                "Basic {}",
                B64.encode(format!("{username}:{password}"))
            )),
            _ => None,
        }
    }

    /// Credentials from a token file: its contents, surrounding whitespace
    /// removed. With a user name the token is that user's password (basic
    /// flows, token servers); without, it is a bearer token.
    pub fn from_token_file(path: &Path, username: Option<&str>) -> Result<Self, RegistryError> {
        let text = fs_err::read_to_string(path).map_err(|e| RegistryError::Credentials {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let token = text.trim().to_string();
        if token.is_empty() {
            return Err(RegistryError::Credentials {
                path: path.display().to_string(),
                message: "the token file is empty".into(),
            });
        }
        Ok(match username {
            Some(u) => Credentials::Basic {
                username: u.to_string(),
                password: token,
            },
            None => Credentials::Token(token),
        })
    }
}

/// The credentials for `registry` (`host[:port]`) in a docker `config.json`:
/// `auths.<registry>.auth` (base64 `user:password`), or its `username` and
/// `password` fields, or `identitytoken` (used as a bearer token). Keys may
/// be written as URLs (`https://host/v1/`). `Ok(None)` when the file or the
/// entry does not exist.
pub fn docker_config_credentials(
    path: &Path,
    registry: &str,
) -> Result<Option<Credentials>, RegistryError> {
    let text = match fs_err::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(RegistryError::Credentials {
                path: path.display().to_string(),
                message: e.to_string(),
            });
        }
    };
    let bad = |message: String| RegistryError::Credentials {
        path: path.display().to_string(),
        message,
    };
    let config: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Some(auths) = config.get("auths").and_then(|a| a.as_object()) else {
        return Ok(None);
    };
    let entry = auths.iter().find(|(key, _)| host_of(key) == registry);
    let Some((key, entry)) = entry else {
        return Ok(None);
    };
    let field = |name: &str| {
        entry
            .get(name)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
    };
    if let Some(auth) = field("auth") {
        let decoded = B64
            .decode(auth.trim())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| bad(format!("auths.{key}.auth is not base64 of user:password")))?;
        let (username, password) = decoded
            .split_once(':')
            .ok_or_else(|| bad(format!("auths.{key}.auth is not base64 of user:password")))?;
        return Ok(Some(Credentials::Basic {
            username: username.to_string(),
            password: password.to_string(),
        }));
    }
    if let (Some(username), Some(password)) = (field("username"), field("password")) {
        return Ok(Some(Credentials::Basic {
            username: username.to_string(),
            password: password.to_string(),
        }));
    }
    if let Some(token) = field("identitytoken").or(field("registrytoken")) {
        return Ok(Some(Credentials::Token(token.to_string())));
    }
    Ok(None)
}

/// `https://host:port/v1/` → `host:port`; a bare host is returned as is.
fn host_of(key: &str) -> &str {
    let k = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    k.split('/').next().unwrap_or(k)
}

/// A parsed `WWW-Authenticate` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Challenge {
    Basic,
    Bearer {
        realm: String,
        service: Option<String>,
        scope: Option<String>,
    },
}

impl Challenge {
    /// Parse `Basic realm="x"` or `Bearer realm="…",service="…",scope="…"`.
    pub fn parse(header: &str) -> Option<Challenge> {
        let (scheme, params) = header.trim().split_once(' ').unwrap_or((header.trim(), ""));
        if scheme.eq_ignore_ascii_case("basic") {
            return Some(Challenge::Basic);
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let params = parse_params(params);
        let get = |k: &str| {
            params
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
        };
        Some(Challenge::Bearer {
            realm: get("realm")?,
            service: get("service"),
            scope: get("scope"),
        })
    }
}

/// `a="x, y",b=z` → [(a, "x, y"), (b, z)].
fn parse_params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let Some((key, after)) = rest.split_once('=') else {
            break;
        };
        let key = key.trim().trim_start_matches(',').trim().to_string();
        let after = after.trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (quoted[..end].to_string(), &quoted[end + 1..]),
                None => (quoted.to_string(), ""),
            }
        } else {
            match after.find(',') {
                Some(end) => (after[..end].trim().to_string(), &after[end..]),
                None => (after.trim().to_string(), ""),
            }
        };
        out.push((key, value));
        rest = remaining.trim_start().trim_start_matches(',').trim_start();
    }
    out
}

/// The token in a token server's JSON answer (`token` or `access_token`).
pub fn token_from_response(body: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    v.get("token")
        .or_else(|| v.get("access_token"))
        .and_then(|t| t.as_str())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_challenges() {
        assert_eq!(
            Challenge::parse(r#"Basic realm="Registry Realm""#),
            Some(Challenge::Basic)
        );
        assert_eq!(
            Challenge::parse(
                r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#
            ),
            Some(Challenge::Bearer {
                realm: "https://auth.example/token".into(),
                service: Some("registry.example".into()),
                scope: Some("repository:a/b:pull,push".into()),
            })
        );
        assert_eq!(Challenge::parse("Negotiate"), None);
    }

    #[test]
    fn reads_docker_config_auths() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("config.json");
        let auth = B64.encode("alice:s3cret:with:colons");
        fs_err::write(
            &p,
            format!(
                r#"{{"auths": {{"https://127.0.0.1:5000/v1/": {{"auth": "{auth}"}},
                   "other:1": {{"identitytoken": "tok"}}}}}}"#
            ),
        )
        .unwrap();
        let c = docker_config_credentials(&p, "127.0.0.1:5000")
            .unwrap()
            .unwrap();
        assert_eq!(
            c,
            Credentials::Basic {
                username: "alice".into(),
                password: "s3cret:with:colons".into()
            }
        );
        assert_eq!(format!("{c:?}"), "Basic(alice, ****)");
        assert_eq!(
            docker_config_credentials(&p, "other:1").unwrap(),
            Some(Credentials::Token("tok".into()))
        );
        assert_eq!(docker_config_credentials(&p, "nope").unwrap(), None);
        assert_eq!(
            docker_config_credentials(&d.path().join("absent.json"), "x").unwrap(),
            None
        );
    }

    #[test]
    fn token_file_is_bearer_or_password() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("token");
        fs_err::write(&p, "abc\n").unwrap();
        assert_eq!(
            Credentials::from_token_file(&p, None).unwrap(),
            Credentials::Token("abc".into())
        );
        assert!(matches!(
            Credentials::from_token_file(&p, Some("u")).unwrap(),
            Credentials::Basic { password, .. } if password == "abc"
        ));
        fs_err::write(&p, " \n").unwrap();
        assert!(Credentials::from_token_file(&p, None).is_err());
    }
}
