#!/usr/bin/env bash
# Regenerate the release-style tarballs of the fixture stacks from tests/fixtures/<set>/src/:
# the demo stack (stacks/demo.yaml) and the reduced CXI-shaped stack (stacks/cxi-mini.yaml).
#
#   scripts/make-demo-tarballs.sh                 # write tests/fixtures/{demo,cxi-mini}/dist/ + SHA256SUMS
#   scripts/make-demo-tarballs.sh --check         # rebuild into a temp dir and compare with dist/
#   scripts/make-demo-tarballs.sh --set demo      # only one set (demo | cxi-mini | all)
#
# One <pkg>-<version>.tar.gz per directory of src/, each with the single top-level directory
# <pkg>-<version>/. Reproducible: sorted names, mtime 0, owner/group 0, normalised modes, gzip -n.
#   - libgreet (autotools): the tarball holds the GENERATED configure, Makefile.in, config.h.in,
#     aclocal.m4, build-aux/ and m4/ (autoreconf -fi run here), like a real release: building it
#     needs no autotools. Byte-identical output needs the same autoconf/automake/libtool versions
#     (Debian 12: 2.71 / 1.16.5 / 2.4.7).
#   - mini-libfabric (cxi-mini) likewise ships its generated configure; mini-libcxi does NOT (like
#     libcxi's git tags: the recipe runs its autogen.sh).
#   - demo-prebuilt (binary): src/ holds its C sources; the tarball holds the BUILT tree
#     (bin/demo-prebuilt and lib/libdemoprebuilt.so.2, linked WITHOUT rpath against a libgreet
#     built here from the libgreet tarball; bin/demo-prebuilt-config and the .pc file keep their
#     @@PREFIX@@/@@CC@@ placeholders). Byte-identical output needs the same gcc/binutils.
# The recipes in stacks/demo/recipes/ and stacks/cxi-mini/recipes/ pin the sha256s printed at the
# end; update them when a tarball changes.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fixtures="$root/tests/fixtures"
check=0
set_name=all

while [ $# -gt 0 ]; do
    case "$1" in
        --check) check=1 ;;
        --set) set_name="$2"; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "make-demo-tarballs: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

for tool in autoreconf tar gzip gcc make sha256sum; do
    command -v "$tool" >/dev/null || { echo "make-demo-tarballs: '$tool' is required" >&2; exit 2; }
done

export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
umask 022
work=$(mktemp -d "${TMPDIR:-/tmp}/demo-tarballs.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$set_name" in
    all) sets=(demo cxi-mini) ;;
    demo|cxi-mini) sets=("$set_name") ;;
    *) echo "make-demo-tarballs: unknown set '$set_name' (demo, cxi-mini, all)" >&2; exit 2 ;;
esac

# pack NAME-VERSION: $stage/NAME-VERSION -> $dist/NAME-VERSION.tar.gz
pack() {
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu \
        --mode='u+rwX,go+rX,go-w' -C "$stage" -cf - "$1" | gzip -n -9 >"$dist/$1.tar.gz"
}

# copy a fixture source tree into the stage (without editor/build droppings)
stage_copy() {
    cp -a "$src/$1" "$stage/$1"
    find "$stage/$1" \( -name '*~' -o -name '*.o' -o -name '*.swp' \) -delete
}

# generate configure & co. in a staged autotools tree, like `make dist` of a release
stage_autoreconf() {
    (
        cd "$stage/$1"
        mkdir -p m4
        autoreconf -fi >"$work/autoreconf-$1.log" 2>&1 || { cat "$work/autoreconf-$1.log" >&2; exit 1; }
        rm -rf autom4te.cache
        find . -name '*~' -delete
    )
}

