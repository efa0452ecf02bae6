"""Real runs: the book's schedules as MPI programs, α and β measured, compared with the bound.

The command line runs under ``mpiexec`` (MPICH from the ``mpich`` PyPI wheel, through
``mpi4py``; both are in ``requirements.txt``, ``mpiexec`` is in the virtual environment's
``bin``)::

    mpiexec -n 2 python -m ccb_helpers.mpi pingpong --json pingpong.json
    mpiexec -n 4 python -m ccb_helpers.mpi run --algorithm ring --primitive all_reduce \\
        --size 16MiB --repeats 10 --json ring.json [--alpha 2e-6 --beta 5e9]
    mpiexec -n 4 python -m ccb_helpers.mpi sweep --pairs ring:all_reduce,bruck:all_gather \\
        --sizes 1KiB,1MiB,16MiB --json sweep.json
    mpiexec -n 3 python -m ccb_helpers.mpi selftest --json selftest.json

* ``pingpong``: ranks 0 and 1 bounce messages of a sweep of sizes the way the OSU
  micro-benchmarks' ``osu_latency`` and ``mpi4py.bench pingpong`` do (separate buffers written
  before timing, warm-up round trips and a barrier per size, the mean over 10000 / 1000 / 10 timed
  round trips); the one-way times are fitted with ``T = α + M/β`` (:func:`fit_alpha_beta`). JSON:
  ``alpha_s``, ``beta_Bps``, ``residual``, ``sizes``, ``times_s``, the samples and the counts used.
  :func:`pingpong_agreement` holds it against ``mpi4py.bench``'s output.
* ``run``: generates the schedule with :func:`ccb_helpers.generate` on every rank, executes each
  round's transfers as nonblocking sends and receives on real buffers (reductions add bytes
  modulo 256, as the simulator does), checks the result byte for byte against a reference every
  rank computes itself, and times it (median over ``--repeats`` runs after ``--warmup`` runs,
  barrier-separated, slowest rank; 10× the runs up to 8 KiB, and OSU's per-rank means
  ``rank_mean_max_s`` … in the JSON). It then times the MPI library's own collective
  (``Allreduce``, ``Allgather``, ``Reduce_scatter_block``, ``Bcast``, ``Reduce``, ``Scatter``,
  ``Gather``, ``Alltoall``; the ``v`` variants for unequal blocks) on the same buffers and checks
  it too. JSON: ``algorithm``, ``primitive``, ``n``, ``m``, ``correct``, ``times_s``,
  ``median_s``, ``library_median_s``, ``model_s`` and ``bound_s`` (the cost model and the
  combined lower bound with the α, β given or measured by a short ping-pong in the same launch).
* ``sweep``: several ``algorithm:primitive`` pairs over several sizes in one launch (``runs``).
* ``selftest``: every algorithm × primitive pair that runs on N ranks, several sizes and roots,
  correctness only.

Bad input (unknown algorithm, a size the algorithm cannot take, an N it cannot run on, a
launch that would send more than 1 TiB per rank, or whose ranks would need more memory than
their host has available — ``--memory-limit`` sets that cap) prints one line from every rank and
exits with code 2, before any buffer is allocated; so does a command started without
``mpiexec``. Rank 0 prints an OSU-shaped table (:func:`~ccb_helpers.mpi.report.format_report`)
and warnings on stderr; ``--json FILE`` also writes the JSON (``--json -``: to stdout instead).
Every result records the machine's load per host (``load``: the load averages at the start and
the end, the cores other processes used during the run and the busiest of them by name and pid,
:mod:`ccb_helpers.mpi._load`); the table's header shows it, and a warning names outside load that
took cores from the ranks.

From Python, :func:`launch` runs one of these commands under the environment's ``mpiexec`` and
returns the JSON; :func:`load_mpi_result` reads a saved result (e.g. from a cluster) for
:func:`plot_mpi_runs` and :class:`MPIResultExplorer`; :func:`mpi_example` reads the results chapter 6
ships as package data (:data:`MPI_EXAMPLES`; ``load_mpi_result`` also takes their names).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import NamedTuple

from .._validation import check_int, check_real
from .fit import MAX_FIT_POINTS, AlphaBetaFit, _fit_alpha_beta, fit_alpha_beta
from .results import _REQUIRED, MAX_RESULT_BYTES, _check_values, load_mpi_result

__all__ = [
    "AgreementRow",
    "AgreementSummary",
    "AlphaBetaFit",
    "MPIRunError",
    "fit_alpha_beta",
    "launch",
    "load_mpi_result",
    "mpiexec_command",
    "oversubscription_settings",
    "pingpong_agreement",
    "pingpong_agreement_summary",
    "pingpong_agreement_table",
    "read_mpi4py_pingpong",
    "MPIResultExplorer",
    "mpi_runs_table",
    "plot_mpi_ratios",
    "plot_mpi_runs",
    "plot_pingpong",
    "MPI_EXAMPLES",
    "mpi_example",
]

#: Most ranks :func:`launch` starts on this machine, and the longest it waits (s).
MAX_LOCAL_RANKS = 64
MAX_TIMEOUT_S = 3600.0


# --------------------------------------------------------------------------- launching


class MPIRunError(RuntimeError):
    """``mpiexec`` failed, timed out, or is not installed; the message has the exit code and stderr."""


def _mpiexec() -> str:
    """The environment's ``mpiexec`` (the ``mpich`` wheel installs it next to the interpreter)."""
    for directory in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = directory / "mpiexec"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise MPIRunError(
        f"mpiexec not found next to {sys.executable}; `pip install -r requirements.txt` installs it (the mpich wheel)"
    )


