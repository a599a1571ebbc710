//! uenv labels (`name/version:tag@system%uarch`) and the registry address
//! layout (`<registry>/<namespace>/<system>/<uarch>/<name>/<version>:<tag>`).

use std::fmt;

use crate::registry::{Reference, is_path_component, is_tag};

use super::DistributeError;

/// A uenv image address: every part of a fully qualified label plus where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Address {
    pub registry: String,
    pub namespace: String,
    pub system: String,
    pub uarch: String,
    pub name: String,
    pub version: String,
    pub tag: String,
}

impl Address {
    /// Parse either `REGISTRY/NAMESPACE/name/version:tag@system%uarch` (a
    /// label after the namespace; `@` and `%` in either order) or the OCI
    /// form `REGISTRY/NAMESPACE/system/uarch/name/version:tag`.
    pub fn parse(text: &str) -> Result<Address, DistributeError> {
        let bad = |message: &str| DistributeError::BadAddress {
            text: text.to_string(),
            message: message.to_string(),
        };
        let rest = text.strip_prefix("oci://").unwrap_or(text);
        let parts: Vec<&str> = rest.split('/').collect();
        let last = parts.last().copied().unwrap_or("");
        let labelled = last.contains('%') || (last.contains('@') && !last.contains("@sha256:"));
        let (registry, namespace, system, uarch, name, version_tag) = if labelled {
            if parts.len() < 4 {
                return Err(bad(
                    "expected REGISTRY/NAMESPACE/name/version:tag@system%uarch",
                ));
            }
            let (vt, system, uarch) = split_system_uarch(last).map_err(|m| bad(&m))?;
            let n = parts.len();
            (
                parts[0],
                parts[1..n - 2].join("/"),
                system,
                uarch,
                parts[n - 2].to_string(),
                vt,
            )
        } else {
            if parts.len() < 6 {
                return Err(bad(
                    "expected REGISTRY/NAMESPACE/system/uarch/name/version:tag (or REGISTRY/NAMESPACE/name/version:tag@system%uarch)",
                ));
            }
            let n = parts.len();
            (
                parts[0],
                parts[1..n - 4].join("/"),
                parts[n - 4].to_string(),
                parts[n - 3].to_string(),
                parts[n - 2].to_string(),
                last.to_string(),
            )
        };
        let (version, tag) = version_tag
            .split_once(':')
            .ok_or_else(|| bad("no tag: add `:TAG` after the version (e.g. 24.11:v1)"))?;
        let a = Address {
            registry: registry.to_string(),
            namespace,
            system,
            uarch,
            name,
            version: version.to_string(),
            tag: tag.to_string(),
        };
        a.validate().map_err(|m| bad(&m))?;
        Ok(a)
    }

    fn validate(&self) -> Result<(), String> {
        if self.registry.is_empty() {
            return Err("no registry".into());
        }
        for (what, v) in [
            ("system", &self.system),
            ("uarch", &self.uarch),
            ("name", &self.name),
            ("version", &self.version),
        ] {
            if !is_path_component(v) {
                return Err(format!(
                    "the {what} `{v}` must be lowercase letters, digits and . _ - (not at the ends)"
                ));
            }
        }
        if self.namespace.is_empty() || !self.namespace.split('/').all(is_path_component) {
            return Err(format!("bad namespace `{}`", self.namespace));
        }
        if !is_tag(&self.tag) {
            return Err(format!("bad tag `{}`", self.tag));
        }
        Ok(())
    }

    /// The OCI reference of the image.
    pub fn reference(&self) -> Reference {
        Reference {
            registry: self.registry.clone(),
            repository: format!(
                "{}/{}/{}/{}/{}",
                self.namespace, self.system, self.uarch, self.name, self.version
            ),
            tag: Some(self.tag.clone()),
            digest: None,
        }
    }

    /// The uenv label: `name/version:tag@system%uarch`.
    pub fn label(&self) -> String {
        format!(
            "{}/{}:{}@{}%{}",
            self.name, self.version, self.tag, self.system, self.uarch
        )
    }

    /// The address of `repository:tag` in `namespace` of `registry`, when
    /// the repository has the uenv layout.
    pub fn from_repository(
        registry: &str,
        namespace: &str,
        repository: &str,
        tag: &str,
    ) -> Option<Address> {
        let rest = repository.strip_prefix(namespace)?.strip_prefix('/')?;
        let p: Vec<&str> = rest.split('/').collect();
        let [system, uarch, name, version] = p.as_slice() else {
            return None;
        };
        Some(Address {
            registry: registry.to_string(),
            namespace: namespace.to_string(),
            system: system.to_string(),
            uarch: uarch.to_string(),
            name: name.to_string(),
            version: version.to_string(),
            tag: tag.to_string(),
        })
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reference())
    }
}

/// `version:tag@system%uarch` (or `%uarch@system`) → (`version:tag`, system, uarch).
fn split_system_uarch(s: &str) -> Result<(String, String, String), String> {
    let cut = s.find(['@', '%']).ok_or("no @system")?;
    let (head, mut tail) = s.split_at(cut);
    let (mut system, mut uarch) = (None, None);
    while !tail.is_empty() {
        let marker = tail.as_bytes()[0];
        let rest = &tail[1..];
        let end = rest.find(['@', '%']).unwrap_or(rest.len());
        let value = rest[..end].to_string();
        let slot = if marker == b'@' {
            &mut system
        } else {
            &mut uarch
        };
        if slot.replace(value).is_some() {
            return Err(format!("`{}` given twice", marker as char));
        }
        tail = &rest[end..];
    }
    Ok((
        head.to_string(),
        system.ok_or("no @system")?,
        uarch.ok_or("no %uarch")?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_and_oci_forms_give_the_same_address() {
        let a = Address::parse("localhost:5000/deploy/prgenv-gnu/24.11:v2@daint%gh200").unwrap();
        let b = Address::parse("localhost:5000/deploy/daint/gh200/prgenv-gnu/24.11:v2").unwrap();
        let c =
            Address::parse("oci://localhost:5000/deploy/prgenv-gnu/24.11:v2%gh200@daint").unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.label(), "prgenv-gnu/24.11:v2@daint%gh200");
        assert_eq!(
            a.reference().to_string(),
            "localhost:5000/deploy/daint/gh200/prgenv-gnu/24.11:v2"
        );
        let deep = Address::parse("r.example/a/b/demo/1.0:t@s%u").unwrap();
        assert_eq!(deep.namespace, "a/b");
    }

    #[test]
    fn rejects_incomplete_addresses() {
        for bad in [
            "localhost:5000/deploy/prgenv-gnu/24.11@daint%gh200",
            "localhost:5000/prgenv-gnu/24.11:v1@daint%gh200",
            "localhost:5000/deploy/prgenv-gnu/24.11:v1@daint",
            "localhost:5000/deploy/prgenv-gnu/24.11:v1@daint@x%u",
            "localhost:5000/deploy/daint/gh200/prgenv-gnu/24.11",
            "localhost:5000/deploy/Daint/gh200/prgenv-gnu/24.11:v1",
        ] {
            assert!(Address::parse(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn repository_layout_maps_back() {
        let a =
            Address::from_repository("r:1", "deploy", "deploy/daint/gh200/demo/1.0", "v1").unwrap();
        assert_eq!(a.label(), "demo/1.0:v1@daint%gh200");
        assert!(Address::from_repository("r:1", "deploy", "deploy/x/demo", "v1").is_none());
        assert!(Address::from_repository("r:1", "deploy", "other/a/b/c/d", "v1").is_none());
    }
}
