//! The differential check (#34): an imported recipe compared with the
//! directives its package.py records when the class body really runs —
//! the record of `directives.py` in the Python package API layer
//! (`src/build_logic/python/`, which implements Spack's directives and its
//! URL rules from their documented behaviour). Versions and checksums,
//! version URLs, variants, dependencies with their types and conditions,
//! conflicts, provides, patches and the build system: every difference is
//! either flagged in the recipe's `imported.untranslated` (or the package
//! is reported as not written) — or it is *silent*, a defect.
//!
//! Running package code is for the tests and the whole-repository script
//! (`scripts/import-differential.sh`) only: `stack check`/`resolve` never
//! run it.

mod fields;
mod flagged_lines;
mod normal;
mod oracle;
mod recipe_view;
mod run;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

pub use oracle::{OracleError, records};
pub use run::{PackageCheck, check, compare_all, package_files, package_names, sample};

use super::spack::Converted;

/// What kind of directive a difference is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Version,
    Checksum,
    Url,
    Variant,
    Dependency,
    Conflict,
    Provides,
    Patch,
    BuildSystem,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Version,
        Field::Checksum,
        Field::Url,
        Field::Variant,
        Field::Dependency,
        Field::Conflict,
        Field::Provides,
        Field::Patch,
        Field::BuildSystem,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Version => "versions",
            Field::Checksum => "checksums",
            Field::Url => "urls",
            Field::Variant => "variants",
            Field::Dependency => "dependencies",
            Field::Conflict => "conflicts",
            Field::Provides => "provides",
            Field::Patch => "patches",
            Field::BuildSystem => "build system",
        }
    }
}

/// How a difference stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// The recipe says it: an `imported.untranslated` item names it, or the
    /// package is reported as not written.
    Flagged,
    /// A documented decision of the importer (docs/import.md): Spack's
    /// `gmake` and `gnuconfig` build dependencies (the stack builds with
    /// the host's make and its own `config.guess`), conflicts on platforms
    /// other than Linux.
    ByDesign,
    /// Nothing says it: a defect.
    Silent,
}

/// One directive whose translation differs from what package.py records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub field: Field,
    /// The version, variant, dependency… it is about.
    pub item: String,
    /// Spack's side and ours, in words.
    pub spack: String,
    pub ours: String,
    pub standing: Standing,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: spack `{}`, recipe `{}` ({:?})",
            self.field.name(),
            self.item,
            self.spack,
            self.ours,
            self.standing
        )
    }
}

/// The differences between `ours` and the oracle's record of the same
/// package (one architecture's reading: x86_64), read from `file`. A record
/// that is an error (the class body raised) compares nothing.
pub fn compare(ours: &Converted, record: &serde_json::Value, file: &Path) -> Vec<Difference> {
    if record.get("error").is_some() {
        return Vec::new();
    }
    let view = recipe_view::RecipeView::of(ours);
    let mut out = Vec::new();
    fields::versions(&view, record, &mut out);
    fields::variants(&view, record, &mut out);
    fields::dependencies(&view, record, &mut out);
    fields::conflicts(&view, record, &mut out);
    fields::provides(&view, record, &mut out);
    fields::patches(&view, record, &mut out);
    fields::build_system(&view, record, &mut out);
    flag_by_line(&view, record, file, &mut out);
    if ours.not_written.is_some() {
        for d in &mut out {
            d.standing = d.standing.min(Standing::Flagged);
        }
    }
    out
}

/// A silent difference whose directive call (in `file`) is inside what an
/// untranslated item flags (a class-level loop over values the importer
/// could not read) is flagged.
fn flag_by_line(
    view: &recipe_view::RecipeView,
    record: &serde_json::Value,
    file: &Path,
    out: &mut [Difference],
) {
    if !out.iter().any(|d| d.standing == Standing::Silent) || view.untranslated_lines.is_empty() {
        return;
    }
    let Ok(text) = fs_err::read_to_string(file) else {
        return;
    };
    let covered = flagged_lines::covered(&text, &view.untranslated_lines);
    let file = file.to_string_lossy();
    let calls: Vec<&serde_json::Value> = record["calls"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter(|c| c["file"].as_str() == Some(&*file))
                .filter(|c| {
                    // The directive's statement (its lines), or the
                    // class-body statement that led to it (a helper
                    // function's call).
                    ["line", "body_line"].iter().any(|k| {
                        c[*k].as_u64().is_some_and(|l| {
                            let l = l as usize;
                            (l..=flagged_lines::statement_end(&text, l))
                                .any(|x| covered.contains(&x))
                        })
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    for d in out.iter_mut().filter(|d| d.standing == Standing::Silent) {
        let directives: &[&str] = match d.field {
            Field::Version | Field::Checksum | Field::Url => &["version"],
            Field::Variant => &["variant"],
            Field::Dependency => &["depends_on", "extends"],
            Field::Conflict => &["conflicts"],
            Field::Provides => &["provides"],
            Field::Patch => &["patch"],
            Field::BuildSystem => &["build_system"],
        };
        let about = |arg: &str| {
            let arg = arg.trim();
            arg == d.item
                || arg
                    .split(|c: char| c.is_whitespace() || "@+~%^=".contains(c))
                    .next()
                    == Some(d.item.as_str())
        };
        if calls.iter().any(|c| {
            c["directive"]
                .as_str()
                .is_some_and(|n| directives.contains(&n))
                && c["args"][0].as_str().is_some_and(about)
        }) {
            d.standing = Standing::Flagged;
        }
    }
}

/// Counts per field and standing over many packages.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Packages compared, and those whose record was an error.
    pub packages: usize,
    pub oracle_errors: usize,
    /// (field, standing) → differences.
    pub by_field: BTreeMap<(Field, Standing), usize>,
    /// Packages with at least one silent difference.
    pub silent_packages: usize,
}

impl Counts {
    pub fn add(&mut self, diffs: &[Difference], oracle_error: bool) {
        self.packages += 1;
        self.oracle_errors += usize::from(oracle_error);
        for d in diffs {
            *self.by_field.entry((d.field, d.standing)).or_default() += 1;
        }
        self.silent_packages += usize::from(diffs.iter().any(|d| d.standing == Standing::Silent));
    }

    pub fn total(&self, standing: Standing) -> usize {
        self.by_field
            .iter()
            .filter(|((_, s), _)| *s == standing)
            .map(|(_, n)| n)
            .sum()
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "packages {} (oracle errors {}), silent differences {} in {} packages, flagged {}, by design {}",
            self.packages,
            self.oracle_errors,
            self.total(Standing::Silent),
            self.silent_packages,
            self.total(Standing::Flagged),
            self.total(Standing::ByDesign)
        )?;
        for field in Field::ALL {
            let n = |s| self.by_field.get(&(field, s)).copied().unwrap_or(0);
            writeln!(
                f,
                "  {:<13} silent {:>5}  flagged {:>5}  by design {:>5}",
                field.name(),
                n(Standing::Silent),
                n(Standing::Flagged),
                n(Standing::ByDesign)
            )?;
        }
        Ok(())
    }
}
