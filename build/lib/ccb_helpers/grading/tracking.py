"""Which cell defined what, in the student's own kernel: a warning before grading would give 0.

Grading runs the answer cells only (:mod:`ccb_helpers.grading.isolation`): a helper, a constant
or an import in a cell the student added — or in a copy of an answer cell — does not exist
there, and the part scores 0, while the student's own kernel, which ran that cell, shows every
visible check passing (#40). The released notebook's setup cell calls :func:`answer_cells` with
the answer cells of the set (``ccb_nbgrader.MarkAnswerCells`` writes the call); from then on an
IPython ``post_run_cell`` hook notes, for every name a cell binds, whether that cell is an answer
cell — by its cell id, which JupyterLab, Notebook 7 and VS Code send with each execution, or,
from a front end that sends none, by whether the cell defines one of the answer functions. When a
test cell builds its :class:`~ccb_helpers.grading.parts.Part`, :func:`outside_answer_cells` lists
the names the answer reads (through the helpers it calls) that came from any other cell, and the
part prints a warning. Under grading (no IPython) nothing is tracked and nothing printed.
"""

from __future__ import annotations

import dis
import re
import types

__all__ = ["answer_cells", "outside_answer_cells"]

_TRACKER = None
# IPython's own names in the user namespace (outputs, inputs, history).
_IPYTHON_NAMES = re.compile(r"^(_+|_i+|_i\d+|_\d+|_oh|_ih|_dh|In|Out|get_ipython|exit|quit)$")


class _Tracker:
    """Notes, after each cell, the names it bound and whether it is an answer cell."""

    def __init__(self, shell, answers: dict):
        self.shell = shell
        self.answers = answers  # cell id -> answer function name
        self.defined: dict[str, bool] = {}  # name -> bound last by an answer cell?
        # What is bound already (the setup cell, which registers this, included) is nobody's.
        self.before: dict[str, int] = {name: id(value) for name, value in shell.user_ns.items()}
        self.cell: tuple = (None, "")

    def pre_run_cell(self, info) -> None:
        self.before = {name: id(value) for name, value in self.shell.user_ns.items()}
        self.cell = (getattr(info, "cell_id", None), getattr(info, "raw_cell", "") or "")

    def post_run_cell(self, result) -> None:
        cell_id, source = self.cell
        if cell_id is not None:
            answer = cell_id in self.answers
        else:  # a front end that sends no cell id: a cell that defines an answer function
            answer = any(re.search(rf"^\s*def {re.escape(name)}\s*\(", source, re.M) for name in self.answers.values())
        namespace = self.shell.user_ns
        hidden = getattr(self.shell, "user_ns_hidden", {})
        for name, value in namespace.items():
            if name in hidden or _IPYTHON_NAMES.match(name):
                continue
            if self.before.get(name) != id(value):
                self.defined[name] = answer
        for name in [n for n in self.defined if n not in namespace]:
            del self.defined[name]


def answer_cells(answers: dict) -> None:
    """Track, in an IPython kernel, which cell bound each name (the released setup cell calls this).

    Parameters
    ----------
    answers : dict
        ``{cell id: answer function name}`` of the notebook's answer cells.

    Outside IPython (a script, the grader's student process) this does nothing.

    >>> answer_cells({"ps1-replicas": "replica_rounds"})  # outside IPython: nothing to track
    """
    global _TRACKER
    if not isinstance(answers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in answers.items()):
        raise TypeError("answers must map cell ids (str) to answer function names (str)")
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the book's readers have IPython
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "events"):
        return
    if _TRACKER is not None:  # the setup cell run again: one tracker
        for event in ("pre_run_cell", "post_run_cell"):
            try:
                shell.events.unregister(event, getattr(_TRACKER, event))
            except ValueError:
                pass
    _TRACKER = _Tracker(shell, dict(answers))
    shell.events.register("pre_run_cell", _TRACKER.pre_run_cell)
    shell.events.register("post_run_cell", _TRACKER.post_run_cell)


def _names_read(func) -> list[str]:
    """Global names ``func`` reads, and the ones the notebook's functions and classes it calls read."""
    namespace = getattr(func, "__globals__", {})
    seen, order, queue = set(), [], [func]
    while queue:
        current = queue.pop()
        codes = [current.__code__] if isinstance(current, types.FunctionType) else []
        if isinstance(current, type):
            codes = [v.__code__ for v in vars(current).values() if isinstance(v, types.FunctionType)]
        while codes:
            code = codes.pop()
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
            for instruction in dis.get_instructions(code):
                if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instruction.argval, str):
                    name = instruction.argval
                    if name in seen or name not in namespace:
                        continue
                    seen.add(name)
                    order.append(name)
                    value = namespace[name]
                    if (
                        isinstance(value, (types.FunctionType, type))
                        and getattr(value, "__module__", None) == "__main__"
                    ):
                        queue.append(value)
    return order


def outside_answer_cells(func) -> list[str]:
    """Names ``func`` (an answer) depends on that a cell other than an answer cell bound last.

    The answer's own name comes first if that cell defined the answer itself (a copy of the
    answer cell, say). Empty when nothing is tracked (no :func:`answer_cells`, no IPython).

    >>> outside_answer_cells(len)
    []
    """
    tracker = _TRACKER
    if tracker is None or not isinstance(func, types.FunctionType):
        return []
    namespace = func.__globals__
    outside = [name for name, value in namespace.items() if value is func and tracker.defined.get(name) is False][:1]
    for name in _names_read(func):
        if tracker.defined.get(name) is False and name not in outside:
            outside.append(name)
    return outside
