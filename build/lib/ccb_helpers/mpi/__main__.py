"""``mpiexec -n N python -m ccb_helpers.mpi {pingpong,run,sweep,selftest} ...`` (see :mod:`ccb_helpers.mpi`)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
