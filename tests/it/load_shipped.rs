//! The recipes, stacks and cluster configurations shipped in the source tree
//! are valid: every package recipe of every repository (`recipes/`,
//! `stacks/*/recipes/`) loads and checks without errors, and every stack
//! recipe in `stacks/` passes the whole input check against
//! `cluster-configs/local`.

use std::path::{Path, PathBuf};

use stack::recipes::{PackageRepo, RepoDir, RepoOrigin};
use stack::stacks::{InputOptions, load_inputs};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `recipes/` and `stacks/*/recipes/`, those that exist.
fn repo_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("recipes")];
    if let Ok(entries) = fs_err::read_dir(root().join("stacks")) {
        let mut more: Vec<PathBuf> = entries.map(|e| e.unwrap().path().join("recipes")).collect();
        more.sort();
        dirs.extend(more);
    }
    dirs.retain(|d| d.is_dir());
    dirs
}

/// The built-in repository alone.
fn builtin_repo() -> PackageRepo {
    PackageRepo::load(vec![RepoDir {
        path: root().join("recipes"),
        origin: RepoOrigin::BuiltIn,
    }])
}

#[test]
fn every_shipped_package_recipe_is_valid() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in repo_dirs() {
        // Each repository on its own first (its recipes may only depend on
        // itself and the built-in one), then over the built-in repository.
        let mut dirs = vec![RepoDir {
            path: dir.clone(),
            origin: RepoOrigin::Flag,
        }];
        let builtin = root().join("recipes");
        if builtin.is_dir() && builtin != dir {
            dirs.push(RepoDir {
                path: builtin,
                origin: RepoOrigin::BuiltIn,
            });
        }
        let repo = PackageRepo::load(dirs);
        for name in repo.names() {
            if repo.file(name).is_some_and(|f| f.starts_with(&dir)) {
                checked += 1;
                let d = repo.check(name);
                if d.has_errors() {
                    failures.push(format!("{name} ({}):\n{d}", dir.display()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{checked} shipped package recipes are valid");
}

#[test]
fn every_shipped_stack_checks_against_the_local_cluster() {
    let Ok(entries) = fs_err::read_dir(root().join("stacks")) else {
        return;
    };
    let cluster = root().join("cluster-configs/local");
    if !cluster.is_dir() {
        return;
    }
    let mut stacks: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    stacks.sort();
    for recipe in stacks {
        let opts = InputOptions {
            recipe: recipe.clone(),
            cluster: Some(cluster.clone()),
            ..InputOptions::default()
        };
        if let Err(d) = load_inputs(&opts) {
            panic!("{}:\n{d}", recipe.display());
        }
    }
}

/// A shipped recipe that `pip install`s into its prefix is a python
/// extension: its `env:` puts its site-packages on `PYTHONPATH`, or views and
/// modules offer a command whose modules python does not find (meson's
/// `import mesonbuild` from the prgenv-gnu view).
#[test]
fn every_shipped_pip_recipe_puts_its_site_packages_on_pythonpath() {
    let repo = builtin_repo();
    let mut pip = 0;
    let mut missing = Vec::new();
    for name in repo.names() {
        let recipe = repo.get(name).unwrap();
        let installs_with_pip = recipe.build.steps.iter().any(|s| {
            s.argv.iter().any(|a| a == "pip" || a.contains(" -m pip"))
                && s.argv.iter().any(|a| a.contains("install"))
        });
        if !installs_with_pip {
            continue;
        }
        pip += 1;
        let on_path = recipe
            .env
            .iter()
            .any(|op| op.var == "PYTHONPATH" && op.value.contains("site-packages"));
        if !on_path {
            missing.push(name.to_string());
        }
    }
    assert!(
        pip >= 5,
        "only {pip} pip recipes found: the check lost its subject"
    );
    assert!(missing.is_empty(), "no PYTHONPATH in `env:`: {missing:?}");
}

/// Every MPI of the built-in repository installs MPICH-style compiler wrappers
/// (`bin/mpicc`, cray-mpich too, as alps-cluster-config's does), and no shipped
/// recipe hands a dependent the plain compiler as cray-mpich's MPI compiler
/// (Spack's external-only cray-mpich does; with this repository's, hdf5's
/// CMake stopped on `Could NOT find MPI_C (missing: MPI_C_WORKS)` in the real
/// prgenv-gnu build).
#[test]
fn mpi_compilers_are_the_providers_wrappers() {
    let repo = builtin_repo();
    for mpi in ["mpich", "openmpi", "cray-mpich"] {
        let recipe = repo.get(mpi).unwrap();
        let mpicc = recipe.env.iter().find(|op| op.var == "MPICC");
        assert_eq!(
            mpicc.map(|op| op.value.as_str()),
            Some("{{ prefix }}/bin/mpicc"),
            "{mpi}"
        );
    }
    let mut special = Vec::new();
    for name in repo.names() {
        let text = fs_err::read_to_string(repo.file(name).unwrap()).unwrap();
        for (i, line) in text.lines().enumerate() {
            let names_compiler = [
                "MPI_C_COMPILER",
                "MPI_CXX_COMPILER",
                "MPI_Fortran_COMPILER",
                "MPICXX",
                "MPICC",
            ]
            .iter()
            .any(|k| line.contains(k));
            if names_compiler && line.contains("cray-mpich") && !line.trim_start().starts_with('#')
            {
                special.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        special.is_empty(),
        "cray-mpich's MPI compiler special-cased:\n{}",
        special.join("\n")
    );
}

/// Tools a shipped recipe's build runs that Spack finds on the host, found
/// missing by a real build (issue 35), are declared build dependencies.
#[test]
fn tools_the_real_builds_needed_are_declared() {
    let repo = builtin_repo();
    // (package, tool): netcdf-fortran's `make install` makes a man page with m4.
    const DECLARED: &[(&str, &str)] = &[("netcdf-fortran", "m4")];
    for &(package, tool) in DECLARED {
        let recipe = repo.get(package).unwrap();
        let declared = recipe
            .dependencies
            .iter()
            .any(|d| d.spec.text == tool && d.types.build && !d.types.link && d.when.is_none());
        assert!(
            declared,
            "{package} does not declare {tool} as a build dependency"
        );
    }
}

/// metis 5.1.0's programs/CMakeLists.txt adds `/home/karypis/local/lib` as a
/// link directory, which became an RPATH element of every metis program
/// (the real build's audit error); the shipped recipe deletes that line
/// before configuring, for the version that has it.
#[test]
fn metis_drops_its_authors_link_directory() {
    let repo = builtin_repo();
    let text = fs_err::read_to_string(repo.file("metis").unwrap()).unwrap();
    let step = text
        .lines()
        .find(|l| l.contains("programs/CMakeLists.txt") && !l.trim_start().starts_with('#'))
        .expect("a step editing programs/CMakeLists.txt");
    assert!(step.contains("when: \"@5.1.0\""), "{step}");
    assert!(
        step.contains("/link_directories(\\\\/home\\\\/karypis/d"),
        "{step}"
    );
}
