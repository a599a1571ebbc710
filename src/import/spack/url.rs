//! Where a version's archive comes from: Spack's default substitution of the
//! version into the class's `url`, mirror mix-ins (`gnu_mirror_path`, …) and
//! simple `url_for_version` bodies, evaluated per version at import time.
//! A version no rule places is reported, never guessed.

use tree_sitter::Node;

use crate::spec::Spec;

use super::model::SpackPackage;
use super::value::{Eval, Evaluator, Scope, Unevaluable, Value, children, text};

/// Mirror mix-ins: the attribute naming the path and the first mirror.
const MIRRORS: &[(&str, &str)] = &[
    ("gnu_mirror_path", "https://ftpmirror.gnu.org/"),
    (
        "sourceforge_mirror_path",
        "https://prdownloads.sourceforge.net/",
    ),
    ("sourceware_mirror_path", "https://sourceware.org/pub/"),
    ("xorg_mirror_path", "https://www.x.org/archive/individual/"),
];

/// Attributes that base classes derive from a shorter one: `pypi`
/// (PythonPackage), `cran` and `bioc` (RPackage) → `url`, `homepage`,
/// `list_url`, `git`. Only fills attributes the package does not set.
pub fn derive_attributes(pkg: &mut SpackPackage) {
    let get =
        |pkg: &SpackPackage, k: &str| pkg.attribute(k).and_then(Value::as_str).map(str::to_string);
    let first_version = pkg
        .directives("version")
        .find_map(|d| d.arg_str(0).map(str::to_string));
    let mut derived: Vec<(&str, String)> = Vec::new();
    if let Some(pypi) = get(pkg, "pypi") {
        let name = pypi.split('/').next().unwrap_or(&pypi).to_string();
        let initial = pypi.chars().next().unwrap_or('x');
        derived.push((
            "url",
            format!("https://files.pythonhosted.org/packages/source/{initial}/{pypi}"),
        ));
        derived.push(("homepage", format!("https://pypi.org/project/{name}/")));
        derived.push(("list_url", format!("https://pypi.org/simple/{name}/")));
    }
    if let Some(cran) = get(pkg, "cran") {
        if let Some(v) = &first_version {
            derived.push((
                "url",
                format!("https://cran.r-project.org/src/contrib/{cran}_{v}.tar.gz"),
            ));
        }
        derived.push((
            "homepage",
            format!("https://cloud.r-project.org/package={cran}"),
        ));
        derived.push((
            "list_url",
            format!("https://cran.r-project.org/src/contrib/Archive/{cran}/"),
        ));
    }
    if let Some(bioc) = get(pkg, "bioc") {
        derived.push((
            "git",
            format!("https://git.bioconductor.org/packages/{bioc}"),
        ));
        derived.push((
            "homepage",
            format!("https://bioconductor.org/packages/{bioc}"),
        ));
    }
    for (k, v) in derived {
        if pkg.attribute(k).is_none() && !(k == "url" && pkg.attribute("urls").is_some()) {
            pkg.attributes.push((k.to_string(), Value::Str(v), 0));
        }
    }
}

/// The URL template of the class: `url`, the first of `urls`, or a mirror
/// mix-in's path on its first mirror.
pub fn class_url(pkg: &SpackPackage) -> Option<String> {
    if let Some(Value::Str(u)) = pkg.attribute("url") {
        return Some(u.clone());
    }
    if let Some(Value::List(us)) = pkg.attribute("urls") {
        if let Some(Value::Str(u)) = us.first() {
            return Some(u.clone());
        }
    }
    for (attr, mirror) in MIRRORS {
        if let Some(Value::Str(path)) = pkg.attribute(attr) {
            return Some(format!("{mirror}{}", path.trim_start_matches('/')));
        }
    }
    None
}

