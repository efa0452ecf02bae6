"""Where a test run's time goes, per test file: wall time and CPU time (a pytest plugin + a report).

On this shared 2-core machine the wall clock of a run says mostly how busy the machine was; the
CPU seconds a test costs (its process plus the subprocesses it waited for: nbgrader, the
sandboxed graders, mpiexec, jupyter-book) do not depend on the load, and an idle run's wall time
is about their sum divided by the cores used, plus what is spent waiting. So the plugin records
both, for every test phase, on every xdist worker:

    CCB_TEST_TIMES=/tmp/times.jsonl PYTHONPATH=benchmarks pytest -p pytest_times [...]
    python benchmarks/pytest_times.py /tmp/times.jsonl        # per-file table, largest CPU first

Not run by pytest itself (benchmarks/ is not collected); nothing is asserted.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time


def _cpu() -> tuple[float, float]:
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def _idle_core_seconds() -> float:
    """Seconds the machine's cores have spent idle since boot (``/proc/stat``: idle + iowait).

    On an otherwise idle machine, the idle core-seconds that pass while a test runs are what the
    run wastes there: nobody (neither worker, nor Chromium, nor a kernel) had work for that core."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return 0.0
    return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")


_START: dict = {}
_ACTIVE = [True]


def pytest_configure(config):
    # Under xdist the controller sees every worker's log events too: only the process that runs
    # a test measures it.
    controller = not hasattr(config, "workerinput") and config.getoption("dist", "no") != "no"
    _ACTIVE[0] = not controller


def pytest_runtest_logstart(nodeid, location):
    if _ACTIVE[0]:
        _START[nodeid] = (time.perf_counter(), *_cpu(), time.time(), _idle_core_seconds())


def pytest_runtest_logfinish(nodeid, location):
    path = os.environ.get("CCB_TEST_TIMES")
    if not path or nodeid not in _START:
        return
    wall0, own0, children0, started, idle0 = _START.pop(nodeid)
    own, children = _cpu()
    record = {
        "nodeid": nodeid,
        "wall": time.perf_counter() - wall0,
        "cpu": own - own0,
        "children": children - children0,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "started": started,
        "idle": _idle_core_seconds() - idle0,
    }
    with open(path, "a", encoding="utf-8") as handle:  # one short line per test: appends do not interleave
        handle.write(json.dumps(record) + "\n")


def report(path: str) -> str:
    rows = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    records = [json.loads(line) for line in open(path, encoding="utf-8")]
    for record in records:
        name = record["nodeid"].split("::")[0].split("@")[0]
        row = rows[name]
        row[0] += 1
        row[1] += record["wall"]
        row[2] += record["cpu"]
        row[3] += record["children"]
        row[4] += record.get("idle", 0.0)
    lines = [
        "| file | tests | wall s (sum) | CPU s | CPU s of subprocesses | idle core-s while it ran |",
        "|---|---|---|---|---|---|",
    ]
    total = [0, 0.0, 0.0, 0.0, 0.0]
    for name, row in sorted(rows.items(), key=lambda item: -(item[1][2] + item[1][3])):
        lines.append(f"| {name} | {row[0]} | {row[1]:.1f} | {row[2]:.1f} | {row[3]:.1f} | {row[4]:.1f} |")
        total = [a + b for a, b in zip(total, row)]
    lines.append(f"| total | {total[0]} | {total[1]:.1f} | {total[2]:.1f} | {total[3]:.1f} | {total[4]:.1f} |")
    lines += ["", _idle_by_file(records)]
    return "\n".join(lines)


def _idle_by_file(records: list[dict], top: int = 15) -> str:
    """Where the cores idled: each test's idle core-seconds shared among the tests running then.

    Two workers overlap, so a core idle during a test on one worker is charged half to it and half
    to whatever the other worker ran at the same time (weights by overlap would need per-second
    samples; halves are enough to rank the waits). Only meaningful for a run on an idle machine."""
    if not any("started" in record for record in records):
        return ""
    workers = {record["worker"] for record in records}
    share = collections.Counter()
    for record in records:
        name = record["nodeid"].split("::")[0].split("@")[0]
        share[name] += record.get("idle", 0.0) / max(1, len(workers))
    lines = [f"| file | idle core-s charged (shared by {len(workers)} workers) |", "|---|---|"]
    lines += [f"| {name} | {seconds:.1f} |" for name, seconds in share.most_common(top)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1]))
