//! `external`: a package that exists only as something the cluster already
//! has (Spack's packages whose `install` raises: cray-libsci, cray-mpich,
//! hcoll). Its versions name what the vendor ships (`source: none`); the
//! resolver uses a cluster external for it or fails, and a build of it is
//! refused here as a last guard.

use super::{BuildKind, JobSettings, PhaseError, Phases};

#[derive(Debug)]
pub(super) struct External;

impl BuildKind for External {
    fn name(&self) -> &'static str {
        "external"
    }
    fn external_only(&self) -> bool {
        true
    }
    fn estimated_seconds(&self) -> f64 {
        0.0
    }
    fn configure(&self, _s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        Err(format!(
            "an external-only package (`build: {{system: external}}`) is never built (prefix {}); \
             declare it as an external in the cluster's packages.yaml",
            cx.prefix()
        )
        .into())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn registered_and_external_only() {
        let k = super::super::get("external").expect("registered");
        assert!(k.external_only());
        assert!(!super::super::get("generic").unwrap().external_only());
        assert!(k.keys().is_empty() && k.tools().is_empty());
    }
}
