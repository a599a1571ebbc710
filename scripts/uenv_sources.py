"""Facts for scripts/uenv-mirror.py: where else a release is when its archive is not reachable
byte for byte here, and the recipe changes a build from that other source needs.
"""

import json
import re

# Facts about upstream projects whose release archive is not reachable byte for byte here: where
# else the same release is (its repository and tag, Debian's source package), and what a build
# from that other source needs. "{v}" is the version, "{v_}" with underscores.
SUBSTITUTES = {
    # Debian's orig tarball of the same release, repacked or recompressed.
    "gcc": [{"debian": "gcc-14", "orig": "gcc-14_{v}.orig.tar.gz", "member": "gcc-{v}-dfsg.tar.xz",
             "fix": "gcc-dfsg"}],
    "gmp": [{"debian": "gmp", "orig": "gmp_{v}+dfsg.orig.tar.xz", "fix": "doc-stub"}],
    "autoconf": [{"debian": "autoconf", "orig": "autoconf_{v}.orig.tar.xz"}],
    "libtool": [{"debian": "libtool", "orig": "libtool_{v}.orig.tar.xz"}],
    "xz": [{"debian": "xz-utils", "orig": "xz-utils_{v}.orig.tar.xz"}],
    "bison": [{"debian": "bison", "orig": "bison_{v}+dfsg.orig.tar.xz", "fix": "bison-dfsg"}],
    "boost": [{"debian": "boost1.90", "orig": "boost1.90_{v}.orig.tar.xz", "fix": "boost-jamgram"}],
    "hdf5": [{"debian": "hdf5", "orig": "hdf5_{v}+repack.orig.tar.gz"}],
    "gsl": [{"debian": "gsl", "orig": "gsl_{v}+dfsg.orig.tar.gz", "fix": "doc-stub"}],
    "texinfo": [{"debian": "texinfo", "other": ["6.8"], "orig": "texinfo_{v}.orig.tar.xz",
                 "url": "https://ftp.gnu.org/gnu/texinfo/texinfo-{v}.tar.xz"}],
    "papi": [{"debian": "papi", "orig": "papi_{v}.orig.tar.gz"}],
    "metis": [{"debian": "metis", "orig": "metis_{v}.dfsg.orig.tar.xz"}],
    "flex": [{"debian": "flex", "orig": "flex_{v}.orig.tar.gz"}],
    # upstream's bug-fix patches are only on ftp.gnu.org
    "readline": [{"drop_unreachable_patches": True}],
    # The release tag of the upstream repository (missing_ok: paths a fetched snapshot lacks,
    # left out of the tree).
    "cmake": [{"git": "Kitware/CMake", "tag": "v{v}"}],
    "curl": [{"git": "curl/curl", "tag": "curl-{v_}", "bootstrap": True}],
    "json-c": [{"git": "json-c/json-c", "tag": "json-c-{v}-*"}],
    "libuv": [{"git": "libuv/libuv", "tag": "v{v}", "bootstrap": True, "fix": "autogen"}],
    "libyaml": [{"git": "yaml/libyaml", "tag": "{v}", "bootstrap": True}],
    "libxml2": [{"git": "GNOME/libxml2", "tag": "v{v}", "bootstrap": True}],
    "libfabric": [{"git": "ofiwg/libfabric", "tag": "v{v}", "bootstrap": True}],
    # configure.ac's PKG_CHECK_MODULES needs pkg.m4 when bootstrapped (a release archive's
    # configure is generated already)
    "libnl": [{"git": "thom311/libnl", "tag": "libnl{v_}", "bootstrap": True, "bootstrap_deps": ["pkgconf"]}],
    "libaec": [{"git": "MathisRosenhauer/libaec", "tag": "v{v}"}],
    "netcdf-c": [{"git": "Unidata/netcdf-c", "tag": "v{v}", "missing_ok": ["docs/"]}],
    "netcdf-fortran": [{"git": "Unidata/netcdf-fortran", "tag": "v{v}", "missing_ok": ["docs/"]}],
    "netcdf-cxx4": [{"git": "Unidata/netcdf-cxx4", "tag": "v{v}"}],
    "fmt": [{"git": "fmtlib/fmt", "tag": "{v}"}],
    "ncurses": [{"git": "ThomasDickey/ncurses-snapshots", "tag": "v{v_}"}],
    "patchelf": [{"git": "NixOS/patchelf", "tag": "{v}", "bootstrap": True}],
    "pkgconf": [{"git": "pkgconf/pkgconf", "tag": "pkgconf-{v}", "bootstrap": True}],
    # Another release: the fetched repositories and Debian's pool stop before the planned one.
    "mpfr": [{"debian": "mpfr4", "other": ["4.2.2"], "orig": "mpfr4_{v}.orig.tar.xz",
              "url": "https://ftp.gnu.org/gnu/mpfr/mpfr-{v}.tar.xz"}],
    "m4": [{"debian": "m4", "other": ["1.4.19"], "orig": "m4_{v}.orig.tar.xz",
            "url": "https://ftp.gnu.org/gnu/m4/m4-{v}.tar.xz"}],
    "automake": [{"debian": "automake-1.17", "other": ["1.17"], "orig": "automake-1.17_{v}.orig.tar.xz",
                  "url": "https://ftp.gnu.org/gnu/automake/automake-{v}.tar.xz"}],
    "python": [{"debian": "python3.13", "other": ["3.13.15", "3.13.5"], "orig": "python3.13_{v}.orig.tar.xz",
                "url": "https://www.python.org/ftp/python/{v}/Python-{v}.tar.xz"}],
    "perl": [{"debian": "perl", "other": ["5.42.3", "5.40.1"], "orig": "perl_{v}.orig.tar.xz",
              "url": "https://www.cpan.org/src/5.0/perl-{v}.tar.xz"}],
    "openssl": [{"debian": "openssl", "other": ["3.5.7"], "orig": "openssl_{v}.orig.tar.gz",
                 "url": "https://www.openssl.org/source/openssl-{v}.tar.gz"}],
    "lua": [{"debian": "lua5.4", "other": ["5.4.7", "5.4.9"], "orig": "lua5.4_{v}.orig.tar.gz",
             "url": "https://www.lua.org/ftp/lua-{v}.tar.gz"}],
    # kokkos' identical older releases (4.3) need a patch of a commit no fetched repository has
    "kokkos": [{"git": "kokkos/kokkos", "tag": "{v}", "other": ["4.6.01"], "before_older": True}],
    "kokkos-kernels": [{"git": "kokkos/kokkos-kernels", "tag": "{v}", "other": ["4.6.01"], "before_older": True}],
    # a git version whose fetched repository lacks a large blob: the tree without it
    "kokkos-tools": [{"git_missing_ok": ["profiling/perfetto-connector/perfetto/"], "fix": "no-perfetto"}],
    "zlib-ng": [{"git": "zlib-ng/zlib-ng", "tag": "{v}", "other": ["2.2.2"]}],
    "openblas": [{"git": "OpenMathLib/OpenBLAS", "tag": "v{v}", "other": ["0.3.28"]}],
}

