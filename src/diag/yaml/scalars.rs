//! The scalar accessors of [`Cx`]: strings, booleans, numbers and choices,
//! each recording a diagnostic for a value of the wrong kind.

use marked_yaml::Node;

use super::super::{Code, Spanned, backticked, did_you_mean};
use super::{Cx, is_null};

impl Cx<'_> {
    /// A string scalar (plain numbers such as `1.0` are read as their text).
    pub fn string(&mut self, node: &Node, what: &str) -> Option<Spanned<String>> {
        match node {
            Node::Scalar(s) if !is_null(s) => {
                Some(Spanned::new(s.as_str().to_string(), self.scalar_loc(s)))
            }
            _ => {
                self.type_error(node, "a string", what);
                None
            }
        }
    }

    /// A non-empty string scalar.
    pub fn nonempty_string(&mut self, node: &Node, what: &str) -> Option<Spanned<String>> {
        let s = self.string(node, what)?;
        if s.trim().is_empty() {
            self.error(
                Code::InvalidValue,
                &s.loc,
                format!("{what} is empty"),
                "expected a non-empty string",
                None,
            );
            return None;
        }
        Some(s)
    }

    /// `true` or `false` (unquoted).
    pub fn bool(&mut self, node: &Node, what: &str) -> Option<bool> {
        match node {
            Node::Scalar(s) if s.as_bool().is_some() => s.as_bool(),
            Node::Scalar(s) if !is_null(s) => {
                let loc = self.scalar_loc(s);
                let help = if s.may_coerce() {
                    None
                } else {
                    Some("remove the quotes".to_string())
                };
                self.error(
                    Code::WrongType,
                    &loc,
                    format!("{what}: expected true or false, found `{}`", s.as_str()),
                    "expected true or false",
                    help,
                );
                None
            }
            _ => {
                self.type_error(node, "true or false", what);
                None
            }
        }
    }

    /// A non-negative integer.
    pub fn u32(&mut self, node: &Node, what: &str) -> Option<u32> {
        let s = self.string(node, what)?;
        match s.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                self.error(
                    Code::WrongType,
                    &s.loc,
                    format!(
                        "{what}: expected a non-negative integer, found `{}`",
                        s.value
                    ),
                    "expected a number",
                    None,
                );
                None
            }
        }
    }

    /// A list of strings; a single string is accepted as a one-element list
    /// when `single_ok`.
    pub fn strings(&mut self, node: &Node, what: &str, single_ok: bool) -> Vec<Spanned<String>> {
        let items = if single_ok {
            self.one_or_many(node)
        } else {
            match self.seq(node, what) {
                Some(items) => items,
                None => return Vec::new(),
            }
        };
        items.iter().filter_map(|n| self.string(n, what)).collect()
    }

    /// A string that must be one of `allowed`.
    pub fn choice(&mut self, node: &Node, what: &str, allowed: &[&str]) -> Option<Spanned<String>> {
        let s = self.string(node, what)?;
        if allowed.contains(&s.as_str()) {
            return Some(s);
        }
        let help =
            did_you_mean(&s, allowed).unwrap_or_else(|| format!("one of: {}", backticked(allowed)));
        self.error(
            Code::InvalidValue,
            &s.loc,
            format!("{what}: `{}` is not one of the allowed values", s.value),
            format!("expected one of {}", backticked(allowed)),
            Some(help),
        );
        None
    }
}
