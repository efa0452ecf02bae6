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
"""

from __future__ import annotations

import ast
import atexit
import builtins
import contextlib
import fractions
import functools
import io
import json
import os
import pathlib
import select
import socket
import struct
import subprocess
import sys
import threading
import time
import types
from dataclasses import dataclass, field

import numpy as np

from .. import _validation
from . import values
from .parts import DEADLINE, StudentRaised, Timeout
from .values import Wrong

__all__ = ["Cell", "Outcome", "SandboxUnavailable", "Session", "StudentFunction", "grade_cells", "sandbox_abi"]

CHILD = pathlib.Path(__file__).with_name("child.py")
#: Seconds an answer cell's top-level code may run (``CCB_GRADING_CELL_SECONDS`` overrides).
CELL_BUDGET = float(os.environ.get("CCB_GRADING_CELL_SECONDS", "30"))
#: Seconds a call may run when no group budget is set.
CALL_BUDGET = 60.0
#: Student process restarts per notebook (runaways and crashes); beyond it, calls fail at once.
MAX_RESTARTS = 30
#: Largest reply read from the student process (bytes). Parsed JSON can take 45 bytes a character
#: (lists nested in lists: ``_validation.JSON_BYTES_PER_CHAR``), so a hostile 64 MiB reply was
#: 3 GB in the grader; 32 MiB keeps the estimate within ``_validation.COUNT_CAP_MAX_BYTES``
#: (2 GiB). A list the grader accepts (``values.MAX_ITEMS``, one million floats) is about 25 MB.
MAX_MESSAGE = 32 * 2**20
#: Memory (address space) and CPU seconds of the student process.
MEMORY = 3 * 2**30
CPU_SECONDS = 900


class SandboxUnavailable(RuntimeError):
    """The kernel offers no Landlock sandbox and unsandboxed grading was not allowed."""


class _Died(Exception):
    """The student process ended (or wrote something that is not a reply)."""


def sandbox_abi() -> int:
    """The kernel's Landlock ABI version (0 if Landlock is unavailable).

    >>> isinstance(sandbox_abi(), int)
    True
    """
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(0, int(abi))


def _readable_paths() -> dict:
    """What the student process may read: the standard library (not its installed packages),
    numpy, and ld's cache; the process adds the system library folders it has loaded from."""
    numpy_dir = pathlib.Path(np.__file__).resolve().parent
    paths = [str(numpy_dir)]
    libs = numpy_dir.parent / "numpy.libs"
    if libs.is_dir():
        paths.append(str(libs))
    files = [p for p in ("/etc/ld.so.cache",) if os.path.exists(p)]
    return {"stdlib": os.path.dirname(os.__file__), "read_paths": paths, "read_files": files}


# ------------------------------------------------------------------------------------------
# Plain data across the pipe
# ------------------------------------------------------------------------------------------


class Opaque:
    """A returned object of a type that does not cross (only a well-known type name does)."""

    _ccb_opaque = True

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name or '自定义类型的对象'}>"


def encode(value, depth: int = 0):
    """Test arguments as plain data (builtin values, Fraction, numpy arrays and scalars).

    >>> encode((1, [2.5, "x"], {3: frozenset({4})}))
    ['T', [1, ['L', [2.5, 'x']], ['D', [[3, ['Z', [4]]]]]]]
    """
    if depth > 64:
        raise ValueError("argument nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, str, float):
        return value
    if kind is int:
        return value if -(2**53) < value < 2**53 else ["I", hex(value)]
    if isinstance(value, np.integer):
        return encode(int(value))
    if isinstance(value, np.floating):
        return float(value)
    if kind in (list, tuple, set, frozenset):
        return [{list: "L", tuple: "T", set: "S", frozenset: "Z"}[kind], [encode(v, depth + 1) for v in value]]
    if kind is dict:
        return ["D", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]]
    if kind is fractions.Fraction:
        return ["F", hex(value.numerator), hex(value.denominator)]
    if kind is np.ndarray and value.dtype.kind in "biuf":
        return ["A", value.dtype.kind, list(value.shape), value.ravel().tolist()]
    raise TypeError(f"cannot send a {kind.__name__} to the student process")