# Resources (a recipe's extra archives) whose archive is not reachable byte for byte here: the
# sha256 of the planned archive -> Debian's file of the same release (its sha256 is read from
# Debian's index). The overlay names that file instead.
RESOURCE_SUBSTITUTES = {
    # luarocks 3.11.1 (lua's resource): Debian's +dfsg repack of 3.8.0 (the pool here has no 3.11.1)
    "c3fb3d960dffb2b2fe9de7e3cb004dc4d0b34bb3d342578af84f84325c669102":
        {"debian_file": "luarocks_3.8.0+dfsg1.orig.tar.xz"},
}

BOOTSTRAP_DEPS = ["autoconf", "automake", "libtool", "m4"]


def bootstrap_deps(entries):
    """The build dependencies a bootstrapped git tree adds: the autotools, and an entry's own
    `bootstrap_deps` (the packages whose m4 macros its configure.ac calls)."""
    extra = [d for e in entries if e.get("bootstrap") for d in e.get("bootstrap_deps", [])]
    return BOOTSTRAP_DEPS + extra


def add_build_deps(t, deps):
    """Recipe text T with DEPS added as unconditional build dependencies, those it does not have
    unconditionally already (libfabric has the autotools only `when: "@main"`)."""
    have = set()
    for line in t.splitlines():
        m = re.match(r"  - \{?spec: \"?([a-z0-9-]+)|  - ([a-z0-9-]+)\s*$", line)
        if m and "when:" not in line:
            have.add(m.group(1) or m.group(2))
    add = "".join(f"  - {{spec: {d}, type: build}}\n" for d in deps if d not in have)
    if not add:
        return t
    if re.search(r"(?m)^dependencies:\s*\[\]\s*$", t):
        return re.sub(r"(?m)^dependencies:\s*\[\]\s*$", "dependencies:\n" + add.rstrip("\n"), t)
    if re.search(r"(?m)^dependencies:\s*$", t):
        return re.sub(r"(?m)^dependencies:\s*\n", lambda _: "dependencies:\n" + add, t, count=1)
    return t.replace("\nbuild:\n", "\ndependencies:\n" + add + "build:\n", 1)


