"""Isolated grading: a notebook's grade comes from a process the student's code never runs in.

Design (issue #29). Grading a notebook involves two processes:

* the **student process** (:mod:`ccb_helpers.grading.child`, a fresh one for each notebook,
  forked by a fork server that did the start-up they all share — Python, numpy — and never runs
  student code; started afresh where there is no fork server):
  runs the notebook's *answer cells* — the cells nbgrader knows as solution cells, sources taken
  from the notebook file — and the locked setup cell, and nothing else: a cell a student added
  is never run. It is sandboxed (Landlock: it can read the standard library, numpy and the
  system libraries only — not the course folder, the gradebook, other students' files or the
  real ``ccb_helpers``; no network; no capabilities; an audit hook refuses process creation and
  ``ctypes``) and its ``ccb_helpers`` is a stub whose functions record the call and raise.
  There is no IPython in it, so no input transformer, AST transformer or ``pre_run_cell`` hook
  exists to install;
* the **grader** (this module, in the process that runs nbgrader): runs each test cell — its
  source from the gradebook, hidden tests included — in a fresh namespace with the real
  ``ccb_helpers``. The student's functions in that namespace are proxies
  (:class:`StudentFunction`): calling one sends the arguments to the student process as plain
  data and reads the returned value back as plain data (builtin values, genuine numpy scalars and
  arrays, ``Fraction`` rebuilt from two ints). No object of the student's ever reaches the
  grader, so nothing the student's code does — replacing ``Part.score``, ``math.isclose``,
  ``builtins.abs``, returning an always-equal object — changes a comparison or a score.

The cell's score is the value of its last expression, computed here; nbgrader reads it from the
``execute_result`` that :class:`~ccb_helpers.grading` adapters in ``assignments/ccb_nbgrader.py``
write. A runaway call is cut at its group's time budget (the student process is killed and
restarted: the answer cells are run again); a student process that dies (``os._exit``, a
crash, out of memory) fails the call that was running and is restarted for the next one; an
answer cell that kills the process or runs away at top level is dropped, the way an interrupted
kernel cell is, and the parts are graded as far as they go.

Answer cells run twice: once for display (their output, captured before any hidden case was
sent, goes into the autograded notebook) and once interleaved with the tests in a fresh
namespace whose output is discarded — nothing the student's code learns from a hidden case can
reach the feedback.

The concepts live in their own modules: :mod:`~ccb_helpers.grading.wire` (plain data across the
pipe), :mod:`~ccb_helpers.grading.process` (starting, asking and killing a student process, the
fork server), and the student process's own program, ``child.py`` with ``child_sandbox.py`` (its
confinement) and ``child_stub.py`` (its stub library); this module runs a notebook's cells.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import io
import os
import time
import types
from dataclasses import dataclass, field

from . import values
from .parts import DEADLINE, NOTEBOOK_DEADLINE, StudentRaised, Timeout
from .process import (  # noqa: F401 - re-exported: the names this module had before the split (#44)
    CHILD,
    CPU_SECONDS,
    MAX_MESSAGE,
    MEMORY,
    SandboxUnavailable,
    StudentProcess,
    _Died,
    sandbox_abi,
    shutdown,
)
from .values import Wrong
from .wire import Opaque, decode, encode  # noqa: F401 - re-exported (#44)

__all__ = ["Cell", "Outcome", "SandboxUnavailable", "Session", "StudentFunction", "grade_cells", "sandbox_abi"]

#: Seconds an answer cell's top-level code may run (``CCB_GRADING_CELL_SECONDS`` overrides).
CELL_BUDGET = float(os.environ.get("CCB_GRADING_CELL_SECONDS", "30"))
#: Seconds a call may run when no group budget is set.
CALL_BUDGET = 60.0
#: Student process restarts per notebook (runaways and crashes); beyond it, calls fail at once.
MAX_RESTARTS = 30
#: Seconds the grading of one notebook may take in all (``CCB_GRADING_NOTEBOOK_SECONDS``
#: overrides). Within the cell and group budgets a runaway student held autograde for 339 s
#: (#40); past this cap later cells are not run and later groups score 0 (the notebook is flagged).
NOTEBOOK_BUDGET = float(os.environ.get("CCB_GRADING_NOTEBOOK_SECONDS", "120"))


# ------------------------------------------------------------------------------------------
# A notebook's grading session
# ------------------------------------------------------------------------------------------


class StudentFunction:
    """A name of the student's namespace, called in the student process (a proxy).

    Calling it sends the arguments as plain data, waits at most until the running group's
    deadline, and returns the decoded value; an exception of the student's code becomes
    :class:`~ccb_helpers.grading.parts.StudentRaised` (its type name only is ever shown).
    """

    _ccb_student_proxy = True

    def __init__(self, session: Session, name: str):
        self._ccb_session = session
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._ccb_session.call(self.__name__, args, kwargs)

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"


class Session:
    """The student process of one notebook: answer cells run in order, calls answered.

    Parameters
    ----------
    require_sandbox : bool
        Refuse to grade (:class:`SandboxUnavailable`) when the process cannot be sandboxed.
    """

    def __init__(self, require_sandbox: bool = True):
        self.require_sandbox = require_sandbox
        self.process: StudentProcess | None = None
        self.executed: list[tuple[str, str]] = []  # (source, filename) of the grading namespace
        self.names: list[str] = []
        self.library_log: list[str] = []
        self.restarts = 0
        self.landlock = 0
        self.seccomp = self.netns = False
        self.notes: list[str] = []
        self.deadline = float("inf")  # the notebook's (time.monotonic()), set by grade_cells

    def _until(self, budget: float) -> float:
        """The deadline of a step of ``budget`` seconds, within the notebook's."""
        return min(time.monotonic() + budget, self.deadline)

    # -- process --------------------------------------------------------------------------
    def _start(self, replay: list[tuple[str, str]], namespace: str) -> StudentProcess:
        if self.restarts > MAX_RESTARTS:
            raise _Died("too many restarts")
        process = StudentProcess(self.require_sandbox)
        self.landlock, self.seccomp, self.netns = process.landlock, process.seccomp, process.netns
        for source, filename in replay:
            try:
                process.request(
                    {"op": "exec", "namespace": namespace, "source": source, "filename": filename},
                    self._until(CELL_BUDGET),
                )
            except (Timeout, _Died):
                process.kill()
                raise _Died("a cell failed when run again") from None
        return process

    def _drop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process = None
            self.restarts += 1

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process = None

    # -- display pass ---------------------------------------------------------------------
    def display(self, cells: list[tuple[str, str]]) -> list[tuple[str, tuple | None, bool]]:
        """Run ``cells`` (source, filename) once for their output; ``(stdout, error, ran)`` each.

        ``ran`` is False for a cell that ended the process or ran out of time: it is dropped
        from the grading run, like an interrupted kernel cell.
        """
        results, done = [], []
        for source, filename in cells:
            try:
                if self.process is None:
                    self.process = self._start(done, "display")
                reply = self.process.request(
                    {"op": "exec", "namespace": "display", "source": source, "filename": filename, "capture": True},
                    self._until(CELL_BUDGET),
                )
            except Timeout:
                self._drop()
                results.append(("", ("CellTimeoutError", self._timeout_text()), False))
                continue
            except _Died:
                self._drop()
                results.append(
                    (
                        "",
                        ("ProcessExit", "评分进程在运行这个单元格时退出了（os._exit、崩溃或内存不足）：评分时不计入"),
                        False,
                    )
                )
                continue
            error = reply.get("error")
            results.append((str(reply.get("stdout", ""))[:20000], tuple(error) if error else None, True))
            done.append((source, filename))
        if self.process is not None:
            with contextlib.suppress(Timeout, _Died):
                self.process.request({"op": "reset", "namespace": "display"}, self._until(CELL_BUDGET))
        return results

    # -- grading pass ---------------------------------------------------------------------
    def run_cell(self, source: str, filename: str) -> None:
        """Run an answer cell in the grading namespace (its output is discarded)."""
        try:
            if self.process is None:
                self.process = self._start(self.executed, "grade")
            reply = self.process.request(
                {"op": "exec", "namespace": "grade", "source": source, "filename": filename},
                self._until(CELL_BUDGET),
            )
        except (Timeout, _Died):
            self._drop()
            return
        self._library(reply)
        self.executed.append((source, filename))
        self.names = [n for n in reply.get("names", []) if type(n) is str and n.isidentifier()]

    def _timeout_text(self) -> str:
        if time.monotonic() >= self.deadline:
            return f"整本 notebook 的评分时间上限（{NOTEBOOK_BUDGET:g} s）已用完：这个单元格没有运行"
        return f"这个单元格运行超过 {CELL_BUDGET:g} s：评分时不计入"

    def _library(self, reply: dict) -> None:
        calls = reply.get("library", [])
        if type(calls) is list:
            self.library_log.extend(str(c)[:80] for c in calls[:100])

    def library_mark(self) -> int:
        return len(self.library_log)

    def library_calls_since(self, mark: int) -> list[str]:
        return self.library_log[mark:]

    def call(self, name: str, args: tuple, kwargs: dict):
        deadline = DEADLINE.get()
        deadline = min(time.monotonic() + CALL_BUDGET if deadline is None else deadline, self.deadline)
        message = {
            "op": "call",
            "namespace": "grade",
            "name": name,
            "args": encode(list(args)),
            "kwargs": encode(dict(kwargs)),
        }
        try:
            if self.process is None:
                self.process = self._start(self.executed, "grade")
            reply = self.process.request(message, deadline)
        except _Died:
            self._drop()
            raise Wrong(f"{name}(…)：评分进程在运行你的函数时退出了（os._exit、崩溃或内存不足）") from None
        except BaseException:
            self._drop()  # a timeout (or an interrupt) with the call still running
            raise
        self._library(reply)
        if "raised" in reply:
            raised = reply["raised"]
            ename, message_text = (
                (str(raised[0])[:80], str(raised[1]))
                if type(raised) is list and len(raised) == 2
                else ("Exception", "")
            )
            raise StudentRaised(ename, message_text)
        try:
            return decode(reply.get("value"))
        except Wrong:
            raise
        except (ValueError, TypeError, KeyError, IndexError, RecursionError, OverflowError):
            raise Wrong(f"{name}(…) 的返回值无法读取") from None

    def proxies(self, names, exclude) -> dict:
        """Proxies for ``names`` of the student's namespace (not builtins, not ``exclude``)."""
        return {
            name: StudentFunction(self, name) for name in names if name not in exclude and not hasattr(builtins, name)
        }


