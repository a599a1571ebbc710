//! Installed files do not keep the build's private paths: a configure-like
//! step records the host tool it found (`<stage>/tools/sed`) and the
//! compiler (`<build>/wrap/cc`) in an installed script and a header, as
//! libtool and gmp do; after the install they name `/usr/bin/sed` and the
//! real compiler, and the installed script still runs once the stage is gone.

use std::path::Path;

use stack::build::*;

use crate::harness::build::*;

const MAKEFILE: &str = "\
all:
\tprintf '#!/bin/sh\\nSED=\"%s\"\\nCC=\"%s\"\\necho hello | \"$$SED\" s/hello/bye/\\n' \"$$(command -v sed)\" \"$(CC)\" > tool.sh
\tprintf '#define RECORDED_CC \"%s\"\\n' \"$(CC)\" > recorded.h
install:
\tmkdir -p $(PREFIX)/bin $(PREFIX)/include
\tinstall -m 755 tool.sh $(PREFIX)/bin/tool.sh
\tinstall -m 644 recorded.h $(PREFIX)/include/recorded.h
";

#[test]
fn installed_files_name_real_programs_not_the_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs_err::create_dir_all(&src).unwrap();
    fs_err::write(src.join("Makefile"), MAKEFILE).unwrap();
    let mount = tmp.path().join("ue");
    let mut j = job(&mount, "records", src, BuildSystem::new("makefile"));
    let prefix = j.prefix.clone();
    j.system
        .settings
        .set("make_args", vec![format!("PREFIX={}", prefix.display())]);
    let mut g = BuildGraph::new();
    g.add(j);
    let build = tmp.path().join("build");
    let opts = options(&build, &mount, MountMode::Direct);
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);

    let tool = fs_err::read_to_string(prefix.join("bin/tool.sh")).unwrap();
    let header = fs_err::read_to_string(prefix.join("include/recorded.h")).unwrap();
    let build_dir = build.display().to_string();
    assert!(!tool.contains(&build_dir), "{tool}");
    assert!(!header.contains(&build_dir), "{header}");
    let sed = std::fs::canonicalize("/usr/bin/sed").unwrap_or("/usr/bin/sed".into());
    assert!(
        tool.contains("SED=\"/usr/bin/sed\"")
            || tool.contains(&format!("SED=\"{}\"", sed.display())),
        "{tool}"
    );
    // The wrapper stands for the host gcc the job's default compiler finds.
    let cc_line = header.trim().trim_start_matches("#define RECORDED_CC ");
    let cc = Path::new(cc_line.trim_matches('"'));
    assert!(cc.is_absolute() && cc.exists(), "{header}");
    assert!(cc.file_name().unwrap().to_string_lossy().contains("gcc") || cc.ends_with("cc"));
    // The stage is gone, the script still runs.
    assert!(
        !build
            .join("stage")
            .read_dir()
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    );
    assert_eq!(run_clean(&prefix.join("bin/tool.sh")), "bye\n");
}