def fix_gcc_dfsg(t):
    """Debian's -dfsg gcc lacks the GFDL hook documentation: the s-tm-texi check that compares
    it (in `all-gcc` from gcc 13 on, and again at install) is made a plain stamp."""
    stamp = ("      - [sed, -i, -e, 's|^s-tm-texi: build/genhooks|s-tm-texi:\\n\\t$(STAMP) $@\\n"
             "dfsg-unused-tm-texi: build/genhooks|', gcc/Makefile.in]\n")
    t = t.replace("    pre_configure:\n", "    pre_configure:\n" + stamp, 1)
    return t


def add_step(t, phase, argv):
    """Add the command ARGV (a YAML flow list) at the start of build.steps.PHASE."""
    line = f"      - {argv}\n"
    if re.search(rf"(?m)^    {phase}:\n", t):
        return re.sub(rf"(?m)^    {phase}:\n", lambda m: m.group(0) + line, t, count=1)
    if re.search(r"(?m)^  steps:\n", t):
        return re.sub(r"(?m)^  steps:\n", lambda m: m.group(0) + f"    {phase}:\n" + line, t, count=1)
    return re.sub(r"(?m)^build:\n", lambda m: m.group(0) + f"  steps:\n    {phase}:\n" + line, t, count=1)


def fix_doc_stub(t):
    """A +dfsg tarball without the GFDL manual (gmp has no doc/, gsl's doc/ lacks its sources):
    configure still lists doc/Makefile, so a doc/Makefile.in whose targets do nothing stands in."""
    targets = ("all install install-data install-exec uninstall check installcheck clean distclean "
               "mostlyclean maintainer-clean info dvi pdf ps html install-info install-dvi install-html "
               "install-pdf install-ps install-strip tags ctags distdir")
    script = f"mkdir -p doc && printf '%s:\\n\\t@:\\n' '{targets}' > doc/Makefile.in"
    return add_step(t, "pre_configure", json.dumps(["sh", "-c", script]))


def fix_bison_dfsg(t):
    """Debian's +dfsg bison lacks doc/bison.texi (GFDL), which the top Makefile needs to extract the
    examples and to make the manual: an empty manual stands in, and the manual's outputs are given
    one old date with their inputs so that make never runs makeinfo or help2man for them. The
    manual's two rules that would still run on the built bison (`doc/bison.help` from `src/bison`,
    then perl over `cross-options.texi` and `bison.info.bak`) lose their prerequisites: perl is no
    dependency of bison, and the stand-in manual has nothing for them to do."""
    script = ("printf '@setfilename bison.info\\n' > doc/bison.texi && mkdir -p doc/figs && "
              "touch -d 2000-01-01 doc/bison.info doc/bison.help doc/figs/example.txt "
              "doc/figs/example-reduce.txt doc/figs/example-shift.txt doc/*.texi "
              "build-aux/cross-options.pl src/getargs.c && "
              "sed -i -e 's|^\\(@CROSS_COMPILING_FALSE@$(top_srcdir)/doc/bison.help:\\) src/bison$(EXEEXT)$|\\1|' "
              "-e 's|^all-local: $(srcdir)/$(doc_bison).info.bak$|all-local:|' Makefile.in")
    return add_step(t, "pre_configure", json.dumps(["sh", "-c", script]))


def fix_autogen(t):
    """A git tree whose autogen.sh writes files configure.ac includes (libuv's
    m4/libuv-extra-automake-flags.m4): run ./autogen.sh, not plain autoreconf."""
    return re.sub(r"(?m)^  system: autotools\n", lambda m: m.group(0) + "  autogen: true\n", t, count=1)


def fix_no_perfetto(t):
    """kokkos-tools without perfetto's single-header SDK (the fetched repository lacks the blob):
    the perfetto connector is not added to the build."""
    return add_step(t, "pre_configure", json.dumps(["sed", "-i", "/perfetto-connector/d", "CMakeLists.txt"]))


def fix_boost_jamgram(t):
    """Debian's boost orig tarball is repacked without b2's generated parser (its rules remove
    tools/build/src/engine/jamgram.{cpp,hpp} and make them again with bison, as here before the
    bootstrap); upstream's release archive has them. bison becomes a build dependency."""
    script = "cd tools/build && bison -y -d -o src/engine/jamgram.cpp src/engine/jamgram.y"
    return add_build_deps(add_step(t, "pre_configure", json.dumps(["sh", "-c", script])), ["bison"])


FIXES = {"gcc-dfsg": fix_gcc_dfsg, "doc-stub": fix_doc_stub, "bison-dfsg": fix_bison_dfsg,
         "autogen": fix_autogen, "no-perfetto": fix_no_perfetto, "boost-jamgram": fix_boost_jamgram}