/// Spack's default: the version written in `url` replaced by `version`, in
/// each separator style it appears in (`1.2.3`, `1_2_3`, `1-2-3`).
/// `known` are the package's versions, used to find the one in the URL.
pub fn substitute(url: &str, version: &str, known: &[&str]) -> Option<String> {
    let reference = reference_version(url, known)?;
    let mut out = url.to_string();
    let mut replaced = false;
    for sep in ['.', '_', '-'] {
        let from = restyle(&reference, sep);
        if from.len() < 2 && !reference.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let to = restyle(version, sep);
        if let Some(new) = replace_bounded(&out, &from, &to) {
            out = new;
            replaced = true;
        }
    }
    replaced.then_some(out)
}

/// The version written in a URL: the longest known version that occurs in it
/// at a number boundary, else the last version-like run of the file name.
fn reference_version(url: &str, known: &[&str]) -> Option<String> {
    let mut sorted: Vec<&str> = known
        .iter()
        .copied()
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    sorted.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for v in sorted {
        for sep in ['.', '_', '-'] {
            if find_bounded(url, &restyle(v, sep)).is_some() {
                return Some(v.to_string());
            }
        }
    }
    let file = url.split_once("://").map_or(url, |(_, rest)| rest);
    let file = file.split_once('/').map_or(file, |(_, path)| path);
    let mut best: Option<&str> = None;
    let bytes = file.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let after_word =
            i > 0 && bytes[i - 1].is_ascii_alphanumeric() && !matches!(bytes[i - 1], b'v' | b'V');
        if bytes[i].is_ascii_digit() && !after_word {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || (bytes[i] == b'.' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            let run = &file[start..i];
            if run.contains('.') {
                best = Some(run);
            }
        }
        i += 1;
    }
    best.map(str::to_string)
}

fn restyle(version: &str, sep: char) -> String {
    version
        .chars()
        .map(|c| if matches!(c, '.' | '_' | '-') { sep } else { c })
        .collect()
}

fn is_boundary(b: Option<u8>) -> bool {
    !b.is_some_and(|b| b.is_ascii_digit())
}

fn find_bounded(hay: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = start.checked_sub(1).map(|i| hay.as_bytes()[i]);
        let after = hay.as_bytes().get(end).copied();
        // `1.2` must not match inside `11.2` or `1.23` / `1.2.5`.
        let after_ok = is_boundary(after)
            && !(matches!(after, Some(b'.' | b'_'))
                && hay
                    .as_bytes()
                    .get(end + 1)
                    .is_some_and(|b| b.is_ascii_digit()));
        let before_ok = is_boundary(before)
            && !(matches!(before, Some(b'.'))
                && start >= 2
                && hay.as_bytes()[start - 2].is_ascii_digit());
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

fn replace_bounded(hay: &str, from: &str, to: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = hay;
    let mut any = false;
    while let Some(pos) = find_bounded(rest, from) {
        out.push_str(&rest[..pos]);
        out.push_str(to);
        rest = &rest[pos + from.len()..];
        any = true;
    }
    out.push_str(rest);
    any.then_some(out)
}

/// Evaluate the package's `url_for_version(self, version)` for `version`.
pub fn url_for_version(
    method_src: &str,
    version: &str,
    scope: &Scope,
    default_url: Option<String>,
) -> Eval<String> {
    // One method is evaluated for every version: parse it once per thread.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, tree_sitter::Tree)>> =
            const { std::cell::RefCell::new(None) };
    }
    let tree = LAST.with(|cell| {
        let mut last = cell.borrow_mut();
        match &*last {
            Some((text, tree)) if text == method_src => Some(tree.clone()),
            _ => {
                let tree = super::reader::parse(method_src)?;
                *last = Some((method_src.to_string(), tree.clone()));
                Some(tree)
            }
        }
    });
    let tree = tree.ok_or_else(|| Unevaluable {
        line: 1,
        what: "url_for_version does not parse".into(),
    })?;
    let root = tree.root_node();
    let def = find_def(root).ok_or_else(|| Unevaluable::new(root, "url_for_version"))?;
    let params = def
        .child_by_field_name("parameters")
        .map(|p| {
            children(p)
                .into_iter()
                .map(|n| text(n, method_src).to_string())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let vname = params.get(1).cloned().unwrap_or_else(|| "version".into());
    let body = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "url_for_version body"))?;
    let mut scope = scope.clone();
    scope.push();
    scope.set(&vname, Value::Str(version.to_string()));
    let cx = VersionCx {
        name: vname,
        version: version.to_string(),
        default_url,
    };
    match run_block(&children(body), method_src, &mut scope, &cx)? {
        Some(url) => Ok(url),
        None => Err(Unevaluable::new(body, "url_for_version returned nothing")),
    }
}

