//! The recipes of one repository directory as a [`super::PackageRepo`]
//! holds them: their names, sorted, and one entry per recipe, made when the
//! recipe is first asked for. Loading a repository through an index (see
//! [`super::index`]) therefore costs the same whether it holds a hundred
//! recipes or thousands: their names are one text, searched by bisection.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::diag::{Diagnostics, SourceFile};

use super::PackageRecipe;
use super::index::RepoIndex;
use super::parsed_cache::ParsedCache;
use super::{overlay, parse_package};

/// Sorted, distinct names held as one text (one allocation however many
/// there are), found by bisection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// The names, each followed by one `\n`.
    text: String,
    /// Where each name starts in `text`, and `text`'s length.
    starts: Vec<u32>,
}

impl Names {
    /// The lines of `text` (each ended by `\n`, the last one possibly not),
    /// when they are sorted and distinct (`None` otherwise).
    pub fn from_lines(text: &str) -> Option<Names> {
        let mut names = Names {
            text: String::with_capacity(text.len() + 1),
            starts: vec![0],
        };
        names.text.push_str(text);
        if !names.text.is_empty() && !names.text.ends_with('\n') {
            names.text.push('\n');
        }
        u32::try_from(names.text.len()).ok()?;
        // Where each line starts, and that it sorts after the one before.
        let bytes = names.text.as_bytes();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            let name = &bytes[start..end];
            let prev = names
                .starts
                .len()
                .checked_sub(2)
                .map(|i| names.starts[i] as usize);
            if prev.is_some_and(|p| &bytes[p..start - 1] >= name) {
                return None;
            }
            start = end + 1;
            names.starts.push(start as u32);
        }
        Some(names)
    }

    /// `names`, sorted (the first of equal names kept).
    pub fn from_unsorted(names: impl IntoIterator<Item = String>) -> Names {
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        names.dedup();
        let mut out = Names {
            text: String::with_capacity(names.iter().map(|n| n.len() + 1).sum()),
            starts: Vec::with_capacity(names.len() + 1),
        };
        out.starts.push(0);
        for n in &names {
            out.text.push_str(n);
            out.text.push('\n');
            out.starts.push(out.text.len() as u32);
        }
        out
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th name.
    pub fn get(&self, i: usize) -> &str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize - 1]
    }

    /// The position of `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// One `<name>.yaml` of a repository directory, parsed on first use.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub file: PathBuf,
    /// The file's text, or why it could not be read (read at load, or on
    /// first use for a recipe of an indexed repository).
    pub source: OnceLock<Result<SourceFile, String>>,
    /// Whether the text is an overlay (read on first use).
    overlay: OnceLock<bool>,
    pub parsed: OnceLock<Parsed>,
}

/// The outcome of parsing one recipe file.
#[derive(Clone, Debug)]
pub(super) struct Parsed {
    pub recipe: Option<Arc<PackageRecipe>>,
    pub diagnostics: Diagnostics,
}

impl Entry {
    /// A recipe whose text is read now.
    pub fn read(file: PathBuf) -> Entry {
        let source = SourceFile::read(&file).map_err(|e| e.to_string());
        Entry {
            file,
            source: OnceLock::from(source),
            overlay: OnceLock::new(),
            parsed: OnceLock::new(),
        }
    }

    /// A recipe whose text is read on first use.
    fn unread(file: PathBuf) -> Entry {
        Entry {
            file,
            source: OnceLock::new(),
            overlay: OnceLock::new(),
            parsed: OnceLock::new(),
        }
    }

    pub fn source(&self) -> &Result<SourceFile, String> {
        self.source
            .get_or_init(|| SourceFile::read(&self.file).map_err(|e| e.to_string()))
    }

    /// Whether the text is an overlay (`overlay: true`).
    pub fn is_overlay(&self) -> bool {
        *self
            .overlay
            .get_or_init(|| self.source().as_ref().is_ok_and(overlay::is_overlay))
    }

    /// Whether this file can declare a `provides` key: its text names it,
    /// or uses escapes that could spell it.
    pub fn may_provide(&self) -> bool {
        match self.source() {
            Ok(src) => src.text().contains("provides") || src.text().contains('\\'),
            Err(_) => false,
        }
    }

    /// The recipe parsed as a whole recipe (not an overlay), with the
    /// patches of repository `repo_dir` (from `cache` when it has it, and
    /// kept there when it loads without a diagnostic); `check` sees it
    /// before it is kept.
    pub fn parse_whole(
        &self,
        repo_dir: &Path,
        cache: Option<&ParsedCache>,
        check: impl FnOnce(Option<&PackageRecipe>),
    ) -> &Parsed {
        self.parsed.get_or_init(|| {
            let mut diagnostics = Diagnostics::new();
            let recipe = match self.source() {
                Ok(src) => parse_cached(src, repo_dir, cache, &mut diagnostics).map(Arc::new),
                Err(e) => {
                    diagnostics.push(crate::diag::Diagnostic::error(
                        crate::diag::Code::Io,
                        format!("cannot read package recipe: {e}"),
                    ));
                    None
                }
            };
            check(recipe.as_deref());
            Parsed {
                recipe,
                diagnostics,
            }
        })
    }
}