# ------------------------------------------------------------------------------------------
# Grading a notebook
# ------------------------------------------------------------------------------------------


@dataclass
class Cell:
    """A code cell of the notebook: ``kind`` is "setup", "answer", "test" or "ignored"."""

    kind: str
    source: str
    grade_id: str | None = None


@dataclass
class Outcome:
    """What a cell showed: captured output, an error ``(name, message)``, a test cell's score."""

    stdout: str = ""
    error: tuple | None = None
    score: float | None = None
    ran: bool = True


@dataclass
class Report:
    """Notebook-level facts: the sandbox used (Landlock's ABI, whether the seccomp filter and the
    network namespace were in place), restarts, cells not run, problems of the grader."""

    landlock: int = 0
    seccomp: bool = False
    netns: bool = False
    restarts: int = 0
    ignored_cells: int = 0
    problems: list[str] = field(default_factory=list)


# The three functions below are pure functions of a cell's text, and a class's notebooks share
# most of their texts (every test cell, the setup cell, the answers of everyone who got it
# right): each text is transformed, parsed and compiled once per grading process, not once per
# student (IPython's tokenizer was a tenth of the grader's CPU time in a class's autograde).
#: Characters of a cell above which IPython's transformations (``%magic``, ``!shell``) are not
#: applied: they run in the grader, outside every time budget, at ~0.1 ms a line — a 2 MiB lookup
#: table took 16 s, a 25 MiB one would hold autograde for minutes past the notebook's cap. Such a
#: cell is run as plain Python (the student process compiles it within the cell's budget).
MAX_TRANSFORMED = 256 * 1024