fn find_def(node: Node) -> Option<Node> {
    if node.kind() == "function_definition" {
        return Some(node);
    }
    children(node).into_iter().find_map(find_def)
}

struct VersionCx {
    name: String,
    version: String,
    /// What Spack's default `url_for_version` gives (for `super()` calls).
    default_url: Option<String>,
}

/// Run statements until a `return`.
fn run_block(stmts: &[Node], src: &str, scope: &mut Scope, cx: &VersionCx) -> Eval<Option<String>> {
    for stmt in stmts {
        match stmt.kind() {
            "return_statement" => {
                let e = children(*stmt)
                    .first()
                    .copied()
                    .ok_or_else(|| Unevaluable::new(*stmt, "bare return"))?;
                return match eval(e, src, scope, cx)? {
                    Value::Str(s) => Ok(Some(s)),
                    _ => Err(Unevaluable::new(e, "url_for_version returns a non-string")),
                };
            }
            "expression_statement" => {
                let Some(e) = children(*stmt).first().copied() else {
                    continue;
                };
                match e.kind() {
                    "string" => {}
                    "assignment" => {
                        let (Some(l), Some(r)) = (
                            e.child_by_field_name("left"),
                            e.child_by_field_name("right"),
                        ) else {
                            return Err(Unevaluable::new(e, "assignment"));
                        };
                        if l.kind() != "identifier" {
                            return Err(Unevaluable::new(e, "assignment"));
                        }
                        let v = eval(r, src, scope, cx)?;
                        scope.set(text(l, src), v);
                    }
                    _ => return Err(Unevaluable::new(e, "statement in url_for_version")),
                }
            }
            "if_statement" => {
                if let Some(r) = run_if(*stmt, src, scope, cx)? {
                    return Ok(Some(r));
                }
            }
            "comment" | "pass_statement" => {}
            other => {
                return Err(Unevaluable::new(
                    *stmt,
                    format!("`{other}` in url_for_version"),
                ));
            }
        }
    }
    Ok(None)
}

fn run_if(stmt: Node, src: &str, scope: &mut Scope, cx: &VersionCx) -> Eval<Option<String>> {
    let cond = stmt
        .child_by_field_name("condition")
        .ok_or_else(|| Unevaluable::new(stmt, "if"))?;
    if eval(cond, src, scope, cx)?.truthy() {
        let body = stmt
            .child_by_field_name("consequence")
            .ok_or_else(|| Unevaluable::new(stmt, "if"))?;
        return run_block(&children(body), src, scope, cx);
    }
    let mut cursor = stmt.walk();
    let alternatives: Vec<Node> = stmt
        .children_by_field_name("alternative", &mut cursor)
        .collect();
    for alt in alternatives {
        match alt.kind() {
            "elif_clause" => {
                let c = alt
                    .child_by_field_name("condition")
                    .ok_or_else(|| Unevaluable::new(alt, "elif"))?;
                if eval(c, src, scope, cx)?.truthy() {
                    let body = alt
                        .child_by_field_name("consequence")
                        .ok_or_else(|| Unevaluable::new(alt, "elif"))?;
                    return run_block(&children(body), src, scope, cx);
                }
            }
            "else_clause" => {
                let body = alt
                    .child_by_field_name("body")
                    .ok_or_else(|| Unevaluable::new(alt, "else"))?;
                return run_block(&children(body), src, scope, cx);
            }
            _ => {}
        }
    }
    Ok(None)
}

