//! Integration tests of the build stage with real tiny C projects
//! (`tests/fixtures/build/`), real compilers, make, cmake, meson, patchelf.

mod bootstrap;
mod build_paths;
mod cmake_find;
mod failure;
mod host_link;
mod jobserver;
mod namespace;
mod resume;
mod systems;
