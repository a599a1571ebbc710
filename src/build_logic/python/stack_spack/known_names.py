"""Names of Spack's package API (exported by `spack.package` or set on
package modules for a build: `make`, `spack_cc`, `python_platlib`, …), as
package files use them.  A package module that reads one of these names and
finds it neither in its own globals nor in stack's layer gets
`ApiNotImplemented` with the line, instead of a NameError."""

SPACK_API_NAMES = frozenset(
    """
    BaseBuilder ClassProperty CompilerPropertyDetector Dict EnvironmentModifications Executable
    FileFilter FileList HKEY HeaderList InstallError LC_ID_DYLIB LibraryList List MachO
    MakeExecutable NoHeadersError NoLibrariesError Optional Package PackageBase Prefix
    ProcessError R SkipTest SpackError Spec Version WindowsRegistryView aclocal ancestor ant
    any_combination_of auto_or_any_combination_of autoconf autoheader autom4te automake
    autoreconf autoscan autoupdate bash_completion_path bazel build_system build_system_flags
    cache_extra_test_sources can_access cargo cd change_sed_delimiter check_outputs
    classproperty cmake compare_output compare_output_file compile_c_and_execute conditional
    configure conflicts copy copy_tree cscript ctest dedupe default_args delete_needed_from_elf
    delete_rpath depends_on determine_number_of_jobs disjoint_sets dso_suffix env env_flags
    environment_modifications_for_specs extends filter_compiler_wrappers filter_file
    filter_shebang filter_system_paths find find_all_headers find_compilers find_first
    find_headers find_libraries find_required_file find_system_libraries fish_completion_path
    fix_darwin_install_name force_remove force_symlink gem get_cmake_prefix_path
    get_effective_jobs get_elf_compat get_escaped_text_output get_path_args_from_module_line
    gmake go host_platform ifnames inject_flags install install_test_root install_tree is_exe
    is_system_path java javac join_path keep_modification_time kentutils_htslib_include_dir
    kentutils_include_dir kentutils_lib_dir kernel_version libc_from_dynamic_linker
    library_extensions libtoolize lua luarocks macos_version maintainers make make_jobs
    make_package_test_rpath makedirs memoized meson microarchitecture_flags
    microarchitecture_flags_from_target mkdir mkdirp module_command move msbuild mvn ninja nmake
    octave on_package_attributes parse_dynamic_linker parse_elf patch perl perl_lib_dir pip
    prefix provides pypy python python_include python_platlib python_purelib qmake r_lib_dir
    raco rake readlink redistribute remove_directory_contents remove_linked_tree rename requires
    resource rmtree ruby run_after run_before sbang_install_path sbang_shebang_line scons
    set_env set_executable set_install_permissions shared_library_suffix sip sip_build spack_cc
    spack_cxx spack_f77 spack_fc static_library_suffix static_to_shared_library std_cmake_args
    std_meson_args std_pip_args substitute_version_in_url symlink test_part touch tty variant
    ver version waf when which which_string windows_sfn working_dir zsh_completion_path
    """.split()
)