def _python(source: str) -> str:
    """A cell's source as Python (IPython's transformations: ``%magic``, ``!shell``).

    >>> _python("%time x = 1")[:19]
    'get_ipython().run_l'
    >>> big = "x = 1  # %time; " * 20000   # over MAX_TRANSFORMED: as is
    >>> _python(big) is big
    True
    """
    if len(source) > MAX_TRANSFORMED:
        return source
    # A huge answer (a lookup table) is not kept: the cache stays under 1024 x 64 KiB.
    return _python_cached(source) if len(source) <= 65536 else _transformed(source)


@functools.lru_cache(maxsize=1024)
def _python_cached(source: str) -> str:
    return _transformed(source)


def _transformed(source: str) -> str:
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - nbgrader brings IPython
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - a cell IPython cannot transform is left to fail to compile
        return source


def free_names(source: str) -> list[str]:
    """Names a cell reads but never binds: in a test cell, the student's answers.

    >>> free_names("part = grading.Part('x', 1, answer=f)\\ndef g(n):\\n    return n + k\\n")
    ['f', 'grading', 'k']
    """
    return list(_free_names(source))


@functools.lru_cache(maxsize=1024)
def _free_names(source: str) -> tuple[str, ...]:
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return ()
    loaded, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return tuple(sorted(loaded - bound))


