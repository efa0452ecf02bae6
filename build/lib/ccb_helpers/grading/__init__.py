"""Grading helpers for the book's nbgrader problem sets (``assignments/``).

The package has one module per concern; this ``__init__`` only re-exports them, so the problem
sets' ``from ccb_helpers import grading`` / ``grading.as_int(...)`` keep working:

* :mod:`~ccb_helpers.grading.values` — value checks: coercion of a returned value to plain
  Python data (:func:`as_int`, :func:`as_float`, :func:`as_str`, :func:`as_fraction`, …) and the
  visible tests' :func:`check_equal` / :func:`check_close`;
* :mod:`~ccb_helpers.grading.inspection` — code inspection in the student's own kernel
  (:func:`require_own_code`, :func:`tampering`): early feedback, not what decides a grade;
* :mod:`~ccb_helpers.grading.parts` — :class:`Part`: groups of cases, partial credit, time
  budgets, a report that never carries a hidden case back;
* :mod:`~ccb_helpers.grading.schedules` — schedule checks (:func:`broadcast_problems`,
  :func:`gossip_problems`);
* :mod:`~ccb_helpers.grading.tracking` — in the student's kernel, which cell defined each name
  (:func:`answer_cells`): a test cell warns when an answer relies on a cell grading will not run;
* :mod:`~ccb_helpers.grading.markup` — a student's Markdown made inert HTML for the teacher's
  browser (:func:`~ccb_helpers.grading.markup.inert_markdown`, used by ``autograde``);
* :mod:`~ccb_helpers.grading.isolation` — grading a notebook so that nothing the student's
  code does can influence it: the answer cells run in a sandboxed process with a stub library,
  the tests run in the grader and reach the student's functions through plain data
  (:func:`~ccb_helpers.grading.isolation.grade_cells`, used by ``assignments/ccb_nbgrader.py``),
  with :mod:`~ccb_helpers.grading.process` (starting and killing the student process) and
  :mod:`~ccb_helpers.grading.wire` (plain data across the pipe); ``child.py`` is that process's
  program, with ``child_sandbox.py`` (its confinement) and ``child_stub.py`` (its stub library).

>>> as_int(__import__("numpy").int64(12), "answer")
12
"""

from __future__ import annotations

from .inspection import library_names, require_own_code, tampering
from .parts import DEFAULT_BUDGET, Part, StudentRaised, Timeout, call_student, seed_for
from .schedules import broadcast_problems, gossip_problems
from .tracking import answer_cells
from .values import (
    MAX_ITEMS,
    GradingError,
    Wrong,
    as_bool,
    as_float,
    as_fraction,
    as_int,
    as_list,
    as_node,
    as_pair,
    as_rounds,
    as_set,
    as_str,
    as_tuple,
    check_close,
    check_equal,
    close,
    describe,
    items_of,
    type_name,
)

__all__ = [
    "GradingError",
    "Wrong",
    "answer_cells",
    "Part",
    "as_int",
    "as_float",
    "as_str",
    "as_bool",
    "as_fraction",
    "as_list",
    "as_set",
    "as_pair",
    "as_tuple",
    "as_rounds",
    "as_node",
    "check_equal",
    "check_close",
    "close",
    "require_own_code",
    "library_names",
    "tampering",
    "seed_for",
    "call_student",
    "broadcast_problems",
    "gossip_problems",
    "describe",
    "items_of",
    "type_name",
    "DEFAULT_BUDGET",
    "MAX_ITEMS",
    "StudentRaised",
    "Timeout",
]
