//! The `%` clauses: a node's compiler (`%gcc@13`), the compilers of some
//! languages (`%c,cxx=gcc`), a dependency providing a virtual
//! (`%mpi=cray-mpich`) and the edge attributes after `^` (`[virtuals=…]`).

use std::collections::BTreeSet;

use super::super::constraint::VersionConstraint;
use super::super::error::SpecParseError;
use super::super::spec::{CompilerSpec, LANGUAGES, Spec, normalize_languages};
use super::super::variant::is_name_start;
use super::Parser;

impl<'a> Parser<'a> {
    /// `%name` or `%name@versions` at `at`: the node's compiler, or the
    /// language form `%c,cxx=name@versions`: the compiler of those
    /// languages (see `normalize_languages`).
    pub(super) fn compiler_clause(
        &mut self,
        spec: &mut Spec,
        at: usize,
    ) -> Result<(), SpecParseError> {
        self.pos += 1;
        self.skip_ws();
        let (_, name) = self.name(
            "a compiler name after `%`",
            Some("for example `%gcc` or `%gcc@12:`".into()),
        )?;
        let (name, languages) = match self.peek() {
            Some('=') if !LANGUAGES.contains(&name) => {
                return self.virtual_assignment(spec, name);
            }
            Some(',' | '=') => {
                let (langs, name) = self.language_assignment(at, name)?;
                (name, Some(langs))
            }
            _ => (name, None),
        };
        let mut compiler = CompilerSpec {
            name: compiler_package(name).to_string(),
            versions: VersionConstraint::any(),
        };
        if self.peek() == Some('@') {
            self.pos += 1;
            compiler.versions = self.versions("@")?;
        }
        // `%c=gcc@13 %fortran=gcc`: the same compiler again, without versions.
        let again = |have: &CompilerSpec| have.name == compiler.name && compiler.versions.is_any();
        let Some(languages) = languages else {
            if spec.compiler.is_some() {
                return Err(self.second_compiler(at, "a second compiler for the same package"));
            }
            spec.compiler = Some(compiler);
            normalize_languages(spec);
            return Ok(());
        };
        for lang in languages {
            if let Some(have) = spec.languages.get(lang) {
                if again(have) {
                    continue;
                }
                return Err(self.second_compiler(
                    at,
                    &format!("a second compiler for `{lang}` in the same package"),
                ));
            }
            if spec
                .compiler
                .as_ref()
                .is_some_and(|c| *c == compiler || again(c))
            {
                continue;
            }
            spec.languages.insert(lang.to_string(), compiler.clone());
        }
        normalize_languages(spec);
        Ok(())
    }

    /// `%mpi=openmpi@5: +cuda` (Spack 1.x; `virt` is read already, `=` is
    /// next): the package depends on `openmpi@5: +cuda` as the provider of
    /// `mpi` — the clauses up to the next `%` or `^` are the provider's, as
    /// in Spack 1.x — kept as a dependency of the node with its
    /// [`Spec::virtuals`].
    pub(super) fn virtual_assignment(
        &mut self,
        spec: &mut Spec,
        virt: &str,
    ) -> Result<(), SpecParseError> {
        self.pos += 1;
        if !self.peek().is_some_and(is_name_start) {
            return Err(self.expected(
                "a package name after `=`",
                Some(format!(
                    "for example `%{virt}=name`: the provider of `{virt}`"
                )),
            ));
        }
        let mut dep = Spec::default();
        dep.virtuals.insert(virt.to_string());
        let outer = std::mem::replace(&mut self.in_edge, true);
        let parsed = self.node(&mut dep, true);
        self.in_edge = outer;
        parsed?;
        let at = self.pos;
        match spec.deps.iter_mut().find(|d| d.name == dep.name) {
            Some(prev) => {
                prev.constrain(&dep).map_err(|e| {
                    self.error(
                        at,
                        0,
                        format!("contradicting constraints on the same dependency: {e}"),
                        "contradicts an earlier `%` of the same package",
                        None,
                    )
                })?;
            }
            None => spec.deps.push(dep),
        }
        Ok(())
    }

    /// Spack 1.x's edge attributes after `^`: `[virtuals=gl,glu]` (the
    /// virtuals the dependency provides); nothing when there is no `[`.
    pub(super) fn edge_attributes(&mut self) -> Result<BTreeSet<String>, SpecParseError> {
        let mut out = BTreeSet::new();
        if self.peek() != Some('[') {
            return Ok(out);
        }
        let at = self.pos;
        let Some(len) = self.src[at..].find(']') else {
            return Err(self.error(at, 1, "`[` without its `]`", "not closed", None));
        };
        let inner = &self.src[at + 1..at + len];
        for attr in inner.split_whitespace() {
            match attr.split_once('=') {
                Some(("virtuals", v)) if v.split(',').all(|n| n.starts_with(is_name_start)) => {
                    out.extend(v.split(',').map(str::to_string));
                }
                _ => {
                    return Err(self.error(
                        at,
                        len + 1,
                        format!("unsupported edge attribute `{attr}`"),
                        "only `virtuals=` is read",
                        Some("for example `^[virtuals=mpi] openmpi`".into()),
                    ));
                }
            }
        }
        self.pos = at + len + 1;
        self.skip_ws();
        Ok(out)
    }

    pub(super) fn second_compiler(&self, at: usize, message: &str) -> SpecParseError {
        self.error(at, self.pos - at, message, "second `%`", None)
    }

    /// Spack's language form `%c,cxx,fortran=nvhpc` (`first` is the first
    /// language, read already): the languages and the compiler name.
    pub(super) fn language_assignment(
        &mut self,
        at: usize,
        first: &'a str,
    ) -> Result<(Vec<&'a str>, &'a str), SpecParseError> {
        let mut lang = (self.pos - first.len(), first);
        let mut langs = Vec::new();
        loop {
            if !LANGUAGES.contains(&lang.1) {
                return Err(self.error(
                    lang.0,
                    lang.1.len(),
                    format!(
                        "`{}` is not a language: `%LANG=compiler` takes c, cxx and fortran",
                        lang.1
                    ),
                    "not c, cxx or fortran",
                    Some("for example `%c,cxx=gcc` or `%fortran=nvhpc`".into()),
                ));
            }
            langs.push(lang.1);
            match self.peek() {
                Some(',') => {
                    self.pos += 1;
                    lang = self.name("a language after `,`", None)?;
                }
                Some('=') => {
                    self.pos += 1;
                    let (_, compiler) = self.name(
                        "a compiler name after `=`",
                        Some(format!("for example `{}=gcc`", &self.src[at..self.pos - 1])),
                    )?;
                    return Ok((langs, compiler));
                }
                _ => return Err(self.expected("`,` or `=` after a language", None)),
            }
        }
    }
}

/// The package of a compiler named by Spack's older compiler name: `oneapi`
/// is `intel-oneapi-compilers` and `rocmcc` is `llvm-amdgpu` (Spack 1.x
/// reads both names; spack-packages still writes `%oneapi` in conditions).
/// Every other name is its package's.
fn compiler_package(name: &str) -> &str {
    match name {
        "oneapi" => "intel-oneapi-compilers",
        "rocmcc" => "llvm-amdgpu",
        other => other,
    }
}
