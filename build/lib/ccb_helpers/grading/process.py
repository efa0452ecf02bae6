"""The sandboxed student process as the grader sees it: started (forked by a fork server, or
afresh), asked, killed.

:class:`StudentProcess` is one process of :mod:`ccb_helpers.grading.child` and its two pipes;
:class:`_ForkServer` (``child.py --fork-server``) forks them from one shared start-up.
:func:`sandbox_abi` reports the kernel's Landlock; :data:`MEMORY` and :data:`CPU_SECONDS` are the
process's limits and :data:`MAX_MESSAGE` the largest reply the grader reads.
"""

from __future__ import annotations

import atexit
import contextlib
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

import numpy as np

from .. import _validation
from .parts import Timeout, time_limit_held

__all__ = ["MAX_MESSAGE", "SandboxUnavailable", "StartFailed", "StudentProcess", "sandbox_abi", "shutdown"]

CHILD = pathlib.Path(__file__).with_name("child.py")
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


class StartFailed(SandboxUnavailable):
    """The student process ended, or said nothing, before any of the student's code ran: the
    grader's own failure (its limits, memory, the fork server), never the student's. The notebook
    is not graded (``export`` flags it) rather than scored 0 cell by cell (#40 teacher review)."""


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


#: The layers of the sandbox the student process installs (tests switch single ones off to try
#: the others alone; grading uses them all).
LAYERS = {"network_namespace": True, "seccomp": True, "audit_hook": True}


def _child_env() -> dict:
    """The student process's environment: nothing of the grader's but its pid (``CCB_GRADER``),
    which marks every process of its students, so that one left behind can be counted."""
    return dict(_CHILD_ENV, CCB_GRADER=str(os.getpid()))


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
                env=_child_env(),
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
    with time_limit_held(), _SERVER_LOCK:
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
    with time_limit_held(), _SERVER_LOCK:
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
            with time_limit_held():  # the pid assigned before a time limit can interrupt
                self.pid = _fork_student(to_child, from_child)
                if self.pid is None:
                    self.process = subprocess.Popen(
                        [sys.executable, "-I", str(CHILD), str(from_child)],
                        stdin=to_child,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        pass_fds=(from_child,),
                        env=_child_env(),
                        cwd="/",
                        start_new_session=True,
                        close_fds=True,
                    )
                    self.pid = self.process.pid
        except Timeout:  # raised as the hold ends, the process started: it is not left behind
            self.kill()
            raise
        finally:
            os.close(to_child)
            os.close(from_child)
        start_deadline = time.monotonic() + 60
        try:
            self._send(dict(_readable_paths(), memory=MEMORY, cpu_seconds=CPU_SECONDS, layers=dict(LAYERS)))
            hello = self._receive(start_deadline)
        except (_Died, Timeout) as error:
            # Nothing of the student's has run yet. Before, this was a cell the student crashed
            # (the class after one broken start scored 0 with nothing flagged) and the pipes and
            # the process were left behind (the grader ran out of file descriptors).
            self.kill()
            if isinstance(error, Timeout) and time.monotonic() < start_deadline:
                raise  # the group's time limit (SIGALRM), not the start: the group is out of time
            raise StartFailed(
                f"the student process could not be started ({error or type(error).__name__}); grade this"
                " notebook again (nbgrader autograde ASSIGNMENT --student ID --force)"
            ) from None
        self.landlock = int(hello.get("landlock", 0))
        self.seccomp = hello.get("seccomp") is True
        self.netns = hello.get("netns") is True
        if require_sandbox and (self.landlock == 0 or not (self.seccomp or self.netns)):
            self.kill()
            missing = "Landlock needs Linux >= 5.13 with Landlock enabled" if self.landlock == 0 else ""
            if not (self.seccomp or self.netns):
                missing += ("; " if missing else "") + (
                    "neither a seccomp filter nor a network namespace could close the network (datagrams included)"
                )
            raise SandboxUnavailable(
                f"the student process could not be sandboxed ({missing}"
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
