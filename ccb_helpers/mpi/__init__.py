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

* ``pingpong``: ranks 0 and 1 bounce messages of a sweep of sizes; the one-way times are fitted
  with ``T = α + M/β`` (:func:`fit_alpha_beta`). JSON: ``alpha_s``, ``beta_Bps``, ``residual``,
  ``sizes``, ``times_s``.
* ``run``: generates the schedule with :func:`ccb_helpers.generate` on every rank, executes each
  round's transfers as nonblocking sends and receives on real buffers (reductions add bytes
  modulo 256, as the simulator does), checks the result byte for byte against a reference every
  rank computes itself, and times it (median over ``--repeats`` runs after ``--warmup`` runs,
  barrier-separated, slowest rank). It then times the MPI library's own collective
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
exits with code 2, before any buffer is allocated.

From Python, :func:`launch` runs one of these commands under the environment's ``mpiexec`` and
returns the JSON; :func:`load_mpi_result` reads a saved result (e.g. from a cluster) for
:func:`plot_mpi_runs` and :class:`MPIResultExplorer`.
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

import numpy as np

from .._validation import check_int, check_real

__all__ = [
    "AlphaBetaFit",
    "MPIRunError",
    "fit_alpha_beta",
    "launch",
    "load_mpi_result",
    "mpiexec_command",
    "oversubscription_settings",
    "MPIResultExplorer",
    "mpi_runs_table",
    "plot_mpi_ratios",
    "plot_mpi_runs",
    "plot_pingpong",
]

#: Most points :func:`fit_alpha_beta` accepts (a ping-pong sweep has a few dozen).
MAX_FIT_POINTS = 10**6
#: Most ranks :func:`launch` starts on this machine, and the longest it waits (s).
MAX_LOCAL_RANKS = 64
MAX_TIMEOUT_S = 3600.0
#: Largest result file :func:`load_mpi_result` reads (bytes).
MAX_RESULT_BYTES = 64 * 2**20


class AlphaBetaFit(NamedTuple):
    """``T = alpha_s + M / beta_Bps`` fitted to measured times; ``residual`` is the RMS relative error."""

    alpha_s: float
    beta_Bps: float
    residual: float


def fit_alpha_beta(sizes, times) -> AlphaBetaFit:
    """Least-squares fit of ``T = α + M/β`` to one-way times (the α-β model, ``eq:cc-bound-combined``'s terms).

    Relative errors are minimised (each point weighted by ``1/T²``), so the microsecond times of
    small messages fix α as much as the millisecond times of large ones fix β. α is kept ≥ 0: if
    the unconstrained fit gives α < 0, α = 0 and β is refitted.

    Parameters
    ----------
    sizes : array of float
        Message sizes in bytes (≥ 0, at least two distinct values, at most 10⁶ points).
    times : array of float
        One-way times in seconds (> 0), same length.

    Returns
    -------
    AlphaBetaFit
        ``alpha_s`` (s), ``beta_Bps`` (bytes/s), ``residual`` (RMS of ``(model - T) / T``).

    Raises
    ------
    ValueError
        If the times do not grow with the size (no positive β fits).

    Examples
    --------
    Exact α-β data (α = 2 µs, β = 1 GB/s) is recovered:

    >>> fit = fit_alpha_beta([0, 10**6, 2 * 10**6], [2e-6, 2e-6 + 1e-3, 2e-6 + 2e-3])
    >>> round(fit.alpha_s * 1e6, 6), round(fit.beta_Bps / 1e9, 6), fit.residual < 1e-12
    (2.0, 1.0, True)
    """
    if not isinstance(sizes, (list, tuple, np.ndarray)) or not isinstance(times, (list, tuple, np.ndarray)):
        raise TypeError("sizes and times must be lists or arrays of numbers")
    x = np.atleast_1d(check_real("sizes", list(sizes) if not isinstance(sizes, np.ndarray) else sizes))
    t = np.atleast_1d(check_real("times", list(times) if not isinstance(times, np.ndarray) else times, strict=True))
    if x.ndim != 1 or t.shape != x.shape:
        raise ValueError(f"sizes and times must be 1-d and of the same length, got shapes {x.shape} and {t.shape}")
    if x.size > MAX_FIT_POINTS:
        raise ValueError(f"{x.size} points exceed the cap of {MAX_FIT_POINTS}")
    if np.unique(x).size < 2:
        raise ValueError("sizes must contain at least two distinct values to separate alpha from beta")
    return _fit_alpha_beta(x, t)


