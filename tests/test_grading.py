"""ccb_helpers.grading: the checks the problem sets' hidden tests are built from.

Notebook cells are emulated the way IPython runs them: each cell's source is compiled under its
own file name, registered in :mod:`linecache`, and executed in one shared ``__main__`` namespace.
"""

from __future__ import annotations

import builtins
import fractions
import itertools
import linecache
import os
import pathlib
import signal
import subprocess
import sys
import time

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
    "submodule import": [
        "from ccb_helpers.propagation import info_steps\ndef steps(n, k=1):\n    return info_steps(n, k)\n"
    ],
    "alias in another cell": ["s = ccb.info_steps\n", "def steps(n, k=1):\n    return s(n, k)\n"],
    "default argument": ["g0 = ccb.info_steps\n", "def steps(n, k=1, g=g0):\n    return g(n, k)\n"],
    "closure": [
        "g0 = ccb.info_steps\n",
        "def make():\n    g = g0\n    def steps(n, k=1):\n        return g(n, k)\n    return steps\nsteps = make()\n",
    ],
    "partial": [
        "import functools\np = functools.partial(ccb.info_steps)\n",
        "def steps(n, k=1):\n    return p(n, k)\n",
    ],
    "helper in another cell": [
        "def helper(n, k):\n    return ccb.info_steps(n, k)\n",
        "def steps(n, k=1):\n    return helper(n, k)\n",
    ],
    "method of a class": [
        "class C:\n    def go(self, n, k):\n        return ccb.latency_steps_lower_bound(n, k)\n",
        "def steps(n, k=1):\n    return C().go(n, k)\n",
    ],
    "getattr": ["def steps(n, k=1):\n    return getattr(ccb, 'info_' + 'steps')(n, k)\n"],
    "vars": ["def steps(n, k=1):\n    return vars(ccb)['info_steps'](n, k)\n"],
    "__dict__": ["def steps(n, k=1):\n    return ccb.__dict__['info_steps'](n, k)\n"],
    "eval": ["def steps(n, k=1):\n    return eval('ccb.info_steps')(n, k)\n"],
    "importlib": [
        "import importlib\ndef steps(n, k=1):\n    return importlib.import_module('ccb_helpers').info_steps(n, k)\n"
    ],
    "operator.attrgetter": [
        "import operator\ndef steps(n, k=1):\n    return operator.attrgetter('info_steps')(ccb)(n, k)\n"
    ],
    "private helper": [
        "from ccb_helpers._intmath import ceil_log_int\ndef steps(n, k=1):\n    return ceil_log_int(n, k + 1)\n"
    ],
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
        "ring = 3  # a variable named like a library function is fine\n"
        + OWN
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


