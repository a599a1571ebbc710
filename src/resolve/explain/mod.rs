//! Turning a failed decision into an [`Explanation`]: the requirements
//! that collide, in words, each with the `file:line` where it was written,
//! and for each the chain of requirements that brought its package in, down
//! to a root spec of the stack. `rejects` explains candidates that were all
//! rejected and conflicts that name dependencies.

mod choices;
mod rejects;
mod untranslated_versions;

use std::collections::BTreeSet;

use crate::diag::Loc;

use super::error::{ExplainLine, Explanation, short_loc};
use super::policy::PolicyLayer;
use super::requirement::{Origin, ProviderReason, Req};
use super::solve::{Decision, OpenFailure, SlotKind, Solver, with_name};

/// How deep "why is this package here" chains go.
const MAX_CHAIN: usize = 12;

fn layer_name(l: PolicyLayer) -> &'static str {
    match l {
        PolicyLayer::Cluster => "the cluster's",
        PolicyLayer::Stack => "the stack's",
    }
}

pub(super) fn with_loc(text: String, loc: Option<&Loc>) -> String {
    match loc {
        Some(l) => format!("{text} ({})", short_loc(l)),
        None => text,
    }
}

impl<'a> Solver<'a> {
    /// `name@version` of a decided slot, or its name.
    fn label(&self, slot: usize) -> String {
        match &self.decided[slot] {
            Some(Decision::Node(c)) => c.label(),
            _ => self.slots[slot].name.clone(),
        }
    }

    fn reason_text(&self, reason: &ProviderReason<'_>, virt: usize) -> (String, Option<Loc>) {
        match reason {
            ProviderReason::Required(s) => (
                format!(
                    "as the package policy for `{}` requires",
                    self.slots[virt].name
                ),
                Some(s.loc.clone()),
            ),
            ProviderReason::Requested => ("as the stack asks for it".to_string(), None),
            ProviderReason::Preferred(s) => (
                format!(
                    "as the package policy for `{}` prefers",
                    self.slots[virt].name
                ),
                Some(s.loc.clone()),
            ),
            ProviderReason::Default => (
                format!(
                    "as Spack's default provider preferences for `{}` prefer it",
                    self.slots[virt].name
                ),
                None,
            ),
            ProviderReason::First => {
                let names: Vec<&str> = match self.slots[virt].kind {
                    SlotKind::Virtual(p) => p.iter().map(|p| p.package.as_str()).collect(),
                    _ => Vec::new(),
                };
                (
                    format!(
                        "the first of its providers that fits (by name: {})",
                        names.join(", ")
                    ),
                    None,
                )
            }
        }
    }

    /// The hint for package `name`, which no repository has a recipe for
    /// (empty: none). `elsewhere`: a dependency expects it from another
    /// repository; `by_recipe`: only package recipes ask for it, so it is
    /// no typo of the stack's.
    pub(crate) fn missing_hint(&self, name: &str, elsewhere: bool, by_recipe: bool) -> String {
        if elsewhere {
            format!(
                "the recipe expects `{name}` from another repository (`elsewhere: true`), such as spack-packages' translations: add one that has it (`--repo DIR`, `repos:`), or choose the variants whose condition needs it"
            )
        } else if by_recipe {
            format!(
                "add a repository with a recipe for `{name}` (`--repo DIR`, `repos:`), or choose the variants whose condition needs it"
            )
        } else {
            self.setup
                .repo
                .suggest(name)
                .map(|s| format!("did you mean `{s}`?"))
                .unwrap_or_default()
        }
    }

    /// What requirement `r` on slot `t` asks, in words, and where.
    pub(crate) fn phrase(&self, t: usize, r: &Req<'_>) -> (String, Option<Loc>) {
        let what = with_name(&r.spec, &self.slots[t].name);
        match &r.origin {
            Origin::Root(s) => (
                match &self.setup.built_for {
                    Some(who) => format!("`{who}` requires `{}` to build", s.text),
                    None => format!("the stack asks for `{}`", s.text),
                },
                Some(s.loc.clone()),
            ),
            Origin::Network {
                spec,
                cluster: false,
            } => (
                format!("the network specs ask for `{}`", spec.text),
                Some(spec.loc.clone()),
            ),
            Origin::Network {
                spec,
                cluster: true,
            } => (
                format!("the cluster's network defaults ask for `{}`", spec.text),
                Some(spec.loc.clone()),
            ),
            Origin::RootDep { root } => (
                format!("the stack asks for `{what}` (in `{}`)", root.text),
                Some(root.loc.clone()),
            ),
            Origin::Dependency { parent, dep } => (
                requires(&self.label(*parent), dep),
                Some(dep.spec.loc.clone()),
            ),
            Origin::DependencyDep { parent, dep } => (
                format!(
                    "`{}` requires `{what}` (in `{}`)",
                    self.label(*parent),
                    dep.spec.text
                ),
                Some(dep.spec.loc.clone()),
            ),
            Origin::Policy { key, spec, layer } => (
                format!(
                    "{} package policy `{key}: require: {}` asks for `{what}`",
                    layer_name(*layer),
                    spec.text
                ),
                Some(spec.loc.clone()),
            ),
            Origin::Provider { virt, reason, when } => {
                let provider = &self.slots[t].name;
                let virt_name = &self.slots[*virt].name;
                match when {
                    Some(w) if !r.spec.is_empty() => (
                        format!("`{provider}` provides `{virt_name}` only when `{}`", w.text),
                        Some(w.loc.clone()),
                    ),
                    _ => {
                        let (why, loc) = self.reason_text(reason, *virt);
                        (
                            format!("`{provider}` was chosen to provide `{virt_name}`, {why}"),
                            loc,
                        )
                    }
                }
            }
            Origin::Shared => (
                format!(
                    "the environment builds `{what}`, which this separate build of a build tool reuses"
                ),
                None,
            ),
        }
    }

