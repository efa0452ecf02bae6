"""Fuzz the whole public API (issue #15): random bad and valid inputs, each call in a forked child
under a hard time and memory limit, asserting one rule —

    every public function returns a correct value or raises ValueError / TypeError whose message
    names the parameter (or the cap it hit); never another exception type, never a hang, never a
    memory blow-up, never a silently wrong value (NaN, inf, negative, or a failed per-entry check).

How to add an entry (a new public name in ``ccb.__all__`` makes ``test_every_public_callable_is_fuzzed``
fail until you do one of these):

1. Add ``"name": entry(ccb.name, param=STRATEGY, ...)`` to ``FUZZ`` below. Each keyword gets its own
   strategy; the building blocks (``INT(lo, hi)``, ``REAL(lo, hi)``, ``SIZE``, ``ALPHA``, ``BETA``,
   ``PRIMITIVE``, ``ALGORITHM``, ``TOPOLOGY``, ``SCHEDULE``, ``INTS(...)`` for sequences, ``JUNK``) already
   mix valid values with wrong types, huge and negative numbers, arrays, NaN and None. Keywords
   listed in ``optional=(...)`` are sometimes left out. Positional ``*args``: ``args=st.lists(...)``.
2. Optionally ``check=lambda result, kw: ...`` returning an error text for a result that would be
   silently wrong (it runs in the child, so it may call ccb again).
3. If fuzzing makes no sense, list the name in ``NOT_FUZZED`` with the reason.

Every entry runs in one forked worker (``RLIMIT_AS`` = what the test process maps + 3 GiB, a
SIGALRM of ``CCB_FUZZ_SECONDS`` = 40 s per call, and a watchdog that kills the worker if a call
ignores the alarm). CI runs ``CCB_FUZZ_EXAMPLES`` (default 10) examples per entry, the same ones every run (``CCB_FUZZ_RANDOM=1``
for fresh ones); ``python tools/fuzz_long.py`` runs
thousands.
"""

from __future__ import annotations

import copy
import inspect
import itertools
import json
import math
import os
import random
import re
import resource
import select
import signal
import stat
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

import _limits
import ccb_helpers as ccb
from _limits import GiB

EXAMPLES = int(os.environ.get("CCB_FUZZ_EXAMPLES", "10"))
SECONDS = float(os.environ.get("CCB_FUZZ_SECONDS", "40"))  # a call under every cap takes < 10 s here
MEMORY = 3 * GiB  # the simulator's default budget is 2 GiB

# --------------------------------------------------------------------------- building blocks


def fresh(*factories):
    """A new object per example (arrays and lists are mutable)."""
    return st.sampled_from(factories).map(lambda make: make())


class _EvilStr(str):
    """A str that equals everything (issue #28: look-alikes must not pass as the value they mimic)."""

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def __str__(self):
        return self


class _EvilInt(int):
    """An int that equals everything and claims any size."""

    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__
    __hash__ = int.__hash__


class _EvilFraction(Fraction):
    """A Fraction whose comparisons always succeed."""

    def __eq__(self, other):
        return True

    __hash__ = Fraction.__hash__


class _FakeNumpyStr:
    """Claims to be numpy's str_ (``__module__ = "numpy"``) but is neither a str nor a number."""

    __module__ = "numpy"

    def __str__(self):
        return _EvilStr("ring")

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


_FIFO_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / f"ccb_fuzz_{os.getpid()}"


def _fifo_path() -> str:
    """A FIFO nobody writes to: opening it for reading blocks (the issue's hang)."""
    path = _FIFO_DIR / "fifo"
    if not path.exists():
        _FIFO_DIR.mkdir(exist_ok=True)
        os.mkfifo(path)
    return str(path)


# Issue #28's strategies: device files and FIFOs, huge digit strings, look-alike subclasses of
# str / int / Fraction / np.str_, 0-d arrays, iterators and arrays where scalars are expected.
LOOK_ALIKES = st.one_of(
    st.sampled_from(
        [
            "/dev/zero",
            "/dev/urandom",
            "/dev/full",
            "/dev/null",
            "9" * 5000,
            "1" * 400,
            "1e400",
            "-0",
            "0x10",
            "1_000",
            "\u0661\u0662",
        ]
    ),
    fresh(
        _fifo_path,
        lambda: _EvilStr("all_reduce"),
        lambda: _EvilStr("ring"),
        lambda: _EvilInt(4),
        lambda: _EvilInt(-1),
        lambda: _EvilFraction(1, 2),
        _FakeNumpyStr,
        lambda: np.str_("all_reduce"),
        lambda: np.array(2**62),
        lambda: np.array([7])[0:1],
        lambda: np.float64("nan"),
        lambda: np.int64(-1),
        lambda: (x for x in [1, 2]),
        lambda: np.array([10.0**300, 10.0**300]),
        lambda: [2, 3.5],
        lambda: np.ma.masked_array([1, 2], mask=[1, 0]),
    ),
)

JUNK = st.one_of(
    LOOK_ALIKES,
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            float("nan"),
            float("inf"),
            -float("inf"),
            -0.0,
            5e-324,
            1e308,
            1j,
            Decimal("1.5"),
            Fraction(1, 3),
            b"8",
            "8",
            object,
            ccb,
        ]
    ),
    fresh(
        lambda: [],
        lambda: [1, "a"],
        lambda: [[1, 2], [3]],
        lambda: {"n": 1},
        lambda: np.array([]),
        lambda: np.array([[1.5, np.nan]]),
        lambda: np.array(["a"]),
        lambda: np.array([True, False]),
        lambda: np.array([2**63], dtype=np.uint64),
        lambda: np.array([1, 2], dtype=object),
        lambda: iter([1, 2]),
        lambda: np.zeros((2, 3)),
        lambda: np.array(7),
        lambda: [2**70],
    ),
)
HUGE_INT = st.sampled_from(
    [
        2**31 - 1,
        2**32 + 1,
        10**9,
        2**40,
        2**53 + 1,
        2**62,
        2**62 + 1,
        2**63 - 1,
        2**63,
        2**64,
        10**30,
        10**400,
        -1,
        -(2**63),
        0,
    ]
)
HUGE_REAL = st.sampled_from([1e30, 1e200, 2.0**96, 2.0**97, 1e-300, 5e-324, -1e-9, 1e9, 1e10, 1e-15])


def INT(lo, hi, array=False, big=None):
    """Valid integers in [lo, hi] (and numpy ints; int arrays if ``array``), mixed with bad values.

    ``big``: extra valid-but-large values (e.g. closed forms that must stay fast at any size)."""
    valid = [st.integers(lo, hi), st.integers(lo, hi), st.integers(lo, hi).map(np.int64)]
    if big is not None:
        valid.append(big)
    if array:
        valid += [
            st.lists(st.integers(lo, hi), min_size=1, max_size=5).map(np.array),
            st.lists(st.integers(lo, hi), min_size=1, max_size=4).map(lambda xs: np.array(xs)[:, None]),
        ]
    bad = st.one_of(
        HUGE_INT,
        st.integers(-3, 3),
        JUNK,
        st.integers(lo, hi).map(float),
        st.lists(st.integers(-3, 2**63 - 1), min_size=1, max_size=3).map(np.array),
    )
    return st.one_of(*valid, bad)


def REAL(lo, hi, array=False):
    """Valid floats in [lo, hi] (log-uniform when the range spans decades), mixed with bad values."""
    if lo > 0 and hi / lo > 100:
        scalar = st.floats(math.log10(lo), math.log10(hi)).map(lambda e: 10.0**e)
    else:
        scalar = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    valid = [scalar, scalar, st.sampled_from([lo, hi])]
    if array:
        valid += [
            st.lists(scalar, min_size=1, max_size=5).map(np.array),
            st.lists(scalar, min_size=1, max_size=4).map(lambda xs: np.array(xs)[None, :]),
        ]
    return st.one_of(*valid, HUGE_REAL, JUNK, st.integers(-2, 5))


SIZE = REAL(1.0, 2.0**40, array=True)  # message sizes in bytes (0 and huge come from the bad half)
ALPHA = REAL(1e-9, 1e-3, array=True)
BETA = REAL(1e6, 1e12, array=True)
SCALAR_SIZE = REAL(1.0, 2.0**40)
SCALAR_ALPHA = REAL(1e-9, 1e-3)
SCALAR_BETA = REAL(1e6, 1e12)
PORTS = INT(1, 8)


def choice(values):
    return st.one_of(
        st.sampled_from(list(values)),
        st.sampled_from(list(values)),
        JUNK,
        st.sampled_from(["", "allreduce", "Ring", "nope"]),
    )


PRIMITIVE = choice(ccb.PRIMITIVES)
ALGORITHM = choice(ccb.ALGORITHMS)
FAMILY = choice(ccb.FAMILIES)
PRESET_KEY = choice(ccb.PRESETS)

SMALL_TOPOLOGY = st.one_of(
    st.integers(1, 24).map(ccb.ring),
    st.lists(st.integers(1, 5), min_size=1, max_size=3).map(lambda d: ccb.torus(*d)),
    st.lists(st.integers(1, 5), min_size=1, max_size=3).map(lambda d: ccb.mesh(*d)),
    st.integers(0, 5).map(ccb.hypercube),
    st.integers(1, 20).map(ccb.fully_connected),
    st.integers(2, 20).map(ccb.single_switch),
    st.sampled_from([4, 6, 8, 9, 12, 16, 18]).map(ccb.fat_tree),
)
BIG_TOPOLOGY = fresh(
    lambda: ccb.ring(10**7),
    lambda: ccb.hypercube(30),
    lambda: ccb.torus(1000, 1000),
    lambda: ccb.fully_connected(10**6),
    lambda: ccb.fat_tree(2**20),
    lambda: ccb.mesh(3, 3, 3, 3, 3),
    lambda: ccb.single_switch(10**8),
    lambda: ccb.fat_tree(1024),
)
TOPOLOGY = st.one_of(SMALL_TOPOLOGY, SMALL_TOPOLOGY, BIG_TOPOLOGY, JUNK, st.sampled_from(["ring", "torus 4x4"]))


def _schedules():
    T = ccb.Transfer
    return fresh(
        lambda: ccb.generate("ring", "all_reduce", 4, 64),
        lambda: ccb.generate("bruck", "all_to_all", 5, 20),
        lambda: ccb.generate("binomial_tree", "scatter", 7, 70, root=3),
        lambda: ccb.Schedule.from_transfers("broadcast", 3, 8, [[T(0, 1, 0, 8)]]),  # forgets node 2: incorrect
        lambda: ccb.Schedule.from_transfers("all_gather", 3, 3, [[T(1, 0, 1, 1), T(2, 0, 2, 1)]]),  # 2 receives
        lambda: ccb.Schedule.from_transfers("broadcast", 2, 8, [[T(0, 1, 4, 8)]]),  # out of the buffer
        lambda: ccb.Schedule("broadcast", 2, 2**40, []),  # fine to hold, too big to run
    )


SCHEDULE = st.one_of(_schedules(), _schedules(), JUNK)


def INTS(lo, hi, max_size=6):
    """A sequence argument (ns, ks): short lists / tuples / ranges of valid ints, or bad ones."""
    valid = st.lists(st.integers(lo, hi), min_size=1, max_size=max_size)
    return st.one_of(
        valid,
        valid.map(tuple),
        st.just(range(lo, min(hi, lo + 4) + 1)),
        st.lists(INT(lo, hi), min_size=0, max_size=3),
        fresh(lambda: range(10**9), lambda: list(range(100))),
        JUNK,
    )


def MATRIX(max_n=6):
    square = st.integers(1, max_n).flatmap(
        lambda n: st.lists(st.lists(st.floats(0, 1e6), min_size=n, max_size=n), min_size=n, max_size=n)
    )
    return st.one_of(
        square,
        square.map(np.array),
        fresh(
            lambda: [[1, 2]],
            lambda: np.full((2, 2), -1.0),
            lambda: np.full((2, 2), np.nan),
            lambda: [[1e308, 1e308], [1e308, 0]],
        ),
        JUNK,
    )


# --------------------------------------------------------------------------- checks of returned values


def _leaves(value, depth=0):
    """Numbers inside a result (tuples, lists, dicts, arrays, tables, simulation results)."""
    if depth > 4:
        return
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return
    if isinstance(value, (int, float, np.integer, np.floating)):
        yield value
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "iuf" and value.size:
            yield value
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in list(value)[:1000]:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, dict):
        for item in list(value.values())[:1000]:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, ccb.Table):
        yield from _leaves(value.values, depth + 1)
    elif isinstance(value, ccb.SimulationResult):
        yield from _leaves((value.bytes_sent, value.max_message, value.rounds), depth + 1)


def _sane(result, negative_ok=False) -> str | None:
    for leaf in _leaves(result):
        array = np.asarray(leaf, dtype=float) if not isinstance(leaf, int) or abs(leaf) < 2**1000 else np.asarray(1.0)
        if not np.all(np.isfinite(array)):
            return f"non-finite number in the result: {leaf!r}"[:300]
        if not negative_ok and np.any(array < 0):
            return f"negative number in the result: {leaf!r}"[:300]
    return None


@dataclass
class Entry:
    function: object
    params: dict
    optional: tuple = ()
    args: object = None  # strategy of a positional list
    check: object = None  # (result, kwargs) -> error text or None
    examples: float = 1.0  # share of EXAMPLES (plots and simulations are slower)
    names: tuple = ()  # more words that count as naming a parameter (fields of an object argument)
    negative_ok: bool = False  # the result may hold negative numbers (e.g. -1 for "no parent")
    record: bool = False  # a plain record type: it holds what it is given (its consumers validate)

    def strategy(self):
        required = {k: v for k, v in self.params.items() if k not in self.optional}
        optional = {k: v for k, v in self.params.items() if k in self.optional}
        kwargs = st.fixed_dictionaries(required, optional=optional)
        return st.tuples(self.args if self.args is not None else st.just([]), kwargs)


def entry(
    function, optional=(), args=None, check=None, examples=1.0, names=(), negative_ok=False, record=False, **params
):
    return Entry(function, params, tuple(optional), args, check, examples, tuple(names), negative_ok, record)


def _close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_info_steps(t, kw):
    n, k = kw["n"], kw.get("k", 1)
    if isinstance(t, np.ndarray):
        n_arr, k_arr, t_arr = np.broadcast_arrays(np.asarray(n), np.asarray(k), t)
        items = zip(n_arr.ravel()[:50].tolist(), k_arr.ravel()[:50].tolist(), t_arr.ravel()[:50].tolist())
    else:
        items = [(int(n), int(k), t)]
    for n, k, t in items:
        if not ((k + 1) ** t >= n and (t == 0 or (k + 1) ** (t - 1) < n)):
            return f"info_steps({n}, {k}) = {t} is not the smallest t with (k+1)**t >= n"
    return None


