//! Packages whose class body depends on the machine Spack runs on
//! (`platform.machine()`): the architectures they are read for and the
//! names each reading binds (the readings are merged in `emit::per_arch`).

use crate::import::spack::evaluator::value::Value;

/// The architectures a recipe is read for (`platform.machine()` on Linux).
pub const ARCHES: [&str; 2] = ["x86_64", "aarch64"];

/// Whether the class body depends on the machine (a cheap test on the text:
/// most package.py never call `platform.machine()`).
pub fn machine_dependent(src: &str) -> bool {
    src.contains("platform.machine()")
}

/// The names `platform.machine()` and `platform.system()` evaluate to while
/// reading for `machine` (on Linux).
pub fn platform_names(machine: &str) -> Vec<(String, Value)> {
    vec![
        ("platform.machine".into(), Value::Str(machine.into())),
        ("platform.system".into(), Value::Str("Linux".into())),
    ]
}
