"""`PythonPackage` (`pip install --no-deps --no-build-isolation` into the
prefix) and `PythonExtension` (a package that installs a Python module)."""

import os
import re

from ..directives import build_system, depends_on, extends, when
from ..executable import Executable
from ..filelists import HeaderList, LibraryList, find
from ..fs import join_path, working_dir
from ..lang import classproperty
from ..package_base import Builder, PackageBase, register_builder


def _flatten(settings):
    for key, item in settings.items():
        if isinstance(item, dict):
            for value in _flatten(item):
                yield "{}={}".format(key, value)
        else:
            yield "{}={}".format(key, item)


class PythonExtension(PackageBase):
    @property
    def import_modules(self):
        modules = []
        pkg = self.spec["python"].package
        dirs = {getattr(pkg, "platlib", None), getattr(pkg, "purelib", None)} - {None}
        for directory in dirs:
            root = os.path.join(self.prefix, directory)
            for path in find(root, "__init__.py", recursive=True):
                modules.append(os.path.relpath(os.path.dirname(path), root).replace(os.sep, "."))
            for path in find(root, "*.py", recursive=False):
                modules.append(os.path.relpath(path, root)[:-3].replace(os.sep, "."))
        return [m for m in modules if re.match(r"[a-zA-Z0-9._]+$", m)
                and not any(m.startswith(s) for s in self.skip_modules)]

    @property
    def skip_modules(self):
        return []

    @property
    def bindir(self):
        return join_path(self.spec.prefix, "bin")

    def test_imports(self):
        pass


def _pypi_homepage(cls):
    if cls.pypi:
        return "https://pypi.org/project/{}/".format(cls.pypi.split("/")[0])
    return None


def _pypi_url(cls):
    if cls.pypi:
        return "https://files.pythonhosted.org/packages/source/{}/{}".format(cls.pypi[0], cls.pypi)
    return None


def _pypi_list_url(cls):
    if cls.pypi:
        return "https://pypi.org/simple/{}/".format(cls.pypi.split("/")[0])
    return None


class PythonPackage(PythonExtension):
    pypi = None
    build_system_class = "PythonPackage"
    default_buildsystem = "python_pip"
    install_time_test_callbacks = ["test_imports"]

    build_system("python_pip")

    with when("build_system=python_pip"):
        extends("python")
        depends_on("py-pip", type="build")
        depends_on("py-wheel", type="build")

    homepage = classproperty(_pypi_homepage)
    url = classproperty(_pypi_url)
    list_url = classproperty(_pypi_list_url)

    @property
    def python_spec(self):
        deps = self.spec.dependencies("python-venv") or self.spec.dependencies("python")
        return deps[0]

    @property
    def headers(self):
        return HeaderList([])

    @property
    def libs(self):
        return LibraryList([])


@register_builder("python_pip")
class PythonPipBuilder(Builder):
    phases = ("install",)
    legacy_methods = ("test_imports",)
    legacy_long_methods = ("install_options", "global_options", "config_settings")
    legacy_attributes = ("archive_files", "build_directory", "install_time_test_callbacks")
    install_time_test_callbacks = ["test_imports"]

    @staticmethod
    def std_args(cls):
        return [
            "-vvv", "--no-input", "--no-cache-dir", "--disable-pip-version-check", "install",
            "--no-deps", "--ignore-installed", "--no-build-isolation", "--no-warn-script-location",
            "--no-index",
        ]

    @property
    def build_directory(self):
        return self.pkg.stage.source_path

    def config_settings(self, spec, prefix):
        return {}

    def install_options(self, spec, prefix):
        return []

    def global_options(self, spec, prefix):
        return []

    def install(self, pkg, spec, prefix):
        python = spec["python"].command
        pip = Executable(python)
        pip.add_default_arg("-m", "pip")
        args = PythonPipBuilder.std_args(pkg) + ["--prefix={}".format(prefix)]
        settings = dict(self.config_settings(spec, prefix) or {})
        if spec.satisfies("%py-pip@22.1: %py-meson-python@0.11:"):
            settings["compile-args"] = "-j{}".format(pkg._ctx().make_jobs(pkg))
        for s in _flatten(settings):
            args.append("--config-settings={}".format(s))
        for o in self.install_options(spec, prefix):
            args.append("--install-option={}".format(o))
        for o in self.global_options(spec, prefix):
            args.append("--global-option={}".format(o))
        archive = pkg.stage.archive_file
        args.append(archive if archive and archive.endswith(".whl") else ".")
        with working_dir(self.build_directory):
            pip(*args)
