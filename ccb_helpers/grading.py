"""Grading helpers for the book's nbgrader problem sets (``assignments/``).

The tests of a problem set run inside the student's kernel, after the student's code, so they
are written with these helpers:

* :func:`require_own_code` rejects an answer that calls the library's implementation instead of
  implementing it. It reads the source of the notebook cell that defined the function (and of
  every helper function it reaches) with :mod:`ast`, resolves the global names the compiled code
  loads, and rejects library functions under any alias, ``getattr``/``eval``-style tricks,
  introspection (frames, ``__dict__``, ``sys``, ``inspect``…) and file access.
* :func:`as_int`, :func:`as_float`, :func:`as_str`, :func:`as_list`… coerce a returned value to
  the plain Python type the question states (``numpy.int64(3)`` is accepted as ``3``; an
  ``int`` subclass that overrides ``__eq__`` is rejected), so every comparison is made between
  plain values.
* :class:`Part` scores one part by groups of cases, each worth whole points: the cases of a group
  are drawn from a random generator seeded by the part's name (the same cases at every
  autograde, different from the visible ones), every call runs under a time budget with its
  output captured, and a failed group prints what was expected without printing the hidden
  expected value. :meth:`Part.score` returns the points earned: as the last expression of an
  nbgrader test cell, that number is the cell's partial credit.
* :func:`check_equal` / :func:`check_close` are the visible tests' assertions (they may show the
  expected value: visible cases are public).

The checks run in a kernel the student controls: they stop honest mistakes and the obvious
shortcuts, not a determined attacker (the autograded notebook shows the teacher everything the
student ran).

>>> as_int(__import__("numpy").int64(12), "answer")
12
>>> as_int(12.0, "answer")
Traceback (most recent call last):
...
ccb_helpers.grading.GradingError: answer 应为 int，得到 float 12.0
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dis
import fractions
import functools
import io
import linecache
import math
import os
import random
import signal
import sys
import threading
import time
import types
import warnings
import zlib
from typing import Callable, Iterable, Sequence

import numpy as np

__all__ = [
    "GradingError",
    "Wrong",
    "Part",
    "as_int",
    "as_float",
    "as_str",
    "as_bool",
    "as_list",
    "as_set",
    "as_pair",
    "as_rounds",
    "check_equal",
    "check_close",
    "require_own_code",
    "library_names",
    "seed_for",
    "broadcast_problems",
]

#: Seconds a group of cases may run before it fails (a runaway loop must not stall autograding).
DEFAULT_BUDGET = 10.0
#: Items a returned list may have before it is rejected unread.
MAX_ITEMS = 1_000_000

# Builtins that reach objects by name, run strings, or touch files and the interpreter: an
# answer never needs them.
_DYNAMIC_BUILTINS = frozenset({
    "getattr", "setattr", "delattr", "eval", "exec", "compile", "__import__", "globals", "locals",
    "vars", "open", "input", "breakpoint", "help", "exit", "quit", "memoryview",
})


def _dynamic_message(name: str) -> str:
    if name in ("open", "input", "breakpoint", "help", "exit", "quit", "memoryview"):
        return f"使用了 {name}：本题不允许读写文件或操作解释器"
    return f"使用了 {name}：本题不允许按名字取对象或执行字符串"
# Modules that read files, the kernel, the interpreter or the grader: never needed by an answer.
_BANNED_MODULES = frozenset({
    "sys", "os", "io", "pathlib", "glob", "shutil", "subprocess", "sqlite3", "inspect", "importlib",
    "gc", "ctypes", "builtins", "__main__", "traceback", "linecache", "pickle", "marshal", "dis",
    "types", "code", "codeop", "runpy", "tokenize", "ast", "nbformat", "nbgrader", "nbclient",
    "IPython", "ipykernel", "jupyter_client", "threading", "multiprocessing", "signal", "socket",
    "urllib", "requests", "json", "csv", "tempfile", "zipfile", "tarfile", "operator", "weakref",
    "networkx", "scipy", "sympy",
})
# Attribute names that walk frames, code objects or namespaces.
_INTROSPECTION_ATTRS = frozenset({
    "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "tb_frame", "tb_next", "gi_frame",
    "cr_frame", "ag_frame", "co_consts", "co_names", "co_code", "attrgetter", "methodcaller",
    "user_ns", "user_global_ns", "history_manager", "modules",
})
_ALLOWED_DUNDERS = frozenset({"__init__", "__name__", "__doc__"})
_ALLOWED_MAGICS = frozenset({"time", "timeit", "matplotlib"})


class GradingError(AssertionError):
    """A check failed; the message says what was expected (never a hidden value)."""


class Wrong(GradingError):
    """A hidden case failed (raised by the checks a :class:`Part` runs)."""


class _Timeout(BaseException):
    """The time budget of a group ran out (a BaseException: ``except Exception`` cannot hide it)."""


# --------------------------------------------------------------------------------------------
# Coercion: every comparison is made between plain Python values.
# --------------------------------------------------------------------------------------------

def _describe(value) -> str:
    """``type value`` for a message, without running a ``__repr__`` the student wrote."""
    try:
        text = repr(value) if type(value).__module__ in ("builtins", "numpy", "fractions") else object.__repr__(value)
    except Exception:  # noqa: BLE001 - a container may hold anything
        text = "<unprintable>"
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} {text}"


def _is_numpy_scalar(value, kind) -> bool:
    """A genuine numpy scalar of ``kind`` (a subclass defined elsewhere does not count)."""
    return isinstance(value, kind) and type(value).__module__ == "numpy"


def as_int(value, what: str = "返回值") -> int:
    """``value`` as a Python ``int``: an ``int`` or a numpy integer, nothing else.

    Floats are rejected even when integral (the question asks for an exact integer), and so is
    ``bool`` and any subclass of ``int`` (it could override ``__eq__``).

    >>> as_int(7), as_int(__import__("numpy").uint8(7))
    (7, 7)
    """
    if type(value) is int:
        return value
    if _is_numpy_scalar(value, np.integer):
        return int(value)
    raise GradingError(f"{what} 应为 int，得到 {_describe(value)}")


def as_float(value, what: str = "返回值") -> float:
    """``value`` as a Python ``float``: an int, float, Fraction or numpy number.

    >>> as_float(3), as_float(fractions.Fraction(1, 4))
    (3.0, 0.25)
    """
    if type(value) in (int, float):
        return float(value)
    if type(value) is fractions.Fraction:
        return float(value)
    if _is_numpy_scalar(value, np.integer) or _is_numpy_scalar(value, np.floating):
        return float(value)
    if type(value) is np.ndarray and value.shape == () and value.dtype.kind in "iuf":
        return float(value)
    raise GradingError(f"{what} 应为 float（秒、字节等实数），得到 {_describe(value)}")


def as_str(value, what: str = "返回值") -> str:
    """``value`` as a Python ``str`` (numpy strings accepted).

    >>> as_str("ring")
    'ring'
    """
    if type(value) is str:
        return value
    if _is_numpy_scalar(value, np.str_):
        return str(value)
    raise GradingError(f"{what} 应为 str，得到 {_describe(value)}")


def as_bool(value, what: str = "返回值") -> bool:
    """``value`` as a Python ``bool`` (numpy booleans accepted).

    >>> as_bool(__import__("numpy").bool_(True))
    True
    """
    if type(value) is bool:
        return value
    if _is_numpy_scalar(value, np.bool_):
        return bool(value)
    raise GradingError(f"{what} 应为 bool，得到 {_describe(value)}")


def _items(value, what: str, kinds: tuple) -> list:
    if type(value) not in kinds and not (type(value) is np.ndarray and value.ndim == 1):
        names = " / ".join(k.__name__ for k in kinds)
        raise GradingError(f"{what} 应为 {names}，得到 {_describe(value)}")
    if len(value) > MAX_ITEMS:
        raise GradingError(f"{what} 有 {len(value)} 项，超过上限 {MAX_ITEMS}")
    return list(value)


def as_list(value, item: Callable = as_int, what: str = "返回值") -> list:
    """``value`` (a list, tuple or 1-D numpy array) as a list of coerced items.

    >>> as_list((3, __import__("numpy").int64(5)))
    [3, 5]
    """
    return [item(v, f"{what}[{i}]") for i, v in enumerate(_items(value, what, (list, tuple)))]


def as_set(value, item: Callable = as_int, what: str = "返回值") -> frozenset:
    """``value`` (a set, frozenset, list or tuple) as a frozenset of coerced items.

    >>> sorted(as_set({2, 1}))
    [1, 2]
    """
    return frozenset(item(v, f"{what} 的元素") for v in _items(value, what, (set, frozenset, list, tuple)))


def as_pair(value, item: Callable = as_int, what: str = "返回值") -> tuple:
    """``value`` as a 2-tuple of coerced items (a list or tuple of length 2).

    >>> as_pair([0, 3])
    (0, 3)
    """
    items = _items(value, what, (list, tuple))
    if len(items) != 2:
        raise GradingError(f"{what} 应是 (src, dst) 两个元素，得到 {len(items)} 个")
    return (item(items[0], f"{what}[0]"), item(items[1], f"{what}[1]"))


def as_rounds(value, item: Callable = as_int, what: str = "返回值") -> list[list[tuple]]:
    """A schedule written as rounds of ``(src, dst)`` pairs: a list of lists of 2-tuples.

    >>> as_rounds([[(0, 1)], [(0, 2), (1, 3)]])
    [[(0, 1)], [(0, 2), (1, 3)]]
    """
    return [
        [as_pair(pair, item, f"{what}[{r}][{j}]") for j, pair in enumerate(_items(rnd, f"{what}[{r}]", (list, tuple, set, frozenset)))]
        for r, rnd in enumerate(_items(value, what, (list, tuple)))
    ]


def as_node(value, what: str = "节点") -> tuple | int:
    """A node label: an int, or a tuple of ints (grid coordinates).

    >>> as_node((1, 2)), as_node(3)
    ((1, 2), 3)
    """
    if type(value) in (tuple, list):
        return tuple(as_int(v, what) for v in value)
    return as_int(value, what)


# --------------------------------------------------------------------------------------------
# Visible checks
# --------------------------------------------------------------------------------------------

def check_equal(got, want, what: str, coerce: Callable = as_int) -> None:
    """Visible check: ``coerce(got) == want`` or a :class:`GradingError` naming both.

    >>> check_equal(__import__("numpy").int64(3), 3, "steps(8)")
    >>> check_equal(4, 3, "steps(8)")
    Traceback (most recent call last):
    ...
    ccb_helpers.grading.GradingError: steps(8) 应为 3，得到 4
    """
    value = coerce(got, what)
    if value != want:
        raise GradingError(f"{what} 应为 {want!r}，得到 {value!r}")


def check_close(got, want: float, what: str, rel: float = 1e-9, abs_tol: float = 0.0) -> None:
    """Visible check: ``as_float(got)`` within ``rel`` (relative) of ``want``.

    >>> check_close(0.1 + 0.2, 0.3, "x")
    >>> check_close(0.25, 0.3, "x")
    Traceback (most recent call last):
    ...
    ccb_helpers.grading.GradingError: x 应约为 0.3（相对误差 ≤ 1e-09），得到 0.25
    """
    value = as_float(got, what)
    if not math.isclose(value, want, rel_tol=rel, abs_tol=abs_tol):
        raise GradingError(f"{what} 应约为 {want!r}（相对误差 ≤ {rel:g}），得到 {value!r}")


# --------------------------------------------------------------------------------------------
# "Implement it yourself": inspect the answer's code
# --------------------------------------------------------------------------------------------

def library_names() -> frozenset:
    """Names of every function and class defined in the loaded ``ccb_helpers`` modules.

    >>> "info_steps" in library_names() and "torus" in library_names()
    True
    """
    names = set()
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "ccb_helpers" or module_name.startswith("ccb_helpers.")):
            continue
        for name, obj in list(vars(module).items()):
            if callable(obj) and str(getattr(obj, "__module__", "") or "").startswith("ccb_helpers"):
                names.add(name)
                names.add(getattr(obj, "__name__", name))
    return frozenset(n for n in names if isinstance(n, str))


def _from_library(obj) -> bool:
    module = getattr(obj, "__module__", None)
    return isinstance(module, str) and (module == "ccb_helpers" or module.startswith("ccb_helpers."))


def _module_root(name: str) -> str:
    return name.split(".")[0]


class _Inspector:
    """Collects the reasons an answer does not count as the student's own code."""

    def __init__(self, allow: Iterable[str], forbid: Iterable[str], allow_modules: Iterable[str]):
        self.allow = frozenset(allow)
        self.forbid = frozenset(forbid)
        self.banned_modules = _BANNED_MODULES - frozenset(allow_modules)
        self.catalog = library_names() - self.allow
        self.problems: list[str] = []
        self.seen_cells: set[str] = set()
        self.seen_objects: set[int] = set()
        self.queue: list = []

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    # -- objects --------------------------------------------------------------------------
    def visit_object(self, obj, name: str) -> None:
        if id(obj) in self.seen_objects:
            return
        self.seen_objects.add(id(obj))
        if isinstance(obj, types.ModuleType):
            if _module_root(obj.__name__) in self.banned_modules:
                self.problem(f"使用了模块 {obj.__name__}（{name}）：本题不允许")
            return
        if isinstance(obj, functools.partial):
            self.visit_object(obj.func, name)
            for arg in (*obj.args, *obj.keywords.values()):
                self.visit_object(arg, name)
            return
        if isinstance(obj, types.MethodType):
            self.visit_object(obj.__func__, name)
            self.visit_object(obj.__self__, name)
            return
        if _from_library(obj):
            real = getattr(obj, "__name__", name)
            if callable(obj) and real not in self.allow:
                self.problem(f"调用了库的实现 ccb.{real}（名字 {name}）：本题要自己实现")
            elif not callable(obj) and type(obj).__name__ not in self.allow:
                self.problem(f"用到了库算出的对象 {name}（{type(obj).__name__}）：本题要自己算")
            return
        if _from_library(type(obj)) and not isinstance(obj, type) and type(obj).__name__ not in self.allow:
            self.problem(f"用到了库算出的对象 {name}（ccb.{type(obj).__name__}）：本题要自己算")
            return
        if any(obj is getattr(builtins, n, None) for n in _DYNAMIC_BUILTINS):
            if not any(p.endswith(_dynamic_message(name)) for p in self.problems):
                self.problem(_dynamic_message(name))
            return
        if isinstance(obj, types.FunctionType):
            self.queue.append(obj)
            return
        if isinstance(obj, type) and obj.__module__ == "__main__":
            for value in vars(obj).values():
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if isinstance(value, types.FunctionType):
                    self.queue.append(value)
            return
        if type(obj).__module__ == "__main__":
            self.visit_object(type(obj), name)

    # -- functions ------------------------------------------------------------------------
    def visit_function(self, func: types.FunctionType) -> None:
        label = getattr(func, "__qualname__", "函数")
        if _from_library(func):
            self.problem(f"{label} 就是库函数 ccb.{func.__name__}：本题要自己实现")
            return
        code = func.__code__
        lines = linecache.getlines(code.co_filename)
        if not lines:
            self.problem(f"读不到 {label} 的源代码：请在 notebook 的单元格里用 def 定义它（不要用 exec）")
            return
        if code.co_filename not in self.seen_cells:
            self.seen_cells.add(code.co_filename)
            self.visit_source("".join(lines), func.__globals__, label)
        namespace = func.__globals__
        for inner in _code_objects(code):
            for instr in dis.get_instructions(inner):
                if instr.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instr.argval, str):
                    name = instr.argval
                    if name in namespace:
                        self.visit_object(namespace[name], name)
                    elif hasattr(builtins, name):
                        self.visit_object(getattr(builtins, name), name)
                    else:
                        self.problem(f"{label} 用到了评分时尚未定义的名字 {name}")
        for value in (*(func.__defaults__ or ()), *(func.__kwdefaults__ or {}).values()):
            self.visit_object(value, f"{label} 的默认参数")
        for cell in func.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:
                continue
            self.visit_object(contents, f"{label} 的闭包变量")

    # -- source ---------------------------------------------------------------------------
    def visit_source(self, source: str, namespace: dict, label: str) -> None:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            self.problem(f"{label} 所在单元格无法解析")
            return
        allowed_magic_calls = set()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("run_line_magic", "run_cell_magic")
                and isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Name)
                and node.func.value.func.id == "get_ipython"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in _ALLOWED_MAGICS
            ):
                allowed_magic_calls.add(id(node.func.value.func))
        for node in ast.walk(tree):
            where = f"第 {getattr(node, 'lineno', '?')} 行"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _module_root(alias.name) in self.banned_modules:
                        self.problem(f"{where} 导入了 {alias.name}：本题不允许")
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if _module_root(module) in self.banned_modules:
                    self.problem(f"{where} 从 {module} 导入：本题不允许")
                if module.startswith("ccb_helpers"):
                    for alias in node.names:
                        if alias.name == "*":
                            self.problem(f"{where} from {module} import *：请只导入允许的名字")
                        elif alias.name in self.catalog or alias.name in self.forbid:
                            self.problem(f"{where} 导入了库的实现 {module}.{alias.name}：本题要自己实现")
            elif isinstance(node, ast.Attribute):
                attr = node.attr
                if attr.startswith("__") and attr.endswith("__") and attr not in _ALLOWED_DUNDERS:
                    self.problem(f"{where} 访问了 {attr}：本题不允许内省")
                elif attr in _INTROSPECTION_ATTRS:
                    self.problem(f"{where} 访问了 {attr}：本题不允许内省")
                elif attr in self.forbid:
                    self.problem(f"{where} 用到了 .{attr}：本题要自己算出它")
                elif attr in self.catalog and self._library_base(node.value, namespace):
                    self.problem(f"{where} 调用了库的实现 ccb.{attr}：本题要自己实现")
            elif isinstance(node, ast.Name):
                if node.id in _DYNAMIC_BUILTINS and node.id not in namespace:
                    self.problem(f"{where} {_dynamic_message(node.id)}")
                elif node.id == "get_ipython" and id(node) not in allowed_magic_calls:
                    self.problem(f"{where} 使用了 get_ipython：本题不允许")
                elif node.id in self.forbid and isinstance(node.ctx, ast.Load) and node.id in namespace and _from_library(namespace[node.id]):
                    self.problem(f"{where} 用到了 {node.id}：本题要自己实现")
            elif isinstance(node, ast.Global):
                self.problem(f"{where} global {', '.join(node.names)}：答案不能改写全局变量")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if (node.value in self.catalog and "_" in node.value) or node.value in self.forbid:
                    self.problem(f"{where} 字符串 {node.value!r} 是库函数的名字：本题要自己实现")

    def _library_base(self, node, namespace: dict) -> bool:
        """Whether an attribute is read from the library (or from something we cannot tell)."""
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.value if not isinstance(node, ast.Call) else node.func
        if not isinstance(node, ast.Name):
            return True
        if node.id not in namespace:
            return True  # a local variable: it may hold a library object
        base = namespace[node.id]
        if isinstance(base, types.ModuleType):
            return base.__name__.startswith("ccb_helpers")
        return True

    def run(self, func) -> list[str]:
        if not isinstance(func, types.FunctionType):
            if _from_library(func):
                return [f"这是库的实现 ccb.{getattr(func, '__name__', '?')}：本题要自己实现"]
            return [f"应是一个用 def 定义的 Python 函数，得到 {_describe(func)}"]
        self.queue.append(func)
        while self.queue:
            self.visit_function(self.queue.pop())
        return self.problems


