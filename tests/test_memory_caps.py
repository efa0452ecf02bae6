"""Memory at the caps (issue #28): the estimate a function checks before working is at least the
peak it reaches, and the largest accepted call stays within the budget.

Each case runs in a fresh Python process: tracemalloc measures the peak of the allocations
(numpy reports its buffers to it), and the resident set's high-water mark (``VmHWM``, reset
through ``/proc/self/clear_refs``) the memory the kernel really gave. The budgets are lowered
(the defaults are 2 GiB; the peak is linear in the size, so a smaller cap tests the same ratio
without taking 2 GiB of a shared machine). Before #28, ``simulate('ring', 'all_reduce', 2, m)``
peaked at 2.4x its estimate (an index array of 16 bytes per byte) and ``best_algorithm`` at its
2**25-element cap at 5.8 GB. The count caps (searches, blocks, drawings, live tables, fits, JSON
files, grading lists …) share one interpreter (:func:`test_count_caps_peak_within_their_estimates`):
their calls share nothing, so one start-up serves them all.

"A fresh Python process" is a child forked from a server that has run the prelude below and
nothing else (:class:`_ForkServer`): the same heap, modules and allocator state as a new
interpreter after the prelude, without paying numpy's and the package's imports (0.3 CPU-s) again
for every case.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import textwrap

import pytest

MiB = 2**20

_PRELUDE = textwrap.dedent("""
    import importlib, json, os, tracemalloc
    import numpy as np
    import ccb_helpers as ccb

    # The facade imports a name's module on first use: import the computing modules here, as the
    # facade once did, so no measurement below counts a module's import (figures stay unloaded).
    for _module in sorted({m for m in ccb._LAZY.values()} - {".plotting", ".explorers", ".synthesis_figures", ".nccl_figures"}):
        importlib.import_module(_module, "ccb_helpers")

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


# The server reads one JSON-encoded body a line; for each it forks a child that runs the body in
# a copy of the prelude's globals with its output (print, and anything C code writes to fd 1 or 2)
# in a file, and answers one JSON line: the exit status and that output. The body may exit.
_SERVE = textwrap.dedent("""
    import sys, tempfile, traceback

    _protocol_in, _protocol_out = sys.stdin, sys.stdout
    _prelude_globals = dict(globals())
    for _line in _protocol_in:
        _body = json.loads(_line)
        with tempfile.TemporaryFile("w+", encoding="utf-8") as _output:
            _pid = os.fork()
            if _pid == 0:
                _status = 1
                try:
                    os.dup2(_output.fileno(), 1)
                    os.dup2(_output.fileno(), 2)
                    sys.stdout = sys.stderr = open(1, "w", encoding="utf-8", closefd=False)
                    exec(compile(_body, "<case>", "exec"), dict(_prelude_globals))
                    _status = 0
                except SystemExit as _exit:
                    _status = _exit.code if isinstance(_exit.code, int) else 1
                except BaseException:
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    os._exit(_status)
            _, _wait_status = os.waitpid(_pid, 0)
            _output.seek(0)
            _protocol_out.write(json.dumps(dict(returncode=os.waitstatus_to_exitcode(_wait_status), output=_output.read())) + "\\n")
            _protocol_out.flush()
""")


