//! Reading one `package.py` with tree-sitter's Python grammar into a
//! [`SpackPackage`]: module constants, the package class's attributes and
//! directives (inside `with when(…)`, `with default_args(…)`, loops over
//! literal lists), the methods of the package and builder classes.

use std::sync::Arc;

use tree_sitter::Node;

use crate::import::spack::directives::model::{Kind, Method, SpackPackage};
use crate::import::spack::evaluator::scope::EMPTY;
use crate::import::spack::evaluator::value::{Evaluator, Scope, Value, children, text};
use crate::import::spack::evaluator::walk::{Collector, Frame};
use crate::import::spack::reader::parsed::{ParseError, Parsed};

/// Directive functions of Spack's package API.
pub const DIRECTIVES: &[&str] = &[
    "version",
    "variant",
    "depends_on",
    "conflicts",
    "requires",
    "provides",
    "patch",
    "resource",
    "extends",
    "build_system",
    "license",
    "maintainers",
    "redistribute",
    "can_splice",
    "generator",
    "filter_compiler_wrappers",
];

/// Read `src` (the text of `package.py` of package `name`).
#[cfg(test)]
pub fn read_package(name: &str, src: &str) -> SpackPackage {
    read(name, &Parsed::new(src), true, Vec::new())
}

/// Read a parsed package.py with more names in scope (other packages'
/// attributes). A file that did not parse gives a package that says why.
pub fn read_package_with(
    name: &str,
    parsed: &Result<Arc<Parsed>, ParseError>,
    extra: Vec<(String, Value)>,
) -> SpackPackage {
    read(name, parsed, true, extra)
}

/// Read without the base classes' constants in scope (to read the bases).
pub fn read_base(name: &str, src: &str) -> SpackPackage {
    read_base_parsed(name, &Parsed::new(src))
}

/// [`read_base`] of a parsed file.
pub fn read_base_parsed(name: &str, parsed: &Result<Arc<Parsed>, ParseError>) -> SpackPackage {
    read(name, parsed, false, Vec::new())
}

fn read(
    name: &str,
    parsed: &Result<Arc<Parsed>, ParseError>,
    with_constants: bool,
    extra: Vec<(String, Value)>,
) -> SpackPackage {
    let mut pkg = SpackPackage {
        name: name.to_string(),
        ..SpackPackage::default()
    };
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            pkg.unreadable = Some(e.to_string());
            pkg.untranslated(0, Kind::Directive, "parser", e.to_string());
            return pkg;
        }
    };
    pkg.parsed = Some(Arc::clone(parsed));
    let src = parsed.src();
    let root = parsed.root();
    if root.has_error() {
        let line = first_error_line(root);
        pkg.untranslated(
            line,
            Kind::Directive,
            "syntax error",
            "package.py has a syntax error",
        );
    }
    let mut module_scope = Scope::new();
    // The stack builds on Linux: `sys.platform` in a directive's argument
    // (`default=sys.platform != "darwin"`) has its Linux value.
    module_scope.set("sys.platform", Value::Str("linux".into()));
    // `host_platform().default_os` (Spack's `rhel8`, `sles15`, `ubuntu22.04`):
    // a translation must not depend on the machine that runs it, so it reads
    // as `linux`, which no distribution test matches — the package's generic
    // branch (aqlprofile: the `.deb` archives) is taken.
    module_scope.set("host_platform().default_os", Value::Str("linux".into()));
    for (k, v) in extra {
        module_scope.set(&k, v);
    }
    if with_constants {
        crate::import::spack::directives::bases::base_constants(&mut module_scope);
    }
    let classes = classes(root);
    let Some(main) = pick_package_class(&classes, src, name) else {
        pkg.untranslated(1, Kind::Directive, "no package class", "no class found");
        return pkg;
    };
    let mut f = Frame::new(src, &[]);
    f.e.scope = crate::import::spack::directives::module::module_scope(root, src, module_scope);
    let mut reader = ClassReader {
        f,
        src,
        pkg: &mut pkg,
        context: Vec::new(),
        builder: None,
    };
    // Base classes defined in this file first: their directives and hooks
    // apply, the package's own come after (and replace same-named methods).
    let local = crate::import::spack::directives::local_bases::local_bases(main, &classes, src);
    for base in &local {
        reader.read_class(*base, None);
    }
    let first_own = reader.pkg.methods.len();
    reader.read_class(main, None);
    if !local.is_empty() {
        let names: Vec<(String, Vec<String>)> = local
            .iter()
            .map(|c| {
                let name = c.child_by_field_name("name").map(|n| text(n, src));
                let bases = crate::import::spack::directives::local_bases::base_names(*c, src);
                (name.unwrap_or("").to_string(), bases)
            })
            .collect();
        crate::import::spack::directives::local_bases::merge(reader.pkg, &names, first_own);
    }
    for class in classes {
        if class.id() != main.id() && !local.iter().any(|l| l.id() == class.id()) {
            if let Some(system) = builder_system(class, src) {
                reader.read_class(class, Some(system));
            } else {
                let line = class.start_position().row + 1;
                let cname = class
                    .child_by_field_name("name")
                    .map(|n| text(n, src).to_string())
                    .unwrap_or_default();
                reader
                    .pkg
                    .untranslated(line, Kind::Build, "extra class", format!("class {cname}"));
            }
        }
    }
    pkg
}