def _code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def require_own_code(func, *, allow: Iterable[str] = (), forbid: Iterable[str] = (), allow_modules: Iterable[str] = ()) -> None:
    """Raise :class:`GradingError` unless ``func`` is the student's own implementation.

    Parameters
    ----------
    func : function
        The answer: a function defined with ``def`` (or ``lambda``) in a notebook cell.
    allow : iterable of str
        Library names the part allows (e.g. ``{"Transfer", "Schedule"}``); every other function
        or class of ``ccb_helpers`` is rejected, under any alias.
    forbid : iterable of str
        Extra attribute names the part rejects (e.g. ``{"diameter"}``, a property of a topology).
    allow_modules : iterable of str
        Modules normally rejected that the part allows (e.g. ``{"networkx"}``).

    Everything the function can reach is inspected: the whole cell that defines it, the global
    names its compiled code loads (resolved to the objects they are bound to now), its default
    arguments and closure, and — recursively — every function or class of the notebook it uses.
    """
    problems = _Inspector(allow, forbid, allow_modules).run(func)
    if problems:
        name = getattr(func, "__name__", "答案")
        raise GradingError(f"{name} 不能算作自己的实现：" + "；".join(problems[:4]) + ("……" if len(problems) > 4 else ""))


def tampering() -> list[str]:
    """Cells of this kernel's history that modify the library or the interpreter.

    Assignments to attributes of ``ccb_helpers`` modules, classes or functions (e.g. replacing
    ``grading.Part.score``), of ``sys`` or ``builtins``, and ``setattr``/``delattr`` on them.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - outside IPython there is no history
        return []
    shell = get_ipython()
    if shell is None:
        return []
    namespace = shell.user_ns
    history = list(shell.history_manager.input_hist_parsed) if shell.history_manager else []
    found = []

    def sensitive(node) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in namespace:
            return False
        obj = namespace[node.id]
        if isinstance(obj, types.ModuleType):
            return obj.__name__.startswith("ccb_helpers") or obj.__name__ in ("sys", "builtins", "numpy", "math")
        return _from_library(obj) and (isinstance(obj, type) or callable(obj))

    for number, source in enumerate(history):
        try:
            tree = ast.parse(source or "")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and node.args:
                targets = [ast.Attribute(value=node.args[0], attr="?", ctx=ast.Store())]
            for target in targets:
                if isinstance(target, (ast.Attribute, ast.Subscript)) and sensitive(target):
                    found.append(f"输入 [{number}] 第 {target.lineno if hasattr(target, 'lineno') else node.lineno} 行修改了库或解释器的对象")
    return found


# --------------------------------------------------------------------------------------------
# Hidden grading: groups of cases, partial credit
# --------------------------------------------------------------------------------------------

def seed_for(name: str) -> int:
    """The fixed seed of a part: from its name and the optional ``CCB_GRADING_SALT``.

    A teacher who sets ``CCB_GRADING_SALT`` when autograding draws other hidden cases (same
    kinds, same difficulty) than last year's course.

    >>> seed_for("ps1-steps") == seed_for("ps1-steps")
    True
    """
    salt = os.environ.get("CCB_GRADING_SALT", "")
    return zlib.crc32(f"{name}|{salt}".encode())


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise :class:`_Timeout` in the main thread after ``seconds`` (no limit elsewhere)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call_text(name: str, args: tuple, kwargs: dict | None = None) -> str:
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(parts)})"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def call_student(func, *args, name: str | None = None, **kwargs):
    """Call the student's ``func``: its output is captured, its exceptions become :class:`Wrong`."""
    label = _call_text(name or getattr(func, "__name__", "答案"), args, kwargs)
    if not callable(func):
        raise Wrong(f"{label}：{name or '答案'} 不是函数（{_describe(func)}）")
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args, **kwargs)
    except (_Timeout, KeyboardInterrupt):
        raise
    except BaseException as error:  # noqa: BLE001 - the student's code may raise anything
        raise Wrong(f"{label} 抛出了 {type(error).__name__}: {str(error)[:120]}") from None


