"""Argument checks shared by the public functions.

Every public function validates its inputs once, at the boundary, with these helpers, so a
reader who passes a bad value gets a :class:`ValueError` or :class:`TypeError` naming the
parameter and the allowed range; then it calls an unchecked internal ``_name(...)``, and
internals call internals. Scalars stay Python scalars; array-likes become numpy arrays (so
formulas broadcast).

Physical ranges (so that no formula overflows a float64 or an int64, and every result is finite):

==================  ==========================================
quantity            allowed
==================  ==========================================
node counts         integers, arrays up to ``2**63 - 1`` (int64)
message sizes       ``0 <= M <= 2**96`` bytes
latencies, times    ``0 <= alpha <= 1e9`` s
bandwidths          ``1e-9 <= beta <= 1e30`` bytes/s
==================  ==========================================

Memory: every function that can take much estimates its peak before any work and refuses above
its budget (tests/test_memory_caps.py measures peak <= estimate <= budget at each cap): array
arguments (:data:`MAX_ELEMENTS`, :data:`ARRAY_MAX_BYTES`), ``simulate``, ``best_algorithm`` and
``best_algorithm_bands`` (2 GiB each), the nccl-tests reader (``nccl_tests.reader.READ_MAX_BYTES``),
graphs and their measurements (``topology.MAX_GRAPH_BYTES``; user graphs and the ``nvidia-smi`` /
``rocm-smi`` parsers too), routing matrices (``bandwidth.ROUTING_MAX_BYTES``;
a matrix argument: :data:`ARRAY_MAX_BYTES`), ``synthesize`` (``synthesis.MAX_SYNTHESIS_BYTES``)
and the two-step LP (``synthesis_lp.MAX_LP_BYTES``). The calls bounded by a count cap estimate
their peak from the count and check it against :data:`COUNT_CAP_MAX_BYTES` (2 GiB) with
:func:`check_memory`: ``cut_links``' max-flow (``bisection.MAX_FLOW_ELEMENTS``), the broadcast and
gossip searches (``broadcast.SEARCH_MAX_STEPS``, ``gossip.SEARCH_MAX_STATES``),
``synthesis_bounds_table`` (``synthesis_figures.MAX_TABLE_CUT_SETS``: enumerated in blocks),
``block_bounds`` (``schedule.MAX_PARTS``), ``generate`` (``generators.MAX_TRANSFERS`` /
``MAX_ROUNDS``), ``knomial_tree`` and ``nccl_double_binary_tree`` (``generators.MAX_TREE_NODES``),
``diameter_binding_sizes`` (``diameter.MAX_RING_SIZES``), the live tables
(``live.compress.MAX_STATES``), topology drawings (``plotting.MAX_DRAWN_ELEMENTS``),
``fit_alpha_beta`` (``mpi.fit.MAX_FIT_POINTS``), ``load_mpi_result`` and the grader's replies
(``mpi.results.MAX_RESULT_BYTES``, ``grading.isolation.MAX_MESSAGE``: :data:`JSON_BYTES_PER_CHAR`),
``busbw_ceiling`` (``nccl_tests.ceilings.MAX_SIZES``) and the grading helpers' lists
(``grading.values.MAX_ITEMS``). Each is measured in tests/test_memory_caps.py.

Caps left without an estimate of their own, on purpose:

* **ranges, not amounts of work** — :data:`MAX_BYTES`, :data:`MAX_SECONDS`, :data:`MAX_BANDWIDTH`,
  ``algorithms.MAX_NODES`` / ``MAX_CHUNKS``, ``topology.MAX_ENDPOINTS`` / ``MAX_FAT_TREE_HOSTS`` /
  ``MAX_DIMS``, ``schedule.MAX_BUFFER_BYTES``, ``user_topology.MAX_LINKS_PER_PAIR``, ``smi``'s
  ``MAX_NVLINKS_PER_GPU``, ``nccl_model.MAX_RANKS`` / ``MAX_BYTES``, ``nccl_tests``' ``MAX_RANKS``,
  ``MAX_ROW_BYTES``, ``MAX_TOKEN_CHARS``, ``MAX_PORT_BANDWIDTH``, the MPI CLI's ``MAX_SIZE``,
  ``MAX_REPEATS``, ``MAX_TRAFFIC_BYTES``, ``MAX_LOCAL_RANKS``, ``MAX_TIMEOUT_S``,
  ``synthesis.MAX_TIME_LIMIT``: they keep numbers finite and exact;
* **bounded by another cap that has its estimate** — ``nccl_tests.records.MAX_ROWS`` and
  ``nccl_tests.cli.MAX_FILE_BYTES`` (the reader's text estimate), ``simulator.MAX_RUN_TRANSFERS``
  / ``MAX_RUN_ROUNDS`` (``run_schedule``'s own estimate and ``max_bytes``), the endpoint and
  work caps of ``topology`` / ``user_topology`` (``MAX_GRAPH_BYTES``), ``broadcast.SEARCH_MAX_ENDPOINTS``,
  ``gossip.SEARCH_MAX_NODES`` / ``SEARCH_MAX_STEPS`` (the state budget), ``synthesis``'
  endpoint caps (its variable and LP caps), ``nccl_search.MAX_GPUS``, the MPI CLI's
  ``MAX_CASES`` / ``MAX_COLLECTIVE_CALLS`` (``--memory-limit`` per rank);
* **small by construction** (tens of MB at most, at the cap) — ``tables.MAX_ROWS`` (64 rows),
  ``diameter.MAX_INSTANCES`` (a generator of unbuilt topologies), ``plotting.MAX_GRID_PANELS`` and
  ``phone.MAX_PANELS``, ``live.controls.MAX_OPTIONS`` / ``MAX_POSITIONS``,
  ``live.figure.MAX_GRAPH_NODES``, ``mpi.agreement.MAX_TEXT_CHARS`` / ``MAX_ROUNDS``,
  ``grading.isolation.MAX_RESTARTS``;
* **in the student's process** — ``grading.child``'s ``MAX_MESSAGE``, ``MAX_ITEMS``,
  ``MAX_DEPTH``, ``MAX_OUTPUT``: that process runs under the sandbox's own memory limit
  (``grading.isolation.MEMORY``), and what it sends back is checked by the grader.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Iterable

import numpy as np

__all__: list[str] = []

INT64_MAX = 2**63 - 1
MAX_BYTES = 2.0**96
MAX_SECONDS = 1e9
MIN_BANDWIDTH = 1e-9
MAX_BANDWIDTH = 1e30
#: Array arguments of one call may broadcast to at most this many elements (each float64
#: temporary of the formulas is then at most 256 MiB); no single array argument may hold more.
MAX_ELEMENTS = 2**25
#: Memory budget of one call of a vectorised function, bytes. Each function estimates its peak as
#: ``bytes_per_element x elements`` of the broadcast shape (its own constant, passed to
#: :func:`check_shapes`: the peak tracemalloc measures per element, the conversions of arguments
#: given in other dtypes included, rounded up; tests/test_memory_caps.py checks peak <= estimate)
#: and refuses a call above the budget before any work. A function above 64 bytes per element so
#: accepts fewer than :data:`MAX_ELEMENTS` elements (``algorithm_cost``: 160, about ``2**23.7``).
ARRAY_MAX_BYTES = 2 * 2**30
#: Bytes per element a function declares unless it needs more: eight float64 arrays.
ARRAY_BYTES_PER_ELEMENT = 64
#: Memory budget of the calls bounded by a count cap (a search's steps or states, blocks, drawn
#: elements, states of a live table, fit points, bytes of JSON): each estimates its peak from its
#: count before the work and refuses above this (:func:`check_memory`, read at call time so a
#: test can lower it).
COUNT_CAP_MAX_BYTES = 2 * 2**30


def is_array(value) -> bool:
    """Whether ``value`` should be treated as an array (anything but a scalar)."""
    return isinstance(value, (np.ndarray, list, tuple))


def _as_array(name: str, value) -> np.ndarray:
    """``np.asarray(value)`` with numpy's own errors (ragged lists, huge ints) turned into ours.

    An array of more than :data:`MAX_ELEMENTS` elements is refused here, before the checks and
    the dtype conversion copy it (check_shapes comes after them)."""
    try:
        array = np.asarray(value)
    except OverflowError:
        raise ValueError(f"{name} holds an integer outside the int64 range (|x| <= {INT64_MAX})") from None
    except (ValueError, TypeError) as err:
        raise TypeError(f"{name} must be a number or a rectangular array of numbers ({err})") from None
    if array.size > MAX_ELEMENTS:
        raise ValueError(f"{name} has {array.size:,} elements; an array argument may hold at most {MAX_ELEMENTS:,}")
    if array.dtype == object:
        # Lists of Python ints beyond 64 bits become object arrays.
        if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in array.ravel()):
            raise ValueError(f"{name} holds an integer outside the int64 range (|x| <= {INT64_MAX})")
        raise TypeError(f"{name} must be a number or an array of numbers, got an array of Python objects")
    return array


def _scalar_only(name: str, value) -> None:
    if is_array(value):
        raise TypeError(f"{name} must be a scalar, not an array or a list (got {type(value).__name__})")


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None, *, scalar: bool = False):
    """Return ``value`` as a Python int (or an int64 array) after checking its range.

    Booleans and floats are rejected with :class:`TypeError` even when integral: a node
    count of ``8.0`` usually means a formula was evaluated in floating point by mistake.
    Arrays must fit int64 (uint64 values above ``2**63 - 1`` are refused, not wrapped);
    ``scalar=True`` refuses arrays altogether.
    """
    if is_array(value):
        if scalar:
            _scalar_only(name, value)
        array = _as_array(name, value)
        if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{name} must be an integer or an array of integers, got dtype {array.dtype}")
        if array.size == 0:
            raise ValueError(f"{name} must not be empty")
        if array.dtype == np.uint64 and np.any(array > np.uint64(INT64_MAX)):
            raise ValueError(f"{name} must be <= {INT64_MAX} (int64), got max {array.max()}")
        array = array.astype(np.int64, copy=False)
        if minimum is not None and np.any(array < minimum):
            raise ValueError(f"{name} must be >= {minimum}, got min {array.min()}")
        if maximum is not None and np.any(array > maximum):
            raise ValueError(f"{name} must be <= {maximum}, got max {array.max()}")
        return array
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {_short(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {_short(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {_short(value)}")
    return value


def check_real(
    name: str, value, *, minimum: float = 0.0, strict: bool = False, maximum: float | None = None, scalar: bool = False
):
    """Return a finite real ``value`` >= ``minimum`` (> if ``strict``), <= ``maximum``, as float or float array."""
    relation = ">" if strict else ">="
    if is_array(value):
        if scalar:
            _scalar_only(name, value)
        array = _as_array(name, value)
        if array.dtype == bool or not (
            np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
        ):
            raise TypeError(f"{name} must be a real number or an array of real numbers, got dtype {array.dtype}")
        if array.size == 0:
            raise ValueError(f"{name} must not be empty")
        array = array.astype(float, copy=False)
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite (no inf or nan)")
        bad = array <= minimum if strict else array < minimum
        if np.any(bad):
            raise ValueError(f"{name} must be {relation} {minimum:g}, got min {array.min():g}")
        if maximum is not None and np.any(array > maximum):
            raise ValueError(f"{name} must be <= {maximum:g}, got max {array.max():g}")
        return array
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {_short(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be finite (a float64), got a number of {abs(int(value)).bit_length()} bits"
        ) from None
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if (value <= minimum) if strict else (value < minimum):
        raise ValueError(f"{name} must be {relation} {minimum:g}, got {value:g}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum:g}, got {value:g}")
    return value


def check_size(name: str, value, *, scalar: bool = False):
    """A message size in bytes: finite, ``0 <= value <= 2**96``."""
    return check_real(name, value, minimum=0.0, maximum=MAX_BYTES, scalar=scalar)


def check_seconds(name: str, value, *, strict: bool = False, scalar: bool = False):
    """A latency or a duration in seconds: ``0 <= value <= 1e9`` (``> 0`` if ``strict``)."""
    return check_real(name, value, minimum=0.0, strict=strict, maximum=MAX_SECONDS, scalar=scalar)


def check_bandwidth(name: str, value, *, scalar: bool = False):
    """A bandwidth in bytes/s: ``1e-9 <= value <= 1e30``."""
    return check_real(name, value, minimum=MIN_BANDWIDTH, maximum=MAX_BANDWIDTH, scalar=scalar)


def check_bool(name: str, value) -> bool:
    """``True`` or ``False`` (numpy bools too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {_short(value)}")
    return bool(value)


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """``value`` must be one of ``choices`` (strings)."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(map(repr, choices))}; got {_short(value)}")
    # A plain str built from the characters: a subclass whose __eq__ says True to everything
    # (or np.str_) would otherwise match every choice and travel on (issue #28's look-alikes).
    value = str.__str__(value)
    if value not in choices:
        raise ValueError(f"unknown {name} {_short(value)}; allowed: {', '.join(map(repr, choices))}")
    return value


def check_sequence(name: str, value, *, max_length: int, min_length: int = 1) -> list:
    """A finite sequence (list, tuple, range, 1-d array) of at most ``max_length`` items, as a list."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, range, np.ndarray)):
        raise TypeError(f"{name} must be a list, tuple or range, got {type(value).__name__}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise TypeError(f"{name} must be one-dimensional, got shape {value.shape}")
    if not min_length <= len(value) <= max_length:
        raise ValueError(f"{name} must have {min_length} to {max_length} items (cap), got {len(value)}")
    return list(value.tolist() if isinstance(value, np.ndarray) else value)


def check_array(name: str, value, *, ndim: int, kind: str = "real", minimum: float | None = 0.0) -> np.ndarray:
    """An array a record holds (a result, not an argument to broadcast): a numpy array of exactly
    ``ndim`` dimensions whose dtype is of ``kind`` — ``"real"`` (integers or floats, finite, each
    ``>= minimum`` unless ``minimum`` is None), ``"int"`` (integers fitting int64, ``>= minimum``),
    ``"bool"`` or ``"str"`` (strings, also in an object array) — returned unchanged. Empty arrays
    are allowed (a schedule of no rounds). The message names ``name`` and what it got.

    >>> check_array("RoundProfile.fabric", np.zeros((2, 2)), ndim=1)
    Traceback (most recent call last):
    ...
    ValueError: RoundProfile.fabric must be a 1-d array, got shape (2, 2)
    """
    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"{name} must be a {ndim}-d numpy array of {kind} values, got {type(value).__name__} {_short(value)}"
        )
    if value.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {value.shape}")
    dtype = value.dtype.kind
    if kind == "bool":
        if dtype != "b":
            raise TypeError(f"{name} must be an array of bools, got dtype {value.dtype}")
        return value
    if kind == "str":
        if not (dtype == "U" or (dtype == "O" and all(isinstance(v, str) for v in value.flat))):
            raise TypeError(f"{name} must be an array of strings, got dtype {value.dtype}")
        return value
    allowed = "iu" if kind == "int" else "iuf"
    if dtype not in allowed:
        what = "integers" if kind == "int" else "real numbers"
        raise TypeError(f"{name} must be an array of {what}, got dtype {value.dtype}")
    if value.size:
        if dtype == "f" and not np.isfinite(value).all():
            raise ValueError(f"{name} must be finite (no inf or nan)")
        if dtype == "u" and value.max() > INT64_MAX:
            raise ValueError(f"{name} must be <= {INT64_MAX} (int64), got max {value.max()}")
        if minimum is not None and value.min() < minimum:
            raise ValueError(f"{name} must be >= {minimum:g}, got min {value.min():g}")
    return value


def check_shapes(*, bytes_per_element: int = ARRAY_BYTES_PER_ELEMENT, fixed_bytes: int = 0, **named) -> tuple:
    """The broadcast shape of the array arguments ``named``; a clear error if they do not broadcast,
    if the result would exceed :data:`MAX_ELEMENTS` elements, or if the call's memory estimate,
    ``bytes_per_element`` times the elements plus ``fixed_bytes``, would exceed
    :data:`ARRAY_MAX_BYTES` (both checked before any work; the message names the array arguments)."""
    shapes = {name: np.shape(value) for name, value in named.items() if isinstance(value, np.ndarray)}
    if not shapes:
        return ()
    try:
        shape = np.broadcast_shapes(*shapes.values())
    except ValueError:
        described = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"array shapes do not broadcast together: {described}") from None
    size = int(np.prod(shape, dtype=object))
    estimate = size * bytes_per_element + fixed_bytes
    if size > MAX_ELEMENTS:
        described = " x ".join(f"{name} {shape}" for name, shape in shapes.items())
        check_cap(f"broadcasting {described}: elements", size, MAX_ELEMENTS)
    # Always through check_cap (a test hook records every estimate; cheap next to array work).
    check_cap(
        f"broadcasting {' x '.join(shapes)} to {size:,} elements: memory at {bytes_per_element} bytes each",
        estimate,
        ARRAY_MAX_BYTES,
        "bytes",
        hint="split the grid",
    )
    return shape


