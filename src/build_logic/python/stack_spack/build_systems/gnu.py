"""`GNUMirrorPackage`: downloads from the gnu mirrors; the package gives the path
on a mirror (`gnu_mirror_path`), `urls` is that path on each mirror."""

from ..package_base import PackageBase
from ..urls import join_url


class GNUMirrorPackage(PackageBase):
    gnu_mirror_path = None
    base_mirrors = [
        "https://ftpmirror.gnu.org/",
        "https://ftp.gnu.org/gnu/",
        "http://ftpmirror.gnu.org/",
    ]

    @property
    def urls(self):
        if self.gnu_mirror_path is None:
            raise AttributeError(
                "{} must define a `gnu_mirror_path` attribute [none defined]".format(type(self).__name__)
            )
        return [join_url(m, self.gnu_mirror_path, resolve_href=True) for m in self.base_mirrors]
