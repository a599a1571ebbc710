//! Models in binary form (serde, for caches of loaded files such as
//! [`crate::recipes::parsed_cache`]), written inside [`encode_with_files`]
//! and read inside [`decode_with_files`]:
//!
//! - A model holds hundreds of [`Loc`]s in a handful of files, so each
//!   location names its file by a number into a table of files written
//!   once beside the model. Decoding gives every location of one file the
//!   same `Arc`. A `Loc` serializes only in binary form; elsewhere it is
//!   an error.
//! - Types whose serde form is their text (specs, versions, version
//!   constraints: the JSON outputs write them so) write their fields
//!   instead while [`active`] holds: reading them back parses nothing.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Loc;

thread_local! {
    /// The file table of the encoding or decoding running on this thread.
    static FILES: RefCell<Option<Vec<Arc<PathBuf>>>> = const { RefCell::new(None) };
}

/// Puts the previous table back when an encoding or decoding ends (also
/// by a panic).
struct Restore(Option<Vec<Arc<PathBuf>>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        FILES.with(|f| *f.borrow_mut() = previous);
    }
}

fn install(table: Vec<Arc<PathBuf>>) -> Restore {
    Restore(FILES.with(|f| f.borrow_mut().replace(table)))
}

/// Whether an encoding or decoding in binary form runs on this thread.
pub fn active() -> bool {
    FILES.with(|f| f.borrow().is_some())
}

/// Run `encode` (which serializes `Loc`s) and return its result with the
/// table of the files its locations name, in the order of the numbers they
/// were given.
pub fn encode_with_files<R>(encode: impl FnOnce() -> R) -> (R, Vec<Arc<PathBuf>>) {
    let restore = install(Vec::new());
    let out = encode();
    let table = FILES.with(|f| f.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (out, table)
}

/// Run `decode` (which deserializes `Loc`s) with `files`, the table
/// [`encode_with_files`] returned.
pub fn decode_with_files<R>(files: Vec<Arc<PathBuf>>, decode: impl FnOnce() -> R) -> R {
    let _restore = install(files);
    decode()
}

#[derive(Serialize)]
struct LocOut<'a> {
    file: u32,
    line: usize,
    col: usize,
    offset: usize,
    len: usize,
    via: Option<&'a Loc>,
}

#[derive(Deserialize)]
struct LocIn {
    file: u32,
    line: usize,
    col: usize,
    offset: usize,
    len: usize,
    via: Option<Box<Loc>>,
}

/// The number of `file` in the table being written (added when new).
fn file_number(file: &Arc<PathBuf>) -> Option<u32> {
    FILES.with(|f| {
        let mut table = f.borrow_mut();
        let table = table.as_mut()?;
        let found = table.iter().position(|t| Arc::ptr_eq(t, file) || t == file);
        let at = found.unwrap_or_else(|| {
            table.push(file.clone());
            table.len() - 1
        });
        u32::try_from(at).ok()
    })
}

impl Serialize for Loc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let file = file_number(&self.file).ok_or_else(|| {
            serde::ser::Error::custom("a location is serialized only in binary form")
        })?;
        LocOut {
            file,
            line: self.line,
            col: self.col,
            offset: self.offset,
            len: self.len,
            via: self.via.as_deref(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Loc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Loc, D::Error> {
        let l = LocIn::deserialize(d)?;
        let file = FILES
            .with(|f| f.borrow().as_ref()?.get(l.file as usize).cloned())
            .ok_or_else(|| {
                serde::de::Error::custom("a location names a file outside the file table")
            })?;
        Ok(Loc {
            file,
            line: l.line,
            col: l.col,
            offset: l.offset,
            len: l.len,
            via: l.via.map(|v| Arc::new(*v)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(file: &Arc<PathBuf>, line: usize) -> Loc {
        Loc {
            file: file.clone(),
            line,
            col: 3,
            offset: 40,
            len: 5,
            via: None,
        }
    }

    /// Each file is written once; decoded locations of one file share one
    /// `Arc`, and a translated location keeps where it came from.
    #[test]
    fn locations_round_trip_through_a_file_table() {
        let a = Arc::new(PathBuf::from("/r/a.yaml"));
        let b = Arc::new(PathBuf::from("/r/b.yaml"));
        let mut via = loc(&b, 7);
        via.via = Some(Arc::new(loc(&a, 1)));
        let locs = vec![
            loc(&a, 1),
            loc(&Arc::new(PathBuf::from("/r/a.yaml")), 2),
            via,
        ];
        let (bytes, files) = encode_with_files(|| serde_json::to_vec(&locs).unwrap());
        assert_eq!(files, [a.clone(), b.clone()]);
        let back: Vec<Loc> = decode_with_files(files, || serde_json::from_slice(&bytes).unwrap());
        assert_eq!(back, locs);
        assert!(Arc::ptr_eq(&back[0].file, &back[1].file));
    }

    #[test]
    fn a_location_outside_a_table_is_an_error() {
        let a = Arc::new(PathBuf::from("/r/a.yaml"));
        assert!(serde_json::to_vec(&loc(&a, 1)).is_err());
        let (bytes, _) = encode_with_files(|| serde_json::to_vec(&loc(&a, 1)).unwrap());
        assert!(serde_json::from_slice::<Loc>(&bytes).is_err());
        let empty = decode_with_files(Vec::new(), || serde_json::from_slice::<Loc>(&bytes));
        assert!(empty.is_err(), "file 0 of an empty table");
    }
}
