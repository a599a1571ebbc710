"""`XorgPackage`: downloads from the xorg mirrors; the package gives the path
on a mirror (`xorg_mirror_path`), `urls` is that path on each mirror."""

from ..package_base import PackageBase
from ..urls import join_url


class XorgPackage(PackageBase):
    xorg_mirror_path = None
    base_mirrors = [
        "https://www.x.org/archive/individual/",
        "https://mirrors.ircam.fr/pub/x.org/individual/",
        "https://mirror.transip.net/xorg/individual/",
        "ftp://ftp.freedesktop.org/pub/xorg/individual/",
        "http://xorg.mirrors.pair.com/individual/",
    ]

    @property
    def urls(self):
        if self.xorg_mirror_path is None:
            raise AttributeError(
                "{} must define a `xorg_mirror_path` attribute [none defined]".format(type(self).__name__)
            )
        return [join_url(m, self.xorg_mirror_path, resolve_href=True) for m in self.base_mirrors]
