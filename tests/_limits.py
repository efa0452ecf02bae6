"""Run one call in a forked child under a hard time and memory limit (for the fuzz and regression tests).

A hang or a memory blow-up must fail a test, not the test run: the child sets ``RLIMIT_AS`` (its
address space may grow by at most ``memory`` bytes beyond what the parent already maps), the
parent waits at most ``seconds`` and then kills it. The child reports back only plain data (how
the call ended, the exception type and message, or the text returned by ``fn``), so nothing
needs to be picklable.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from dataclasses import dataclass

GiB = 2**30


@dataclass
class Outcome:
    """How a limited call ended: ``status`` is "returned", "raised", "timeout" or "died"."""

    status: str
    value: str = ""  # what fn returned, as text (fn may return a verdict string)
    error_type: str = ""  # qualified name of the exception class
    error_bases: tuple = ()  # qualified names of its base classes (ValueError subclasses count)
    message: str = ""
    seconds: float = 0.0

    @property
    def clear_error(self) -> bool:
        """Raised ValueError or TypeError (or a subclass) with a message."""
        allowed = {"builtins.ValueError", "builtins.TypeError"}
        return (
            self.status == "raised"
            and bool(allowed & ({self.error_type} | set(self.error_bases)))
            and bool(self.message)
        )

    def __str__(self) -> str:
        if self.status == "raised":
            return f"raised {self.error_type}: {self.message[:300]}"
        if self.status == "returned":
            return f"returned {self.value[:300]}"
        return f"{self.status} after {self.seconds:.1f} s {self.message}"


def _vm_size() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _qualname(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def call_limited(fn, seconds: float = 10.0, memory: int = 2 * GiB) -> Outcome:
    """Run ``fn()`` in a forked child: at most ``seconds`` of wall time and ``memory`` more bytes."""
    read_end, write_end = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(read_end)
            limit = _vm_size() + int(memory)
            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            resource.setrlimit(
                resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
            )
            signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the parent kills on timeout
            try:
                value = fn()
                report = {"status": "returned", "value": value if isinstance(value, str) else repr(value)[:2000]}
            except BaseException as err:  # noqa: BLE001 - every outcome is reported
                report = {
                    "status": "raised",
                    "error_type": _qualname(type(err)),
                    "error_bases": [_qualname(c) for c in type(err).__mro__[1:]],
                    "message": str(err)[:2000],
                }
            data = json.dumps(report).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    chunks = []
    deadline = start + seconds
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    elapsed = time.monotonic() - start
    if timed_out:
        return Outcome("timeout", seconds=elapsed)
    if not chunks:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
        return Outcome("died", message=f"({how}, no report)", seconds=elapsed)
    report = json.loads(b"".join(chunks))
    return Outcome(
        report["status"],
        report.get("value", ""),
        report.get("error_type", ""),
        tuple(report.get("error_bases", ())),
        report.get("message", ""),
        elapsed,
    )
