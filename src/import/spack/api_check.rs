//! The static API check of a package whose build logic runs from its
//! package.py (seam §5): the modules, names and attributes its code uses
//! that stack's package API layer does not implement, each with its line.
//! What the layer implements is its `API.txt` (`src/build_logic/python/`,
//! generated from the layer and checked against it by the layer's tests).
//! `stack check` prints these as warnings; `stack build` fails at the call.
//!
//! The check reads the file; it runs nothing. Names are resolved the way
//! Python resolves them in a function: its own parameters and assignments,
//! then the module's (imports, definitions, `from spack.package import *`),
//! then the builtins. Attributes are checked where the receiver's class is
//! known: `self` in a package or builder class, `self.spec`/`spec`,
//! `self.compiler`, `env` in the environment hooks, versions.

use std::collections::{BTreeSet, HashMap, HashSet};

use tree_sitter::Node;

use super::evaluator::value::text;
use super::python_builtins::BUILTINS;
use super::reader::parsed::parse_checked;

/// The layer's API as listed in its `API.txt`.
#[derive(Clone, Debug, Default)]
pub struct ApiListing {
    modules: HashSet<String>,
    /// `[spack.package]`, `[build_systems.cmake]`, `[module-variables]`,
    /// `[class:Spec]`, … → names.
    sections: HashMap<String, HashSet<String>>,
}

impl ApiListing {
    /// Read an `API.txt`: `[section]` lines, then one name per line, `#`
    /// comments.
    pub fn parse(text: &str) -> ApiListing {
        let mut out = ApiListing::default();
        let mut section = String::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = s.to_string();
                continue;
            }
            let name = line.split_whitespace().next().unwrap_or("").to_string();
            if section == "modules" {
                out.modules.insert(name);
            } else {
                out.sections
                    .entry(section.clone())
                    .or_default()
                    .insert(name);
            }
        }
        out
    }

    fn has(&self, section: &str, name: &str) -> bool {
        self.sections.get(section).is_some_and(|s| s.contains(name))
    }

    /// Whether `class:NAME` is listed (its attributes can be checked).
    fn knows_class(&self, class: &str) -> bool {
        self.sections.contains_key(&format!("class:{class}"))
    }

    /// Whether module `m` can be imported in the layer: listed, a build
    /// system module of any namespace, a package module, or not Spack's.
    fn module_ok(&self, m: &str) -> bool {
        if self.modules.contains(m) {
            return true;
        }
        if let Some(rest) = m.strip_prefix("spack_repo.") {
            let parts: Vec<&str> = rest.split('.').collect();
            return match parts.as_slice() {
                [_, "packages", ..] | [_] => true,
                [_, "build_systems"] => true,
                [_, "build_systems", x, ..] => {
                    self.sections.contains_key(&format!("build_systems.{x}"))
                }
                _ => false,
            };
        }
        // Python's own modules: the layer runs with the standard library.
        !(m == "spack" || m.starts_with("spack.") || m == "llnl" || m.starts_with("llnl."))
    }

    /// The names a `from M import …` may take from `m`, if listed.
    fn names_of(&self, m: &str) -> Option<&HashSet<String>> {
        if let Some(rest) = m.strip_prefix("spack_repo.") {
            let x = rest.split('.').nth(2)?;
            return self.sections.get(&format!("build_systems.{x}"));
        }
        self.sections.get(m)
    }
}

/// The API of the layer shipped in this binary (its `API.txt`).
pub fn layer_api() -> &'static ApiListing {
    static LAYER: std::sync::OnceLock<ApiListing> = std::sync::OnceLock::new();
    LAYER.get_or_init(|| ApiListing::parse(include_str!("../../build_logic/python/API.txt")))
}

/// The uses of one package file that the shipped layer does not implement
/// (`stack check`'s collector), or why the file cannot be read or parsed.
pub fn package_file_gaps(path: &std::path::Path) -> Result<Vec<ApiGap>, String> {
    let src = fs_err::read_to_string(path).map_err(|e| e.to_string())?;
    let gaps = unsupported_api(&src, layer_api());
    match gaps.first() {
        Some(g) if g.what.starts_with(PARSE_FAILED) => {
            Err(g.what[PARSE_FAILED.len()..].to_string())
        }
        _ => Ok(gaps),
    }
}

