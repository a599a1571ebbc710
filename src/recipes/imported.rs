//! The `imported:` block of a package recipe written by `stack import`:
//! where the recipe came from, what the importer could not translate, and
//! whether a human has reviewed it.

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Diagnostic, Loc};

const KEYS: &[&str] = &[
    "from",
    "file",
    "commit",
    "reviewed",
    "languages",
    "build_system",
    "build_systems",
    "list_url",
    "license",
    "maintainers",
    "kept",
    "untranslated",
];

const ITEM_KEYS: &[&str] = &["line", "kind", "construct", "detail"];

/// Kinds of untranslated constructs (see docs/import.md).
pub const KINDS: &[&str] = &["directive", "build", "info"];

/// Provenance and review state of an imported recipe.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Imported {
    /// The package manager (`spack`).
    pub from: String,
    /// The file the recipe was converted from, relative to its checkout.
    pub file: Option<String>,
    /// The commit of that checkout.
    pub commit: Option<String>,
    /// A human checked the recipe and fixed what was not translated.
    pub reviewed: bool,
    /// Languages the package needs from the stack's compiler (`c`, `cxx`,
    /// `fortran`), each always or under a condition.
    pub languages: Vec<Language>,
    pub untranslated: Vec<UntranslatedItem>,
    /// Location of the `imported:` key's value.
    pub loc: Loc,
}

/// A language of `imported.languages`: `cxx`, or `{language: cxx, when:
/// "@1.3.4:1.3.5"}` when Spack's `depends_on("cxx")` has a condition.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Language {
    pub name: String,
    pub when: Option<String>,
}

/// One construct the importer did not translate.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct UntranslatedItem {
    /// Line in the source file.
    pub line: u32,
    /// `directive`, `build` or `info`.
    pub kind: String,
    pub construct: String,
    pub detail: Option<String>,
}

impl Imported {
    /// Untranslated build logic: what `stack build` refuses until reviewed.
    pub fn untranslated_build(&self) -> impl Iterator<Item = &UntranslatedItem> {
        self.untranslated.iter().filter(|u| u.kind == "build")
    }

    /// Whether building this recipe must wait for a review. A recipe that
    /// runs its build logic at build time (`system: spack`) has `build`
    /// items only for what running package.py does not settle (the
    /// importer records the methods that run as `info`).
    pub fn needs_review(&self) -> bool {
        !self.reviewed && self.untranslated_build().next().is_some()
    }
}

/// Read the block; warns when build logic awaits review.
pub(super) fn imported(cx: &mut Cx, node: &Node, package: &str) -> Option<Imported> {
    let m = cx.map(node, "the `imported` block", KEYS)?;
    let what = "the `imported` block";
    let from = cx
        .required(&m, "from", what)
        .and_then(|n| cx.nonempty_string(n, "`from`"))
        .map(|s| s.value)
        .unwrap_or_default();
    let text = |cx: &mut Cx, key: &str| {
        m.get(key)
            .and_then(|n| cx.string(n, &format!("`{key}`")))
            .map(|s| s.value)
    };
    let file = text(cx, "file");
    let commit = text(cx, "commit");
    let reviewed = m
        .get("reviewed")
        .and_then(|n| cx.bool(n, "`reviewed`"))
        .unwrap_or(false);
    let languages = m
        .get("languages")
        .and_then(|n| cx.seq(n, "`languages`"))
        .unwrap_or_default()
        .iter()
        .filter_map(|n| language(cx, n))
        .collect();
    let mut untranslated = Vec::new();
    if let Some(items) = m
        .get("untranslated")
        .and_then(|n| cx.seq(n, "`untranslated`"))
    {
        for item in items {
            if let Some(u) = untranslated_item(cx, item) {
                untranslated.push(u);
            }
        }
    }
    let block = Imported {
        from,
        file,
        commit,
        reviewed,
        languages,
        untranslated,
        loc: m.loc.clone(),
    };
    warn_unreviewed(cx, &block, package);
    Some(block)
}