/// `src` parsed, or decoded from `cache`.
fn parse_cached(
    src: &SourceFile,
    repo_dir: &Path,
    cache: Option<&ParsedCache>,
    diagnostics: &mut Diagnostics,
) -> Option<PackageRecipe> {
    if let Some(recipe) = cache.and_then(|c| c.load(src, repo_dir)) {
        tracing::trace!("{} from the recipe cache", src.path().display());
        return Some(recipe);
    }
    tracing::trace!("parsing {}", src.path().display());
    let recipe = parse_package(src, repo_dir, diagnostics)?;
    if let Some(c) = cache.filter(|_| diagnostics.is_empty()) {
        c.store(src, repo_dir, &recipe);
    }
    Some(recipe)
}

/// What a repository's index says of its recipes.
#[derive(Clone, Debug)]
pub(super) struct LayerIndex {
    pub index: RepoIndex,
    /// The cached index it comes from (deleted when a recipe read
    /// disagrees with it); `None` for a `.stack-index`.
    pub cache_file: Option<Arc<Path>>,
}

/// The recipes of one repository directory.
#[derive(Clone, Debug)]
pub(super) struct Layer {
    /// The directory (patches are found beside it).
    pub dir: Arc<Path>,
    pub names: Names,
    /// Parallel to `names`: every entry of a repository read at load, the
    /// entries asked for of an indexed one.
    entries: Vec<OnceLock<Box<Entry>>>,
    /// `None`: the directory was read, each entry made at load.
    pub index: Option<LayerIndex>,
}

impl Layer {
    /// A directory whose recipes were read (`entries`: by name).
    pub fn read(dir: Arc<Path>, mut entries: Vec<(String, Entry)>) -> Layer {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let names = Names::from_unsorted(entries.iter().map(|(n, _)| n.clone()));
        let mut slots: Vec<OnceLock<Box<Entry>>> = Vec::with_capacity(names.len());
        let mut entries = entries.into_iter().peekable();
        for i in 0..names.len() {
            let slot = OnceLock::new();
            // the first of equal names is the one kept
            let mut first = None;
            while let Some((_, e)) = entries.next_if(|(n, _)| n == names.get(i)) {
                first.get_or_insert(e);
            }
            if let Some(e) = first {
                let _ = slot.set(Box::new(e));
            }
            slots.push(slot);
        }
        Layer {
            dir,
            names,
            entries: slots,
            index: None,
        }
    }

    /// A directory read through its index: no entry is made yet.
    pub fn indexed(dir: Arc<Path>, names: Names, index: LayerIndex) -> Layer {
        let entries = (0..names.len()).map(|_| OnceLock::new()).collect();
        Layer {
            dir,
            names,
            entries,
            index: Some(index),
        }
    }

    /// The entry of the `i`th recipe (made now for an indexed directory).
    pub fn entry(&self, i: usize) -> &Entry {
        self.entries[i].get_or_init(|| {
            let file = self.dir.join(format!("{}.yaml", self.names.get(i)));
            Box::new(Entry::unread(file))
        })
    }

    /// The entry of the `i`th recipe when it has been made.
    pub fn made(&self, i: usize) -> Option<&Entry> {
        self.entries[i].get().map(|e| &**e)
    }

    /// Whether the `i`th recipe is an overlay (by the index, when there is
    /// one: its text is not read).
    pub fn is_overlay(&self, i: usize) -> bool {
        match &self.index {
            Some(ix) => ix.index.overlays.contains(self.names.get(i)),
            None => self.entry(i).is_overlay(),
        }
    }

    /// Whether the `i`th recipe can provide a virtual: by the index, or
    /// by its text.
    pub fn may_provide(&self, i: usize) -> bool {
        match &self.index {
            Some(ix) => ix.index.provides.contains_key(self.names.get(i)),
            None => self.entry(i).may_provide(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_by_bisection() {
        let names = Names::from_lines("a\nb-c\nb.d\nzlib").unwrap();
        assert_eq!(names.len(), 4);
        assert_eq!(
            names.iter().collect::<Vec<_>>(),
            ["a", "b-c", "b.d", "zlib"]
        );
        for (i, n) in ["a", "b-c", "b.d", "zlib"].iter().enumerate() {
            assert_eq!(names.find(n), Some(i));
        }
        assert_eq!(names.find("b"), None);
        assert_eq!(names.find("zz"), None);
        assert_eq!(names.find(""), None);
        assert_eq!(Names::from_lines("").unwrap().len(), 0);
        assert_eq!(Names::from_lines("a\n").unwrap().len(), 1);
        assert_eq!(Names::from_lines("b\na\n"), None, "unsorted");
        assert_eq!(Names::from_lines("a\na\n"), None, "repeated");
        let unsorted = Names::from_unsorted(["z".into(), "a".into(), "m".into(), "a".into()]);
        assert_eq!(unsorted.iter().collect::<Vec<_>>(), ["a", "m", "z"]);
        assert_eq!(unsorted.find("m"), Some(1));
    }
}
