//! Images of a real (tiny) stack: reproducible packing with both writers,
//! `unsquashfs -l` contents, and the mounted image used for real: the
//! program runs through the view's activate.sh and through `module load`
//! with Lmod.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stack::image::{self, ImageOptions, Writer, WriterUsed};
use stack::view::{self, HookContext, HookKind, ModuleFlavour};

use crate::harness::Stack;

/// A built stack: `root/mnt` is the mount point, `root/build/store` the store.
struct Built {
    root: tempfile::TempDir,
    mount: PathBuf,
    build: PathBuf,
    store: PathBuf,
}

fn build_stack(flavour: ModuleFlavour) -> Built {
    let root = tempfile::tempdir().unwrap();
    let mount = root.path().join("mnt");
    let build = root.path().join("build");
    let store = build.join("store");
    fs_err::create_dir_all(&mount).unwrap();
    let contents = crate::harness::view::install(&mount, &store, true);
    let m = crate::harness::view::modules(flavour);
    view::generate(
        &contents,
        &crate::harness::view::views(),
        Some(&m),
        &crate::harness::view::meta(&mount),
        &store.join("meta"),
    )
    .unwrap();
    let hook = HookContext {
        kind: HookKind::PostInstall,
        name: "view-demo".into(),
        mount: mount.clone(),
        build_dir: build.clone(),
        store_dir: store.clone(),
        work_dir: build.join("hooks"),
        namespace: None,
    };
    view::run_hook(
        &crate::harness::view::fixtures().join("recipe/scripts/post-install.sh"),
        &hook,
        &[],
    )
    .unwrap();
    Built {
        root,
        mount,
        build,
        store,
    }
}

fn opts(writer: Writer) -> ImageOptions {
    ImageOptions {
        writer,
        source_date_epoch: Some(315_576_060),
        ..ImageOptions::default()
    }
}