def decode(data, depth: int = 0):
    """A returned value from plain data: builtin values, numpy arrays, Fraction, ccb records.

    >>> decode(['T', [1, ['F', '0x1', '0x3'], ['I', '0x20000000000000']]])
    (1, Fraction(1, 3), 9007199254740992)
    """
    if depth > 70:
        raise ValueError("nested too deeply")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not list or not data or type(data[0]) is not str:
        raise ValueError("not a value")
    tag = data[0]
    if tag == "I":
        return int(data[1], 16)
    if tag == "F":
        numerator, denominator = int(data[1], 16), int(data[2], 16)
        if denominator <= 0:
            raise ValueError("bad fraction")
        return fractions.Fraction(numerator, denominator)
    if tag == "?":
        return Opaque(data[1] if type(data[1]) is str and data[1] in values._SHOWN_TYPES else "")
    if tag == "A":
        dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64}[data[1]]
        shape = [int(s) for s in data[2]]
        flat = [item if type(item) in (bool, int, float) else decode(item, depth + 1) for item in data[3]]
        return np.array(flat, dtype=dtype).reshape(shape)
    if tag == "D":
        return {decode(k, depth + 1): decode(v, depth + 1) for k, v in data[1]}
    if tag in ("X", "Y"):
        return _record(tag, [decode(item, depth + 1) for item in data[1]])
    kinds = {"L": list, "T": tuple, "S": set, "Z": frozenset}
    if depth + 1 > 70:
        return kinds[tag](decode(item, depth + 1) for item in data[1])
    # A plain item decodes to itself: no call for each of a schedule's million integers.
    return kinds[tag]([item if type(item) in _PLAIN else decode(item, depth + 1) for item in data[1]])


_PLAIN = frozenset({bool, int, float, str, type(None)})


def _record(tag: str, fields: list):
    """A real ``ccb.Transfer`` / ``ccb.Schedule`` rebuilt (and validated) from the record's fields."""
    from ..schedule import Schedule, Transfer

    try:
        if tag == "X":
            return Transfer(*fields)
        primitive, n, m, rounds, root, prologue, epilogue = fields
        return Schedule.from_transfers(primitive, n, m, rounds, root=root, prologue=prologue, epilogue=epilogue)
    except Wrong:
        raise
    except Exception:  # noqa: BLE001 - the library's validation names the student's values: not shown
        what = "ccb.Transfer" if tag == "X" else "ccb.Schedule"
        raise Wrong(f"返回的 {what} 不合法（库的检查拒绝了它：参数类型或取值不对）") from None


# ------------------------------------------------------------------------------------------
# The student process
# ------------------------------------------------------------------------------------------


#: The student process's environment (nothing of the grader's).
_CHILD_ENV = {
    "PATH": os.defpath,
    "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
}


class _ForkServer:
    """``child.py --fork-server``: forks student processes that share one start-up (numpy's import).

    A class's notebooks start ~20 student processes per set, each a Python start and a numpy
    import (0.1 CPU-s); forked from a server that did both once, a student process starts in a
    millisecond and is, at the point where ``child.main`` takes over, what a fresh start is (the
    server never runs student code; see ``child.fork_server``). The server belongs to the process
    that started it (not to a fork of that process) and ends with :func:`shutdown` or at exit.
    """

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", str(CHILD), "--fork-server", str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                env=_CHILD_ENV,
                cwd="/",
                start_new_session=True,
                close_fds=True,
            )
        finally:
            theirs.close()
        ours.settimeout(60)
        self.control = ours
        self.owner = os.getpid()

    def _ask(self, message: bytes, fds=()) -> int:
        socket.send_fds(self.control, [message], list(fds))
        reply = self.control.recv(8)
        if len(reply) != 4:
            raise OSError("the fork server ended")
        return struct.unpack(">i", reply)[0]

    def fork(self, to_child: int, from_child: int) -> int:
        pid = self._ask(b"f", (to_child, from_child))
        if pid <= 0:
            raise OSError("the fork server could not fork")
        return pid

    def kill(self, pid: int) -> None:
        self._ask(b"k" + struct.pack(">i", pid))

    def close(self) -> None:
        self.control.close()  # the server kills and reaps what is left, then ends
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_SERVER: _ForkServer | None = None
_SERVER_LOCK = threading.Lock()  # one request at a time on the socket (graders may use threads)


