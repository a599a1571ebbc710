//! Explaining candidates that were all rejected (versions, variants,
//! conflicts, externals) and conflicts that name dependencies.

use crate::diag::Loc;
use crate::recipes::VariantValueError;

use super::super::error::{ExplainLine, Explanation};
use super::super::requirement::Req;
use super::super::solve::{Reject, Solver};
use super::super::variants::VariantProblem;
use super::with_loc;

/// The candidate (`name@version`) a rejection is about.
fn reject_cand<'r>(r: &'r Reject<'_>) -> Option<&'r str> {
    match r {
        Reject::Variant { cand, .. }
        | Reject::Conflict { cand, .. }
        | Reject::Late { cand, .. }
        | Reject::Clash { cand, .. }
        | Reject::Missing { cand, .. } => Some(cand),
        Reject::External { .. } | Reject::ExternalVersion { .. } => None,
    }
}

impl Solver<'_> {
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
            Reject::Missing { cand, dep } => (
                format!(
                    "{}, but no package recipe defines `{}`",
                    super::requires(cand, dep),
                    dep.name()
                ),
                Some(dep.spec.loc.clone()),
            ),
            Reject::Late { cand, slot, wanted } => (
                format!(
                    "`{cand}` needs `{wanted}`, but `{}` was already decided as `{}`",
                    self.slots[*slot].name,
                    self.describe(*slot)
                ),
                None,
            ),
            Reject::Clash {
                asked,
                other: (other, loc),
                ..
            } => (
                format!(
                    "{asked}, but {}",
                    super::with_loc(other.clone(), loc.as_ref())
                ),
                None,
            ),
        }
    }

    /// The decided packages depend on each other in a cycle (`cycle`: each
    /// depends on the next, the last on the first).
    pub(crate) fn explain_cycle(&self, cycle: &[usize]) -> Explanation {
        let mut path: Vec<String> = cycle.iter().map(|&s| self.describe(s)).collect();
        path.push(self.describe(cycle[0]));
        let mut lines = Vec::new();
        lines.push(ExplainLine {
            indent: 0,
            text: format!("why `{}` is there:", self.label(cycle[0])),
            loc: None,
        });
        self.why(cycle[0], 1, &mut lines);
        let mut e = self.explanation(format!("dependency cycle: {}", path.join(" → ")), lines);
        e.hint = Some("a provider on the cycle can be chosen with `packages: <virtual>: {prefer: [...]}` or `require:`; a dependency needed only at run time is `type: run`".into());
        e
    }

    /// A conflict naming dependencies (`wrapper=mpich ^openmpi`) holds once
    /// they are decided.
    pub(crate) fn explain_deferred(
        &self,
        slot: usize,
        conflict: &crate::recipes::Conflict,
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
        if policy.external_kind {
            lines.push(ExplainLine {
                indent: 0,
                text: format!(
                    "`{name}` is external-only (`build: {{system: external}}`): declare it as an external in the cluster's packages.yaml"
                ),
                loc: None,
            });
        } else if !policy.is_buildable() || external_only {
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
                // refused for what they ask of other packages: what brought
                // the package in, and the versions asked of it
                Reject::Clash { .. } | Reject::Late { .. } | Reject::Missing { .. } => {
                    r.presence || !r.spec.versions.is_any()
                }
                _ => true,
            })
        };
        self.requirements_block(slot, relevant, &mut lines);
        let mut e = self.explanation(problem, lines);
        e.hint = lv.rejects.iter().find_map(|r| match r {
            Reject::Missing { dep, .. } => Some(self.missing_hint(dep.name(), dep.elsewhere, true)),
            _ => None,
        });
        e
    }
}
