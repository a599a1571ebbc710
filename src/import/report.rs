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
    /// The build logic is all in the recipe's YAML.
    pub hooks_complete: bool,
    /// The build logic runs from package.py at build time (`system: spack`).
    pub runs_package_py: bool,
    /// Untranslated constructs: (kind, construct).
    pub untranslated: Vec<(String, String)>,
    /// Why the package was not imported (no recipe written).
    pub error: Option<String>,
    /// Why no recipe was written, the package being what it is (a virtual
    /// placeholder, no version the stack can fetch).
    pub not_written: Option<String>,
    /// A virtual placeholder (`virtual = True`): no package at all.
    pub virtual_package: bool,
}

impl PackageOutcome {
    pub fn of(c: &Converted) -> Self {
        PackageOutcome {
            name: c.name.clone(),
            build_system: c.build_system.clone(),
            directives_complete: c.directives_complete(),
            hooks_complete: c.hooks_complete() && !c.runs_package_py(),
            runs_package_py: c.runs_package_py(),
            untranslated: c
                .untranslated
                .iter()
                .map(|u| (u.kind.name().to_string(), u.construct.clone()))
                .collect(),
            error: match &c.not_written {
                Some(super::spack::NotWritten::Unreadable(why)) => Some(why.clone()),
                _ => None,
            },
            not_written: c
                .not_written
                .as_ref()
                .filter(|n| !matches!(n, super::spack::NotWritten::Unreadable(_)))
                .map(|n| n.to_string()),
            virtual_package: c.not_written == Some(super::spack::NotWritten::Virtual),
        }
    }

    /// A package that could not be imported at all.
    pub fn failed(name: &str, why: String) -> Self {
        PackageOutcome {
            name: name.to_string(),
            build_system: String::new(),
            directives_complete: false,
            hooks_complete: false,
            runs_package_py: false,
            untranslated: Vec::new(),
            error: Some(why),
            not_written: None,
            virtual_package: false,
        }
    }

    /// `stack build` cannot build it: a `build` item is left (a resource,
    /// a patch file that was refused, an import that cannot be read).
    pub fn refused(&self) -> bool {
        self.error.is_some()
            || (self.not_written.is_some() && !self.virtual_package)
            || self
                .untranslated
                .iter()
                .any(|(k, _)| k == Kind::Build.name())
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
    /// Packages whose build logic runs from package.py at build time.
    pub runs_package_py: usize,
    /// Packages `stack build` refuses ([`PackageOutcome::refused`]).
    pub refused: usize,
    /// Packages not imported, with the reason.
    pub failed: Vec<(String, String)>,
    /// Packages with no recipe written, with the reason
    /// ([`PackageOutcome::not_written`]).
    pub not_written: Vec<(String, String)>,
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
            runs_package_py: outcomes.iter().filter(|o| o.runs_package_py).count(),
            refused: outcomes.iter().filter(|o| o.refused()).count(),
            failed: outcomes
                .iter()
                .filter_map(|o| Some((o.name.clone(), o.error.clone()?)))
                .collect(),
            not_written: outcomes
                .iter()
                .filter_map(|o| Some((o.name.clone(), o.not_written.clone()?)))
                .collect(),
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
        let _ = writeln!(
            md,
            "| build logic runs from package.py at build time | {} | {:.1}% |",
            self.runs_package_py,
            share(self.runs_package_py, self.packages)
        );
        let _ = writeln!(
            md,
            "| refused by `stack build` (a `build` item left, or not imported) | {} | {:.1}% |",
            self.refused,
            share(self.refused, self.packages)
        );
        let _ = writeln!(
            md,
            "| no recipe written (virtual placeholders, no fetchable version) | {} | |",
            self.not_written.len()
        );
        let _ = writeln!(md, "| wall time | | {:.2} s |\n", self.wall_seconds);
        if !self.failed.is_empty() {
            let _ = writeln!(md, "## Not imported\n\n| package | why |\n|---|---|");
            for (name, why) in &self.failed {
                let _ = writeln!(md, "| {name} | {} |", why.replace('|', "\\|"));
            }
            md.push('\n');
        }
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
