//! `stack resolve --explain`: per environment, what the solver chose that
//! the recipe does not spell out ([`PlanEnvironment::choices`]).
//!
//! [`PlanEnvironment::choices`]: super::super::model::PlanEnvironment::choices

use std::fmt::Write as _;

use super::super::model::Plan;

/// `choices in environment `x`:` and one indented line per choice.
pub fn render_choices(plan: &Plan) -> String {
    let mut out = String::new();
    for env in &plan.environments {
        let _ = writeln!(out, "\nchoices in environment `{}`:", env.name);
        if env.choices.is_empty() {
            out.push_str("  (nothing: no virtual to provide, no variant flipped)\n");
        }
        for c in &env.choices {
            let _ = writeln!(out, "  {c}");
        }
    }
    out
}
