"""A pytest plugin: CPU seconds of the pytest process and of every process it started, Chromium's included.

``/usr/bin/time`` (``RUSAGE_CHILDREN``) counts a subprocess only when it is waited for, and most of
headless Chromium's CPU is not: its renderers are reaped by its zygote, which is never waited for.
Loading the eight chapters in one Chromium used 15.0 CPU-s by the process tree and 4.6 by
``RUSAGE_CHILDREN`` (2026-12-05). This plugin samples every descendant's own user + system time
(``/proc/<pid>/stat``) every 0.25 s and keeps each process's largest value; the total is this
process's own CPU plus those. A process that lives under 0.25 s is missed, and so is the last
quarter second of one that ends. Linux only.

Usage (one process: the descendants of xdist workers are not this process's)::

    PYTHONPATH=benchmarks pytest -n 0 -p pytest_tree_cpu tests/test_site_phone.py

It prints ``TREECPU own … + descendants … = … CPU-s`` at the end and appends that line to
``$TREECPU_LOG`` if set.
"""

from __future__ import annotations

import os
import resource
import threading
import time

_TICK = os.sysconf("SC_CLK_TCK")
_seen: dict[int, float] = {}
_stop = threading.Event()
_start = time.time()


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, own user + system seconds) of ``pid``, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def _sample() -> None:
    stats = {int(pid): s for pid in os.listdir("/proc") if pid.isdigit() and (s := _stat(pid))}
    children: dict[int, list[int]] = {}
    for pid, (parent, _cpu) in stats.items():
        children.setdefault(parent, []).append(pid)
    todo = list(children.get(os.getpid(), []))
    while todo:  # every descendant, however deep (Playwright's driver -> Chromium -> zygote -> renderers)
        pid = todo.pop()
        _seen[pid] = max(_seen.get(pid, 0.0), stats[pid][1])
        todo.extend(children.get(pid, []))


def _loop() -> None:
    while not _stop.wait(0.25):
        _sample()


def pytest_configure(config):
    threading.Thread(target=_loop, daemon=True, name="tree-cpu").start()


def pytest_unconfigure(config):
    _sample()
    _stop.set()
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_s, tree = own.ru_utime + own.ru_stime, sum(_seen.values())
    line = (
        f"TREECPU own {own_s:.1f} + descendants {tree:.1f} = {own_s + tree:.1f} CPU-s "
        f"(RUSAGE_CHILDREN {waited.ru_utime + waited.ru_stime:.1f}); wall {time.time() - _start:.1f} s; "
        f"{len(_seen)} processes"
    )
    print("\n" + line)
    if os.environ.get("TREECPU_LOG"):
        with open(os.environ["TREECPU_LOG"], "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