fn output(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(cmd: &mut Command) -> String {
    String::from_utf8(output(cmd).stdout).unwrap()
}

/// Change what packing must normalise away: mtimes, permissions, and a copy
/// that becomes a hard link (a tree built in place has hard links where the
/// same tree installed from the binary cache has copies).
fn disturb(store: &Path) {
    let extra = store.join("meta/extra");
    fs_err::remove_file(extra.join("reframe-copy.yaml")).unwrap();
    fs_err::hard_link(extra.join("reframe.yaml"), extra.join("reframe-copy.yaml")).unwrap();
    for e in walkdir::WalkDir::new(store).follow_links(false) {
        let e = e.unwrap();
        if !e.file_type().is_symlink() {
            let t = std::fs::FileTimes::new().set_modified(std::time::SystemTime::now());
            std::fs::File::open(e.path()).unwrap().set_times(t).unwrap();
        }
    }
    use std::os::unix::fs::PermissionsExt;
    let readme = store.join("meta/extra/reframe.yaml");
    fs_err::set_permissions(&readme, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn check_reproducible_and_listed(writer: Writer) {
    let b = build_stack(ModuleFlavour::Lmod);
    let extra = b.store.join("meta/extra");
    fs_err::copy(extra.join("reframe.yaml"), extra.join("reframe-copy.yaml")).unwrap();
    let first = image::pack(&b.store, &b.build.join("a.squashfs"), &opts(writer)).unwrap();
    disturb(&b.store);
    let second = image::pack(&b.store, &b.build.join("b.squashfs"), &opts(writer)).unwrap();
    assert_eq!(first.sha256, second.sha256, "two packs of one tree differ");
    assert_eq!(
        fs_err::read(&first.path).unwrap(),
        fs_err::read(&second.path).unwrap()
    );
    match (writer, &first.writer) {
        (Writer::Mksquashfs, WriterUsed::Mksquashfs { version, .. }) => {
            assert!(version.starts_with('4'))
        }
        (Writer::Embedded, WriterUsed::Embedded) => {}
        (w, used) => panic!("asked for {w:?}, got {used:?}"),
    }

    let listing = stdout(Command::new("unsquashfs").arg("-l").arg(&first.path));
    for path in [
        "squashfs-root/env/default/activate.sh",
        "squashfs-root/env/default/env.json",
        "squashfs-root/env/default/bin/hello",
        "squashfs-root/env/tools-all/lib64/libgreet.so.1",
        "squashfs-root/env/develop/include/greet.h",
        "squashfs-root/modules/hello/2.1.lua",
        "squashfs-root/modules/libgreet/1.0.lua",
        "squashfs-root/modules/libgreet/.modulerc.lua",
        "squashfs-root/meta/env.json",
        "squashfs-root/meta/provenance.json",
        "squashfs-root/meta/stack.lock",
        "squashfs-root/meta/recipe/stack.yaml",
        "squashfs-root/meta/extra/reframe.yaml",
        "squashfs-root/meta/extra/post-install.txt",
    ] {
        assert!(
            listing.lines().any(|l| l == path),
            "{path} missing from:\n{listing}"
        );
    }
    // every entry: owner nobody, mtime = the epoch, readable by all
    let long = stdout(
        Command::new("unsquashfs")
            .env("TZ", "UTC")
            .arg("-lln")
            .arg(&first.path),
    );
    for line in long.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[1], "65534/65534", "{line}");
        // unsquashfs prints a 12-hour clock: 00:01 UTC shows as 12:01
        assert_eq!((f[3], f[4]), ("1980-01-01", "12:01"), "{line}");
        let mode = f[0].as_bytes();
        assert!(
            mode[1] == b'r' && mode[4] == b'r' && mode[7] == b'r',
            "{line}"
        );
        if mode[0] == b'd' {
            assert_eq!(&f[0][1..], "rwxr-xr-x", "{line}");
        }
    }
    let sb = stdout(
        Command::new("unsquashfs")
            .env("TZ", "UTC")
            .arg("-s")
            .arg(&first.path),
    );
    assert!(sb.contains("time Tue Jan  1 12:01:00 1980"), "{sb}");
}

#[test]
fn mksquashfs_images_are_reproducible_and_complete() {
    check_reproducible_and_listed(Writer::Mksquashfs);
}

#[test]
fn embedded_images_are_reproducible_and_complete() {
    check_reproducible_and_listed(Writer::Embedded);
}

/// A squashfuse mount, unmounted on drop.
struct Mounted(PathBuf);

impl Mounted {
    fn new(image: &Path, at: &Path) -> Mounted {
        output(Command::new("squashfuse").arg(image).arg(at));
        Mounted(at.to_path_buf())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("fusermount").arg("-u").arg(&self.0).status();
    }
}

/// A shell with a clean environment.
fn shell(b: &Built, script: &str) -> String {
    let home = b.root.path().join("home");
    fs_err::create_dir_all(&home).unwrap();
    stdout(
        Command::new("bash")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &home)
            .env("LC_ALL", "C"),
    )
}

