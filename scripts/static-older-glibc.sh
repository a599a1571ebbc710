#!/usr/bin/env bash
# Prove the static `stack`/`stack-wrap` pair (scripts/static-binary.sh, README "Installing on a
# cluster") on an older glibc than the one it was linked with: a Debian 11 (bullseye, glibc 2.31)
# minbase root made with debootstrap, entered with pivot_root in a private mount namespace. In it:
#
#   1. `stack --version`, `stack check` and `stack build` of the demo stack (a copy of stacks/demo*
#      and tests/fixtures/demo, bullseye's gcc 10 and tools), `stack audit` of the image;
#   2. `stack fetch` of the demo from an http mirror on loopback by host NAME (`localhost` and
#      `mirror.centre.test`, the latter only in the root's /etc/hosts), with the fixture tarballs
#      absent, so every byte comes over http and getaddrinfo runs glibc's name service switch;
#   3. a git source by host name (libgit2's own getaddrinfo for git://; http(s):// git remotes go
#      through reqwest, as the mirror fetches of 2 do), served by `git daemon` on loopback;
#   4. an unresolvable mirror host (`nosuch.invalid`) with `hosts: files dns myhostname` (RHEL 8's
#      default): a clean fetch error, not an abort. With STACK_NSSWITCH=system (nsswitch.conf as
#      it is) the static glibc loads bullseye's libnss_myhostname.so.2 and aborts (exit 134):
#      shown as the reason for the pinning (src/cli/nss.rs).
#
#   scripts/static-older-glibc.sh [DIST_DIR]      # default target/<host>/dist
#   ROOT=/scratch/bullseye scripts/static-older-glibc.sh   # reuse (or keep) the debootstrap root
#
# Needs: root (debootstrap, chroot, mount), debootstrap, the Debian archive (DEBIAN_MIRROR,
# default http://deb.debian.org/debian), python3 and git on the host, the static pair built.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)
dist=${1:-target/${host:-x86_64-unknown-linux-gnu}/dist}
mirror_url=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root (debootstrap and chroot need it)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
for t in python3 git; do command -v $t >/dev/null || fail "$t is not installed"; done
for exe in stack stack-wrap; do
    [ -x "$dist/$exe" ] || fail "$dist/$exe missing: build it with scripts/static-binary.sh"
done

# cluster-configs/local with bullseye's versions (dpkg -l in the root).
bullseye_cluster() {
    mkdir -p "$1"
    sed -e 's/^name: local/name: bullseye/' -e 's/^os: debian12/os: debian11/' -e 's/glibc@2.36/glibc@2.31/' \
        -e 's/gcc@12.2.0/gcc@10.2.1/' -e 's/zlib@1.2.13/zlib@1.2.11/' -e 's/perl@5.36.0/perl@5.32.1/' \
        -e 's/python@3.11.2/python@3.9.2/' -e 's/m4@1.4.19/m4@1.4.18/' -e 's/autoconf@2.71/autoconf@2.69/' \
        -e 's/automake@1.16.5/automake@1.16.3/' -e 's/libtool@2.4.7/libtool@2.4.6/' \
        -e 's/pkgconf@1.8.1/pkgconf@1.7.3/' -e 's/cmake@3.25.1/cmake@3.18.4/' -e 's/ninja@1.11.1/ninja@1.10.1/' \
        "$repo/cluster-configs/local/cluster.yaml" >"$1/cluster.yaml"
}
# A bare repository with one commit tagged v1.0 (an include/ tree).
git_repo() {
    local work="$scratch/git-work"
    git init -q --bare -b main "$1"
    git init -q -b main "$work"
    mkdir -p "$work/include"
    echo '#define HELLO_GIT 1' >"$work/include/hello-git.h"
    git -C "$work" add .
    git -C "$work" -c user.name=stack -c user.email=stack@localhost commit -qm v1.0
    git -C "$work" tag v1.0
    git -C "$work" push -q "$1" HEAD:refs/heads/main v1.0
}
# A stack with one package whose source is the git URL $2, in directory $1.
git_stack() {
    mkdir -p "$1/recipes"
    cat >"$1/recipes/hello-git.yaml" <<RECIPE
name: hello-git
description: headers from a git repository served by git daemon
versions:
  - {version: "1.0", git: $2, tag: v1.0}
build:
  system: generic
  install:
    - {copy: include/, to: include}
RECIPE
    cat >"$1/git.yaml" <<STACK
name: git-demo
version: "1"
mount: /user-environment
compiler: gcc
repos: [recipes]
environments:
  tools:
    specs: [hello-git]
STACK
}

