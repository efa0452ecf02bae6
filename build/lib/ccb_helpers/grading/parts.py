"""Scoring one part: groups of cases, each worth whole points, with a report a student may read.

A test cell builds a :class:`Part`, runs the visible checks as one group (:meth:`Part.visible`
or :meth:`Part.check` with ``visible=True``), then — in the hidden tests — one group per kind of
case (:meth:`Part.compare`, :meth:`Part.check`), and makes :meth:`Part.score` its last
expression: that number is the cell's partial credit.

* A failed group costs its own points only: a failed visible check does not zero the part.
* The visible cases are public, so the visible group's points count only when at least one
  hidden group passes (a lookup table of the visible cases earns nothing).
* A hidden group's message says what kind of answer was expected and, at most, the *kind* of
  mistake — never a hidden input, a hidden expected value, the value returned, or an exception's
  message (a student's function can copy its input into any of them).
* Each group runs under a time budget. The cases are drawn from :attr:`Part.rng`, seeded by the
  part's id and ``CCB_GRADING_SALT`` (:func:`seed_for`).

The same cell runs in two places. In the student's own kernel (the released notebook: visible
checks only) the answer is a function of the kernel, inspected statically
(:func:`~ccb_helpers.grading.inspection.require_own_code`). Under isolated grading
(:mod:`ccb_helpers.grading.isolation`) it is a proxy for the function in the sandboxed student
process, and the part is rejected if that process called any library function while the part's
cases ran.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import io
import math
import os
import random
import signal
import threading
import time
import warnings
import zlib
from dataclasses import dataclass
from typing import Callable, Sequence

from . import tracking, values
from .inspection import require_own_code as _static_check
from .values import GradingError, Wrong, as_int, type_name

__all__ = ["DEFAULT_BUDGET", "Part", "call_student", "seed_for", "StudentRaised", "Timeout"]

#: Seconds a group of cases may run before it fails (a runaway loop must not stall autograding).
DEFAULT_BUDGET = 10.0

#: Wall-clock deadline (``time.monotonic()``) of the group being run; proxies wait no longer.
DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("DEADLINE", default=None)
#: Whether the running group may show call arguments and values (visible cases only).
DETAIL = values.DETAIL
#: Deadline (``time.monotonic()``) of the whole notebook's grading (isolated grading sets it):
#: no group runs past it.
NOTEBOOK_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("NOTEBOOK_DEADLINE", default=None)

# Exception names a report may show: the builtin ones (a class the student defines could carry
# anything in its name).
_BUILTIN_ERRORS = frozenset(
    name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)
)


class Timeout(BaseException):
    """The time budget of a group ran out (a BaseException: ``except Exception`` cannot hide it)."""


class StudentRaised(Exception):
    """The student's function raised; ``ename`` is the exception's type name, ``message`` its text."""

    def __init__(self, ename: str, message: str = ""):
        super().__init__(ename)
        self.ename = ename
        self.message = message


def seed_for(name: str) -> int:
    """The fixed seed of a part: from its name and the optional ``CCB_GRADING_SALT``.

    A teacher who sets ``CCB_GRADING_SALT`` when autograding draws other hidden cases (same
    kinds, same difficulty) than last year's course.

    >>> seed_for("ps1-steps") == seed_for("ps1-steps")
    True
    """
    salt = os.environ.get("CCB_GRADING_SALT", "")
    return zlib.crc32(f"{name}|{salt}".encode())


class _Hold:
    """The main thread's holds on the time limit (:func:`time_limit_held`)."""

    depth = 0
    pending = False