fn first_error_line(node: Node) -> usize {
    if node.is_error() || node.is_missing() {
        return node.start_position().row + 1;
    }
    for child in children(node) {
        if child.has_error() {
            return first_error_line(child);
        }
    }
    node.start_position().row + 1
}

/// The classes the module defines (decorated ones too).
fn classes(root: Node) -> Vec<Node> {
    children(root)
        .into_iter()
        .filter_map(|stmt| match stmt.kind() {
            "decorated_definition" => stmt.child_by_field_name("definition"),
            _ => Some(stmt),
        })
        .filter(|def| def.kind() == "class_definition")
        .collect()
}

/// The class that defines the package: the one named like Spack names it
/// (`zlib-ng` → `ZlibNg`), else the first class that is not a builder.
fn pick_package_class<'t>(classes: &[Node<'t>], src: &str, name: &str) -> Option<Node<'t>> {
    let wanted = class_name(name);
    let named = |c: &Node| {
        c.child_by_field_name("name")
            .is_some_and(|n| text(n, src) == wanted)
    };
    classes
        .iter()
        .find(|c| named(c))
        .or_else(|| classes.iter().find(|c| builder_system(**c, src).is_none()))
        .copied()
}

/// Spack's module-to-class rule: `py-numpy` → `PyNumpy`, `7zip` → `_7zip`.
pub fn class_name(pkg: &str) -> String {
    let mut out = String::new();
    for part in pkg.split(['-', '_']) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `class CMakeBuilder(cmake.CMakeBuilder)` → `cmake`.
fn builder_system(class: Node, src: &str) -> Option<String> {
    let bases = class.child_by_field_name("superclasses")?;
    let t = text(bases, src);
    if !t.contains("Builder") {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    for (key, system) in [
        ("cmake", "cmake"),
        ("autotools", "autotools"),
        ("meson", "meson"),
        ("makefile", "makefile"),
        ("python", "python_pip"),
        ("generic", "generic"),
    ] {
        if lower.contains(key) {
            return Some(system.to_string());
        }
    }
    Some("other".into())
}

/// One frame of `with when(…)` / `with default_args(…)`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Context {
    pub(crate) when: Option<String>,
    pub(crate) defaults: Vec<(String, Value)>,
}

/// The collector of a class body on the statement walker
/// (`directives::blocks`): directives, attributes and methods, under the
/// `with` contexts open.
pub(crate) struct ClassReader<'a> {
    pub(crate) f: Frame<'a>,
    pub(crate) src: &'a str,
    pub(crate) pkg: &'a mut SpackPackage,
    pub(crate) context: Vec<Context>,
    /// The build system of the builder class being read (`None`: the
    /// package class).
    pub(crate) builder: Option<String>,
}