    /// Why slot `t` is in the environment, as a chain of lines (`indent`
    /// deeper for each step back towards the roots).
    pub(crate) fn why(&self, t: usize, indent: usize, out: &mut Vec<ExplainLine>) {
        let mut seen = BTreeSet::new();
        let mut slot = t;
        let mut depth = indent;
        while depth < indent + MAX_CHAIN && seen.insert(slot) {
            let Some(r) = self.reqs[slot].iter().find(|r| r.presence) else {
                return;
            };
            let (text, loc) = match &r.origin {
                Origin::Provider { virt, reason, .. } => {
                    let (why, loc) = self.reason_text(reason, *virt);
                    (
                        format!(
                            "`{}` provides `{}`, {why}",
                            self.slots[slot].name, self.slots[*virt].name
                        ),
                        loc,
                    )
                }
                _ => self.phrase(slot, r),
            };
            out.push(ExplainLine {
                indent: depth,
                text,
                loc,
            });
            match r.origin.decided_by() {
                Some(p) => slot = p,
                None => return,
            }
            depth += 1;
        }
    }

    /// A requirement line followed by the chain that explains its origin.
    fn req_with_chain(&self, t: usize, r: &Req<'_>, indent: usize, out: &mut Vec<ExplainLine>) {
        let (text, loc) = self.phrase(t, r);
        out.push(ExplainLine { indent, text, loc });
        if let Some(p) = r.origin.decided_by() {
            self.why(p, indent + 1, out);
        }
    }

