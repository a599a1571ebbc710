"""`SourcewarePackage`: downloads from the sourceware mirrors; the package gives the path
on a mirror (`sourceware_mirror_path`), `urls` is that path on each mirror."""

from ..package_base import PackageBase
from ..urls import join_url


class SourcewarePackage(PackageBase):
    sourceware_mirror_path = None
    base_mirrors = [
        "https://sourceware.org/pub/",
        "https://mirrors.kernel.org/sourceware/",
        "https://ftp.gwdg.de/pub/linux/sources.redhat.com/",
    ]

    @property
    def urls(self):
        if self.sourceware_mirror_path is None:
            raise AttributeError(
                "{} must define a `sourceware_mirror_path` attribute [none defined]".format(type(self).__name__)
            )
        return [join_url(m, self.sourceware_mirror_path, resolve_href=True) for m in self.base_mirrors]
