"""Helpers of the layer's tests: package repositories, requests and runs
made in temporary directories."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

LAYER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if LAYER not in sys.path:
    sys.path.insert(0, LAYER)

from stack_spack import finder  # noqa: E402
from stack_spack.context import BuildContext  # noqa: E402
from stack_spack.package_base import PackageBase  # noqa: E402

HEADER = "from spack.package import *\n"


def node(name, version="1.0", variants=None, deps=(), module=False, prefix=None, languages=("c", "cxx"),
         compiler=("gcc", "12.2.0"), target="zen2", os_="sles15", platform="linux", namespace="test",
         external=False):
    """A node of a request; `deps` are (name, types, virtuals) or names."""
    edges = []
    for d in deps:
        if isinstance(d, str):
            d = (d, ["build", "link"], [])
        dname, types, virtuals = d
        edges.append({"hash": dname, "name": dname, "types": list(types), "virtuals": list(virtuals)})
    return {
        "name": name, "version": version, "namespace": namespace,
        "module": module_name(namespace, name) if module else None,
        "variants": dict(variants or {}), "compiler": {"name": compiler[0], "version": compiler[1]},
        "languages": list(languages), "target": target, "platform": platform, "os": os_,
        "prefix": prefix or "/nonexistent/{}".format(name), "external": external, "dependencies": edges,
    }


def module_name(namespace, name):
    return "spack_repo.{}.packages.{}.package".format(namespace, name.replace("-", "_"))


class Workspace:
    """A temporary repository (`spack/<ns>/<dir>/package.py`), stage and
    prefixes."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="stack-py-test-")
        self.modules = {}

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def package(self, name, body, namespace="test", header=HEADER):
        d = self.path("spack", namespace, name.replace("-", "_"))
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, "package.py")
        with open(p, "w") as f:
            f.write(header + textwrap.dedent(body))
        self.modules[module_name(namespace, name)] = p
        return p

    def file(self, rel, text, mode=None):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(textwrap.dedent(text))
        if mode:
            os.chmod(p, mode)
        return p

    def request(self, root, nodes, jobs=2, flags=None, inject_env=None, wrappers=None):
        stage = self.path("stage")
        os.makedirs(self.path("stage", "src"), exist_ok=True)
        for n in nodes.values():
            if n["prefix"].startswith("/nonexistent/"):
                n["prefix"] = self.path("prefix", n["name"])
        comp = {k: shutil.which(v) for k, v in (("cc", "gcc"), ("cxx", "g++"), ("fc", "gfortran"),
                                                ("f77", "gfortran"))}
        comp.update({"wrappers": wrappers or {}, "flags": flags or {}, "inject_env": inject_env or {}})
        return {
            "api": 1, "package": root, "modules": dict(self.modules), "nodes": nodes,
            "stage": {"root": stage, "source": self.path("stage", "src")}, "jobs": jobs,
            "compiler": comp,
            "outputs": {"run_env": self.path("stage", ".stack-build-logic", "run-env.json"),
                        "result": self.path("stage", ".stack-build-logic", "result.json")},
        }

    def run(self, request, env=None):
        """Run run.py in a subprocess; (exit code, stdout, stderr)."""
        p = self.path("stage", ".stack-build-logic", "request.json")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            json.dump(request, f)
        e = dict(os.environ)
        e.update(env or {})
        proc = subprocess.run([sys.executable, "-I", "-B", os.path.join(LAYER, "run.py"), p],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=self.root)
        return proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")

    def output(self, key):
        with open(self.path("stage", ".stack-build-logic", key)) as f:
            return json.load(f)


def context(request):
    """An in-process build context (for spec and package tests)."""
    finder.forget_packages()
    finder.install(request.get("modules") or {})
    ctx = BuildContext(request)
    PackageBase.stack_build_context = ctx
    return ctx


class WorkspaceTest(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.cleanup)
        self._cwd = os.getcwd()
        self.addCleanup(os.chdir, self._cwd)


def have(*tools):
    return all(shutil.which(t) for t in tools)