class SameAsAnything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def _fake_numpy_str():
    """A class that claims to be numpy's string type, whose str() equals everything (issue #28)."""

    class SameStr(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    fake = type(
        "str_",
        (),
        {
            "__module__": "numpy",
            "__str__": lambda self: SameStr("x"),
            "__eq__": lambda self, other: True,
            "__hash__": lambda self: 0,
        },
    )
    return fake()


def _always_equal_fraction():
    """A genuine Fraction whose numerator and denominator compare equal to anything (issue #28)."""
    value = fractions.Fraction(1, 3)
    value._numerator, value._denominator = EvilInt(1), EvilInt(3)
    return value


def test_lookalikes_do_not_pass_coercion():
    with pytest.raises(grading.GradingError, match="应为 str"):
        grading.as_str(_fake_numpy_str())
    assert type(grading.as_str(np.str_("ring"))) is str and grading.as_str(np.str_("ring")) == "ring"
    fraction = grading.as_fraction(_always_equal_fraction())
    assert type(fraction) is fractions.Fraction and fraction == fractions.Fraction(1, 3)
    assert fraction != fractions.Fraction(2, 3) and type(fraction.numerator) is int
    for bad in (SameAsAnything(), EvilInt(1), 0.5, "1/3"):
        with pytest.raises(grading.GradingError):
            grading.as_fraction(bad)
    fake_int = type(
        "int64", (), {"__module__": "numpy", "__int__": lambda self: 3, "__eq__": lambda self, other: True}
    )()
    with pytest.raises(grading.GradingError, match="应为 int"):
        grading.as_int(fake_int)


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


def test_part_scores_groups_and_never_prints_hidden_or_returned_values(capsys):
    calls = []

    def student(n):
        calls.append("student")
        return 987654320 if n > 100 else n * 2

    def reference(n):
        calls.append("reference")
        return 987654321 if n > 100 else n * 2

    part = grading.Part("demo-part", points=3)
    part.compare("small", student, [(1,), (2,)], reference, points=1, expect="2n")
    part.compare("large", student, [(123457,)], reference, points=2, expect="2n, exactly")
    assert part.score() == 1
    out = capsys.readouterr().out
    # Neither the hidden input, nor the expected value, nor what the function returned for it:
    # the function could copy its input into its result.
    assert "123457" not in out and "98765432" not in out and "2n, exactly" in out
    # The reference runs only after the student's function returned, case by case.
    assert calls == ["student", "reference"] * 3


def test_a_failed_visible_group_costs_its_own_points_only(capsys):
    """Partial credit from the hidden groups; the public visible cases count only with a hidden pass."""

    def weak(n):
        return n + 1 if n < 100 else n  # right on small inputs only

    part = grading.Part("demo-visible", points=4)
    part.visible([((500,), 501)], weak, points=1, name="f")
    part.compare("small", weak, [(1,), (5,)], lambda n: n + 1, points=2, expect="n + 1")
    part.compare("large", weak, [(1000,)], lambda n: n + 1, points=1, expect="n + 1")
    assert part.score() == 2  # the visible check failed, two hidden points still count
    assert "f(500) 应为 501，得到 500" in capsys.readouterr().out  # the visible case is public

    lookup = {(3,): 4}.get
    part = grading.Part("demo-lookup", points=3)
    part.visible([((3,), 4)], lambda n: lookup((n,), 0), points=1, name="f")
    part.compare("hidden", lambda n: lookup((n,), 0), [(7,)], lambda n: n + 1, points=2, expect="n + 1")
    assert part.score() == 0  # a lookup table of the visible cases earns nothing
    assert "不计分" in capsys.readouterr().out


def test_part_catches_exceptions_type_errors_and_runaways(capsys):
    def crashes(n):
        raise ZeroDivisionError(f"boom {n}")

    def loops(n):
        while True:
            pass

    part = grading.Part("demo-errors", points=3, budget=0.5)
    part.compare("crash", crashes, [(424242,)], lambda n: 1, points=1, expect="1")
    part.compare("type", lambda n: 1.0, [(1,)], lambda n: 1, points=1, expect="1", name="f")
    part.compare("loop", loops, [(1,)], lambda n: 1, points=1, expect="1")
    assert part.score() == 0
    out = capsys.readouterr().out
    assert "crashes(…) 抛出了 异常" in out and "f(…) 的返回值 应为 int\n" in out and "超过时间预算 0.5 s" in out
    # The function chooses the exception, its message and the type it returns: a hidden group
    # shows none of them (each could spell a hidden input, #40).
    assert "424242" not in out and "ZeroDivisionError" not in out and "float" not in out
    # The visible cases are public: there the student sees what happened.
    part = grading.Part("demo-visible", points=2)
    part.visible([((1,), 1)], crashes, points=1)
    part.visible([((1,), 1)], lambda n: 1.0, points=1, name="f", label="types")
    part.score()
    out = capsys.readouterr().out
    assert "抛出了 ZeroDivisionError: boom 1" in out and "应为 int，得到 float" in out


def test_a_hidden_groups_report_names_no_position_the_function_chose(capsys):
    """#40: "hetero_plan(…)[4417] 应为 list" decoded to the first hidden case. A hidden group says what
    kind of value was expected, never where in the returned value the wrong item was."""

    def positions(n):
        return [[(0, 1)]] * n + ["bad"]

    part = grading.Part("demo-positions", points=2)
    part.check("hidden", lambda: grading.as_rounds(positions(4417), what="plan(…)"), points=1)
    part.check("visible", lambda: grading.as_rounds(positions(3), what="plan(3)"), points=1, visible=True)
    part.score()
    out = capsys.readouterr().out
    assert "4417" not in out and "plan(…) 的某一项 应为" in out, out
    assert "plan(3)[3] 应为 list / tuple / set / frozenset，得到 str" in out, out  # the public case keeps its detail


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
    public = {name for name in ccb.__all__ if callable(getattr(ccb, name))}  # loads every lazy module first
    names = grading.library_names()
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


# --------------------------------------------------------------------------------------------
# Isolated grading (ccb_helpers.grading.isolation): the student process and its sandbox
# --------------------------------------------------------------------------------------------

from ccb_helpers.grading import isolation, process  # noqa: E402
from ccb_helpers.grading.parts import StudentRaised  # noqa: E402

needs_landlock = pytest.mark.skipif(isolation.sandbox_abi() < 1, reason="the kernel has no Landlock")


@pytest.fixture(autouse=True, scope="module")
def _reaped_fork_server():
    """The student processes' CPU time lands in this module's: its fork server ends with it."""
    yield
    isolation.shutdown()


_PROBE = """
import os, sys
def probe(mark):
    seen = getattr(sys, "ccb_mark", None)
    sys.ccb_mark = mark
    fds = []
    for fd in range(256):
        try:
            os.fstat(fd)
        except OSError:
            continue
        fds.append(fd)
    return [seen, len(fds), os.getpid(), os.getpgid(0) == os.getpid(), sorted(sys.modules)]
"""


def test_a_forked_student_process_is_a_fresh_one_and_is_reaped(monkeypatch):
    """The fork server's students: nothing of another student's, the same open files, modules and
    process group as a student process started afresh (``python -I child.py``), and gone (reaped,
    not a zombie) when the grader kills it; a fork server that died is replaced."""

    def probe(session, mark):
        session.run_cell(_PROBE, "<probe>")
        return session.call("probe", (mark,), {})

    sessions = [isolation.Session(require_sandbox=False) for _ in range(3)]
    try:
        forked = [probe(session, mark) for session, mark in zip(sessions, "abc")]
        assert [f[0] for f in forked] == [None, None, None]  # no student sees another's state
        with monkeypatch.context() as patch:
            patch.setattr(process, "_fork_student", lambda *fds: None)  # started afresh
            fresh_session = isolation.Session(require_sandbox=False)
            try:
                fresh = probe(fresh_session, "d")
            finally:
                fresh_session.close()
        assert fresh[0] is None and fresh[3] is True
        for row in forked:
            assert row[1] == fresh[1] and row[3] is True, (row, fresh)  # open files, own process group
            assert row[4] == fresh[4] and "numpy" in row[4], set(row[4]) ^ set(fresh[4])  # the same modules
        pids = [row[2] for row in forked]
        assert process._SERVER is not None and process._SERVER.process.pid not in pids
    finally:
        for session in sessions:
            session.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):  # a zombie would still answer signal 0
            os.kill(pid, 0)
    process._SERVER.process.kill()  # a fork server that dies is replaced
    again = isolation.Session(require_sandbox=False)
    try:
        assert probe(again, "e")[0] is None
    finally:
        again.close()


