//! A tiny project for the build-logic tests (`system: spack` recipes):
//! the shipped `local` cluster with gfortran and the R/Perl/patchelf
//! externals, package files copied from `tests/fixtures/spack-py/packages/`
//! into `<t>/spack/fixtures/<dir>/package.py`, sources packed from
//! `tests/fixtures/spack-py/src/`, recipes written with the sha256 of both.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::Digest;

use super::Stack;

/// `tests/fixtures/spack-py`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spack-py")
}

fn sha256(path: &Path) -> String {
    hex::encode(sha2::Sha256::digest(fs_err::read(path).unwrap()))
}

pub struct Project {
    tmp: tempfile::TempDir,
}

impl Project {
    /// The cluster (the shipped `local` one with gfortran, R and patchelf)
    /// and nothing else.
    pub fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let p = Project { tmp };
        let shipped =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster-configs/local/cluster.yaml");
        let cluster = fs_err::read_to_string(shipped)
            .unwrap()
            .replace(
                "cc: /usr/bin/gcc, cxx: /usr/bin/g++}",
                "cc: /usr/bin/gcc, cxx: /usr/bin/g++, fc: /usr/bin/gfortran}",
            )
            .replace(
                "packages:\n",
                "packages:\n  r: {buildable: false, externals: [{spec: r@4.2.2, prefix: /usr}]}\n  \
                 patchelf: {buildable: false, externals: [{spec: patchelf@0.14.3, prefix: /usr}]}\n",
            );
        assert!(cluster.contains("gfortran"), "{cluster}");
        p.write("cluster-configs/local/cluster.yaml", &cluster);
        p.write(
            "recipes/r.yaml",
            "name: r\ndescription: R (a cluster external here)\nexecutables: [R, Rscript]\n\
             versions: []\nbuild: {system: external}\n",
        );
        p.write(
            "recipes/patchelf.yaml",
            "name: patchelf\ndescription: patchelf (a cluster external here)\nexecutables: [patchelf]\n\
             versions: []\nbuild: {system: external}\n",
        );
        p
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path().join(rel);
        fs_err::create_dir_all(p.parent().unwrap()).unwrap();
        fs_err::write(p, text).unwrap();
    }

    /// `src/<dir>` of the fixtures packed as `<t>/src/<dir>.tar.gz`: the
    /// recipe's `versions:` entry for `version`.
    pub fn version(&self, dir: &str, version: &str) -> String {
        self.pack(&fixtures().join("src"), dir, version)
    }

    /// `<from>/<dir>` packed as `<t>/src/<dir>.tar.gz`: the recipe's
    /// `versions:` entry for `version`.
    pub fn pack(&self, from: &Path, dir: &str, version: &str) -> String {
        let out = self.path().join("src");
        fs_err::create_dir_all(&out).unwrap();
        let tarball = out.join(format!("{dir}.tar.gz"));
        let sha = super::tarball(from, dir, &tarball);
        format!(
            "  - {{version: \"{version}\", url: {}, sha256: {}}}\n",
            tarball.display(),
            sha
        )
    }

    /// Copy `packages/<dir>/package.py` of the fixtures to
    /// `<t>/spack/<ns>/<dir>/package.py`; its `{file, sha256}` entry.
    pub fn package_file_in(&self, ns: &str, dir: &str) -> String {
        let from = fixtures().join("packages").join(dir).join("package.py");
        let rel = format!("{ns}/{dir}/package.py");
        let to = self.path().join("spack").join(&rel);
        fs_err::create_dir_all(to.parent().unwrap()).unwrap();
        fs_err::copy(&from, &to).unwrap();
        format!("{{file: {rel}, sha256: {}}}", sha256(&to))
    }

    /// [`Self::package_file_in`] the `fixtures` namespace.
    pub fn package_file(&self, dir: &str) -> String {
        self.package_file_in("fixtures", dir)
    }

    /// `recipes/<name>.yaml` of a `system: spack` package: `head` (versions,
    /// variants, dependencies…) then the build section for the package file
    /// of `dir`, with `imports` of the given directories.
    pub fn spack_recipe(&self, name: &str, dir: &str, head: &str, imports: &[&str]) {
        let mut text = format!("name: {name}\ndescription: {name} (fixture)\n{head}");
        text.push_str(&format!(
            "build:\n  system: spack\n  package: {}\n",
            self.package_file(dir)
        ));
        if !imports.is_empty() {
            text.push_str("  imports:\n");
            for i in imports {
                text.push_str(&format!("    - {}\n", self.package_file(i)));
            }
        }
        self.write(&format!("recipes/{name}.yaml"), &text);
    }

    /// `stacks/s.yaml` with the given environments (name, specs) and
    /// `extra` YAML at the end (views, modules).
    pub fn write_stack(&self, envs: &[(&str, &[&str])], extra: &str) {
        let mut text = String::from(
            "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n",
        );
        for (name, specs) in envs {
            let specs: Vec<String> = specs.iter().map(|s| format!("{s:?}")).collect();
            text.push_str(&format!("  {name}:\n    specs: [{}]\n", specs.join(", ")));
        }
        text.push_str(extra);
        self.write("stacks/s.yaml", &text);
    }

    /// `stack build stacks/s.yaml` (tiny_build): exit code, output.
    pub fn build(&self, extra: &[&str]) -> (i32, String) {
        crate::harness::tiny_build::build(self.path(), extra)
    }

    /// [`Self::build`] with `STACK_PYTHON` set to `python`.
    pub fn build_with_python(&self, python: &Path) -> (i32, String) {
        Stack::new()
            .args(["build", "stacks/s.yaml"])
            .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
            .args(["--build", "build", "-j", "2"])
            .env("STACK_PYTHON", python)
            .current_dir(self.path())
            .run()
            .code_text()
    }

    /// A recipe and a stack of `cmvariant` (a CMake package with a hook).
    pub fn cmvariant(&self) {
        self.cmvariant_recipe();
        self.write_stack(&[("e", &["cmvariant +shout"])], "");
    }

    /// The recipe of `cmvariant`: variants `shout` and `greeting`, cmake to
    /// build.
    pub fn cmvariant_recipe(&self) {
        self.spack_recipe(
            "cmvariant",
            "cmvariant",
            &format!(
                "versions:\n{}variants:\n  shout: {{default: false, description: capitals}}\n  \
                 greeting: {{default: hello, values: [hello, servus], description: the word}}\n\
                 dependencies:\n  - {{spec: cmake, type: build}}\n",
                self.version("cmvariant-1.0", "1.0")
            ),
            &[],
        );
    }

    /// `stack` with arguments in the project: exit code, output.
    pub fn stack_cmd(&self, args: &[&str]) -> (i32, String) {
        Stack::new()
            .args(args)
            .current_dir(self.path())
            .run()
            .code_text()
    }

    /// `stack check stacks/s.yaml`: exit code, output with the
    /// diagnostics' wrapped lines joined (words separated by one space,
    /// miette's `|` margins dropped).
    pub fn check(&self) -> (i32, String) {
        let (code, text) = self.stack_cmd(&[
            "check",
            "stacks/s.yaml",
            "--cluster",
            "cluster-configs/local",
        ]);
        let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "|").collect();
        (code, words.join(" "))
    }

    /// Run `<prefix>/<rel>` (an installed program, `prefix` its host path
    /// below `<t>/build/store`) with the store mounted at
    /// `/user-environment`, as the image will be; its stdout.
    pub fn run_mounted(&self, prefix: &Path, rel: &str) -> String {
        let store = self.path().join("build/store");
        let mounted = Path::new("/user-environment").join(prefix.strip_prefix(&store).unwrap());
        let out = Command::new("unshare")
            .args(["-rm", "sh", "-ec"])
            .arg(format!(
                "mount --bind '{}' /user-environment\nexec '{}'",
                store.display(),
                mounted.join(rel).display()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The installed prefixes of `name` below `<t>/build/store`.
    pub fn prefixes(&self, name: &str) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = walkdir::WalkDir::new(self.path().join("build/store"))
            .min_depth(2)
            .max_depth(2)
            .into_iter()
            .flatten()
            .map(|e| e.into_path())
            .filter(|p| {
                p.file_name().is_some_and(|f| {
                    let f = f.to_string_lossy();
                    f.strip_prefix(name)
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
                })
            })
            .collect();
        out.sort();
        out
    }

    /// The one installed prefix of `name`.
    pub fn prefix(&self, name: &str) -> PathBuf {
        let all = self.prefixes(name);
        assert_eq!(all.len(), 1, "{name}: {all:?}");
        all.into_iter().next().unwrap()
    }

    /// The build log of `name` (the newest).
    pub fn log(&self, name: &str) -> String {
        let mut logs: Vec<PathBuf> = fs_err::read_dir(self.path().join("build/logs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "log")
                    && p.file_name()
                        .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}-")))
            })
            .collect();
        logs.sort_by_key(|p| fs_err::metadata(p).unwrap().modified().unwrap());
        fs_err::read_to_string(logs.last().expect("a log")).unwrap()
    }
}

/// Run `program` with `args`; its stdout (it must succeed).
pub fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
