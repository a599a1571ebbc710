#!/usr/bin/env python3
"""Derive a stackinator cluster directory for this machine from alps-cluster-config's eiger.

    scripts/uenv-cluster.py ALPS_CLUSTER_CONFIG OUT [--mpich-tarball FILE]

Writes OUT/eiger/ (packages.yaml, repos.yaml, network.yaml -> ../site/network/zen/network.yaml,
the same layout as alps-cluster-config, so the node type `zen` still gives the target zen2) and
OUT/site/ (the network file and the site Spack repository). Everything is eiger's, read from
ALPS_CLUSTER_CONFIG at run time, except the deviations this machine needs; each is printed with
its reason. Nothing of alps-cluster-config is kept in this repository: OUT is scratch.

The deviations:
- the system gcc is this machine's (version and paths of /usr/bin/gcc-12, g++-12, gfortran-12);
- externals that do not exist here are dropped (xpmem, HPE's libfabric under /opt/cray), those
  that do get this machine's version (slurm, rdma-core);
- the network MPI: the recipe asks for `cray-mpich`, whose binaries HPE does not publish. The site
  repository's cray_mpich is replaced by a package of the same name that builds MPICH from source
  (MPICH is what cray-mpich derives from: same ABI, libmpi.so.12, same mpicc/mpicxx/mpifort) over
  the same libfabric. Its source is Debian's mpich orig tarball (give it with --mpich-tarball to
  record its sha256; the default is the sha256 of Debian bookworm's mpich_4.0.2.orig.tar.xz).
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

import yaml

# Debian bookworm's mpich 4.0.2-3: mpich_4.0.2.orig.tar.xz (sha256 from its .dsc).
MPICH_ORIG = "mpich_4.0.2.orig.tar.xz"
MPICH_SHA256 = "b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860"
MPICH_VERSION = "4.0.2"

STANDIN = '''\
# Written by stack's scripts/uenv-cluster.py for a machine without HPE's cray-mpich binaries.
from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

from spack.package import *


class CrayMpich(AutotoolsPackage):
    """MPICH {mpich_version} built from source in the place of HPE Cray MPICH, whose binaries
    are not public: the same ABI (libmpi.so.12) and compiler wrappers, over the same libfabric."""

    homepage = "https://www.mpich.org"

    for _v in {versions!r}:
        version(
            _v,
            sha256="{sha256}",
            url="https://deb.debian.org/debian/pool/main/m/mpich/{orig}",
        )

    variant("cuda", default=False, description="not available in the stand-in")
    variant("rocm", default=False, description="not available in the stand-in")
    conflicts("+cuda", msg="the MPICH stand-in for cray-mpich has no GPU support")
    conflicts("+rocm", msg="the MPICH stand-in for cray-mpich has no GPU support")

    provides("mpi")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("fortran", type="build")
    depends_on("libfabric@1:", type="link")
    # MPICH 4.0.2's configure (with these arguments) stops with "Python 3 is required but not
    # found" when no python3 is on PATH; Spack's mpich declares python only for @5:.
    depends_on("python@3:", type="build")
    # src/mpl's config.status writes include/mplconfig.h with perl; without perl it only warns
    # ("perl: command not found") and make stops later on the missing header.
    depends_on("perl", type="build")

    def configure_args(self):
        return [
            "--with-device=ch4:ofi",
            "--with-libfabric={{0}}".format(self.spec["libfabric"].prefix),
            "--with-hwloc=embedded",
            "--enable-fortran=all",
            "--enable-romio",
            "--disable-doc",
        ]

    def flag_handler(self, name, flags):
        # As Spack's mpich: gfortran 10 and later refuse MPICH's Fortran sources (the same routine
        # called with arguments of different types) without this flag; MPICH's configure stops.
        if name == "fflags" and self.spec.satisfies("%gcc@10:"):
            flags.append("-fallow-argument-mismatch")
        return flags, None, None
'''


def tool_version(path):
    out = subprocess.run([path, "-dumpfullversion"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def dpkg_version(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout:
        return None
    v = re.sub(r"^[0-9]+:", "", r.stdout)
    return re.split(r"[-+~]", v)[0]


def load(path):
    with open(path) as f:
        return yaml.safe_load(f) or {}


def dump(path, data, header):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(header)
        yaml.safe_dump(data, f, sort_keys=False, default_flow_style=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("alps_cluster_config")
    ap.add_argument("out")
    ap.add_argument("--mpich-tarball", help="Debian's mpich orig tarball (its sha256 is recorded)")
    a = ap.parse_args()
    src = os.path.abspath(a.alps_cluster_config)
    out = os.path.abspath(a.out)
    eiger = os.path.join(src, "eiger")
    deviations = []

    def deviate(what, why):
        deviations.append((what, why))

    # packages.yaml
    pk = load(os.path.join(eiger, "packages.yaml"))
    pkgs = pk.setdefault("packages", {})
    gcc = "/usr/bin/gcc-12"
    if not os.path.exists(gcc):
        sys.exit(f"{gcc} does not exist: this script is written for Debian 12's gcc-12")
    v = tool_version(gcc)
    old = pkgs["gcc"]["externals"][0]["spec"]
    pkgs["gcc"]["externals"] = [{
        "spec": f"gcc@{v} languages='c,c++,fortran'",
        "prefix": "/usr",
        "extra_attributes": {"compilers": {
            "c": "/usr/bin/gcc-12", "cxx": "/usr/bin/g++-12", "fortran": "/usr/bin/gfortran-12"}},
    }]
    deviate(f"gcc external: `{old}` -> `gcc@{v}` (/usr/bin/gcc-12, g++-12, gfortran-12)",
            "the system gcc of this machine (Debian 12)")
    for name, deb, probe in [("slurm", "slurm-wlm", None), ("rdma-core", "libibverbs-dev", None),
                             ("xpmem", None, "/usr/include/xpmem.h")]:
        if name not in pkgs:
            continue
        ext = pkgs[name].get("externals") or []
        have = dpkg_version(deb) if deb else (probe and os.path.exists(probe))
        if not have:
            del pkgs[name]
            deviate(f"external `{name}` ({', '.join(e['spec'] for e in ext)}) removed",
                    "not installed on this machine" + (f" (no {probe})" if probe else ""))
            continue
        new = []
        for e in ext:
            spec = re.sub(r"@[^ ]+", f"@{have}", e["spec"], count=1)
            if spec != e["spec"]:
                deviate(f"external `{e['spec']}` -> `{spec}`",
                        f"the version installed here (Debian package {deb})")
            new.append({**e, "spec": spec})
        pkgs[name]["externals"] = new
    dump(os.path.join(out, "eiger", "packages.yaml"), pk,
         "# eiger's packages.yaml (alps-cluster-config) for this machine: scripts/uenv-cluster.py\n")

    # network.yaml (a symlink into site/network/zen, as in alps-cluster-config)
    net_src = os.path.realpath(os.path.join(eiger, "network.yaml"))
    node_type = os.path.basename(os.path.dirname(net_src))
    net = load(net_src)
    lf = net.get("packages", {}).get("libfabric", {})
    ext = lf.pop("externals", None)
    if ext:
        deviate("libfabric externals " + ", ".join(f"`{e['spec']}` at {e['prefix']}" for e in ext)
                + " removed", "HPE's libfabric builds under /opt/cray do not exist here; libfabric is built")
    net_out = os.path.join(out, "site", "network", node_type, "network.yaml")
    dump(net_out, net, f"# alps-cluster-config site/network/{node_type}/network.yaml for this machine\n")
    link = os.path.join(out, "eiger", "network.yaml")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join("..", "site", "network", node_type, "network.yaml"), link)

    # repos.yaml and the site repository
    repos = load(os.path.join(eiger, "repos.yaml"))
    dump(os.path.join(out, "eiger", "repos.yaml"), repos, "# eiger's repos.yaml\n")
    for rel in repos.get("repos", []):
        rsrc = os.path.normpath(os.path.join(eiger, rel))
        rout = os.path.normpath(os.path.join(out, "eiger", rel))
        if os.path.exists(rout):
            shutil.rmtree(rout)
        shutil.copytree(rsrc, rout, symlinks=False)
        mp = os.path.join(rout, "packages", "cray_mpich")
        if os.path.isdir(mp):
            versions = re.findall(r'^    "([0-9.]+)": \{', open(os.path.join(mp, "package.py")).read(), re.M)
            shutil.rmtree(mp)
            os.makedirs(mp)
            sha = MPICH_SHA256
            if a.mpich_tarball:
                sha = hashlib.sha256(open(a.mpich_tarball, "rb").read()).hexdigest()
            with open(os.path.join(mp, "package.py"), "w") as f:
                f.write(STANDIN.format(versions=versions, sha256=sha, orig=MPICH_ORIG,
                                       mpich_version=MPICH_VERSION))
            deviate(f"site package cray-mpich ({', '.join(versions)}) builds MPICH {MPICH_VERSION} "
                    f"from source ({MPICH_ORIG}, Debian bookworm) over the same libfabric",
                    "HPE's cray-mpich binaries (jfrog.svc.cscs.ch) are not public; MPICH is the MPI "
                    "cray-mpich derives from (same ABI)")

    print(f"cluster directory: {out}/eiger (from {eiger})")
    print("deviations from eiger:")
    for what, why in deviations:
        print(f"  - {what}\n      because: {why}")


if __name__ == "__main__":
    main()