def _call(session, name, *args):
    try:
        return ("value", session.call(name, args, {}))
    except StudentRaised as error:
        return ("raised", error.ename)


def test_a_name_error_states_the_added_cell_rule_without_claiming_the_student_added_one():
    """A NameError in a hidden group names the rule (added cells are not run), not a cell the student may
    never have added: a student whose answer cell defined nothing was told "你自己新加的单元格里的定义不存在" (#29)."""

    class Proxy:
        _ccb_student_proxy = True
        __name__ = "replica_rounds"

        def __call__(self, *args, **kwargs):
            raise StudentRaised("NameError", "name 'replica_rounds' is not defined")

    with pytest.raises(grading.Wrong) as info:
        grading.call_student(Proxy(), 8, 1, 1)
    message = str(info.value)
    assert "NameError" in message and "评分只运行答题单元格" in message
    assert "写在你自己新加的单元格里的定义，评分时不存在" in message, message


@needs_landlock
def test_the_student_process_cannot_read_the_course_or_reach_out(tmp_path):
    """A student cell tries every way out: the course folder, the gradebook, another student, the network."""
    import socket
    import sqlite3

    course = tmp_path / "course"
    (course / "source" / "ps1").mkdir(parents=True)
    (course / "source" / "ps1" / "ps1.ipynb").write_text('{"secret": "SOLUTION"}')
    (course / "submitted" / "other" / "ps1").mkdir(parents=True)
    (course / "submitted" / "other" / "ps1" / "ps1.ipynb").write_text('{"secret": "ANSWERS"}')
    sqlite3.connect(course / "gradebook.db").execute("create table grade (score)").connection.commit()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    session = isolation.Session()
    try:
        session.run_cell(
            f"""
import os, sqlite3, socket, subprocess
COURSE = {str(course)!r}
def read(path):
    with open(path) as handle:
        return handle.read()
def listing(path):
    return sorted(os.listdir(path))
def gradebook():
    return sqlite3.connect(os.path.join(COURSE, "gradebook.db")).execute("select * from grade").fetchall()
def connect(port):
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    return "connected"
def write(path):
    with open(path, "w") as handle:
        handle.write("x")
    return "written"
def run():
    return subprocess.run(["cat", os.path.join(COURSE, "source", "ps1", "ps1.ipynb")], capture_output=True).stdout
def signal_grader():
    os.kill(os.getppid(), 0)
    return "signalled"
""",
            "<cell>",
        )
        assert session.landlock >= 1
        for name, args in [
            ("read", (str(course / "source" / "ps1" / "ps1.ipynb"),)),
            ("read", (str(course / "submitted" / "other" / "ps1" / "ps1.ipynb"),)),
            ("read", ("/etc/passwd",)),
            ("read", ("/proc/1/environ",)),
            ("listing", (str(course),)),
            ("gradebook", ()),
            ("connect", (port,)),
            ("write", (str(tmp_path / "out.txt"),)),
            ("run", ()),
            ("signal_grader", ()),
        ]:
            kind, value = _call(session, name, *args)
            assert kind == "raised", (name, args, value)
        assert not (tmp_path / "out.txt").exists()
        assert (
            _call(session, "read", os.path.join(os.path.dirname(os.__file__), "os.py"))[0] == "value"
        )  # the standard library is there
    finally:
        session.close()
        server.close()


_ESCAPE = """
import os, sys, time
RESULTS = {{}}
def attempt(what, fn):
    try:
        RESULTS[what] = ("ok", repr(fn()))
    except BaseException as error:
        RESULTS[what] = ("refused", type(error).__name__)
def switch_off():
    # #40: this one line turned the second layer off; the hook's state is no module's any more.
    main = sys.modules["__main__"]
    main._REFUSED_EVENTS = ("none",)
    for value in list(vars(main).values()):
        if hasattr(value, "REFUSED_EVENTS"):
            value.REFUSED_EVENTS = ("none",)
    return "switched"
def find_hook():
    import gc
    return len(gc.get_objects())
def udp(port):
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.sendto(b"LEAK hidden input", ("127.0.0.1", port))
    return "sent"
def spawn():
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.fork()
            time.sleep(120)
        finally:
            os._exit(0)
    return pid
def escape(port):
    attempt("switch", switch_off)
    attempt("gc", find_hook)
    attempt("udp", lambda: udp(port))
    attempt("fork", spawn)
    attempt("socketpair", lambda: __import__("socket").socketpair())
    return RESULTS
"""


