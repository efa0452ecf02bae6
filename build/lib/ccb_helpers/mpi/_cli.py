"""Command line of ``python -m ccb_helpers.mpi`` (run under ``mpiexec``; see the package docstring).

Input is checked in two phases, both before any communication, so a bad argument can never
leave one rank waiting for another:

1. before MPI starts: everything that does not depend on the number of ranks (algorithm,
   primitive, size, counts, α/β) — every rank parses the same argv, so every rank fails alike;
   :mod:`ccb_helpers.mpi._args`;
2. right after ``MPI_Init``: what depends on N (power of two, divisibility, root < N, N ≥ 2
   for ping-pong, the bytes a rank will send), again the same on every rank; then, in one
   exchange every rank reaches (``allgather``), each rank's memory estimate summed over the ranks
   of its host against that host's available memory (``--memory-limit``) and rank 0's check that
   it can write ``--json`` — :mod:`ccb_helpers.mpi._budget`.

This module is the entry point: it runs the two phases, dispatches the command
(:func:`_dispatch`), measures the machine's load around the work (:mod:`ccb_helpers.mpi._load`)
and writes the result.

A failure prints one line ``ccb_helpers.mpi: error: …`` from every rank and exits with code 2
after a clean ``MPI_Finalize`` (never ``MPI_Abort``). An unexpected exception inside a run is a
bug: that rank prints the traceback and aborts the job so no other rank hangs.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
import traceback

from ._args import PROG, QUICK_PINGPONG_SIZES, InputError, parse_static
from ._budget import _check_traffic, _setup_problem, check_case_for, selftest_cases

__all__: list[str] = []

#: Rank and size variables the launchers set (MPICH's Hydra and PMI, Slurm, Open MPI, PMIx).
_LAUNCHER_VARIABLES = (
    ("PMI_RANK", "PMI_SIZE"),
    ("SLURM_PROCID", "SLURM_NTASKS"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("PMIX_RANK", "PMIX_SIZE"),
)


def _rank_label() -> str:
    """``" (rank r of n)"`` from the launcher's environment, before MPI is up (empty if unknown)."""
    for rank_var, size_var in _LAUNCHER_VARIABLES:
        if rank_var in os.environ:
            return f" (rank {os.environ[rank_var]} of {os.environ.get(size_var, '?')})"
    return ""


def _fail(message: str, label: str) -> int:
    # One write() of the whole line: mpiexec merges the ranks' stderr, and print() may write the
    # text and its newline separately, so another rank's line could land in between.
    sys.stderr.flush()
    line = f"{PROG}: error: {message}{label}\n".encode()
    try:
        os.write(sys.stderr.fileno(), line)
    except (AttributeError, OSError, ValueError):  # no real file descriptor (e.g. captured in a test)
        sys.stderr.write(line.decode())
        sys.stderr.flush()
    return 2


