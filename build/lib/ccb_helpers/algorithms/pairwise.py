"""Pairwise exchange all-to-all: N - 1 rounds, one block to one partner each (cost model)."""

from __future__ import annotations

from .core import _THAKUR, _frac_bytes, _Model


def _pairwise_all_to_all(n, m, ports, opts):
    return n - 1, _frac_bytes(n, m)


PAIRWISE = {
    "all_to_all": _Model(_pairwise_all_to_all, reference=_THAKUR),
}
