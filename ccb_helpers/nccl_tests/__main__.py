"""``python -m ccb_helpers.nccl_tests LOGFILE …``: hold an nccl-tests log against the lower bound.

A package ``__main__`` (not ``if __name__ == "__main__"`` in the package itself), so that running
it does not re-import a module ``ccb_helpers`` has already imported (runpy's RuntimeWarning).
"""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