@contextlib.contextmanager
def time_limit_held():
    """Let a group's time limit land after this block, not inside it (main thread).

    The limit raises :class:`Timeout` by ``SIGALRM`` wherever the main thread is. Inside a request
    to the grader's fork server it left the reply unread: every later request read the one before
    it, until one waited the socket's 60 s for a reply already taken. Masking the signal does not
    help (it goes to another of the process's threads, and Python runs the handler in the main
    thread all the same), so the handler asks :class:`_Hold`: inside a hold it only notes the
    expiry, and the outermost hold raises it as it ends — or, when an exception is already
    leaving the block, sets the alarm again to fire just after.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Hold.depth += 1
    try:
        yield
    except BaseException:
        _Hold.depth -= 1
        if _Hold.depth == 0 and _Hold.pending:
            _Hold.pending = False
            signal.setitimer(signal.ITIMER_REAL, 1e-4)  # handled by whoever catches this exception
        raise
    _Hold.depth -= 1
    if _Hold.depth == 0 and _Hold.pending:
        _Hold.pending = False
        raise Timeout()


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Set the group's deadline; in the main thread also raise :class:`Timeout` by ``SIGALRM``."""
    notebook = NOTEBOOK_DEADLINE.get()
    if notebook is not None:  # no group runs past the notebook's deadline
        if time.monotonic() >= notebook:
            raise Timeout()  # nothing of the group runs (not even a student process's start)
        seconds = max(min(seconds, notebook - time.monotonic()), 1e-3)
    token = DEADLINE.set(time.monotonic() + seconds)
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        try:
            yield
        finally:
            DEADLINE.reset(token)
        return

    def expire(signum, frame):
        if _Hold.depth:
            _Hold.pending = True  # raised as the hold ends (time_limit_held)
            return
        raise Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _Hold.pending = False  # the group is over: an expiry noted in a hold ends with it
        DEADLINE.reset(token)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _call_text(name: str, args: tuple, kwargs: dict | None = None) -> str:
    if not DETAIL.get():
        return f"{name}(…)"
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(parts)})"


def _error_name(ename: str) -> str:
    """The exception's name in a report: a builtin one in the student's kernel and the visible cases;
    under grading only "异常" (the student's code picks the exception, and so what its name says)."""
    if not (DETAIL.get() and values.SHOW_VALUES.get()):
        return "异常"
    return ename if ename in _BUILTIN_ERRORS else "自定义异常"


def _is_proxy(func) -> bool:
    return getattr(type(func), "_ccb_student_proxy", False) is True


def _raised(message: str, ename: str) -> Wrong:
    """The :class:`Wrong` for an exception of the student's code: the report's text, and in
    ``raised`` the exception's name (a builtin one, else "自定义异常") for the test code to check —
    a hidden group's report does not show it (:func:`_error_name`)."""
    error = Wrong(message)
    error.raised = ename if ename in _BUILTIN_ERRORS else "自定义异常"
    return error


def call_student(func, *args, name: str | None = None, **kwargs):
    """Call the student's ``func``: its output is discarded, its exceptions become :class:`Wrong`.

    ``func`` is a function of the kernel, or a proxy for one in the isolated student process.
    In a hidden group the message names neither the arguments nor the exception (its name is in
    the :class:`Wrong`'s ``raised``, for a test that expects one: ``error.raised == "ValueError"``).
    """
    label = _call_text(name or getattr(func, "__name__", "答案"), args, kwargs)
    if not callable(func):
        raise Wrong(f"{label}：{name or '答案'} 不是函数（{type_name(func)}）")
    if _is_proxy(func):
        try:
            return func(*args, **kwargs)
        except StudentRaised as error:
            shown = f": {error.message[:120]}" if DETAIL.get() and values.SHOW_VALUES.get() else ""
            if error.ename == "NameError":
                raise _raised(
                    f"{label} 抛出了 NameError{shown}（评分只运行答题单元格：写在你自己新加的单元格里的定义，评分时不存在）",
                    error.ename,
                ) from None
            raise _raised(f"{label} 抛出了 {_error_name(error.ename)}{shown}", error.ename) from None
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args, **kwargs)
    except (Timeout, KeyboardInterrupt):
        raise
    except BaseException as error:  # noqa: BLE001 - the student's code may raise anything
        shown = f": {str(error)[:120]}" if DETAIL.get() else ""
        ename = type(error).__name__
        raise _raised(f"{label} 抛出了 {_error_name(ename)}{shown}", ename) from None


