"""The eight collective primitives and their buffer-size conventions.

``M`` is in bytes and always means the same thing for a given primitive (see the book's
introduction): the buffer every node holds for Broadcast / Reduce / AllReduce; the root's send
buffer for Scatter (N pieces of M/N); the root's receive buffer for Gather; each node's input
for ReduceScatter (output M/N); each node's output for AllGather (input M/N); each node's send
buffer for AllToAll (M/N to every node, itself included).
"""

from __future__ import annotations

from ._validation import check_choice

__all__ = ["PRIMITIVES", "ROOTED_PRIMITIVES", "PRIMITIVE_LABELS", "check_primitive"]

PRIMITIVES = (
    "broadcast",
    "scatter",
    "gather",
    "reduce",
    "reduce_scatter",
    "all_gather",
    "all_reduce",
    "all_to_all",
)

#: Primitives with a distinguished root node.
ROOTED_PRIMITIVES = ("broadcast", "scatter", "gather", "reduce")

#: Display names, as the source chapter writes them.
PRIMITIVE_LABELS = {
    "broadcast": "Broadcast",
    "scatter": "Scatter",
    "gather": "Gather",
    "reduce": "Reduce",
    "reduce_scatter": "ReduceScatter",
    "all_gather": "AllGather",
    "all_reduce": "AllReduce",
    "all_to_all": "AllToAll",
}


def check_primitive(primitive) -> str:
    """Validate a primitive name (one of :data:`PRIMITIVES`).

    >>> check_primitive("all_reduce")
    'all_reduce'
    """
    return check_choice("primitive", primitive, PRIMITIVES)