def _fit_alpha_beta(x: np.ndarray, t: np.ndarray) -> AlphaBetaFit:
    rows = np.column_stack([1 / t, x / t])  # (alpha + x * gamma) / t ≈ 1, gamma = 1 / beta
    (alpha, gamma), *_ = np.linalg.lstsq(rows, np.ones_like(t), rcond=None)
    if alpha < 0:
        alpha = 0.0
        gamma = np.sum(x / t) / np.sum((x / t) ** 2)
    if not gamma > 0:
        raise ValueError("the times do not grow with the size: no positive bandwidth beta fits these points")
    residual = float(np.sqrt(np.mean(((alpha + gamma * x) - t) ** 2 / t**2)))
    return AlphaBetaFit(float(alpha), float(1 / gamma), residual)


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
            raise MPIRunError(f"{shown} did not finish within {timeout:g} s; killed. stderr: {completed.stderr.strip()[-2000:]}")
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
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
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


# --------------------------------------------------------------------------- results


_REQUIRED = {
    "pingpong": ("n", "sizes", "times_s", "alpha_s", "beta_Bps"),
    "run": ("algorithm", "primitive", "n", "m", "correct", "times_s", "median_s"),
    "sweep": ("n", "runs", "alpha_s", "beta_Bps"),
    "selftest": ("n", "cases", "all_correct"),
}