scratch=$(mktemp -d)
server_pid=""
git_pid=""
cleanup() {
    for pid in $server_pid $git_pid; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$scratch"
}
trap cleanup EXIT
root=${ROOT:-$scratch/bullseye}
tools="gcc,g++,make,cmake,meson,ninja-build,autoconf,automake,libtool,pkgconf,m4,zlib1g-dev"
tools="$tools,python3,perl,libnss-myhostname"
if [ ! -e "$root/.stack-debootstrap-done" ]; then
    echo "== debootstrap --variant=minbase --include=$tools bullseye $root $mirror_url"
    start=$(date +%s)
    debootstrap --variant=minbase --include="$tools" bullseye "$root" "$mirror_url" >"$scratch/debootstrap.log" 2>&1 ||
        { tail -20 "$scratch/debootstrap.log"; fail "debootstrap"; }
    touch "$root/.stack-debootstrap-done"
    echo "   $(( $(date +%s) - start )) s, $(du -sh "$root" | cut -f1)"
fi

# The name service setup of an RHEL 8 login node: myhostname after files and dns.
sed -i 's/^hosts:.*/hosts:          files dns myhostname/' "$root/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n127.0.0.1 mirror.centre.test\n' >"$root/etc/hosts"
[ -e "$root/etc/resolv.conf" ] || : >"$root/etc/resolv.conf"

# The static pair and the shipped recipes, as a centre installs them (README).
rm -rf "$root/opt/stack" "$root/work" "$root/fetch-only" "$root/srv"
mkdir -p "$root/opt/stack/bin" "$root/opt/stack/share/stack" "$root/work/stacks" "$root/work/tests/fixtures"
cp "$dist/stack" "$dist/stack-wrap" "$root/opt/stack/bin/"
cp -r recipes patches "$root/opt/stack/share/stack/"
cp -r stacks/demo.yaml stacks/demo "$root/work/stacks/"
cp -r tests/fixtures/demo "$root/work/tests/fixtures/"
# bullseye's meson is 0.56.2; the demo's tally (meson) needs >= 0.60: the copy builds the rest.
sed -i 's/specs: \[hello-make, "tally +crc", demo-prebuilt\]/specs: [hello-make, demo-prebuilt]/' "$root/work/stacks/demo.yaml"
grep -q 'specs: \[hello-make, demo-prebuilt\]' "$root/work/stacks/demo.yaml" || fail "stacks/demo.yaml: tools specs changed"
bullseye_cluster "$root/work/cluster-configs/bullseye"
# For the fetches: the same recipes without the fixture tarballs, so only the mirror can serve.
mkdir -p "$root/fetch-only"
cp -r "$root/work/stacks" "$root/work/cluster-configs" "$root/fetch-only/"