def check_cap(what: str, estimate: float, cap: float, unit: str = "", hint: str = "") -> None:
    """Refuse work whose ``estimate`` exceeds ``cap``: the message says both (and how to raise it)."""
    if estimate > cap:
        unit = f" {unit}" if unit else ""
        raise ValueError(
            f"{what}: estimate {_num(estimate)}{unit} exceeds the cap {_num(cap)}{unit}" + (f"; {hint}" if hint else "")
        )


#: Peak bytes per character of parsing JSON with :func:`json.loads` (the bytes, the decoded text
#: and the objects): tracemalloc measured up to 44.3 for lists nested 50 deep (``[[[...]]]``),
#: 33 for ``[{}]``, 25 for ``[0]`` and ``{}``, 17 for numbers.
JSON_BYTES_PER_CHAR = 56


def json_memory(chars: int) -> int:
    """Estimated peak bytes of reading and parsing ``chars`` characters of JSON."""
    return JSON_BYTES_PER_CHAR * chars + 2**20


def check_memory(what: str, estimate: int, hint: str = "") -> None:
    """Refuse a call whose estimated peak exceeds :data:`COUNT_CAP_MAX_BYTES`; ``what`` starts with
    the parameter whose size it is (``"topology: ..."``)."""
    check_cap(f"{what}: memory", estimate, COUNT_CAP_MAX_BYTES, "bytes", hint)


