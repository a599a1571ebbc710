//! Turning a failed decision into an [`Explanation`]: the requirements
//! that collide, in words, each with the `file:line` where it was written,
//! and for each the chain of requirements that brought its package in, down
//! to a root spec of the stack.

use std::collections::BTreeSet;

use crate::diag::Loc;
use crate::repo::VariantValueError;

use super::error::{ExplainLine, Explanation, short_loc};
use super::policy::PolicyLayer;
use super::requirement::{Origin, ProviderReason, Req};
use super::solve::{Decision, OpenFailure, Reject, SlotKind, Solver, with_name};
use super::variants::VariantProblem;

/// How deep "why is this package here" chains go.
const MAX_CHAIN: usize = 12;

fn layer_name(l: PolicyLayer) -> &'static str {
    match l {
        PolicyLayer::Cluster => "the cluster's",
        PolicyLayer::Stack => "the stack's",
    }
}

/// The candidate (`name@version`) a rejection is about.
fn reject_cand<'r>(r: &'r Reject<'_>) -> Option<&'r str> {
    match r {
        Reject::Variant { cand, .. }
        | Reject::Conflict { cand, .. }
        | Reject::Late { cand, .. } => Some(cand),
        Reject::External { .. } | Reject::ExternalVersion { .. } => None,
    }
}

