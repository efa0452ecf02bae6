"""Argument checks and helpers shared by the chapter tables (private to :mod:`ccb_helpers.tables`)."""

from __future__ import annotations

from .._validation import check_cap, check_choice, check_int, check_sequence
from ..hardware import PRESETS
from ..topology import check_topology

#: Most rows (items of each sequence argument) of a table.
MAX_ROWS = 64


def _ints(name: str, values, minimum: int, maximum: int | None = None) -> list[int]:
    """A sequence argument of integers (``ns``, ``ks``): at most ``MAX_ROWS`` items, each in range."""
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_int(f"{name}[{i}]", v, minimum=minimum, maximum=maximum, scalar=True) for i, v in enumerate(items)]


def _choices(name: str, values, allowed) -> list[str]:
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_choice(f"{name}[{i}]", v, allowed) for i, v in enumerate(items)]


def _topologies(name: str, values) -> list:
    items = check_sequence(name, values, max_length=MAX_ROWS)
    return [check_topology(t, f"{name}[{i}]") for i, t in enumerate(items)]


def _preset(key):
    return PRESETS[check_choice("preset_key", key, PRESETS)]


def _simulations(cases) -> list:
    """Validate simulator runs ``(algorithm, primitive, n, m, ports, options)``; their rounds and
    transfers together must stay within one run's caps (so a table costs at most one big run)."""
    from ..generators import MAX_ROUNDS, MAX_TRANSFERS, _check_generate
    from ..schedule import buffers_for
    from ..simulator import DEFAULT_MAX_BYTES, _check_budget, _memory_estimate

    checked, rounds, transfers = [], 0, 0
    for algorithm, primitive, n, m, ports, options in cases:
        try:
            args = _check_generate(
                algorithm, primitive, n, m, ports, options.get("root", 0), options.get("chunks"), True
            )
            n, m, ports, root, chunks, r, t = args
            _check_budget(
                f"simulating {algorithm} {primitive} on n={n}, m={m}",
                _memory_estimate(n, m, len(buffers_for(primitive)) + 1, 0, r) + 256 * t,
                DEFAULT_MAX_BYTES,
            )
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"the table's run of {algorithm} {primitive} with n={n}, m={m}, ports={ports}: {err}"
            ) from None
        rounds, transfers = rounds + r, transfers + t
        checked.append((algorithm, primitive, n, m, ports, root, chunks))
    check_cap("the table's simulations together: rounds", rounds, MAX_ROUNDS)
    check_cap("the table's simulations together: transfers", transfers, MAX_TRANSFERS)
    return checked


def _simulate(algorithm, primitive, n, m, ports, root, chunks, topology=None):
    from ..generators import _generate
    from ..simulator import _run_schedule

    return _run_schedule(_generate(algorithm, primitive, n, m, ports, root, chunks), ports, topology, 0)


def _percent(saved: int, total: int) -> str:
    # Integer rounding of 100 * saved / total, half up.
    return f"{(200 * saved + total) // (2 * total)}%" if total else "—"


def _ratio(value: float) -> str:
    """A ratio as a plain number with three significant digits: 8/7 -> ``"1.14"``, 2 -> ``"2"``.

    >>> _ratio(8 / 7), _ratio(2.0), _ratio(8 / 3)
    ('1.14', '2', '2.67')
    """
    return f"{value:.3g}"