/// The prefix of the one gap a file that does not parse gives.
const PARSE_FAILED: &str = "package.py: ";

/// A use of the package API the layer does not implement.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ApiGap {
    /// 1-based line in package.py.
    pub line: usize,
    /// `module spack.util.foo`, `name install_tree_x`, `attribute
    /// self.spec.foo`.
    pub what: String,
}

/// The uses of `src` (a package.py) that `api` does not implement, by line.
pub fn unsupported_api(src: &str, api: &ApiListing) -> Vec<ApiGap> {
    let tree = match parse_checked(src) {
        Ok(t) => t,
        Err(e) => {
            return vec![ApiGap {
                line: 1,
                what: format!("{PARSE_FAILED}{e}"),
            }];
        }
    };
    let mut cx = Check {
        src,
        api,
        globals: BUILTINS.iter().map(|s| s.to_string()).collect(),
        star: false,
        gaps: BTreeSet::new(),
    };
    let root = tree.root_node();
    cx.module_names(root);
    let classes: Vec<Node> = named(root)
        .filter(|n| n.kind() == "class_definition")
        .collect();
    for class in classes {
        cx.class(class);
    }
    for f in named(root).filter(|n| n.kind() == "function_definition") {
        cx.function(f, None);
    }
    cx.gaps.into_iter().collect()
}

fn named(node: Node) -> impl Iterator<Item = Node> {
    let mut cursor = node.walk();
    let kids: Vec<Node> = node.named_children(&mut cursor).collect();
    kids.into_iter().map(|n| match n.kind() {
        "decorated_definition" => n.child_by_field_name("definition").unwrap_or(n),
        _ => n,
    })
}

/// Every node below `node`, in order, without recursion.
fn descendants(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return out;
    }
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return out;
            }
        }
    }
}

struct Check<'a> {
    src: &'a str,
    api: &'a ApiListing,
    /// Names bound at module level (and the builtins).
    globals: HashSet<String>,
    /// `from spack.package import *`.
    star: bool,
    gaps: BTreeSet<ApiGap>,
}

/// What a receiver of an attribute is, when the check knows it.
struct Receivers {
    /// Classes whose attributes `self.` may name (the package's or the
    /// builder's listing and the class's own definitions); `None`: not known.
    self_class: Option<(Vec<String>, HashSet<String>)>,
}

