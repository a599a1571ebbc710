//! What the importer reads out of one `package.py`: the directives with their
//! evaluated arguments, the class attributes, the methods (their nodes in
//! the one parsed tree, `Parsed::def_of`) and everything it could not
//! translate.

use std::fmt;

use std::sync::Arc;

use crate::import::spack::evaluator::value::Value;
use crate::import::spack::reader::parsed::Parsed;

/// How much an untranslated construct matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A directive (or class attribute) whose meaning is not in the recipe:
    /// the recipe's metadata is incomplete.
    Directive,
    /// Build logic (a method, a hook body) that is not in the recipe's
    /// templates: building the recipe as is may go wrong, so `stack build`
    /// refuses it until a human reviewed it.
    Build,
    /// Code with no effect on what `stack` builds (external detection,
    /// tests, properties other packages read): listed for completeness.
    Info,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Directive => "directive",
            Kind::Build => "build",
            Kind::Info => "info",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One construct the importer did not translate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Untranslated {
    /// 1-based line in package.py.
    pub line: usize,
    pub kind: Kind,
    /// A short, countable name of the construct class (`method install`,
    /// `call of filter_file`, `directive resource`).
    pub construct: String,
    /// Details (the expression that did not evaluate, …).
    pub detail: String,
}

/// A directive call with its evaluated arguments and the `with when(…)` /
/// `with default_args(…)` context it appeared in.
#[derive(Clone, Debug)]
pub struct Directive {
    pub name: String,
    pub line: usize,
    pub args: Vec<Value>,
    pub kwargs: Vec<(String, Value)>,
}

impl Directive {
    pub fn kw(&self, name: &str) -> Option<&Value> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    pub fn kw_str(&self, name: &str) -> Option<&str> {
        self.kw(name).and_then(Value::as_str)
    }

    pub fn kw_bool(&self, name: &str) -> Option<bool> {
        match self.kw(name) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn arg_str(&self, i: usize) -> Option<&str> {
        self.args.get(i).and_then(Value::as_str)
    }
}

/// A method of the package class or of a builder class.
#[derive(Clone, Debug)]
pub struct Method {
    pub name: String,
    pub line: usize,
    /// Decorators as written (`run_after("install")`, `property`).
    pub decorators: Vec<String>,
    /// The build system of the builder class it was defined in (`cmake`),
    /// `None` for the package class.
    pub builder: Option<String>,
    /// Byte range of the whole definition in the source.
    pub range: std::ops::Range<usize>,
}

/// Everything read from one package.py.
#[derive(Clone, Debug, Default)]
pub struct SpackPackage {
    pub name: String,
    pub class_name: String,
    /// Base classes as written, in order.
    pub bases: Vec<String>,
    pub docstring: Option<String>,
    /// Class attributes with evaluable values, in file order.
    pub attributes: Vec<(String, Value, usize)>,
    pub directives: Vec<Directive>,
    pub methods: Vec<Method>,
    /// `Class.method()` → source of the static methods of the classes the
    /// package.py imports (evaluated where `url_for_version` calls them).
    pub helpers: Vec<(String, String)>,
    /// `platform.machine()` while the package is read for one architecture
    /// (`per_arch`), `None` otherwise.
    pub machine: Option<String>,
    pub untranslated: Vec<Untranslated>,
    /// Why the file was not read at all (nested too deeply, no parse).
    pub unreadable: Option<String>,
    /// The file as parsed: the methods' nodes are in its tree.
    pub parsed: Option<Arc<Parsed>>,
}

impl SpackPackage {
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
    }

    pub fn attribute_line(&self, name: &str) -> usize {
        self.attributes
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, l)| *l)
            .unwrap_or(0)
    }

    pub fn untranslated(
        &mut self,
        line: usize,
        kind: Kind,
        construct: impl Into<String>,
        detail: impl Into<String>,
    ) {
        self.untranslated.push(Untranslated {
            line,
            kind,
            construct: construct.into(),
            detail: detail.into(),
        });
    }

    pub fn directives<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Directive> + 'a {
        self.directives.iter().filter(move |d| d.name == name)
    }
}