def _udp_listener():
    import socket

    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    return listener


def _datagrams(listener) -> list[bytes]:
    time.sleep(0.2)
    got = []
    while True:
        try:
            got.append(listener.recv(4096))
        except BlockingIOError:
            return got


def _marked_processes(grader_pid: int) -> list[int]:
    """Processes started for the students of ``grader_pid`` (their environment's ``CCB_GRADER``)."""
    mark = f"CCB_GRADER={grader_pid}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if mark in handle.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _escape(layers: dict) -> tuple[dict, list, list]:
    """Run the escape with the given sandbox layers: ``(results, datagrams, processes left)``."""
    listener = _udp_listener()
    saved = dict(process.LAYERS)
    process.LAYERS.update(layers)
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell(_ESCAPE.format(), "<cell>")
        results = session.call("escape", (listener.getsockname()[1],), {})
    finally:
        session.close()
        process.LAYERS.clear()
        process.LAYERS.update(saved)
    got = _datagrams(listener)
    listener.close()
    server = process._SERVER.process.pid if process._SERVER is not None else None
    left = [pid for pid in _marked_processes(os.getpid()) if pid != server]
    return results, got, left


@needs_landlock
def test_the_audit_hook_cannot_be_switched_off_and_the_kernel_closes_datagrams_and_processes():
    """#40: ``sys.modules["__main__"]._REFUSED_EVENTS = ("none",)`` turned the hook off, and then
    ``os.fork``, ``setsid`` and UDP worked (forks outlived autograde; datagrams with hidden inputs
    reached a listener). Now the switch changes nothing, gc cannot find the hook, and each kernel
    layer alone — seccomp, the network namespace — refuses what the hook refuses; a real UDP
    listener counts the datagrams and ``/proc`` the processes left after the notebook."""
    results, got, left = _escape({})
    assert results["switch"] == ("ok", "'switched'")  # the names are the student's to rebind…
    for what in ("gc", "udp", "fork", "socketpair"):
        assert results[what][0] == "refused", (what, results)  # …and nothing changed
    assert got == [] and left == [], (got, left)
    # seccomp alone (no audit hook, no namespace): no socket of any family, no process.
    results, got, left = _escape({"audit_hook": False, "network_namespace": False})
    assert results["udp"] == results["fork"] == results["socketpair"] == ("refused", "PermissionError"), results
    assert got == [] and left == [], (got, left)
    # the network namespace alone: a datagram to 127.0.0.1 reaches nobody.
    results, got, left = _escape({"audit_hook": False, "seccomp": False})
    assert results["udp"] == ("refused", "OSError") and got == [], (results, got)
    # and where neither the hook nor seccomp stops a fork, the processes it starts — one that left
    # the process group with setsid, and its child — are gone when the notebook is.
    assert results["fork"][0] == "ok" and left == [], (results, left)
    # The check is real: with every layer off the datagram arrives.
    results, got, _ = _escape({"audit_hook": False, "seccomp": False, "network_namespace": False})
    assert results["udp"] == ("ok", "'sent'") and got == [b"LEAK hidden input"], (results, got)


_LIMITS = """
import os, resource
def probe(victim, grader):
    out = {}
    for what, call in [
        ("victim", lambda: resource.prlimit(victim, resource.RLIMIT_CPU, (1, 1))),
        ("grader", lambda: resource.prlimit(grader, resource.RLIMIT_NOFILE, (8, 8))),
        ("parent", lambda: resource.prlimit(os.getppid(), resource.RLIMIT_AS, (2**26, 2**26))),
        ("nice", lambda: os.setpriority(os.PRIO_PROCESS, victim, 19)),
        ("user", lambda: os.setpriority(os.PRIO_USER, 0, 19)),
        ("scheduler", lambda: os.sched_setscheduler(victim, os.SCHED_IDLE, os.sched_param(0))),
        ("own", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (60, 60))),
        ("own nice", lambda: os.setpriority(os.PRIO_PROCESS, 0, 1)),
    ]:
        try:
            call()
            out[what] = "ok"
        except BaseException as error:
            out[what] = type(error).__name__
    return out
"""


def _limits_of(pid: int) -> str:
    with open(f"/proc/{pid}/limits", encoding="ascii") as handle:
        return handle.read()


