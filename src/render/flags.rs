//! A recipe's `flags:` into the build: `via: inject` → `STACK_WRAP_CFLAGS`,
//! … for the compiler wrapper; `via: env` → appended to `CFLAGS`, … of the
//! build environment; `via: build_system` → the kind's arguments
//! ([`crate::build_kinds::BuildKind::flag_args`]: autotools `CFLAGS=…`,
//! cmake `-DCMAKE_C_FLAGS=…`), or the environment for kinds without.
//! The node's spec flags (`cflags=-fPIC` in a spec) are injected after the
//! recipe's own, as Spack's default `flag_handler` does.

use std::collections::BTreeMap;

use crate::build::{self, wrapper};
use crate::recipes::{FlagEntry, FlagName, FlagVia};
use crate::spec::FlagList;

use super::{RenderError, Renderer};

/// The rendered flags of the active entries, per route and name, in file order.
type Gathered = Vec<(FlagVia, FlagName, Vec<String>)>;

fn gather(r: &mut Renderer<'_>, flags: &[FlagEntry]) -> Result<Gathered, RenderError> {
    let mut out: Gathered = Vec::new();
    for f in flags {
        if !r.holds(&f.when) {
            continue;
        }
        let mut values = Vec::new();
        for v in &f.values {
            let v = r.render(v, &f.loc)?;
            if !v.trim().is_empty() {
                values.push(v);
            }
        }
        match out
            .iter_mut()
            .find(|(via, n, _)| *via == f.via && *n == f.name)
        {
            Some((_, _, list)) => list.extend(values),
            None => out.push((f.via, f.name, values)),
        }
    }
    out.retain(|(_, _, v)| !v.is_empty());
    Ok(out)
}

/// The node's spec flags (`cflags=-fPIC`) added after the recipe's own
/// injected ones, as Spack's default `flag_handler` (`inject_flags`) does.
fn add_spec_flags(out: &mut Gathered, spec_flags: &BTreeMap<String, FlagList>) {
    for (key, list) in spec_flags {
        let Some(name) = FlagName::from_key(key) else {
            continue;
        };
        match out
            .iter_mut()
            .find(|(via, n, _)| *via == FlagVia::Inject && *n == name)
        {
            Some((_, _, values)) => values.extend(list.flags.iter().cloned()),
            None => out.push((FlagVia::Inject, name, list.flags.clone())),
        }
    }
}

/// The build system with build-system flags added, and the environment
/// operations for the other routes (applied before the recipe's `build_env`).
/// The node's spec flags (`spec_flags`) are injected after the recipe's.
pub fn apply(
    r: &mut Renderer<'_>,
    flags: &[FlagEntry],
    spec_flags: &BTreeMap<String, FlagList>,
    mut system: build::BuildSystem,
) -> Result<(build::BuildSystem, Vec<build::EnvOp>), RenderError> {
    let mut env = Vec::new();
    let mut to_system: Vec<(&str, String)> = Vec::new();
    let mut gathered = gather(r, flags)?;
    add_spec_flags(&mut gathered, spec_flags);
    for (via, name, values) in gathered {
        let joined = values.join(" ");
        match via {
            FlagVia::Inject => env.push(build::EnvOp::Set(
                wrapper::flag_var(name.key()).to_string(),
                joined,
            )),
            FlagVia::Env => env.push(build::EnvOp::AppendFlags(
                name.env_var().to_string(),
                joined,
            )),
            FlagVia::BuildSystem => to_system.push((name.key(), joined)),
        }
    }
    if to_system.is_empty() {
        return Ok((system, env));
    }
    match system.kind().and_then(|k| k.flag_args(&to_system)) {
        Some((key, args)) => {
            let mut list = system.settings.list(key).to_vec();
            list.extend(args);
            system.settings.set(key, list);
        }
        None => {
            for (name, joined) in to_system {
                let var = FlagName::from_key(name).map_or("CFLAGS", FlagName::env_var);
                env.push(build::EnvOp::AppendFlags(var.to_string(), joined));
            }
        }
    }
    Ok((system, env))
}