fn run_mounted(writer: Writer, flavour: ModuleFlavour) {
    let b = build_stack(flavour);
    let img = b.build.join("store.squashfs");
    image::pack(&b.store, &img, &opts(writer)).unwrap();
    // the program only runs where the image is mounted (RPATH = final path)
    let not_mounted = Command::new(b.store.join("env/default/bin/hello"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(!not_mounted, "views must point at the mount point");

    let _m = Mounted::new(&img, &b.mount);
    let mount = b.mount.display();
    let home = b.root.path().join("home");

    let out = shell(
        &b,
        &format!(
            ". {mount}/env/default/activate.sh && command -v hello && hello && echo \"UCX_ERROR_SIGNALS=$UCX_ERROR_SIGNALS\" \
             && echo \"PYTHONPATH=${{PYTHONPATH-unset}}\""
        ),
    );
    assert_eq!(
        out,
        format!(
            "{mount}/env/default/bin/hello\n\
             hello from libgreet (lang=en cache={}/.cache/default)\n\
             UCX_ERROR_SIGNALS=SIGILL,SIGBUS,SIGFPE\nPYTHONPATH=unset\n",
            home.display()
        )
    );

    let lmod = "source /usr/share/lmod/lmod/init/bash";
    let out = shell(
        &b,
        &format!(
            "{lmod} && module use {mount}/modules && module load hello/2.1 && command -v hello && hello \
             && echo \"GREET_HOME=$GREET_HOME\" && module --terse list 2>&1 && echo --avail-- \
             && module --terse avail 2>&1 && module unload hello && echo \"after=${{GREET_HOME-unset}}\""
        ),
    );
    let greet = format!(
        "{mount}/x86_64/libgreet-1.0-{}",
        &crate::harness::view::HASH_GREET[..8]
    );
    let hello = format!(
        "{mount}/x86_64/hello-2.1-{}",
        &crate::harness::view::HASH_HELLO[..8]
    );
    let (loaded, avail) = out.split_once("--avail--\n").unwrap();
    assert_eq!(
        loaded,
        format!(
            "{hello}/bin/hello\nhello from libgreet (lang=en cache={}/.cache/hello)\nGREET_HOME={greet}\n\
             libgreet/1.0\nhello/2.1\n",
            home.display()
        ),
        "module load hello loads its (hidden) dependency"
    );
    assert!(avail.contains("hello/2.1"), "{avail}");
    assert!(
        !avail.contains("cmake/"),
        "implicit modules are hidden:\n{avail}"
    );
    assert!(
        !avail.contains("libgreet"),
        "implicit modules are hidden:\n{avail}"
    );
    assert!(
        avail.ends_with("after=unset\n"),
        "unload removes the dependency: {avail}"
    );
}

#[test]
fn mounted_mksquashfs_image_runs_through_activate_and_lmod() {
    run_mounted(Writer::Mksquashfs, ModuleFlavour::Lmod);
}

#[test]
fn mounted_embedded_image_runs_through_activate_and_tcl_modules() {
    run_mounted(Writer::Embedded, ModuleFlavour::Tcl);
}

#[test]
fn cli_repacks_a_build_directory() {
    let b = build_stack(ModuleFlavour::Lmod);
    let out = assert_cmd::Command::from_std(Stack::bare().command())
        .args(["image", "--writer", "embedded", "--color", "never"])
        .arg(&b.build)
        .env("SOURCE_DATE_EPOCH", "315576060")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let img = b.build.join("store.squashfs");
    let info = image::pack(
        &b.store,
        &b.root.path().join("again.squashfs"),
        &opts(Writer::Embedded),
    )
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!("packed {} (", img.display())),
        "{out}"
    );
    assert!(lines[0].contains("embedded writer (backhand)"), "{out}");
    assert_eq!(
        lines[1],
        format!("sha256 {}", info.sha256),
        "same bytes as the library call"
    );
    assert_eq!(
        lines[2],
        format!("meta   {}", b.build.join("meta").display())
    );
    assert_eq!(
        fs_err::read_to_string(b.build.join("meta/env.json")).unwrap(),
        fs_err::read_to_string(b.store.join("meta/env.json")).unwrap()
    );

    let missing = b.root.path().join("nothing-here");
    let err = assert_cmd::Command::from_std(Stack::bare().command())
        .arg("image")
        .arg(&missing)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("hint: build first"), "{err}");
}

#[test]
fn embedded_writer_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    // an empty store is a valid (empty) image
    let empty = dir.path().join("empty");
    fs_err::create_dir(&empty).unwrap();
    let img = dir.path().join("empty.squashfs");
    image::pack(&empty, &img, &opts(Writer::Embedded)).unwrap();
    let listing = stdout(Command::new("unsquashfs").arg("-l").arg(&img));
    assert_eq!(listing.trim(), "squashfs-root");

    // special files are refused with the path
    let odd = dir.path().join("odd");
    fs_err::create_dir(&odd).unwrap();
    nix::unistd::mkfifo(
        &odd.join("pipe"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    let err = image::pack(
        &odd,
        &dir.path().join("odd.squashfs"),
        &opts(Writer::Embedded),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        format!(
            "{}/pipe is a named pipe; an image holds only directories, regular files and symlinks",
            odd.display()
        )
    );
    assert!(!dir.path().join("odd.squashfs").exists());
    let leftovers: Vec<_> = fs_err::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // a forced mksquashfs that does not exist is a clear error
    let mut o = opts(Writer::Mksquashfs);
    o.mksquashfs = Some(dir.path().join("no-such-mksquashfs"));
    let err = image::pack(&empty, &img, &o).unwrap_err().to_string();
    assert!(err.starts_with("mksquashfs not found ("), "{err}");
    assert!(err.contains("--writer embedded"), "{err}");
    // Auto falls back to the embedded writer
    o.writer = Writer::Auto;
    let info = image::pack(&empty, &img, &o).unwrap();
    assert_eq!(info.writer, WriterUsed::Embedded);
}