@needs_landlock
def test_the_student_process_cannot_change_another_processs_limits_or_priority():
    """Teacher review of #40: ``resource.prlimit(int(os.environ["CCB_GRADER"]), RLIMIT_CPU, (1, 1))``
    in an answer cell killed the grader with SIGXCPU and autograde graded no one after that
    student; the fork server's limits, inherited by every later student process, were a channel
    from one student's hidden calls to another's output. ``prlimit`` needs only the same uid (Landlock
    has no rule for it): the seccomp filter allows it, and the scheduling calls, on the process
    itself only — checked with the audit hook off, on a real process, the grader and the fork server."""
    victim = subprocess.Popen(["sleep", "60"])
    saved = dict(process.LAYERS)
    try:
        before = {pid: _limits_of(pid) for pid in (victim.pid, os.getpid())}
        for layers in ({}, {"audit_hook": False}):
            process.LAYERS.update(layers)
            session = isolation.Session(require_sandbox=True)
            try:
                session.run_cell(_LIMITS, "<cell>")
                results = session.call("probe", (victim.pid, os.getpid()), {})
                server = process._SERVER.process.pid if process._SERVER is not None else None
            finally:
                session.close()
            for what in ("victim", "grader", "parent", "nice", "user", "scheduler"):
                assert results[what] == "PermissionError", (layers, what, results)
            assert results["own"] == results["own nice"] == "ok", (layers, results)
            assert {pid: _limits_of(pid) for pid in before} == before
            if server is not None:
                assert "Max address space         unlimited" in _limits_of(server), _limits_of(server)
        assert os.getpriority(os.PRIO_PROCESS, victim.pid) == 0
        assert os.sched_getscheduler(victim.pid) == os.SCHED_OTHER
    finally:
        process.LAYERS.clear()
        process.LAYERS.update(saved)
        victim.kill()
        victim.wait()


@needs_landlock
def test_landlock_alone_confines_the_process(tmp_path):
    """The kernel's layer on its own (without the audit hook): files outside the allowed folders are unreadable."""
    secret = tmp_path / "gradebook.db"
    secret.write_text("SECRET")
    script = f"""
import os, sys
sys.path.insert(0, {str(isolation.CHILD.parent)!r})
import child_sandbox as sandbox, numpy
stdlib = os.path.dirname(os.__file__)
entries = sandbox.standard_library(stdlib)
folders, files = sandbox.loaded_libraries()
abi = sandbox.landlock([os.path.dirname(numpy.__file__)] + folders + [p for p in entries if os.path.isdir(p)],
                     files + [p for p in entries if not os.path.isdir(p)], [stdlib])
assert abi >= 1
for path, readable in [({str(secret)!r}, False), (os.path.join(stdlib, "os.py"), True), ("/etc/passwd", False)]:
    try:
        open(path).read(1)
        got = True
    except PermissionError:
        got = False
    assert got == readable, path
import json, decimal, zlib  # standard-library extensions still load
print("confined")
"""
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "confined" in done.stdout, done.stderr[-2000:]


def test_the_library_is_a_stub_whose_calls_reject_the_part(capsys):
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell(
            "import ccb_helpers as ccb\nfrom ccb_helpers.propagation import info_steps as hidden\n"
            "LIB = {'f': ccb.info_steps}\n"
            "def direct(n):\n    return ccb.info_steps(n, 1)\n"
            "def stashed(n):\n    try:\n        return LIB['f'](n, 1)\n    except Exception:\n        return 3\n"
            "def record():\n    return ccb.Transfer(0, 1, 0, 4)\n",
            "<cell>",
        )
        assert _call(session, "direct", 8) == ("raised", "LibraryUnavailable")
        assert session.library_calls_since(0) == ["info_steps"]
        transfer = session.call("record", (), {})
        assert type(transfer) is ccb.Transfer and (transfer.src, transfer.dst, transfer.length) == (0, 1, 4)
        part = grading.Part("demo-stash", points=1, answer=isolation.StudentFunction(session, "stashed"))
        part.compare("all", isolation.StudentFunction(session, "stashed"), [(8,)], lambda n: 3, points=1, expect="3")
        assert part.score() == 0  # the right answer, but the library was called meanwhile
        assert "ccb.info_steps" in capsys.readouterr().out
    finally:
        session.close()


def test_the_released_setup_cell_runs_without_an_error_under_grading():
    """Teacher review of #40: ``from ccb_helpers import grading`` took the stub package's attribute
    ``grading`` for a library function, so the released setup cell's ``grading.answer_cells(...)``
    raised ``LibraryUnavailable: … 本题要自己实现`` in every student's autograded notebook and feedback.
    The released setup cell's lines run without an error and call no library function."""
    setup = (
        "try:\n    import ccb_helpers as ccb\nexcept ImportError:\n    raise\nfrom ccb_helpers import grading\n"
        "grading.answer_cells({'ps1-replicas': 'replica_rounds'})  # 答题单元格：评分时只运行它们\n"
        "ccb.grading.answer_cells({})\nimport ccb_helpers.grading as again\nagain.answer_cells({})\n"
    )
    outcomes, _ = isolation.grade_cells(
        [isolation.Cell("setup", setup, "ps1-setup")], library=ccb, require_sandbox=False
    )
    assert outcomes[0].error is None and outcomes[0].ran, outcomes[0]
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell("from ccb_helpers import grading\ngrading.answer_cells({'x': 'f'})\n", "<cell>")
        assert session.library_calls_since(0) == []
    finally:
        session.close()


def test_a_huge_answer_cell_costs_the_grader_no_ipython_transformation(monkeypatch):
    """Teacher review of #40: IPython's cell transformations ran in the grader, outside every time
    budget, at ~0.1 ms a line (a 2 MiB lookup table: 16 s; a 25 MiB one held autograde for minutes
    past the notebook's 120 s cap). A cell above ``MAX_TRANSFORMED`` runs as plain Python, compiled
    by the student process within its cell budget; a small cell keeps its %magics."""
    calls = []
    real = isolation._transformed
    monkeypatch.setattr(isolation, "_transformed", lambda source: calls.append(len(source)) or real(source))
    table = "T = {\n" + "".join(f"    {i}: {7 * i},\n" for i in range(40000)) + "}\ndef f(i):\n    return T[i]\n"
    assert len(table) > isolation.MAX_TRANSFORMED
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell(isolation._python(table), "<cell>")
        assert session.call("f", (39999,), {}) == 7 * 39999
    finally:
        session.close()
    assert calls == []
    assert isolation._python("%time y = 2\n").startswith("get_ipython().run_line_magic('time'")
    assert calls == [len("%time y = 2\n")]


