//! What the resolver asks of specs: does one meet another (`satisfies`),
//! could both hold at once (`intersects`), and their merge (`constrain`).
//!
//! Variant value sets are treated as multi-valued (merging takes the union)
//! unless the caller passes a `single_valued(package, variant)` oracle to the
//! `_with` forms; the spec language alone does not know which variants of a
//! package take one value.

use super::error::SpecConflict;
use std::collections::BTreeMap;

use super::spec::{CompilerSpec, FlagList, Spec};

/// Tells whether `variant` of `package` (None for an anonymous spec) takes
/// exactly one value.
pub type SingleValued<'a> = &'a dyn Fn(Option<&str>, &str) -> bool;

fn no_single_valued(_: Option<&str>, _: &str) -> bool {
    false
}

impl Spec {
    /// Whether `self` (usually concrete) meets every part of `constraint`:
    /// same name (an anonymous constraint matches any name), versions inside
    /// the constraint's, each constrained variant present with a matching
    /// value, every flag of the constraint among the spec's flags of that
    /// name (Spack's rule: at least all of them, in any order; `cflags==`
    /// only by propagated flags), compiler, target, platform and os inside
    /// the constraint's, and
    /// every `^dep` of the constraint met by a dependency of `self` with that
    /// name (searched through all of `self`'s dependencies).
    pub fn satisfies(&self, constraint: &Spec) -> bool {
        if let Some(n) = &constraint.name {
            if self.name.as_ref() != Some(n) {
                return false;
            }
        }
        if !self.versions.is_subset_of(&constraint.versions) {
            return false;
        }
        for (k, want) in &constraint.variants {
            match self.variants.get(k) {
                Some(have) if have.satisfies(want) => {}
                _ => return false,
            }
        }
        if !flags_satisfy(&self.flags, &constraint.flags) {
            return false;
        }
        let meets = |sc: &CompilerSpec, cc: &CompilerSpec| {
            sc.name == cc.name && sc.versions.is_subset_of(&cc.versions)
        };
        // `%nvhpc`: the node's compiler or that of one of its languages.
        if let Some(cc) = &constraint.compiler {
            let mut have = self.compiler.iter().chain(self.languages.values());
            if !have.any(|sc| meets(sc, cc)) {
                return false;
            }
        }
        for (lang, cc) in &constraint.languages {
            if !self.compiler_for(lang).is_some_and(|sc| meets(sc, cc)) {
                return false;
            }
        }
        if let Some(ct) = &constraint.target {
            match &self.target {
                Some(st) if st.is_subset_of(ct) => {}
                _ => return false,
            }
        }
        if constraint.platform.is_some() && self.platform != constraint.platform {
            return false;
        }
        if constraint.os.is_some() && self.os != constraint.os {
            return false;
        }
        constraint.deps.iter().all(|want| match &want.name {
            Some(n) => self.dep(n).is_some_and(|have| have.satisfies(want)),
            None => false,
        })
    }

    /// Whether one concrete spec could meet both `self` and `other`, with
    /// multi-valued variant semantics. See [`Spec::intersects_with`].
    pub fn intersects(&self, other: &Spec) -> bool {
        self.intersects_with(other, &no_single_valued)
    }

    /// Whether one concrete spec could meet both; `single_valued` says which
    /// variants take one value (those must then be equal).
    pub fn intersects_with(&self, other: &Spec, single_valued: SingleValued<'_>) -> bool {
        if let (Some(a), Some(b)) = (&self.name, &other.name) {
            if a != b {
                return false;
            }
        }
        if !self.versions.intersects(&other.versions) {
            return false;
        }
        let package = self.name.as_deref().or(other.name.as_deref());
        for (k, a) in &self.variants {
            if let Some(b) = other.variants.get(k) {
                if !a.intersects(b, single_valued(package, k)) {
                    return false;
                }
            }
        }
        let clash = |a: &CompilerSpec, b: &CompilerSpec| {
            a.name != b.name || !a.versions.intersects(&b.versions)
        };
        if let (Some(a), Some(b)) = (&self.compiler, &other.compiler) {
            if clash(a, b) {
                return false;
            }
        }
        for (lang, a) in &self.languages {
            if other.languages.get(lang).is_some_and(|b| clash(a, b)) {
                return false;
            }
        }
        if let (Some(a), Some(b)) = (&self.target, &other.target) {
            if !a.intersects(b) {
                return false;
            }
        }
        for (a, b) in [(&self.platform, &other.platform), (&self.os, &other.os)] {
            if let (Some(a), Some(b)) = (a, b) {
                if a != b {
                    return false;
                }
            }
        }
        other.deps.iter().all(|d| {
            let mine = d.name.as_deref().and_then(|n| self.dep(n));
            mine.is_none_or(|m| m.intersects_with(d, single_valued))
        })
    }

