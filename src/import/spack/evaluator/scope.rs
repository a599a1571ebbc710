//! The names an expression can see: module constants, class attributes,
//! loop variables and what a hook body binds, innermost frame last. A name
//! is bound to a value ([`Local::Value`], what the evaluator computes with)
//! or to something only a hook body's templates know (the spec, a prefix,
//! an argument list being built).

use std::collections::HashMap;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::value::Value;

/// What a name is bound to.
#[derive(Clone, Debug)]
pub enum Local {
    /// A literal value.
    Value(Value),
    /// A template.
    Tmpl(String),
    /// A condition (`shared = self.spec.satisfies("+shared")`).
    Cond(Cond),
    /// The spec (`spec = self.spec`).
    Spec,
    /// The install prefix, possibly a subdirectory (`prefix.lib`).
    Prefix(String),
    /// A dependency (`mpi = spec["mpi"]`).
    Dep(String),
    /// An argument list being built.
    List(Vec<ArgItem>),
    /// A helper bound to a name (`define = self.define`).
    Func(String),
    /// A `FileFilter(…)` of these source files.
    Files(Vec<String>),
    /// The value of a multi-valued variant (`spec.variants["x"].value`, a
    /// sorted tuple in Spack): the variant's name.
    Multi(String),
    /// A variant object (`tgt = spec.variants["x"]`): the variant's name.
    Variant(String),
}

/// The frames of names, innermost last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    frames: Vec<HashMap<String, Local>>,
}

/// A scope without names: literals only.
pub static EMPTY: Scope = Scope { frames: Vec::new() };

impl Scope {
    pub fn new() -> Self {
        Scope {
            frames: vec![HashMap::new()],
        }
    }

    /// How many frames are open (the module's alone: 1).
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    pub fn push(&mut self) {
        self.frames.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        self.frames.pop();
    }

    /// Bind `name` to a value in the innermost frame.
    pub fn set(&mut self, name: &str, value: Value) {
        self.bind(name.to_string(), Local::Value(value));
    }

    /// Bind `name` in the innermost frame.
    pub fn bind(&mut self, name: String, local: Local) {
        if let Some(f) = self.frames.last_mut() {
            f.insert(name, local);
        }
    }

    /// Bind `name` in the outermost frame (the module's).
    pub fn set_global(&mut self, name: &str, value: Value) {
        if let Some(f) = self.frames.first_mut() {
            f.insert(name.to_string(), Local::Value(value));
        }
    }

    /// What `name` is bound to, in the innermost frame that has it.
    pub fn local(&self, name: &str) -> Option<&Local> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    pub fn local_mut(&mut self, name: &str) -> Option<&mut Local> {
        self.frames.iter_mut().rev().find_map(|f| f.get_mut(name))
    }

    /// The value of `name`, if it is bound to one.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self.local(name)? {
            Local::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value `name` is bound to (a class-level list that a loop's body
    /// appends to).
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        match self.local_mut(name)? {
            Local::Value(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binding_of_another_kind_replaces_a_value_and_frames_shadow() {
        let mut s = Scope::new();
        s.set("x", Value::Int(1));
        s.bind("x".into(), Local::Spec);
        assert_eq!(s.get("x"), None);
        assert!(matches!(s.local("x"), Some(Local::Spec)));
        s.push();
        s.set("x", Value::Int(2));
        assert_eq!(s.get("x"), Some(&Value::Int(2)));
        assert_eq!(s.depth(), 2);
        s.pop();
        assert!(matches!(s.local("x"), Some(Local::Spec)));
        assert_eq!(EMPTY.get("x"), None);
    }
}