@functools.lru_cache(maxsize=256)
def _compiled_test(source: str) -> tuple:
    """A test cell's code: its body, and its last expression apart (the cell's value), or None.

    Code objects are immutable: every student's fresh namespace runs the same ones."""
    tree = ast.parse(_python(source))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = compile(tree, "<test cell>", "exec")
    return body, compile(ast.Expression(last.value), "<test cell>", "eval") if last else None


def run_test(source: str, namespace: dict) -> tuple[str, float | None, tuple | None]:
    """Run a test cell's source like a notebook cell: ``(output, value of the last expression, error)``."""
    output = io.StringIO()
    try:
        body, last = _compiled_test(source)
        with contextlib.redirect_stdout(output):
            exec(body, namespace)
            value = eval(last, namespace) if last is not None else None
    except values.GradingError as error:
        return output.getvalue(), None, (type(error).__name__, str(error))
    except Timeout:
        return output.getvalue(), None, ("Timeout", "测试超过时间预算")
    except Exception as error:  # noqa: BLE001 - a mistake in the test code: report its type only
        return output.getvalue(), None, ("GradingError", f"评分代码出错（{type(error).__name__}），请老师检查这一题")
    if type(value) in (int, float) and not isinstance(value, bool):
        return output.getvalue(), float(value), None
    return output.getvalue(), None, ("NoScore", "测试单元格没有给出分数")


def grade_cells(cells: list[Cell], *, library, require_sandbox: bool = True) -> tuple[list[Outcome], Report]:
    """Grade a notebook's code cells (in notebook order) in isolation; see the module docstring.

    Setup and answer cells run in the student process, test cells here, ignored cells nowhere.
    ``library`` is the real ``ccb_helpers`` module, which test cells see as ``ccb``: the caller
    passes it because this module sits below the package facade and must not import it (the
    facade re-exports from the modules below it, so importing it from here closes a circle).
    """
    from .. import grading

    if not isinstance(library, types.ModuleType):
        raise TypeError(f"library must be the ccb_helpers module, got {type(library).__name__}")

    report = Report(ignored_cells=sum(cell.kind == "ignored" for cell in cells))
    outcomes = [Outcome(ran=cell.kind != "ignored") for cell in cells]
    session = Session(require_sandbox=require_sandbox)
    session.deadline = time.monotonic() + NOTEBOOK_BUDGET
    runnable = [(i, cell) for i, cell in enumerate(cells) if cell.kind in ("setup", "answer")]
    try:
        sources = {i: (_python(cell.source), f"<cell {i}>") for i, cell in runnable}
        shown = session.display([sources[i] for i, _ in runnable])
        for (i, _), (stdout, error, ran) in zip(runnable, shown):
            outcomes[i].stdout, outcomes[i].error, outcomes[i].ran = stdout, error, ran
        token = values.SHOW_VALUES.set(False)
        notebook = NOTEBOOK_DEADLINE.set(session.deadline)
        try:
            for i, cell in enumerate(cells):
                if cell.kind in ("setup", "answer") and outcomes[i].ran:
                    session.run_cell(*sources[i])
                elif cell.kind == "test":
                    namespace = {
                        "__name__": "__ccb_test__",
                        "__builtins__": builtins,
                        "ccb": library,
                        "grading": grading,
                    }
                    namespace.update(session.proxies(free_names(cell.source), exclude=namespace))
                    stdout, score, error = run_test(cell.source, namespace)
                    outcomes[i].stdout, outcomes[i].score, outcomes[i].error = stdout, score, error
                    if error and error[0] == "GradingError" and error[1].startswith("评分代码出错"):
                        report.problems.append(f"{cell.grade_id}: {error[1]}")
        finally:
            NOTEBOOK_DEADLINE.reset(notebook)
            values.SHOW_VALUES.reset(token)
    finally:
        session.close()
    if time.monotonic() >= session.deadline:
        report.problems.append(
            f"the notebook's grading reached its time limit ({NOTEBOOK_BUDGET:g} s, CCB_GRADING_NOTEBOOK_SECONDS):"
            " later cells were not run and later groups scored 0"
        )
    report.landlock, report.restarts = session.landlock, session.restarts
    report.seccomp, report.netns = session.seccomp, session.netns
    return outcomes, report
