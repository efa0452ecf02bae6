"""ccb_helpers.grading: the checks the problem sets' hidden tests are built from.

Notebook cells are emulated the way IPython runs them: each cell's source is compiled under its
own file name, registered in :mod:`linecache`, and executed in one shared ``__main__`` namespace.
"""

from __future__ import annotations

import builtins
import itertools
import linecache

import numpy as np
import pytest

import ccb_helpers as ccb
from ccb_helpers import grading

_counter = itertools.count()


def run_cells(*sources: str) -> dict:
    """Execute ``sources`` as consecutive notebook cells; return the namespace."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec("import ccb_helpers as ccb\nfrom ccb_helpers import grading", namespace)
    for source in sources:
        filename = f"/tmp/ipykernel_0/cell_{next(_counter)}.py"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)
    return namespace


OWN = """
def steps(n, k=1):
    t, reach = 0, 1
    while reach < n:
        reach *= k + 1
        t += 1
    return t
"""

# Every way of reaching ccb.info_steps (or another library function) that a submission tried.
CHEATS = {
    "direct call": ["def steps(n, k=1):\n    return ccb.info_steps(n, k)\n"],
    "from-import alias": ["from ccb_helpers import info_steps as s\ndef steps(n, k=1):\n    return s(n, k)\n"],
    "submodule import": ["from ccb_helpers.propagation import info_steps\ndef steps(n, k=1):\n    return info_steps(n, k)\n"],
    "alias in another cell": ["s = ccb.info_steps\n", "def steps(n, k=1):\n    return s(n, k)\n"],
    "default argument": ["g0 = ccb.info_steps\n", "def steps(n, k=1, g=g0):\n    return g(n, k)\n"],
    "closure": ["g0 = ccb.info_steps\n", "def make():\n    g = g0\n    def steps(n, k=1):\n        return g(n, k)\n    return steps\nsteps = make()\n"],
    "partial": ["import functools\np = functools.partial(ccb.info_steps)\n", "def steps(n, k=1):\n    return p(n, k)\n"],
    "helper in another cell": ["def helper(n, k):\n    return ccb.info_steps(n, k)\n", "def steps(n, k=1):\n    return helper(n, k)\n"],
    "method of a class": ["class C:\n    def go(self, n, k):\n        return ccb.latency_steps_lower_bound(n, k)\n", "def steps(n, k=1):\n    return C().go(n, k)\n"],
    "getattr": ["def steps(n, k=1):\n    return getattr(ccb, 'info_' + 'steps')(n, k)\n"],
    "vars": ["def steps(n, k=1):\n    return vars(ccb)['info_steps'](n, k)\n"],
    "__dict__": ["def steps(n, k=1):\n    return ccb.__dict__['info_steps'](n, k)\n"],
    "eval": ["def steps(n, k=1):\n    return eval('ccb.info_steps')(n, k)\n"],
    "importlib": ["import importlib\ndef steps(n, k=1):\n    return importlib.import_module('ccb_helpers').info_steps(n, k)\n"],
    "operator.attrgetter": ["import operator\ndef steps(n, k=1):\n    return operator.attrgetter('info_steps')(ccb)(n, k)\n"],
    "private helper": ["from ccb_helpers._intmath import ceil_log_int\ndef steps(n, k=1):\n    return ceil_log_int(n, k + 1)\n"],
    "lambda": ["steps = lambda n, k=1: ccb.info_steps(n, k)\n"],
    "the library function itself": ["steps = ccb.info_steps\n"],
    "frame walking": ["import sys\ndef steps(n, k=1):\n    return sys._getframe(1).f_locals['want']\n"],
    "reading the gradebook": ["def steps(n, k=1):\n    return len(open('gradebook.db').read())\n"],
    "a name defined by the tests": ["def steps(n, k=1):\n    return _reference(n, k)\n"],
    "precomputed by the library": ["T = ccb.torus(4, 4)\n", "def steps(n, k=1):\n    return T.n\n"],
    "exec-defined": ["exec('def steps(n, k=1):\\n    return 3')\n"],
}


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_require_own_code_rejects_every_shortcut(how):
    namespace = run_cells(*CHEATS[how])
    with pytest.raises(grading.GradingError, match="不能算作自己的实现|这是库的实现|应是一个"):
        grading.require_own_code(namespace["steps"])


def test_require_own_code_accepts_own_work():
    namespace = run_cells(
        "import math\nimport numpy as np\nfrom itertools import count\n",
        "def helper(x):\n    return math.ceil(x)\n",
        "ring = 3  # a variable named like a library function is fine\n" + OWN
        + "\ndef twice(n):\n    return helper(np.float64(steps(n))) * 2 + ring * 0\n"
        # what IPython makes of a `%time steps(8)` line in the same cell
        + "\ndef timed():\n    get_ipython().run_line_magic('time', 'steps(8)')\n",
    )
    grading.require_own_code(namespace["steps"])
    grading.require_own_code(namespace["twice"])


def test_require_own_code_allows_listed_library_names_only():
    source = "def build(n):\n    T = ccb.Transfer\n    return ccb.Schedule.from_transfers('all_gather', n, n, [[T(0, 1, 0, 1)]])\n"
    namespace = run_cells(source)
    grading.require_own_code(namespace["build"], allow={"Transfer", "Schedule"})
    with pytest.raises(grading.GradingError, match="ccb.Transfer"):
        grading.require_own_code(namespace["build"], allow={"Schedule"})
    namespace = run_cells("def build(n):\n    return ccb.generate('ring', 'all_gather', n, n)\n")
    with pytest.raises(grading.GradingError, match="ccb.generate"):
        grading.require_own_code(namespace["build"], allow={"Transfer", "Schedule"})


def test_require_own_code_forbids_named_attributes():
    namespace = run_cells("def diameter_of(dims):\n    return ccb.torus(*dims).diameter\n")
    with pytest.raises(grading.GradingError, match=r"\.diameter"):
        grading.require_own_code(namespace["diameter_of"], allow={"torus"}, forbid={"diameter"})
    namespace = run_cells("import networkx as nx\ndef d(g):\n    return nx.diameter(g)\n")
    with pytest.raises(grading.GradingError, match="networkx"):
        grading.require_own_code(namespace["d"])
    grading.require_own_code(namespace["d"], allow_modules={"networkx"})


class EvilInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def test_coercion_takes_plain_values_and_numpy_only():
    assert grading.as_int(np.int64(12)) == 12 and type(grading.as_int(np.int64(12))) is int
    for bad in (EvilInt(3), True, 3.0, "3", None, np.float64(3.0)):
        with pytest.raises(grading.GradingError, match="应为 int"):
            grading.as_int(bad)
    assert grading.as_float(np.float32(0.5)) == 0.5 and grading.as_float(2) == 2.0
    with pytest.raises(grading.GradingError, match="应为 float"):
        grading.as_float(EvilInt(3))
    assert grading.as_list(np.array([1, 2])) == [1, 2]
    with pytest.raises(grading.GradingError, match=r"\[1\] 应为 int"):
        grading.as_list([1, 2.0])
    assert grading.as_rounds([[(0, 1)], ((1, 2), [0, 3])]) == [[(0, 1)], [(1, 2), (0, 3)]]
    with pytest.raises(grading.GradingError, match="两个元素"):
        grading.as_rounds([[(0, 1, 2)]])
    assert grading.as_set([(0, 1), (1, 0)], item=grading.as_node) == {(0, 1), (1, 0)}


def test_check_equal_compares_after_coercion():
    grading.check_equal(np.int64(3), 3, "steps(8)")
    with pytest.raises(grading.GradingError, match="应为 int"):
        grading.check_equal(EvilInt(4), 3, "steps(8)")  # would "equal" anything without coercion


def test_part_scores_groups_and_never_prints_the_hidden_value(capsys):
    calls = []

    def student(n):
        calls.append("student")
        return 987654320 if n > 100 else n * 2

    def reference(n):
        calls.append("reference")
        return 987654321 if n > 100 else n * 2

    part = grading.Part("demo-part", points=3)
    part.compare("small", student, [(1,), (2,)], reference, points=1, expect="2n")
    part.compare("large", student, [(500,)], reference, points=2, expect="2n, exactly")
    assert part.score() == 1
    out = capsys.readouterr().out
    assert "987654321" not in out and "987654320" in out and "2n, exactly" in out
    # The reference runs only after the student's function returned, case by case.
    assert calls == ["student", "reference"] * 3


def test_part_catches_exceptions_type_errors_and_runaways(capsys):
    def crashes(n):
        raise ZeroDivisionError("boom")

    def loops(n):
        while True:
            pass

    part = grading.Part("demo-errors", points=3, budget=0.5)
    part.compare("crash", crashes, [(1,)], lambda n: 1, points=1, expect="1")
    part.compare("type", lambda n: 1.0, [(1,)], lambda n: 1, points=1, expect="1", name="f")
    part.compare("loop", loops, [(1,)], lambda n: 1, points=1, expect="1")
    assert part.score() == 0
    out = capsys.readouterr().out
    assert "ZeroDivisionError: boom" in out and "应为 int" in out and "超过时间预算 0.5 s" in out


def test_part_rejected_scores_zero(capsys):
    namespace = run_cells("def steps(n, k=1):\n    return ccb.info_steps(n, k)\n")
    part = grading.Part("demo-rejected", points=2)
    assert not part.require_own_code(namespace["steps"])
    part.compare("all", namespace["steps"], [(8,)], lambda n: 3, points=2, expect="3")
    assert part.score() == 0
    assert "ccb.info_steps" in capsys.readouterr().out


def test_part_points_must_add_up():
    part = grading.Part("demo-sum", points=3)
    part.compare("only", lambda n: n, [(1,)], lambda n: n, points=1, expect="n")
    with pytest.raises(RuntimeError, match="worth 1 points, the part 3"):
        part.score()


def test_seed_changes_with_the_salt(monkeypatch):
    first = grading.seed_for("ps1-x")
    monkeypatch.setenv("CCB_GRADING_SALT", "2027")
    assert grading.seed_for("ps1-x") != first
    assert grading.Part("ps1-x", 1).rng.random() == grading.Part("ps1-x", 1).rng.random()


def test_library_names_cover_the_public_api():
    names = grading.library_names()
    public = {name for name in ccb.__all__ if callable(getattr(ccb, name))}
    assert public - names == set()


def test_tampering_with_the_library_is_found():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("import ccb_helpers as ccb\nfrom ccb_helpers import grading\nanswer = 3", store_history=True)
        assert grading.tampering() == []
        shell.run_cell("grading.Part.score = lambda self: 99", store_history=True)
        shell.run_cell("setattr(ccb, 'info_steps', len)", store_history=True)
        found = grading.tampering()
        assert len(found) == 2 and all("修改了库" in line for line in found)
    finally:
        InteractiveShell.clear_instance()
        grading.Part.score = _ORIGINAL_SCORE
        ccb.info_steps = _ORIGINAL_INFO_STEPS


_ORIGINAL_SCORE = grading.Part.score
_ORIGINAL_INFO_STEPS = ccb.info_steps