impl ClassReader<'_> {
    fn read_class(&mut self, class: Node, builder: Option<String>) {
        if builder.is_none() {
            if let Some(n) = class.child_by_field_name("name") {
                self.pkg.class_name = text(n, self.src).to_string();
            }
            if let Some(bases) = class.child_by_field_name("superclasses") {
                self.pkg.bases = children(bases)
                    .into_iter()
                    .filter(|b| b.kind() != "keyword_argument")
                    .map(|b| {
                        text(b, self.src)
                            .rsplit('.')
                            .next()
                            .unwrap_or("")
                            .to_string()
                    })
                    .collect();
            }
        }
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        let scope = &mut self.f.e.scope;
        scope.push();
        if let Some(n) = class.child_by_field_name("name") {
            scope.set("__qualname__", Value::Str(text(n, self.src).to_string()));
        }
        let stmts = children(body);
        if builder.is_none() {
            if let Some(doc) = stmts.first().and_then(|s| docstring(*s, self.src)) {
                self.pkg.docstring = Some(doc);
            }
        }
        self.builder = builder;
        // Every statement's failure is recorded where it is (`failed`).
        let _ = self.block(&stmts);
        self.f.e.scope.pop();
    }

    pub(crate) fn assignment(&mut self, assign: Node) {
        let line = assign.start_position().row + 1;
        let (Some(left), Some(right)) = (
            assign.child_by_field_name("left"),
            assign.child_by_field_name("right"),
        ) else {
            return;
        };
        let name = text(left, self.src).to_string();
        let statics = |n: Node, ev: &Evaluator| {
            crate::import::spack::evaluator::url_method::static_call(n, ev)
        };
        let ev = Evaluator {
            hook: Some(&statics),
            ..self.f.e.ev()
        };
        match ev.eval(right) {
            Ok(value) => {
                if left.kind() == "identifier" {
                    self.f.e.scope.set(&name, value.clone());
                } else {
                    // `a, b = v.split("-")`: each name bound (a class-level
                    // loop body reads them).
                    let _ = crate::import::spack::evaluator::loops::bind_target(
                        left,
                        self.src,
                        value.clone(),
                        &mut self.f.e.scope,
                    );
                }
                let key = match &self.builder {
                    Some(b) => format!("{b}:{name}"),
                    None => name,
                };
                self.pkg.attributes.push((key, value, line));
            }
            Err(e) => {
                let kind = crate::import::spack::directives::attribute_kinds::attribute_kind(&name);
                self.pkg.untranslated(
                    line,
                    kind,
                    format!("attribute {name}"),
                    format!("value not evaluable: {}", e.what),
                );
            }
        }
    }

    /// `pypi += "name-1.0.tar.gz"` on a string (or list) attribute of the
    /// class body: the attribute as built. `false`: not such a statement.
    pub(crate) fn augmented_assignment(&mut self, assign: Node) -> bool {
        let line = assign.start_position().row + 1;
        let (Some(left), Some(right), Some(op)) = (
            assign.child_by_field_name("left"),
            assign.child_by_field_name("right"),
            assign.child_by_field_name("operator"),
        ) else {
            return false;
        };
        if left.kind() != "identifier" || text(op, self.src) != "+=" {
            return false;
        }
        let name = text(left, self.src).to_string();
        let Ok(more) = self.f.e.value(right) else {
            return false;
        };
        let value = match (self.f.e.scope.get(&name).cloned(), more) {
            (Some(Value::Str(a)), Value::Str(b)) => Value::Str(a + &b),
            (Some(Value::List(mut a)), Value::List(b)) => {
                a.extend(b);
                Value::List(a)
            }
            _ => return false,
        };
        self.f.e.scope.set(&name, value.clone());
        let key = match &self.builder {
            Some(b) => format!("{b}:{name}"),
            None => name,
        };
        self.pkg.attributes.push((key, value, line));
        true
    }

    pub(crate) fn call(&mut self, call: Node) {
        let line = call.start_position().row + 1;
        let func = call
            .child_by_field_name("function")
            .map(|f| text(f, self.src))
            .unwrap_or("");
        if !DIRECTIVES.contains(&func) {
            if self.list_method(call, func) {
                return;
            }
            self.pkg.untranslated(
                line,
                Kind::Directive,
                format!("call of {func}"),
                first_line(call, self.src),
            );
            return;
        }
        match self.directive(call, func) {
            Ok(d) => self.pkg.directives.push(d),
            Err(e) => self.pkg.untranslated(
                e.line,
                Kind::Directive,
                format!("directive {func}"),
                format!("argument not evaluable: {}", e.what),
            ),
        }
    }

    pub(crate) fn method(&mut self, outer: Node, def: Node) {
        if def.kind() != "function_definition" {
            return;
        }
        let name = def
            .child_by_field_name("name")
            .map(|n| text(n, self.src).to_string())
            .unwrap_or_default();
        let decorators: Vec<String> = children(outer)
            .into_iter()
            .filter(|c| c.kind() == "decorator")
            .map(|d| text(d, self.src).trim_start_matches('@').to_string())
            .collect();
        // A static method class attributes may call (`QtPackage.get_url`).
        if self.builder.is_none() && decorators.iter().any(|d| d == "staticmethod") {
            if let Some(Value::Str(class)) = self.f.e.scope.get("__qualname__").cloned() {
                let source = self.src[outer.byte_range()].to_string();
                self.f
                    .e
                    .scope
                    .set_global(&format!("{class}.{name}()"), Value::Str(source));
            }
        }
        self.pkg.methods.push(Method {
            name,
            line: outer.start_position().row + 1,
            decorators,
            builder: self.builder.clone(),
            range: outer.byte_range(),
        });
    }
}

