//! How much a class attribute or method the importer does not translate
//! matters ([`Kind`]): the names that change the build, the metadata read
//! elsewhere, the methods only detection, tests or dependents use.

use crate::import::spack::directives::model::Kind;

/// Methods that only serve external detection, tests or other packages.
pub(crate) const INFO_METHODS: &[&str] = &[
    "determine_version",
    "determine_variants",
    "determine_spec_details",
    "filter_detected_exes",
    "validate_detected_spec",
    "check",
    "installcheck",
    "libs",
    "headers",
    "home",
    "command",
    "url_for_version",
    "fetcher",
    "cmake_prefix_paths",
    "setup_dependent_package",
    "test",
];

/// Class attributes that change how a package is built.
pub(crate) const BUILD_ATTRIBUTES: &[&str] = &[
    "build_targets",
    "install_targets",
    "build_directory",
    "root_cmakelists_dir",
    "configure_directory",
    "parallel",
    "keep_werror",
    "force_autoreconf",
    "autoreconf_extra_args",
    "patch_config_files",
    "install_libtool_archives",
    "makefile_name",
    "build_system_class",
    "generator",
];

/// Class attributes that are metadata the importer reads elsewhere.
pub(crate) const METADATA_ATTRIBUTES: &[&str] = &[
    "homepage",
    "url",
    "urls",
    "git",
    "list_url",
    "list_depth",
    "maintainers",
    "gnu_mirror_path",
    "sourceforge_mirror_path",
    "sourceware_mirror_path",
    "xorg_mirror_path",
    "pypi",
    "cran",
    "bioc",
    "tags",
];

/// How much an attribute matters when its value cannot be read.
pub fn attribute_kind(name: &str) -> Kind {
    let name = name.rsplit(':').next().unwrap_or(name);
    if BUILD_ATTRIBUTES.contains(&name) {
        Kind::Build
    } else if METADATA_ATTRIBUTES.contains(&name) {
        Kind::Directive
    } else {
        Kind::Info
    }
}