def load_mpi_result(source) -> dict:
    """Read a result written by ``python -m ccb_helpers.mpi … --json FILE`` (or take its dict).

    Checks that it is one of the four commands' objects with the fields the plots need; a
    ``run`` or ``sweep`` result gets ``runs`` (a list of runs, one for ``run``).

    Parameters
    ----------
    source : str, Path or dict
        A JSON file (at most 64 MiB) or an already loaded object.

    Examples
    --------
    >>> r = load_mpi_result({"command": "run", "algorithm": "ring", "primitive": "all_reduce", "n": 2,
    ...                      "m": 8, "correct": True, "times_s": [1e-5], "median_s": 1e-5})
    >>> len(r["runs"]), r["runs"][0]["algorithm"]
    (1, 'ring')
    >>> load_mpi_result({"command": "run"})
    Traceback (most recent call last):
    ...
    ValueError: source: MPI result of command 'run' lacks field(s) algorithm, primitive, n, m, correct, times_s, median_s
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"source: no such result file: {path}")
        size = path.stat().st_size
        if size > MAX_RESULT_BYTES:
            raise ValueError(f"source: result file {path} has {size} bytes, more than the cap of {MAX_RESULT_BYTES}")
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"source: result file {path} is not JSON: {error}") from None
    elif isinstance(source, dict):
        result = dict(source)
    else:
        raise TypeError(f"source must be a path or a dict, got {type(source).__name__}")
    if not isinstance(result, dict):
        raise ValueError("source: an MPI result must be a JSON object")
    command = result.get("command")
    if not isinstance(command, str) or command not in _REQUIRED:
        raise ValueError(f"source: unknown MPI result command {command!r}; expected one of {', '.join(_REQUIRED)}"[:300])
    missing = [f for f in _REQUIRED[command] if f not in result]
    if missing:
        raise ValueError(f"source: MPI result of command {command!r} lacks field(s) {', '.join(missing)}")
    if command == "run":
        result["runs"] = [{k: v for k, v in result.items() if k != "runs"}]
    if command in ("run", "sweep"):
        if not isinstance(result["runs"], list) or len(result["runs"]) > 100_000:
            raise ValueError("source: the result's 'runs' must be a list of runs (at most 100000)")
        for i, run in enumerate(result["runs"]):
            if not isinstance(run, dict):
                raise ValueError(f"source: run {i} of the result must be an object, got {type(run).__name__}")
            lacking = [f for f in _REQUIRED["run"] if f not in run]
            if lacking:
                raise ValueError(f"source: run {i} of the result lacks field(s) {', '.join(lacking)}")
    _check_values(result, command)
    return result


def _check_values(result: dict, command: str) -> None:
    """The fields the plots and tables read have the right types and ranges (named in the message)."""
    import math
    import numbers

    from ..algorithms import ALGORITHMS
    from ..primitives import PRIMITIVES

    def fail(where, what):
        raise ValueError(f"source: {where} {what}")

    def integer(where, value, low, high=2**62):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
            fail(where, f"must be an integer in [{low}, {high}], got {value!r}"[:200])

    def number(where, value, optional=False):
        if optional and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or not 0 <= value <= 1e12:
            fail(where, f"must be a finite number >= 0, got {value!r}"[:200])

    def numbers_list(where, value, length=None):
        if not isinstance(value, list) or not 1 <= len(value) <= 10**6 or (length is not None and len(value) != length):
            fail(where, f"must be a non-empty list of numbers{'' if length is None else f' of length {length}'}")
        for j, x in enumerate(value):
            number(f"{where}[{j}]", x)

    integer("field 'n'", result.get("n", 1), 1, 2**20)
    if command in ("sweep", "pingpong"):
        number("field 'alpha_s'", result.get("alpha_s"), optional=True)
        number("field 'beta_Bps'", result.get("beta_Bps"), optional=True)
    if command == "pingpong":
        sizes = result["sizes"]
        if not isinstance(sizes, list) or not 1 <= len(sizes) <= 10**6:
            fail("field 'sizes'", "must be a non-empty list of sizes in bytes")
        for j, x in enumerate(sizes):
            integer(f"field 'sizes'[{j}]", x, 0)
        numbers_list("field 'times_s'", result["times_s"], len(sizes))
    if command == "selftest":
        if not isinstance(result["cases"], list) or not isinstance(result["all_correct"], bool):
            fail("fields 'cases' / 'all_correct'", "must be a list and True / False")
    for i, run in enumerate(result.get("runs", ()) if command in ("run", "sweep") else ()):
        where = f"run {i} field"
        if not isinstance(run["primitive"], str) or run["primitive"] not in PRIMITIVES:
            fail(f"{where} 'primitive'", f"must be one of {', '.join(PRIMITIVES)}, got {run['primitive']!r}"[:300])
        if not isinstance(run["algorithm"], str) or run["algorithm"] not in ALGORITHMS or run["primitive"] not in ALGORITHMS[run["algorithm"]]:
            fail(f"{where} 'algorithm'", f"must be an algorithm implementing {run['primitive']}, got {run['algorithm']!r}"[:300])
        integer(f"{where} 'n'", run["n"], 2, 2**20)  # a collective on one rank has no bound to compare with
        integer(f"{where} 'm'", run["m"], 0)
        if not isinstance(run["correct"], bool):
            fail(f"{where} 'correct'", f"must be True or False, got {run['correct']!r}"[:200])
        numbers_list(f"{where} 'times_s'", run["times_s"])
        number(f"{where} 'median_s'", run["median_s"])
        number(f"{where} 'library_median_s'", run.get("library_median_s"), optional=True)
        if "ports" in run:
            integer(f"{where} 'ports'", run["ports"], 1, 2**20)
        if run.get("chunks") is not None:
            integer(f"{where} 'chunks'", run["chunks"], 1, 2**20)


# The figures and the explorer need matplotlib and ipywidgets: imported on first use, so the
# ranks started by ``python -m ccb_helpers.mpi`` do not pay for them (PEP 562).
_LAZY = {"mpi_runs_table": "plots", "plot_mpi_ratios": "plots", "plot_mpi_runs": "plots", "plot_pingpong": "plots",
         "MPIResultExplorer": "explorer", "plots": None, "explorer": None}


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
