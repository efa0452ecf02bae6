"""``mpi4py.bench`` with every buffer it allocates written once before use (a control experiment).

``mpi4py.bench pingpong -a numpy`` allocates its send and receive buffers with ``numpy.empty``
and never writes the send buffer, so on Linux its pages are all the one shared zero page and
the receiver's copy (MPICH's CMA, ``process_vm_readv``) reads the same cached 4 KiB over and
over. This wrapper makes ``numpy.empty`` return arrays whose pages are written (as the OSU
micro-benchmarks ``memset`` theirs) and then runs ``mpi4py.bench`` unchanged:

    mpiexec -n 2 python benchmarks/_mpi4py_bench_written.py pingpong -a numpy -n 16777216
"""

from __future__ import annotations

import sys

import numpy

_empty = numpy.empty


def _written_empty(*args, **kwargs):
    array = _empty(*args, **kwargs)
    array.fill(1)  # every page faulted in and holding data before the benchmark times anything
    return array


numpy.empty = _written_empty

if __name__ == "__main__":
    from mpi4py.bench import main

    main(sys.argv[1:])