impl<'a> Check<'a> {
    fn t(&self, n: Node) -> &'a str {
        text(n, self.src)
    }

    fn gap(&mut self, n: Node, what: String) {
        let line = n.start_position().row + 1;
        self.gaps.insert(ApiGap { line, what });
    }

    /// Module-level imports, assignments, definitions.
    fn module_names(&mut self, root: Node) {
        for stmt in named(root) {
            match stmt.kind() {
                "import_statement" | "import_from_statement" => self.import(stmt, true),
                "class_definition" | "function_definition" => {
                    if let Some(n) = stmt.child_by_field_name("name") {
                        self.globals.insert(self.t(n).to_string());
                    }
                }
                _ => {
                    let mut bound = HashSet::new();
                    bind_statement(stmt, self.src, &mut bound);
                    self.globals.extend(bound);
                }
            }
        }
    }

    /// An import statement: its module(s) and names must exist in the layer.
    /// At module level the names it binds become globals.
    fn import(&mut self, stmt: Node, module_level: bool) {
        let mut bound = HashSet::new();
        if stmt.kind() == "import_statement" {
            for n in named(stmt) {
                let dotted = match n.kind() {
                    "aliased_import" => n.child_by_field_name("name").unwrap_or(n),
                    _ => n,
                };
                let m = self.t(dotted).to_string();
                if !self.api.module_ok(&m) {
                    self.gap(n, format!("module {m}"));
                }
                let alias = n
                    .child_by_field_name("alias")
                    .map(|a| self.t(a).to_string());
                bound
                    .insert(alias.unwrap_or_else(|| m.split('.').next().unwrap_or("").to_string()));
            }
        } else {
            let Some(mnode) = stmt.child_by_field_name("module_name") else {
                return;
            };
            let m = self.t(mnode).to_string();
            if m.starts_with('.') {
                // `from ..pkg.package import X`: another package's module.
            } else if !self.api.module_ok(&m) {
                self.gap(mnode, format!("module {m}"));
            }
            let star = descendants(stmt)
                .iter()
                .any(|n| n.kind() == "wildcard_import");
            if star && m == "spack.package" {
                self.star = true;
            }
            for n in named(stmt).filter(|n| n.id() != mnode.id()) {
                let (name, alias) = match n.kind() {
                    "aliased_import" => (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("alias"),
                    ),
                    "dotted_name" => (Some(n), None),
                    _ => continue,
                };
                let Some(name) = name else { continue };
                let name_text = self.t(name).to_string();
                if let Some(names) = self.api.names_of(&m) {
                    if !names.contains(&name_text) && !m.starts_with('.') {
                        self.gap(name, format!("name {name_text} of {m}"));
                    }
                }
                bound.insert(alias.map_or(name_text, |a| self.t(a).to_string()));
            }
        }
        if module_level {
            self.globals.extend(bound);
        }
    }

    fn class(&mut self, class: Node) {
        let bases: Vec<String> = class
            .child_by_field_name("superclasses")
            .map(|s| named(s).map(|b| self.t(b).to_string()).collect())
            .unwrap_or_default();
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        let mut own: HashSet<String> = HashSet::new();
        for stmt in named(body) {
            if let Some(n) = stmt.child_by_field_name("name") {
                own.insert(self.t(n).to_string());
            }
            bind_statement(stmt, self.src, &mut own);
        }
        // `self.x = …` anywhere in the class.
        for n in descendants(body) {
            if n.kind() == "assignment" {
                if let Some(left) = n.child_by_field_name("left") {
                    if let Some(attr) = self_attribute(left, self.src) {
                        own.insert(attr.to_string());
                    }
                }
            }
        }
        let listings = self.listings_of(&bases);
        let receivers = Receivers {
            self_class: listings.map(|l| (l, own)),
        };
        for stmt in named(body).filter(|n| n.kind() == "function_definition") {
            self.function(stmt, Some(&receivers));
        }
    }

    /// The `class:` listings whose attributes `self.` may name, if every base
    /// is a class the layer lists.
    fn listings_of(&self, bases: &[String]) -> Option<Vec<String>> {
        let mut out = vec!["class:Package".to_string(), "class:Builder".to_string()];
        for b in bases {
            let short = b.rsplit('.').next().unwrap_or(b);
            let module = b.split('.').next().filter(|m| *m != short);
            let found = [
                module.map(|m| format!("{m}.{short}")),
                Some(short.to_string()),
            ]
            .into_iter()
            .flatten()
            .find(|c| self.api.knows_class(c))
            .or_else(|| {
                self.api
                    .sections
                    .keys()
                    .filter_map(|k| k.strip_prefix("class:"))
                    .find(|k| k.rsplit('.').next() == Some(short))
                    .map(str::to_string)
            });
            out.push(format!("class:{}", found?));
        }
        Some(out)
    }

    fn function(&mut self, def: Node, receivers: Option<&Receivers>) {
        let Some(body) = def.child_by_field_name("body") else {
            return;
        };
        let mut locals: HashSet<String> = HashSet::new();
        let params = def.child_by_field_name("parameters");
        for n in params.iter().flat_map(|p| descendants(*p)) {
            if n.kind() == "identifier" {
                locals.insert(self.t(n).to_string());
            }
        }
        let env_hook = self
            .t(def.child_by_field_name("name").unwrap_or(def))
            .starts_with("setup_");
        let all = descendants(body);
        for n in &all {
            match n.kind() {
                "import_statement" | "import_from_statement" => {
                    self.import(*n, false);
                    let mut bound = HashSet::new();
                    import_bound(*n, self.src, &mut bound);
                    locals.extend(bound);
                }
                "function_definition" | "class_definition" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        locals.insert(self.t(name).to_string());
                    }
                    for p in n
                        .child_by_field_name("parameters")
                        .iter()
                        .flat_map(|p| descendants(*p))
                    {
                        if p.kind() == "identifier" {
                            locals.insert(self.t(p).to_string());
                        }
                    }
                }
                "lambda" => {
                    for p in n
                        .child_by_field_name("parameters")
                        .iter()
                        .flat_map(|p| descendants(*p))
                    {
                        if p.kind() == "identifier" {
                            locals.insert(self.t(p).to_string());
                        }
                    }
                }
                _ => bind_targets(*n, self.src, &mut locals),
            }
        }
        for n in all {
            if n.kind() == "identifier" && is_load(n) {
                let name = self.t(n);
                if !locals.contains(name) && !self.global(name) {
                    self.gap(n, format!("name {name}"));
                }
            }
            if n.kind() == "attribute" {
                self.attribute(n, receivers, &locals, env_hook);
            }
        }
    }

    fn global(&self, name: &str) -> bool {
        self.globals.contains(name)
            || self.api.has("module-variables", name)
            || (self.star && self.api.has("spack.package", name))
    }

    /// `self.x`, `self.spec.x`, `spec.x`, `self.compiler.x`, `env.x`.
    fn attribute(
        &mut self,
        n: Node,
        receivers: Option<&Receivers>,
        locals: &HashSet<String>,
        env_hook: bool,
    ) {
        let (Some(obj), Some(attr)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("attribute"),
        ) else {
            return;
        };
        let (obj_t, attr_t) = (self.t(obj), self.t(attr));
        if attr_t.starts_with("__") {
            return;
        }
        let class = match obj_t {
            "self" => {
                let Some((listings, own)) = receivers.and_then(|r| r.self_class.as_ref()) else {
                    return;
                };
                if own.contains(attr_t) || listings.iter().any(|l| self.has_in(l, attr_t)) {
                    return;
                }
                self.gap(n, format!("attribute self.{attr_t}"));
                return;
            }
            "self.spec" | "spec" if obj_t != "spec" || locals.contains("spec") => "Spec",
            "self.compiler" => "Compiler",
            "env" if env_hook && locals.contains("env") => "EnvironmentModifications",
            "self.version" | "self.spec.version" | "spec.version" => "Version",
            _ => return,
        };
        let section = format!("class:{class}");
        if self.api.knows_class(class) && !self.has_in(&section, attr_t) {
            self.gap(n, format!("attribute {obj_t}.{attr_t}"));
        }
    }

    fn has_in(&self, section: &str, name: &str) -> bool {
        let s = section.strip_prefix("class:").unwrap_or(section);
        self.api.has(section, name) || (s == "Spec" && self.api.has("class:AbstractSpec", name))
    }
}

