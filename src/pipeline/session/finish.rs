//! The steps after a successful build: `up_to_date` (prune, compare the
//! image fingerprint), `views`, the post-install `hooks`, `audit` and
//! `image`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::image;
use crate::resolve::Plan;
use crate::store;
use crate::view;

use super::super::{BuildOutcome, PipelineError, Stage, audit, partial, prune, sources, views};
use super::{Session, hook_context};

impl Session<'_> {
    /// Remove what plans other than `keep` left in the store and the build
    /// directory; true when nothing was rebuilt or removed and the image was
    /// made from the same inputs.
    pub(super) fn up_to_date(
        &mut self,
        outcome: &BuildOutcome,
        keep: &Plan,
        fingerprint: &str,
    ) -> Result<bool, PipelineError> {
        // In a shared (direct-mode) store, touch only what this build installed.
        self.owned = store::Owned::for_store(&self.build_dir, &outcome.store_dir)?;
        if let Some(o) = self.owned.as_mut() {
            let plan = keep;
            let prefixes: Vec<PathBuf> = plan
                .topo_order()
                .into_iter()
                .filter(|i| !plan.node(*i).is_external())
                .map(|i| prune::host_path(plan, &outcome.store_dir, &plan.node(i).prefix))
                .collect();
            o.add_prefixes(prefixes.iter().map(PathBuf::as_path));
            o.save()?;
        }
        let pruned = prune::prune_store(keep, &outcome.store_dir, self.owned.as_ref())?;
        if let Some(o) = self.owned.as_mut() {
            o.remove(&pruned);
            o.save()?;
        }
        for p in &pruned {
            tracing::info!("removed {} (not in this plan)", p.display());
        }
        for p in sources::prune_sources(keep, &self.build_dir)? {
            tracing::info!("removed source tree {} (not in this plan)", p.display());
        }
        let built_any = outcome.summary.built().next().is_some();
        let recorded = fs_err::read_to_string(fingerprint_file(outcome)).ok();
        Ok(!built_any
            && pruned.is_empty()
            && outcome.image_path.exists()
            && recorded.as_deref() == Some(fingerprint))
    }

    /// Views, modules and `meta/` in the store; the provenance of the build.
    pub(super) fn views(
        &mut self,
        outcome: &BuildOutcome,
    ) -> Result<view::Provenance, PipelineError> {
        self.step(Stage::Views, "views, modules, meta", |s| {
            let req = s.req;
            let recipe = &req.inputs.recipe;
            let contents =
                views::store_contents(&outcome.plan, outcome.store_dir.clone(), req.jobs)?;
            let specs = views::view_specs(recipe, &outcome.plan);
            let modules = views::modules_spec(recipe, &outcome.plan);
            let provenance = view::Provenance::collect(
                &req.inputs.cluster.name.value,
                &outcome.plan.mount,
                req.args.clone(),
            );
            let meta = view::MetaInfo {
                name: recipe.name.value.clone(),
                description: recipe.description.clone(),
                default_view: recipe.default_view.as_ref().map(|v| v.value.clone()),
                recipe_files: sources::recipe_files(&outcome.plan, &req.inputs),
                lockfile: Some(s.lock_copy()),
                provenance: Some(provenance.for_image()),
                extra_dir: recipe.extra.as_ref().map(|e| e.path.clone()),
                // Added by the audit step, which runs last.
                audit_report: None,
            };
            if let Some(o) = &s.owned {
                o.check_generated()?;
            }
            // A build or hook may have left a link at meta/: never write through it.
            let store_meta =
                store::Beneath::open(&outcome.store_dir)?.ensure_real_dir(Path::new("meta"))?;
            view::generate(&contents, &specs, modules.as_ref(), &meta, &store_meta)?;
            if !outcome.left_out.is_empty() {
                partial::write(&store_meta, &outcome.left_out, &s.build_dir)?;
            }
            if let Some(o) = s.owned.as_mut() {
                o.record_generated()?;
                o.save()?;
            }
            Ok(provenance)
        })
    }

    /// Like stackinator's post-install: after everything is built and the
    /// views exist, before the audit and the image; it sees the store at the
    /// mount point (and its host directory as `env.store`).
    pub(super) fn hooks(
        &mut self,
        outcome: &BuildOutcome,
        hook_ns: Option<Arc<crate::sandbox::Namespace>>,
    ) -> Result<(), PipelineError> {
        if let Some(script) = &self.req.inputs.recipe.post_install {
            let ctx = hook_context(
                self.req,
                &self.build_dir,
                &outcome.plan.mount,
                &outcome.store_dir,
                hook_ns,
                view::HookKind::PostInstall,
            );
            self.step(Stage::Hooks, "post-install", |_| {
                view::run_hook(&script.path, &ctx, &[])?;
                Ok(())
            })?;
        }
        // What the store holds besides prefixes and generated directories
        // (what the hook added) is recorded now: anything else found
        // before packing is refused (`stack verify`).
        crate::verify::record_outside(&outcome.store_dir)?;
        Ok(())
    }

    /// Audit the store as it will be packed; the report goes beside the
    /// build and into `meta/audit/` of the store.
    pub(super) fn audit(
        &mut self,
        outcome: &BuildOutcome,
    ) -> Result<crate::audit::AuditReport, PipelineError> {
        self.step(Stage::Audit, "linkage of every ELF file", |s| {
            // The installed sizes, for the build report (no times: they
            // follow from the inputs).
            let store_meta = outcome.store_dir.join("meta");
            super::super::report::write_sizes(&outcome.plan, &outcome.store_dir, &store_meta)?;
            let report = audit::audit_store(&outcome.plan, &outcome.store_dir, &s.req.inputs)?;
            s.log.audited();
            let json = report.to_json();
            store::atomic::write_atomic(&outcome.audit_path, json.as_bytes())?;
            let in_store = outcome.store_dir.join("meta/audit");
            fs_err::create_dir_all(&in_store)?;
            store::atomic::write_atomic(&in_store.join("audit.json"), json.as_bytes())?;
            Ok(report)
        })
    }

    pub(super) fn image(
        &mut self,
        outcome: &BuildOutcome,
        provenance: &view::Provenance,
        fingerprint: &str,
    ) -> Result<image::ImageInfo, PipelineError> {
        let detail = outcome.image_path.display().to_string();
        self.step(Stage::Image, &detail, |s| {
            // Never pack a prefix whose files differ from its own manifest.
            crate::verify::check_store(&outcome.store_dir)?;
            let info = image::pack(&outcome.store_dir, &outcome.image_path, &s.req.image)?;
            // The same copy `stack image` makes (meta_dir is <build>/meta).
            image::export_meta(&outcome.store_dir, &s.build_dir)?;
            let mut record =
                serde_json::to_string_pretty(provenance).map_err(std::io::Error::other)?;
            record.push('\n');
            store::atomic::write_atomic(
                &outcome.meta_dir.join(view::BUILD_RECORD),
                record.as_bytes(),
            )?;
            store::atomic::write_atomic(&fingerprint_file(outcome), fingerprint.as_bytes())?;
            Ok(info)
        })
    }
}

fn fingerprint_file(outcome: &BuildOutcome) -> PathBuf {
    outcome.meta_dir.join(".stack-fingerprint")
}
