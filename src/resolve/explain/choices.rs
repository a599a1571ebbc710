//! What a successful resolution chose that the stack did not spell out:
//! the provider of each virtual and why, and variants that take the value
//! other than their default to avoid a conflict (`stack resolve
//! --explain`).

use super::super::error::short_loc;
use super::super::requirement::Origin;
use super::super::solve::{Decision, FlipReason, SlotKind, Solver};

impl Solver<'_> {
    /// One line per choice, in decision order: providers of virtuals, then
    /// flipped variants.
    pub(crate) fn choices(&self) -> Vec<String> {
        let mut providers = Vec::new();
        let mut flips = Vec::new();
        for (s, d) in self.decided.iter().enumerate() {
            match d {
                Some(Decision::Provider { slot: p }) => {
                    let reason = self.reqs[*p].iter().find_map(|r| match &r.origin {
                        Origin::Provider { virt, reason, .. } if *virt == s => Some(reason),
                        _ => None,
                    });
                    let Some(reason) = reason else { continue };
                    let (why, loc) = self.reason_text(reason, s);
                    let at = loc.map(|l| format!(" ({})", short_loc(&l)));
                    providers.push(format!(
                        "`{}` from `{}`, {why}{}",
                        self.slots[s].name,
                        self.slots[*p].name,
                        at.unwrap_or_default()
                    ));
                }
                Some(Decision::Node(c)) => {
                    for f in &c.flipped {
                        let why = match f.why {
                            FlipReason::Conflict(conflict) => {
                                let message = conflict
                                    .message
                                    .as_ref()
                                    .map(|m| format!(": {m}"))
                                    .unwrap_or_default();
                                let loc = short_loc(&conflict.loc);
                                format!("`{}` conflicts{message} ({loc})", conflict.when.text)
                            }
                            FlipReason::Dependency(dep) => {
                                let when = dep.when.as_ref().map(|w| w.text.as_str());
                                let missing = self.index.get(dep.name()).is_some_and(|t| {
                                    matches!(self.slots[*t].kind, SlotKind::Missing)
                                });
                                let problem = if missing {
                                    format!("no repository has a recipe for `{}`", dep.name())
                                } else {
                                    format!(
                                        "clashes with the other requirements on `{}`",
                                        dep.name()
                                    )
                                };
                                format!(
                                    "`{}` when `{}` {problem} ({})",
                                    dep.spec.text,
                                    when.unwrap_or_default(),
                                    short_loc(&dep.loc)
                                )
                            }
                        };
                        flips.push(format!(
                            "`{}` takes `{}`, not the default `{}`, as {why}",
                            c.label(),
                            f.value.to_spec_text(&f.variant),
                            f.from
                                .as_ref()
                                .map(|v| v.to_spec_text(&f.variant))
                                .unwrap_or_else(|| "(unset)".into()),
                        ));
                    }
                }
                None => {}
            }
        }
        providers.extend(flips);
        providers
    }
}
