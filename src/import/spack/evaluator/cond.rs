//! Conditions of hook bodies (`if self.spec.satisfies("+cuda"):`,
//! `"+mpi" in spec`, `not …`, `and`/`or`) and how they become a recipe's
//! `when:` (a plain spec) or a tera test (`spec is satisfies("…")`).

/// Join conditions the way Spack merges them: the package's own
/// constraints first, then the `^dep` parts (a constraint written after
/// `^dep` would apply to `dep`); a token given twice is kept once.
pub fn join_conditions<S: AsRef<str>>(parts: &[S]) -> String {
    let mut own: Vec<&str> = Vec::new();
    // The package's own `%compiler` parts come before every `^dep`, which
    // would otherwise take them (seacas: `^fmt@9%gcc` when `%apple-clang`).
    let mut compilers: Vec<&str> = Vec::new();
    let mut deps: Vec<&str> = Vec::new();
    for p in parts {
        let p = p.as_ref().trim();
        let (root, dep) = match p.find(['^', '%']) {
            Some(i) => (&p[..i], &p[i..]),
            None => (p, ""),
        };
        let (compiler, dep) = match (dep.starts_with('%'), dep.find('^')) {
            (true, Some(i)) => (dep[..i].trim(), &dep[i..]),
            (true, None) => (dep.trim(), ""),
            (false, _) => ("", dep),
        };
        if !compiler.is_empty() && !compilers.contains(&compiler) {
            compilers.push(compiler);
        }
        for tok in atoms(root) {
            if !own.contains(&tok) {
                own.push(tok);
            }
        }
        if !dep.trim().is_empty() && !deps.contains(&dep.trim()) {
            deps.push(dep.trim());
        }
    }
    let merged = merge_versions(&own);
    let mut own: Vec<&str> = match &merged {
        Some((first, _)) => own
            .iter()
            .copied()
            .filter(|a| !a.starts_with('@') || a == first)
            .collect(),
        None => own,
    };
    own.extend(compilers);
    own.extend(deps);
    let text = own.join(" ");
    let text = match merged {
        Some((first, version)) => text.replacen(first, &version, 1),
        None => text,
    };
    crate::import::spack::evaluator::spec_spelling::drop_repeated_compilers(&text)
}

/// Several version constraints on the package (`@:3.8.0 @3.8:`) merged
/// into one (`@3.8:3.8.0`); `None` when there is at most one or they do
/// not intersect (the condition is then reported as written).
fn merge_versions<'a>(atoms: &[&'a str]) -> Option<(&'a str, String)> {
    let versions: Vec<&str> = atoms
        .iter()
        .copied()
        .filter(|a| a.starts_with('@'))
        .collect();
    if versions.len() < 2 {
        return None;
    }
    let mut spec = crate::spec::Spec::parse(versions[0]).ok()?;
    for v in &versions[1..] {
        spec.constrain(&crate::spec::Spec::parse(v).ok()?).ok()?;
    }
    let text = spec.to_string();
    text.starts_with('@').then(|| (versions[0], text))
}

