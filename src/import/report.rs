//! The coverage of an import: which packages translated completely, the
//! untranslated constructs counted by kind, the wall time; as Markdown for
//! people and as a JSON summary.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

use serde::Serialize;

use super::spack::{Converted, Kind};

/// The build systems whose hooks the coverage goal is about.
pub const HOOK_SYSTEMS: &[&str] = &["cmake", "autotools", "meson", "makefile", "python_pip"];

/// What one package's import produced, in short.
#[derive(Clone, Debug, Serialize)]
pub struct PackageOutcome {
    pub name: String,
    pub build_system: String,
    pub directives_complete: bool,
    pub hooks_complete: bool,
    /// Untranslated constructs: (kind, construct).
    pub untranslated: Vec<(String, String)>,
}

impl PackageOutcome {
    pub fn of(c: &Converted) -> Self {
        PackageOutcome {
            name: c.name.clone(),
            build_system: c.build_system.clone(),
            directives_complete: c.directives_complete(),
            hooks_complete: c.hooks_complete(),
            untranslated: c
                .untranslated
                .iter()
                .map(|u| (u.kind.name().to_string(), u.construct.clone()))
                .collect(),
        }
    }
}

/// Counts over all imported packages.
#[derive(Clone, Debug, Serialize)]
pub struct CoverageReport {
    pub commit: Option<String>,
    pub packages: usize,
    pub directives_complete: usize,
    /// Packages of [`HOOK_SYSTEMS`].
    pub hook_packages: usize,
    pub hooks_complete: usize,
    /// Per build system: (packages, hooks complete).
    pub by_system: BTreeMap<String, (usize, usize)>,
    /// The most frequent untranslated constructs: (kind, construct, packages).
    pub top_untranslated: Vec<(String, String, usize)>,
    pub wall_seconds: f64,
    #[serde(skip)]
    pub outcomes: Vec<PackageOutcome>,
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

impl CoverageReport {
    pub fn new(outcomes: Vec<PackageOutcome>, commit: Option<String>, wall: Duration) -> Self {
        let mut by_system: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
        for o in &outcomes {
            let e = by_system.entry(o.build_system.clone()).or_default();
            e.0 += 1;
            e.1 += usize::from(o.hooks_complete);
            let mut seen: Vec<&(String, String)> = o
                .untranslated
                .iter()
                .filter(|(k, _)| k != Kind::Info.name())
                .collect();
            seen.sort();
            seen.dedup();
            for u in seen {
                *counts.entry(u.clone()).or_default() += 1;
            }
        }
        let mut top: Vec<(String, String, usize)> =
            counts.into_iter().map(|((k, c), n)| (k, c, n)).collect();
        top.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
        top.truncate(20);
        let hook: Vec<&PackageOutcome> = outcomes
            .iter()
            .filter(|o| HOOK_SYSTEMS.contains(&o.build_system.as_str()))
            .collect();
        CoverageReport {
            commit,
            packages: outcomes.len(),
            directives_complete: outcomes.iter().filter(|o| o.directives_complete).count(),
            hook_packages: hook.len(),
            hooks_complete: hook.iter().filter(|o| o.hooks_complete).count(),
            by_system,
            top_untranslated: top,
            wall_seconds: wall.as_secs_f64(),
            outcomes,
        }
    }

    pub fn directives_share(&self) -> f64 {
        share(self.directives_complete, self.packages)
    }

    pub fn hooks_share(&self) -> f64 {
        share(self.hooks_complete, self.hook_packages)
    }

    /// The JSON summary.
    pub fn to_json(&self) -> String {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "directives_share".into(),
                serde_json::json!(round1(self.directives_share())),
            );
            o.insert(
                "hooks_share".into(),
                serde_json::json!(round1(self.hooks_share())),
            );
        }
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    /// The Markdown report.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# Spack import coverage\n");
        if let Some(c) = &self.commit {
            let _ = writeln!(md, "spack-packages commit: `{c}`\n");
        }
        let _ = writeln!(md, "| measure | packages | share |\n|---|---|---|");
        let _ = writeln!(md, "| imported | {} | |", self.packages);
        let _ = writeln!(
            md,
            "| directives translated losslessly | {} | {:.1}% |",
            self.directives_complete,
            self.directives_share()
        );
        let _ = writeln!(
            md,
            "| hooks translated completely (CMake, Autotools, Meson, Makefile, Python) | {} of {} | {:.1}% |",
            self.hooks_complete,
            self.hook_packages,
            self.hooks_share()
        );
        let _ = writeln!(md, "| wall time | | {:.2} s |\n", self.wall_seconds);
        let _ = writeln!(
            md,
            "## By build system\n\n| build system | packages | hooks complete | share |\n|---|---|---|---|"
        );
        for (sys, (n, ok)) in &self.by_system {
            let _ = writeln!(md, "| {sys} | {n} | {ok} | {:.1}% |", share(*ok, *n));
        }
        let _ = writeln!(
            md,
            "\n## Top untranslated constructs (packages with at least one)\n\n| kind | construct | packages |\n|---|---|---|"
        );
        for (k, c, n) in &self.top_untranslated {
            let _ = writeln!(md, "| {k} | {} | {n} |", c.replace('|', "\\|"));
        }
        md
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}