def _write(config: dict, result: dict) -> None:
    """Rank 0's output: the OSU-shaped table on stdout (or the JSON with ``--json -``), the JSON
    file, and the warnings on stderr."""
    from .report import format_report, report_warnings

    text = json.dumps(result, indent=1)
    if config["json"] == "-":
        print(text, flush=True)
    else:
        if config["json"]:
            with open(config["json"], "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
        print(format_report(result, warnings=False), flush=True)
    for line in report_warnings(result):
        print(line, file=sys.stderr, flush=True)


def main(argv=None) -> int:
    """Entry point of ``python -m ccb_helpers.mpi``; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        config = parse_static(argv)
    except InputError as error:
        return _fail(str(error), _rank_label())

    # mpi4py's default thread level (MPI_THREAD_MULTIPLE) on purpose: with "single", MPICH's
    # progress loop never releases the core, and with more ranks than cores (N = 4 on this 2-core
    # machine) an MPI_Allreduce of 1 MiB took ~1 s instead of ~15 ms.
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    n, rank = comm.size, comm.rank
    label = f" (rank {rank} of {n})"
    try:
        if n == 1 and not _rank_label():
            ranks = 2 if config["command"] == "pingpong" else 4
            raise InputError(
                f"started without mpiexec (one rank); run it as: mpiexec -n {ranks} {sys.executable} -m {PROG} "
                + " ".join(shlex.quote(a) for a in argv)
            )
        if config["command"] == "pingpong" and n < 2:
            raise InputError(f"pingpong needs at least 2 ranks, got N = {n} (run it with mpiexec -n 2)")
        if config["command"] == "selftest":
            config["ns"] = config["ns"] or [n]
            if max(config["ns"]) > n:
                raise InputError(f"--ns {max(config['ns'])} is more than the N = {n} ranks started")
            config["per_n"] = {k: selftest_cases(k, config["sizes"]) for k in config["ns"]}
        for case in config.get("cases", []):
            check_case_for(case, n, config.get("alpha"), config.get("beta"))
        _check_traffic(config, n)
    except InputError as error:
        MPI.Finalize()
        return _fail(str(error), label)
    problem = _setup_problem(comm, config)
    if problem:
        MPI.Finalize()
        return _fail(problem, label)

    code = 1
    try:
        from ._load import finish_load, start_load

        load = start_load(comm)
        result, code = _dispatch(comm, config)
        load = finish_load(comm, load)  # every host's load over the work, named (#41)
        if rank == 0:
            result["load"] = load
            _write(config, result)
    except Exception:  # a bug, not bad input: do not leave the other ranks waiting
        traceback.print_exc()
        sys.stderr.flush()
        comm.Abort(1)
    MPI.Finalize()
    return code


def _measure_alpha_beta(comm, sizes, repeats: int) -> dict | None:
    from ._runner import pingpong

    if comm.size < 2:
        return None
    measured = pingpong(comm, sizes, repeats=repeats)
    if comm.rank == 0:
        measured.update(_fit_or_none(measured))
    return measured


def _fit_or_none(measured: dict) -> dict:
    """α, β and residual of a ping-pong, or ``None`` values and the reason (noise can make times flat)."""
    from .fit import fit_alpha_beta

    try:
        fit = fit_alpha_beta(measured["sizes"], measured["times_s"])
    except ValueError as error:
        return {"alpha_s": None, "beta_Bps": None, "residual": None, "fit_error": str(error)}
    return {"alpha_s": fit.alpha_s, "beta_Bps": fit.beta_Bps, "residual": fit.residual}


def _dispatch(comm, config: dict) -> tuple[dict | None, int]:
    from ._runner import _idle_until_all_arrive, collective_counts, environment, pingpong, run_case

    started = time.time()
    env = environment(comm)
    rank0 = comm.rank == 0
    header = {
        "command": config["command"],
        "n": comm.size,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "note": config["note"],
        "environment": env,
    }
    if config["command"] == "pingpong":
        measured = pingpong(comm, config["sizes"], config["repeats"])
        if not rank0:
            return None, 0
        fit = _fit_or_none(measured)
        return {**header, **measured, **fit, "elapsed_s": time.time() - started}, 0 if fit["alpha_s"] is not None else 1

    if config["command"] == "selftest":
        from mpi4py import MPI

        outcomes, skipped = [], []
        for k in config["ns"]:
            cases, skipped_k = config["per_n"][k]
            # Ranks 0..k-1 form a communicator of size k; the others sleep until they are done.
            sub = comm.Split(0 if comm.rank < k else MPI.UNDEFINED, comm.rank)
            if sub != MPI.COMM_NULL:
                for index, case in enumerate(cases):
                    r = run_case(sub, case, repeats=1, warmup=0, seed=index, alpha=None, beta=None)
                    if rank0:
                        outcomes.append(
                            {
                                key: r[key]
                                for key in (
                                    "n",
                                    "algorithm",
                                    "primitive",
                                    "m",
                                    "root",
                                    "ports",
                                    "correct",
                                    "errors",
                                    "library_call",
                                    "library_correct",
                                    "library_errors",
                                )
                            }
                        )
                sub.Free()
            skipped += [{"n": k, **s} for s in skipped_k]
            _idle_until_all_arrive(comm)
        all_correct = comm.bcast(
            all(o["correct"] and o["library_correct"] for o in outcomes) if rank0 else None, root=0
        )
        if not rank0:
            return None, 0 if all_correct else 1
        result = {
            **header,
            "ns": config["ns"],
            "cases": outcomes,
            "skipped": skipped,
            "all_correct": all_correct,
            "elapsed_s": time.time() - started,
        }
        return result, 0 if all_correct else 1

    alpha, beta, source, measured = config["alpha"], config["beta"], "given on the command line", None
    if alpha is None:
        measured = _measure_alpha_beta(
            comm, config.get("pingpong_sizes", QUICK_PINGPONG_SIZES), config.get("pingpong_repeats", 5)
        )
        if comm.size < 2:  # the same decision on every rank (``measured`` is None on ranks > 0)
            source = "not measured (one rank)"
        else:
            alpha, beta = comm.bcast((measured["alpha_s"], measured["beta_Bps"]) if rank0 else None, root=0)
            source = "measured: ping-pong between ranks 0 and 1 in this launch"
            if alpha is None:
                source = "measurement failed (see pingpong.fit_error): no model or bound"
    runs = []
    for case in config["cases"]:
        repeats, warmup = collective_counts(case["m"], config["repeats"], config["warmup"])
        r = run_case(comm, case, repeats, warmup, config["seed"], alpha, beta, library=config["library"])
        runs.append(r)
    correct = comm.bcast(all(r["correct"] and r.get("library_correct", True) for r in runs) if rank0 else None, root=0)
    if not rank0:
        return None, 0 if correct else 1
    extra = {"alpha_s": alpha, "beta_Bps": beta, "alpha_beta_source": source}
    if measured is not None:
        extra["pingpong"] = measured
    if config["command"] == "run":
        return {**header, **runs[0], **extra, "elapsed_s": time.time() - started}, 0 if correct else 1
    return {
        **header,
        **extra,
        "runs": runs,
        "all_correct": correct,
        "elapsed_s": time.time() - started,
    }, 0 if correct else 1