    fn requirements_block(
        &self,
        t: usize,
        filter: impl Fn(&Req<'_>) -> bool,
        out: &mut Vec<ExplainLine>,
    ) {
        let reqs: Vec<&Req<'_>> = self.reqs[t].iter().filter(|r| filter(r)).collect();
        if reqs.is_empty() {
            return;
        }
        out.push(ExplainLine {
            indent: 0,
            text: format!("requirements on `{}`:", self.slots[t].name),
            loc: None,
        });
        for r in reqs {
            self.req_with_chain(t, r, 1, out);
        }
    }

    fn explanation(&self, problem: String, lines: Vec<ExplainLine>) -> Explanation {
        Explanation {
            environment: self.setup.name.to_string(),
            problem,
            lines,
            tried: Vec::new(),
            hint: None,
        }
    }

    /// The policy requires a provider of virtual `slot` that provides none.
    fn no_provider(&self, slot: usize) -> Explanation {
        let name = &self.slots[slot].name;
        let mut lines = Vec::new();
        let policy = &self.slots[slot].policy;
        let providers: Vec<&str> = match self.slots[slot].kind {
            SlotKind::Virtual(p) => p.iter().map(|p| p.package.as_str()).collect(),
            _ => Vec::new(),
        };
        let wanted: Vec<String> = policy
            .require
            .iter()
            .map(|r| with_loc(format!("`{}`", r.spec.text), Some(&r.spec.loc)))
            .collect();
        self.requirements_block(slot, |r| r.presence, &mut lines);
        let mut e = self.explanation(
            format!(
                "the package policy requires {} to provide `{name}`, which no provider of `{name}` satisfies",
                wanted.join(" and ")
            ),
            lines,
        );
        e.hint = Some(format!("providers of `{name}`: {}", providers.join(", ")));
        e
    }

    /// No provider of virtual `slot` provides `versions` (`None`: its
    /// requirements exclude each other).
    fn no_provider_version(
        &self,
        slot: usize,
        versions: Option<&crate::spec::VersionConstraint>,
    ) -> Explanation {
        let name = &self.slots[slot].name;
        let mut lines = Vec::new();
        self.requirements_block(slot, |r| !r.spec.versions.is_any(), &mut lines);
        let problem = match versions {
            Some(v) => format!(
                "`{name}@{v}` is asked for, but no provider of `{name}` provides that version"
            ),
            None => {
                format!("the requirements on `{name}` ask for versions that exclude each other")
            }
        };
        let mut e = self.explanation(problem, lines);
        if let SlotKind::Virtual(providers) = self.slots[slot].kind {
            let provided: Vec<String> = providers
                .iter()
                .map(|p| {
                    if p.versions.is_any() {
                        format!("{} provides `{name}` (any version)", p.package)
                    } else {
                        format!("{} provides `{name}@{}`", p.package, p.versions)
                    }
                })
                .collect();
            e.hint = Some(provided.join("; "));
        }
        e
    }

    /// Why `slot` could not even get candidates.
    pub(crate) fn explain_open(&self, slot: usize, failure: &OpenFailure) -> Explanation {
        match failure {
            OpenFailure::Missing => self.explain_missing(slot),
            OpenFailure::NoProvider => self.no_provider(slot),
            OpenFailure::NoProviderVersion(versions) => {
                self.no_provider_version(slot, versions.as_ref())
            }
            OpenFailure::Clash(clash) => self.explain_clash(slot, clash),
            OpenFailure::Target(i) => self.explain_target(slot, *i),
            OpenFailure::Compiler(i) => self.explain_compiler(slot, *i),
            OpenFailure::NoCandidate {
                wanted,
                external_only,
            } => self.explain_no_candidate(slot, wanted, *external_only),
        }
    }

    /// No recipe defines the package.
    fn explain_missing(&self, slot: usize) -> Explanation {
        let name = &self.slots[slot].name;
        let reqs = &self.reqs[slot];
        let mut lines = Vec::new();
        self.requirements_block(slot, |r| r.presence, &mut lines);
        let mut e = self.explanation(format!("no package recipe defines `{name}`"), lines);
        let elsewhere = reqs
            .iter()
            .any(|r| matches!(r.origin, Origin::Dependency { dep, .. } if dep.elsewhere));
        let by_recipe = reqs.iter().all(|r| {
            matches!(
                r.origin,
                Origin::Dependency { .. } | Origin::DependencyDep { .. }
            )
        });
        e.hint = Some(self.missing_hint(name, elsewhere, by_recipe)).filter(|h| !h.is_empty());
        e
    }

    /// Two requirements (or one with the recipe's own rules) cannot hold
    /// together.
    fn explain_clash(
        &self,
        slot: usize,
        clash: &crate::resolve::requirement::Clash,
    ) -> Explanation {
        let name = &self.slots[slot].name;
        let reqs = &self.reqs[slot];
        let mut lines = Vec::new();
        let second = &reqs[clash.second];
        let (t2, l2) = self.phrase(slot, second);
        let conflict = clash.conflict.to_string();
        let note = |text: String| ExplainLine {
            indent: 0,
            text,
            loc: None,
        };
        match clash.first {
            Some(i) => {
                let first = &reqs[i];
                let (t1, l1) = self.phrase(slot, first);
                let problem = format!(
                    "{}, but {}",
                    with_loc(t2, l2.as_ref()),
                    with_loc(t1, l1.as_ref())
                );
                lines.push(note(self.conflict_note(slot, &conflict, &clash.conflict)));
                lines.push(note("where these requirements come from:".into()));
                self.req_with_chain(slot, second, 1, &mut lines);
                self.req_with_chain(slot, first, 1, &mut lines);
                self.explanation(problem, lines)
            }
            None => {
                lines.push(note("the requirements, in the order they were met:".into()));
                for r in &reqs[..=clash.second] {
                    self.req_with_chain(slot, r, 1, &mut lines);
                }
                self.explanation(
                    format!(
                        "no configuration of `{name}` meets all its requirements together: {}",
                        self.conflict_note(slot, &conflict, &clash.conflict)
                    ),
                    lines,
                )
            }
        }
    }

    /// Requirement `i` on `slot` as a phrase with its location, and the
    /// decision that made it, explained.
    fn requirement_and_why(&self, slot: usize, i: usize) -> (String, Vec<ExplainLine>) {
        let req = &self.reqs[slot][i];
        let mut lines = Vec::new();
        let (t, l) = self.phrase(slot, req);
        if let Some(p) = req.origin.decided_by() {
            self.why(p, 1, &mut lines);
        }
        (with_loc(t, l.as_ref()), lines)
    }

    /// A requirement names another target than the cluster's.
    fn explain_target(&self, slot: usize, i: usize) -> Explanation {
        let (req, lines) = self.requirement_and_why(slot, i);
        self.explanation(
            format!(
                "{req}, but the cluster's target is `{}` ({})",
                self.setup.target,
                short_loc(self.setup.target_loc)
            ),
            lines,
        )
    }

    /// A requirement names a compiler the environment does not offer.
    fn explain_compiler(&self, slot: usize, i: usize) -> Explanation {
        let (req, lines) = self.requirement_and_why(slot, i);
        let offered: Vec<String> = std::iter::once(self.setup.compiler)
            .chain(&self.setup.others)
            .map(|c| c.to_string())
            .collect();
        let mut e = self.explanation(
            format!(
                "{req}, but the stack builds with `{}` ({})",
                offered.join("`, `"),
                short_loc(self.setup.compiler_loc)
            ),
            lines,
        );
        e.hint = Some(format!(
            "environment `{}` offers {}; list another in its `compiler: [{}, …]`",
            self.setup.name,
            offered.join(", "),
            offered[0]
        ));
        e
    }

    fn conflict_note(
        &self,
        slot: usize,
        text: &str,
        conflict: &crate::spec::SpecConflict,
    ) -> String {
        if let crate::spec::SpecConflict::Variant { variant, .. } = conflict {
            if let Some(d) = self.recipe(slot).and_then(|r| r.variant(variant)) {
                if matches!(d.kind, crate::recipes::VariantKind::Single { .. }) {
                    return format!("{text} (`{variant}` takes a single value)");
                }
            }
        }
        text.to_string()
    }

    fn explain_no_candidate(
        &self,
        slot: usize,
        wanted: &crate::spec::Spec,
        external_only: bool,
    ) -> Explanation {
        let name = &self.slots[slot].name;
        let policy = &self.slots[slot].policy;
        let mut lines = Vec::new();
        if policy.external_kind {
            self.requirements_block(slot, |r| r.presence, &mut lines);
            let recipe = self.recipe(slot).map(|r| r.build.loc.clone());
            let mut e = self.explanation(
                with_loc(
                    format!("`{name}` is external-only (its recipe has `build: {{system: external}}`) and the cluster lists no external for it that fits"),
                    recipe.as_ref(),
                ),
                lines,
            );
            e.hint = Some(format!(
                "declare it as an external in the cluster's packages.yaml (`{name}: {{externals: [{{spec: {name}@<version>, prefix: <path>}}]}}`)"
            ));
            return e;
        }
        if external_only || !policy.is_buildable() {
            // Where `buildable: false` was written.
            let loc = policy.buildable.map(|(_, l)| l.clone()).or_else(|| {
                self.reqs[slot].iter().find_map(|r| match &r.origin {
                    Origin::Provider { virt, .. } if r.external_only => {
                        self.slots[*virt].policy.buildable.map(|(_, l)| l.clone())
                    }
                    _ => None,
                })
            });
            self.requirements_block(slot, |r| r.presence, &mut lines);
            let mut e = self.explanation(
                with_loc(
                    format!("`{name}` may not be built (`buildable: false`) and no external is listed for it"),
                    loc.as_ref(),
                ),
                lines,
            );
            e.hint = Some(format!(
                "add `externals: [{{spec: {name}@<version>, prefix: <path>}}]` to its policy, or allow building it"
            ));
            return e;
        }
        let versions = wanted.versions.to_string();
        self.requirements_block(slot, |r| !r.spec.versions.is_any(), &mut lines);
        if lines.is_empty() {
            self.requirements_block(slot, |_| true, &mut lines);
        }
        let available: Vec<&str> = self
            .recipe(slot)
            .map(|r| {
                r.versions_newest_first()
                    .into_iter()
                    .map(|v| v.text.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let file = self
            .recipe(slot)
            .map(|r| format!(" in {}", crate::diag::display_path(&r.file)))
            .unwrap_or_default();
        let left_out = self
            .recipe(slot)
            .map(|r| untranslated_versions::untranslated_versions(r, &wanted.versions))
            .unwrap_or_default();
        for (v, why, line) in &left_out {
            lines.push(ExplainLine {
                indent: 0,
                text: format!(
                    "Spack's package lists `{name}@{v}` ({line}), but its translation left it out: {why}"
                ),
                loc: None,
            });
        }
        let mut e = self.explanation(
            format!(
                "no version of `{name}` satisfies `@{versions}` (available{file}: {})",
                available.join(", ")
            ),
            lines,
        );
        if !left_out.is_empty() {
            e.hint = Some(format!(
                "give `{name}` as an external in the cluster's packages.yaml, or put a recipe with a fetchable source of that version (a `file://` url to the downloaded archive, with its sha256) into a repository searched first"
            ));
        }
        e
    }
}

/// "`who` requires `spec` when `condition`": dependency `dep` in words.
pub(crate) fn requires(who: &str, dep: &crate::recipes::Dependency) -> String {
    let when = dep
        .when
        .as_ref()
        .map(|w| format!(" when `{}`", w.text))
        .unwrap_or_default();
    format!("`{who}` requires `{}`{when}", dep.spec.text)
}
