"""``python -m ccb_helpers.nccl_tests LOGFILE …``: hold an nccl-tests log against the lower bound.

A package ``__main__`` (not ``if __name__ == "__main__"`` in the package itself), so that running
it does not re-import a module ``ccb_helpers`` has already imported (runpy's RuntimeWarning).
A reader that closes the pipe early (``… | head``) ends the output quietly, as ``cat`` does.
"""

import os
import sys

from .cli import main

if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        code = 0
    sys.exit(code)