make_demo() {
# --- libgreet: autotools, configure generated here -------------------------------------------
stage_copy libgreet-1.0
stage_autoreconf libgreet-1.0
pack libgreet-1.0

# --- plain source trees ----------------------------------------------------------------------
for pkg in libcalc-1.2 tally-0.3 hello-make-1.0 demo-headers-1.0; do
    stage_copy "$pkg"
    pack "$pkg"
done

# --- demo-prebuilt: a binary tree built from csrc/ against a throwaway libgreet ---------------
greet_build="$work/greet-build"
greet_prefix="$work/greet-prefix"
mkdir -p "$greet_build"
tar -C "$greet_build" -xzf "$dist/libgreet-1.0.tar.gz"
(
    cd "$greet_build/libgreet-1.0"
    ./configure --prefix="$greet_prefix" --disable-static >"$work/greet-configure.log" 2>&1 \
        || { cat "$work/greet-configure.log" >&2; exit 1; }
    make -s install >"$work/greet-make.log" 2>&1 || { cat "$work/greet-make.log" >&2; exit 1; }
)
pb_src="$src/demo-prebuilt-2.1"
pb="$stage/demo-prebuilt-2.1"
mkdir -p "$pb/bin" "$pb/lib/pkgconfig" "$pb/include" "$pb/share/doc/demo-prebuilt" "$work/obj"
cp "$pb_src/include/demoprebuilt.h" "$pb/include/"
cp "$pb_src/bin/demo-prebuilt-config" "$pb/bin/"
cp "$pb_src/lib/pkgconfig/demo-prebuilt.pc" "$pb/lib/pkgconfig/"
cp "$pb_src/README" "$pb/share/doc/demo-prebuilt/"
cflags=(-O2 -g0 -ffile-prefix-map="$work"=. -ffile-prefix-map="$pb_src"=. -I"$pb_src/include" -I"$greet_prefix/include")
gcc "${cflags[@]}" -fPIC -c -o "$work/obj/libdemoprebuilt.o" "$pb_src/csrc/libdemoprebuilt.c"
gcc "${cflags[@]}" -c -o "$work/obj/demo-prebuilt.o" "$pb_src/csrc/demo-prebuilt.c"
# No -rpath anywhere: the installed package only finds its libraries after relocation.
gcc -shared -s -Wl,-soname,libdemoprebuilt.so.2 -o "$pb/lib/libdemoprebuilt.so.2.1.0" \
    "$work/obj/libdemoprebuilt.o" -L"$greet_prefix/lib" -lgreet
ln -s libdemoprebuilt.so.2.1.0 "$pb/lib/libdemoprebuilt.so.2"
ln -s libdemoprebuilt.so.2 "$pb/lib/libdemoprebuilt.so"
gcc -s -o "$pb/bin/demo-prebuilt" "$work/obj/demo-prebuilt.o" \
    -L"$pb/lib" -ldemoprebuilt -L"$greet_prefix/lib" -lgreet
if readelf -d "$pb/bin/demo-prebuilt" "$pb/lib/libdemoprebuilt.so.2.1.0" | grep -Eq 'RPATH|RUNPATH'; then
    echo "make-demo-tarballs: demo-prebuilt must not carry an RPATH" >&2
    exit 1
fi
pack demo-prebuilt-2.1
}

make_cxi_mini() {
    stage_copy mini-cassini-headers-1.0
    pack mini-cassini-headers-1.0
    stage_copy mini-libcxi-1.0          # git-like: no configure, the recipe runs autogen.sh
    pack mini-libcxi-1.0
    stage_copy mini-curl-4.0
    pack mini-curl-4.0
    stage_copy mini-libfabric-2.0       # release-like: generated configure included
    stage_autoreconf mini-libfabric-2.0
    pack mini-libfabric-2.0
}

status=0
for set in "${sets[@]}"; do
    src="$fixtures/$set/src"
    out="$fixtures/$set/dist"
    stage="$work/$set/stage"
    dist="$work/$set/dist"
    mkdir -p "$stage" "$dist"
    case "$set" in
        demo) make_demo ;;
        cxi-mini) make_cxi_mini ;;
    esac
    (cd "$dist" && sha256sum -- *.tar.gz >SHA256SUMS)
    if [ "$check" = 1 ]; then
        if diff -u "$out/SHA256SUMS" "$dist/SHA256SUMS"; then
            echo "make-demo-tarballs: $out is up to date"
        else
            echo "make-demo-tarballs: $out differs from a fresh build (see above)" >&2
            status=1
        fi
        continue
    fi
    mkdir -p "$out"
    rm -f "$out"/*.tar.gz
    cp "$dist"/*.tar.gz "$dist/SHA256SUMS" "$out/"
    echo "wrote $(ls "$out"/*.tar.gz | wc -l) tarballs to $out"
    cat "$out/SHA256SUMS"
done
exit $status
