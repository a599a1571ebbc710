//! `stack checksum`: fetch a recipe's sources and give the lines to paste
//! into it (sha256 of archives, commits of git tags and branches). A
//! version the recipe does not list gets the URL of its newest archive
//! version with the version text replaced (as Spack extrapolates).

use crate::recipes::{self, PackageRecipe, Resource};

use super::{FetchError, FetchOptions, FetchReporter, GitRef, Source, SourceRequest};

/// What the recipe says about a version, compared with what was fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Not in the recipe (the URL was extrapolated).
    New,
    /// The recipe has the same sha256 or commit.
    Matches,
    /// The recipe has another value (or none).
    Differs(Option<String>),
}

/// One version's recipe line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumLine {
    pub version: String,
    /// The URL or git repository as written (or extrapolated).
    pub url: String,
    pub kind: LineKind,
    pub recorded: Recorded,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    Archive { sha256: String },
    Git { reference: GitRef, commit: String },
}

impl ChecksumLine {
    /// The `versions:` entry, as YAML flow mapping.
    pub fn yaml(&self) -> String {
        match &self.kind {
            LineKind::Archive { sha256 } => format!(
                "- {{version: \"{}\", url: \"{}\", sha256: {sha256}}}",
                self.version, self.url
            ),
            LineKind::Git { reference, commit } => {
                let r = match reference {
                    GitRef::Tag(t) => format!("tag: \"{t}\", "),
                    GitRef::Branch(b) => format!("branch: \"{b}\", "),
                    GitRef::Commit(_) => String::new(),
                };
                format!(
                    "- {{version: \"{}\", git: \"{}\", {r}commit: {commit}}}",
                    self.version, self.url
                )
            }
        }
    }
}

/// Why `stack checksum` cannot do a version.
#[derive(Debug, thiserror::Error)]
pub enum ChecksumError {
    #[error(
        "`{package}` has no version `{version}` and no archive URL to derive one from ({file})"
    )]
    NoUrl {
        package: String,
        version: String,
        file: String,
    },
    #[error(transparent)]
    Fetch(#[from] Box<FetchError>),
}

/// The recipe lines for `versions` of `recipe` (all its versions when
/// empty), fetching every archive into the cache without a known digest.
/// Every version is tried: one that cannot be fetched is an `Err` in its
/// place, and the next version is tried all the same.
pub fn checksum(
    recipe: &PackageRecipe,
    versions: &[String],
    options: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Vec<Result<ChecksumLine, (String, ChecksumError)>> {
    let wanted: Vec<String> = if versions.is_empty() {
        recipe.versions.iter().map(|v| v.text.clone()).collect()
    } else {
        versions.to_vec()
    };
    let mut opts = options.clone();
    opts.allow_unverified = true;
    opts.computing_digests = true;
    wanted
        .into_iter()
        .filter_map(|version| match one(recipe, &version, &opts, reporter) {
            Ok(line) => line.map(Ok),
            Err(e) => Some(Err((version, e))),
        })
        .collect()
}

/// The line of one version; `None` for a version without a source.
fn one(
    recipe: &PackageRecipe,
    version: &str,
    opts: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Result<Option<ChecksumLine>, ChecksumError> {
    let entry = recipe.versions.iter().find(|v| v.text == version);
    let (url, source, recorded_value) = match entry.map(|e| &e.source) {
        Some(recipes::Source::Archive(a)) => (
            a.url_text.clone(),
            archive(&a.url, a.expand),
            a.sha256.clone(),
        ),
        Some(recipes::Source::Git(g)) => {
            let reference = git_ref(&g.reference);
            let commit =
                super::resolve_git_ref(&url_of(&g.repo), &reference, opts).map_err(Box::new)?;
            let recorded = match &g.commit {
                Some(c) if *c == commit => Recorded::Matches,
                other => Recorded::Differs(other.clone()),
            };
            return Ok(Some(ChecksumLine {
                version: version.to_string(),
                url: g.repo_text.clone(),
                kind: LineKind::Git { reference, commit },
                recorded,
            }));
        }
        // Nothing to fetch, nothing to checksum.
        Some(recipes::Source::None) => return Ok(None),
        None => {
            let (text, resource) =
                extrapolate(recipe, version).ok_or_else(|| ChecksumError::NoUrl {
                    package: recipe.name.clone(),
                    version: version.to_string(),
                    file: crate::diag::display_path(&recipe.file),
                })?;
            (text, archive(&resource, true), None)
        }
    };
    let req = SourceRequest {
        mirror_name: None,
        package: recipe.name.clone(),
        version: version.to_string(),
        source,
    };
    let fetched = super::fetch_all(std::slice::from_ref(&req), opts, reporter).map_err(Box::new)?;
    let sha256 = fetched[0]
        .sha256()
        .map(ToString::to_string)
        .unwrap_or_default();
    let recorded = match (entry, recorded_value) {
        (None, _) => Recorded::New,
        (Some(_), Some(r)) if r == sha256 => Recorded::Matches,
        (Some(_), r) => Recorded::Differs(r),
    };
    Ok(Some(ChecksumLine {
        version: version.to_string(),
        url,
        kind: LineKind::Archive { sha256 },
        recorded,
    }))
}

fn archive(url: &Resource, expand: bool) -> Source {
    Source::Archive {
        url: url_of(url),
        sha256: None,
        expand,
        max_size: None,
    }
}

fn url_of(r: &Resource) -> String {
    match r {
        Resource::Remote(u) => u.clone(),
        Resource::Local(p) => p.display().to_string(),
    }
}

fn git_ref(r: &recipes::GitRef) -> GitRef {
    match r {
        recipes::GitRef::Tag(t) => GitRef::Tag(t.clone()),
        recipes::GitRef::Branch(b) => GitRef::Branch(b.clone()),
        recipes::GitRef::Commit(c) => GitRef::Commit(c.clone()),
    }
}

/// The URL of the newest archive version whose URL contains its version
/// text, with that text replaced by `version`.
fn extrapolate(recipe: &PackageRecipe, version: &str) -> Option<(String, Resource)> {
    let dir = recipe.file.parent()?;
    recipe.versions_newest_first().into_iter().find_map(|v| {
        let recipes::Source::Archive(a) = &v.source else {
            return None;
        };
        a.url_text.contains(&v.text).then(|| {
            let text = a.url_text.replace(&v.text, version);
            let resource = Resource::parse(&text, dir);
            (text, resource)
        })
    })
}