    /// Adds every part of `other` to `self` (multi-valued variant
    /// semantics). Returns whether `self` changed; on a conflict `self` is
    /// left as it was. See [`Spec::constrain_with`].
    pub fn constrain(&mut self, other: &Spec) -> Result<bool, SpecConflict> {
        self.constrain_with(other, &no_single_valued)
    }

    /// Adds every part of `other` to `self`: the name if `self` has none,
    /// the intersection of versions and targets, the variants (union of
    /// value sets, or equality for `single_valued` ones), the flags (those
    /// missing appended: flags never conflict), compiler, platform,
    /// os, and the dependencies (merged by name). Returns whether `self`
    /// changed, or the part that clashed, leaving `self` unchanged.
    pub fn constrain_with(
        &mut self,
        other: &Spec,
        single_valued: SingleValued<'_>,
    ) -> Result<bool, SpecConflict> {
        let mut next = self.clone();
        let changed = next.merge(other, single_valued)?;
        if changed {
            *self = next;
        }
        Ok(changed)
    }

    fn merge(
        &mut self,
        other: &Spec,
        single_valued: SingleValued<'_>,
    ) -> Result<bool, SpecConflict> {
        let mut changed = self.merge_name(other)?;
        let package = self.name.clone();
        changed |= self.merge_versions(other, &package)?;
        changed |= self.merge_variants(other, &package, single_valued)?;
        changed |= merge_flags(&mut self.flags, &other.flags);
        changed |= self.merge_compiler(other, &package)?;
        changed |= self.merge_target(other, &package)?;
        changed |= self.merge_arch(other, &package)?;
        for v in &other.virtuals {
            changed |= self.virtuals.insert(v.clone());
        }
        for d in &other.deps {
            let found = self
                .deps
                .iter_mut()
                .find(|m| m.name.is_some() && m.name == d.name);
            match found {
                Some(m) => changed |= m.merge(d, single_valued)?,
                None => {
                    let at = self.deps.partition_point(|m| m.name <= d.name);
                    self.deps.insert(at, d.clone());
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    fn merge_name(&mut self, other: &Spec) -> Result<bool, SpecConflict> {
        match (&self.name, &other.name) {
            (Some(a), Some(b)) if a != b => Err(SpecConflict::Name {
                left: a.clone(),
                right: b.clone(),
            }),
            (None, Some(b)) => {
                self.name = Some(b.clone());
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn merge_versions(
        &mut self,
        other: &Spec,
        package: &Option<String>,
    ) -> Result<bool, SpecConflict> {
        if self.versions.is_subset_of(&other.versions) {
            return Ok(false);
        }
        let v = self
            .versions
            .intersect(&other.versions)
            .ok_or_else(|| SpecConflict::Versions {
                package: package.clone(),
                left: self.versions.to_string(),
                right: other.versions.to_string(),
            })?;
        let changed = v != self.versions;
        self.versions = v;
        Ok(changed)
    }

    fn merge_variants(
        &mut self,
        other: &Spec,
        package: &Option<String>,
        single_valued: SingleValued<'_>,
    ) -> Result<bool, SpecConflict> {
        let mut changed = false;
        for (k, b) in &other.variants {
            let Some(a) = self.variants.get_mut(k) else {
                self.variants.insert(k.clone(), b.clone());
                changed = true;
                continue;
            };
            let before = a.to_spec_text(k);
            changed |= a
                .constrain(b, single_valued(package.as_deref(), k))
                .map_err(|()| SpecConflict::Variant {
                    package: package.clone(),
                    variant: k.clone(),
                    left: before,
                    right: b.to_spec_text(k),
                })?;
        }
        Ok(changed)
    }

    fn merge_compiler(
        &mut self,
        other: &Spec,
        package: &Option<String>,
    ) -> Result<bool, SpecConflict> {
        let mut changed = merge_one_compiler(&mut self.compiler, other.compiler.as_ref(), package)?;
        for (lang, b) in &other.languages {
            let mut a = self.languages.get(lang).cloned();
            changed |= merge_one_compiler(&mut a, Some(b), package)?;
            if let Some(a) = a {
                self.languages.insert(lang.clone(), a);
            }
        }
        if changed {
            super::spec::normalize_languages(self);
        }
        Ok(changed)
    }
    fn merge_target(
        &mut self,
        other: &Spec,
        package: &Option<String>,
    ) -> Result<bool, SpecConflict> {
        let Some(b) = &other.target else {
            return Ok(false);
        };
        let Some(a) = &self.target else {
            self.target = Some(b.clone());
            return Ok(true);
        };
        let t = a.intersect(b).ok_or_else(|| SpecConflict::Target {
            package: package.clone(),
            left: a.to_string(),
            right: b.to_string(),
        })?;
        if &t == a {
            return Ok(false);
        }
        self.target = Some(t);
        Ok(true)
    }

    /// Platform and OS.
    fn merge_arch(&mut self, other: &Spec, package: &Option<String>) -> Result<bool, SpecConflict> {
        let mut changed = false;
        for (key, mine, theirs) in [
            ("platform", &mut self.platform, &other.platform),
            ("os", &mut self.os, &other.os),
        ] {
            match (&*mine, theirs) {
                (Some(a), Some(b)) if a != b => {
                    return Err(SpecConflict::Arch {
                        package: package.clone(),
                        key,
                        left: a.clone(),
                        right: b.clone(),
                    });
                }
                (None, Some(b)) => {
                    *mine = Some(b.clone());
                    changed = true;
                }
                _ => {}
            }
        }
        Ok(changed)
    }
}

/// Whether `have` holds every flag of `want`, per name (propagated flags
/// only by propagated ones).
fn flags_satisfy(have: &BTreeMap<String, FlagList>, want: &BTreeMap<String, FlagList>) -> bool {
    want.iter().all(|(k, w)| {
        have.get(k).is_some_and(|h| {
            (h.propagate || !w.propagate) && w.flags.iter().all(|f| h.flags.contains(f))
        })
    })
}

/// Appends the flags of `b` missing in `a` (Spack: flags of several sources
/// are merged, never in conflict); a propagated list stays propagated.
fn merge_flags(a: &mut BTreeMap<String, FlagList>, b: &BTreeMap<String, FlagList>) -> bool {
    let mut changed = false;
    for (k, theirs) in b {
        let mine = a.entry(k.clone()).or_default();
        for f in &theirs.flags {
            if !mine.flags.contains(f) {
                mine.flags.push(f.clone());
                changed = true;
            }
        }
        if theirs.propagate && !mine.propagate {
            mine.propagate = true;
            changed = true;
        }
    }
    changed
}

/// Merges the compiler `b` into `a`.
fn merge_one_compiler(
    a: &mut Option<CompilerSpec>,
    b: Option<&CompilerSpec>,
    package: &Option<String>,
) -> Result<bool, SpecConflict> {
    let Some(b) = b else {
        return Ok(false);
    };
    let Some(a) = a.as_mut() else {
        *a = Some(b.clone());
        return Ok(true);
    };
    let clash = || SpecConflict::Compiler {
        package: package.clone(),
        left: a.to_string(),
        right: b.to_string(),
    };
    if a.name != b.name {
        return Err(clash());
    }
    if a.versions.is_subset_of(&b.versions) {
        return Ok(false);
    }
    let v = a.versions.intersect(&b.versions).ok_or_else(clash)?;
    let changed = v != a.versions;
    a.versions = v;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Spec {
        Spec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn sat(a: &str, b: &str) -> bool {
        s(a).satisfies(&s(b))
    }

    const CONCRETE: &str = "libfabric@=2.2.0 +cuda ~debug fabrics=cxi,lnx,shm %gcc@=12.3 platform=linux os=sles15 target=neoverse_v2 ^libcxi@=main ^curl@=8.5.0 +nghttp2";

    #[test]
    fn satisfies_each_part() {
        for ok in [
            "",
            "libfabric",
            "@2.2",
            "@2:",
            "@:2.2",
            "+cuda",
            "~debug",
            "fabrics=cxi",
            "fabrics=cxi,shm",
            "%gcc",
            "%gcc@12:",
            "target=aarch64:",
            "target=neoverse_v2",
            "platform=linux",
            "os=sles15",
            "^libcxi",
            "^libcxi@main",
            "^curl+nghttp2",
            "@:2 target=aarch64:",
            "libfabric@2.2: +cuda fabrics=cxi %gcc@12 target=neoverse_v1: ^libcxi",
        ] {
            assert!(sat(CONCRETE, ok), "{CONCRETE} should satisfy {ok}");
        }
        for no in [
            "nccl",
            "@2.3:",
            "@=2.2",
            "~cuda",
            "+debug",
            "+xpmem",
            "fabrics=tcp",
            "fabrics=cxi,tcp",
            "%clang",
            "%gcc@13:",
            "target=x86_64:",
            "target=neoverse_v1",
            "platform=darwin",
            "os=ubuntu22.04",
            "^libfuse",
            "^libcxi@1.0",
            "^curl~nghttp2",
        ] {
            assert!(!sat(CONCRETE, no), "{CONCRETE} should not satisfy {no}");
        }
    }

    #[test]
    fn abstract_satisfies_is_subset() {
        assert!(sat("foo@1.2.3", "foo@1.2"));
        assert!(!sat("foo@1.2", "foo@1.2.3"));
        assert!(sat("foo target=neoverse_v2", "target=aarch64:"));
        assert!(!sat("foo target=aarch64:", "target=neoverse_v2"));
        assert!(!sat("@1.2", "foo@1.2"));
        assert!(sat("foo", "foo"));
        assert!(!sat("foo", "+cuda"));
    }

    #[test]
    fn intersects_each_part() {
        let yes = [
            ("foo", "+cuda"),
            ("foo@1.2:", "@:1.4"),
            ("+cuda", "fabrics=cxi"),
            ("fabrics=cxi", "fabrics=shm"),
            ("%gcc@12:", "%gcc@:13"),
            ("target=aarch64:", "target=:neoverse_v1"),
            ("foo ^bar@1:", "foo ^bar@:2"),
            ("foo ^bar", "foo ^baz"),
        ];
        for (a, b) in yes {
            assert!(s(a).intersects(&s(b)), "{a} ∩ {b}");
            assert!(s(b).intersects(&s(a)), "{b} ∩ {a}");
        }
        let no = [
            ("foo", "bar"),
            ("@1.2", "@2:"),
            ("+cuda", "~cuda"),
            ("+cuda", "cuda=x"),
            ("%gcc", "%clang"),
            ("%gcc@12", "%gcc@13"),
            ("target=aarch64:", "target=x86_64:"),
            ("platform=linux", "platform=darwin"),
            ("foo ^bar@1", "foo ^bar@2"),
        ];
        for (a, b) in no {
            assert!(!s(a).intersects(&s(b)), "{a} ∩ {b}");
            assert!(!s(b).intersects(&s(a)), "{b} ∩ {a}");
        }
        let single = |_: Option<&str>, v: &str| v == "fabrics";
        assert!(!s("nccl fabrics=auto").intersects_with(&s("fabrics=verbs"), &single));
        assert!(s("nccl fabrics=auto").intersects_with(&s("fabrics=auto"), &single));
    }

    #[test]
    fn constrain_merges_and_reports_change() {
        let mut a = s("libfabric@2: +cuda");
        assert_eq!(a.constrain(&s("@:2.2 fabrics=cxi ^libcxi")), Ok(true));
        assert_eq!(a.to_string(), "libfabric@2:2.2 +cuda fabrics=cxi ^libcxi");
        assert_eq!(a.constrain(&s("fabrics=shm ^libcxi@main")), Ok(true));
        assert_eq!(
            a.to_string(),
            "libfabric@2:2.2 +cuda fabrics=cxi,shm ^libcxi@main"
        );
        assert_eq!(a.constrain(&s("libfabric@2.2 +cuda fabrics=cxi")), Ok(true));
        assert_eq!(
            a.to_string(),
            "libfabric@2.2 +cuda fabrics=cxi,shm ^libcxi@main"
        );
        assert_eq!(a.constrain(&s("@2: fabrics=cxi")), Ok(false));
        assert_eq!(a.constrain(&s("")), Ok(false));
        let mut b = s("+cuda");
        assert_eq!(b.constrain(&s("nccl target=aarch64:")), Ok(true));
        assert_eq!(b.to_string(), "nccl +cuda target=aarch64:");
        assert_eq!(b.constrain(&s("target=neoverse_v2 %gcc@12:")), Ok(true));
        assert_eq!(b.to_string(), "nccl +cuda %gcc@12: target=neoverse_v2");
        assert_eq!(b.constrain(&s("%gcc@:13 platform=linux")), Ok(true));
        assert_eq!(
            b.to_string(),
            "nccl +cuda %gcc@12:13 platform=linux target=neoverse_v2"
        );
    }

    #[test]
    fn constrain_conflicts_name_the_part() {
        let cases = [
            ("foo", "bar", "package `foo` cannot also be `bar`"),
            ("foo@1.2", "@2:", "foo: version `@1.2` conflicts with `@2:`"),
            (
                "foo+cuda",
                "~cuda",
                "foo: variant `+cuda` conflicts with `~cuda`",
            ),
            ("+cuda", "cuda=x", "variant `+cuda` conflicts with `cuda=x`"),
            (
                "foo%gcc",
                "%clang",
                "foo: compiler `%gcc` conflicts with `%clang`",
            ),
            (
                "foo%gcc@12",
                "%gcc@13",
                "foo: compiler `%gcc@12` conflicts with `%gcc@13`",
            ),
            (
                "foo target=zen2",
                "target=aarch64:",
                "foo: `target=zen2` conflicts with `target=aarch64:`",
            ),
            (
                "foo platform=linux",
                "platform=darwin",
                "foo: `platform=linux` conflicts with `platform=darwin`",
            ),
            (
                "foo os=sles15",
                "os=rhel8",
                "foo: `os=sles15` conflicts with `os=rhel8`",
            ),
            (
                "foo ^bar+x",
                "^bar~x",
                "bar: variant `+x` conflicts with `~x`",
            ),
        ];
        for (a, b, msg) in cases {
            let mut x = s(a);
            let before = x.clone();
            let err = x.constrain(&s(b)).expect_err(a);
            assert_eq!(err.to_string(), msg);
            assert_eq!(x, before, "a failed constrain leaves the spec unchanged");
        }
        let single = |p: Option<&str>, v: &str| p == Some("nccl") && v == "fabrics";
        let mut n = s("nccl fabrics=verbs");
        let err = n.constrain_with(&s("fabrics=auto"), &single).unwrap_err();
        assert_eq!(
            err.to_string(),
            "nccl: variant `fabrics=verbs` conflicts with `fabrics=auto`"
        );
        assert!(matches!(err, SpecConflict::Variant { ref variant, .. } if variant == "fabrics"));
    }

    #[test]
    fn satisfies_after_constrain() {
        let mut a = s("libfabric@2: ^libcxi");
        let b = s("+cuda fabrics=cxi target=aarch64: ^libcxi@main");
        a.constrain(&b).unwrap();
        assert!(a.satisfies(&b));
    }
}
