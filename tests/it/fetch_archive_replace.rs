//! An archive where a symlink entry is later replaced by a regular file is
//! extracted like GNU tar does (the link is removed, never followed), not
//! refused.

use std::path::Path;

use stack::fetch::{Fetched, FetchedContent, Origin, Sha256Hex, Verification, stage};

fn fetched(path: &Path) -> Fetched {
    Fetched {
        package: "pkg".into(),
        version: "1.0".into(),
        content: FetchedContent::File {
            path: path.to_path_buf(),
            sha256: Sha256Hex::parse(&"0".repeat(64)).unwrap(),
            file_name: "pkg-1.0.tar".into(),
            expand: true,
            size: std::fs::metadata(path).unwrap().len(),
        },
        origin: Origin::Cache,
        verification: Verification::Unverified,
        max_size: None,
    }
}

#[test]
fn a_symlink_replaced_by_a_file_is_extracted_like_gnu_tar() {
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("pkg-1.0.tar");
    {
        let mut b = tar::Builder::new(std::fs::File::create(&archive).unwrap());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        h.set_mode(0o777);
        b.append_link(&mut h, "pkg-1.0/config.h", "config.h.in")
            .unwrap();
        for (name, body) in [
            ("pkg-1.0/config.h.in", "template\n"),
            ("pkg-1.0/config.h", "real\n"),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_size(body.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            b.append_data(&mut h, name, body.as_bytes()).unwrap();
        }
        b.finish().unwrap();
    }
    let dest = t.path().join("stage");
    stage(&fetched(&archive), &dest).unwrap_or_else(|e| panic!("{e}"));
    let m = std::fs::symlink_metadata(dest.join("config.h")).unwrap();
    assert!(m.file_type().is_file());
    assert_eq!(
        std::fs::read_to_string(dest.join("config.h")).unwrap(),
        "real\n"
    );
    // The link's target was not written through.
    assert_eq!(
        std::fs::read_to_string(dest.join("config.h.in")).unwrap(),
        "template\n"
    );
}
