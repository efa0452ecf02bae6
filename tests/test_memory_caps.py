"""Memory at the caps (issue #28): the estimate a function checks before working is at least the
peak it reaches, and the largest accepted call stays within the budget.

Each case runs in a fresh Python process: tracemalloc measures the peak of the allocations
(numpy reports its buffers to it), and the resident set's high-water mark (``VmHWM``, reset
through ``/proc/self/clear_refs``) the memory the kernel really gave. The budgets are lowered
(the defaults are 2 GiB; the peak is linear in the size, so a smaller cap tests the same ratio
without taking 2 GiB of a shared machine). Before #28, ``simulate('ring', 'all_reduce', 2, m)``
peaked at 2.4x its estimate (an index array of 16 bytes per byte) and ``best_algorithm`` at its
2**25-element cap at 5.8 GB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

MiB = 2**20

_PRELUDE = textwrap.dedent("""
    import json, os, tracemalloc
    import numpy as np
    import ccb_helpers as ccb

    def rss(field):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))

    def measure(call):
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # reset VmHWM to the current RSS
            hwm_ok = True
        except OSError:
            hwm_ok = False
        before = rss("VmRSS")
        tracemalloc.start()
        call()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak, (rss("VmHWM") - before) if hwm_ok else None
""")


def _run(body: str) -> dict:
    code = _PRELUDE + textwrap.dedent(body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


# Slack of the resident set over the estimate: the allocator's arenas and page granularity.
RSS_SLACK = 8 * MiB


@pytest.mark.parametrize(
    "algorithm, primitive, n",
    [
        ("ring", "all_reduce", 2),  # the case
        ("binomial_tree", "scatter", 3),
        ("binomial_tree", "gather", 5),
        ("ring", "reduce_scatter", 3),
        ("bruck", "all_to_all", 4),
    ],
)
def test_simulate_peak_within_its_estimate_at_the_cap(algorithm, primitive, n):
    budget = 64 * MiB
    result = _run(f"""
        from ccb_helpers.generators import _check_generate
        from ccb_helpers.simulator import _simulate_estimate

        def estimate(m):
            _, _, _, _, _, rounds, transfers = _check_generate({algorithm!r}, {primitive!r}, {n}, m, 1, 0, None, True)
            return _simulate_estimate({algorithm!r}, {primitive!r}, {n}, m, rounds, transfers, None)

        step = {n} if {primitive!r} == "all_to_all" else 1
        lo, hi = 0, {budget} // step  # the largest accepted m (in steps), by bisection on the estimate
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if estimate(mid * step) <= {budget} else (lo, mid - 1)
        m = lo * step
        peak, hwm = measure(lambda: ccb.simulate({algorithm!r}, {primitive!r}, {n}, m, max_bytes={budget}))
        try:
            ccb.simulate({algorithm!r}, {primitive!r}, {n}, m + step, max_bytes={budget})
            refused = ""
        except ValueError as err:
            refused = str(err)
        print(json.dumps(dict(m=m, estimate=estimate(m), peak=peak, hwm=hwm, refused=refused)))
    """)
    assert result["m"] > 0
    assert result["peak"] <= result["estimate"] <= budget, result
    if result["hwm"] is not None:
        assert result["hwm"] <= result["estimate"] + RSS_SLACK, result
    assert "memory" in result["refused"], result


@pytest.mark.parametrize(
    "primitive, ports, arrays",
    [
        ("all_reduce", 2, "all"),
        ("all_reduce", 1, "m"),
        ("broadcast", 1, "all"),
    ],
)
def test_best_algorithm_peak_within_its_estimate_at_the_cap(primitive, ports, arrays):
    budget = 32 * MiB
    result = _run(f"""
        import ccb_helpers.algorithms as algorithms

        algorithms.BEST_ALGORITHM_MAX_BYTES = {budget}
        per = algorithms._best_memory({primitive!r}, 64, (1,), {ports})
        size = {budget} // per  # the largest accepted grid

        def grid(size):
            rng = np.random.default_rng(1)
            m = rng.uniform(1, 2**30, size)
            if {arrays!r} == "m":
                return 64, m, 5e-6, 25e9
            return rng.choice([2, 3, 8, 64, 1000], size), m, rng.uniform(1e-6, 1e-5, size), rng.uniform(1e9, 1e11, size)

        args = grid(size)
        peak, hwm = measure(lambda: ccb.best_algorithm({primitive!r}, *args, ports={ports}))
        try:
            ccb.best_algorithm({primitive!r}, *grid(size + 1), ports={ports})
            refused = ""
        except ValueError as err:
            refused = str(err)
        print(json.dumps(dict(size=size, estimate=per * size, peak=peak, hwm=hwm, refused=refused)))
    """)
    assert result["peak"] <= result["estimate"] <= budget, result
    if result["hwm"] is not None:
        assert result["hwm"] <= result["estimate"] + RSS_SLACK, result
    assert "memory" in result["refused"], result
