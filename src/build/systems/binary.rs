//! `binary`: an unpacked prebuilt tree. Copy it (or the parts the steps
//! name, e.g. `mpich-gcc/` of a cray-mpich tarball) into the prefix; the
//! relocation phase then fixes RPATHs, NEEDED entries and placeholders.

use crate::build::error::PackageError;
use crate::build::job::Binary;
use crate::build::package::PkgCtx;

pub(crate) fn install(ctx: &mut PkgCtx<'_>, b: &Binary) -> Result<(), PackageError> {
    super::generic::copy_all_or(ctx, &b.install)
}

impl super::System for Binary {
    fn keyword(&self) -> &'static str {
        "binary"
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx, self)
    }
}