def shutdown() -> None:
    """End this process's fork server (it starts again when needed); its students' CPU time is then
    counted in this process's children. Registered at exit; tests call it to count per test."""
    global _SERVER
    with _SERVER_LOCK:
        server, _SERVER = _SERVER, None
        if server is not None and server.owner == os.getpid():
            server.close()


def _fork_student(to_child: int, from_child: int) -> int | None:
    """A student process forked by this process's fork server: its pid, or None (start it afresh)."""
    global _SERVER
    with _SERVER_LOCK:
        for _ in range(2):  # a server that ended (killed, or inherited by a fork) is replaced once
            if _SERVER is None or _SERVER.owner != os.getpid() or _SERVER.process.poll() is not None:
                if _SERVER is not None and _SERVER.owner == os.getpid():
                    with contextlib.suppress(OSError):
                        _SERVER.close()
                try:
                    _SERVER = _ForkServer()
                except OSError:
                    _SERVER = None
                    return None
            try:
                return _SERVER.fork(to_child, from_child)
            except OSError:
                with contextlib.suppress(OSError):
                    _SERVER.close()
                _SERVER = None
    return None


def _kill_forked(pid: int) -> bool:
    """Kill and reap a forked student process; False if its server is gone."""
    with _SERVER_LOCK:
        if _SERVER is None or _SERVER.owner != os.getpid():
            return False
        try:
            _SERVER.kill(pid)
        except OSError:
            return False
        return True


atexit.register(shutdown)