/// The atoms of an anonymous spec: `+a~b@1.2 x=y` → `+a`, `~b`, `@1.2`, `x=y`.
fn atoms(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        // In a `key=value` atom, `+` and `~` belong to the value (Spack's
        // lexer: `languages=obj-c++`, `c++`).
        // Not in `@=2023+plumed` (an exact version, then a variant).
        let in_value = start.is_some_and(|st| {
            s[st..].starts_with(|c: char| c.is_ascii_alphanumeric()) && s[st..i].contains('=')
        });
        let boundary = c.is_whitespace() || ((c == '+' || c == '~') && !in_value);
        if boundary {
            if let Some(st) = start.take() {
                if st < i {
                    out.push(&s[st..i]);
                }
            }
            if !c.is_whitespace() {
                start = Some(i);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push(&s[st..]);
    }
    out
}

/// Spack's edge attributes (`^[virtuals=mpi] openmpi`, `%[when=…] gcc`)
/// have no stack spelling: the bracket is dropped, the node kept. Other
/// Spack spellings are rewritten first ([`spack_spelling`]).
///
/// [`spack_spelling`]: crate::import::spack::evaluator::spec_spelling::spack_spelling
pub fn normalize(s: &str) -> String {
    let spelled = crate::import::spack::evaluator::spec_spelling::spack_spelling(s);
    let mut out = String::with_capacity(s.len());
    let mut rest = spelled.as_str();
    while let Some(i) = rest.find(['^', '%']) {
        out.push_str(&rest[..=i]);
        let after = rest[i + 1..].trim_start();
        if let Some(inner) = after.strip_prefix('[') {
            match inner.find(']') {
                Some(end) => rest = inner[end + 1..].trim_start(),
                None => {
                    rest = after;
                }
            }
        } else {
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    arch_as_target(&glue_compiler_versions(&out))
}

/// `arch=ppc64le:`: Spack reads an `arch=` without dashes as the target.
fn arch_as_target(s: &str) -> String {
    if !s.contains("arch=") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("arch=") {
        let starts_token = i == 0 || rest[..i].ends_with(char::is_whitespace);
        let value = &rest[i + 5..];
        let end = value
            .find(|c: char| c.is_whitespace() || "^%".contains(c))
            .unwrap_or(value.len());
        out.push_str(&rest[..i]);
        if starts_token && !value[..end].contains('-') {
            out.push_str("target=");
        } else {
            out.push_str("arch=");
        }
        out.push_str(&value[..end]);
        rest = &value[end..];
    }
    out.push_str(rest);
    out
}

/// The compilers Spack's conditions name with `%` (its compiler packages
/// and their older names). In Spack 1.x `%name` of any other package is a
/// direct dependency (`%meson@:1.0`, `%curl`); the stack's `%` is the
/// compiler only, so those become `^name`.
pub(crate) const COMPILERS: &[&str] = &[
    "gcc",
    "clang",
    "llvm",
    "apple-clang",
    "aocc",
    "nvhpc",
    "pgi",
    "intel",
    "oneapi",
    "intel-oneapi-compilers",
    "intel-oneapi-compilers-classic",
    "dpcpp",
    "cce",
    "cray",
    "fj",
    "xl",
    "xl_r",
    "arm",
    "acfl",
    "msvc",
    "nag",
    "rocmcc",
    "llvm-amdgpu",
    "apple-gcc",
    "emscripten",
];

/// `%gcc @:11`: in Spack the version after a compiler's name (spaces
/// allowed) is the compiler's; the stack writes it `%gcc@:11`. A
/// per-language compiler (`%fortran=aocc @:4.2`) keeps its language, as the
/// stack's spec syntax does: `%fortran=aocc` holds when the Fortran
/// compiler is aocc, `%aocc` when any language's is. `%name` of a package
/// that is not a compiler is a dependency (`^name`, see [`COMPILERS`]).
fn glue_compiler_versions(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        let mut after = &rest[i + 1..];
        let mut lang_prefix = "";
        let trimmed = after.trim_start();
        if let Some(eq) = trimmed.find('=') {
            let key = &trimmed[..eq];
            if !key.is_empty() && key.split(',').all(|k| matches!(k, "c" | "cxx" | "fortran")) {
                lang_prefix = &trimmed[..=eq];
                after = &trimmed[eq + 1..];
            }
        }
        let name_start = after.len() - after.trim_start().len();
        let name_len = after[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
            .unwrap_or(after.len() - name_start);
        let end = name_start + name_len;
        let name = &after[name_start..end];
        let dependency = lang_prefix.is_empty()
            && !name.is_empty()
            && !after[end..].starts_with('=')
            && !COMPILERS.contains(&name);
        out.push_str(&rest[..i]);
        out.push(if dependency { '^' } else { '%' });
        out.push_str(lang_prefix);
        out.push_str(&after[..end]);
        let tail = &after[end..];
        rest = if name_len > 0 && tail.trim_start().starts_with('@') {
            tail.trim_start()
        } else {
            tail
        };
    }
    out.push_str(rest);
    out
}

/// A condition on the concrete spec being built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    False,
    /// The spec satisfies this (anonymous) spec.
    Spec(String),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    pub fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::True, c) | (c, Cond::True) => c,
            (Cond::False, _) | (_, Cond::False) => Cond::False,
            (Cond::And(mut a), Cond::And(b)) => {
                a.extend(b);
                Cond::And(a)
            }
            (Cond::And(mut a), c) | (c, Cond::And(mut a)) => {
                a.push(c);
                Cond::And(a)
            }
            (a, b) => Cond::And(vec![a, b]),
        }
    }

    pub fn or(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::False, c) | (c, Cond::False) => c,
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (a, b) => Cond::Or(vec![a, b]),
        }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Cond {
        match self {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            Cond::Not(c) => *c,
            Cond::Spec(s) => match flip_bool_variant(&s) {
                Some(f) => Cond::Spec(f),
                None => Cond::Not(Box::new(Cond::Spec(s))),
            },
            Cond::And(cs) => Cond::Or(cs.into_iter().map(Cond::not).collect()),
            Cond::Or(cs) => Cond::And(cs.into_iter().map(Cond::not).collect()),
        }
    }

    /// The condition as a spec for `when:`, if it is a conjunction of specs.
    pub fn as_when(&self) -> Option<Option<String>> {
        match self {
            Cond::True => Some(None),
            Cond::Spec(s) => Some(Some(s.trim().to_string())),
            Cond::And(cs) => {
                let mut parts = Vec::new();
                for c in cs {
                    if let Some(s) = c.as_when()? {
                        parts.push(s);
                    }
                }
                Some((!parts.is_empty()).then(|| join_conditions(&parts)))
            }
            _ => None,
        }
    }

    /// The condition as a tera expression.
    pub fn as_tera(&self) -> String {
        match self {
            Cond::True => "true".into(),
            Cond::False => "false".into(),
            Cond::Spec(s) => format!("spec is satisfies({})", quote(s)),
            Cond::Not(c) => match &**c {
                Cond::Spec(s) => format!("spec is not satisfies({})", quote(s)),
                other => format!("not ({})", other.as_tera()),
            },
            Cond::And(cs) => cs.iter().map(paren).collect::<Vec<_>>().join(" and "),
            Cond::Or(cs) => cs.iter().map(paren).collect::<Vec<_>>().join(" or "),
        }
    }
}