class Part:
    """The hidden grading of one part: groups of cases, each worth whole points.

    Parameters
    ----------
    name : str
        The part's id (e.g. ``"ps1-replicas"``): seeds :attr:`rng` and titles the report.
    points : float
        The part's points (the grade cell's points); the groups' points must add up to it.
    budget : float, default :data:`DEFAULT_BUDGET`
        Seconds each group may run.

    Use :meth:`require_own_code` first, then :meth:`compare` / :meth:`check` once per group,
    and make :meth:`score` the last expression of the cell.

    >>> part = Part("demo", points=2)
    >>> part.compare("small", lambda n: n + 1, [(1,), (2,)], lambda n: n + 1, points=1, expect="n + 1")
    >>> part.compare("large", lambda n: n, [(10,)], lambda n: n + 1, points=1, expect="n + 1", name="f")
    >>> part.score()
    demo：1 / 2 分
      ✓ small（1 分）
      ✗ large（0 / 1 分）：f(10) 返回 10；期望：n + 1
    1
    """

    def __init__(self, name: str, points: float, budget: float = DEFAULT_BUDGET):
        self.name = name
        self.points = points
        self.budget = budget
        self.rng = random.Random(seed_for(name))
        self.results: list[tuple[str, float, bool, str]] = []
        self.rejected: str | None = None

    def require_own_code(self, func, **options) -> bool:
        """Reject the whole part (zero points) if ``func`` is not the student's own code."""
        try:
            require_own_code(func, **options)
        except GradingError as error:
            self.rejected = str(error)
            return False
        found = tampering()
        if found:
            self.rejected = "notebook 修改了库或评分代码：" + "；".join(found[:3])
            return False
        return True

    def check(self, label: str, test: Callable[[], None], *, points: float) -> None:
        """Run ``test()`` (which raises :class:`Wrong` with a message) as a group worth ``points``."""
        if self.rejected is not None:
            self.results.append((label, points, False, "未评分（见上）"))
            return
        start = time.perf_counter()
        try:
            with _time_limit(self.budget), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                test()
        except _Timeout:
            self.results.append((label, points, False, f"超过时间预算 {self.budget:g} s（死循环，或算法太慢）"))
        except GradingError as error:
            self.results.append((label, points, False, str(error)))
        else:
            self.results.append((label, points, True, f"{time.perf_counter() - start:.2f} s"))

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
        """A group: ``coerce(func(*case))`` must equal ``reference(*case)`` for every case.

        The student's function is called first and the reference afterwards, so the expected
        value does not exist while the student's code runs. ``rel`` compares floats with that
        relative tolerance (exact equality otherwise). The message of a failed case names the
        call and ``expect`` (what the answer should be), never the expected value.
        """
        name = name or getattr(func, "__name__", "答案")

        def test():
            for case in cases:
                got = coerce(call_student(func, *case, name=name), f"{_call_text(name, case)} 的返回值")
                want = reference(*case)
                same = math.isclose(got, want, rel_tol=rel, abs_tol=0.0) if rel is not None else got == want
                if not same:
                    raise Wrong(f"{_call_text(name, case)} 返回 {_short(got)}；期望：{expect}")

        self.check(label, test, points=points)

    def score(self) -> float:
        """Print the report and return the points earned (the cell's partial credit)."""
        total = sum(points for _, points, _, _ in self.results)
        if not math.isclose(total, self.points):
            raise RuntimeError(f"{self.name}: the groups are worth {total} points, the part {self.points}")
        earned = 0 if self.rejected is not None else sum(points for _, points, ok, _ in self.results if ok)
        earned = int(earned) if float(earned).is_integer() else round(earned, 2)
        print(f"{self.name}：{earned} / {_fmt(self.points)} 分")
        if self.rejected is not None:
            print(f"  ✗ 0 分：{self.rejected}")
        for label, points, ok, note in self.results:
            if self.rejected is not None:
                continue
            if ok:
                print(f"  ✓ {label}（{_fmt(points)} 分）")
            else:
                print(f"  ✗ {label}（0 / {_fmt(points)} 分）：{note}")
        return earned