# In the root: a private mount namespace with /proc and /dev, a clean environment. pivot_root,
# not chroot: the kernel refuses user namespaces (the build sandbox, the hooks) in a chroot.
in_root() {
    unshare -m --propagation private sh -c 'mount --bind "$0" "$0" && mount -t proc proc "$0/proc" &&
        mount --rbind /dev "$0/dev" && mkdir -p "$0/.oldroot" && cd "$0" && pivot_root . .oldroot &&
        PATH=/usr/bin:/bin umount -l /.oldroot && exec "$@"' \
        "$root" /usr/bin/env -i PATH=/opt/stack/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
cluster="--cluster cluster-configs/bullseye"

echo "== the root: $(in_root ldd --version | head -1); nsswitch: $(grep '^hosts:' "$root/etc/nsswitch.conf")"
linked=$(strings "$dist/stack" | grep -o 'GNU C Library[^)]*)' | head -1 || true)
echo "== stack --version (linked in: ${linked:-?})"
in_root stack --version
for dyn in target/release/stack target/debug/stack; do
    if [ -x "$dyn" ]; then
        echo "== before: $dyn (the default, dynamically linked build) in the root"
        cp "$dyn" "$root/opt/stack-dynamic"
        in_root /opt/stack-dynamic --version 2>&1 | head -2 || true
        rm -f "$root/opt/stack-dynamic"
        break
    fi
done
echo "== stack check stacks/demo.yaml $cluster"
in_root sh -c "cd /work && stack check stacks/demo.yaml $cluster"
echo "== stack build stacks/demo.yaml $cluster --build /tmp/demo; stack audit"
start=$(date +%s)
in_root sh -c "cd /work && stack build stacks/demo.yaml $cluster --build /tmp/demo >/tmp/demo.log 2>&1 || { tail -30 /tmp/demo.log; exit 1; }
    stack audit /tmp/demo/store.squashfs && ls -l /tmp/demo/store.squashfs"
echo "   built and audited in $(( $(date +%s) - start )) s"

echo "== stack mirror create, served over http on loopback (python3 -m http.server)"
in_root sh -c "cd /work && stack mirror create stacks/demo.yaml /srv/mirror $cluster >/dev/null"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.2; done; fail "nothing listens on $1"; }
port=$(free_port)
(cd "$root/srv/mirror" && exec python3 -m http.server --bind 127.0.0.1 "$port") >"$scratch/http.log" 2>&1 &
server_pid=$!
wait_port "$port"
# git: libgit2 resolves the host of a git:// remote itself (getaddrinfo in its socket stream;
# http(s):// remotes go through reqwest like the mirror fetches above). git daemon serves git://.
git_repo "$root/srv/git/hello.git"
git_port=$(free_port)
"$(git --exec-path)/git-daemon" --reuseaddr --export-all --base-path="$root/srv/git" --listen=127.0.0.1 --port="$git_port" \
    "$root/srv/git" >"$scratch/git-daemon.log" 2>&1 &
git_pid=$!
wait_port "$git_port"

for name in localhost mirror.centre.test; do
    echo "== stack fetch (no local tarballs) --mirror http://$name:$port/"
    in_root sh -c "cd /fetch-only && stack fetch stacks/demo.yaml $cluster --mirror http://$name:$port/ --cache /tmp/cache-$name"
done
echo "   http requests served: $(grep -c '"GET .* 200' "$scratch/http.log")"

echo "== git by host name: a recipe with git: git://mirror.centre.test:$git_port/hello.git"
git_stack "$root/fetch-only/git" "git://mirror.centre.test:$git_port/hello.git"
in_root sh -c "cd /fetch-only/git && stack fetch git.yaml --cluster ../cluster-configs/bullseye --cache /tmp/cache-git"

echo "== an unresolvable mirror host: stack fetch --mirror http://nosuch.invalid:$port/"
set +e
in_root sh -c "cd /fetch-only && stack fetch stacks/demo.yaml $cluster --mirror http://nosuch.invalid:$port/ --cache /tmp/cache-bad" >"$scratch/bad.log" 2>&1
rc=$?
set -e
grep -m3 -i 'nosuch.invalid' "$scratch/bad.log" || true
[ "$rc" = 1 ] || { cat "$scratch/bad.log"; fail "expected exit 1 (a fetch error), got $rc"; }
echo "   exit $rc: a fetch error naming the host"
echo "== the same with STACK_NSSWITCH=system (nsswitch.conf as it is: libnss_myhostname.so.2 of glibc 2.31)"
set +e
in_root sh -c "cd /fetch-only && STACK_NSSWITCH=system stack fetch stacks/demo.yaml $cluster --mirror http://nosuch.invalid:$port/ --cache /tmp/cache-bad2" >"$scratch/bad2.log" 2>&1
rc=$?
set -e
grep -m1 -o "Assertion.*" "$scratch/bad2.log" || true
echo "   exit $rc (134 = abort: why the static binary pins hosts to files and dns)"
echo "== all checks passed on $(in_root ldd --version | head -1)"