@dataclass
class _Group:
    label: str
    points: float
    ok: bool
    note: str
    visible: bool


class Part:
    """The grading of one part: groups of cases, each worth whole points.

    Parameters
    ----------
    name : str
        The part's id (e.g. ``"ps1-replicas"``): seeds :attr:`rng` and titles the report.
    points : float
        The part's points (the grade cell's points); the groups' points must add up to it.
    budget : float, default :data:`DEFAULT_BUDGET`
        Seconds each group may run.
    answer : function, optional
        The answer function(s) (a function or a tuple of functions) whose own-code check
        :meth:`require_own_code` runs now.
    allow : iterable of str
        Library names the answer may use (e.g. ``{"Transfer", "Schedule"}``).

    Examples
    --------
    >>> part = Part("demo", points=3)
    >>> part.visible([((1,), 2)], lambda n: n + 1, points=1, name="f")
    >>> part.compare("small", lambda n: n + 1, [(1,), (2,)], lambda n: n + 1, points=1, expect="int：n 的后继")
    >>> part.compare("large", lambda n: n, [(10,)], lambda n: n + 1, points=1, expect="int：n 的后继", name="f")
    >>> part.score()
    demo：2 / 3 分
      ✓ 可见测试（1 分）
      ✓ small（1 分）
      ✗ large（0 / 1 分）：有用例的返回值不对；期望：int：n 的后继
    2
    """

    def __init__(self, name: str, points: float, budget: float = DEFAULT_BUDGET, answer=None, allow=()):
        self.name = name
        self.points = points
        self.budget = budget
        self.rng = random.Random(seed_for(name))
        self.results: list[_Group] = []
        self.rejected: str | None = None
        self._sessions: dict = {}
        if answer is not None:
            for func in answer if isinstance(answer, tuple) else (answer,):
                self.require_own_code(func, allow=allow)
                self._warn_outside_answer_cells(func)

    @staticmethod
    def _warn_outside_answer_cells(func) -> None:
        """In the student's kernel: say so when the answer reads a name that a cell other than an
        answer cell defined — grading runs the answer cells only, so the part would score 0 (#40)."""
        if _is_proxy(func):
            return
        outside = tracking.outside_answer_cells(func)
        if not outside:
            return
        name = getattr(func, "__name__", "答案")
        itself = outside[0] == name
        others = outside[1:] if itself else outside
        what = [f"{name} 本身"] if itself else []
        if others:
            what.append(f"{name} 用到的 " + "、".join(others[:4]) + ("……" if len(others) > 4 else ""))
        print(
            f"⚠ {'，'.join(what)}{' ' if others else ''}不是在答题单元格里定义的（而是在新加的单元格，或复制出来的单元格里）。"
            "评分时只运行答题单元格：那里没有这些定义，这一题会得 0 分。请把它们移到答题单元格里。"
        )

    def draw(
        self, make: Callable[[], tuple], count: int, keep: Callable | None = None, *, limit: int | None = None
    ) -> list:
        """``count`` cases from ``make()`` (which draws from :attr:`rng`) that ``keep`` accepts.

        Every salt draws other cases, and a group must contain the cases its name and hint
        promise for every one of them (#40): a filter that keeps what ``range(40)`` happened to
        give — "the first 8 of 40 that are on the boundary" — gave a group 3 such cases under
        one salt and none under another. This draws until ``count`` are kept; ``limit`` draws
        (default ``200 * count``) without enough is a mistake of the test (RuntimeError).

        >>> part = Part("demo-draw", points=1)
        >>> cases = part.draw(lambda: (part.rng.randint(1, 100),), 5, keep=lambda case: case[0] % 10 == 0)
        >>> len(cases), all(n % 10 == 0 for (n,) in cases)
        (5, True)
        """
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"count must be an int >= 0, got {count!r}")
        limit = 200 * max(count, 1) if limit is None else limit
        cases: list = []
        for _ in range(limit):
            if len(cases) >= count:
                return cases
            case = make()
            if keep is None or keep(case):
                cases.append(case)
        if len(cases) >= count:
            return cases
        raise RuntimeError(f"{self.name}: {limit} draws gave {len(cases)} of the {count} cases a group needs")

    def require_own_code(self, func, **options) -> bool:
        """Check that ``func`` is the student's own code; a rejected part scores zero.

        In the kernel: the static inspection. Under isolated grading: the part is rejected at
        :meth:`score` if the student process called a library function while the part ran.
        """
        if _is_proxy(func):
            session = func._ccb_session
            self._sessions.setdefault(id(session), (session, session.library_mark()))
            return True
        try:
            _static_check(func, **options)
        except GradingError as error:
            self.rejected = str(error)
            return False
        return True

    def check(self, label: str, test: Callable[[], None], *, points: float, visible: bool = False) -> None:
        """Run ``test()`` (which raises :class:`Wrong` with a message) as a group worth ``points``.

        ``visible=True`` marks the group of visible checks: its messages may name the (public)
        cases, and its points count only when a hidden group passes too.
        """
        if self.rejected is not None:
            self.results.append(_Group(label, points, False, "未评分（见上）", visible))
            return
        start = time.perf_counter()
        detail = DETAIL.set(visible)
        try:
            with _time_limit(self.budget), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                test()
        except Timeout:
            notebook = NOTEBOOK_DEADLINE.get()
            note = (
                "整本 notebook 的评分时间上限已用完：这一组没有评分"
                if notebook is not None and time.monotonic() >= notebook
                else f"超过时间预算 {self.budget:g} s（死循环，或算法太慢）"
            )
            self.results.append(_Group(label, points, False, note, visible))
        except GradingError as error:
            note = str(error)
            if visible and not values.SHOW_VALUES.get():
                # Isolated grading: a message built from what the student's code returned could
                # carry what that code learned from earlier hidden cases; the kernel shows details.
                note = "没通过（在你自己的 notebook 里运行这个测试单元格可以看到详情）"
            self.results.append(_Group(label, points, False, note, visible))
        else:
            self.results.append(_Group(label, points, True, f"{time.perf_counter() - start:.2f} s", visible))
        finally:
            DETAIL.reset(detail)

    def visible(
        self,
        cases: Sequence[tuple],
        func,
        *,
        points: float,
        coerce: Callable = as_int,
        rel: float | None = None,
        name: str | None = None,
        label: str = "可见测试",
    ) -> None:
        """The visible checks as one group: ``coerce(func(*args)) == want`` for each ``(args, want)``."""
        name = name or getattr(func, "__name__", "答案")

        def test():
            for args, want in cases:
                call = _call_text(name, args)
                got = coerce(call_student(func, *args, name=name), f"{call} 的返回值")
                if rel is not None:
                    values.check_close(got, want, call, rel=rel)
                else:
                    values.check_equal(got, want, call, coerce=lambda v, what: v)

        self.check(label, test, points=points, visible=True)

    def compare(
        self,
        label: str,
        func,
        cases: Sequence[tuple],
        reference: Callable,
        *,
        points: float,
        expect: str,
        coerce: Callable = as_int,
        rel: float | None = None,
        name: str | None = None,
    ) -> None:
        """A hidden group: ``coerce(func(*case))`` must equal ``reference(*case)`` for every case.

        The student's function is called first and the reference afterwards, so the expected
        value does not exist while the student's code runs. ``rel`` compares floats with that
        relative tolerance (exact equality otherwise). A failure says ``expect`` — what kind of
        value the answer should be, in the question's words — and nothing about the case.
        """
        name = name or getattr(func, "__name__", "答案")

        def test():
            for case in cases:
                got = coerce(call_student(func, *case, name=name), f"{_call_text(name, case)} 的返回值")
                want = reference(*case)
                same = values._close(got, want, rel) if rel is not None else got == want
                if not same:
                    raise Wrong(f"有用例的返回值不对；期望：{expect}")

        self.check(label, test, points=points)

    def compare_field(
        self,
        label: str,
        func,
        cases: Sequence[tuple],
        reference: Callable,
        *,
        field: int,
        size: int = 2,
        points: float,
        expect: str,
        coerce: Callable = values.as_float,
        rel: float | None = 1e-9,
        abs_tol: float = 0.0,
        name: str | None = None,
    ) -> None:
        """A hidden group on one item of a tuple answer: item ``field`` of ``func(*case)`` (a
        ``size``-tuple of ``coerce``-d items) against item ``field`` of ``reference(*case)``.

        A pair answer — ``(independent, shared)``, ``(alpha, beta)`` — is graded item by item, one
        group per item (and kind of case), so that one wrong item does not cost the other's points
        (#40). Items are compared by :func:`~ccb_helpers.grading.values.close` (``rel``, ``abs_tol``;
        NaN is never close) or, with ``rel=None``, for equality.
        """
        name = name or getattr(func, "__name__", "答案")

        def test():
            for case in cases:
                got = values.as_tuple(
                    call_student(func, *case, name=name), size, item=coerce, what=f"{_call_text(name, case)} 的返回值"
                )[field]
                want = reference(*case)[field]
                same = values.close(got, want, rel, abs_tol) if rel is not None else got == want
                if not same:
                    raise Wrong(f"有用例的返回值不对；期望：{expect}")

        self.check(label, test, points=points)

    def _library_calls(self) -> list[str]:
        calls: list[str] = []
        for session, mark in self._sessions.values():
            for call in session.library_calls_since(mark):
                if call not in calls:
                    calls.append(call)
        return calls

    def score(self) -> float:
        """Print the report and return the points earned (the cell's partial credit)."""
        total = sum(group.points for group in self.results)
        hidden = [group for group in self.results if not group.visible]
        # The released cell (the student's own kernel) has the visible group only: its groups are
        # worth less than the part, and the report says the hidden tests come when graded. With
        # hidden groups the points must add up (a test cell's mistake, not the student's).
        if total > self.points + 1e-9 or (hidden and not math.isclose(total, self.points)):
            raise RuntimeError(f"{self.name}: the groups are worth {total} points, the part {self.points}")
        calls = self._library_calls()
        if calls and self.rejected is None:
            shown = "、".join(f"ccb.{c}" for c in calls[:3]) + ("……" if len(calls) > 3 else "")
            self.rejected = f"运行时调用了库的实现 {shown}：本题要自己实现（评分时库函数不可用）"
        visible_counts = not hidden or any(group.ok for group in hidden)
        earned = (
            0
            if self.rejected is not None
            else sum(group.points for group in self.results if group.ok and (visible_counts or not group.visible))
        )
        earned = int(earned) if float(earned).is_integer() else round(earned, 2)
        if hidden:
            print(f"{self.name}：{earned} / {_fmt(self.points)} 分")
        else:
            print(
                f"{self.name}：可见测试 {earned} / {_fmt(total)} 分（本题共 {_fmt(self.points)} 分，其余在评分时的隐藏测试里）"
            )
        if self.rejected is not None:
            print(f"  ✗ 0 分：{self.rejected}")
            return earned
        for group in self.results:
            if group.ok and group.visible and not visible_counts:
                print(f"  ✓ {group.label}（不计分：可见用例是公开的，隐藏测试一组也没通过时不计）")
            elif group.ok:
                print(f"  ✓ {group.label}（{_fmt(group.points)} 分）")
            else:
                print(f"  ✗ {group.label}（0 / {_fmt(group.points)} 分）：{group.note}")
        return earned


def _fmt(points: float) -> str:
    return str(int(points)) if float(points).is_integer() else f"{points:g}"
