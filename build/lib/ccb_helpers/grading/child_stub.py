"""The student process's ``ccb_helpers``: a stub (a part of :mod:`ccb_helpers.grading.child`, loaded by path).

Every library function is unavailable while grading: calling it records the call (the grader
rejects the part) and raises. Only the data records ``Transfer`` and
``Schedule.from_transfers`` that a construction part returns work; the grader rebuilds and
validates the real ones from their fields. :class:`Shell` is the process's ``get_ipython()``.
Like ``child.py`` this file imports the standard library only.
"""

import sys
import types

#: Library calls since the last reply (``child.serve`` sends and clears them).
library_calls = []


class LibraryUnavailable(Exception):
    """A library function was called: it is not available while grading."""


class _LibraryFunction:
    __slots__ = ("_path",)

    def __init__(self, path):
        object.__setattr__(self, "_path", path)

    def __call__(self, *args, **kwargs):
        library_calls.append(self._path)
        raise LibraryUnavailable(f"ccb.{self._path} 在评分时不可用：本题要自己实现")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _LibraryFunction(f"{self._path}.{name}")

    def __repr__(self):
        return f"<ccb.{self._path} (not available while grading)>"


class Transfer:
    """The data of ``ccb.Transfer`` (the grader rebuilds and validates the real one)."""

    __slots__ = ("src", "dst", "offset", "length", "op", "buffer", "dst_offset", "dst_buffer")

    def __init__(self, src, dst, offset, length, op="copy", buffer="data", dst_offset=None, dst_buffer=None):
        self.src, self.dst, self.offset, self.length = src, dst, offset, length
        self.op, self.buffer, self.dst_offset, self.dst_buffer = op, buffer, dst_offset, dst_buffer

    def __repr__(self):
        return f"Transfer({self.src}, {self.dst}, {self.offset}, {self.length})"


class Schedule:
    """The data of ``ccb.Schedule.from_transfers`` (the grader rebuilds and validates the real one)."""

    __slots__ = ("primitive", "n", "m", "rounds", "root", "prologue", "epilogue")

    def __init__(self, *args, **kwargs):
        raise TypeError("评分时请用 ccb.Schedule.from_transfers(primitive, n, m, rounds) 组装调度")

    @classmethod
    def from_transfers(cls, primitive, n, m, rounds, root=0, prologue=(), epilogue=()):
        self = object.__new__(cls)
        self.primitive, self.n, self.m, self.rounds = primitive, n, m, rounds
        self.root, self.prologue, self.epilogue = root, prologue, epilogue
        return self


_RECORDS = {"Transfer": Transfer, "Schedule": Schedule}


def _nothing(*args, **kwargs):
    return None


#: Calls of the released setup cell that do nothing while grading (not a library function).
_HARMLESS = {"grading.answer_cells": _nothing}


def _stub_module(name):
    module = types.ModuleType(name, "ccb_helpers is not available while grading (a stub).")
    module.__path__ = []
    prefix = name.split(".", 1)[1] + "." if "." in name else ""

    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in _RECORDS:
            return _RECORDS[attr]
        if prefix + attr in _HARMLESS:
            return _HARMLESS[prefix + attr]
        # ``from ccb_helpers import grading`` asks the package for the attribute first: the stub
        # submodule, not a library function (the released setup cell's ``grading.answer_cells``
        # raised LibraryUnavailable in every student's feedback).
        submodule = sys.modules.get(f"{name}.{attr}")
        if submodule is not None:
            return submodule
        return _LibraryFunction(prefix + attr)

    module.__getattr__ = __getattr__
    module.__all__ = []
    return module


class _StubFinder:
    """Serves a stub for ``ccb_helpers`` and every ``ccb_helpers.*`` module."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "ccb_helpers" or fullname.startswith("ccb_helpers."):
            import importlib.machinery

            return importlib.machinery.ModuleSpec(fullname, cls, is_package=True)
        return None

    @staticmethod
    def create_module(spec):
        return _stub_module(spec.name)

    @staticmethod
    def exec_module(module):
        pass


def install_stub():
    for name in [n for n in sys.modules if n == "ccb_helpers" or n.startswith("ccb_helpers.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _StubFinder)
    sys.modules["ccb_helpers"] = _stub_module("ccb_helpers")
    sys.modules["ccb_helpers.grading"] = _stub_module("ccb_helpers.grading")


class Shell:
    """``get_ipython()`` of the grading process: ``%time``/``%%time`` run their code, other magics nothing."""

    def __init__(self):
        self.namespace = {}

    def run_line_magic(self, name, line, *args, **kwargs):
        if name in ("time", "timeit") and line.strip():
            exec(compile(line, "<magic>", "exec"), self.namespace)

    def run_cell_magic(self, name, line, cell, *args, **kwargs):
        if name in ("time", "timeit", "capture"):
            exec(compile(cell, "<magic>", "exec"), self.namespace)

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return []


# ------------------------------------------------------------------------------------------
# Values as plain data
# ------------------------------------------------------------------------------------------