/// `self.NAME` of an assignment target.
fn self_attribute<'s>(left: Node, src: &'s str) -> Option<&'s str> {
    if left.kind() != "attribute" {
        return None;
    }
    let obj = left.child_by_field_name("object")?;
    if text(obj, src) != "self" {
        return None;
    }
    Some(text(left.child_by_field_name("attribute")?, src))
}

/// Names a statement of a module or class body binds (an expression
/// statement holds its assignment).
fn bind_statement(stmt: Node, src: &str, out: &mut HashSet<String>) {
    bind_targets(stmt, src, out);
    if stmt.kind() == "expression_statement" {
        for n in named(stmt) {
            bind_targets(n, src, out);
        }
    }
}

/// Names bound by `n` itself: assignment and loop targets, `with … as`,
/// `except … as`, comprehension variables, walrus, `global`/`nonlocal`.
fn bind_targets(n: Node, src: &str, out: &mut HashSet<String>) {
    let target = match n.kind() {
        "assignment" | "augmented_assignment" => n.child_by_field_name("left"),
        "for_statement" | "for_in_clause" => n.child_by_field_name("left"),
        "named_expression" => n.child_by_field_name("name"),
        "as_pattern" => n.child_by_field_name("alias"),
        "with_item" => n
            .child_by_field_name("value")
            .filter(|v| v.kind() == "as_pattern")
            .and_then(|v| v.child_by_field_name("alias")),
        "except_clause" => {
            let mut cursor = n.walk();
            let kids: Vec<Node> = n.named_children(&mut cursor).collect();
            kids.iter()
                .find(|k| k.kind() == "identifier")
                .copied()
                .filter(|_| kids.len() > 2)
        }
        "global_statement" | "nonlocal_statement" => Some(n),
        "import_statement" | "import_from_statement" => {
            import_bound(n, src, out);
            None
        }
        _ => None,
    };
    let Some(target) = target else { return };
    if target.kind() == "identifier" {
        out.insert(text(target, src).to_string());
        return;
    }
    for d in descendants(target) {
        if d.kind() == "identifier"
            && !d
                .parent()
                .is_some_and(|p| p.kind() == "attribute" || p.kind() == "subscript")
        {
            out.insert(text(d, src).to_string());
        }
    }
}