def mpiexec_command(n, *arguments) -> list[str]:
    """The command that runs ``python -m ccb_helpers.mpi ARGUMENTS`` on ``n`` ranks here.

    >>> cmd = mpiexec_command(4, "run", "--algorithm", "ring")
    >>> [Path(cmd[0]).name] + cmd[1:3], cmd[4:]
    (['mpiexec', '-n', '4'], ['-m', 'ccb_helpers.mpi', 'run', '--algorithm', 'ring'])
    """
    n = check_int("n", n, minimum=1, maximum=MAX_LOCAL_RANKS)
    for a in arguments:
        if not isinstance(a, str):
            raise TypeError(f"arguments must be strings, got {type(a).__name__} {a!r}")
    return [_mpiexec(), "-n", str(n), sys.executable, "-m", "ccb_helpers.mpi", *arguments]


def oversubscription_settings(n) -> dict:
    """MPICH settings for ``n`` ranks on this machine: throttle polling when ranks outnumber cores.

    MPICH's ranks wait for messages by polling. With more ranks than cores a polling rank holds
    a core the rank it waits for needs; ``MPIR_CVAR_CH4_PROGRESS_THROTTLE=1`` makes a rank that
    polls without progress sleep for a microsecond now and then (MPICH's documented CVAR). On a
    cluster (one rank per core) nothing is set.

    >>> oversubscription_settings(1)
    {}
    """
    n = check_int("n", n, minimum=1)
    return {"MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1"} if n > (os.cpu_count() or 1) else {}


def launch(arguments, n=2, timeout=120.0) -> dict:
    """Run ``mpiexec -n N python -m ccb_helpers.mpi ARGUMENTS --json TMP`` and return the JSON.

    Parameters
    ----------
    arguments : list of str
        The command and its options, e.g. ``["run", "--algorithm", "ring", "--primitive",
        "all_reduce", "--size", "1MiB"]`` (without ``--json``: a temporary file is used).
    n : int, default 2
        Ranks (1 … 64 on this machine).
    timeout : float, default 120
        Seconds before the whole job (its process group) is killed (≤ 3600).

    Raises
    ------
    MPIRunError
        Non-zero exit (the message carries the exit code and stderr) or timeout.

    Examples
    --------
    >>> r = launch(["pingpong", "--sizes", "0,1KiB,1MiB", "--repeats", "2"], n=2)
    >>> r["n"], r["sizes"], r["alpha_s"] >= 0, r["beta_Bps"] > 0
    (2, [0, 1024, 1048576], True, True)
    """
    if isinstance(arguments, str) or not isinstance(arguments, (list, tuple)):
        raise TypeError("arguments must be a list of strings, e.g. ['pingpong']")
    if "--json" in arguments:
        raise ValueError("do not pass --json to launch(); it reads the result from a temporary file")
    n = check_int("n", n, minimum=1, maximum=MAX_LOCAL_RANKS)
    timeout = check_real("timeout", timeout, minimum=0.0, strict=True)
    if timeout > MAX_TIMEOUT_S:
        raise ValueError(f"timeout must be <= {MAX_TIMEOUT_S} s, got {timeout}")
    with tempfile.TemporaryDirectory(prefix="ccb_mpi_") as directory:
        out = os.path.join(directory, "result.json")
        command = mpiexec_command(n, *arguments, "--json", out)
        env = {**os.environ}
        for key, value in oversubscription_settings(n).items():
            env.setdefault(key, value)
        completed = run_with_timeout(command, timeout, env)
        shown = " ".join(["mpiexec", "-n", str(n), "...", *arguments])
        if completed.returncode == -signal.SIGKILL and completed.timed_out:
            raise MPIRunError(
                f"{shown} did not finish within {timeout:g} s; killed. stderr: {completed.stderr.strip()[-2000:]}"
            )
        if completed.returncode != 0:
            raise MPIRunError(f"{shown} exited with code {completed.returncode}: {completed.stderr.strip()[-2000:]}")
        with open(out, encoding="utf-8") as handle:
            return json.load(handle)


class _Completed(NamedTuple):
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


def run_with_timeout(command: list[str], timeout: float, env=None) -> _Completed:
    """Run ``command`` in its own process group; on timeout kill the whole group (mpiexec and its ranks)."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        return _Completed(process.returncode, stdout, stderr, False)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        stdout, stderr = process.communicate()
        return _Completed(-signal.SIGKILL, stdout, stderr, True)


# The figures and the explorer need matplotlib and ipywidgets, the agreement table the package's
# tables (and networkx): imported on first use, so the ranks started by ``python -m
# ccb_helpers.mpi`` do not pay for them (PEP 562).
_LAZY = {
    "AgreementRow": "agreement",
    "AgreementSummary": "agreement",
    "pingpong_agreement": "agreement",
    "pingpong_agreement_summary": "agreement",
    "pingpong_agreement_table": "agreement",
    "read_mpi4py_pingpong": "agreement",
    "agreement": None,
    "mpi_runs_table": "plots",
    "plot_mpi_ratios": "plots",
    "plot_mpi_runs": "plots",
    "plot_pingpong": "plots",
    "MPIResultExplorer": "explorer",
    "plots": None,
    "explorer": None,
    "MPI_EXAMPLES": "examples",
    "mpi_example": "examples",
    "examples": None,
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{_LAZY[name] or name}")
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