fn eval(node: Node, src: &str, scope: &Scope, cx: &VersionCx) -> Eval<Value> {
    let hook = |n: Node, ev: &Evaluator| version_expr(n, ev, cx);
    Evaluator {
        src,
        scope,
        hook: Some(&hook),
    }
    .eval(node)
}

/// Expressions over the version: `version.up_to(2)`, `.dotted`,
/// `.underscored`, `.joined`, `.dashed`, `version[0]`, comparisons with
/// `Version("…")`, `version.satisfies("@…")`, `self.spec.satisfies("@…")`.
fn version_expr(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    let is_version = |x: Node| text(x, src) == cx.name || text(x, src) == "self.spec.version";
    let v = &cx.version;
    match n.kind() {
        "attribute" => {
            let obj = n.child_by_field_name("object")?;
            let attr = text(n.child_by_field_name("attribute")?, src);
            if !is_version(obj) {
                return None;
            }
            let styled = match attr {
                "dotted" => restyle(v, '.'),
                "underscored" => restyle(v, '_'),
                "dashed" => restyle(v, '-'),
                "joined" => v
                    .chars()
                    .filter(|c| !matches!(c, '.' | '_' | '-'))
                    .collect(),
                "string" => v.clone(),
                _ => return Some(Err(Unevaluable::new(n, format!("version.{attr}")))),
            };
            Some(Ok(Value::Str(styled)))
        }
        "call" => version_call(n, ev, cx),
        "subscript" => {
            let obj = n.child_by_field_name("value")?;
            if !is_version(obj) {
                return None;
            }
            let sub = n.child_by_field_name("subscript")?;
            if sub.kind() == "slice" {
                let t = text(sub, src);
                return Some(match t.strip_prefix(':').map(str::parse::<usize>) {
                    Some(Ok(k)) => Ok(Value::Str(up_to(v, k))),
                    _ => Err(Unevaluable::new(n, "version slice")),
                });
            }
            let idx = ev.eval(sub);
            let parts: Vec<&str> = v.split(['.', '_', '-']).collect();
            Some(match idx {
                Ok(Value::Int(i)) if (i as usize) < parts.len() => {
                    Ok(Value::Str(parts[i as usize].to_string()))
                }
                _ => Err(Unevaluable::new(n, "version subscript")),
            })
        }
        "comparison_operator" => version_comparison(n, ev, cx),
        _ => None,
    }
}

fn version_call(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    let func = n.child_by_field_name("function")?;
    let args = super::value::Args::of_call(n, src)?;
    let arg0 = args.positional.first().map(|a| ev.eval(*a));
    if text(func, src) == "super().url_for_version" {
        return Some(
            cx.default_url
                .clone()
                .map(Value::Str)
                .ok_or_else(|| Unevaluable::new(n, "super().url_for_version without a url")),
        );
    }
    match func.kind() {
        "attribute" => {
            let obj = text(func.child_by_field_name("object")?, src);
            let attr = text(func.child_by_field_name("attribute")?, src);
            let on_version = obj == cx.name || obj == "self.spec.version";
            match (attr, on_version || obj == "self.spec" || obj == "spec") {
                ("up_to", true) if on_version => Some(match arg0 {
                    Some(Ok(Value::Int(k))) => Ok(Value::Str(up_to(&cx.version, k as usize))),
                    _ => Err(Unevaluable::new(n, "version.up_to")),
                }),
                ("satisfies", true) => Some(match arg0 {
                    Some(Ok(Value::Str(cond))) => satisfies(&cx.version, &cond)
                        .map(Value::Bool)
                        .ok_or_else(|| Unevaluable::new(n, "satisfies")),
                    _ => Err(Unevaluable::new(n, "satisfies")),
                }),
                _ => None,
            }
        }
        "identifier" if text(func, src) == "Version" || text(func, src) == "ver" => {
            Some(match arg0 {
                Some(Ok(Value::Str(s))) => Ok(Value::Str(s)),
                _ => Err(Unevaluable::new(n, "Version()")),
            })
        }
        "identifier" if text(func, src) == "str" => {
            let a = args.positional.first()?;
            (text(*a, src) == cx.name).then(|| Ok(Value::Str(cx.version.clone())))
        }
        _ => None,
    }
}