class _ForkServer:
    """One interpreter that has run the prelude; each case runs in a child forked from it."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-c", _PRELUDE + _SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def run(self, body: str, timeout: float) -> tuple[int, str]:
        self.process.stdin.write(json.dumps(body) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:  # a hung case: the server (and its child) go, the next case starts a new one
            self.close()
            raise AssertionError(f"a memory case ran over {timeout} s")
        reply = json.loads(self.process.stdout.readline())
        return reply["returncode"], reply["output"]

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_SERVER: list[_ForkServer] = []


@pytest.fixture(scope="module", autouse=True)
def _fork_server():
    yield
    while _SERVER:
        _SERVER.pop().close()


def _run(body: str) -> dict:
    if not _SERVER or _SERVER[0].process.poll() is not None:
        _SERVER[:] = [_ForkServer()]
    try:
        returncode, output = _SERVER[0].run(textwrap.dedent(body), timeout=120)
    except AssertionError:
        _SERVER.clear()
        raise
    assert returncode == 0, output[-3000:]
    return json.loads(output.strip().splitlines()[-1])


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
        import ccb_helpers.algorithms.best as algorithms

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


# --------------------------------------------------------------------------- the bound functions' array cap

# The modules whose public functions take arrays; every one of their functions that checks shapes
# (directly or through the bounds' argument checks) is measured below, for every primitive and
# every algorithm it accepts.
# algorithms is a package: its vectorised functions live in these submodules (#44).
_ARRAY_MODULES = (
    "propagation",
    "bisection",
    "in_network",
    "algorithms.core",
    "algorithms.evaluate",
    "algorithms.best",
    "algorithms.double_tree",
    "algorithms.pipelined",
    "bandwidth",
    "bounds",
)


@pytest.mark.slow  # about 8 CPU-seconds: 200 functions x primitives x algorithms under tracemalloc
def test_every_vectorised_function_peaks_within_its_estimate_at_the_array_cap():
    budget = 2 * MiB  # ARRAY_MAX_BYTES lowered from 2 GiB: 13,000 to 32,000 elements a call
    result = _run(f"""
        import importlib, inspect
        import ccb_helpers._validation as validation

        validation.ARRAY_MAX_BYTES = {budget}
        estimates = []
        check_cap = validation.check_cap

        def recording(what, estimate, cap, unit="", hint=""):
            if "memory at" in what:
                estimates.append(estimate)
            return check_cap(what, estimate, cap, unit, hint)

        validation.check_cap = recording  # check_shapes looks it up at call time
        rng = np.random.default_rng(7)
        # Arguments in other dtypes than the formulas use (int32, float32), so that the conversions
        # of check_int / check_real count; n a power of two where an algorithm needs one.
        INTS = dict(n=(2, 40), k=(1, 5), ports=(1, 5), degree=(1, 9), diameter=(10, 21), t=(0, 30), chunks=(1, 9))
        REALS = dict(m=(0, 2**30), alpha=(1e-6, 1e-5), beta=(1e9, 1e11), hop_latency=(1e-8, 1e-7), seconds=(1e-3, 1.0),
                     gamma=(1e-12, 1e-9))

        def array(name, size, power_of_two):
            if name == "n" and power_of_two:
                return (2 ** rng.integers(1, 6, size)).astype(np.int32)
            if name == "eccentricity":  # within [ceil(D/2), D] of the diameters above
                return np.full(size, 10, dtype=np.int32)
            if name in INTS:
                return rng.integers(*INTS[name], size).astype(np.int32)
            return rng.uniform(*REALS[name], size).astype(np.float32)

        ARRAYABLE = set(INTS) | set(REALS) | {{"eccentricity"}}
        functions = []
        for module in {_ARRAY_MODULES!r}:
            mod = importlib.import_module("ccb_helpers." + module)
            for name, f in inspect.getmembers(mod, inspect.isfunction):
                source = inspect.getsource(f)
                if name.startswith("_") or f.__module__ != mod.__name__ or not any(
                    k in source for k in ("check_shapes(", "_check_bound_args(", "_check_latency_args(")
                ):
                    continue
                if name == "best_algorithm":  # its own, larger estimate: the test above
                    continue
                functions.append((name, f))

        cases = []
        for name, f in functions:
            params = inspect.signature(f).parameters
            variants = [{{}}]
            if name in ("optimal_segments", "pipeline_constants"):  # the pipelined chain and tree only
                variants = [
                    {{k: v for k, v in dict(algorithm=a, primitive=p, ports=1).items() if k in params}}
                    for a in ("pipelined_chain", "pipelined_binary_tree") for p in ("broadcast", "reduce")
                ]
            elif "algorithm" in params:
                variants = [
                    dict(algorithm=a, primitive=p, ports=model.min_ports)
                    for a, models in ccb.ALGORITHMS.items() for p, model in models.items()
                ]
                if "chunks" in params and name != "algorithm_terms":  # a pipelined model's chunks given, and found
                    variants += [
                        dict(v, chunks=None) for v in variants if v["algorithm"] in ccb.pipelined_algorithms()
                    ]
            elif "primitive" in params:
                variants = [dict(primitive=p) for p in ccb.PRIMITIVES]
            for fixed in variants:
                if "topology" in params:
                    fixed = dict(fixed, topology=ccb.torus(4, 4))
                if name == "coverage":  # n caps the values of an array t: a scalar
                    fixed = dict(fixed, n=10**6)
                names = [p for p in params if p in ARRAYABLE and p not in fixed]
                if "chunks" in names and fixed.get("algorithm") not in ccb.pipelined_algorithms():
                    names.remove("chunks")  # only the pipelined models take chunks
                while True:  # leave scalar the arguments that must be scalars
                    try:
                        f(**dict(fixed, **{{p: array(p, 4, True) for p in names}}))
                        break
                    except TypeError as err:
                        scalar = str(err).split()[0]
                        if "must be a scalar" not in str(err) or scalar not in names:
                            raise
                        names.remove(scalar)
                cases.append((name, f, fixed, names))

        from ccb_helpers.double_binary_tree import _dbt_levels

        longest = {budget} // validation.ARRAY_BYTES_PER_ELEMENT + 2  # no function takes fewer bytes

        def call(fixed, arrays, size):
            return dict(fixed, **{{p: a[:size] for p, a in arrays.items()}})

        report, failures, measured = [], [], 0
        for name, f, fixed, names in cases:
            for power_of_two in (False, True):  # any n; powers of two where an algorithm needs them
                arrays = {{p: array(p, longest, power_of_two) for p in names}}
                try:
                    estimates.clear()
                    f(**call(fixed, arrays, 1000))  # warm up, and learn the bytes per element
                except ValueError as err:
                    if "power of two" in str(err) and not power_of_two:
                        continue
                    raise
                # The estimate is per * size + fixed (the 1-port tree's distinct n, all of which
                # occur in the first 1000 elements): two probes give both.
                first = max(estimates)
                estimates.clear()
                f(**call(fixed, arrays, 2000))
                per = (max(estimates) - first) // 1000
                size = min(validation.MAX_ELEMENTS, ({budget} - (first - 1000 * per)) // per)
                estimates.clear()
                kw = call(fixed, arrays, size)
                _dbt_levels.cache_clear()  # the tree's levels are counted afresh, as in a new process
                peak, _ = measure(lambda: f(**kw))
                estimate = max(estimates)
                measured += 1
                algorithm = str(fixed.get("algorithm", "")) + "/" + str(fixed.get("primitive", ""))
                row = (name, algorithm, power_of_two, size, peak, estimate)
                report.append(row)
                if not peak <= estimate <= {budget}:
                    failures.append(row)
                try:
                    f(**call(fixed, arrays, size + 1))
                    failures.append(row + ("accepted one element more",))
                except ValueError as err:
                    if "memory" not in str(err):
                        failures.append(row + (str(err),))
                break
        # The 1-port tree's levels at its largest n (65536): a term of the estimate of its own.
        validation.ARRAY_MAX_BYTES = 64 * 2**20
        n = np.array([65536, 65535] * 500, dtype=np.int32)
        _dbt_levels.cache_clear()
        estimates.clear()
        peak, _ = measure(lambda: ccb.algorithm_cost("double_binary_tree", "all_reduce", n, 2.0**20, 5e-6, 25e9))
        row = ("algorithm_cost", "double_binary_tree/n=65536", False, n.size, peak, max(estimates))
        report.append(row)
        if not peak <= row[5] <= validation.ARRAY_MAX_BYTES:
            failures.append(row)
        worst = max(report, key=lambda r: r[4] / r[5])
        report.sort(key=lambda r: -r[4] / r[5])
        print(json.dumps(dict(functions=sorted({{n for n, *_ in cases}}), measured=measured, failures=failures, worst=worst, top=[r[:3] + (round(r[4] / r[3]), round(r[5] / r[3])) for r in report[:25]])))
    """)
    assert not result["failures"], result["failures"]
    assert result["measured"] >= 150, result
    # Every vectorised function of the package is here (a new one joins by itself).
    assert {"combined_lower_bound", "algorithm_cost", "bandwidth_lower_bound", "coverage", "regime"} <= set(
        result["functions"]
    )
    # 28, and #38's computation_lower_bound, optimal_segments, pipeline_constants, one_port_tree_depth.
    assert len(result["functions"]) == 32, result["functions"]


# --------------------------------------------------------------------------- the synthesis variable cap


@pytest.mark.slow  # about 6 s: three CP-SAT models near 50,000 send variables, built and solved
@pytest.mark.parametrize(
    "make, primitive, instance, workers",
    [
        ("ccb.dgx1()", "all_to_all", (3, 30, 8), 1),  # 49,152 variables, the largest accepted
        ("ccb.fully_connected(8)", "all_to_all", (2, 20, 6), 1),  # 43,008
        ("ccb.fully_connected(8)", "all_to_all", (2, 20, 6), 4),
    ],
)
def test_synthesize_peak_within_its_estimate_at_the_variable_cap(make, primitive, instance, workers):
    # CP-SAT's model lives outside Python's allocator: the resident set is what the estimate
    # bounds (tracemalloc sees only the encoding).
    result = _run(f"""
        from ortools.sat.python import cp_model  # loaded before measuring: once per process
        from ccb_helpers import synthesis

        topology = {make}
        topology.graph
        variables = synthesis._estimate_variables(topology, {primitive!r}, {instance[0]}, {instance[2]}, 0)
        estimate = synthesis._synthesis_memory(variables, {workers})
        peak, hwm = measure(lambda: ccb.synthesize(topology, {primitive!r}, *{instance!r}, time_limit=60, workers={workers}))
        refused = []
        try:  # a larger instance: over the variable cap
            ccb.synthesize(topology, {primitive!r}, {instance[0]} + 1, {instance[1]}, {instance[2]}, time_limit=60)
        except ValueError as err:
            refused.append(str(err))
        synthesis.encoding.MAX_SYNTHESIS_BYTES = estimate - 1  # and the memory budget, checked before any work
        try:
            ccb.synthesize(topology, {primitive!r}, *{instance!r}, time_limit=0.001, workers={workers})
        except ValueError as err:
            refused.append(str(err))
        print(json.dumps(dict(variables=variables, estimate=estimate, peak=peak, hwm=hwm, refused=refused)))
    """)
    assert result["variables"] > 40_000
    assert result["peak"] <= result["estimate"] <= 2 * 2**30, result
    if result["hwm"] is not None:
        assert result["hwm"] <= result["estimate"], result
    assert len(result["refused"]) == 2 and "send variables" in result["refused"][0], result
    assert "memory" in result["refused"][1] and "workers" in result["refused"][1], result


# --------------------------------------------------------------------------- the graph cap


@pytest.mark.slow  # about 6 s: seven graph families built twice at a lowered cap, the measurements
def test_graphs_and_measurements_peak_within_their_estimates_at_the_caps():
    cap = 2**14  # MAX_GRAPH_ELEMENTS lowered from 2**19 (graph memory is linear in it)
    result = _run(f"""
        import ccb_helpers.topology as topology
        from ccb_helpers.topology import _graph_memory, _measure_memory, MAX_GRAPH_BYTES, MAX_GRAPH_ELEMENTS
        from ccb_helpers.user_topology import MAX_DIAMETER_WORK, MAX_ENDPOINTS, _from_links_memory, _link_matrix_memory

        def resident(call):  # the high-water mark without tracemalloc (its own records double it)
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before = rss("VmRSS")
            call()
            return rss("VmHWM") - before

        def largest(make, lo, hi, cap):  # the largest instance whose graph is within the cap
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if sum(make(mid)._graph_size) <= cap else (lo, mid - 1)
            return lo

        families = dict(
            ring=(ccb.ring, 3, 2**20), torus=(lambda a: ccb.torus(a, a), 3, 2**10),
            torus3=(lambda a: ccb.torus(a, a, a), 3, 2**7), mesh=(lambda a: ccb.mesh(a, a), 2, 2**10),
            hypercube=(ccb.hypercube, 1, 20), fully_connected=(ccb.fully_connected, 2, 2**12),
            single_switch=(ccb.single_switch, 2, 2**20), fat_tree=(ccb.fat_tree, 4, 2**20),
        )
        rows, at_real_cap = [], 0
        for family, (make, lo, hi) in families.items():
            # at the real cap: the estimate within the budget (closed forms, nothing built)
            at_real_cap = max(at_real_cap, _graph_memory(*make(largest(make, lo, hi, MAX_GRAPH_ELEMENTS))._graph_size))
            topology.MAX_GRAPH_ELEMENTS = {cap}
            size = largest(make, lo, hi, {cap})
            peak, _ = measure(lambda: make(size).graph)
            hwm = resident(lambda: make(size).graph)
            try:
                make(size + 1).graph
                refused = ""
            except ValueError as err:
                refused = str(err)
            topology.MAX_GRAPH_ELEMENTS = MAX_GRAPH_ELEMENTS
            rows.append((make(size).name, peak, hwm, _graph_memory(*make(size)._graph_size), refused))

        # The measurements (bounded by their work cap long before memory; at the work cap they take
        # seconds, so smaller instances: the estimate is per vertex and edge all the same).
        for name, call, t in [
            ("measured_diameter", ccb.measured_diameter, ccb.ring(512)),
            ("measured_diameter", ccb.measured_diameter, ccb.fat_tree(256)),
            ("measured_bisection", ccb.measured_bisection, ccb.torus(4, 4)),
            ("measured_bisection", ccb.measured_bisection, ccb.fat_tree(16)),
        ]:
            estimate = _measure_memory(t)
            peak, _ = measure(lambda: call(t))
            rows.append((name + " " + t.name, peak, None, estimate, "memory"))

        # User topologies: the most endpoints (the n x n matrix dominates), and a dense one (the graph
        # dominates). At the diameter's work cap (2e7 BFS steps) the measurement takes 10 s, so
        # both stay below it; the estimate is a sum of the same two terms.
        rng = np.random.default_rng(1)
        for n, pairs in [(MAX_ENDPOINTS, 2 * MAX_ENDPOINTS), (128, 128 * 127 // 2)]:
            iu = np.triu_indices(n, 2)  # pairs that are not ring neighbours
            keep = ~((iu[0] == 0) & (iu[1] == n - 1))
            rows_, cols = iu[0][keep], iu[1][keep]
            pick = rng.choice(len(rows_), pairs - n, replace=False)
            m = np.zeros((n, n), dtype=np.int64)
            m[rows_[pick], cols[pick]] = rng.integers(1, 4, pairs - n)  # parallel links too
            m[np.arange(n - 1), np.arange(1, n)] = 1  # and a ring: connected
            m[0, n - 1] = 1
            m = m + m.T
            assert int(np.count_nonzero(np.triu(m))) == pairs and n * (n + pairs) <= MAX_DIAMETER_WORK
            built = []  # the measured call's topology is the one link_matrix reads (one diameter BFS, not two)
            peak, _ = measure(lambda: built.append(ccb.topology_from_links(m, bisection_links=64)))
            rows.append((f"topology_from_links n={{n}} pairs={{pairs}}", peak, None, _from_links_memory(n, pairs), "memory"))
            t = built.pop()
            t.graph
            peak, _ = measure(lambda: ccb.link_matrix(t))
            rows.append((f"link_matrix n={{n}}", peak, None, _link_matrix_memory(n), "memory"))
        print(json.dumps(dict(rows=rows, at_real_cap=at_real_cap, budget=MAX_GRAPH_BYTES)))
    """)
    assert result["at_real_cap"] <= result["budget"], result
    for name, peak, hwm, estimate, refused in result["rows"]:
        assert peak <= estimate <= result["budget"], (name, peak, estimate)
        if hwm is not None:
            assert hwm <= estimate + RSS_SLACK, (name, hwm, estimate)
        assert "vertices + edges" in refused or refused == "memory", (name, refused)


# --------------------------------------------------------------------------- the two-step LP's cap


@pytest.mark.slow  # about 5 CPU-seconds each: an LP near MAX_LP_VARIABLES solved twice, once under tracemalloc
@pytest.mark.parametrize(
    "make, primitive",
    [
        ("ccb.fully_connected(9)", "all_gather"),  # 188,928 estimated variables, the largest accepted
        ("star_of_stars(8, 55)", "broadcast"),  # 147,712; the most nonzeros per estimated variable
    ],
)
def test_two_step_lp_peak_within_its_estimate_near_the_variable_cap(make, primitive):
    # GLOP's model lives outside Python's allocator: the resident set is what the estimate bounds,
    # measured first in a fresh process (no freed arenas to reuse) and without tracemalloc (its own
    # records would double the Python part); tracemalloc's peak separately.
    result = _run(f"""
        from ortools.linear_solver import pywraplp  # loaded before measuring: once per process
        from ccb_helpers import synthesis_lp as lp
        from ccb_helpers.user_topology import _link_matrix

        def resident(call):
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before = rss("VmRSS")
            call()
            return rss("VmHWM") - before

        def star_of_stars(d, others):  # root -> d hubs -> every other node: many holders per target
            n = 1 + d + others
            m = np.zeros((n, n), dtype=np.int64)
            m[0, 1 : d + 1] = 1
            m[1 : d + 1, d + 1 :] = 1
            return ccb.topology_from_links(m + m.T, bisection_links=1)

        topology, primitive = {make}, {primitive!r}
        topology.graph
        links = _link_matrix(topology).tolist()
        sources = list(range(topology.n)) if primitive == "all_gather" else [0]
        counted = lp._lp_size(links, sources)
        estimate = lp._lp_memory(counted[0], counted[2])
        hwm = resident(lambda: lp.two_step_rounds_per_chunk(topology, primitive))
        peak, _ = measure(lambda: lp.two_step_rounds_per_chunk(topology, primitive))
        built_rows, built_columns = lp._build(links, sources)
        built = (len(built_rows), len(built_columns), sum(len(c) for _, c in built_columns))
        del built_rows, built_columns
        budget = lp.MAX_LP_BYTES
        lp.MAX_LP_BYTES = estimate - 1  # the memory budget, checked before anything is built
        try:
            lp.two_step_rounds_per_chunk(topology, primitive)
            refused = ""
        except ValueError as err:
            refused = str(err)
        lp.MAX_LP_BYTES = budget
        try:  # one node more: over the variable cap
            lp.two_step_rounds_per_chunk(ccb.fully_connected(10))
            over = ""
        except ValueError as err:
            over = str(err)
        print(json.dumps(dict(
            variables=lp._estimate_variables(links, sources), counted=counted, built=built, estimate=estimate,
            hwm=hwm, peak=peak, refused=refused, over=over, cap=lp.MAX_LP_VARIABLES, budget=budget,
        )))
    """)
    cap, budget = result["cap"], result["budget"]
    assert 0.7 * cap <= result["variables"] <= cap, result  # near the cap
    assert result["counted"] == result["built"], result  # the size is counted exactly before building
    assert result["peak"] <= result["estimate"] <= budget, result
    assert result["hwm"] <= result["estimate"], result
    assert "memory" in result["refused"] and "topology=" in result["refused"], result
    assert "variables" in result["over"], result
    # The estimate at the variable cap, whatever the topology (n <= 64: at most 64 * 63 arcs): at
    # most three nonzeros and one row per estimated variable, besides the arcs' rows and the two
    # rho columns. 1024 and 512 bytes (the module's constants) and its 8 MiB are written out here.
    arcs = 64 * 63
    worst = 1024 * (3 * cap + 4 * arcs) + 512 * (cap + 2 * arcs + 64) + 8 * 2**20
    assert worst <= budget


# --------------------------------------------------------------------------- user graphs and smi text


@pytest.mark.slow  # about 4 CPU-seconds: four graphs near their caps and four smi texts, twice each
def test_topology_from_graph_and_smi_parsers_peak_within_their_estimates():
    result = _run("""
        import math
        import networkx as nx
        import ccb_helpers.user_topology as ut

        def resident(call):
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before = rss("VmRSS")
            try:
                call()
            except ValueError:
                pass
            return rss("VmHWM") - before

        def both(call):
            hwm = resident(call)
            def traced():
                try:
                    call()
                except ValueError:
                    pass
            peak, _ = measure(traced)
            return peak, hwm

        rows = []
        rng = np.random.default_rng(3)
        # topology_from_graph: many endpoints, sparse (half the endpoint cap: the diameter's BFS at
        # the cap takes seconds; memory is per vertex and pair all the same, and topology_from_links
        # is measured at the cap above); a dense MultiGraph of 20 endpoints whose bisection is
        # measured (C(19, 9) splits); a switched graph of 12 endpoints (max-flow over every split);
        # 256 endpoints under 64 switches.
        n = ut.MAX_ENDPOINTS // 2
        sparse = nx.cycle_graph(n)
        while sparse.number_of_edges() < 2 * n:
            u, v = map(int, rng.integers(0, n, 2))
            if u != v:
                sparse.add_edge(u, v)
        dense = nx.MultiGraph()
        for u in range(20):
            for v in range(u + 1, 20):
                dense.add_edges_from([(u, v)] * int(rng.integers(1, 4)))
        switched = nx.Graph()
        for s in range(4):
            switched.add_node(("s", s), kind="switch")
            switched.add_edges_from(((v, ("s", s)) for v in range(12)), links=2)
        fabric = nx.Graph()
        for s in range(64):
            fabric.add_node(("s", s), kind="switch")
            fabric.add_edges_from((v, ("s", s)) for v in range(s * 4, s * 4 + 4))
            fabric.add_edge(("s", s), ("s", (s + 1) % 64))
        for label, graph, bisection in [
            ("sparse 512", sparse, 64), ("dense multigraph 20", dense, None), ("switched 12", switched, None),
            ("fabric 256", fabric, 4),
        ]:
            vertices = graph.number_of_nodes()
            pairs = nx.Graph(graph).number_of_edges()
            ends = sum(1 for _, k in graph.nodes(data="kind") if k != "switch")
            estimate = ut._from_graph_memory(vertices, pairs)
            if bisection is None:
                estimate += ut._bisection_memory(ends, ends < vertices, vertices, pairs)
            peak, hwm = both(lambda: ccb.topology_from_graph(graph, bisection_links=bisection))
            budget = ut.MAX_GRAPH_BYTES
            ut.MAX_GRAPH_BYTES = estimate - 1
            try:
                ccb.topology_from_graph(graph, bisection_links=bisection)
                refused = ""
            except ValueError as err:
                refused = str(err)
            ut.MAX_GRAPH_BYTES = budget
            rows.append(("topology_from_graph " + label, peak, hwm, estimate, refused))
        cap = ut.MAX_GRAPH_INPUT_EDGES
        ut.MAX_GRAPH_INPUT_EDGES = dense.number_of_edges() - 1
        try:
            ccb.topology_from_graph(dense)
            over = ""
        except ValueError as err:
            over = str(err)
        ut.MAX_GRAPH_INPUT_EDGES = cap

        # The smi parsers on a quarter of their text cap (memory is per character and per pair, and
        # the estimate at the cap is checked below; the full 10**6 characters took 4x the time):
        # the most cells per character (every pair at PIX: the levels and their graphs), NVLinks
        # between every pair read as direct links, rocm-smi's three matrices, lines with no header.
        def nvidia(n, cell):
            head = "      " + " ".join(f"GPU{j}" for j in range(n))
            return "\\n".join([head] + [f"GPU{i} " + " ".join("X" if i == j else cell for j in range(n)) for i in range(n)])

        def rocm(n, blocks):
            head = "       " + " ".join(f"GPU{j}" for j in range(n))
            out = []
            for title, cell in blocks:
                out += [f"=== {title} between two GPUs ===", head]
                out += [f"GPU{i} " + " ".join("0" if i == j else cell for j in range(n)) for i in range(n)]
            return "\\n".join(out)

        texts = [
            ("nvidia PIX 220", ccb.parse_nvidia_smi_topo, nvidia(220, "PIX"), 220, {}),
            ("nvidia NV1 120 direct", ccb.parse_nvidia_smi_topo, nvidia(120, "NV1"), 120, dict(nvswitch=False, name="x")),
            ("rocm PCIE 120", ccb.parse_rocm_smi_topo, rocm(120, [("Weight", "40"), ("Hops", "2"), ("Link Type", "PCIE")]), None, {}),
            ("no header", ccb.parse_nvidia_smi_topo, "a b\\n" * 62_499, None, {}),
        ]
        for label, parse, text, n, kw in texts:
            assert len(text) <= 10**6
            if label == "no header":  # refused before the GPUs are known: the text's part alone
                estimate = ut._PARSE_BYTES_PER_CHAR * len(text)
            else:
                gpus = n if n is not None else min(ut.MAX_ENDPOINTS, math.isqrt(len(text) // 2) + 1)
                estimate = ut._parse_memory(len(text), gpus)
            peak, hwm = both(lambda: parse(text, **kw))
            refused = "memory"
            if label != "no header":
                budget = ut.MAX_GRAPH_BYTES
                ut.MAX_GRAPH_BYTES = estimate - 1
                try:
                    parse(text, **kw)
                    refused = ""
                except ValueError as err:
                    refused = str(err)
                ut.MAX_GRAPH_BYTES = budget
            rows.append((label, peak, hwm, estimate, refused))
        # At the caps themselves (10**6 characters, 1024 GPUs): the estimate within the budget.
        at_cap = ut._parse_memory(10**6, ut.MAX_ENDPOINTS)
        print(json.dumps(dict(rows=rows, over=over, at_cap=at_cap, budget=ut.MAX_GRAPH_BYTES)))
    """)
    assert result["at_cap"] <= result["budget"], result
    assert "edges" in result["over"] and "at most" in result["over"], result["over"]
    for name, peak, hwm, estimate, refused in result["rows"]:
        assert peak <= estimate <= result["budget"], (name, peak, estimate)
        assert hwm <= estimate + RSS_SLACK, (name, hwm, estimate)
        assert "memory" in refused, (name, refused)


# --------------------------------------------------------------------------- routing matrices


def test_routing_matrices_peak_within_their_estimates_at_the_caps():
    # ROUTING_MAX_BYTES and ARRAY_MAX_BYTES lowered to 16 MiB (both linear in the entries).
    budget = 16 * MiB
    result = _run(f"""
        import math
        import ccb_helpers._validation as validation
        import ccb_helpers.bandwidth as bandwidth

        bandwidth.ROUTING_MAX_BYTES = validation.ARRAY_MAX_BYTES = {budget}
        rows = []
        n = math.isqrt({budget} // 8)
        while bandwidth._routing_memory(n) > {budget}:
            n -= 1  # the largest accepted matrix
        for name, make in [("uniform_routing", lambda n: ccb.uniform_routing(n, 1e6)),
                           ("hot_expert_routing", lambda n: ccb.hot_expert_routing(n, 1e6, hot=1))]:
            peak, hwm = measure(lambda: make(n))
            try:
                make(n + 1)
                refused = ""
            except ValueError as err:
                refused = str(err)
            rows.append((name, n, peak, hwm, bandwidth._routing_memory(n), refused))
        # The functions that take a matrix: the largest accepted, as an int32 array, a float64 array
        # and a list (converted first).
        per = bandwidth._ROUTING_BYTES_PER_ENTRY
        side = math.isqrt(({budget} - 4096) // per)
        rng = np.random.default_rng(5)
        for kind in ("int32", "float64", "list"):
            k = 256 if kind == "list" else side  # a list of lists costs far more than the array: a smaller one
            matrix = rng.integers(0, 1000, (k, k)).astype(np.int32 if kind == "int32" else np.float64)
            if kind == "list":
                matrix = matrix.tolist()
            for name, call in [("routing_volumes", lambda: ccb.routing_volumes(matrix)),
                               ("routing_lower_bound", lambda: ccb.routing_lower_bound(matrix, 1e9))]:
                peak, hwm = measure(call)
                rows.append((name + " " + kind, k, peak, hwm, per * k * k + 4096, "memory"))
        big = np.zeros((side + 64, side + 64))
        try:
            ccb.routing_volumes(big)
            over = ""
        except ValueError as err:
            over = str(err)
        print(json.dumps(dict(rows=rows, over=over)))
    """)
    for name, n, peak, hwm, estimate, refused in result["rows"]:
        assert peak <= estimate <= budget, (name, n, peak, estimate)
        if hwm is not None:
            assert hwm <= estimate + RSS_SLACK, (name, hwm, estimate)
        assert "bytes" in refused or refused == "memory", (name, refused)
    assert "matrix" in result["over"] and "memory" in result["over"], result["over"]


# --------------------------------------------------------------------------- best_algorithm_bands


@pytest.mark.parametrize("primitive", ["all_reduce", "broadcast"])
def test_best_algorithm_bands_peak_within_its_estimate_at_the_points_cap(primitive):
    result = _run(f"""
        import ccb_helpers.algorithms.best as algorithms
        from ccb_helpers.selection import MAX_BAND_POINTS, _band_memory

        points = MAX_BAND_POINTS
        call = lambda: ccb.best_algorithm_bands({primitive!r}, 64, 5e-6, 25e9, m_min=1, m_max=2**40, points=points)
        peak, hwm = measure(call)
        estimate = _band_memory({primitive!r}, 64, points, 1)
        budget = algorithms.BEST_ALGORITHM_MAX_BYTES
        algorithms.BEST_ALGORITHM_MAX_BYTES = estimate - 1
        try:
            call()
            refused = ""
        except ValueError as err:
            refused = str(err)
        print(json.dumps(dict(peak=peak, hwm=hwm, estimate=estimate, budget=budget, refused=refused)))
    """)
    assert result["peak"] <= result["estimate"] <= result["budget"], result
    if result["hwm"] is not None:
        assert result["hwm"] <= result["estimate"] + RSS_SLACK, result
    assert "memory" in result["refused"] and "points" in result["refused"], result


# --------------------------------------------------------------------------- the nccl-tests reader


@pytest.mark.slow  # about 6 CPU-seconds: four texts of 200 kB read twice (the reader is linear in the text)
def test_nccl_tests_reader_peak_within_its_estimate():
    # At MAX_TEXT_CHARS (20 MB) one read takes a minute under tracemalloc: 200 kB texts of each
    # shape (memory is per character), and the estimate at the cap checked against the budget.
    result = _run("""
        from importlib.resources import files
        import ccb_helpers.nccl_tests.reader as reader

        text = (files("ccb_helpers") / "data" / "nccl_tests" / "a3mega_h100_2node_all_reduce.txt").read_text()
        rows = [line for line in text.splitlines() if line.split() and line.split()[0].isdigit()]
        head = text[: text.index(rows[0])]
        size = 200_000
        cases = dict(
            log=(text + "\\n") * (size // (len(text) + 1)),
            rows=head + "\\n".join(rows * ((size - len(head)) // (len(rows[0]) + 1) // len(rows))),
            empty_lines="\\n" * size,
            short_lines="a\\n" * (size // 2),
        )
        out = []
        for name, t in cases.items():
            estimate = reader._READ_BYTES_PER_CHAR * len(t) + reader._READ_FIXED_BYTES

            def call():
                try:
                    ccb.read_nccl_tests_runs(t)
                except ValueError:
                    pass

            peak, hwm = measure(call)
            budget = reader.READ_MAX_BYTES
            reader.READ_MAX_BYTES = estimate - 1
            try:
                ccb.read_nccl_tests_runs(t)
                refused = ""
            except ValueError as err:
                refused = str(err)
            reader.READ_MAX_BYTES = budget
            out.append((name, len(t), peak, hwm, estimate, refused))
        at_cap = reader._READ_BYTES_PER_CHAR * reader.MAX_TEXT_CHARS + reader._READ_FIXED_BYTES
        print(json.dumps(dict(rows=out, at_cap=at_cap, budget=reader.READ_MAX_BYTES)))
    """)
    assert result["at_cap"] <= result["budget"], result
    for name, chars, peak, hwm, estimate, refused in result["rows"]:
        assert chars >= 150_000, (name, chars)
        assert peak <= estimate <= result["budget"], (name, peak, estimate)
        if hwm is not None:
            assert hwm <= estimate + RSS_SLACK, (name, hwm, estimate)
        assert refused.startswith("text:") and "memory" in refused, (name, refused)


# --------------------------------------------------------------------------- the count caps


@pytest.mark.slow  # about 4 CPU-seconds: fifteen calls, each run twice (once under tracemalloc)
def test_count_caps_peak_within_their_estimates():
    # One interpreter for every count cap (they share nothing): each call is measured in turn
    # (tracemalloc reset, VmHWM reset), at its cap where that is cheap, else below it where the
    # estimate is per unit of the count (the search budgets lowered); the estimate at the real
    # cap is checked against the budget, and a budget one byte below the estimate refuses the
    # call before any work, naming the parameter.
    result = _run("""
        import ccb_helpers._validation as validation
        import ccb_helpers.broadcast as broadcast
        import ccb_helpers.gossip as gossip
        import ccb_helpers.synthesis_figures  # its imports (matplotlib, widgets) are not the table's
        from ccb_helpers import bisection, generators, schedule
        from ccb_helpers.grading import values
        from ccb_helpers.live import compress
        from ccb_helpers.mpi import fit, results
        from ccb_helpers.plotting import topology as drawing
        from ccb_helpers.generators import _check_generate
        import matplotlib.pyplot as plt

        import time

        budget = validation.COUNT_CAP_MAX_BYTES
        rows, times_taken = [], []

        def case(name, call, estimate, at_cap, param, fails=False):
            def quiet():
                try:
                    call()
                except ValueError as err:  # a search that runs out of its (lowered) budget
                    if "the cap" not in str(err) and not fails:
                        raise
            started = time.process_time()
            with open("/proc/self/clear_refs", "w") as f:  # the resident set without tracemalloc,
                f.write("5")  # whose own records take as much as a million small objects
            before = rss("VmRSS")
            quiet()
            hwm = rss("VmHWM") - before
            peak, _ = measure(quiet)
            times_taken.append((name, round(time.process_time() - started, 2)))
            validation.COUNT_CAP_MAX_BYTES = estimate - 1
            try:
                call()
                refused = ""
            except ValueError as err:
                refused = str(err)
            validation.COUNT_CAP_MAX_BYTES = budget
            rows.append((name, peak, hwm, estimate, at_cap, param, refused))

        tree = ccb.fat_tree(1024)
        tree.graph  # the graph has its own cap and estimate; this is the max-flow's
        elements = 1024 + 32 + 32 + 2048  # hosts, leaves, spines; host and leaf-spine edges
        assert bisection._graph_elements(tree) == elements
        case("cut_links fat_tree(1024)", lambda: ccb.cut_links(tree, set(range(512))),
             bisection._FLOW_BYTES_PER_ELEMENT * elements + bisection._FLOW_FIXED_BYTES,
             bisection._FLOW_BYTES_PER_ELEMENT * bisection.MAX_FLOW_ELEMENTS + bisection._FLOW_FIXED_BYTES, "topology")

        cap = broadcast.SEARCH_MAX_STEPS
        at_cap = broadcast._search_memory()
        broadcast.SEARCH_MAX_STEPS = 2**14  # runs out on a complete graph of 20 with k = 3
        case("broadcast search, 2**14 steps", lambda: ccb.search_broadcast_steps(ccb.fully_connected(20), 3),
             broadcast._search_memory(), at_cap, "topology")
        broadcast.SEARCH_MAX_STEPS = cap

        cap = gossip.SEARCH_MAX_STATES
        at_cap = gossip._search_memory()
        gossip.SEARCH_MAX_STATES = 3000
        case("gossip search, 3000 states", lambda: ccb.gossip_rounds(ccb.torus(3, 3), method="search"),
             gossip._search_memory(), at_cap, "topology")
        gossip.SEARCH_MAX_STATES = cap

        sf = ccb_helpers.synthesis_figures
        case("synthesis_bounds_table", lambda: ccb.synthesis_bounds_table([ccb.ring(16)], ["all_to_all"]),
             sf._TABLE_FIXED_BYTES + sf._TABLE_BYTES_PER_ROW,
             sf._TABLE_FIXED_BYTES + sf._TABLE_BYTES_PER_ROW * 16 * 8, "topologies")  # 16 topologies x 8 primitives

        parts = 2**20
        case("block_bounds 2**20 parts", lambda: schedule.block_bounds(2**62 - 1, 4, parts),
             schedule._block_bounds_memory(parts), schedule._block_bounds_memory(schedule.MAX_PARTS), "parts")

        *_, rounds, transfers = _check_generate("ring", "all_reduce", 256, 2**16, 1, 0, None, True)
        case("generate ring all_reduce 256", lambda: ccb.generate("ring", "all_reduce", 256, 2**16),
             generators._generate_memory(rounds, transfers),
             generators._generate_memory(generators.MAX_ROUNDS, generators.MAX_TRANSFERS), "n")

        states = 5_000
        axes = [("x", list(range(states // 10))), ("y", list(range(10)))]
        case("tabulate 5,000 states", lambda: compress.tabulate(axes, lambda s: (f"x = {s['x'] % 7}", {"y": [s['y']]})),
             compress._tabulate_memory(states), compress._tabulate_memory(compress.MAX_STATES), "axes")

        complete = ccb.fully_connected(64)
        complete.graph
        drawn = 64 + 64 * 63 // 2

        def draw():
            ccb.draw_topology(complete)
            plt.close("all")
        case("draw_topology fully_connected(64)", draw, drawing._draw_memory(drawn),
             drawing._draw_memory(drawing.MAX_DRAWN_ELEMENTS), "topology")

        points = fit.MAX_FIT_POINTS // 5  # lists converted, the least-squares matrix: per point
        sizes = np.linspace(1, 1e9, points).tolist()
        times = [1e-6 + s / 1e10 for s in sizes]
        case("fit_alpha_beta 200,000 points (lists)", lambda: ccb.mpi.fit_alpha_beta(sizes, times),
             fit._fit_memory(points), fit._fit_memory(fit.MAX_FIT_POINTS), "sizes")

        import tempfile

        path = os.path.join(tempfile.mkdtemp(), "nested.json")
        with open(path, "w") as f:  # the most objects per character found: lists 50 deep
            f.write('{"command": "run", "x": [' + ("[" * 50 + "]" * 50 + ",") * 5_000 + "0]}")
        size = os.path.getsize(path)
        case("load_mpi_result, 0.5 MB of nested lists", lambda: ccb.mpi.load_mpi_result(path),
             validation.json_memory(size), validation.json_memory(results.MAX_RESULT_BYTES), "source",
             fails=True)  # parsed, then refused: the fields of a run are missing

        items = list(range(1000, 1000 + values.MAX_ITEMS // 5))  # coercing each item is Python work
        case("grading as_list, 200,000 items", lambda: values.as_list(items),
             values._items_memory(len(items)), values._items_memory(values.MAX_ITEMS), "value")
        import ccb_helpers.diameter as diameter
        import ccb_helpers.nccl_tests.ceilings as ceilings

        for name, call, n in [
            ("knomial_tree 2**16", lambda: generators.knomial_tree(2**16), 2**16),
            ("nccl_double_binary_tree 2**16", lambda: generators.nccl_double_binary_tree(2**16), 2**16),
        ]:
            case(name, call, generators._tree_memory(n), generators._tree_memory(generators.MAX_TREE_NODES), "n")
        per = diameter._BYTES_PER_RING_SIZE
        case("diameter_binding_sizes 2**15", lambda: ccb.diameter_binding_sizes(2**15), per * 2**15 + 2**16,
             per * diameter.MAX_RING_SIZES + 2**16, "n_max")
        sizes = list(range(1, 10**5 + 1))  # a list: converted, then four float64 arrays
        per = ceilings._BYTES_PER_SIZE
        case("busbw_ceiling 10**5 sizes", lambda: ccb.nccl_tests.busbw_ceiling("all_to_all", 8, sizes, 1e-6, 1e11),
             per * 10**5 + 2**16, per * ceilings.MAX_SIZES + 2**16, "m")

        from ccb_helpers.grading import isolation
        reply = validation.json_memory(isolation.MAX_MESSAGE)
        print(json.dumps(dict(rows=rows, budget=budget, reply=reply, times=times_taken)))  # times: CPU-s a case
    """)
    budget = result["budget"]
    assert result["reply"] <= budget, result  # the grader's largest reply, parsed
    for name, peak, hwm, estimate, at_cap, param, refused in result["rows"]:
        assert peak <= estimate <= at_cap <= budget, (name, peak, estimate, at_cap)
        if hwm is not None:
            assert hwm <= estimate + RSS_SLACK, (name, hwm, estimate)
        assert refused.startswith(param + ":") and "memory" in refused, (name, refused)
