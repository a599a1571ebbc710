"""`SourceforgePackage`: downloads from the sourceforge mirrors; the package gives the path
on a mirror (`sourceforge_mirror_path`), `urls` is that path on each mirror."""

from ..package_base import PackageBase
from ..urls import join_url


class SourceforgePackage(PackageBase):
    sourceforge_mirror_path = None
    base_mirrors = [
        "https://prdownloads.sourceforge.net/",
        "https://freefr.dl.sourceforge.net/",
        "https://netcologne.dl.sourceforge.net/",
        "https://pilotfiber.dl.sourceforge.net/",
        "https://downloads.sourceforge.net/",
        "http://kent.dl.sourceforge.net/sourceforge/",
    ]

    @property
    def urls(self):
        if self.sourceforge_mirror_path is None:
            raise AttributeError(
                "{} must define a `sourceforge_mirror_path` attribute [none defined]".format(type(self).__name__)
            )
        return [join_url(m, self.sourceforge_mirror_path, resolve_href=True) for m in self.base_mirrors]
