//! Git sources, pins and `stack.lock` through the library API.

use crate::harness::resolve::*;
use stack::resolve::NodeSource;

#[test]
fn git_sources_carry_refs_and_pins() {
    let t = temp_stack("environments:\n  e:\n    specs: [\"libcxi@main\", \"cassini-headers\"]\n");
    let inputs = load(&t.file, "local");
    let plan = ok(resolve_inputs(&inputs, &Default::default()));
    let unpinned = plan.unpinned_git_sources();
    let names: Vec<String> = unpinned
        .iter()
        .map(|u| format!("{} {} {}", plan.node(u.node).name, u.repo, u.reference))
        .collect();
    assert_eq!(
        names,
        ["libcxi https://github.com/HewlettPackard/shs-libcxi.git main"]
    );
    // a tag with a commit in the recipe is pinned already
    match &node(&plan, "cassini-headers").source {
        Some(NodeSource::Git {
            commit: Some(c), ..
        }) => assert_eq!(c.len(), 40),
        other => panic!("{other:?}"),
    }
    let mut opts = stack::resolve::ResolveOptions::default();
    let u = &unpinned[0];
    opts.git_pins
        .insert((u.repo.clone(), u.reference.clone()), "ab".repeat(20));
    let pinned = ok(resolve_inputs(&inputs, &opts));
    assert!(pinned.unpinned_git_sources().is_empty());
    assert_ne!(node(&pinned, "libcxi").hash, node(&plan, "libcxi").hash);
    match &node(&pinned, "libcxi").source {
        Some(NodeSource::Git {
            commit: Some(c), ..
        }) => assert_eq!(c, &"ab".repeat(20)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn lock_round_trips_and_pins_git_branches() {
    use stack::resolve::{Lock, ResolveError, ResolveOptions};
    let inputs = load(&fixtures().join("stacks/alps-like.yaml"), "gh200");
    let first = ok(resolve_inputs(&inputs, &ResolveOptions::default()));
    let unpinned = first.unpinned_git_sources();
    assert_eq!(unpinned.len(), 1, "libcxi@main");
    // The fetch stage finds the commit and resolves again.
    let mut opts = ResolveOptions::default();
    opts.git_pins.insert(
        (unpinned[0].repo.clone(), unpinned[0].reference.clone()),
        "c0ffee".repeat(6) + "c0ff",
    );
    let plan = ok(resolve_inputs(&inputs, &opts));
    let lock = Lock::from_plan(&plan);
    let text = lock.to_json();
    let back = Lock::parse(&text, std::path::Path::new("stack.lock")).unwrap();
    assert_eq!(back.nodes, lock.nodes);
    // Written with the user's umask (it was 0600, a temporary file's mode).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.lock");
    lock.write(&file).unwrap();
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&fs_err::metadata(&file).unwrap().permissions());
    let status = fs_err::read_to_string("/proc/self/status").unwrap();
    let umask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
        .unwrap();
    assert_eq!(mode & 0o777, 0o666 & !umask, "umask {umask:o}");
    assert_eq!(back.environments, lock.environments);
    // libcxi@main plus the two tags pinned in their recipes
    assert_eq!(back.git_pins().len(), 3);
    // Locked: the lock's commit is used, nothing differs.
    let locked = ResolveOptions {
        locked: Some(back.clone()),
        ..ResolveOptions::default()
    };
    let again = ok(resolve_inputs(&inputs, &locked));
    assert!(again.unpinned_git_sources().is_empty());
    assert!(back.compare(&again).is_empty());
    // A different mount is a difference.
    let moved = ResolveOptions {
        locked: Some(back),
        mount: Some("/opt/other".into()),
        ..ResolveOptions::default()
    };
    match resolve_inputs(&inputs, &moved) {
        Err(ResolveError::LockMismatch { changes, .. }) => {
            assert_eq!(
                changes[0],
                "mount point: `/user-environment` → `/opt/other`"
            );
            assert!(changes.len() > 1);
        }
        other => panic!("expected a lock mismatch, got {:?}", other.map(|_| ())),
    }
    // Future lock versions are refused with a clear message.
    let future = text.replace("\"lock_version\": 3", "\"lock_version\": 7");
    let err = Lock::parse(&future, std::path::Path::new("stack.lock")).unwrap_err();
    assert!(
        err.to_string().contains("lock_version 7 is not supported"),
        "{err}"
    );
    // Older ones (hashes without compilers, OS and libc) with a hint.
    let old = text.replace("\"lock_version\": 3", "\"lock_version\": 1");
    let err = Lock::parse(&old, std::path::Path::new("stack.lock")).unwrap_err();
    assert!(
        err.to_string()
            .contains("lock_version 1 was written by an older stack")
            && err.to_string().contains("run `stack resolve --lock`"),
        "{err}"
    );
    // Version 2 (the same hashes, no `resources` listed) still loads.
    let v2 = text.replace("\"lock_version\": 3", "\"lock_version\": 2");
    let read = Lock::parse(&v2, std::path::Path::new("stack.lock")).unwrap();
    assert_eq!(read.nodes, lock.nodes);
}

/// The plan as every output shows it, and as it is in memory.
fn every_rendering(plan: &stack::resolve::Plan) -> [String; 4] {
    use stack::resolve::render::{render_json, render_tree};
    [
        render_tree(plan),
        render_json(plan),
        stack::resolve::Lock::from_plan(plan).to_json(),
        format!("{plan:#?}"),
    ]
}

/// Pinning a resolved plan (`Plan::with_git_pins`: no second search) gives
/// the plan resolving with the pins gives, byte for byte: the pinned
/// nodes' hashes, their dependents' and those of the packages built with a
/// stack-built compiler whose source is a pinned branch.
#[test]
fn pinning_a_plan_equals_resolving_with_the_pins() {
    use stack::resolve::ResolveOptions;
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    for (name, version) in [("gcc", "99.1"), ("stamp-app", "1.0"), ("stamp-lib", "1.0")] {
        let deps = if name == "stamp-app" {
            "dependencies:\n  - {spec: stamp-lib}\n"
        } else {
            ""
        };
        std::fs::write(
            repo.join(format!("{name}.yaml")),
            format!(
                "name: {name}\ndescription: d\nversions:\n  \
                 - {{version: \"{version}\", git: 'file:///nowhere/{name}', branch: main}}\n\
                 {deps}build:\n  system: makefile\n"
            ),
        )
        .unwrap();
    }
    let stamped = t.path().join("stamped.yaml");
    std::fs::write(
        &stamped,
        "name: stamped\nmount: /user-environment\nrepos: [repo]\ncompilers: [gcc@99.1]\n\
         environments:\n  stamped:\n    compiler: gcc@99.1\n    specs: [stamp-app]\n  \
         plain:\n    specs: [stamp-app]\n",
    )
    .unwrap();
    let cluster = crate::harness::root().join("cluster-configs/local");
    let libcxi =
        temp_stack("environments:\n  e:\n    specs: [\"libcxi@main\", \"cassini-headers\"]\n");
    for inputs in [
        load_with(&stamped, Some(cluster)),
        load(&libcxi.file, "local"),
    ] {
        let plan = ok(resolve_inputs(&inputs, &ResolveOptions::default()));
        let mut opts = ResolveOptions::default();
        for (i, u) in plan.unpinned_git_sources().into_iter().enumerate() {
            opts.git_pins
                .insert((u.repo, u.reference), format!("{i:0>40}"));
        }
        assert!(!opts.git_pins.is_empty());
        let resolved = ok(resolve_inputs(&inputs, &opts));
        let pinned = plan.clone().with_git_pins(&opts.git_pins);
        assert!(pinned.unpinned_git_sources().is_empty());
        assert_ne!(every_rendering(&plan)[1], every_rendering(&pinned)[1]);
        for (a, b) in every_rendering(&pinned)
            .iter()
            .zip(every_rendering(&resolved).iter())
        {
            assert!(a == b, "pinned:\n{a}\nresolved again:\n{b}");
        }
    }
}