def check_cost_not_below_bound(cost, kw):
    # Property of every model: no algorithm beats the combined lower bound (same ports, no diameter).
    bound = ccb.combined_lower_bound(
        kw["primitive"], kw["n"], kw["m"], kw["alpha"], kw["beta"], ports=kw.get("ports", 1)
    )
    if np.any(np.asarray(cost) < np.asarray(bound) * (1 - 1e-12)):
        return f"algorithm_cost {cost} below the combined lower bound {bound}"
    return None


def check_best(result, kw):
    names, times = result
    if isinstance(names, str):
        want = min(
            ccb.algorithm_cost(
                a,
                kw["primitive"],
                kw["n"],
                kw["m"],
                kw["alpha"],
                kw["beta"],
                ports=kw.get("ports", 1),
                gamma=kw.get("gamma", 0.0),
            )
            for a in ccb.applicable_algorithms(kw["primitive"], n=kw["n"], ports=kw.get("ports", 1))
        )
        if not _close(times, want, 1e-12):
            return f"best time {times} is not the minimum {want}"
    return None


def check_crossover(m, kw):
    lo, hi = kw.get("m_min", 1.0), kw.get("m_max", 2.0**44)
    if m is None:
        return None
    if not lo <= m <= hi:
        return f"crossover {m} outside [{lo}, {hi}]"
    args = (kw["primitive"], kw["n"], m, kw["alpha"], kw["beta"])
    a = ccb.algorithm_cost(kw["algorithm_a"], *args, ports=kw.get("ports", 1))
    b = ccb.algorithm_cost(kw["algorithm_b"], *args, ports=kw.get("ports", 1))
    return None if _close(a, b, 1e-6) else f"costs differ at the crossover: {a} vs {b}"


def check_block_bounds(b, kw):
    m, parts = kw["m"], kw.get("parts") or kw["n"]
    ok = b[0] == 0 and b[-1] == m and len(b) == parts + 1 and np.all(np.diff(b) >= 0)
    return None if ok else f"block_bounds({m}, {parts}) = {b[:5]}..."


def check_efficiency(e, kw):
    return None if np.all(np.asarray(e) <= 1 + 1e-12) else f"efficiency {e} > 1"


def check_simulation(r, kw):
    return None if r.correct else f"generated schedule ran incorrectly: {r.errors[:2]}"


def check_coverage(c, kw):
    if isinstance(c, np.ndarray):
        return None
    t, k, n = int(kw["t"]), int(kw.get("k", 1)), kw.get("n")
    want = (k + 1) ** t if n is None else min((k + 1) ** min(t, 70), int(n))
    return None if c == want else f"coverage = {c}, want {want}"


def check_segments(s, kw):
    # A whole count of segments of at least a byte (the cap, 2**40, as for the tree's chunks).
    cap = np.maximum(1, np.minimum(np.floor(np.asarray(kw["m"], dtype=float)), 2**40))
    if np.any(np.asarray(s) < 1) or np.any(np.asarray(s) > cap):
        return f"optimal_segments gave {s} outside [1, max(1, min(M, 2**40))]"
    return None


def check_depth2(d, kw):
    # Between the depth floor(log2 n) and twice it.
    n = np.asarray(kw["n"], dtype=np.int64)
    depth = np.floor(np.log2(n.astype(float))).astype(np.int64)
    if np.any(np.asarray(d) < depth) or np.any(np.asarray(d) > 2 * depth):
        return f"one_port_tree_depth({kw['n']}) = {d} outside [floor(log2 n), 2 floor(log2 n)]"
    return None


def check_chunks(c, kw):
    c_arr, m_arr = np.broadcast_arrays(np.asarray(c), np.asarray(kw["m"], dtype=float))
    cap = np.maximum(1, np.minimum(np.floor(m_arr / 2), 2**40))
    return None if np.all((c_arr >= 1) & (c_arr <= cap)) else f"chunks {c} outside [1, {cap}]"


def check_round_bound(t, kw):
    # The sum form is at least the max form and at most twice it.
    args = (kw["primitive"], kw["n"], kw["m"], kw["alpha"], kw["beta"])
    opts = {k: kw[k] for k in ("ports", "diameter", "degree") if k in kw}
    low = np.asarray(ccb.combined_lower_bound(*args, **opts))
    t = np.asarray(t)
    if np.any(t < low * (1 - 1e-12)) or np.any(t > 2 * low * (1 + 1e-12)):
        return f"round_lower_bound {t} outside [max form, 2 x max form] = [{low}, {2 * low}]"
    return _no_bound_above_a_verified_schedule(kw)


def _no_bound_above_a_verified_schedule(kw):
    """Issue #28: on small scalar instances without a topology, every generated schedule of the
    primitive — every algorithm, every root, tiny M and M not divisible by N — runs at least the bound."""
    primitive, n, m = kw["primitive"], kw["n"], kw["m"]
    if any(isinstance(kw.get(k), np.ndarray) for k in ("n", "m", "alpha", "beta")) or kw.get("diameter", 0) > 1:
        return None
    if kw.get("degree") is not None or not 1 <= n <= 8:
        return None
    m = int(min(m, 40))  # tiny sizes, divisible by n or not
    for algorithm in ccb.applicable_algorithms(primitive, n=n):
        ports = max(ccb.ALGORITHMS[algorithm][primitive].min_ports, kw.get("ports", 1))
        if primitive == "all_to_all" and m % n:
            continue
        for root in range(n) if primitive in ccb.ROOTED_PRIMITIVES else (0,):
            run = ccb.simulate(algorithm, primitive, n, m, ports=ports, root=root)
            took = run.time(kw["alpha"], kw["beta"])
            bound = ccb.round_lower_bound(
                primitive, n, m, kw["alpha"], kw["beta"], ports=ports, diameter=kw.get("diameter", 0)
            )
            if took < bound * (1 - 1e-12):
                return f"{algorithm} {primitive} n={n} m={m} root={root} ports={ports} ran {took} < round_lower_bound {bound}"
    return None


def check_cut_through(t, kw):
    # At least the information bound (every round costs alpha); never above store-and-forward + alpha.
    args = (kw["primitive"], kw["n"], kw["alpha"])
    info = np.asarray(ccb.latency_lower_bound(*args, ports=kw.get("ports", 1), degree=kw.get("degree")))
    if np.any(np.asarray(t) < info * (1 - 1e-12)):
        return f"cut_through_latency_bound {t} below the information bound {info}"
    return None


def check_in_network_volume(v, kw):
    # Never above the endpoint volume (a switch that adds can only help).
    endpoint = ccb.forced_volume(kw["primitive"], kw["n"], kw["m"])
    if np.any(np.maximum(v.send, v.recv) > np.maximum(endpoint.send, endpoint.recv) * (1 + 1e-12)):
        return f"in-network volume {v} above the endpoint volume {endpoint}"
    return None


def check_busbw_limit(b, kw):
    # p beta <= limit <= 2 p beta (the in-network AllReduce factor 2(N-1)/N is below 2).
    p = np.asarray(ccb.effective_ports(kw.get("ports", 1), kw.get("degree")))
    pb = p * np.asarray(kw["beta"], dtype=float)
    if np.any(np.asarray(b) < pb * (1 - 1e-12)) or np.any(np.asarray(b) > 2 * pb):
        return f"busbw_limit {b} outside [p beta, 2 p beta] = [{pb}, {2 * pb}]"
    return None


def check_nvls_volume(v, kw):
    # (N+1)M/N each way for N >= 2: between M and 1.5 M; 0 for one node.
    n, m = np.broadcast_arrays(np.asarray(kw["n"]), np.asarray(kw["m"], dtype=float))
    send = np.broadcast_to(np.asarray(v.send), n.shape)
    ok = np.where(n > 1, (send >= m * (1 - 1e-12)) & (send <= 1.5 * m * (1 + 1e-12)), send == 0)
    return (
        None
        if np.all(ok) and np.array_equal(np.asarray(v.send), np.asarray(v.recv))
        else f"nvls volume {v} for n={kw['n']}, m={kw['m']}"
    )


def check_gossip_rounds(r, kw):
    # Between the two latency bounds' max and n - 1 + diameter (a spanning-tree gather + broadcast).
    topo, ports = kw["topology"], int(kw.get("ports", 1))
    if not isinstance(r, int):
        return f"gossip_rounds returned {type(r).__name__}, not int"
    p = min(ports, max(topo.degree, 1))
    low = max(ccb.info_steps(topo.n, p), topo.diameter if not topo.switched else 0) if topo.n > 1 else 0
    return None if r >= low else f"gossip_rounds = {r} below the bound {low}"


# --------------------------------------------------------------------------- the entries

N = INT(1, 64, array=True, big=st.sampled_from([2**20, 2**40, 2**62]))
N2 = INT(2, 64, array=True)
SCALAR_N = INT(1, 64)
DEGREE = st.one_of(INT(1, 8, array=True), st.none())

LOG_KEY = choice(ccb.PUBLISHED_LOGS)