def test_a_student_process_that_cannot_start_fails_the_notebook_not_the_student(monkeypatch, tmp_path):
    """Teacher review of #40: once student processes could not start (the fork server's address
    space set to 64 MiB through prlimit, before seccomp refused it), every later notebook of the
    class was graded as a student whose cells all crashed — 0 points, ``needs_attention`` empty —
    and each failed start left its two pipes open until select() failed for the last students.
    A start that fails before any of the student's code ran is the grader's failure: the notebook
    is not graded (``export`` flags it) and nothing is left open."""
    dead = tmp_path / "child.py"  # a student process (and fork server) that ends before its hello
    dead.write_text("raise SystemExit(0)\n", encoding="utf-8")
    monkeypatch.setattr(process, "CHILD", dead)
    process.shutdown()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        with pytest.raises(process.StartFailed, match="could not be started"):
            isolation.grade_cells(
                [isolation.Cell("answer", "def f():\n    return 1\n", "x")], library=ccb, require_sandbox=False
            )
    process.shutdown()
    assert len(os.listdir("/proc/self/fd")) <= before
    assert issubclass(process.StartFailed, isolation.SandboxUnavailable)  # IsolatedGrading lets it fail the notebook


def test_returned_values_cross_as_plain_data_and_lookalikes_do_not():
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell(
            """
import numpy as np
from fractions import Fraction
class Same(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__
class str_:
    __module__ = "numpy"
    def __str__(self): return "x"
    def __eq__(self, other): return True
def plain():
    return (2**5000 + 1, -7, 0.1, "s", np.int64(5), np.float32(0.5), np.str_("ring"), {(1, 2): [frozenset({3})]}, np.arange(3), Fraction(2, 3))
def same_int():
    return Same(1)
def fake_numpy():
    return str_()
def same_fraction():
    value = Fraction(1, 3)
    value._numerator, value._denominator = Same(1), Same(3)
    return value
""",
            "<cell>",
        )
        values = session.call("plain", (), {})
        assert values[:4] == (2**5000 + 1, -7, 0.1, "s") and type(values[4]) is int and type(values[5]) is float
        assert type(values[6]) is str and values[7] == {(1, 2): [frozenset({3})]} and values[8].tolist() == [0, 1, 2]
        assert values[9] == fractions.Fraction(2, 3)
        with pytest.raises(grading.GradingError, match="应为 int，得到 自定义类型的对象"):
            grading.as_int(session.call("same_int", (), {}))
        with pytest.raises(grading.GradingError, match="应为 str"):
            grading.as_str(session.call("fake_numpy", (), {}))
        with pytest.raises(grading.GradingError, match="应为 fractions.Fraction"):
            grading.as_fraction(session.call("same_fraction", (), {}))
    finally:
        session.close()


def test_a_dead_or_runaway_process_is_graded_as_far_as_it_goes(monkeypatch):
    # The two runaways each spin a core until they are cut: 1 s each (a restart takes milliseconds).
    monkeypatch.setattr(isolation, "CELL_BUDGET", 1.0)
    test = 'part = grading.Part("demo-{0}", points=1, budget=1)\npart.compare("all", {0}, [(1,)], lambda n: n, points=1, expect="n")\npart.score()'
    cells = [
        isolation.Cell("answer", "def one(n):\n    return n\n"),
        isolation.Cell("test", test.format("one")),
        isolation.Cell(
            "answer", "import os\nos._exit(3)\ndef two(n):\n    return n\n"
        ),  # ends the process at top level
        isolation.Cell("test", test.format("two")),
        isolation.Cell("answer", "def three(n):\n    import os\n    os._exit(4)\n"),  # ends it when called
        isolation.Cell("test", test.format("three")),
        isolation.Cell("answer", "while True:\n    pass\n"),  # runs away at top level
        isolation.Cell("answer", "def four(n):\n    while True:\n        pass\n"),  # runs away when called
        isolation.Cell("test", test.format("four")),
        isolation.Cell("answer", "def five(n):\n    return n\n"),
        isolation.Cell("test", test.format("five")),
        isolation.Cell("ignored", "def five(n):\n    return -1\n"),  # a cell the student added
    ]
    outcomes, report = isolation.grade_cells(cells, library=ccb, require_sandbox=False)
    assert [o.score for c, o in zip(cells, outcomes) if c.kind == "test"] == [1, 0, 0, 0, 1]
    assert outcomes[2].ran is False and outcomes[6].ran is False and report.ignored_cells == 1
    assert report.restarts >= 3 and not report.problems


