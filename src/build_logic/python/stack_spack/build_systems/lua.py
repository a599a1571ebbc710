"""`LuaPackage`: `luarocks --tree=<prefix> make` with a luarocks config
listing the Lua trees of the dependencies."""

import os

from ..directives import build_system, depends_on, extends, when
from ..executable import Executable
from ..filelists import find
from ..package_base import Builder, PackageBase, register_builder


class LuaPackage(PackageBase):
    build_system_class = "LuaPackage"
    default_buildsystem = "lua"
    list_depth = 1

    build_system("lua")

    with when("build_system=lua"):
        depends_on("lua-lang")
        with when("^[virtuals=lua-lang] lua"):
            extends("lua")
        with when("^[virtuals=lua-lang] lua-luajit"):
            extends("lua-luajit+lualinks")
        with when("^[virtuals=lua-lang] lua-luajit-openresty"):
            extends("lua-luajit-openresty+lualinks")

    @property
    def lua(self):
        return Executable(self.spec["lua-lang"].prefix.bin.lua)

    @property
    def luarocks(self):
        return Executable(self.spec["lua-lang"].prefix.bin.luarocks)


@register_builder("lua")
class LuaBuilder(Builder):
    phases = ("unpack", "generate_luarocks_config", "preprocess", "install")
    legacy_methods = ("luarocks_args",)

    def unpack(self, pkg, spec, prefix):
        archive = pkg.stage.archive_file
        if archive is not None and os.path.splitext(archive)[1] == ".rock":
            out = pkg.luarocks("unpack", archive, output=str)
            os.chdir(out.split("\n")[2])

    def _luarocks_config_path(self):
        return os.path.join(self.pkg.stage.source_path, "spack_luarocks.lua")

    def generate_luarocks_config(self, pkg, spec, prefix):
        lines = []
        for d in spec.traverse(deptype=("build", "run")):
            if d is spec or os.path.isdir(os.path.join(d.prefix, "lib", "luarocks")) or d.name.startswith("lua"):
                lines.append('{{ name = "{}", root = "{}" }};'.format(d.name, d.prefix))
        with open(self._luarocks_config_path(), "w", encoding="utf-8") as f:
            f.write('deps_mode="all"\nrocks_trees={{\n{}\n}}\n'.format("\n".join(lines)))

    def preprocess(self, pkg, spec, prefix):
        pass

    def luarocks_args(self):
        return []

    def install(self, pkg, spec, prefix):
        rock = "."
        specs = find(".", "*.rockspec", recursive=False)
        if specs:
            rock = specs[0]
        args = list(self.luarocks_args()) + [rock]
        pkg.luarocks("--tree=" + prefix, "make", *args)

    def setup_build_environment(self, env):
        env.set("LUAROCKS_CONFIG", self._luarocks_config_path())
        self.pkg.setup_build_environment(env)