fn language(cx: &mut Cx, node: &Node) -> Option<Language> {
    if !matches!(node, Node::Mapping(_)) {
        let name = cx.string(node, "a language")?.value;
        return Some(Language { name, when: None });
    }
    let what = "a conditional language";
    let m = cx.map(node, what, &["language", "when"])?;
    let name = cx
        .required(&m, "language", what)
        .and_then(|n| cx.string(n, "`language`"))?
        .value;
    let when = cx
        .required(&m, "when", what)
        .and_then(|n| cx.string(n, "`when`"))?
        .value;
    Some(Language {
        name,
        when: Some(when),
    })
}

fn untranslated_item(cx: &mut Cx, node: &Node) -> Option<UntranslatedItem> {
    let m = cx.map(node, "an untranslated construct", ITEM_KEYS)?;
    let what = "an untranslated construct";
    let line = cx
        .required(&m, "line", what)
        .and_then(|n| cx.u32(n, "`line`"))?;
    let kind_node = cx.required(&m, "kind", what)?;
    let kind = cx.string(kind_node, "`kind`")?;
    if !KINDS.contains(&kind.value.as_str()) {
        cx.error(
            Code::InvalidValue,
            &kind.loc,
            format!("unknown kind `{}`", kind.value),
            "expected directive, build or info",
            None,
        );
    }
    let construct = cx
        .required(&m, "construct", what)
        .and_then(|n| cx.string(n, "`construct`"))?
        .value;
    let detail = m
        .get("detail")
        .and_then(|n| cx.string(n, "`detail`"))
        .map(|s| s.value);
    Some(UntranslatedItem {
        line,
        kind: kind.value,
        construct,
        detail,
    })
}

fn warn_unreviewed(cx: &mut Cx, block: &Imported, package: &str) {
    if !block.needs_review() {
        return;
    }
    let build: Vec<String> = block
        .untranslated_build()
        .map(|u| format!("line {}: {}", u.line, u.construct))
        .collect();
    let source = block.file.as_deref().unwrap_or("the source");
    cx.push(
        Diagnostic::warning(
            Code::Unreviewed,
            format!(
                "imported recipe `{package}` has {} untranslated build construct(s) in {source}: {}",
                build.len(),
                build.join("; ")
            ),
        )
        .at(&block.loc, "not reviewed")
        .with_help(
            "translate them into the recipe (or check that they are not needed), then set \
             `imported.reviewed: true`; `stack build` refuses the recipe until then",
        )
        .about(package),
    );
}

#[cfg(test)]
mod tests {
    /// `imported.languages` holds names and `{language, when}` entries (a
    /// Spack `depends_on("cxx", when=…)`), read and written back as they are.
    #[test]
    fn conditional_languages_load_and_write_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("p.yaml");
        let text = "name: p\ndescription: x\nversions: [{version: \"1\", git: \"https://x/y.git\", tag: v1}]\n\
                    build: {system: generic}\nimported:\n  from: spack\n  languages:\n    - c\n    \
                    - {language: cxx, when: \"@1.3.4:1.3.5\"}\n";
        fs_err::write(&path, text).unwrap();
        let (recipe, diags) = crate::recipes::load_package(&path, tmp.path());
        assert!(!diags.has_errors(), "{diags:?}");
        let langs = recipe.unwrap().imported.unwrap().languages;
        assert_eq!(langs.len(), 2);
        assert_eq!(langs[0].name, "c");
        assert_eq!(langs[0].when, None);
        assert_eq!(langs[1].name, "cxx");
        assert_eq!(langs[1].when.as_deref(), Some("@1.3.4:1.3.5"));
        fs_err::write(&path, text.replace("language: cxx", "lang: cxx")).unwrap();
        let (_, diags) = crate::recipes::load_package(&path, tmp.path());
        assert!(diags.has_errors());
    }
}