fn with_loc(text: String, loc: Option<&Loc>) -> String {
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
            ProviderReason::First => {
                let names: Vec<&str> = match self.slots[virt].kind {
                    SlotKind::Virtual(p) => p.iter().map(|p| p.package.as_str()).collect(),
                    _ => Vec::new(),
                };
                (
                    format!("the first of its providers: {}", names.join(", ")),
                    None,
                )
            }
        }
    }

    /// What requirement `r` on slot `t` asks, in words, and where.
    pub(crate) fn phrase(&self, t: usize, r: &Req<'_>) -> (String, Option<Loc>) {
        let what = with_name(&r.spec, &self.slots[t].name);
        match &r.origin {
            Origin::Root(s) => (
                format!("the stack asks for `{}`", s.text),
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
            Origin::Dependency { parent, dep } => {
                let when = dep
                    .when
                    .as_ref()
                    .map(|w| format!(" when `{}`", w.text))
                    .unwrap_or_default();
                (
                    format!(
                        "`{}` requires `{}`{when}",
                        self.label(*parent),
                        dep.spec.text
                    ),
                    Some(dep.spec.loc.clone()),
                )
            }
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

    /// Why `slot` could not even get candidates.
    pub(crate) fn explain_open(&self, slot: usize, failure: &OpenFailure<'_>) -> Explanation {
        let name = &self.slots[slot].name;
        let reqs = &self.reqs[slot];
        let mut lines = Vec::new();
        match failure {
            OpenFailure::Missing => {
                self.requirements_block(slot, |r| r.presence, &mut lines);
                let mut e = self.explanation(format!("no package recipe defines `{name}`"), lines);
                e.hint = self
                    .setup
                    .repo
                    .suggest(name)
                    .map(|s| format!("did you mean `{s}`?"));
                e
            }
            OpenFailure::NoProvider => {
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
            OpenFailure::Clash(clash) => {
                let second = &reqs[clash.second];
                let (t2, l2) = self.phrase(slot, second);
                let conflict = clash.conflict.to_string();
                match clash.first {
                    Some(i) => {
                        let first = &reqs[i];
                        let (t1, l1) = self.phrase(slot, first);
                        let problem = format!(
                            "{}, but {}",
                            with_loc(t2, l2.as_ref()),
                            with_loc(t1, l1.as_ref())
                        );
                        lines.push(ExplainLine {
                            indent: 0,
                            text: self.conflict_note(slot, &conflict, &clash.conflict),
                            loc: None,
                        });
                        lines.push(ExplainLine {
                            indent: 0,
                            text: "where these requirements come from:".into(),
                            loc: None,
                        });
                        self.req_with_chain(slot, second, 1, &mut lines);
                        self.req_with_chain(slot, first, 1, &mut lines);
                        self.explanation(problem, lines)
                    }
                    None => {
                        lines.push(ExplainLine {
                            indent: 0,
                            text: "the requirements, in the order they were met:".into(),
                            loc: None,
                        });
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
            OpenFailure::Target(i) => {
                let (t, l) = self.phrase(slot, &reqs[*i]);
                if let Some(p) = reqs[*i].origin.decided_by() {
                    self.why(p, 1, &mut lines);
                }
                self.explanation(
                    format!(
                        "{}, but the cluster's target is `{}` ({})",
                        with_loc(t, l.as_ref()),
                        self.setup.target,
                        short_loc(self.setup.target_loc)
                    ),
                    lines,
                )
            }
            OpenFailure::Compiler(i) => {
                let (t, l) = self.phrase(slot, &reqs[*i]);
                if let Some(p) = reqs[*i].origin.decided_by() {
                    self.why(p, 1, &mut lines);
                }
                self.explanation(
                    format!(
                        "{}, but the stack builds with `{}` ({})",
                        with_loc(t, l.as_ref()),
                        self.setup.compiler,
                        short_loc(self.setup.compiler_loc)
                    ),
                    lines,
                )
            }
            OpenFailure::NoCandidate {
                wanted,
                unasked_branches,
                external_only,
            } => self.explain_no_candidate(slot, wanted, unasked_branches, *external_only),
        }
    }

    fn conflict_note(
        &self,
        slot: usize,
        text: &str,
        conflict: &crate::spec::SpecConflict,
    ) -> String {
        if let crate::spec::SpecConflict::Variant { variant, .. } = conflict {
            if let Some(d) = self.recipe(slot).and_then(|r| r.variant(variant)) {
                if matches!(d.kind, crate::repo::VariantKind::Single { .. }) {
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
        unasked: &[&crate::repo::VersionEntry],
        external_only: bool,
    ) -> Explanation {
        let name = &self.slots[slot].name;
        let policy = &self.slots[slot].policy;
        let mut lines = Vec::new();
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
        if !unasked.is_empty() {
            let names: Vec<&str> = unasked.iter().map(|e| e.text.as_str()).collect();
            let mut e = self.explanation(
                format!(
                    "only branch versions of `{name}` satisfy `@{versions}` ({}); branches are used only when asked for by name",
                    names.join(", ")
                ),
                lines,
            );
            e.hint = Some(format!("ask for it explicitly, e.g. `{name}@{}`", names[0]));
            return e;
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
        self.explanation(
            format!(
                "no version of `{name}` satisfies `@{versions}` (available: {})",
                available.join(", ")
            ),
            lines,
        )
    }

    fn reject_text(&self, slot: usize, r: &Reject<'_>) -> (String, Option<Loc>) {
        let name = &self.slots[slot].name;
        match r {
            Reject::Variant { cand, problem } => match problem {
                VariantProblem::Unknown { variant } => {
                    (format!("`{cand}` has no variant `{variant}`"), None)
                }
                VariantProblem::Inactive { variant, when } => (
                    format!(
                        "variant `{variant}` of `{cand}` exists only when `{}`, which does not hold",
                        when.text
                    ),
                    Some(when.loc.clone()),
                ),
                VariantProblem::BadValue {
                    variant,
                    value,
                    error,
                } => {
                    let why = match error {
                        VariantValueError::NotBool => "it is a boolean variant (`+x`/`~x`)".into(),
                        VariantValueError::NotValued => "it takes values (`x=value`)".into(),
                        VariantValueError::SingleValued => "it takes a single value".into(),
                        VariantValueError::NotAllowed(v) => format!("`{v}` is not allowed"),
                    };
                    (
                        format!("`{cand}` cannot have `{value}` for variant `{variant}`: {why}"),
                        None,
                    )
                }
            },
            Reject::Conflict { cand, conflict } => {
                let msg = conflict
                    .message
                    .as_ref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                (
                    format!("`{cand}` conflicts with `{}`{msg}", conflict.when.text),
                    Some(conflict.loc.clone()),
                )
            }
            Reject::External { external } => (
                format!(
                    "external `{}` at {} does not satisfy the requirements on `{name}`",
                    external.spec.text,
                    external.prefix.display()
                ),
                Some(external.spec.loc.clone()),
            ),
            Reject::ExternalVersion { external } => (
                format!("external `{}` names no exact version", external.spec.text),
                Some(external.spec.loc.clone()),
            ),
            Reject::Late { cand, slot, wanted } => (
                format!(
                    "`{cand}` needs `{wanted}`, but `{}` was already decided as `{}`",
                    self.slots[*slot].name,
                    self.describe(*slot)
                ),
                None,
            ),
        }
    }

    /// A conflict naming dependencies (`wrapper=mpich ^openmpi`) holds once
    /// they are decided.
    pub(crate) fn explain_deferred(
        &self,
        slot: usize,
        conflict: &crate::repo::Conflict,
        deps: &[usize],
    ) -> Explanation {
        let msg = conflict
            .message
            .as_ref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        let mut lines = Vec::new();
        lines.push(ExplainLine {
            indent: 0,
            text: format!("why `{}` is there:", self.label(slot)),
            loc: None,
        });
        self.why(slot, 1, &mut lines);
        for &d in deps {
            lines.push(ExplainLine {
                indent: 0,
                text: format!("why `{}` is there:", self.label(d)),
                loc: None,
            });
            self.why(d, 1, &mut lines);
        }
        let mut e = self.explanation(
            with_loc(
                format!(
                    "`{}` conflicts with `{}`{msg}",
                    self.label(slot),
                    conflict.when.text
                ),
                Some(&conflict.loc),
            ),
            lines,
        );
        e.hint = Some("change the variant, or the choice of the dependency (a provider can be required with `packages: <virtual>: {require: [...]}`)".into());
        e
    }

    /// Why no candidate of the level's slot could be used.
    pub(crate) fn explain_exhausted(&self, level: usize) -> Explanation {
        let lv = &self.levels[level];
        let slot = lv.slot;
        let name = &self.slots[slot].name;
        let mut lines = Vec::new();
        // Rejections that differ only in the version are shown once.
        let mut groups: Vec<(String, Option<Loc>, Vec<String>)> = Vec::new();
        for r in &lv.rejects {
            let (text, loc) = self.reject_text(slot, r);
            let (generic, version) = match reject_cand(r) {
                Some(cand) => (
                    text.replace(&format!("`{cand}`"), &format!("`{name}`")),
                    cand.split_once('@').map(|(_, v)| v.to_string()),
                ),
                None => (text, None),
            };
            match groups.iter_mut().find(|g| g.0 == generic && g.1 == loc) {
                Some(g) => g.2.extend(version),
                None => groups.push((generic, loc, version.into_iter().collect())),
            }
        }
        let show =
            |(text, loc, versions): &(String, Option<Loc>, Vec<String>)| -> (String, Option<Loc>) {
                match versions.as_slice() {
                    [] => (text.clone(), loc.clone()),
                    [v] => (
                        text.replacen(&format!("`{name}`"), &format!("`{name}@{v}`"), 1),
                        loc.clone(),
                    ),
                    vs => (format!("{text}; tried {}", vs.join(", ")), loc.clone()),
                }
            };
        let problem = match groups.as_slice() {
            [one] => {
                let (t, l) = show(one);
                with_loc(t, l.as_ref())
            }
            many => {
                for g in many.iter().take(6) {
                    let (text, loc) = show(g);
                    lines.push(ExplainLine {
                        indent: 1,
                        text,
                        loc,
                    });
                }
                if many.len() > 6 {
                    lines.push(ExplainLine {
                        indent: 1,
                        text: format!("… and {} more", many.len() - 6),
                        loc: None,
                    });
                }
                format!("no candidate for `{name}` works:")
            }
        };
        let policy = &self.slots[slot].policy;
        let external_only = self.reqs[slot].iter().any(|r| r.external_only);
        if !policy.is_buildable() || external_only {
            lines.push(ExplainLine {
                indent: 0,
                text: format!(
                    "`{name}` may not be built (`buildable: false`), only an external will do"
                ),
                loc: policy.buildable.map(|(_, l)| l.clone()),
            });
        }
        // The requirements that shaped the rejected configurations.
        let relevant = |r: &Req<'_>| -> bool {
            lv.rejects.iter().any(|rej| match rej {
                Reject::Variant { problem, .. } => {
                    let v = match problem {
                        VariantProblem::Unknown { variant }
                        | VariantProblem::Inactive { variant, .. }
                        | VariantProblem::BadValue { variant, .. } => variant,
                    };
                    r.spec.variants.contains_key(v) || r.presence
                }
                _ => true,
            })
        };
        self.requirements_block(slot, relevant, &mut lines);
        self.explanation(problem, lines)
    }
}