def _num(x) -> str:
    if isinstance(x, int) and abs(x) >= 10**15:
        return f"2**{x.bit_length() - 1}+" if x.bit_length() > 60 else f"{x:.3g}"
    x = float(x)
    return f"{int(x):,}" if x.is_integer() and abs(x) < 1e15 else f"{x:.3g}"


def _short(value) -> str:
    """``repr`` cut to 60 characters (a huge list or int must not flood the message)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def check_fields(record, spec: dict) -> None:
    """Validate the fields of a record (a dataclass) in its ``__post_init__``.

    ``spec`` maps a field name to a kind: ``"str"``, ``"int"`` (``>= 0``), ``"real"`` (finite,
    ``>= 0``), ``"finite"`` (any finite real: a fitted slope), ``"real+inf"`` (``>= 0`` or
    ``+inf``: a rate or a time a model may leave unbounded), ``"bool"`` or ``"tuple"``; a
    trailing ``"?"`` also allows ``None``. NaN is never a value. Look-alikes are refused: a bool is
    not an int, a str subclass is turned into a plain ``str`` (frozen dataclasses too).
    """
    for name, kind in spec.items():
        value = getattr(record, name)
        optional = kind.endswith("?")
        kind = kind.rstrip("?")
        if value is None:
            if optional:
                continue
            raise TypeError(f"{name} must not be None")
        if kind == "str":
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {type(value).__name__}")
            value = str.__str__(value)  # a plain str, whatever the subclass overrides
        elif kind == "int":
            value = check_int(name, value, minimum=0, scalar=True)
        elif kind == "real":
            value = check_real(name, value, minimum=0.0, scalar=True)
        elif kind == "finite":
            value = check_real(name, value, minimum=-math.inf, scalar=True)
        elif kind == "real+inf":
            if isinstance(value, (float, np.floating)) and value == math.inf:
                value = math.inf
            else:
                value = check_real(name, value, minimum=0.0, scalar=True)
        elif kind == "bool":
            value = check_bool(name, value)
        elif kind == "tuple":
            if not isinstance(value, tuple):
                raise TypeError(f"{name} must be a tuple, got {type(value).__name__}")
        else:  # pragma: no cover - a typo in a spec
            raise AssertionError(kind)
        object.__setattr__(record, name, value)


def check_record(**spec):
    """Class decorator: a ``NamedTuple`` whose fields are checked whenever one is built.

    ``spec`` maps every field to a kind: ``"int"`` (a Python int, ``0 <= x <= 2**63 - 1``), ``"real"`` (finite,
    ``>= 0``), ``"positive"`` (finite, ``> 0``), ``"str"``, ``"bool"``, ``"dict"`` or ``"tuple"``; a ``"[]"``
    suffix also accepts a numeric array of such values (a record of a broadcast formula, e.g.
    :class:`~ccb_helpers.algorithms.Cost`), a ``"?"`` suffix also ``None``. NaN, ±inf, arrays
    where a scalar belongs, look-alikes (a bool for an int, a str subclass) are refused with a
    :class:`ValueError` / :class:`TypeError` naming ``Record.field``. Numbers are stored as Python
    ``int`` / ``float`` (arrays as int64 / float64). The check runs in the constructor, so
    ``_make``, ``_replace``, copies and pickles are checked too.

    >>> from typing import NamedTuple
    >>> @check_record(size="int", time_s="positive")
    ... class Sample(NamedTuple):
    ...     size: int
    ...     time_s: float
    >>> Sample(np.int64(8), 2)
    Sample(size=8, time_s=2.0)
    >>> Sample(8, float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: Sample.time_s must be finite, got nan
    """

    def decorate(cls):
        if set(spec) != set(cls._fields):  # pragma: no cover - a typo in a spec
            raise AssertionError(f"{cls.__name__}: spec {sorted(spec)} != fields {sorted(cls._fields)}")
        build, make = cls.__new__, cls._make

        @functools.wraps(build)
        def __new__(klass, *args, **kwargs):
            record = build(klass, *args, **kwargs)
            values = [
                _record_value(f"{klass.__name__}.{name}", spec[name], value)
                for name, value in zip(klass._fields, record)
            ]
            return tuple.__new__(klass, values)

        def _make(klass, iterable):
            return klass(*make(iterable))

        cls.__new__ = __new__
        cls._make = classmethod(_make)
        cls._field_kinds = dict(spec)  # what each field holds (tests/test_facade_scan.py reads it)
        return cls

    return decorate


def _record_value(name: str, kind: str, value):
    if kind.endswith("?"):
        if value is None:
            return None
        kind = kind[:-1]
    arrays = kind.endswith("[]")
    kind = kind.removesuffix("[]")
    if isinstance(value, np.ndarray) and value.ndim == 0 and arrays:
        value = value[()]  # a 0-d array is a number
    scalar = not arrays
    if kind == "int":
        return check_int(name, value, minimum=0, maximum=INT64_MAX, scalar=scalar)
    if kind in ("real", "positive"):
        return check_real(name, value, minimum=0.0, strict=kind == "positive", scalar=scalar)
    if kind == "bool":
        return check_bool(name, value)
    expected = {"str": str, "dict": dict, "tuple": tuple}[kind]
    if not isinstance(value, expected):
        raise TypeError(f"{name} must be a {expected.__name__}, got {type(value).__name__} {_short(value)}")
    return str.__str__(value) if expected is str else value