fn paren(c: &Cond) -> String {
    match c {
        Cond::And(_) | Cond::Or(_) => format!("({})", c.as_tera()),
        _ => c.as_tera(),
    }
}

/// A spec as a tera string literal.
pub fn quote(s: &str) -> String {
    if !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{s}'")
    }
}

/// `+x` ↔ `~x` for a single bool variant.
fn flip_bool_variant(s: &str) -> Option<String> {
    let s = s.trim();
    let (sign, name) = s.split_at(s.chars().next()?.len_utf8());
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (sign, ok) {
        ("+", true) => Some(format!("~{name}")),
        ("~", true) => Some(format!("+{name}")),
        _ => None,
    }
}

/// `{% if COND %}A{% else %}B{% endif %}` (or the plain branch for constants).
pub fn if_else(cond: &Cond, then: &str, otherwise: &str) -> String {
    match cond {
        Cond::True => then.to_string(),
        Cond::False => otherwise.to_string(),
        c if otherwise.is_empty() => format!("{{% if {} %}}{then}{{% endif %}}", c.as_tera()),
        c => format!(
            "{{% if {} %}}{then}{{% else %}}{otherwise}{{% endif %}}",
            c.as_tera()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conjunctions_become_when_and_the_rest_tera() {
        assert_eq!(
            join_conditions(&["^python@3: +x", "@:2.7 +x"]),
            "@:2.7 +x ^python@3: +x"
        );
        assert_eq!(join_conditions(&["%gcc @:11", "@6:"]), "@6: %gcc @:11");
        assert_eq!(join_conditions(&["@:3.8.0", "@3.8: +x"]), "@3.8:3.8.0 +x");
        assert_eq!(
            join_conditions(&["languages=obj-c++", "+nvptx"]),
            "languages=obj-c++ +nvptx"
        );
        assert_eq!(
            join_conditions(&["languages=c++ +x", "~y"]),
            "languages=c++ +x ~y"
        );
        assert_eq!(
            join_conditions(&["+plumed", "@=2023+plumed"]),
            "+plumed @=2023"
        );
        // The package's compiler stays its own, not the dependency's.
        assert_eq!(
            join_conditions(&["^fmt@9%gcc", "%apple-clang"]),
            "%apple-clang ^fmt@9%gcc"
        );
        assert_eq!(
            join_conditions(&["%gcc ^mpi", "+x ^zlib"]),
            "+x %gcc ^mpi ^zlib"
        );
        assert_eq!(
            join_conditions(&["+cuda", "+slepc+cuda x=1"]),
            "+cuda +slepc x=1"
        );
        assert_eq!(
            normalize("+mpi ^[virtuals=mpi] openmpi@4:"),
            "+mpi ^openmpi@4:"
        );
        assert_eq!(normalize("%gcc @:11.3.0"), "%gcc@:11.3.0");
        assert_eq!(normalize("@2: arch=ppc64le:"), "@2: target=ppc64le:");
        assert_eq!(
            normalize("@8: %fortran=aocc@:4.2"),
            "@8: %fortran=aocc@:4.2"
        );
        assert_eq!(normalize("%c,cxx=clang @15:"), "%c,cxx=clang@15:");
        assert_eq!(normalize("%meson@:1.0"), "^meson@:1.0");
        assert_eq!(normalize("+x %curl"), "+x ^curl");
        assert_eq!(normalize("%oneapi@2024:"), "%oneapi@2024:");
        assert_eq!(normalize("arch=linux-rhel8-zen2"), "arch=linux-rhel8-zen2");
        assert_eq!(
            normalize("+x %clang  @15: ^mpi @3"),
            "+x %clang@15: ^mpi @3"
        );
        let c = Cond::Spec("+a".into()).and(Cond::Spec("@2:".into()));
        assert_eq!(c.as_when(), Some(Some("+a @2:".into())));
        assert_eq!(Cond::Spec("+a".into()).not(), Cond::Spec("~a".into()));
        let n = Cond::Spec("@2:".into()).not();
        assert_eq!(n.as_when(), None);
        assert_eq!(n.as_tera(), "spec is not satisfies(\"@2:\")");
        let o = Cond::Spec("+a".into()).or(Cond::Spec("+b".into()));
        assert_eq!(
            if_else(&o, "X", "Y"),
            "{% if spec is satisfies(\"+a\") or spec is satisfies(\"+b\") %}X{% else %}Y{% endif %}"
        );
    }
}
