"""From a name to a schedule: validation and caps from closed forms, then the registry's generator."""

from __future__ import annotations

from .._validation import check_bool, check_cap, check_int, check_memory
from ..algorithms import MAX_CHUNKS, _check_applicable, _model, _terms, pipelined_algorithms
from ..schedule import MAX_BUFFER_BYTES, Round, Schedule, buffers_for
from .core import MAX_ROUNDS, MAX_TRANSFERS, Built, _generate_memory
from .registry import GENERATORS


def schedule_size(algorithm: str, primitive: str, n: int, ports: int, chunks: int) -> tuple[int, int]:
    """(rounds, transfers) of the generated schedule, from closed forms (transfers: an upper bound)."""
    if n == 1:
        return 0, 1 if primitive == "all_to_all" else 0
    pipelined = chunks is not None
    rounds = int(_terms(algorithm, primitive, n, 0.0, ports, chunks, pipelined).steps)
    return rounds, int(GENERATORS[algorithm].transfers(primitive, n, ports, chunks))


def _check_generate(algorithm, primitive, n, m, ports, root, chunks, pipelined):
    """Validate :func:`generate`'s arguments and its caps; return them normalised (chunks resolved)."""
    model = _model(algorithm, primitive)
    n = check_int("n", n, minimum=1, maximum=MAX_BUFFER_BYTES, scalar=True)
    m = check_int("m", m, minimum=0, maximum=MAX_BUFFER_BYTES, scalar=True)
    ports = check_int("ports", ports, minimum=1, scalar=True)
    root = check_int("root", root, minimum=0, maximum=n - 1, scalar=True)
    pipelined = check_bool("pipelined", pipelined)
    _check_applicable(algorithm, model, n, ports)
    if model.optimal_chunks is None:
        if chunks is not None or not pipelined:
            raise ValueError(
                f"chunks and pipelined apply only to the pipelined algorithms ({', '.join(pipelined_algorithms())}), "
                f"not to {algorithm!r}"
            )
    else:
        if chunks is None:
            chunks = 4 if pipelined else 1
        chunks = check_int("chunks", chunks, minimum=1, maximum=MAX_CHUNKS, scalar=True)
        if not pipelined and chunks != 1:
            raise ValueError(f"the unpipelined {algorithm} uses one chunk; drop chunks or set pipelined=True")
    if primitive == "all_to_all" and m % n:
        raise ValueError(
            f"all_to_all needs m divisible by n (block j of node i fills block i of node j, so the "
            f"blocks must be equal), got m={m}, n={n}"
        )
    rounds, transfers = schedule_size(algorithm, primitive, n, ports, chunks)
    what = f"{algorithm} {primitive} on n={n}" + (f" with chunks={chunks}" if chunks is not None else "")
    check_cap(f"schedule of {what}: rounds", rounds, MAX_ROUNDS)
    check_cap(f"schedule of {what}: transfers", transfers, MAX_TRANSFERS)
    return n, m, ports, root, chunks, rounds, transfers


def generate(algorithm, primitive, n, m, ports=1, root=0, chunks=None, pipelined=True) -> Schedule:
    """The schedule of ``algorithm`` for ``primitive`` on ``n`` nodes and ``m`` bytes.

    Parameters
    ----------
    algorithm, primitive : str
        As in :func:`ccb_helpers.algorithm_terms` (same names, same conditions).
    n : int
        Nodes, ``n >= 1``.
    m : int
        Message size in bytes (the book's buffer conventions), ``0 <= m <= 2**62``; for
        ``all_to_all`` a multiple of ``n`` (equal blocks).
    ports : int, default 1
        ``binomial_tree`` broadcast / reduce / all_reduce use a ``ports``-nomial tree.
    root : int, default 0
        Root of rooted primitives.
    chunks : int, optional
        Pipeline chunks of the pipelined algorithms (:func:`ccb_helpers.pipelined_algorithms`):
        per tree for ``double_binary_tree``, segments of M for ``pipelined_chain`` and
        ``pipelined_binary_tree`` (default 1 when ``pipelined=False``, else 4).
    pipelined : bool, default True
        Pipelined algorithms only; ``False`` is the same as ``chunks=1``.

    Notes
    -----
    Caps, checked from closed forms before any round is built: at most ``MAX_ROUNDS = 2**13``
    rounds and ``MAX_TRANSFERS = 2**21`` transfers (e.g. a ring AllReduce up to 1024 nodes, a
    double binary tree with ``4 chunks (n - 1) <= 2**21``); each costs the simulator time. The
    memory, ``BYTES_PER_GENERATED_TRANSFER = 256`` bytes a transfer (512 MiB at the cap), is
    checked against ``_validation.COUNT_CAP_MAX_BYTES`` before the first round.

    Examples
    --------
    >>> s = generate("ring", "all_gather", 3, 6)
    >>> print(s)
    all_gather on 3 nodes, 6 B, 2 rounds (ring)
    round 1: 1.data[0:2] <- 0.data[0:2]; 2.data[2:4] <- 1.data[2:4]; 0.data[4:6] <- 2.data[4:6]
    round 2: 1.data[4:6] <- 0.data[4:6]; 2.data[0:2] <- 1.data[0:2]; 0.data[2:4] <- 2.data[2:4]
    """
    n, m, ports, root, chunks, rounds, transfers = _check_generate(
        algorithm, primitive, n, m, ports, root, chunks, pipelined
    )
    check_memory(f"n: the schedule of {algorithm} {primitive} on n={n}", _generate_memory(rounds, transfers))
    return _generate(algorithm, primitive, n, m, ports, root, chunks)


def _generate(algorithm, primitive, n, m, ports, root, chunks) -> Schedule:
    buffers = buffers_for(primitive)
    prologue = epilogue = Round.empty()
    rounds: list[Round] = []
    if n > 1:
        built = GENERATORS[algorithm].build(primitive, n, m, ports, root, chunks)
        if not isinstance(built, Built):
            built = Built(built)
        rounds = built.rounds
        prologue = Round.empty() if built.prologue is None else built.prologue
        epilogue = Round.empty() if built.epilogue is None else built.epilogue
        if built.work:
            buffers = buffers + ("work",)
    if n == 1 and primitive == "all_to_all":
        prologue = Round([0], [0], 0, m, False, 0, 0, 1)
    return Schedule(primitive, n, m, rounds, buffers, root, algorithm, prologue, epilogue)