def test_the_kernel_cheats_work_in_a_kernel():
    """The notebook-level cheats of the integrity suite are real: in an IPython kernel they work."""
    cheats_file = pathlib.Path(__file__).parent / "assignment_submissions" / "cheats.py"
    script = f"""
import importlib.util
spec = importlib.util.spec_from_file_location("cheats", {str(cheats_file)!r})
cheats = importlib.util.module_from_spec(spec); spec.loader.exec_module(cheats)
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_cell(cheats.HOOKS)
result = shell.run_cell("raise ValueError('a test that fails')")
assert result.error_in_exec is None and result.success, result      # the later cell was emptied
namespace = {{}}
exec(cheats.TAMPER, namespace)
from ccb_helpers import grading
import math
part = grading.Part("x", points=3)
assert part.score() == 3 and math.isclose(1, 2) and abs(-5) == 0.0   # the grader's code and comparisons replaced
print("cheats work")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "cheats work" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_the_student_process_knows_the_same_numpy_scalar_types_as_the_grader():
    # child.py is a script that may not import the package, so it lists numpy's scalar types
    # again; a type in one list and not the other would cross as "another type" or slip through.
    import importlib.util

    from ccb_helpers.grading import values

    spec = importlib.util.spec_from_file_location("ccb_child", pathlib.Path(values.__file__).with_name("child.py"))
    child = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(child)
    codec = child._Codec(np)
    assert codec.ints == values._NUMPY_INTS and codec.floats == values._NUMPY_FLOATS
    assert (codec.bool_, codec.str_) == (values._NUMPY_BOOL, values._NUMPY_STR)
    # Derived independently from numpy's type codes: every integer and float scalar type is known.
    assert {np.dtype(code).type for code in "bBhHiIlLqQpP"} <= codec.ints
    assert {np.dtype(code).type for code in "efdg"} == codec.floats


def test_copied_cells_and_broken_nbgrader_metadata_are_put_right():
    """#40 / jupyter/nbgrader#1083: a copied cell (same nbgrader metadata, new cell id), a removed or
    edited schema_version, emptied or lost metadata, a made-up grade id. The handed-out copy keeps
    the metadata wherever the copy was pasted; every result validates as nbgrader's schema 3."""
    from ccb_helpers.grading.cellmeta import CellRecord, repair_cells

    known = {
        "a": CellRecord(grade=False, solution=True, locked=False, task=False, points=None),
        "a-tests": CellRecord(grade=True, solution=False, locked=True, task=False, points=3),
        "b": CellRecord(grade=False, solution=True, locked=False, task=False, points=None),
        "w": CellRecord(grade=True, solution=True, locked=False, task=False, points=8),
    }

    def cell(cell_id, **meta):
        return {"id": cell_id, "metadata": {"nbgrader": meta} if meta else {}}

    cells = [
        cell("pasted-1", grade_id="a", solution=True, grade=False, locked=False, schema_version=3),  # pasted above
        cell("a", grade_id="a", solution=True, grade=False, locked=False, schema_version=3),
        cell("a-tests", grade_id="a-tests", grade=True, locked=True, solution=False, schema_version=1),  # points gone
        cell("pasted-2", grade_id="a-tests", grade=True, locked=True, solution=False, points=3, schema_version=3),
        cell("b"),  # metadata lost: its cell id says which cell it is
        cell("w", grade_id="w", grade="yes", solution=True, locked=False, points=8, extra=1),  # no schema_version
        cell("x", grade_id="forged-tests", grade=True, locked=True, solution=False, points=5, schema_version=3),
        cell("y", grade=True),  # metadata without a grade id
    ]
    log = repair_cells(cells, known)
    kept = {c["metadata"]["nbgrader"]["grade_id"]: c["id"] for c in cells if "nbgrader" in c["metadata"]}
    assert kept == {"a": "a", "a-tests": "a-tests", "b": "b", "w": "w"}, kept
    assert sum("appears 2 times (copied)" in line for line in log) == 2, log
    assert any("'forged-tests' does not exist" in line for line in log) and any("lost its" in line for line in log)
    assert cells[2]["metadata"]["nbgrader"]["points"] == 3.0 and cells[5]["metadata"]["nbgrader"]["grade"] is True
    try:
        from nbgrader.nbgraderformat import MetadataValidator
    except ImportError:
        return
    import nbformat

    notebook = nbformat.v4.new_notebook()
    for c in cells:
        notebook.cells.append(nbformat.v4.new_code_cell("x = 1", metadata=c["metadata"]))
    notebook.cells[5].cell_type = "markdown"  # the written answer
    del notebook.cells[5]["outputs"], notebook.cells[5]["execution_count"]
    MetadataValidator().validate_nb(notebook)  # nbgrader's own check: no error


