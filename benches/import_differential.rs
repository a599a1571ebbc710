//! The differential check of `stack import spack` over a whole repository
//! (#34): every package converted as the importer converts it, compared with
//! the directives its package.py records when run by the Python package API
//! layer's oracle (`src/build_logic/python/directives.py`). Prints the
//! counts per kind of directive: differences that are silent (defects),
//! flagged in `imported.untranslated`, or by design; with `-v`, each silent
//! difference. Run by `scripts/import-differential.sh`.
//!
//!   cargo bench --bench import_differential -- [-v] [--layer DIR] [REPOSITORY]
//!   cargo bench --bench import_differential -- --load RECIPES
//!   cargo bench --bench import_differential -- --records FILE [REPOSITORY]
//!
//! REPOSITORY defaults to `$STACK_SPACK_PACKAGES`; `--layer` names another
//! copy of the package API layer (a worktree's `src/build_logic/python`). With `--load`, it loads
//! every recipe of the directory RECIPES (an `--all` import) instead and
//! counts those that do not load, with their first error. With
//! `--records`, the oracle's records are kept in FILE (JSON) and read from
//! there when it exists (the Python side takes minutes over a whole
//! repository; delete FILE when the layer changes).

use std::path::PathBuf;
use std::time::Instant;

use std::collections::BTreeMap;

use stack::import::differential::{Standing, compare_all, package_files, package_names, records};

/// Load every recipe of `dir`; print how many do not load.
fn load_all(dir: &std::path::Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut bad = 0;
    for f in &files {
        let (_, diags) = stack::recipes::load_package(f, dir);
        if diags.has_errors() {
            bad += 1;
            let first = diags
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.message.clone());
            println!("{}: {}", f.display(), first.unwrap_or_default());
        }
    }
    println!("{} recipes, {bad} do not load", files.len());
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let Some(i) = args.iter().position(|a| a == "--load") {
        load_all(std::path::Path::new(&args[i + 1]));
        return;
    }
    let verbose = args.iter().any(|a| a == "-v");
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| PathBuf::from(&args[i + 1]))
    };
    let layer_arg = value_of("--layer");
    let records_file = value_of("--records");
    let repo = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with('-')
                && (*i == 0 || !matches!(args[i - 1].as_str(), "--layer" | "--records"))
        })
        .map(|(_, a)| PathBuf::from(a))
        .or_else(stack::settings::spack_packages);
    let Some(repo) = repo else {
        eprintln!("import_differential: no repository (give one, or set STACK_SPACK_PACKAGES)");
        std::process::exit(2);
    };
    let layer = layer_arg.unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/build_logic/python")
    });
    if !layer.join("directives.py").is_file() {
        eprintln!("import_differential: no oracle at {}", layer.display());
        std::process::exit(2);
    }
    let names = package_names(&repo);
    let started = Instant::now();
    let fail = |e: &dyn std::fmt::Display| -> ! {
        eprintln!("import_differential: {e}");
        std::process::exit(1);
    };
    let files = package_files(&repo, &names).unwrap_or_else(|e| fail(&e));
    let cached: Option<BTreeMap<PathBuf, serde_json::Value>> = records_file
        .as_ref()
        .and_then(|f| std::fs::read(f).ok())
        .map(|b| serde_json::from_slice(&b).unwrap_or_else(|e| fail(&e)));
    let oracle = match cached {
        Some(o) => o,
        None => {
            let o = records("python3".as_ref(), &layer, &files).unwrap_or_else(|e| fail(&e));
            if let Some(f) = &records_file {
                let json = serde_json::to_vec(&o).unwrap_or_else(|e| fail(&e));
                std::fs::write(f, json).unwrap_or_else(|e| fail(&e));
            }
            o
        }
    };
    println!("oracle {:.1} s", started.elapsed().as_secs_f64());
    let (counts, checks) = compare_all(&repo, &names, &oracle);
    print!("{counts}");
    println!(
        "import errors {}",
        checks.iter().filter(|c| c.import_error.is_some()).count()
    );
    println!("{:.1} s", started.elapsed().as_secs_f64());
    if verbose {
        for c in &checks {
            for d in c
                .differences
                .iter()
                .filter(|d| d.standing == Standing::Silent)
            {
                println!("{}: {d}", c.name);
            }
        }
    }
}
