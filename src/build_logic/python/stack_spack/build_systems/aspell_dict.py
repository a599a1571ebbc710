"""`AspellDictPackage`: an aspell dictionary, configured for its aspell."""

import os

from ..directives import extends
from ..executable import Executable
from ..fs import filter_file
from .autotools import AutotoolsBuilder, AutotoolsPackage


class AspellBuilder(AutotoolsBuilder):
    def configure(self, pkg, spec, prefix):
        aspell = spec["aspell"].prefix.bin.aspell
        prezip = spec["aspell"].prefix.bin.prezip
        Executable("/bin/sh")("./configure", "--vars", "ASPELL={}".format(aspell),
                              "PREZIP={}".format(prezip), "DESTDIR={}".format(prefix))


class AspellDictPackage(AutotoolsPackage):
    extends("aspell", when="build_system=autotools")
    AutotoolsBuilder = AspellBuilder

    def patch(self):
        aspell_spec = self.spec["aspell"]
        aspell = aspell_spec.command
        dictdir = aspell("dump", "config", "dict-dir", output=str).strip()
        datadir = aspell("dump", "config", "data-dir", output=str).strip()
        dictdir = os.path.relpath(dictdir, aspell_spec.prefix)
        datadir = os.path.relpath(datadir, aspell_spec.prefix)
        filter_file(r"^dictdir=.*$", "dictdir=/{}".format(dictdir), "configure")
        filter_file(r"^datadir=.*$", "datadir=/{}".format(datadir), "configure")
