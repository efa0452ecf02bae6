"""The MPI results chapter 6 ships with the package, so the chapter runs wherever the package is installed.

They are package data (``ccb_helpers/data/mpi/``, as chapter 8's nccl-tests logs are), read
through ``importlib.resources``: on Colab, from a wheel or in an empty folder, without the
repository. :func:`~ccb_helpers.load_mpi_result` (and so
:class:`~ccb_helpers.MPIResultExplorer`) also takes an example's name in place of a path, so a
notebook cell names the example with a literal, as the static site's live explorer requires.
"""

from __future__ import annotations

import json
from importlib import resources

from .._validation import check_choice

__all__ = ["MPI_EXAMPLES", "mpi_example", "mpi_example_text"]

#: Where the examples live (package data, installed with ``ccb_helpers``; a directory-like traversable).
DATA_DIR = resources.files("ccb_helpers") / "data" / "mpi"

#: The shipped examples: name -> what it is and how it was made.
MPI_EXAMPLES = {
    "mpi_sweep_example": "a `python -m ccb_helpers.mpi sweep` result of 4 ranks on the machine that builds "
    "the book (tools/measure_mpi_example.py re-measures it); not a cluster",
    "pingpong_vs_mpi4py": "the book's ping-pong against `mpi4py.bench pingpong` in one job "
    "(benchmarks/bench_pingpong_vs_mpi4py.py --json)",
}


def mpi_example_text(name: str) -> str:
    """The JSON text of a shipped example (no network, no repository).

    >>> mpi_example_text("mpi_sweep_example").lstrip()[0]
    '{'
    """
    name = check_choice("name", name, MPI_EXAMPLES)
    return (DATA_DIR / f"{name}.json").read_text(encoding="utf-8")


def mpi_example(name: str) -> dict:
    """A shipped example, parsed: a result for :func:`~ccb_helpers.load_mpi_result` or the agreement record.

    Parameters
    ----------
    name : str
        A key of :data:`MPI_EXAMPLES`.

    Examples
    --------
    >>> mpi_example("mpi_sweep_example")["command"], mpi_example("mpi_sweep_example")["n"]
    ('sweep', 4)
    """
    return json.loads(mpi_example_text(name))
