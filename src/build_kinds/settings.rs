//! A build job's kind settings: the recipe's `build:` keys, rendered (every
//! template evaluated, every `when:` decided), plus settings only jobs
//! written by hand or by tests give (CMake's `generator`).

use std::collections::BTreeMap;

/// One rendered setting.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum JobValue {
    Flag(bool),
    Text(String),
    List(Vec<String>),
}

impl From<bool> for JobValue {
    fn from(b: bool) -> Self {
        JobValue::Flag(b)
    }
}

impl From<&str> for JobValue {
    fn from(s: &str) -> Self {
        JobValue::Text(s.to_string())
    }
}

impl From<String> for JobValue {
    fn from(s: String) -> Self {
        JobValue::Text(s)
    }
}

impl From<Vec<String>> for JobValue {
    fn from(v: Vec<String>) -> Self {
        JobValue::List(v)
    }
}

impl From<&[&str]> for JobValue {
    fn from(v: &[&str]) -> Self {
        JobValue::List(v.iter().map(|s| s.to_string()).collect())
    }
}

/// The settings of a job's kind, by key. A missing key has the kind's
/// default.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct JobSettings(BTreeMap<String, JobValue>);

impl JobSettings {
    /// Set `key`.
    pub fn set(&mut self, key: &str, value: impl Into<JobValue>) {
        self.0.insert(key.to_string(), value.into());
    }

    /// A flag; `false` when unset.
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.0.get(key), Some(JobValue::Flag(true)))
    }

    /// A text setting.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.0.get(key) {
            Some(JobValue::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// A list; empty when unset.
    pub fn list(&self, key: &str) -> &[String] {
        match self.0.get(key) {
            Some(JobValue::List(v)) => v,
            _ => &[],
        }
    }

    /// A list, `default` when unset.
    pub fn list_or(&self, key: &str, default: &[&str]) -> Vec<String> {
        match self.0.get(key) {
            Some(JobValue::List(v)) => v.clone(),
            _ => default.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Every setting, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &JobValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}
