"""Reading and checking saved results of ``python -m ccb_helpers.mpi … --json FILE`` (:func:`load_mpi_result`)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .._validation import check_memory, json_memory

#: Largest result file :func:`load_mpi_result` reads (bytes; a sweep's JSON is a few kB). Parsed
#: JSON can take 45 bytes per character (lists nested in lists), so 64 MiB was 3 GB: 32 MiB keeps
#: the estimate (``_validation.JSON_BYTES_PER_CHAR``) within the 2 GiB budget.
MAX_RESULT_BYTES = 32 * 2**20


_REQUIRED = {
    "pingpong": ("n", "sizes", "times_s", "alpha_s", "beta_Bps"),
    "run": ("algorithm", "primitive", "n", "m", "correct", "times_s", "median_s"),
    "sweep": ("n", "runs", "alpha_s", "beta_Bps"),
    "selftest": ("n", "cases", "all_correct"),
}


def _example_names():
    from .examples import MPI_EXAMPLES

    return MPI_EXAMPLES


def load_mpi_result(source) -> dict:
    """Read a result written by ``python -m ccb_helpers.mpi … --json FILE`` (or take its dict).

    Checks that it is one of the four commands' objects with the fields the plots need; a
    ``run`` or ``sweep`` result gets ``runs`` (a list of runs, one for ``run``).

    Parameters
    ----------
    source : str, Path or dict
        A JSON file (at most 32 MiB), an already loaded object, or the name of an example the
        package ships (a key of :data:`~ccb_helpers.MPI_EXAMPLES`, e.g. ``"mpi_sweep_example"``,
        read from the package when no file of that name exists).

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
    if isinstance(source, str) and source in _example_names() and not Path(source).exists():
        from .examples import mpi_example

        source = mpi_example(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        shown = str(path) if len(str(path)) <= 200 else str(path)[:197] + "..."
        try:  # a name too long for the file system raised OSError (#28); a FIFO or a device is no file
            if not path.is_file():
                raise ValueError(f"source: no such result file (a regular file): {shown}")
            size = path.stat().st_size
            if size > MAX_RESULT_BYTES:
                raise ValueError(
                    f"source: result file {shown} has {size} bytes, more than the cap of {MAX_RESULT_BYTES}"
                )
            check_memory(f"source: result file {shown} of {size:,} bytes", json_memory(size))
            # O_NONBLOCK: a "regular" file whose read blocks (/proc/kmsg hung here, #28) or a path
            # swapped for a FIFO after the check fails instead of waiting; fstat checks what opened.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
            with open(fd, "rb", closefd=True) as f:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise ValueError(f"source: no such result file (a regular file): {shown}")
                # The size stat gave, and one byte more to see growth: read(cap) would allocate the
                # whole cap first (tracemalloc saw 11 MB more than the file of 0.5 MB).
                raw = f.read(size + 1)
            if raw is None:  # nothing to read yet and the file would block
                raise ValueError(f"source: cannot read the result file {shown}: reading it would block")
        except OSError as error:
            raise ValueError(f"source: cannot read the result file {shown}: {error.strerror or error}") from None
        if len(raw) > size:
            raise ValueError(f"source: result file {shown} grew while it was read (more than its {size} bytes)")
        try:
            result = json.loads(raw.decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"source: result file {shown} is not JSON (UTF-8): {str(error)[:200]}") from None
        except RecursionError:  # JSON nested thousands deep (#28)
            raise ValueError(f"source: result file {shown} nests its JSON too deeply") from None
    elif isinstance(source, dict):
        result = dict(source)
    else:
        raise TypeError(f"source must be a path or a dict, got {type(source).__name__}")
    if not isinstance(result, dict):
        raise ValueError("source: an MPI result must be a JSON object")
    command = result.get("command")
    if not isinstance(command, str) or command not in _REQUIRED:
        raise ValueError(
            f"source: unknown MPI result command {command!r}; expected one of {', '.join(_REQUIRED)}"[:300]
        )
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
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
            or not 0 <= value <= 1e12
        ):
            fail(where, f"must be a finite number >= 0, got {value!r}"[:200])

    def numbers_list(where, value, length=None):
        if not isinstance(value, list) or not 1 <= len(value) <= 10**6 or (length is not None and len(value) != length):
            fail(where, f"must be a non-empty list of numbers{'' if length is None else f' of length {length}'}")
        for j, x in enumerate(value):
            number(f"{where}[{j}]", x)

    integer("field 'n'", result.get("n", 1), 1, 2**20)
    _check_load(result.get("load"), fail, integer, number)
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
        if (
            not isinstance(run["algorithm"], str)
            or run["algorithm"] not in ALGORITHMS
            or run["primitive"] not in ALGORITHMS[run["algorithm"]]
        ):
            fail(
                f"{where} 'algorithm'",
                f"must be an algorithm implementing {run['primitive']}, got {run['algorithm']!r}"[:300],
            )
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


def _check_load(load, fail, integer, number) -> None:
    """The optional ``load`` field (:mod:`ccb_helpers.mpi._load`): what the report's header reads."""
    if load is None:
        return
    if not isinstance(load, list) or len(load) > 100_000:
        fail("field 'load'", "must be a list of hosts (at most 100000)")
    for i, host in enumerate(load):
        where = f"field 'load'[{i}]"
        if not isinstance(host, dict) or not isinstance(host.get("host"), str):
            fail(where, "must be an object with a 'host' name")
        integer(f"{where} 'cores'", host.get("cores"), 1, 2**20)
        integer(f"{where} 'ranks'", host.get("ranks"), 0, 2**20)
        for key in ("busy_cores", "own_cores", "outside_cores"):
            number(f"{where} '{key}'", host.get(key), optional=True)
        for key in ("load_average_start", "load_average_end"):
            averages = host.get(key)
            if averages is not None and (not isinstance(averages, list) or len(averages) != 3):
                fail(f"{where} '{key}'", "must be three load averages (1, 5, 15 min) or null")
            for j, value in enumerate(averages or []):
                number(f"{where} '{key}'[{j}]", value)
        processes = host.get("outside_processes", [])
        if not isinstance(processes, list) or len(processes) > 1000:
            fail(f"{where} 'outside_processes'", "must be a list (at most 1000)")
        for j, process in enumerate(processes):
            if not isinstance(process, dict) or not isinstance(process.get("name"), str):
                fail(f"{where} 'outside_processes'[{j}]", "must be an object with a 'name'")
            integer(f"{where} 'outside_processes'[{j}] 'pid'", process.get("pid"), 0)
            number(f"{where} 'outside_processes'[{j}] 'cores'", process.get("cores"))