@st.composite
def _mutated_log(draw):
    """A published nccl-tests log with random damage: lines dropped, tokens replaced, text cut."""
    lines = ccb.published_log_text(draw(st.sampled_from(sorted(ccb.PUBLISHED_LOGS)))).splitlines()
    for _ in range(draw(st.integers(0, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["drop", "token", "cut", "dup"]))
        if how == "drop":
            del lines[i]
        elif how == "dup":
            lines.insert(i, lines[i])
        elif how == "cut":
            lines[i] = lines[i][: draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
        else:
            tokens = lines[i].split()
            if tokens:
                tokens[draw(st.integers(0, len(tokens) - 1))] = draw(
                    st.sampled_from(["nan", "-1", "1e400", "x", "0", "99999999999999999999", "N/A", ""])
                )
                lines[i] = " ".join(tokens)
    return "\n".join(lines)


NCCL_TEXT = st.one_of(
    st.sampled_from(sorted(ccb.PUBLISHED_LOGS)).map(ccb.published_log_text),
    _mutated_log(),
    _mutated_log(),
    st.text(max_size=50),
    JUNK,
)
NCCL_LOG = st.one_of(st.sampled_from(sorted(ccb.PUBLISHED_LOGS)).map(ccb.read_published_log), JUNK)
NCCL_TOPOLOGY = st.one_of(
    st.sampled_from(sorted(ccb.NCCL_TOPOLOGIES)),
    st.sampled_from(sorted(ccb.NCCL_TOPOLOGIES)),
    st.sampled_from(sorted(ccb.NCCL_TOPOLOGIES)).map(ccb.NCCL_TOPOLOGIES.get),
    JUNK,
)
NCCL_CALL = st.fixed_dictionaries(
    {
        "primitive": choice(ccb.NCCL_COLLECTIVES),
        "n_ranks": INT(2, 64, big=st.just(2**20)),
        "n_nodes": INT(1, 8),
        "m": INT(0, 2**34, big=st.just(2**50)),
    },
    optional={"topology": NCCL_TOPOLOGY},
)
NCCL_OVERRIDES = st.one_of(
    st.just({}),
    st.just({}),
    st.dictionaries(
        st.sampled_from(["ring_channels", "tree_channels", "nvls_channels", "comm_channels"]), INT(1, 32), max_size=2
    ),
    st.dictionaries(
        st.sampled_from(["ring_bw_intra", "tree_bw_inter", "latency_inter", "nvls_bw_inter"]),
        REAL(0.1, 500.0),
        max_size=2,
    ),
    st.dictionaries(
        st.sampled_from(["ll128", "ring_same_channels", "tree_pattern", "bogus_field", "key"]), JUNK, max_size=2
    ),
)
NCCL_NAMES = (
    "primitive",
    "n_ranks",
    "n_nodes",
    "m",
    "topology",
    "overrides",
    "ring_channels",
    "tree_channels",
    "nvls_channels",
    "comm_channels",
    "ring_bw_intra",
    "tree_bw_inter",
    "latency_inter",
    "nvls_bw_inter",
    "ll128",
    "ring_same_channels",
    "tree_pattern",
    "bogus_field",
    "key",
    "field",
)


def _smi_text(n, link="NV2"):
    names = [f"GPU{i}" for i in range(n)]
    rows = ["\t" + "\t".join(names)]
    rows += [names[i] + "\t" + "\t".join(" X " if i == j else link for j in range(n)) for i in range(n)]
    return "\n".join(rows) + "\n"


@st.composite
def _link_matrices(draw):
    n = draw(st.integers(2, 7))
    upper = [[draw(st.integers(0, 3)) if j > i else 0 for j in range(n)] for i in range(n)]
    matrix = [[upper[i][j] if j > i else upper[j][i] if j < i else 0 for j in range(n)] for i in range(n)]
    for i in range(n - 1):  # connected: a path of at least one link
        matrix[i][i + 1] = matrix[i + 1][i] = max(matrix[i][i + 1], 1)
    return matrix


LINK_MATRIX = st.one_of(
    _link_matrices(),
    _link_matrices().map(np.array),
    fresh(
        lambda: [[0, 1], [2, 0]],
        lambda: [[0, -1], [-1, 0]],
        lambda: np.zeros((2000, 2000), dtype=int),
        lambda: [[1, 1], [1, 1]],
        lambda: [[0, 0], [0, 0]],
        lambda: [[0, 1.5], [1.5, 0]],
    ),
    JUNK,
)
SYNTH_TOPOLOGY = st.one_of(
    st.integers(2, 6).map(ccb.ring),
    st.integers(2, 5).map(ccb.fully_connected),
    st.integers(2, 6).map(ccb.single_switch),
    fresh(ccb.dgx1),
    _link_matrices().map(ccb.topology_from_links),
    BIG_TOPOLOGY,
    JUNK,
)
NX_GRAPH = st.one_of(
    st.tuples(st.integers(2, 8), st.floats(0.2, 1.0), st.integers(0, 100)).map(
        lambda a: __import__("networkx").gnp_random_graph(*a)
    ),
    fresh(
        lambda: __import__("networkx").path_graph(4),
        lambda: __import__("networkx").empty_graph(3),
        lambda: __import__("networkx").DiGraph([(0, 1)]),
        lambda: __import__("networkx").complete_graph(["a", "b"]),
    ),
    JUNK,
)


def _rocm_text(n, link="XGMI", weight="15"):
    header = "       " + "   ".join(f"GPU{i}" for i in range(n))

    def block(title, cell):
        rows = [f"GPU{i}   " + "   ".join("0" if i == j else cell for j in range(n)) for i in range(n)]
        return [f"=== {title} between two GPUs ===", header, *rows]

    return (
        "\n".join(block("Weight", weight) + block("Hops", "1" if link == "XGMI" else "3") + block("Link Type", link))
        + "\n"
    )


ROCM_TEXT = st.one_of(
    st.integers(2, 8).map(_rocm_text),
    st.integers(2, 4).map(lambda n: _rocm_text(n, "PCIE", "52")),
    st.integers(2, 4).map(lambda n: _rocm_text(n, "FOO")),
    st.text(max_size=40),
    JUNK,
)
SMI_TEXT = st.one_of(
    st.integers(2, 8).map(_smi_text),
    st.integers(2, 4).map(lambda n: _smi_text(n, "SYS")),
    st.integers(2, 4).map(lambda n: _smi_text(n, "FOO")),
    st.text(max_size=40),
    JUNK,
)
STORED = fresh(lambda: ccb.stored_schedule(ccb.dgx1(), "all_gather", 3, 6, verify=False))
TIME_LIMIT = REAL(0.05, 1.5)


MPI_EXAMPLE = str(Path(__file__).resolve().parent.parent / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json")


@st.composite
def _mpi_result(draw):
    """The chapter-6 example sweep, sometimes damaged: a field dropped or replaced by junk."""
    result = copy.deepcopy(_mpi_example())
    if draw(st.booleans()):
        key = draw(st.sampled_from(sorted(result)))
        if draw(st.booleans()):
            del result[key]
        else:
            result[key] = draw(JUNK)
    if draw(st.booleans()) and result.get("runs"):
        run = result["runs"][draw(st.integers(0, len(result["runs"]) - 1))]
        key = draw(st.sampled_from(sorted(run)))
        run[key] = draw(st.one_of(JUNK, st.just(-1), st.just([]), st.just(10**30)))
    return result


def _mpi_example():
    if not _MPI_CACHE:
        _MPI_CACHE.append(ccb.load_mpi_result(MPI_EXAMPLE))
    return _MPI_CACHE[0]


_MPI_CACHE: list = []
MPI_RESULT = st.one_of(st.builds(lambda: copy.deepcopy(_mpi_example())), _mpi_result(), _mpi_result(), JUNK)
MPI_SOURCE = st.one_of(
    st.just(MPI_EXAMPLE),
    st.just("/nonexistent/result.json"),
    st.just("/dev/null"),
    st.just("/etc/passwd"),
    _mpi_result(),
    JUNK,
)


# Custom (non-vertex-transitive) topologies: parallel links, switches, graphs past the graph cap.
CUSTOM_TOPOLOGY = st.one_of(
    _link_matrices().map(ccb.topology_from_links),
    fresh(ccb.dgx1),
    st.integers(2, 24).map(lambda n: ccb.parse_nvidia_smi_topo(_smi_text(n, "NV12"), nvswitch=True)),
    st.tuples(st.integers(2, 40), st.integers(1, 1024)).map(lambda a: ccb.single_switch(*a)),
    fresh(lambda: ccb.mesh(1000, 1000), lambda: ccb.single_switch(200_000, links=1024)),
)
ANY_TOPOLOGY = st.one_of(TOPOLOGY, CUSTOM_TOPOLOGY)
GOSSIP_TOPOLOGY = st.one_of(  # small graphs the exhaustive search may take, and some just past its caps
    st.integers(1, 16).map(ccb.ring),
    st.sampled_from([(2, 3), (3, 3), (2, 4), (3, 4), (4, 4), (2, 2, 2)]).map(lambda d: ccb.torus(*d)),
    st.sampled_from([(2, 3), (3, 3), (3, 4), (4, 4), (2, 2, 2)]).map(lambda d: ccb.mesh(*d)),
    st.integers(0, 5).map(ccb.hypercube),
    st.integers(2, 16).map(ccb.fully_connected),
    _link_matrices().map(ccb.topology_from_links),
    fresh(ccb.dgx1),
)


def _ring_links(n, chords=()):
    matrix = np.zeros((n, n), dtype=int)
    for i in range(n):
        matrix[i, (i + 1) % n] = matrix[(i + 1) % n, i] = 1
    for a, b in chords:
        matrix[a, b] = matrix[b, a] = 1
    return matrix


# Drawings: small ones, ones at the caps (a complete graph of 1000 nodes took 25 s before the
# figure's element cap; a 20-endpoint custom cut is the exhaustive search's largest).
DRAWN_TOPOLOGY = st.one_of(
    SMALL_TOPOLOGY,
    SMALL_TOPOLOGY,
    CUSTOM_TOPOLOGY,
    BIG_TOPOLOGY,
    JUNK,
    fresh(
        lambda: ccb.fully_connected(1000),
        lambda: ccb.fully_connected(362),
        lambda: ccb.mesh(70, 70),
        lambda: ccb.topology_from_links(_ring_links(20, [(0, 10), (5, 15)])),
        lambda: ccb.topology_from_links(_ring_links(21), bisection_links=2),
        lambda: ccb.fully_connected(361),
        lambda: ccb.single_switch(5000, links=1024),
    ),
)
_GRID_VALID = st.lists(st.one_of(SMALL_TOPOLOGY, SMALL_TOPOLOGY, DRAWN_TOPOLOGY), min_size=1, max_size=4)
GRID_TOPOLOGIES = st.one_of(
    _GRID_VALID,
    _GRID_VALID,
    _GRID_VALID,
    st.lists(st.one_of(SMALL_TOPOLOGY, DRAWN_TOPOLOGY), min_size=0, max_size=10),
    fresh(
        itertools.count,
        lambda: iter([ccb.ring(4), ccb.torus(3, 3)]),
        lambda: (ccb.ring(5),),
        lambda: [ccb.mesh(70, 70), ccb.mesh(70, 69)] * 4,
        lambda: [ccb.fully_connected(300)] * 8,
        lambda: [ccb.topology_from_links(_ring_links(20, [(0, 10), (5, 15)]))] * 8,
        lambda: np.array([ccb.ring(4), ccb.ring(6)], dtype=object),
        lambda: {ccb.ring(4): 1},
    ),
    JUNK.map(lambda junk: junk),
)  # mapped, so that one_of does not flatten JUNK's many branches into the mix


def check_drawing(result, kw):
    """A drawing returns Axes (one per panel); the figures are closed so that none pile up."""
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    axes = result if isinstance(result, list) else [result]
    plt.close("all")
    bad = [type(ax).__name__ for ax in axes if not isinstance(ax, Axes)]
    return f"returned {bad} instead of matplotlib Axes" if bad or not axes else None


# --------------------------------------------------------------------------- chapter 9


TWO_LEVEL_TOPOLOGY = st.one_of(
    st.builds(ccb.two_level, st.integers(1, 4), st.integers(1, 4), st.sampled_from(["gpu", "node"])),
    st.builds(ccb.two_level, st.integers(1, 4), st.integers(1, 4)),
    SMALL_TOPOLOGY,
    JUNK,
)
TWO_LEVEL_HARDWARE = st.one_of(
    fresh(lambda: ccb.two_level_hardware(), lambda: ccb.TwoLevelHardware(1e-6, 450e9, 3e-6, 50e9)), JUNK
)
TWO_LEVEL_RUN = st.one_of(
    fresh(
        lambda: ccb.simulate("hierarchical_ring", "all_reduce", 8, 64, topology=ccb.two_level(2, 4)),
        lambda: ccb.simulate("ring", "all_reduce", 4, 64),
        lambda: ccb.generate("ring", "all_gather", 6, 60),
    ),
    JUNK,
)
ROUTED_TOPOLOGY = st.one_of(
    st.integers(1, 24).map(ccb.ring),
    st.lists(st.integers(1, 5), min_size=1, max_size=3).map(lambda d: ccb.torus(*d)),
    st.lists(st.integers(1, 5), min_size=1, max_size=3).map(lambda d: ccb.mesh(*d)),
    TOPOLOGY,
)
ROUTED_SCHEDULE = st.one_of(
    fresh(
        lambda: ccb.swing_schedule(16, 160),
        lambda: ccb.generate("recursive_doubling", "all_gather", 8, 64),
        lambda: ccb.generate("ring", "all_reduce", 12, 120),
    ),
    SCHEDULE,
)


def check_routed_loads(r, kw):
    rounds = {len(r.link_bytes), len(r.link_messages), len(r.busiest)}
    if len(rounds) != 1 or not np.isfinite(r.link_bytes).all() or (r.link_bytes < 0).any():
        return f"RoutedLoads holds fields of different lengths or non-finite / negative bytes: {r}"
    return None


def check_tradeoff_bound(v, kw):
    floor = (kw["n"] - 1) * kw["m"] / (kw["n"] * kw.get("ports", 1))
    if v < floor * (1 - 1e-9):
        return f"trade-off bound {v} below the volume floor {floor}"
    return None


def check_index_schedule(s, kw):
    r = ccb.run_schedule(s, ports=kw.get("ports", 1))
    if not r.correct:
        return f"the index schedule is not a correct AllToAll: {r.errors[:1]}"
    return None


def check_all_reduce_schedule(s, kw):
    if not ccb.run_schedule(s).correct:
        return "the schedule is not a correct AllReduce"
    return None


def check_pat_schedule(s, kw):
    if not ccb.run_schedule(s).correct:
        return "pat_schedule is not correct"
    return None


def check_in_network_bound(b, kw):
    if (
        b.total > b.classic_total * (1 + 1e-9)
        and kw["primitive"] != "all_to_all"
        and kw.get("switch_throughput") is None
    ):
        return f"in-network bound {b.total} above the endpoint-reduction bound {b.classic_total}"
    return None


def check_two_level_bound(b, kw):
    if not (math.isfinite(b.total) and b.total >= 0):
        return f"two-level bound not a finite non-negative time: {b}"
    return None


def check_two_level_algorithm_time(t, kw):
    bound = ccb.two_level_lower_bound("all_reduce", kw["topology"], kw["m"], kw["hardware"]).total
    if t < bound * (1 - 1e-9):
        return f"{kw['name']} at {t} s beats its two-level lower bound {bound} s"
    return None


FUZZ = {
    # propagation
    "info_steps": entry(
        ccb.info_steps,
        optional=("k",),
        n=INT(1, 10**6, array=True, big=st.sampled_from([2**63 - 1, 10**40])),
        k=INT(1, 8, array=True, big=st.sampled_from([2**62, 2**63 - 1])),
        check=check_info_steps,
    ),
    "coverage": entry(
        ccb.coverage,
        optional=("k", "n"),
        t=INT(0, 70, array=True, big=st.sampled_from([10**5, 10**9])),
        k=INT(1, 8),
        n=st.one_of(st.none(), INT(1, 10**6)),
        check=check_coverage,
    ),
    "info_latency_bound": entry(ccb.info_latency_bound, optional=("k",), n=N, alpha=ALPHA, k=INT(1, 8, array=True)),
    "flat_send_time": entry(ccb.flat_send_time, n=N, latency=SCALAR_ALPHA, overhead=SCALAR_ALPHA, gap=SCALAR_ALPHA),
    # bandwidth
    "role_volumes": entry(ccb.role_volumes, primitive=PRIMITIVE, n=SCALAR_N, m=SCALAR_SIZE),
    "volume_coefficient": entry(ccb.volume_coefficient, primitive=PRIMITIVE, n=N),
    "forced_volume": entry(ccb.forced_volume, primitive=PRIMITIVE, n=N, m=SIZE),
    "effective_ports": entry(
        ccb.effective_ports, optional=("ports", "degree"), ports=INT(1, 8, array=True), degree=DEGREE
    ),
    "bandwidth_lower_bound": entry(
        ccb.bandwidth_lower_bound,
        optional=("ports", "degree"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        beta=BETA,
        ports=INT(1, 8, array=True),
        degree=DEGREE,
    ),
    "uniform_routing": entry(ccb.uniform_routing, n=INT(1, 64, big=st.sampled_from([10**5, 2**20])), m=SCALAR_SIZE),
    "routing_volumes": entry(ccb.routing_volumes, matrix=MATRIX()),
    "routing_lower_bound": entry(
        ccb.routing_lower_bound, optional=("ports",), matrix=MATRIX(), beta=SCALAR_BETA, ports=PORTS
    ),
    "hot_expert_routing": entry(
        ccb.hot_expert_routing,
        optional=("hot", "factor"),
        n=INT(2, 64, big=st.just(10**5)),
        m=SCALAR_SIZE,
        hot=INT(0, 8),
        factor=REAL(0.0, 100.0),
    ),
    "algorithm_bandwidth": entry(ccb.algorithm_bandwidth, m=SIZE, seconds=REAL(1e-9, 10.0, array=True)),
    "bus_bandwidth": entry(ccb.bus_bandwidth, primitive=PRIMITIVE, n=N, m=SIZE, seconds=REAL(1e-9, 10.0, array=True)),
    "gossip_transmissions": entry(ccb.gossip_transmissions, n=INT(1, 4)),
    # in-network reduction
    "in_network_volume": entry(ccb.in_network_volume, primitive=PRIMITIVE, n=N, m=SIZE, check=check_in_network_volume),
    "in_network_lower_bound": entry(
        ccb.in_network_lower_bound,
        optional=("ports", "degree"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        beta=BETA,
        ports=INT(1, 8, array=True),
        degree=DEGREE,
    ),
    "busbw_limit": entry(
        ccb.busbw_limit,
        optional=("ports", "in_network", "degree"),
        primitive=PRIMITIVE,
        n=INT(2, 64, array=True, big=st.sampled_from([2**40, 2**63 - 1])),
        beta=BETA,
        ports=INT(1, 8, array=True),
        in_network=st.one_of(st.booleans(), JUNK),
        degree=DEGREE,
        check=check_busbw_limit,
    ),
    "nvls_all_reduce_volume": entry(ccb.nvls_all_reduce_volume, n=N, m=SIZE, check=check_nvls_volume),
    # gossip (exhaustive search)
    "gossip_rounds": entry(
        ccb.gossip_rounds,
        optional=("ports", "method"),
        topology=st.one_of(GOSSIP_TOPOLOGY, TOPOLOGY),
        ports=INT(1, 3, big=st.sampled_from([2**62, 2**63 + 1])),
        method=choice(("auto", "search")),
        check=check_gossip_rounds,
        examples=0.5,
    ),
    # bounds
    "latency_steps_lower_bound": entry(
        ccb.latency_steps_lower_bound,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        ports=INT(1, 8, array=True),
        diameter=INT(0, 20, array=True),
        degree=DEGREE,
    ),
    "latency_lower_bound": entry(
        ccb.latency_lower_bound,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        alpha=ALPHA,
        ports=PORTS,
        diameter=INT(0, 20),
        degree=DEGREE,
    ),
    "combined_lower_bound": entry(
        ccb.combined_lower_bound,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        diameter=INT(0, 20),
        degree=DEGREE,
    ),
    "crossover_size": entry(
        ccb.crossover_size,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N2,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        diameter=INT(0, 20),
        degree=DEGREE,
    ),
    "round_lower_bound": entry(
        ccb.round_lower_bound,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        diameter=INT(0, 20),
        degree=DEGREE,
        check=check_round_bound,
    ),
    "cut_through_latency_bound": entry(
        ccb.cut_through_latency_bound,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        alpha=ALPHA,
        hop_latency=ALPHA,
        ports=PORTS,
        diameter=INT(0, 20, array=True),
        degree=DEGREE,
        check=check_cut_through,
    ),
    "regime": entry(
        ccb.regime,
        optional=("ports", "diameter", "degree"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        diameter=INT(0, 20),
        degree=DEGREE,
    ),
    # algorithms
    "tree_height": entry(ccb.tree_height, n=N),
    "optimal_chunks": entry(
        ccb.optimal_chunks,
        n=N,
        m=SIZE,
        alpha=st.one_of(ALPHA, st.just(0.0), st.just(5e-324)),
        beta=BETA,
        check=check_chunks,
    ),
    "algorithm_terms": entry(
        ccb.algorithm_terms,
        optional=("ports", "chunks", "pipelined"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        ports=PORTS,
        chunks=st.one_of(st.none(), INT(1, 64)),
        pipelined=st.one_of(st.booleans(), JUNK),
    ),
    "algorithm_cost": entry(
        ccb.algorithm_cost,
        optional=("ports", "gamma"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        gamma=st.one_of(ALPHA, st.just(0.0)),
        check=check_cost_not_below_bound,
    ),
    "applicable_algorithms": entry(
        ccb.applicable_algorithms, optional=("n", "ports"), primitive=PRIMITIVE, n=N, ports=PORTS
    ),
    "best_algorithm": entry(
        ccb.best_algorithm,
        optional=("ports", "gamma"),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        gamma=st.one_of(SCALAR_ALPHA, st.just(0.0)),
        check=check_best,
    ),
    "efficiency": entry(
        ccb.efficiency,
        optional=("ports", "diameter", "bound", "chunks", "pipelined"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        alpha=ALPHA,
        beta=BETA,
        ports=PORTS,
        diameter=INT(0, 3),
        bound=choice(("combined", "round")),
        chunks=st.one_of(st.none(), INT(1, 64, big=st.just(2**40))),
        pipelined=st.one_of(st.booleans(), JUNK),
        check=check_efficiency,
    ),
    "optimal_segments": entry(
        ccb.optimal_segments,
        optional=("ports", "gamma"),
        algorithm=choice(("pipelined_chain", "pipelined_binary_tree")),
        primitive=choice(("broadcast", "reduce", "all_reduce")),
        n=INT(2, 64, array=True, big=st.sampled_from([2**20, 2**40, 2**62])),
        m=SIZE,
        alpha=st.one_of(ALPHA, st.just(0.0)),
        beta=BETA,
        ports=PORTS,
        gamma=st.one_of(ALPHA, st.just(0.0)),
        check=check_segments,
    ),
    "one_port_tree_depth": entry(
        ccb.one_port_tree_depth, n=INT(2, 4096, array=True, big=st.sampled_from([2**40, 2**62])), check=check_depth2
    ),
    "pipeline_constants": entry(
        ccb.pipeline_constants,
        optional=("ports",),
        algorithm=choice(("pipelined_chain", "pipelined_binary_tree")),
        n=INT(2, 64, array=True, big=st.just(2**62)),
        ports=PORTS,
    ),
    "pipelined_algorithms": entry(ccb.pipelined_algorithms, optional=("primitive",), primitive=PRIMITIVE),
    "computation_lower_bound": entry(ccb.computation_lower_bound, primitive=PRIMITIVE, n=N, m=SIZE, gamma=ALPHA),
    "Cost": entry(ccb.Cost, steps=INT(0, 100), bandwidth_bytes=SCALAR_SIZE, record=True),
    "Cost.time": entry(  # the record checks its fields when built (#42): junk is refused there, by name
        lambda steps, bandwidth_bytes, alpha, beta: ccb.Cost(steps, bandwidth_bytes).time(alpha, beta),
        steps=st.one_of(st.integers(0, 100), JUNK),
        bandwidth_bytes=st.one_of(SCALAR_SIZE, JUNK),
        alpha=ALPHA,
        beta=BETA,
    ),
    # selection
    "crossover_between": entry(
        ccb.crossover_between,
        optional=("ports", "m_min", "m_max"),
        algorithm_a=ALGORITHM,
        algorithm_b=ALGORITHM,
        primitive=PRIMITIVE,
        n=INT(2, 64),
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        m_min=REAL(1e-3, 2.0**20),
        m_max=REAL(2.0**10, 2.0**50),
        check=check_crossover,
    ),
    "best_algorithm_bands": entry(
        ccb.best_algorithm_bands,
        optional=("ports", "m_min", "m_max", "points"),
        primitive=PRIMITIVE,
        n=INT(1, 64),
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        m_min=REAL(1e-3, 2.0**20),
        m_max=REAL(2.0**10, 2.0**50),
        points=INT(1, 500, big=st.just(2**30)),
    ),
    "optimality": entry(
        ccb.optimality,
        optional=("m", "ports", "large_n", "huge_n", "pipelined", "chunks"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=INT(2, 64),
        m=SCALAR_SIZE,
        ports=PORTS,
        large_n=INT(2, 2**12),
        huge_n=INT(2**12, 2**20),
        pipelined=st.one_of(st.booleans(), JUNK),
        chunks=st.one_of(st.none(), INT(1, 256, big=st.sampled_from([2**20, 2**40]))),
    ),
    # topology
    "ring": entry(ccb.ring, n=INT(1, 64, big=st.sampled_from([10**9, 2**62]))),
    "torus": entry(ccb.torus, args=st.lists(INT(1, 6, big=st.sampled_from([3, 10**6])), min_size=0, max_size=4)),
    "mesh": entry(ccb.mesh, args=st.lists(INT(1, 6, big=st.sampled_from([3, 10**6])), min_size=0, max_size=4)),
    "hypercube": entry(ccb.hypercube, dim=INT(0, 10, big=st.sampled_from([30, 62]))),
    "fat_tree": entry(
        ccb.fat_tree,
        optional=("oversubscription", "hosts_per_leaf"),
        n=INT(4, 64, big=st.sampled_from([2**31 - 1, 2**40])),
        oversubscription=st.one_of(st.sampled_from([1, 2, 4, 1.5]), REAL(1.0, 8.0)),
        hosts_per_leaf=st.one_of(st.none(), INT(1, 16)),
    ),
    "single_switch": entry(
        ccb.single_switch,
        optional=("links",),
        n=INT(2, 64, big=st.just(10**12)),
        links=INT(1, 8, big=st.sampled_from([10**6, 2**40])),
    ),
    "fully_connected": entry(ccb.fully_connected, n=INT(1, 64, big=st.just(10**12))),
    "measured_diameter": entry(ccb.measured_diameter, topology=TOPOLOGY),
    "measured_bisection": entry(
        ccb.measured_bisection,
        optional=("max_endpoints",),
        topology=ANY_TOPOLOGY,
        max_endpoints=INT(1, 64, big=st.sampled_from([10**6, 2**62])),
    ),
    "Topology": entry(
        ccb.Topology,
        optional=("switched", "oversubscription"),
        family=choice(ccb.TOPOLOGY_FAMILIES),
        name=st.text(max_size=5),
        n=INT(1, 64),
        degree=INT(0, 8),
        diameter=INT(0, 8),
        bisection_links=INT(0, 8),
        switched=st.one_of(st.booleans(), JUNK),
        oversubscription=REAL(1.0, 4.0),
    ),
    "Topology.graph": entry(lambda topology: topology.graph, topology=st.one_of(SMALL_TOPOLOGY, BIG_TOPOLOGY)),
    "Topology.bisection_bandwidth": entry(
        lambda topology, beta: topology.bisection_bandwidth(beta), topology=SMALL_TOPOLOGY, beta=BETA
    ),
    # broadcast
    "eccentricity": entry(ccb.eccentricity, optional=("root",), topology=TOPOLOGY, root=INT(0, 30)),
    "broadcast_steps": entry(
        ccb.broadcast_steps,
        optional=("k", "root", "method"),
        topology=TOPOLOGY,
        k=INT(1, 6),
        root=INT(0, 30),
        method=choice(("auto", "formula", "search")),
    ),
    "search_broadcast_steps": entry(
        ccb.search_broadcast_steps, optional=("k", "root"), topology=TOPOLOGY, k=INT(1, 6), root=INT(0, 30)
    ),
    # diameter
    "family_instance": entry(
        ccb.family_instance, family=FAMILY, size=INT(1, 40, big=st.sampled_from([62, 2**31, 2**40]))
    ),
    "family_instances": entry(
        lambda family, max_n: list(ccb.family_instances(family, max_n))[:3],
        family=FAMILY,
        max_n=INT(2, 2000, big=st.sampled_from([10**9, 2**62])),
    ),
    "binding_latency_term": entry(ccb.binding_latency_term, optional=("k",), topology=TOPOLOGY, k=INT(1, 8)),
    "diameter_binding_sizes": entry(
        ccb.diameter_binding_sizes, optional=("n_max", "k"), n_max=INT(2, 2000, big=st.just(10**9)), k=INT(1, 8)
    ),
    "first_diameter_bound": entry(
        ccb.first_diameter_bound,
        optional=("max_n", "k"),
        family=FAMILY,
        max_n=INT(2, 500, big=st.sampled_from([5000, 10**9, 2**62])),
        k=INT(1, 8),
    ),
    # bisection
    "bisection_bytes": entry(
        ccb.bisection_bytes,
        optional=("root_side",),
        primitive=PRIMITIVE,
        n=N,
        m=SIZE,
        root_side=choice(("larger", "smaller")),
    ),
    "bisection_lower_bound": entry(
        ccb.bisection_lower_bound, primitive=PRIMITIVE, topology=ANY_TOPOLOGY, m=SIZE, beta=BETA
    ),
    "node_lower_bound": entry(
        ccb.node_lower_bound,
        optional=("ports",),
        primitive=PRIMITIVE,
        topology=ANY_TOPOLOGY,
        m=SIZE,
        beta=BETA,
        ports=PORTS,
    ),
    "tighter_bound": entry(
        ccb.tighter_bound,
        optional=("ports",),
        primitive=PRIMITIVE,
        topology=ANY_TOPOLOGY,
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
        ports=PORTS,
    ),
    "bisection_partition": entry(ccb.bisection_partition, topology=ANY_TOPOLOGY),
    "cut_links": entry(
        ccb.cut_links, topology=TOPOLOGY, side=st.one_of(st.sets(st.integers(0, 30), max_size=10), INTS(0, 30), JUNK)
    ),
    # schedules and the simulator
    "block_bounds": entry(
        ccb.block_bounds,
        optional=("parts",),
        m=INT(0, 10**6, big=st.sampled_from([2**62, 2**63 - 1])),
        n=INT(1, 64),
        parts=st.one_of(st.none(), INT(1, 64, big=st.just(2**30))),
        check=check_block_bounds,
    ),
    "Transfer": entry(
        ccb.Transfer,
        optional=("op", "buffer", "dst_offset", "dst_buffer"),
        src=INT(0, 8),
        dst=INT(0, 8),
        offset=INT(0, 64),
        length=INT(0, 64),
        op=choice(("copy", "reduce")),
        buffer=choice(("data", "send", "recv", "work")),
        dst_offset=st.one_of(st.none(), INT(0, 64)),
        dst_buffer=st.one_of(st.none(), choice(("data", "recv"))),
    ),
    "Round": entry(
        ccb.Round,
        optional=("reduce", "buffer", "dst_offset", "dst_buffer"),
        src=INT(0, 8, array=True),
        dst=INT(0, 8, array=True),
        offset=INT(0, 64, array=True),
        length=INT(0, 64, array=True),
        reduce=st.one_of(st.booleans(), JUNK),
        buffer=INT(0, 2),
        dst_offset=INT(0, 64),
        dst_buffer=INT(0, 2),
    ),
    "Schedule": entry(
        ccb.Schedule,
        optional=("buffers", "root", "algorithm"),
        primitive=PRIMITIVE,
        n=INT(1, 8),
        m=INT(0, 64),
        rounds=st.one_of(st.just([]), fresh(lambda: [ccb.Round([0], [1], 0, 1)]), JUNK),
        buffers=st.one_of(st.sampled_from([("data",), ("send", "recv"), ("data", "work"), ("tmp",)]), JUNK),
        root=INT(0, 8),
        algorithm=st.one_of(st.text(max_size=4), JUNK),
    ),
    "Schedule.from_transfers": entry(
        ccb.Schedule.from_transfers,
        optional=("root",),
        primitive=PRIMITIVE,
        n=INT(1, 8),
        m=INT(0, 64),
        rounds=st.one_of(
            fresh(
                lambda: [[ccb.Transfer(0, 1, 0, 4)]],
                lambda: [[]],
                lambda: [],
                lambda: [[(0, 1, 0, 4)]],
                lambda: [[ccb.Transfer(0, 1, 0, 4, buffer="work")]],
            ),
            JUNK,
        ),
        root=INT(0, 8),
    ),
    "generate": entry(
        ccb.generate,
        optional=("ports", "root", "chunks", "pipelined"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=INT(1, 40, big=st.sampled_from([2**20, 10**9])),
        m=INT(0, 4096, big=st.sampled_from([2**40, 2**62])),
        ports=PORTS,
        root=INT(0, 8),
        chunks=st.one_of(st.none(), INT(1, 16, big=st.just(10**9))),
        pipelined=st.one_of(st.booleans(), JUNK),
    ),
    "knomial_tree": entry(
        ccb.knomial_tree,
        optional=("k",),
        n=INT(1, 64, big=st.sampled_from([2**30, 10**12])),
        k=INT(1, 8, big=st.just(10**18)),
    ),
    "nccl_double_binary_tree": entry(
        ccb.nccl_double_binary_tree, n=INT(1, 64, big=st.sampled_from([2**30, 10**12])), negative_ok=True
    ),
    "patarasuk_yuan": entry(ccb.patarasuk_yuan, topology=TOPOLOGY, m=INT(0, 4096, big=st.just(2**62))),
    "tree_ring_order": entry(ccb.tree_ring_order, topology=TOPOLOGY),
    "place": entry(ccb.place, schedule=SCHEDULE, hosts=st.one_of(INTS(0, 8, max_size=9), JUNK)),
    "routed_loads": entry(ccb.routed_loads, schedule=SCHEDULE, topology=TOPOLOGY),
    "run_schedule": entry(
        ccb.run_schedule,
        optional=("ports", "topology", "seed", "max_bytes"),
        schedule=SCHEDULE,
        ports=PORTS,
        topology=st.one_of(st.none(), TOPOLOGY),
        seed=INT(0, 100),
        max_bytes=INT(0, 2**31),
    ),
    "simulate": entry(
        ccb.simulate,
        optional=("ports", "topology", "seed", "max_bytes", "root", "chunks"),
        algorithm=ALGORITHM,
        primitive=PRIMITIVE,
        n=INT(1, 24, big=st.sampled_from([1024, 2**20, 10**9])),
        m=INT(0, 2048, big=st.sampled_from([2**20, 2**30, 2**62])),
        ports=PORTS,
        topology=st.one_of(st.none(), TOPOLOGY),
        seed=INT(0, 100),
        max_bytes=INT(0, 2**31),
        root=INT(0, 8),
        chunks=INT(1, 8),
        check=check_simulation,
        examples=2.0,
    ),
    "ScheduleError": entry(ccb.ScheduleError, args=st.lists(st.text(max_size=5), max_size=2), record=True),
    "SimulationResult": entry(
        ccb.SimulationResult,
        schedule=SCHEDULE,
        rounds=INT(0, 8),
        bytes_sent=fresh(lambda: np.zeros(2)),
        bytes_received=fresh(lambda: np.zeros(2)),
        sent_per_round=fresh(lambda: np.zeros((1, 2))),
        received_per_round=fresh(lambda: np.zeros((1, 2))),
        max_message=fresh(lambda: np.zeros(1)),
        correct=st.one_of(st.booleans(), JUNK),
        errors=st.one_of(st.just([]), JUNK),
    ),
    "SimulationResult.time": entry(
        lambda alpha, beta: ccb.simulate("ring", "all_gather", 4, 64).time(alpha, beta), alpha=ALPHA, beta=BETA
    ),
    # hardware, units, volumes
    "preset": entry(ccb.preset, key=PRESET_KEY),
    "HardwarePreset": entry(
        ccb.HardwarePreset,
        optional=("links", "overhead", "gap", "hop_latency"),
        key=st.text(max_size=3),
        label=st.text(max_size=3),
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=st.one_of(st.none(), INT(1, 8)),
        topology=st.one_of(st.text(max_size=3), JUNK),
        source=st.text(max_size=3),
        links=st.one_of(st.none(), INT(1, 18)),
        overhead=st.one_of(st.none(), SCALAR_ALPHA),
        gap=st.one_of(st.none(), SCALAR_ALPHA),
        hop_latency=st.one_of(st.none(), SCALAR_ALPHA),
        check=lambda p, kw: None if p.effective_ports(16) >= 1 else f"effective_ports(16) = {p.effective_ports(16)}",
    ),
    "HardwarePreset.ports_for": entry(
        lambda key, n: ccb.PRESETS[key].ports_for(n), key=st.sampled_from(list(ccb.PRESETS)), n=INT(1, 64)
    ),
    "format_bytes": entry(ccb.format_bytes, value=REAL(0.0, 1e15)),
    "format_time": entry(ccb.format_time, seconds=REAL(0.0, 1e3)),
    "format_bandwidth": entry(ccb.format_bandwidth, bytes_per_second=REAL(0.0, 1e13)),
    "Volume": entry(ccb.Volume, send=SCALAR_SIZE, recv=SCALAR_SIZE, record=True),
    # result records validate their fields since issue #28 (a record is input to the next call)
    "AlphaBeta": entry(
        ccb.AlphaBeta,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        steps=INT(0, 64),
        intercept_s=SCALAR_ALPHA,
        seconds_per_byte=REAL(0.0, 1e-6),
        rms_relative_error=REAL(0.0, 1.0),
        points=INT(0, 64),
        record=True,
    ),
    "PublishedLog": entry(
        ccb.PublishedLog,
        optional=("in_switch_reduction",),
        key=st.text(max_size=3),
        system=st.text(max_size=3),
        source=st.text(max_size=3),
        nccl=st.one_of(st.none(), st.text(max_size=3), JUNK),
        collective=st.one_of(st.none(), choice(ccb.PRIMITIVES)),
        n_nodes=INT(1, 64),
        gpu_beta=SCALAR_BETA,
        node_beta=st.one_of(st.none(), SCALAR_BETA),
        spec=st.text(max_size=3),
        in_switch_reduction=st.one_of(st.booleans(), JUNK),
        record=True,
    ),
    "NcclTestsRow": entry(
        ccb.NcclTestsRow,
        size=INT(0, 2**30),
        count=INT(0, 2**28),
        type=st.one_of(st.none(), st.just("float"), JUNK),
        redop=st.one_of(st.none(), st.just("sum"), JUNK),
        root=st.one_of(st.none(), INT(-1, 8)),
        time_s=REAL(1e-6, 1.0),
        algbw_Bps=SCALAR_BETA,
        busbw_Bps=SCALAR_BETA,
        wrong=st.one_of(st.none(), REAL(0.0, 10.0)),
        time_s_inplace=st.one_of(st.none(), REAL(1e-6, 1.0)),
        algbw_Bps_inplace=st.one_of(st.none(), SCALAR_BETA),
        busbw_Bps_inplace=st.one_of(st.none(), SCALAR_BETA),
        wrong_inplace=st.one_of(st.none(), REAL(0.0, 10.0)),
        line=INT(0, 100),
        record=True,
    ),
    "NcclPrediction": entry(
        ccb.NcclPrediction,
        primitive=choice(ccb.PRIMITIVES),
        n_ranks=INT(2, 64),
        n_nodes=INT(1, 8),
        m=INT(0, 2**30),
        topology=st.one_of(st.just("dgx_h100"), JUNK),
        times=st.one_of(st.just({}), JUNK),
        latencies=st.one_of(st.just({}), JUNK),
        bandwidths=st.one_of(st.just({}), JUNK),
        algorithm=st.one_of(st.just("ring"), JUNK),
        protocol=st.one_of(st.just("simple"), JUNK),
        time=SCALAR_ALPHA,
        record=True,
    ),
    "NcclTestsLog": entry(
        ccb.NcclTestsLog,
        optional=("hosts", "time_unit_s"),
        rows=st.one_of(st.just(()), JUNK),
        n_ranks=st.one_of(st.none(), INT(1, 64)),
        collective=st.one_of(st.none(), choice(ccb.PRIMITIVES)),
        hosts=st.one_of(st.just(()), JUNK),
        time_unit_s=REAL(1e-6, 1e-3),
        record=True,
    ),
    # tables
    "Table": entry(
        ccb.Table,
        optional=("caption",),
        headers=st.one_of(st.just(["a", "b"]), JUNK),
        rows=st.one_of(fresh(lambda: [["1", "2"]], lambda: [["1"]], lambda: []), JUNK),
        caption=st.one_of(st.text(max_size=3), JUNK),
    ),
    "info_propagation_table": entry(ccb.info_propagation_table, optional=("ns", "k"), ns=INTS(1, 10**6), k=INT(2, 8)),
    "preset_steps_table": entry(
        ccb.preset_steps_table,
        optional=("ns", "keys"),
        ns=INTS(1, 10**6),
        keys=st.one_of(st.lists(PRESET_KEY, max_size=3), JUNK),
    ),
    "broadcast_attainment_table": entry(
        ccb.broadcast_attainment_table,
        optional=("ns", "ks", "m"),
        ns=INTS(1, 100),
        ks=INTS(1, 6),
        m=INT(0, 4096, big=st.just(2**40)),
        examples=0.5,
    ),
    "exhaustive_broadcast_table": entry(
        ccb.exhaustive_broadcast_table, optional=("ns", "ks"), ns=INTS(2, 10, max_size=3), ks=INTS(1, 3, max_size=2)
    ),
    "diameter_table": entry(
        ccb.diameter_table,
        optional=("k", "measure_up_to"),
        topologies=st.one_of(st.lists(TOPOLOGY, max_size=3), JUNK),
        k=INT(1, 4),
        measure_up_to=INT(0, 2000, big=st.just(10**9)),
    ),
    "ring_diameter_table": entry(
        ccb.ring_diameter_table, optional=("ns", "search_up_to"), ns=INTS(2, 40), search_up_to=INT(0, 20)
    ),
    "first_diameter_bound_table": entry(
        ccb.first_diameter_bound_table,
        optional=("families", "ks", "max_n"),
        families=st.one_of(st.lists(FAMILY, max_size=3), JUNK),
        ks=INTS(1, 3, max_size=2),
        max_n=INT(2, 500, big=st.sampled_from([5000, 10**9])),
    ),
    "kport_ring_table": entry(
        ccb.kport_ring_table, optional=("n", "ks"), n=INT(2, 64, big=st.just(10**12)), ks=INTS(1, 8)
    ),
    "bandwidth_table": entry(
        ccb.bandwidth_table,
        optional=("ports", "n", "m", "beta"),
        ports=PORTS,
        n=INT(1, 64),
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
    ),
    "bandwidth_table_2port": entry(
        ccb.bandwidth_table_2port, optional=("ns", "m", "beta"), ns=INTS(2, 64), m=SCALAR_SIZE, beta=SCALAR_BETA
    ),
    "bandwidth_attainment_table": entry(
        ccb.bandwidth_attainment_table,
        optional=("ns", "block"),
        ns=INTS(1, 24, max_size=3),
        block=INT(0, 256, big=st.just(2**40)),
        examples=0.5,
    ),
    "busbw_table": entry(
        ccb.busbw_table,
        optional=("n", "sizes", "preset_key"),
        n=INT(1, 64),
        sizes=st.one_of(st.lists(SCALAR_SIZE, max_size=4), JUNK),
        preset_key=PRESET_KEY,
    ),
    "algorithm_comparison_table": entry(
        ccb.algorithm_comparison_table,
        optional=("ports", "ns", "m"),
        ports=INT(1, 4),
        ns=INTS(2, 64, max_size=3),
        m=SCALAR_SIZE,
    ),
    "simulated_vs_bound_table": entry(
        ccb.simulated_vs_bound_table,
        optional=("cases", "preset_key"),
        cases=st.one_of(st.lists(st.tuples(ALGORITHM, INT(1, 16), INT(0, 4096)), max_size=3), JUNK),
        preset_key=PRESET_KEY,
        examples=0.5,
    ),
    "tree_ring_crossover_table": entry(
        ccb.tree_ring_crossover_table,
        optional=("ns", "preset_key", "ports"),
        ns=INTS(2, 512, max_size=3),
        preset_key=PRESET_KEY,
        ports=INT(1, 4),
    ),
    "bisection_width_table": entry(
        ccb.bisection_width_table,
        optional=("search_up_to",),
        topologies=st.one_of(st.lists(TOPOLOGY, max_size=3), JUNK),
        search_up_to=INT(0, 16, big=st.just(64)),
    ),
    "bisection_comparison_table": entry(
        ccb.bisection_comparison_table,
        optional=("m", "beta", "primitives"),
        topologies=st.one_of(st.lists(TOPOLOGY, max_size=3), JUNK),
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
        primitives=st.one_of(st.lists(PRIMITIVE, max_size=3), JUNK),
    ),
    "source_bisection_table": entry(
        ccb.source_bisection_table,
        optional=("ns", "m", "beta"),
        ns=INTS(4, 4096, max_size=3),
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
    ),
    "in_network_table": entry(
        ccb.in_network_table,
        optional=("n", "preset_key"),
        n=INT(2, 64, big=st.sampled_from([2**40, 2**62])),
        preset_key=PRESET_KEY,
    ),
    "ring_gossip_table": entry(
        ccb.ring_gossip_table, optional=("ns", "ports"), ns=INTS(2, 12, max_size=3), ports=INT(1, 3), examples=0.5
    ),
    "source_node_bound_table": entry(
        ccb.source_node_bound_table,
        optional=("ns", "m", "beta"),
        ns=INTS(4, 4096, max_size=3),
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
    ),
    "efficiency_table": entry(
        ccb.efficiency_table,
        optional=("n", "alpha", "beta", "ports", "span"),
        n=INT(2, 256, big=st.just(2**40)),
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=INT(1, 4),
        span=REAL(1.0, 2.0**20),
    ),
    "non_power_of_two_table": entry(
        ccb.non_power_of_two_table,
        optional=("ns", "sizes", "preset_key"),
        ns=INTS(2, 200, max_size=3),
        sizes=st.one_of(st.lists(SCALAR_SIZE, max_size=3), JUNK),
        preset_key=st.one_of(choice(list(ccb.PRESETS)), JUNK),
    ),
    "pipelined_rooted_table": entry(
        ccb.pipelined_rooted_table,
        optional=("n", "m", "preset_key", "primitive", "gamma"),
        n=INT(2, 256, big=st.just(2**40)),
        m=SCALAR_SIZE,
        preset_key=st.one_of(choice(list(ccb.PRESETS)), JUNK),
        primitive=choice(("broadcast", "reduce", "all_gather")),
        gamma=SCALAR_ALPHA,
    ),
    "computation_table": entry(
        ccb.computation_table,
        optional=("preset_keys", "n", "m"),
        preset_keys=st.one_of(st.lists(choice(list(ccb.PRESETS)), max_size=3), JUNK),
        n=INT(2, 256, big=st.just(2**40)),
        m=SCALAR_SIZE,
    ),
    "fat_tree_allreduce_table": entry(
        ccb.fat_tree_allreduce_table,
        optional=("n", "oversubscriptions", "m", "preset_key"),
        n=INT(4, 16, big=st.just(2**40)),
        oversubscriptions=st.one_of(st.lists(st.sampled_from([1, 2, 4]), max_size=2), JUNK),
        m=INT(0, 4096, big=st.just(2**40)),
        preset_key=st.one_of(choice(list(ccb.PRESETS)), JUNK),
        examples=0.5,
    ),
    "oversubscription_table": entry(
        ccb.oversubscription_table,
        optional=("n", "hosts_per_leaf", "m", "beta", "primitives"),
        n=INT(4, 128, big=st.just(2**40)),
        hosts_per_leaf=INT(1, 16, big=st.just(2**20)),
        m=SCALAR_SIZE,
        beta=SCALAR_BETA,
        primitives=st.one_of(st.lists(PRIMITIVE, max_size=2), JUNK),
    ),
    # chapter 8: nccl-tests logs, NCCL's tuning model (nccl helper's modules)
    "busbw_ceiling": entry(
        ccb.busbw_ceiling,
        optional=("ports", "latency_ports"),
        primitive=PRIMITIVE,
        n=INT(2, 64),
        m=SIZE,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        latency_ports=st.one_of(st.none(), PORTS),
    ),
    "two_level_busbw_ceiling": entry(
        ccb.two_level_busbw_ceiling,
        optional=("node_beta", "ports", "nic_shares_link"),
        primitive=PRIMITIVE,
        n_ranks=INT(2, 64),
        n_nodes=INT(1, 8),
        beta=SCALAR_BETA,
        node_beta=st.one_of(st.none(), SCALAR_BETA),
        ports=PORTS,
        nic_shares_link=st.one_of(st.booleans(), JUNK),
    ),
    "mpi_example": entry(
        ccb.mpi_example,
        name=st.one_of(st.sampled_from(sorted(ccb.MPI_EXAMPLES)), JUNK),
        check=lambda r, kw: None if isinstance(r, dict) and r else f"not a record: {type(r).__name__}",
    ),
    "logp_broadcast": entry(
        ccb.logp_broadcast,
        optional=("tree", "ports"),
        n=INT(1, 64, big=st.just(2**40)),
        latency=SCALAR_ALPHA,
        overhead=SCALAR_ALPHA,
        gap=SCALAR_ALPHA,
        tree=st.one_of(st.sampled_from(ccb.LOGP_TREES), JUNK),
        ports=INT(1, 8),
        check=lambda r, kw: None if r.time >= 0 and len(r.ready) == kw["n"] else f"bad broadcast {r.time}",
    ),
    "logp_tree_broadcast": entry(
        ccb.logp_tree_broadcast,
        children=st.one_of(
            st.sampled_from([[[1, 2], [], []], [[1], [2], []], [[]], [[1], [0]], [[2], [], [1]]]),
            st.lists(st.lists(INT(0, 6), max_size=3), min_size=1, max_size=6),
            JUNK,
        ),
        latency=SCALAR_ALPHA,
        overhead=SCALAR_ALPHA,
        gap=SCALAR_ALPHA,
    ),
    "two_level_ceiling_terms": entry(
        ccb.two_level_ceiling_terms,
        optional=("node_beta", "ports", "rail_beta", "nic_shares_link"),
        primitive=PRIMITIVE,
        n_ranks=INT(2, 64),
        n_nodes=INT(1, 8),
        beta=SCALAR_BETA,
        node_beta=st.one_of(st.none(), SCALAR_BETA),
        rail_beta=st.one_of(st.none(), SCALAR_BETA),
        ports=PORTS,
        nic_shares_link=st.one_of(st.booleans(), JUNK),
        check=lambda t, kw: (
            None
            if t.ceiling == min(t.endpoint, t.node_cut if t.node_cut is not None else math.inf)
            and t.endpoint == t.links + t.nic
            else f"terms disagree: {t}"
        ),
    ),
    "read_nccl_tests": entry(
        ccb.read_nccl_tests,
        optional=("collective", "n_ranks", "force"),
        text=NCCL_TEXT,
        collective=st.one_of(st.none(), PRIMITIVE, st.just("sendrecv")),
        n_ranks=st.one_of(st.none(), INT(1, 64, big=st.just(2**40))),
        force=st.one_of(st.booleans(), JUNK),
        names=("line",),
    ),  # "line 12: ..." names the place in the text
    "read_nccl_tests_runs": entry(
        ccb.read_nccl_tests_runs,
        optional=("collective", "n_ranks", "force"),
        n_ranks=st.one_of(st.none(), INT(2, 64)),
        force=st.booleans(),
        text=st.one_of(
            NCCL_TEXT, st.lists(NCCL_TEXT.filter(lambda t: isinstance(t, str)), min_size=2, max_size=3).map("\n".join)
        ),
        collective=st.one_of(st.none(), PRIMITIVE),
        names=("line",),
    ),
    "read_published_log": entry(ccb.read_published_log, key=LOG_KEY),
    "two_step_rounds_per_chunk": entry(
        ccb.two_step_rounds_per_chunk,
        optional=("primitive", "root"),
        topology=st.one_of(
            st.sampled_from([ccb.ring(4), ccb.ring(5), ccb.ring(7), ccb.dgx1(), ccb.single_switch(3)]), JUNK
        ),
        primitive=st.one_of(st.sampled_from(["all_gather", "broadcast", "all_to_all"]), JUNK),
        root=INT(0, 8),
        examples=0.3,
    ),
    "in_switch_busbw_ceiling": entry(
        ccb.in_switch_busbw_ceiling,
        optional=("node_beta",),
        primitive=PRIMITIVE,
        n_ranks=INT(2, 64),
        n_nodes=INT(1, 8),
        beta=SCALAR_BETA,
        node_beta=st.one_of(st.none(), SCALAR_BETA),
    ),
    "nvls_graph": entry(
        ccb.nvls_graph,
        optional=("nic_bw",),
        gpus=INT(1, 40, big=st.just(2**40)),
        nvswitch_bw=REAL(1e9, 1e12),
        nic_bw=REAL(0.0, 1e11),
    ),
    "nccl_nvls_table": entry(
        ccb.nccl_nvls_table,
        optional=("gpu_counts", "topology"),
        gpu_counts=st.one_of(st.lists(INT(1, 40), max_size=3), fresh(lambda: iter(int, 1)), JUNK),
        topology=NCCL_TOPOLOGY,
    ),
    "published_log_text": entry(ccb.published_log_text, key=LOG_KEY),
    "published_summary_table": entry(
        ccb.published_summary_table, optional=("keys",), keys=st.one_of(st.none(), st.lists(LOG_KEY, max_size=3), JUNK)
    ),
    "fit_alpha_beta": entry(
        ccb.fit_alpha_beta,
        optional=("n_ranks", "collective", "min_size", "max_size", "inplace"),
        log=NCCL_LOG,
        n_ranks=st.one_of(st.none(), INT(2, 64)),
        collective=st.one_of(st.none(), PRIMITIVE),
        min_size=REAL(1.0, 2.0**20),
        max_size=st.one_of(st.none(), REAL(2.0**10, 2.0**34)),
        inplace=st.one_of(st.booleans(), JUNK),
    ),
    "nccl_tests_report": entry(
        ccb.nccl_tests_report,
        optional=("ports", "latency_ports", "n_ranks", "collective"),
        log=NCCL_LOG,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        latency_ports=st.one_of(st.none(), PORTS),
        n_ranks=st.one_of(st.none(), INT(2, 64)),
        collective=st.one_of(st.none(), PRIMITIVE),
    ),
    "nccl_predict": entry(
        lambda kw, overrides: ccb.nccl_predict(**kw, **overrides),
        kw=NCCL_CALL,
        overrides=NCCL_OVERRIDES,
        names=NCCL_NAMES,
    ),
    "nccl_tuning_table": entry(
        lambda kw, overrides: ccb.nccl_tuning_table(**{k: v for k, v in kw.items() if k != "m"}, **overrides),
        kw=NCCL_CALL,
        overrides=NCCL_OVERRIDES,
        names=NCCL_NAMES,
    ),
    "nccl_vs_bound": entry(
        lambda kw, overrides: ccb.nccl_vs_bound(**kw, **overrides),
        kw=NCCL_CALL,
        overrides=NCCL_OVERRIDES,
        names=NCCL_NAMES,
    ),
    "nccl_bound_parameters": entry(
        lambda topology, overrides: ccb.nccl_bound_parameters(topology, **overrides),
        topology=NCCL_TOPOLOGY,
        overrides=NCCL_OVERRIDES,
        names=NCCL_NAMES,
    ),
    "nccl_vs_bound_table": entry(
        ccb.nccl_vs_bound_table,
        optional=("topology", "primitive"),
        cases=st.one_of(
            st.lists(st.tuples(INT(2, 64), INT(1, 8), INT(0, 2**30)), max_size=3),
            fresh(lambda: range(10**9), lambda: iter(int, 1)),
            JUNK,
        ),
        topology=NCCL_TOPOLOGY,
        primitive=choice(ccb.NCCL_COLLECTIVES),
    ),
    "plot_nccl_times": entry(
        ccb.plot_nccl_times,
        optional=("primitive", "n_ranks", "n_nodes", "topology", "m_range", "efficiency"),
        primitive=choice(ccb.NCCL_COLLECTIVES),
        n_ranks=INT(2, 64),
        n_nodes=INT(1, 8),
        topology=NCCL_TOPOLOGY,
        m_range=st.one_of(st.tuples(REAL(1.0, 2.0**10), REAL(2.0**12, 2.0**34)), JUNK),
        efficiency=st.one_of(st.booleans(), JUNK),
        examples=0.3,
    ),
    "plot_nccl_pick_map": entry(
        ccb.plot_nccl_pick_map,
        optional=("topology", "primitive", "threshold"),
        topology=NCCL_TOPOLOGY,
        primitive=choice(ccb.NCCL_COLLECTIVES),
        threshold=REAL(0.1, 1.0),
        examples=0.2,
    ),
    "plot_busbw_against_bound": entry(
        ccb.plot_busbw_against_bound,
        optional=("ports", "n_ranks", "collective"),
        log=NCCL_LOG,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        n_ranks=st.one_of(st.none(), INT(2, 64)),
        collective=st.one_of(st.none(), PRIMITIVE),
        examples=0.3,
    ),
    # chapter 7: topologies with parallel links, schedule synthesis (synth helper's modules)
    "topology_from_links": entry(
        ccb.topology_from_links,
        optional=("name", "bisection_links"),
        matrix=LINK_MATRIX,
        name=st.one_of(st.none(), st.text(max_size=5), JUNK),
        bisection_links=st.one_of(st.none(), INT(0, 20)),
    ),
    "topology_from_graph": entry(
        ccb.topology_from_graph,
        optional=("name", "bisection_links"),
        graph=NX_GRAPH,
        name=st.one_of(st.none(), st.text(max_size=5)),
        bisection_links=st.one_of(st.none(), INT(0, 20)),
    ),
    "dgx1": entry(ccb.dgx1),
    "link_matrix": entry(ccb.link_matrix, topology=SYNTH_TOPOLOGY),
    "parse_nvidia_smi_topo": entry(
        ccb.parse_nvidia_smi_topo,
        optional=("name", "nvswitch", "pcie_links", "level_links"),
        text=SMI_TEXT,
        name=st.one_of(st.none(), st.text(max_size=5)),
        nvswitch=st.one_of(st.sampled_from(["auto", True, False]), JUNK),
        pcie_links=INT(1, 4),
        level_links=st.one_of(st.none(), st.just({"PIX": 2}), st.just({"FOO": 1}), JUNK),
    ),
    "parse_rocm_smi_topo": entry(
        ccb.parse_rocm_smi_topo,
        optional=("name", "pcie_links", "level_links"),
        text=ROCM_TEXT,
        name=st.one_of(st.none(), st.text(max_size=5)),
        pcie_links=INT(1, 4),
        level_links=st.one_of(st.none(), st.just({"NODE": 3}), JUNK),
    ),
    "steps_lower_bound": entry(
        ccb.steps_lower_bound, optional=("root",), topology=SYNTH_TOPOLOGY, primitive=PRIMITIVE, root=INT(0, 8)
    ),
    "rounds_per_chunk_bound": entry(
        ccb.rounds_per_chunk_bound, optional=("root",), topology=SYNTH_TOPOLOGY, primitive=PRIMITIVE, root=INT(0, 8)
    ),
    "synthesize": entry(
        ccb.synthesize,
        optional=("root", "m", "workers"),
        topology=SYNTH_TOPOLOGY,
        primitive=PRIMITIVE,
        steps=INT(1, 4, big=st.just(10**6)),
        rounds=INT(1, 6, big=st.just(10**6)),
        chunks=INT(1, 3, big=st.just(10**6)),
        time_limit=TIME_LIMIT,
        root=INT(0, 8),
        m=st.one_of(st.none(), INT(0, 256)),
        workers=INT(1, 2),
        examples=0.5,
    ),
    "pareto_frontier": entry(
        ccb.pareto_frontier,
        optional=("max_chunks", "root", "workers"),
        topology=SYNTH_TOPOLOGY,
        primitive=PRIMITIVE,
        max_steps=INT(1, 3, big=st.just(10**6)),
        max_chunks=INT(1, 2),
        time_limit=REAL(0.05, 0.5),
        root=INT(0, 8),
        workers=INT(1, 2),
        examples=0.3,
    ),
    "stored_schedules": entry(ccb.stored_schedules),
    "stored_schedule": entry(
        ccb.stored_schedule,
        optional=("rounds", "m", "verify"),
        topology=SYNTH_TOPOLOGY,
        primitive=PRIMITIVE,
        steps=INT(1, 8),
        chunks=INT(1, 8),
        rounds=st.one_of(st.none(), INT(1, 16)),
        m=st.one_of(st.none(), INT(0, 4096)),
        verify=st.one_of(st.booleans(), JUNK),
    ),
    "stored_frontier": entry(ccb.stored_frontier, topology=SYNTH_TOPOLOGY, primitive=PRIMITIVE),
    "synthesized_time": entry(
        ccb.synthesized_time, schedule=st.one_of(STORED, SCHEDULE), alpha=SCALAR_ALPHA, beta=SCALAR_BETA
    ),
    "verify_synthesized": entry(
        ccb.verify_synthesized,
        optional=("seed",),
        schedule=st.one_of(STORED, SCHEDULE),
        topology=SYNTH_TOPOLOGY,
        seed=INT(0, 100),
    ),
    "synthesis_bounds_table": entry(
        ccb.synthesis_bounds_table,
        optional=("primitives",),
        topologies=st.one_of(st.lists(SYNTH_TOPOLOGY, max_size=2), JUNK),
        primitives=st.one_of(st.lists(PRIMITIVE, max_size=2), JUNK),
    ),
    "attainment_table": entry(
        ccb.attainment_table,
        optional=("primitive",),
        topologies=st.one_of(st.lists(SYNTH_TOPOLOGY, max_size=2), JUNK),
        primitive=PRIMITIVE,
        time_limit=REAL(0.05, 0.5),
        examples=0.3,
    ),
    "draw_synthesized_step": entry(
        ccb.draw_synthesized_step,
        schedule=st.one_of(STORED, SCHEDULE),
        topology=SYNTH_TOPOLOGY,
        step=INT(0, 8),
        examples=0.3,
    ),
    "plot_schedule_steps": entry(
        ccb.plot_schedule_steps, schedule=st.one_of(STORED, SCHEDULE), topology=SYNTH_TOPOLOGY, examples=0.2
    ),
    "plot_synthesis_plane": entry(
        ccb.plot_synthesis_plane,
        optional=("frontier", "others", "infeasible"),
        steps_bound=INT(1, 8),
        ratio_bound=REAL(0.1, 8.0),
        frontier=st.one_of(st.just(()), st.lists(st.tuples(INT(1, 8), REAL(0.1, 8.0)), max_size=3), JUNK),
        others=st.just(()),
        infeasible=st.just(()),
        examples=0.3,
    ),
    "SolverError": entry(ccb.SolverError, args=st.lists(st.text(max_size=5), max_size=2), record=True),
    "SynthesisTimeout": entry(ccb.SynthesisTimeout, args=st.lists(st.text(max_size=5), max_size=2), record=True),
    # chapter 6: results of MPI runs (mpi helper's package)
    "load_mpi_result": entry(
        ccb.load_mpi_result, source=MPI_SOURCE, record=True
    ),  # other fields pass through as stored
    "mpi_runs_table": entry(
        ccb.mpi_runs_table,
        optional=("m", "alpha", "beta"),
        result=MPI_RESULT,
        m=st.one_of(st.none(), INT(0, 2**30)),
        alpha=st.one_of(st.none(), SCALAR_ALPHA),
        beta=st.one_of(st.none(), SCALAR_BETA),
    ),
    "plot_mpi_runs": entry(
        ccb.plot_mpi_runs,
        optional=("pairs", "alpha", "beta", "ncols", "axes"),
        result=MPI_RESULT,
        pairs=st.one_of(st.none(), JUNK),
        alpha=st.one_of(st.none(), SCALAR_ALPHA),
        beta=st.one_of(st.none(), SCALAR_BETA),
        ncols=INT(1, 3),
        axes=st.one_of(st.none(), JUNK),  # #28: never checked, a str met fill_between
        examples=0.3,
    ),
    "plot_mpi_ratios": entry(
        ccb.plot_mpi_ratios,
        optional=("pairs", "alpha", "beta"),
        result=MPI_RESULT,
        pairs=st.one_of(st.none(), JUNK),
        alpha=st.one_of(st.none(), SCALAR_ALPHA),
        beta=st.one_of(st.none(), SCALAR_BETA),
        examples=0.3,
    ),
    "plot_pingpong": entry(ccb.plot_pingpong, result=MPI_RESULT, examples=0.3),
    # topology drawings (plotting.py): panel count, per-panel vertices and the figure's vertices + edges are capped
    "draw_topology": entry(
        ccb.draw_topology,
        optional=("root", "ax", "max_nodes", "side"),
        topology=DRAWN_TOPOLOGY,
        root=INT(0, 30),
        ax=st.one_of(st.none(), JUNK),
        max_nodes=INT(1, 5000, big=st.just(5000)),
        side=st.one_of(
            st.none(),
            st.sets(st.integers(0, 30), max_size=12),
            INTS(0, 30),
            fresh(itertools.count, lambda: [0] * 10**6),
        ),
        check=check_drawing,
        examples=0.3,
    ),
    "draw_topology_grid": entry(
        ccb.draw_topology_grid,
        optional=("cuts", "max_nodes"),
        topologies=GRID_TOPOLOGIES,
        cuts=st.one_of(st.booleans(), st.booleans(), st.booleans(), JUNK),
        max_nodes=INT(1, 5000, big=st.just(5000)),
        check=check_drawing,
        examples=0.3,
    ),
    # chapter 9: trade-off bounds, two-level hardware, Swing, PAT, hierarchical algorithms, routed tori
    "all_to_all_min_hops": entry(
        ccb.all_to_all_min_hops, optional=("ports",), n=INT(1, 64, big=HUGE_INT), rounds=INT(0, 64), ports=PORTS
    ),
    "all_to_all_tradeoff_bound": entry(
        ccb.all_to_all_tradeoff_bound,
        optional=("ports",),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        rounds=INT(0, 64),
        ports=PORTS,
        check=check_tradeoff_bound,
    ),
    "all_to_all_tradeoff_rounds": entry(
        ccb.all_to_all_tradeoff_rounds,
        optional=("ports",),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        volume=SCALAR_SIZE,
        ports=PORTS,
    ),
    "all_to_all_tradeoff_curve": entry(
        ccb.all_to_all_tradeoff_curve, optional=("ports",), n=INT(1, 64, big=HUGE_INT), m=SCALAR_SIZE, ports=PORTS
    ),
    "all_to_all_tradeoff_time": entry(
        ccb.all_to_all_tradeoff_time,
        optional=("ports",),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
    ),
    "all_gather_tradeoff_bound": entry(
        ccb.all_gather_tradeoff_bound,
        optional=("ports",),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        rounds=INT(0, 64),
        ports=PORTS,
    ),
    "bruck_index_cost": entry(
        ccb.bruck_index_cost,
        optional=("radix", "ports"),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        radix=INT(2, 64),
        ports=PORTS,
    ),
    "bruck_index_schedule": entry(
        ccb.bruck_index_schedule,
        optional=("radix", "ports"),
        n=INT(1, 24, big=st.sampled_from([1025, 10**6])),
        m=INT(0, 2048),
        radix=INT(2, 24),
        ports=PORTS,
        check=check_index_schedule,
    ),
    "circulant_index_schedule": entry(
        ccb.circulant_index_schedule,
        n=INT(2, 24, big=st.sampled_from([1025, 10**6])),
        m=INT(0, 2048),
        steps=st.one_of(
            st.lists(st.integers(1, 23), min_size=1, max_size=6).map(tuple),
            st.sampled_from([(1, 2, 4, 7), (1, 2, 3, 6), tuple(range(1, 20))]),
            JUNK,
        ),
        check=check_index_schedule,
    ),
    "two_level": entry(
        ccb.two_level,
        optional=("nic", "nvlink_links", "nic_links"),
        nodes=INT(1, 8, big=HUGE_INT),
        gpus_per_node=INT(1, 8, big=HUGE_INT),
        nic=choice(("gpu", "node")),
        nvlink_links=INT(1, 18),
        nic_links=INT(1, 4),
    ),
    "TwoLevelTopology": entry(
        ccb.TwoLevelTopology,
        optional=("nodes", "gpus_per_node", "nic"),
        family=st.just("two_level"),
        name=st.text(max_size=3),
        n=INT(1, 8),
        degree=INT(0, 4),
        diameter=INT(0, 4),
        bisection_links=INT(0, 4),
        nodes=INT(1, 8),
        gpus_per_node=INT(1, 8),
        nic=choice(("gpu", "node")),
        record=True,
    ),
    "TwoLevelHardware": entry(
        ccb.TwoLevelHardware,
        fabric_alpha=SCALAR_ALPHA,
        fabric_beta=SCALAR_BETA,
        nic_alpha=SCALAR_ALPHA,
        nic_beta=SCALAR_BETA,
        record=True,
    ),
    "TwoLevelBound": entry(
        ccb.TwoLevelBound,
        latency=SCALAR_ALPHA,
        endpoint=SCALAR_ALPHA,
        node=SCALAR_ALPHA,
        network_rounds=INT(0, 8),
        rounds=INT(0, 8),
        record=True,
    ),
    "two_level_hardware": entry(
        ccb.two_level_hardware,
        optional=("gpu", "network", "network_alpha"),
        gpu=PRESET_KEY,
        network=choice(ccb.NETWORK_PRESETS),
        network_alpha=SCALAR_ALPHA,
    ),
    "two_level_lower_bound": entry(
        ccb.two_level_lower_bound,
        primitive=PRIMITIVE,
        topology=TWO_LEVEL_TOPOLOGY,
        m=SCALAR_SIZE,
        hardware=TWO_LEVEL_HARDWARE,
        check=check_two_level_bound,
    ),
    "two_level_time": entry(
        ccb.two_level_time, result=TWO_LEVEL_RUN, topology=TWO_LEVEL_TOPOLOGY, hardware=TWO_LEVEL_HARDWARE
    ),
    "two_level_round_costs": entry(
        ccb.two_level_round_costs, result=TWO_LEVEL_RUN, topology=TWO_LEVEL_TOPOLOGY, hardware=TWO_LEVEL_HARDWARE
    ),
    "hierarchical_schedule": entry(
        ccb.hierarchical_schedule,
        optional=("chunks",),
        name=choice(("hierarchical_ring", "two_level_tree")),
        topology=TWO_LEVEL_TOPOLOGY,
        m=INT(0, 4096, big=st.sampled_from([2**62, 2**63])),
        chunks=INT(1, 8),
    ),
    "hierarchical_terms": entry(
        ccb.hierarchical_terms,
        optional=("chunks",),
        name=choice(("hierarchical_ring", "two_level_tree")),
        nodes=INT(1, 64, big=HUGE_INT),
        gpus_per_node=INT(1, 16, big=HUGE_INT),
        m=SCALAR_SIZE,
        chunks=INT(1, 8),
    ),
    "two_level_algorithm_time": entry(
        ccb.two_level_algorithm_time,
        optional=("chunks",),
        name=choice(("hierarchical_ring", "two_level_tree")),
        topology=TWO_LEVEL_TOPOLOGY,
        m=SCALAR_SIZE,
        hardware=TWO_LEVEL_HARDWARE,
        chunks=INT(1, 8),
        check=check_two_level_algorithm_time,
    ),
    "swing_rho": entry(ccb.swing_rho, s=INT(0, 62, big=HUGE_INT), negative_ok=True),
    "swing_peer": entry(ccb.swing_peer, r=INT(0, 64), s=INT(0, 12), p=INT(1, 64, big=HUGE_INT)),
    "swing_schedule": entry(
        ccb.swing_schedule,
        optional=("dims", "variant"),
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        m=INT(0, 4096),
        dims=st.one_of(st.none(), st.sampled_from([(4, 4), (2, 8), (3, 5), (16,), (4, 4, 1)]), JUNK),
        variant=choice(("bandwidth", "latency")),
        check=check_all_reduce_schedule,
    ),
    "halving_doubling_schedule": entry(
        ccb.halving_doubling_schedule,
        optional=("order",),
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        m=INT(0, 4096),
        order=choice(("near", "far")),
        check=check_all_reduce_schedule,
    ),
    "swing_terms": entry(
        ccb.swing_terms,
        optional=("variant",),
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        variant=choice(("bandwidth", "latency")),
    ),
    "pat_aggregation": entry(ccb.pat_aggregation, n=INT(1, 64, big=HUGE_INT)),
    "pat_operations": entry(
        ccb.pat_operations,
        optional=("aggregation",),
        primitive=PRIMITIVE,
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        aggregation=INT(1, 32),
    ),
    "pat_messages": entry(
        ccb.pat_messages,
        optional=("aggregation",),
        primitive=PRIMITIVE,
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        aggregation=INT(1, 32),
    ),
    "pat_terms": entry(
        ccb.pat_terms,
        optional=("aggregation",),
        primitive=PRIMITIVE,
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        m=SCALAR_SIZE,
        aggregation=INT(1, 32),
    ),
    "pat_schedule": entry(
        ccb.pat_schedule,
        optional=("aggregation",),
        primitive=PRIMITIVE,
        n=INT(1, 40, big=st.sampled_from([4097, 10**6])),
        m=INT(0, 4096),
        aggregation=INT(1, 32),
        check=check_pat_schedule,
    ),
    "routed_time": entry(
        ccb.routed_time, schedule=ROUTED_SCHEDULE, topology=ROUTED_TOPOLOGY, alpha=SCALAR_ALPHA, beta=SCALAR_BETA
    ),
    "in_network_bound": entry(
        ccb.in_network_bound,
        optional=("ports", "degree", "cut_links", "switch_throughput"),
        primitive=PRIMITIVE,
        n=INT(1, 64, big=HUGE_INT),
        m=SCALAR_SIZE,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
        ports=PORTS,
        degree=st.one_of(st.none(), INT(1, 8)),
        cut_links=INT(1, 64),
        switch_throughput=SCALAR_BETA,
        check=check_in_network_bound,
    ),
    "InNetworkBound": entry(
        ccb.InNetworkBound,
        latency=SCALAR_ALPHA,
        endpoint=SCALAR_ALPHA,
        cut=SCALAR_ALPHA,
        switch=SCALAR_ALPHA,
        classic_latency=SCALAR_ALPHA,
        classic_endpoint=SCALAR_ALPHA,
        record=True,
    ),
    "round_profile": entry(
        ccb.round_profile,
        optional=("chunks",),
        algorithm=choice(ccb.TWO_LEVEL_CANDIDATES),
        topology=TWO_LEVEL_TOPOLOGY,
        chunks=INT(1, 8),
    ),
    "RoundProfile": entry(
        ccb.RoundProfile,
        network=st.one_of(fresh(lambda: np.zeros(2, bool)), JUNK),
        fabric=st.one_of(fresh(lambda: np.zeros(2)), JUNK),
        nic=st.one_of(fresh(lambda: np.zeros(2)), JUNK),
        record=True,
    ),
    "two_level_times": entry(
        ccb.two_level_times,
        optional=("algorithms", "ports"),
        topology=TWO_LEVEL_TOPOLOGY,
        m=SIZE,
        hardware=TWO_LEVEL_HARDWARE,
        algorithms=st.one_of(st.just(["ring", "hierarchical_ring"]), JUNK),
        ports=INT(1, 2),
    ),
    "two_level_map": entry(
        ccb.two_level_map,
        optional=("nic", "algorithms", "ports"),
        nodes=INTS(1, 4, max_size=3),
        gpus_per_node=INT(1, 4),
        sizes=st.one_of(st.just([1024.0, 2.0**20]), JUNK),
        hardware=TWO_LEVEL_HARDWARE,
        nic=choice(("gpu", "node")),
        algorithms=st.one_of(st.just(["ring", "hierarchical_ring"]), JUNK),
        ports=INT(1, 2),
        examples=0.5,
    ),
    "TwoLevelMap": entry(
        ccb.TwoLevelMap,
        nodes=st.one_of(st.just((1,)), JUNK),
        sizes=fresh(lambda: np.ones(1)),
        winner=fresh(lambda: np.array([["ring"]])),
        best=fresh(lambda: np.ones((1, 1))),
        bound=fresh(lambda: np.ones((1, 1))),
        times=st.one_of(st.just({}), JUNK),
        record=True,
    ),
    "plot_tradeoff": entry(
        ccb.plot_tradeoff, optional=("ports",), n=INT(2, 40, big=HUGE_INT), ports=PORTS, examples=0.3
    ),
    "plot_two_level_map": entry(
        ccb.plot_two_level_map,
        optional=("annotate",),
        two_level_map=st.one_of(
            fresh(lambda: ccb.two_level_map([1, 2], 4, [1024.0, 2.0**20], ccb.two_level_hardware())), JUNK
        ),
        annotate=st.one_of(st.booleans(), JUNK),
        examples=0.3,
    ),
    "routed_lower_bound": entry(
        ccb.routed_lower_bound,
        primitive=PRIMITIVE,
        topology=ROUTED_TOPOLOGY,
        m=SCALAR_SIZE,
        alpha=SCALAR_ALPHA,
        beta=SCALAR_BETA,
    ),
    # NamedTuple records that check their fields when built (#42): what they accept holds no NaN,
    # inf or negative number (the rule's check of a result walks a tuple's fields).
    "FrontierPoint": entry(
        ccb.FrontierPoint,
        steps=INT(1, 4),
        rounds=INT(1, 8),
        chunks=INT(1, 8),
        schedule=st.one_of(STORED, SCHEDULE),
    ),
    "LogPBroadcast": entry(
        ccb.LogPBroadcast,
        tree=st.one_of(choice(("binomial", "knomial", "optimal", "given")), JUNK),
        children=st.one_of(st.just(((1,), ())), st.just(((1, 2), (), ())), JUNK),
        send_start=st.one_of(st.just((None, 1e-6)), st.just((None, 0.0, 2e-6)), JUNK),
        ready=st.one_of(st.just((0.0, 5e-6)), st.just((0.0, 4e-6, 6e-6)), JUNK),
        time=SCALAR_ALPHA,
    ),
    "TwoLevelCeiling": entry(
        ccb.TwoLevelCeiling,
        links=SCALAR_BETA,
        nic=st.one_of(SCALAR_BETA, st.just(0.0)),
        endpoint=SCALAR_BETA,
        node_cut=st.one_of(st.none(), SCALAR_BETA),
        ceiling=SCALAR_BETA,
        binding=st.one_of(choice(("endpoint", "node_cut")), JUNK),
    ),
    "RoutedLoads": entry(  # a dataclass: its check looks at what it holds
        ccb.RoutedLoads,
        link_bytes=st.one_of(fresh(lambda: np.array([16.0, 0.0]), lambda: np.zeros(0)), JUNK),
        link_messages=st.one_of(fresh(lambda: np.array([1, 0]), lambda: np.zeros(0, dtype=np.int64)), JUNK),
        busiest=st.one_of(st.just([(0, 1), None]), st.just([]), JUNK),
        check=check_routed_loads,
    ),
}

# Public callables that are not fuzzed here, and why.
NOT_FUZZED = {
    "Explorer": "abstract base class of the explorers (figures helper, issue #16 / explorer part of #15)",
    "AlgorithmExplorer": "explorer: owned by the figures helper (explorer part of #15, tests/test_explorers.py)",
    "BandwidthExplorer": "explorer: owned by the figures helper (explorer part of #15, tests/test_explorers.py)",
    "BisectionExplorer": "explorer: owned by the figures helper (explorer part of #15, tests/test_explorers.py)",
    "PropagationExplorer": "explorer: owned by the figures helper (explorer part of #15, tests/test_explorers.py)",
    "TopologyExplorer": "explorer: owned by the figures helper (explorer part of #15, tests/test_explorers.py)",
    "use_book_style": "takes no arguments (sets matplotlib rcParams)",
    "draw_knomial_tree": "plotting.py: owned by the figures helper (caps / validation of the drawings)",
    "draw_schedule": "plotting.py: owned by the figures helper",
    "plot_algorithm_times": "plotting.py: owned by the figures helper",
    "plot_best_algorithm_map": "plotting.py: owned by the figures helper",
    "plot_bisection_ratio": "plotting.py: owned by the figures helper",
    "plot_diameters": "plotting.py: owned by the figures helper",
    "plot_info_steps": "plotting.py: owned by the figures helper",
    "plot_regime_map": "plotting.py: owned by the figures helper",
    "plot_volume_coefficients": "plotting.py: owned by the figures helper",
    "NcclExplorer": "explorer: owned by the nccl / figures helpers (explorer part of #15)",
    "NcclVsBound": "result record of nccl_vs_bound (fuzzed); its fields are checked on construction (tests/test_facade_scan.py)",
    "NvlsGraph": "result record of nvls_graph (fuzzed); its fields are checked on construction (tests/test_facade_scan.py)",
    "NcclTopology": "validated in __post_init__; fuzzed through the overrides of nccl_predict / nccl_vs_bound",
    "SynthesisExplorer": "explorer: owned by the synth / figures helpers (explorer part of #15)",
    "MPIResultExplorer": "explorer: owned by the mpi / figures helpers (explorer part of #15)",
    "TwoLevelExplorer": "explorer of chapter 9: tests/test_explorers.py and tests/test_live_two_level.py drive it",
}


def _public_callables():
    return sorted(
        name for name in ccb.__all__ if callable(getattr(ccb, name)) and not inspect.ismodule(getattr(ccb, name))
    )


def test_every_public_callable_is_fuzzed():
    missing = [name for name in _public_callables() if name not in FUZZ and name not in NOT_FUZZED]
    assert not missing, (
        f"public callables without a fuzz entry: {missing}. Add an entry to FUZZ in tests/test_fuzz.py "
        "(see 'How to add an entry' at the top of the file) or list the name in NOT_FUZZED with a reason."
    )
    stale = [name for name in list(FUZZ) + list(NOT_FUZZED) if "." not in name and name not in ccb.__all__]
    assert not stale, f"fuzz entries for names no longer public: {stale}"


# --------------------------------------------------------------------------- the rule


def _parameter_names(function) -> set[str]:
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return set()
    return {name for name, p in params.items() if p.kind is not p.VAR_KEYWORD} | {"dims", "options"}


def _names_a_parameter(message: str, names: set[str]) -> bool:
    if "cap" in message:  # a resource cap: the message gives the estimate and the cap
        return True
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message) for name in names)


class _CallTimeout(BaseException):
    """Raised in the worker by SIGALRM when one call runs past SECONDS (a BaseException, so that
    no ``except Exception`` in the code under test can swallow it)."""


def _on_alarm(signum, frame):
    raise _CallTimeout()


def _judge(name: str, args: list, kwargs: dict) -> str | None:
    """Run one call (in the worker) and return None if it obeys the rule, else what went wrong."""
    spec = FUZZ[name]
    parameters = _parameter_names(spec.function) | set(kwargs) | set(spec.params) | set(spec.names)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        try:
            result = spec.function(*args, **kwargs)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _CallTimeout:
        return f"hang: still running after {SECONDS:g} s"
    except MemoryError:
        return f"memory blow-up: MemoryError under the limit of {MEMORY / GiB:g} GiB more address space"
    except (ValueError, TypeError) as err:
        message = str(err)
        if not message:
            return f"{type(err).__name__} without a message"
        if isinstance(err, ccb.ScheduleError):
            return None  # names the round and the transfer of the schedule
        if not _names_a_parameter(message, parameters):
            return f"{type(err).__name__} does not name a parameter {sorted(parameters)}: {message[:500]}"
        return None
    except Exception as err:  # noqa: BLE001 - any other type breaks the rule
        return f"raised {type(err).__module__}.{type(err).__qualname__}: {str(err)[:500]}"
    try:
        signal.setitimer(signal.ITIMER_REAL, SECONDS)
        problem = None if spec.record else _sane(result, spec.negative_ok)
        if problem is None and spec.check is not None:
            problem = spec.check(result, kwargs)
    except _CallTimeout:
        return "the check of the result did not finish"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return problem


def _describe(args, kwargs) -> str:
    def short(v):
        text = repr(v)
        return text if len(text) < 120 else text[:117] + "..."

    return ", ".join([short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()])


def _worker(name: str, examples: int, write) -> None:
    """The forked worker of one entry: hypothesis runs every example here, under the limits."""
    spec = FUZZ[name]
    limit = _limits._vm_size() + MEMORY
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    signal.signal(signal.SIGALRM, _on_alarm)
    # The CI gate draws the same examples every run (a new one found by chance would fail an
    # unrelated submission); tools/fuzz_long.py sets CCB_FUZZ_RANDOM=1 to explore fresh ones.
    explore = os.environ.get("CCB_FUZZ_RANDOM") == "1"
    random.seed() if explore else random.seed(name)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=not explore,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(spec.strategy())
    def run(call):
        args, kwargs = call
        text = f"{name}({_describe(list(args), dict(kwargs))})"
        write("CALL " + text)
        note(text)
        problem = _judge(name, list(args), dict(kwargs))
        assert problem is None, f"{text}: {problem}"

    try:
        run()
        write("DONE ok")
    except BaseException as err:  # noqa: BLE001 - reported to the parent
        write("FAIL " + json.dumps(f"{type(err).__name__}: {err}"[:4000]))


_WARM = []


def _warm_up() -> None:
    """Run hypothesis once in the test process before the first fork: its one-time work (scanning
    the local sources for constants, building character tables, validating the strategies) is
    then inherited by every worker instead of being redone in each."""
    if _WARM:
        return
    _WARM.append(True)

    @settings(
        max_examples=len(FUZZ),
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(*[spec.strategy() for spec in FUZZ.values()]))
    def draw(call):
        pass

    draw()


@pytest.mark.parametrize("name", sorted(FUZZ))
def test_public_function_obeys_the_rule(name):
    _warm_up()
    examples = max(1, round(EXAMPLES * FUZZ[name].examples))
    budget = 60 + examples * 5 + 2 * SECONDS  # the whole entry (a shrinking failure may take longer)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_end)
            out = os.fdopen(write_end, "w", buffering=1)
            _worker(name, examples, lambda line: out.write(line.replace("\n", " ") + "\n"))
            out.flush()
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    lines, buffer, deadline, killed = [], b"", time.monotonic() + budget, False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            lines += [line.decode(errors="replace") for line in complete]
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    last_call = next((line[5:] for line in reversed(lines) if line.startswith("CALL ")), "(no call started)")
    if killed:
        pytest.fail(
            f"{name}: the worker ran past {budget:g} s (a call that ignores the alarm, e.g. one C-level loop); "
            f"last call: {last_call}"
        )
    final = lines[-1] if lines else ""
    if final.startswith("FAIL "):
        pytest.fail(json.loads(final[5:]), pytrace=False)
    if final != "DONE ok":
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
        pytest.fail(f"{name}: the worker died ({how}; a crash or the memory limit); last call: {last_call}")


def test_no_bound_above_a_verified_schedule_on_topologies():
    """Issue #28 (outside fuzzer, round 4): rooted Scatter / Gather with every root and tiny or
    uneven M on small networks (direct, switched, user graphs): the simulated schedule on that
    topology never beats node_lower_bound, bisection_lower_bound or the combined bound with the
    topology's degree and the root's eccentricity. Before: a 1-byte scatter on ring(2) whose root
    keeps the only byte ran in 0 bytes against node/bisection bounds of 0.5 B (continuous M/N),
    and a single switch (or a fat tree) with one link per node let the root send two messages
    in one round, one round under the degree-1 bound. About 0.6 CPU-s."""
    import networkx as nx

    nets = [ccb.ring(2), ccb.ring(3), ccb.single_switch(3), ccb.single_switch(5, links=2), ccb.fat_tree(5)]
    nets.append(ccb.topology_from_graph(nx.star_graph(3), name="star"))
    for topo in nets:
        n = topo.n
        for primitive, m, root in itertools.product(("scatter", "gather", "broadcast"), (1, n - 1, n + 1), range(n)):
            for ports in (1, 2):
                try:
                    run = ccb.simulate("binomial_tree", primitive, n, m, ports=ports, topology=topo, root=root)
                except ccb.ScheduleError:
                    continue  # the tree needs links this network lacks
                assert run.correct
                ecc = ccb.eccentricity(topo, root)
                for alpha, beta in ((1.0, 1.0), (1e-12, 1.0), (1.0, 1e12)):
                    took = run.time(alpha, beta) * (1 + 1e-12)
                    opts = dict(ports=ports, diameter=topo.step_diameter, degree=topo.degree, eccentricity=ecc)
                    assert took >= ccb.combined_lower_bound(primitive, n, m, alpha, beta, **opts), (
                        topo.name,
                        primitive,
                        m,
                        root,
                        ports,
                    )
                    assert took >= ccb.node_lower_bound(primitive, topo, m, beta, ports=ports), (
                        topo.name,
                        primitive,
                        m,
                        root,
                    )
                    assert took >= ccb.bisection_lower_bound(primitive, topo, m, beta), (topo.name, primitive, m, root)
    with pytest.raises(ccb.ScheduleError, match="1 link"):
        ccb.simulate("binomial_tree", "broadcast", 3, 1, ports=2, topology=ccb.single_switch(3))


def test_outside_fuzzer_round_four_cases():
    """Issue #28, the outside fuzzer's fourth pass (new instances of the issue's classes): each of
    these escaped as a foreign exception, a message without the parameter, or a wrong answer."""
    # a Fraction beyond float64 in a record's "number" field escaped as OverflowError
    with pytest.raises(ValueError, match="intercept_s"):
        ccb.AlphaBeta(1e-6, 1e9, 1, Fraction(-(10**400), 7), 1e-9, 0.0, 3)
    # 0-d / 2-d arrays where an iterable is expected: "iteration over a 0-d array", "unhashable"
    for side in (np.array(3.0), np.array([[1]])):
        with pytest.raises(TypeError, match="side"):
            ccb.draw_topology(ccb.ring(6), side=side)
    with pytest.raises(TypeError, match="gpu_counts"):
        ccb.nccl_nvls_table(gpu_counts=np.array(4.0))
    # an iterator as a label reached matplotlib's len()
    log = ccb.read_nccl_tests(ccb.published_log_text(sorted(ccb.PUBLISHED_LOGS)[0]))
    with pytest.raises(TypeError, match="label"):
        ccb.plot_busbw_against_bound(log, 1e-6, 1e9, label=(c for c in "ab"))
    # nvswitch: 1 and np.True_ passed `in ("auto", True, False)`, then acted as False (`is True`);
    # a str equal to everything passed as "auto"
    text = "\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV2\tNV2\nGPU1\tNV2\t X \tNV2\nGPU2\tNV2\tNV2\t X \n"
    assert ccb.parse_nvidia_smi_topo(text, nvswitch=np.True_).switched
    for bad in (1, 1.0, _EvilStr("all_reduce")):
        with pytest.raises(ValueError, match="nvswitch"):
            ccb.parse_nvidia_smi_topo(text, nvswitch=bad)
    with pytest.raises(ValueError, match="primitive"):
        ccb.pareto_frontier(ccb.ring(4), "all_reduce", 3, time_limit=5)
    # a Fraction skipped ratio_bound's range check and overflowed a float later
    with pytest.raises(ValueError, match="ratio_bound"):
        ccb.plot_synthesis_plane(2, Fraction(10**400, 3))
    # an int whose __index__ is beyond int64 escaped numpy as OverflowError
    with pytest.raises(ValueError, match="matrix"):
        ccb.topology_from_links(_HugeIndexInt(4))
    # plot_mpi_runs never checked axes: a str or a number reached matplotlib's fill_between
    for axes in ("ab", 3.0, [None]):
        with pytest.raises((TypeError, ValueError), match="axes"):
            ccb.plot_mpi_runs(_mpi_example(), axes=axes)


class _HugeIndexInt(int):
    """Holds a small value but converts (int(), __index__) to 10**30: checks must use one value."""

    def __index__(self):
        return 10**30

    __int__ = __index__


def test_readers_never_block_on_what_they_open(tmp_path, monkeypatch):
    """Issue #28 (outside fuzzer): /proc/kmsg is a "regular" file (size 0) whose read blocks, and a
    path checked by stat can be swapped for a FIFO before it is opened: the nccl-tests CLI and
    load_mpi_result hung on both. They now open without blocking and check what they opened."""
    import threading

    from ccb_helpers.mpi import results
    from ccb_helpers.nccl_tests import cli

    fifo = tmp_path / "swapped"
    os.mkfifo(fifo)
    real_stat = os.stat

    def regular(path, *args, **kwargs):  # the check sees a regular file; the open meets a FIFO
        info = real_stat(path, *args, **kwargs)
        return os.stat_result((stat.S_IFREG | 0o644, *tuple(info)[1:])) if str(path) == str(fifo) else info

    calls = [(cli._read_log, (str(fifo),), cli._Refused)]
    calls.append((results.load_mpi_result, (str(fifo),), ValueError))
    if os.access("/proc/kmsg", os.R_OK):
        calls += [
            (cli._read_log, ("/proc/kmsg",), cli._Refused),
            (results.load_mpi_result, ("/proc/kmsg",), ValueError),
        ]
    # /proc/kmsg with messages queued (a fresh boot) does not block: it yields text and never ends,
    # as every /proc file that reports 0 bytes; /proc/self/status stands in for it deterministically.
    calls += [
        (cli._read_log, ("/proc/self/status",), cli._Refused),
        (results.load_mpi_result, ("/proc/self/status",), ValueError),
    ]
    monkeypatch.setattr(os, "stat", regular)
    monkeypatch.setattr(Path, "is_file", lambda self: True)
    monkeypatch.setattr(Path, "stat", lambda self, **kw: regular(self))
    for function, args, error in calls:
        outcome = []

        def call(function=function, args=args, error=error, outcome=outcome):
            try:
                function(*args)
            except error as caught:
                outcome.append(caught)

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(10)
        if worker.is_alive():  # release a reader blocked on the FIFO before failing
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        assert not worker.is_alive() and outcome, f"{function.__name__}{args} blocked or was not refused"
