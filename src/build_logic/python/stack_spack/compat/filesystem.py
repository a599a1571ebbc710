"""`llnl.util.filesystem`."""
from ..filelists import (  # noqa: F401
    FileList, HeaderList, LibraryList, find, find_all_headers, find_first, find_headers,
    find_libraries, find_system_libraries,
)
from ..fs import *  # noqa: F401,F403
from ..fs import (  # noqa: F401
    FileFilter, ancestor, copy, copy_tree, filter_file, force_remove, install, install_tree,
    join_path, mkdirp, symlink, touch, working_dir,
)
