//! `meta/env.json` in the uenv schema (see docs/views-and-images.md):
//!
//! ```json
//! {"name": "...", "description": "..."|null, "mount": "/user-environment",
//!  "modules": {"root": "<mount>/modules"}|null, "default-view": "..."|null,
//!  "views": {"<view>": {"root": "<mount>/env/<view>", "activate": "<root>/activate.sh",
//!     "description": "", "type": "spack-view",
//!     "env": {"version": 1, "type": "spack-view",
//!             "values": {"list": {"VAR": [{"op": "prepend", "value": ["..."]}]},
//!                        "scalar": {"VAR": "..."|null}}}}}}
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map that keeps insertion order (first appearance of a variable), so
/// env.json reads in the order the operations were written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V: Default> OrderedMap<V> {
    pub fn entry_or_default(&mut self, key: &str) -> &mut V {
        let idx = match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.0.push((key.to_string(), V::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[idx].1
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut out = OrderedMap::default();
                while let Some((k, v)) = a.next_entry::<String, V>()? {
                    out.insert(k, v);
                }
                Ok(out)
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

/// One update of a list variable: `op` is `prepend`, `append`, `set` or
/// `unset`; `value` is always an array of strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListOp {
    pub op: String,
    pub value: Vec<String>,
}

/// `env.values`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvValues {
    pub list: OrderedMap<Vec<ListOp>>,
    pub scalar: OrderedMap<Option<String>>,
}

/// `views.<v>.env`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewEnv {
    /// Always 1 (the only env schema version uenv knows).
    pub version: u32,
    #[serde(rename = "type")]
    pub kind: String,
    pub values: EnvValues,
}

/// `views.<v>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewEntry {
    pub root: String,
    pub activate: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub env: ViewEnv,
}

/// `modules` at the top level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModulesRoot {
    pub root: String,
}

/// The whole `meta/env.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvJson {
    pub name: String,
    pub description: Option<String>,
    pub mount: String,
    pub modules: Option<ModulesRoot>,
    #[serde(rename = "default-view")]
    pub default_view: Option<String>,
    pub views: OrderedMap<ViewEntry>,
}

/// The per-view copy `<view>/env.json`: `{"version": 1, "values": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewEnvFile {
    pub version: u32,
    pub values: EnvValues,
}

/// The `type` of views made from package trees (the name uenv tools know).
pub const VIEW_TYPE: &str = "spack-view";
/// The `type` of pseudo-views that only change variables.
pub const AUGMENT_TYPE: &str = "augment";

impl EnvJson {
    /// The `modules` pseudo-view: prepend `<mount>/modules` to MODULEPATH.
    pub fn modules_view(mount: &str) -> ViewEntry {
        let root = format!("{mount}/modules");
        let mut list = OrderedMap::default();
        list.insert(
            "MODULEPATH",
            vec![ListOp {
                op: "prepend".into(),
                value: vec![root.clone()],
            }],
        );
        ViewEntry {
            root,
            activate: "/dev/null".into(),
            description: "activate modules".into(),
            kind: AUGMENT_TYPE.into(),
            env: ViewEnv {
                version: 1,
                kind: AUGMENT_TYPE.into(),
                values: EnvValues {
                    list,
                    scalar: OrderedMap::default(),
                },
            },
        }
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json_string(&self) -> Result<String, serde_json::Error> {
        let mut s = serde_json::to_string_pretty(self)?;
        s.push('\n');
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_map_round_trips_in_order() {
        let mut m = OrderedMap::default();
        m.insert("Z", 1);
        m.insert("A", 2);
        m.insert("Z", 3);
        let s = serde_json::to_string(&m).unwrap();
        assert_eq!(s, r#"{"Z":3,"A":2}"#);
        let back: OrderedMap<i32> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn modules_view_shape() {
        let v = serde_json::to_value(EnvJson::modules_view("/user-environment")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "root": "/user-environment/modules",
                "activate": "/dev/null",
                "description": "activate modules",
                "type": "augment",
                "env": {"version": 1, "type": "augment", "values": {
                    "list": {"MODULEPATH": [{"op": "prepend", "value": ["/user-environment/modules"]}]},
                    "scalar": {}
                }}
            })
        );
    }
}