fn version_comparison(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    let parts = children(n);
    if parts.len() != 2 || text(parts[0], src) != cx.name {
        return None;
    }
    let mut cursor = n.walk();
    let op = n
        .children(&mut cursor)
        .find(|c| !c.is_named())
        .map(|c| text(c, src).to_string())?;
    let other = match ev.eval(parts[1]) {
        Ok(Value::Str(s)) => s,
        Ok(_) => return Some(Err(Unevaluable::new(n, "version comparison"))),
        Err(e) => return Some(Err(e)),
    };
    let (a, b) = (
        crate::spec::Version::parse(&cx.version).ok()?,
        crate::spec::Version::parse(&other).ok()?,
    );
    let r = match op.as_str() {
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        ">=" => a >= b,
        "==" => a == b,
        "!=" => a != b,
        _ => return Some(Err(Unevaluable::new(n, "version comparison"))),
    };
    Some(Ok(Value::Bool(r)))
}

/// `Version.up_to(n)`: the first `n` components with their separators.
pub fn up_to(version: &str, n: usize) -> String {
    let mut count = 0;
    let mut out = String::new();
    let mut component = String::new();
    for c in version.chars() {
        if matches!(c, '.' | '_' | '-') {
            count += 1;
            if count >= n {
                return out + &component;
            }
            out.push_str(&component);
            out.push(c);
            component.clear();
        } else {
            component.push(c);
        }
    }
    out + &component
}

/// Whether the concrete version satisfies a `@…` condition.
fn satisfies(version: &str, cond: &str) -> Option<bool> {
    let concrete = Spec::parse(&format!("x@={version}")).ok()?;
    let cond = Spec::parse(cond.trim()).ok()?;
    Some(concrete.satisfies(&cond))
}

/// Parse just the `url_for_version` method out of a package's source.
pub fn method_source<'s>(src: &'s str, pkg: &SpackPackage) -> Option<&'s str> {
    let m = pkg
        .methods
        .iter()
        .find(|m| m.name == "url_for_version" && m.builder.is_none())?;
    Some(&src[m.range.clone()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_substitution_replaces_each_separator_style() {
        let url = "https://github.com/zlib-ng/zlib-ng/archive/2.0.0.tar.gz";
        assert_eq!(
            substitute(url, "2.3.3", &["2.3.3", "2.0.0"]).as_deref(),
            Some("https://github.com/zlib-ng/zlib-ng/archive/2.3.3.tar.gz")
        );
        let url = "https://example.org/v1.2.3/foo-1_2_3.tgz";
        assert_eq!(
            substitute(url, "1.4.0", &[]).as_deref(),
            Some("https://example.org/v1.4.0/foo-1_4_0.tgz")
        );
        assert_eq!(substitute("https://example.org/foo.tgz", "1.0", &[]), None);
        assert_eq!(up_to("1.2.3", 2), "1.2");
        assert_eq!(up_to("1.2", 5), "1.2");
    }

    #[test]
    fn url_for_version_bodies_are_evaluated_per_version() {
        let src = r#"
def url_for_version(self, version):
    if version < Version("2.0"):
        return f"https://e.org/old/foo-{version.underscored}.tgz"
    elif self.spec.satisfies("@3:"):
        return "https://e.org/{0}/foo-{1}.tgz".format(version.up_to(1), version)
    return "https://e.org/v%s/foo.tgz" % version.up_to(2)
"#;
        let scope = Scope::new();
        assert_eq!(
            url_for_version(src, "1.5.2", &scope, None).unwrap(),
            "https://e.org/old/foo-1_5_2.tgz"
        );
        assert_eq!(
            url_for_version(src, "3.1.0", &scope, None).unwrap(),
            "https://e.org/3/foo-3.1.0.tgz"
        );
        assert_eq!(
            url_for_version(src, "2.7.1", &scope, None).unwrap(),
            "https://e.org/v2.7/foo.tgz"
        );
    }
}