/// The names an import statement binds.
fn import_bound(n: Node, src: &str, out: &mut HashSet<String>) {
    let module = n.child_by_field_name("module_name").map(|m| m.id());
    for k in named(n).filter(|k| Some(k.id()) != module) {
        let bound = match k.kind() {
            "aliased_import" => k.child_by_field_name("alias"),
            "dotted_name" => Some(k),
            _ => None,
        };
        if let Some(b) = bound {
            let t = text(b, src);
            out.insert(t.split('.').next().unwrap_or(t).to_string());
        }
    }
}

/// Whether an identifier is read (not a keyword argument's name, an
/// attribute's name, a parameter, an import's name or a binding target).
fn is_load(n: Node) -> bool {
    let Some(p) = n.parent() else { return true };
    match p.kind() {
        "attribute" => p
            .child_by_field_name("object")
            .is_some_and(|o| o.id() == n.id()),
        "keyword_argument" => p
            .child_by_field_name("value")
            .is_some_and(|v| v.id() == n.id()),
        "parameters"
        | "default_parameter"
        | "typed_parameter"
        | "typed_default_parameter"
        | "lambda_parameters"
        | "list_splat_pattern"
        | "dictionary_splat_pattern"
        | "dotted_name"
        | "aliased_import"
        | "global_statement"
        | "nonlocal_statement"
        | "function_definition"
        | "class_definition" => false,
        "decorator" => true,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const API: &str = "[modules]\nspack.package\nllnl.util.tty\n[spack.package]\nfilter_file\nwhich\nPackage\nCMakePackage\n\
                       [module-variables]\nmake\n[build_systems.cmake]\nCMakePackage\n\
                       [class:Package]\nspec\nprefix\nversion\n[class:Spec]\nsatisfies\nversion\nvariants\n\
                       [class:cmake.CMakePackage]\ndefine\n[class:EnvironmentModifications]\nset\nprepend_path\n";

    #[test]
    fn names_modules_and_attributes_the_layer_lacks_are_listed_by_line() {
        let src = "from spack_repo.builtin.build_systems.cmake import CMakePackage\n\
                   from spack.package import *\n\
                   import spack.util.nope\n\
                   import os\n\
                   \n\
                   class Foo(CMakePackage):\n    \
                       flag = True\n\n    \
                       def cmake_args(self):\n        \
                           args = [self.define(\"A\", self.flag)]\n        \
                           if self.spec.satisfies(\"+x\") and self.spec.frobnicate:\n            \
                               filter_file(\"a\", \"b\", \"f\")\n            \
                               install_tree_somehow(\"x\", self.prefix)\n        \
                           for f in os.listdir(\".\"):\n            \
                               args.append(f)\n        \
                           make()\n        \
                           return args\n\n    \
                       def setup_run_environment(self, env):\n        \
                           env.set(\"A\", \"1\")\n        \
                           env.frob(\"B\")\n        \
                           self.helper = 3\n        \
                           print(self.helper, self.nothing)\n";
        let api = ApiListing::parse(API);
        let gaps: Vec<(usize, String)> = unsupported_api(src, &api)
            .into_iter()
            .map(|g| (g.line, g.what))
            .collect();
        assert_eq!(
            gaps,
            vec![
                (3, "module spack.util.nope".to_string()),
                (11, "attribute self.spec.frobnicate".to_string()),
                (13, "name install_tree_somehow".to_string()),
                (21, "attribute env.frob".to_string()),
                (23, "attribute self.nothing".to_string()),
            ]
        );
    }

    #[test]
    fn a_file_that_nests_too_deeply_is_one_gap() {
        let src = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        let gaps = unsupported_api(&src, &ApiListing::default());
        assert_eq!(gaps.len(), 1);
        assert!(gaps[0].what.contains("nests deeper"), "{gaps:?}");
    }
}
