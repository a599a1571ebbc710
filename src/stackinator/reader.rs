//! Reading the input files of a translation: every file read is kept with
//! its parsed tree, and every key the translators look at is recorded, so
//! that [`super::coverage`] can name the keys nothing read and no
//! diagnostic names.

use std::path::Path;

use crate::diag::yaml::{Cx, KeysRead, Node};
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile};

/// The diagnostics of a translation and what it read.
#[derive(Default)]
pub struct Reader {
    pub diags: Diagnostics,
    pub keys: KeysRead,
    /// Every file read, with its tree, in reading order.
    pub files: Vec<(SourceFile, Node)>,
}

impl Reader {
    /// Read and parse one YAML file; problems go to the diagnostics.
    pub fn read(&mut self, path: &Path) -> Option<(SourceFile, Node)> {
        let src = match SourceFile::read(path) {
            Ok(s) => s,
            Err(e) => {
                self.diags.push(Diagnostic::error(
                    Code::Io,
                    format!("cannot read {}: {e}", path.display()),
                ));
                return None;
            }
        };
        let node = crate::diag::yaml::parse_into(&src, &mut self.diags)?;
        self.files.push((src.clone(), node.clone()));
        Some((src, node))
    }

    /// A reading context for `src` that records the keys looked at.
    pub fn cx<'a>(&'a mut self, src: &'a SourceFile) -> Cx<'a> {
        Cx::tracking(src, &mut self.diags, &self.keys)
    }

    /// Record `d`, with the source of the file its location is in.
    pub fn push(&mut self, mut d: Diagnostic) {
        if let Some(src) = d.loc().and_then(|l| self.source(&l.file)).cloned() {
            d.attach_source(&src);
        }
        self.diags.push(d);
    }

    /// The user's file at `path`, if it was read.
    pub fn source(&self, path: &Path) -> Option<&SourceFile> {
        self.files.iter().map(|(s, _)| s).find(|s| s.path() == path)
    }
}