def test_a_huge_returned_number_is_refused_before_any_arithmetic():
    """#40: a returned Fraction with 2**22-bit parts held autograde for minutes — ``Fraction(n, d)``
    reduces by ``math.gcd`` in C, where the group's SIGALRM budget cannot interrupt it. The parts
    are refused as text, before anything computes with them; a part of the cap still grades."""
    session = isolation.Session(require_sandbox=False)
    try:
        session.run_cell(
            "from fractions import Fraction\n"
            "def huge_fraction():\n"
            "    return Fraction(2**(2**22) + 1, 3**(2**21), _normalize=False)\n"
            "def huge_int():\n"
            "    return -(2**(2**22)) - 1\n"
            "def at_cap():\n"
            "    return Fraction(2**(2**16 - 1), 3**40000, _normalize=False), 2**(2**16) - 1\n",
            "<cell>",
        )
        for name in ("huge_fraction", "huge_int"):
            start = time.monotonic()
            with pytest.raises(grading.Wrong, match="超过 65536 位"):
                session.call(name, (), {})
            assert time.monotonic() - start < 5, name  # the gcd alone took 28 s
        fraction, integer = session.call("at_cap", (), {})
        assert fraction == fractions.Fraction(2**65535, 3**40000) and integer == 2**65536 - 1
    finally:
        session.close()
    with pytest.raises(grading.GradingError, match="超过 65536 位"):
        grading.as_int(2**65536)
    with pytest.raises(grading.GradingError, match="超过 65536 位"):
        grading.as_fraction(fractions.Fraction(2**70000, 3, _normalize=False))


def test_close_rejects_nan_and_mismatched_infinities():
    """The shared float comparison of the hidden tests (#40): NaN is never close, not even to NaN."""
    nan, inf = float("nan"), float("inf")
    assert grading.close(1.0, 1.0 + 1e-12) and not grading.close(1.0, 1.0 + 1e-6)
    assert not grading.close(nan, 1.0) and not grading.close(1.0, nan) and not grading.close(nan, nan)
    assert grading.close(inf, inf) and not grading.close(inf, -inf) and not grading.close(inf, 1e308)
    assert not grading.close(np.float64(nan), 0.0) and grading.close(np.float32(0.5), 0.5)
    assert grading.close(fractions.Fraction(1, 3), 1 / 3) and not grading.close("1.0", 1.0)
    assert grading.close(2**2000, 2**2000) and not grading.close(2**2000, 2**2000 + 1)
    assert grading.close(1e-16, 0.0, abs_tol=1e-15) and not grading.close(1e-16, 0.0)
    with pytest.raises(ValueError, match="rel and abs_tol"):
        grading.close(1.0, 1.0, rel=-1)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="SIGALRM time limits are POSIX")
def test_a_time_limit_never_interrupts_a_request_to_the_fork_server(monkeypatch):
    """A group's time limit (SIGALRM) inside a request to the fork server left the reply unread:
    every later request read the one before it, until one waited the socket's 60 s for a reply
    already taken, and the group was reported as a failed start (StartFailed) — a notebook past its
    time limit took 60 s per later group under load. The limit now lands after the exchange: the
    start is given up as a Timeout (not StartFailed), its process killed, and the server answers in
    step afterwards."""
    exchanges = []
    real_ask = process._ForkServer._ask

    def slow_ask(self, message, fds=()):
        time.sleep(0.05)  # the alarm falls inside the exchange
        reply = real_ask(self, message, fds)
        exchanges.append(message[:1])
        return reply

    monkeypatch.setattr(process._ForkServer, "_ask", slow_ask)
    with pytest.raises(grading.parts.Timeout), grading.parts._time_limit(0.01):  # a group's limit
        process.StudentProcess(require_sandbox=False)
    # The fork's reply was read, and its student killed through the server (not left behind).
    assert exchanges[-2:] == [b"f", b"k"], exchanges
    start = time.monotonic()
    student = process.StudentProcess(require_sandbox=False)
    try:
        assert student.request(
            {"op": "exec", "namespace": "grade", "source": "x = 1", "filename": "<t>"}, time.monotonic() + 30
        )
    finally:
        student.kill()
    assert time.monotonic() - start < 20, "the server answered out of step"


def test_a_notebooks_grading_has_a_total_time_limit(monkeypatch):
    """#40: within the cell and group budgets a runaway student held autograde for 339 s. A notebook's
    grading stops at its own limit: later cells are not run, later groups score 0 with a note,
    and the report says so (``export`` flags the notebook)."""
    monkeypatch.setattr(isolation, "NOTEBOOK_BUDGET", 3.0)
    test = (
        'part = grading.Part("demo-{0}", points=1, budget=5)\n'
        'part.compare("all", {0}, [(1,)], lambda n: n, points=1, expect="n")\npart.score()'
    )
    cells = [isolation.Cell("answer", "def fine(n):\n    return n\n"), isolation.Cell("test", test.format("fine"))]
    for name in ("one", "two", "three", "four"):
        cells += [
            isolation.Cell("answer", f"def {name}(n):\n    while True:\n        pass\n"),
            isolation.Cell("test", test.format(name)),
        ]
    cells += [isolation.Cell("answer", "def last(n):\n    return n\n"), isolation.Cell("test", test.format("last"))]
    start = time.monotonic()
    outcomes, report = isolation.grade_cells(cells, library=ccb, require_sandbox=False)
    elapsed = time.monotonic() - start
    scores = [o.score for c, o in zip(cells, outcomes) if c.kind == "test"]
    assert scores[0] == 1 and scores[1:] == [0, 0, 0, 0, 0], scores  # the runaways' 4 x 5 s stop at 3 s
    assert elapsed < 3 + 3, elapsed  # the limit, and the processes' start and end
    assert "时间上限" in outcomes[-1].stdout or "时间上限" in str(outcomes[-2].error), outcomes[-1]
    assert any("time limit" in problem for problem in report.problems), report.problems