def _fmt(points: float) -> str:
    return str(int(points)) if float(points).is_integer() else f"{points:g}"


# --------------------------------------------------------------------------------------------
# Checkers of constructions
# --------------------------------------------------------------------------------------------

def broadcast_problems(rounds, nodes, root, send_limit, receive_limit=None, links=None, limit: int = 3) -> list[str]:
    """What is wrong with a broadcast written as rounds of ``(src, dst)`` pairs (``[]`` if valid).

    Parameters
    ----------
    rounds : list of list of (src, dst)
        Already coerced (see :func:`as_rounds`).
    nodes : collection
        Every node label; all of them must hold the data at the end.
    root : node
        Holds the data before round 1.
    send_limit, receive_limit : int or callable
        Messages a node may send (receive) per round: a number, or ``f(node)``. A message may
        only leave a node that held the data at the start of the round.
    links : set of frozenset, optional
        The allowed ``{src, dst}`` pairs (all pairs if omitted).
    limit : int
        At most this many problems are reported.

    >>> broadcast_problems([[(0, 1)], [(0, 2), (1, 3)]], range(4), 0, 1)
    []
    >>> broadcast_problems([[(0, 1), (0, 2)]], range(4), 0, 1)
    ['第 1 轮：节点 0 发了 2 条消息，上限 1', '结束时节点 [3] 还没有数据']
    """
    nodes = set(nodes)
    informed = {root}
    problems: list[str] = []

    def per_node(limit_value, node):
        return limit_value(node) if callable(limit_value) else limit_value

    for number, pairs in enumerate(rounds, 1):
        sent: dict = {}
        received: dict = {}
        arrived = set()
        for src, dst in pairs:
            if src not in nodes or dst not in nodes:
                problems.append(f"第 {number} 轮：({src}, {dst}) 中有不存在的节点")
                continue
            if src == dst:
                problems.append(f"第 {number} 轮：节点 {src} 发给了自己")
                continue
            if src not in informed:
                problems.append(f"第 {number} 轮：节点 {src} 这一轮开始时还没有数据，不能转发")
            if links is not None and frozenset((src, dst)) not in links:
                problems.append(f"第 {number} 轮：{src} 与 {dst} 之间没有链路")
            sent[src] = sent.get(src, 0) + 1
            received[dst] = received.get(dst, 0) + 1
            arrived.add(dst)
        for node, count in sent.items():
            if count > per_node(send_limit, node):
                problems.append(f"第 {number} 轮：节点 {node} 发了 {count} 条消息，上限 {per_node(send_limit, node)}")
        if receive_limit is not None:
            for node, count in received.items():
                if count > per_node(receive_limit, node):
                    problems.append(f"第 {number} 轮：节点 {node} 收了 {count} 条消息，上限 {per_node(receive_limit, node)}")
        informed |= arrived
        if len(problems) >= limit:
            return problems[:limit]
    missing = sorted(nodes - informed)
    if missing:
        shown = missing[:5]
        problems.append(f"结束时节点 {shown}{'…' if len(missing) > 5 else ''} 还没有数据")
    return problems[:limit]

