//! Imported recipes (`stack import spack`) whose untranslated build logic
//! nobody reviewed are refused before anything is fetched or built (a
//! preflight failure). A recipe that runs its build logic at build time
//! (`system: spack`) is refused only for what running its package.py does
//! not settle: the importer records the methods that run as `info` items,
//! and keeps as `build` items what is still missing (an untranslated
//! resource, a dependency's patches, an imported package.py no repository
//! has).

use crate::resolve::Plan;
use crate::stacks::Inputs;

use super::PipelineError;

/// Refuse imported recipes whose untranslated build logic was not reviewed.
pub fn check_reviewed(plan: &Plan, inputs: &Inputs) -> Result<(), PipelineError> {
    let mut items = Vec::new();
    for idx in plan.topo_order() {
        let node = plan.node(idx);
        if node.is_external() {
            continue;
        }
        let Some(recipe) = inputs.repo.get(&node.name) else {
            continue;
        };
        if let Some(imp) = recipe.imported.as_ref().filter(|i| i.needs_review()) {
            let constructs = imp
                .untranslated_build()
                .map(|u| format!("line {}: {}", u.line, u.construct))
                .collect();
            items.push((node.name.clone(), recipe.file.clone(), constructs));
        }
    }
    if items.is_empty() {
        Ok(())
    } else {
        Err(PipelineError::Unreviewed(items))
    }
}
