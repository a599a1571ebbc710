"""`Prefix`: an installation prefix, a `str` whose attributes are
subdirectories (`prefix.lib`, `prefix.bin.mpicc`, `prefix.share.man`)."""

import os


class Prefix(str):
    """A path; attribute access joins a component (`prefix.lib64`),
    `join()` joins any text (`prefix.join("lib/pkgconfig")`)."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Prefix(os.path.join(self, name))

    def join(self, string):  # noqa: D401 - path join, not str.join
        return Prefix(os.path.join(self, str(string)))

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__.update(d)