class StudentProcess:
    """One sandboxed student process (:mod:`ccb_helpers.grading.child`) and its pipes.

    Forked by the fork server (:class:`_ForkServer`), or started afresh when there is none."""

    def __init__(self, require_sandbox: bool):
        to_child, self._to_child = os.pipe()
        self._from_child, from_child = os.pipe()
        self.process: subprocess.Popen | None = None
        try:
            self.pid = _fork_student(to_child, from_child)
            if self.pid is None:
                self.process = subprocess.Popen(
                    [sys.executable, "-I", str(CHILD), str(from_child)],
                    stdin=to_child,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=(from_child,),
                    env=_CHILD_ENV,
                    cwd="/",
                    start_new_session=True,
                    close_fds=True,
                )
                self.pid = self.process.pid
        finally:
            os.close(to_child)
            os.close(from_child)
        self._send(dict(_readable_paths(), memory=MEMORY, cpu_seconds=CPU_SECONDS))
        hello = self._receive(time.monotonic() + 60)
        self.landlock = int(hello.get("landlock", 0))
        if self.landlock == 0 and require_sandbox:
            self.kill()
            raise SandboxUnavailable(
                "the student process could not be sandboxed (Landlock needs Linux >= 5.13 with Landlock enabled"
                + (f": {hello.get('problem')}" if hello.get("problem") else "")
                + "); set CCB_GRADING_UNSANDBOXED=1 to grade without the sandbox (students' code could then read the course folder)"
            )

    def _send(self, message: dict) -> None:
        data = json.dumps(message, ensure_ascii=True, allow_nan=True).encode("utf-8")
        data = struct.pack(">I", len(data)) + data
        try:
            while data:
                written = os.write(self._to_child, data)
                data = data[written:]
        except OSError as error:
            raise _Died(str(error)) from None

    def _read(self, size: int, deadline: float) -> bytes:
        chunks, left = [], size
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise Timeout()
            ready, _, _ = select.select([self._from_child], [], [], min(wait, 1.0))
            if not ready:
                continue
            chunk = os.read(self._from_child, min(left, 1 << 20))
            if not chunk:
                raise _Died("the student process ended")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _receive(self, deadline: float) -> dict:
        (size,) = struct.unpack(">I", self._read(4, deadline))
        if size > MAX_MESSAGE or _validation.json_memory(size) > _validation.COUNT_CAP_MAX_BYTES:
            raise _Died("reply too large")  # before reading it: the estimate of its parse
        try:
            reply = json.loads(self._read(size, deadline).decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise _Died("not a reply") from None
        if type(reply) is not dict:
            raise _Died("not a reply")
        return reply

    def request(self, message: dict, deadline: float) -> dict:
        self._send(message)
        return self._receive(deadline)

    def kill(self) -> None:
        if self.process is not None or not _kill_forked(self.pid):
            try:
                os.killpg(self.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            if self.process is not None:
                self.process.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)


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
        self.notes: list[str] = []

    # -- process --------------------------------------------------------------------------
    def _start(self, replay: list[tuple[str, str]], namespace: str) -> StudentProcess:
        if self.restarts > MAX_RESTARTS:
            raise _Died("too many restarts")
        process = StudentProcess(self.require_sandbox)
        self.landlock = process.landlock
        for source, filename in replay:
            try:
                process.request(
                    {"op": "exec", "namespace": namespace, "source": source, "filename": filename},
                    time.monotonic() + CELL_BUDGET,
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
                    time.monotonic() + CELL_BUDGET,
                )
            except Timeout:
                self._drop()
                results.append(("", ("CellTimeoutError", f"这个单元格运行超过 {CELL_BUDGET:g} s：评分时不计入"), False))
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
                self.process.request({"op": "reset", "namespace": "display"}, time.monotonic() + CELL_BUDGET)
        return results

    # -- grading pass ---------------------------------------------------------------------
    def run_cell(self, source: str, filename: str) -> None:
        """Run an answer cell in the grading namespace (its output is discarded)."""
        try:
            if self.process is None:
                self.process = self._start(self.executed, "grade")
            reply = self.process.request(
                {"op": "exec", "namespace": "grade", "source": source, "filename": filename},
                time.monotonic() + CELL_BUDGET,
            )
        except (Timeout, _Died):
            self._drop()
            return
        self._library(reply)
        self.executed.append((source, filename))
        self.names = [n for n in reply.get("names", []) if type(n) is str and n.isidentifier()]

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
        deadline = time.monotonic() + CALL_BUDGET if deadline is None else deadline
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
    """Notebook-level facts: the sandbox used, restarts, cells not run, problems of the grader."""

    landlock: int = 0
    restarts: int = 0
    ignored_cells: int = 0
    problems: list[str] = field(default_factory=list)


# The three functions below are pure functions of a cell's text, and a class's notebooks share
# most of their texts (every test cell, the setup cell, the answers of everyone who got it
# right): each text is transformed, parsed and compiled once per grading process, not once per
# student (IPython's tokenizer was a tenth of the grader's CPU time in a class's autograde).
def _python(source: str) -> str:
    """A cell's source as Python (IPython's transformations: ``%magic``, ``!shell``)."""
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
    runnable = [(i, cell) for i, cell in enumerate(cells) if cell.kind in ("setup", "answer")]
    try:
        sources = {i: (_python(cell.source), f"<cell {i}>") for i, cell in runnable}
        shown = session.display([sources[i] for i, _ in runnable])
        for (i, _), (stdout, error, ran) in zip(runnable, shown):
            outcomes[i].stdout, outcomes[i].error, outcomes[i].ran = stdout, error, ran
        token = values.SHOW_VALUES.set(False)
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
            values.SHOW_VALUES.reset(token)
    finally:
        session.close()
    report.landlock, report.restarts = session.landlock, session.restarts
    return outcomes, report