fn docstring(stmt: Node, src: &str) -> Option<String> {
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let s = children(stmt).first().copied()?;
    if s.kind() != "string" {
        return None;
    }
    Evaluator::new(src, &EMPTY).string(s).ok()
}

/// The first line of a node's text, for messages.
pub fn first_line(node: Node, src: &str) -> String {
    let line = text(node, src).lines().next().unwrap_or("");
    crate::import::spack::reader::parsed::clip(line.trim(), 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_follow_spacks_rule() {
        assert_eq!(class_name("zlib-ng"), "ZlibNg");
        assert_eq!(class_name("py-numpy"), "PyNumpy");
        assert_eq!(class_name("7zip"), "_7zip");
    }

    #[test]
    fn with_blocks_and_loops_expand_into_directives() {
        let src = r#"
class Demo(CMakePackage):
    """A demo."""
    homepage = "https://example.org"
    for v in ["a", "b"]:
        variant(v, default=False, description=f"enable {v}")
    with when("+a"), default_args(type="build"):
        depends_on("cmake@3:", when="@2:")
"#;
        let pkg = read_package("demo", src);
        assert!(pkg.untranslated.is_empty(), "{:?}", pkg.untranslated);
        assert_eq!(pkg.docstring.as_deref(), Some("A demo."));
        assert_eq!(pkg.bases, vec!["CMakePackage"]);
        let variants: Vec<_> = pkg
            .directives("variant")
            .map(|d| d.arg_str(0).unwrap())
            .collect();
        assert_eq!(variants, vec!["a", "b"]);
        let dep = pkg.directives("depends_on").next().unwrap();
        assert_eq!(dep.kw_str("when"), Some("+a @2:"));
        assert_eq!(dep.kw_str("type"), Some("build"));
    }
}
