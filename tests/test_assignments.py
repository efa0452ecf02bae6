"""The problem sets, graded the way assignments/README.md tells a teacher to grade them, by a class
with cheaters (issue #29's integrity suite).

One test per problem set (pytest-xdist runs them in parallel; each works in its own scratch
course): ``generate_assignment``, the submissions put in ``submitted/`` (on ps1 through
``zip_collect`` of loose files and a zip), **one** ``autograde`` call over all of them,
``generate_feedback`` and (ps1) ``export``. ps1 runs the teacher's command lines verbatim
(``python -m nbgrader …`` in subprocesses, as assignments/README.md writes them); ps2–ps9 run the
same nbgrader apps with the same configuration in the test's process (``_InProcess``, nbgrader's
Python API), which saves a Python start and an nbgrader import per command (a third of a set's CPU). The class:

* ``reference`` (the solutions: full marks), ``blank`` (the handed-out notebook: zero);
* ``weak`` — a realistic weak student (floating ``log``, off-by-one, a forgotten case…) who also
  "fixed" the first test cell: the cell is restored (the only one autograde warns about) and each
  part earns the points its groups are worth (``WEAK_POINTS`` in ``tests/assignment_submissions/<set>.py``);
* ``library`` (every answer calls the library) and ``hardcoded`` (every answer is a lookup table
  of the visible cases): zero;
* every cheat of ``tests/assignment_submissions/cheats.py``: IPython hooks and transformers,
  replacing the grader's code and ``math.isclose``/``abs``, the library through a dict and a
  compiled string, reading the teacher's notebook, the gradebook and another student's notebook,
  look-alike return values, probes that echo their inputs or spell them in what they return,
  edited/deleted/forged locked cells, script in Markdown and raw cells — zero on every part;
  copied cells and broken nbgrader metadata, and an escape (the audit hook switched off, forks,
  prlimit on the grader and the fork server, UDP to a listener) — full marks, nothing gets out; a process that dies (``os._exit``) is graded
  as far as it goes.

Checked: per-part scores from the gradebook; feedback pages carry no line of hidden test code or
rubric and nothing a probe echoed; submissions are never modified; the released notebook names
no repository; no datagram reached the UDP listener and no process outlived autograde. On ps1
also: a notebook that cannot be graded is flagged by ``export``, a cell that runs away at top level
is dropped, a second upload of a student is skipped, the script student's submission opened in the
Formgrader in Chromium runs nothing, and the Formgrader records a manual score.

Needs nbgrader (``pip install -r requirements-teacher.txt``): skipped without it, failed under CI.
"""

from __future__ import annotations

import concurrent.futures
import copy
import csv
import hashlib
import html
import importlib.util
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments"
SUBMISSIONS = ROOT / "tests" / "assignment_submissions"
SETS = sorted(p.name for p in (ASSIGNMENTS / "source").iterdir() if p.is_dir())
REPOSITORY = "github.com/ccb-textbook"


def _load(name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _submissions(ps: str):
    return _load(f"submissions_{ps}", SUBMISSIONS / f"{ps}.py")


cheats = _load("assignment_cheats", SUBMISSIONS / "cheats.py")


def _nbgrader() -> list[str]:
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("nbgrader is required under CI: pip install -r requirements-teacher.txt")
        pytest.skip("nbgrader not installed: pip install -r requirements-teacher.txt to test the problem sets")
    return [sys.executable, "-m", "nbgrader"]


def _env():
    # A top-level runaway cell is cut after 2 s here (30 s by default): the ps1 class has one, and
    # it spins a core until it is cut. Every other answer cell of the classes only defines names.
    return dict(
        os.environ,
        CCB_GRADING_CELL_SECONDS="2",
        PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    )


CPU_SECONDS: dict = {}


PIDS: dict = {}


def _run(args, cwd, ok=True):
    before = os.times()
    with subprocess.Popen(
        args, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as command:
        PIDS[args[3] if len(args) > 3 else args[-1]] = command.pid  # the grader of its student processes
        stdout, stderr = command.communicate()
    done = subprocess.CompletedProcess(args, command.returncode, stdout, stderr)
    after = os.times()
    step = args[3] if len(args) > 3 else args[-1]
    CPU_SECONDS[step] = (
        CPU_SECONDS.get(step, 0.0)
        + (after.children_user - before.children_user)
        + (after.children_system - before.children_system)
    )
    output = done.stdout + done.stderr
    if ok:
        assert done.returncode == 0, output[-6000:]
    return output


class _SchemaCheckedOnce:
    """``jsonschema`` as nbgrader's metadata validator uses it, ``validate`` checking each schema
    once (jsonschema's ``validate``: check the schema, build a validator, raise the best error)."""

    def __init__(self, module):
        self._module, self._validators = module, {}

    def __getattr__(self, name):
        return getattr(self._module, name)

    def validate(self, instance, schema):
        known = self._validators.get(id(schema))
        if known is None or known[0] is not schema:
            cls = self._module.validators.validator_for(schema)
            cls.check_schema(schema)
            known = self._validators[id(schema)] = (schema, cls(schema))
        error = self._module.exceptions.best_match(known[1].iter_errors(instance))
        if error is not None:
            raise error


def _alembic_head() -> str:
    """``nbgrader.api.get_alembic_version`` without a process: the first head of nbgrader's migrations."""
    import nbgrader.api
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    with nbgrader.api._temp_alembic_ini("sqlite:////tmp/gradebook.db") as alembic_ini:
        return ScriptDirectory.from_config(Config(alembic_ini)).get_heads()[0]


class _EnginePerDatabase:
    """``sqlalchemy.create_engine`` as ``nbgrader.api`` calls it, one engine per (URL, options)."""

    def __init__(self, create_engine):
        self._create_engine, self._engines = create_engine, {}

    def __call__(self, url, **options):
        key = (str(url), tuple(sorted(options.items())))
        if key not in self._engines:
            self._engines[key] = self._create_engine(url, **options)
        return self._engines[key]


class _InProcess:
    """nbgrader's commands run in this process through its Python API (``nbgrader.apps.NbGraderAPI``):
    the same apps with the course's ``nbgrader_config.py``, without starting a Python and importing
    nbgrader for every command. ``ps1`` runs the README's command lines verbatim instead (``_run``)."""

    def __init__(self, course: pathlib.Path):
        import functools

        import nbgrader.api
        import nbgrader.nbgraderformat.common
        from nbgrader.apps import NbGraderAPI
        from traitlets.config.loader import PyFileConfigLoader

        # A new gradebook asks the `alembic heads` command for the schema's version (a Python start
        # and an alembic import, 1.5-3 CPU-s): a constant of the installed nbgrader, asked here once
        # per process, of alembic's Python API (what the command prints: 0.1 CPU-s).
        if not hasattr(nbgrader.api.get_alembic_version, "cache_info"):
            nbgrader.api.get_alembic_version = functools.cache(_alembic_head)
        # Every nbgrader preprocessor opens its own Gradebook, ~150 per set, and each makes a new
        # SQLAlchemy engine: a new dialect set-up and an empty statement cache, so every query is
        # compiled again. One engine per database here (Gradebook.close still returns its
        # connections: the engine's ``dispose`` replaces the pool, the statement cache stays).
        if not isinstance(nbgrader.api.create_engine, _EnginePerDatabase):
            nbgrader.api.create_engine = _EnginePerDatabase(nbgrader.api.create_engine)
        # nbgrader validates each cell's metadata with ``jsonschema.validate``, which first checks
        # the (constant) schema against its metaschema: ~500 times per set, 9/10 of that CPU time.
        # The same check and validation here, the schema checked once (_SchemaCheckedOnce).
        common = nbgrader.nbgraderformat.common
        if not isinstance(common.jsonschema, _SchemaCheckedOnce):
            common.jsonschema = _SchemaCheckedOnce(common.jsonschema)
        self.course = course
        self.api = NbGraderAPI(config=PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config())

    def __call__(self, step: str, ps: str, ok: bool = True, **kwargs) -> str:
        import contextlib

        from ccb_helpers.grading import isolation

        budget = isolation.CELL_BUDGET
        before = os.times()
        # As under _env(): a top-level runaway cell is cut after 2 s; and nbgrader's working folder.
        isolation.CELL_BUDGET = float(_env()["CCB_GRADING_CELL_SECONDS"])
        try:
            with contextlib.chdir(self.course):
                done = getattr(self.api, step)(ps, **kwargs)
        finally:
            isolation.CELL_BUDGET = budget
            isolation.shutdown()  # the fork server reaped: its students' CPU time is counted below
        after = os.times()
        # Grading's CPU time is in this process and in its sandboxed children.
        CPU_SECONDS[step] = CPU_SECONDS.get(step, 0.0) + sum(after[:4]) - sum(before[:4])
        output = done.get("log", "") + done.get("error", "")
        if ok:
            assert done["success"], output[-6000:]
        return output


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _class(ps: str, source, release, course: pathlib.Path, udp_port: int) -> dict:
    """Every submission of the set: ``{student: notebook}``."""
    data = _submissions(ps)
    reference_answers = {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }

    def answered(answers: dict):
        nb = copy.deepcopy(release)
        for grade_id, text in answers.items():
            _cell(nb, grade_id).source = text
        return nb

    weak = answered(dict(data.WEAK, **{data.WRITTEN[0]: data.WEAK_ANSWER}))
    _cell(weak, f"{next(iter(data.PARTS))}-tests").source = "assert True  # the student 'fixed' the test"
    students = {
        "reference": answered(reference_answers),
        "blank": copy.deepcopy(release),
        "weak": weak,
        "library": answered(data.LIBRARY),
        "hardcoded": answered(data.HARDCODED),
    }
    paths = {
        "notebooks": [
            str(course / "source" / ps / f"{ps}.ipynb"),
            str(course / "release" / ps / f"{ps}.ipynb"),
            str(course / "submitted" / "reference" / ps / f"{ps}.ipynb"),
            str(course / "autograded" / "reference" / ps / f"{ps}.ipynb"),
        ],
        "gradebook": str(course / "gradebook.db"),
        "udp_port": udp_port,
    }
    students.update(cheats.submissions(ps, release, source, data.LIBRARY, paths))
    if ps == "ps1":
        functions = cheats.answer_functions(release)
        runaway = dict(reference_answers)
        runaway[functions[0][0]] = "while True:\n    pass\n"  # cut at top level, dropped
        runaway[functions[1][0]] = f"def {functions[1][1]}(*args):\n    while True:\n        pass\n"  # cut per group
        students["runaway"] = answered(runaway)
    return students


def _grade(ps: str, workdir: pathlib.Path, finalizer=None) -> dict:
    """The README's teacher workflow on one set with its class; everything the checks need.

    On ps1 the Formgrader's Jupyter server is started as soon as the gradebook has the grades, so
    that its start-up (~4 s) overlaps the feedback and export commands; ``finalizer`` (pytest's
    ``request.addfinalizer``) stops it whatever happens."""
    nbgrader = _nbgrader()
    course = workdir / "course"
    shutil.copytree(ASSIGNMENTS / "source" / ps, course / "source" / ps)
    for name in ("nbgrader_config.py", "ccb_nbgrader.py", "ccb_release.py", "ccb_collect.py"):
        shutil.copy(ASSIGNMENTS / name, course)
    # The first set runs the teacher's commands verbatim (subprocesses, as assignments/README.md
    # writes them); the others run the same nbgrader apps in this process (_InProcess).
    cli = ps == SETS[0]
    api = None if cli else _InProcess(course)
    if cli:
        log = {"generate": _run(nbgrader + ["generate_assignment", ps, "--force"], course)}
    else:
        log = {"generate": api("generate_assignment", ps, force=True)}
    release = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ps / f"{ps}.ipynb", as_version=4)
    # A real UDP listener on 127.0.0.1: the escape submission sends the hidden inputs to it.
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    students = _class(ps, source, release, course, listener.getsockname()[1])

    if ps == SETS[0]:
        # The README's collect step: uploads as an LMS hands them over, <student>_<assignment>.ipynb,
        # some of them zipped; one upload is not a notebook at all.
        archive = course / "downloaded" / ps / "archive"
        archive.mkdir(parents=True)
        with zipfile.ZipFile(archive / "batch.zip", "w") as bundle:
            for number, (student, nb) in enumerate(students.items()):
                text = nbformat.writes(nb)
                if number % 2:
                    bundle.writestr(f"{student}_{ps}.ipynb", text)
                else:
                    (archive / f"{student}_{ps}.ipynb").write_text(text, encoding="utf-8")
            bundle.writestr(f"corrupt_{ps}.ipynb", "{ this is not a notebook")
        # The weak student uploaded twice (an LMS export with two attempts): an older blank attempt
        # in a folder of its own. nbgrader stopped for the class ("Duplicate submission file");
        # the newest is collected now.
        (archive / "attempt-1").mkdir()
        older = archive / "attempt-1" / f"weak_{ps}.ipynb"
        older.write_text(nbformat.writes(release), encoding="utf-8")
        os.utime(older, (time.time() - 86400, time.time() - 86400))
        log["collect"] = _run(nbgrader + ["zip_collect", ps], course)
    else:
        for student, nb in students.items():
            path = course / "submitted" / student / ps / f"{ps}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(nb, path)
    collected = sorted(p.parent.parent.name for p in (course / "submitted").glob(f"*/{ps}/{ps}.ipynb"))
    digests = {s: _digest(course / "submitted" / s / ps / f"{ps}.ipynb") for s in collected}

    start = time.perf_counter()
    if cli:
        log["autograde"] = _run(nbgrader + ["autograde", ps, "--create", "--force"], course, ok=False)
        log["autograde_seconds"] = time.perf_counter() - start
        escaped = _left_behind(PIDS["autograde"], listener)
        formgrader = _start_formgrader(course)
        if finalizer is not None:
            finalizer(lambda: _stop(formgrader[0]))
        log["feedback"] = _run(nbgrader + ["generate_feedback", ps, "--force"], course, ok=False)
    else:
        formgrader = None
        import resource

        limits = {
            name: resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")
        }
        log["autograde"] = api("autograde", ps, student_id="*", create=True, force=True)
        log["autograde_seconds"] = time.perf_counter() - start
        escaped = _left_behind(os.getpid(), listener)
        # The escape sets the grader's limits through prlimit (it needs only the same uid).
        escaped["limits"] = {
            name: value for name, value in limits.items() if resource.getrlimit(getattr(resource, name)) != value
        }
        log["feedback"] = api("generate_feedback", ps, force=True)

    from nbgrader.api import Gradebook, MissingEntry

    parts, totals = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in collected:
            try:
                notebook = gradebook.find_submission_notebook(ps, ps, student)
            except MissingEntry:
                continue
            parts[student] = {
                grade.name: (grade.score, grade.max_score, grade.needs_manual_grade) for grade in notebook.grades
            }
            totals[student] = (float(notebook.score), float(notebook.max_score))
    exported = None
    if ps == SETS[0]:
        _run(nbgrader + ["export", "--to", str(course / "grades.csv")], course)
        with open(course / "grades.csv", newline="", encoding="utf-8") as handle:
            exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    after = {s: _digest(course / "submitted" / s / ps / f"{ps}.ipynb") for s in collected}
    feedback = {
        s: (course / "feedback" / s / ps / f"{ps}.html").read_text(encoding="utf-8")
        for s in collected
        if (course / "feedback" / s / ps / f"{ps}.html").exists()
    }
    return dict(
        course=course,
        log=log,
        students=students,
        collected=collected,
        totals=totals,
        parts=parts,
        digests=digests,
        after=after,
        feedback=feedback,
        source=source,
        release=release,
        data=_submissions(ps),
        exported=exported,
        formgrader=formgrader,
        escaped=escaped,
    )


def _left_behind(grader_pid: int, listener) -> dict:
    """What the students got out while autograde ran (read as soon as it returned): the datagrams
    that reached the listener, and the processes still alive that the grader started for its
    students (marked ``CCB_GRADER=<grader pid>``) or that reported their pid in a datagram."""
    datagrams = []
    while True:
        try:
            datagrams.append(listener.recv(65536))
        except BlockingIOError:
            break
    listener.close()
    mark = f"CCB_GRADER={grader_pid}".encode()
    alive = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if mark in handle.read().split(b"\0"):
                        alive.add(int(entry))
            except OSError:
                continue
    for datagram in datagrams:
        for pid in re.findall(rb"'alive', (\d+)", datagram):
            if os.path.exists(f"/proc/{int(pid)}"):
                alive.add(int(pid))
    return {"datagrams": datagrams, "processes": sorted(alive)}


def _tests_id(part: str) -> str:
    return f"{part}-tests"


def _hidden_lines(source_nb) -> list[str]:
    lines, inside = [], None
    for cell in source_nb.cells:
        for line in cell.source.split("\n"):
            if inside is None and ("BEGIN HIDDEN TESTS" in line or "BEGIN MARK SCHEME" in line):
                inside = "END HIDDEN TESTS" if "HIDDEN" in line else "END MARK SCHEME"
            elif inside is not None and inside in line:
                inside = None
            elif inside is not None:
                lines.append(" ".join(line.split()))
    return [line for line in lines if len(line) >= 12]


def _visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def _shown_lines(nb) -> str:
    return "\n".join(" ".join(line.split()) for c in nb.cells for line in c.source.split("\n"))


@pytest.fixture(autouse=True)
def _reaped_fork_server():
    """The student processes' CPU time lands in the test that ran them: the fork server ends with it."""
    yield
    from ccb_helpers.grading import isolation

    isolation.shutdown()


@pytest.fixture
def scratch(tmp_path):
    """A scratch folder for a course, in memory (tmpfs) where the machine has one.

    The gradebook is SQLite, and nbgrader commits ~500 times per set: on a disk each commit waits
    for an fsync (3-6 s of a set's wall time here, neither CPU nor work); on tmpfs it does not."""
    shm = pathlib.Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK | os.X_OK)):
        yield tmp_path
        return
    path = pathlib.Path(tempfile.mkdtemp(prefix="ccb-course-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("ps", SETS)
def test_problem_set_grades_a_class_with_cheaters(ps, scratch, request):
    run = _grade(ps, scratch, request.addfinalizer)
    data, parts, course = run["data"], run["parts"], run["course"]
    seconds, graded = run["log"]["autograde_seconds"], len(run["collected"])
    print(f"\n{ps}: autograde {seconds:.1f} s for {graded} notebooks, {seconds / graded:.1f} s each")
    autograded_parts = list(data.PARTS)
    problems = []

    def expect(condition, message):
        if not condition:
            problems.append(message)

    def score(student, part):
        return parts.get(student, {}).get(_tests_id(part), (None,))[0]

    students = list(run["students"])
    expect(
        run["collected"] == sorted(students + (["corrupt"] if ps == SETS[0] else [])), f"collected {run['collected']}"
    )
    if ps == SETS[0]:
        expect(
            "Student weak has 2 files for ps1: collected the newest" in run["log"]["collect"], "the duplicate upload"
        )
    for student in students:
        expect(student in parts, f"{student} was not graded")
    # The reference scores full marks; the written answer waits for the grader.
    for part, points in data.PARTS.items():
        expect(score("reference", part) == points, f"reference {part}: {score('reference', part)} / {points}")
        expect(score("blank", part) == 0, f"blank {part}: {score('blank', part)}")
    written, written_points = data.WRITTEN
    expect(
        parts.get("blank", {}).get(written) == (0, written_points, False),
        f"blank written {parts.get('blank', {}).get(written)}",
    )
    expect(
        parts.get("reference", {}).get(written, (0, 0, False))[2] is True,
        "the reference's written answer must wait for the grader",
    )
    expect(
        run["totals"].get("reference") == (data.AUTOGRADED_POINTS, data.AUTOGRADED_POINTS + written_points),
        f"reference total {run['totals'].get('reference')}",
    )
    # The reference's autograded notebook shows no error (the released setup cell's
    # grading.answer_cells raised LibraryUnavailable for every student: teacher review of #40).
    graded = nbformat.read(course / "autograded" / "reference" / ps / f"{ps}.ipynb", as_version=4)
    errors = [o.get("ename") for c in graded.cells for o in c.get("outputs", []) if o.output_type == "error"]
    expect(not errors, f"the reference's autograded notebook shows errors: {errors}")
    # The weak student earns its groups' points.
    for part, points in data.WEAK_POINTS.items():
        expect(score("weak", part) == points, f"weak {part}: {score('weak', part)}, expected {points}")
    expect(
        any(0 < data.WEAK_POINTS[p] < data.PARTS[p] for p in data.PARTS), "the weak student needs credit within a part"
    )
    # Shortcuts and cheats: zero on every part they cheat.
    for student in ("library", "hardcoded", *cheats.ZERO_EVERYWHERE):
        for part in autograded_parts:
            expect(score(student, part) == 0, f"{student} {part}: {score(student, part)}")
    for student in cheats.FULL_MARKS:
        for part, points in data.PARTS.items():
            expect(score(student, part) == points, f"{student} {part}: {score(student, part)} / {points}")
    # Nothing got out while autograde ran: no datagram reached the listener, no process outlived it.
    escaped = run["escaped"]
    expect(
        not escaped["datagrams"],
        f"{len(escaped['datagrams'])} datagrams reached the listener: {escaped['datagrams'][:2]}",
    )
    expect(not escaped["processes"], f"processes outlived autograde: {escaped['processes']}")
    expect(not escaped.get("limits"), f"a student changed the grader's limits: {escaped.get('limits')}")
    expect("seccomp" in run["log"]["autograde"] and "no seccomp" not in run["log"]["autograde"], "seccomp in place")
    crash = cheats.crash_points(run["release"], run["source"], data.PARTS)
    for part, points in crash.items():
        expect(score("crash", part) == points, f"crash {part}: {score('crash', part)}, expected {points}")
    if "runaway" in run["students"]:
        for index, part in enumerate(autograded_parts):
            want = 0 if index < 2 else data.PARTS[part]
            expect(score("runaway", part) == want, f"runaway {part}: {score('runaway', part)}, expected {want}")
    # Only the weak student's edit is reported (the edited cheat's edits too: those are real edits).
    changed = [line for line in run["log"]["autograde"].splitlines() if "has changed" in line]
    expect(
        any(_tests_id(autograded_parts[0]) in line and "Student weak: " in line for line in changed),
        "the weak student's edit is reported with the student's id",
    )
    written_id = data.WRITTEN[0]
    expect(
        all("-tests" in line or f"'cell_type' for cell {written_id} " in line for line in changed),
        f"unexpected warnings {changed[:3]}",
    )  # the broken-metadata student turned the written answer into a raw cell: a real edit
    # Copied cells and broken metadata are named, and the class is graded (#40, jupyter/nbgrader#1083).
    autograde_log = run["log"]["autograde"]
    expect("appears 2 times (copied)" in autograde_log, "a copied cell is reported")
    expect("schema_version 1 " in autograde_log and "schema_version missing" in autograde_log, "schema fixes logged")
    expect("old version of the metadata format" not in autograde_log, "nbgrader's metadata error")
    expect(
        "Student edited: Cell" in autograde_log and "was deleted by the student: put back" in autograde_log,
        "a deleted test cell is restored with a log line naming the student",
    )
    expect("Student copied: Cell" in autograde_log, "a copied cell's line names the student")
    expect(run["after"] == run["digests"], "grading modified a submitted notebook")

    # Feedback: results, no test code, no rubric, nothing a probe echoed.
    hidden = _hidden_lines(run["source"])
    expect(len(hidden) > 20, "the feedback check needs hidden lines to look for")
    for student, page in run["feedback"].items():
        text = _visible_text(page)
        own = (
            _shown_lines(nbformat.read(course / "submitted" / student / ps / f"{ps}.ipynb", as_version=4))
            + "\n"
            + _shown_lines(run["release"])
        )
        leaked = [line for line in hidden if line in text and line not in own]
        expect(not leaked, f"{student}'s feedback shows hidden lines {leaked[:2]}")
        expect(
            "BEGIN HIDDEN TESTS" not in page and "MARK SCHEME" not in page and "评分细则" not in page,
            f"{student}'s feedback shows a marker",
        )
        if student == "positions":  # nothing the function chose: no position, type or exception name
            chosen = [
                line
                for line in text.splitlines()
                if "✗" in line
                and (re.search(r"\[\d+\]", line) or "，得到 " in line or re.search(r"抛出了 \w+Error", line))
            ]
            expect(not chosen, f"positions' feedback shows what the function chose: {chosen[:3]}")
        expect(
            "LEAK" not in text,
            f"{student}'s feedback carries a probe's output: {text[text.find('LEAK') - 80 : text.find('LEAK') + 80]!r}",
        )
    expect(set(students) <= set(run["feedback"]), "every graded student gets a feedback page")
    weak = _visible_text(run["feedback"].get("weak", ""))
    expect(f"{autograded_parts[0]}：" in weak and "✗" in weak, "the weak student's feedback has the grader's report")

    # The released notebook: no solutions, hidden tests, rubric, or pointer to the repository.
    released = nbformat.writes(run["release"])
    for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "MARK SCHEME", "评分细则", REPOSITORY):
        expect(marker not in released, f"the release contains {marker}")
    expect("raise NotImplementedError()" in released, "the release has answer stubs")

    if ps == SETS[0]:
        exported = run["exported"]
        expect(exported["corrupt"]["needs_attention"].startswith("not graded"), f"corrupt: {exported.get('corrupt')}")
        for student in students:
            expect(
                exported[student]["needs_attention"] == "", f"{student} flagged: {exported[student]['needs_attention']}"
            )
            expect(
                float(exported[student]["raw_score"]) == run["totals"][student][0],
                f"{student} exported {exported[student]['raw_score']}",
            )
        _check_formgrader(run, problems)
    assert not problems, f"{ps}: {len(problems)} problems:\n" + "\n".join(problems)


def test_problem_set_structure():
    """≥ 5 autograded parts and one written part; the text states the counts, points and return types."""
    for ps in SETS:
        nb = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
        graded_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        auto = [c for c in graded_cells if c.cell_type == "code"]
        manual = [c for c in graded_cells if c.cell_type == "markdown"]
        assert len(auto) >= 5 and len(manual) == 1, ps
        points = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in graded_cells}
        for cell in auto:
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            assert re.match(
                rf'([A-Z][A-Z0-9_]* = [^\n]*# course variant [^\n]*\n)?(from fractions import Fraction\n)?part = grading\.Part\("{grade_id[:-6]}", points={points[grade_id]:g}\b',
                cell.source,
            ), grade_id
            assert cell.source.rstrip().endswith("### END HIDDEN TESTS\npart.score()"), grade_id
        auto_points = sum(c.metadata["nbgrader"]["points"] for c in auto)
        intro = nb.cells[0].source
        assert f"共 {len(graded_cells)} 题：{len(auto)} 道自动评分题（{auto_points:g} 分）" in intro, ps
        assert "re`" in intro and "新加的单元格不运行" in intro, ps
        questions = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## ")]
        assert len(questions) == len(graded_cells), ps
        for number, (question, cell) in enumerate(zip(questions, graded_cells), 1):
            assert question.startswith(f"## {number}.（{points[cell.metadata['nbgrader']['grade_id']]:g} 分"), (
                ps,
                number,
            )
            if cell.cell_type == "code":
                assert re.search(
                    r"返回.*\*\*`(int|float|str|bool|list|set|tuple|dict|ccb\.Schedule|fractions\.Fraction)`",
                    question,
                    re.S,
                ), (ps, number)
            else:
                assert "<!-- BEGIN MARK SCHEME -->" in question and re.search(r"\*\*\d+(\.\d+)? 分\*\*", question), (
                    ps,
                    number,
                )
                rubric = sum(float(p) for p in re.findall(r"^- \*\*(\d+(?:\.\d+)?) 分\*\*", question, re.M))
                assert rubric == points[cell.metadata["nbgrader"]["grade_id"]], (ps, rubric)
        data = _submissions(ps)
        assert set(data.PARTS) == {c.metadata["nbgrader"]["grade_id"][: -len("-tests")] for c in auto}, ps
        assert data.PARTS == {k[:-6]: v for k, v in points.items() if k.endswith("-tests")}, ps
        assert data.WRITTEN == (manual[0].metadata["nbgrader"]["grade_id"], manual[0].metadata["nbgrader"]["points"]), (
            ps
        )
        assert REPOSITORY not in nbformat.writes(nb), ps


class _Plugins:
    """assignments/ccb_nbgrader.py, loaded on first use: it imports nbgrader (0.8 CPU-s), which
    every pytest process would otherwise pay while collecting, whatever tests it then runs."""

    def __getattr__(self, name):
        if name.startswith("_"):  # what pytest's collection probes (``_mock_name`` ...), never a plugin
            raise AttributeError(name)
        module = _load("ccb_nbgrader_plugins", ASSIGNMENTS / "ccb_nbgrader.py")
        for key, value in vars(module).items():
            if not key.startswith("__"):
                setattr(self, key, value)
        return getattr(module, name)


plugins = _Plugins() if importlib.util.find_spec("nbgrader") else None


def _variant_salts(texts) -> list[str]:
    """Salts that together give every marked constant each of its course values (none the default)."""
    import ast

    defaults = plugins.variant_values(texts, "")
    missing = {
        (match.group("name"), repr(value))
        for text in texts
        for match in plugins.VARIANT_CODE.finditer(text)
        for value in ast.literal_eval(match.group("choices"))
        if repr(value) != defaults[match.group("name")]
    }
    salts = []
    for i in range(10_000):
        chosen = plugins.variant_values(texts, f"course-{i}")
        if missing & set(chosen.items()) and all(v != defaults[k] for k, v in chosen.items()):
            salts.append(f"course-{i}")
            missing -= set(chosen.items())
        if not missing:
            return salts
    raise AssertionError(f"no salt gives {missing}")


@pytest.mark.parametrize("ps", [ps for ps in SETS if hasattr(_submissions(ps), "VARIANT_ANSWERS")])
def test_course_variant_is_not_answered_by_the_public_key(ps, monkeypatch, scratch):
    """With CCB_GRADING_SALT the marked constants change in question and tests alike: for every course
    value of every constant, the public solutions lose the varied parts (all their points, or all but
    ``VARIANT_PUBLIC_POINTS``) and answers written for the course's constants get full marks.

    The first salt goes through nbgrader's ``generate_assignment`` (``CourseVariant``): the released
    question states the course's value, and the gradebook's test cells (what ``autograde`` runs) are
    the ones scored here."""
    _nbgrader()
    from nbgrader.api import Gradebook

    import ccb_helpers
    from ccb_helpers.grading.isolation import Cell, grade_cells

    data = _submissions(ps)
    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    texts = [c.source for c in source.cells]
    for number, salt in enumerate(_variant_salts(texts)):
        chosen = plugins.variant_values(texts, salt)
        monkeypatch.setenv("CCB_GRADING_SALT", salt)
        variant = [plugins.apply_variant(text, chosen) for text in texts]
        for name, value in chosen.items():  # the question states the course's value
            assert any(re.search(rf"\b{re.escape(value)}\$?<!-- course variant {name} -->", t) for t in variant), name
        if number == 0:
            course = scratch / "course"
            shutil.copytree(ASSIGNMENTS / "source" / ps, course / "source" / ps)
            for name in ("nbgrader_config.py", "ccb_nbgrader.py", "ccb_release.py", "ccb_collect.py"):
                shutil.copy(ASSIGNMENTS / name, course)
            _InProcess(course)("generate_assignment", ps, force=True)
            released = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
            for name, value in chosen.items():
                assert any(
                    re.search(rf"\b{re.escape(value)}\$?<!-- course variant {name} -->", c.source)
                    for c in released.cells
                ), name
            with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
                stored = {cell.name: cell.source for cell in gradebook.find_notebook(ps, ps).source_cells}
            for cell, text in zip(source.cells, variant):
                if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code":
                    assert stored[cell.metadata.nbgrader["grade_id"]] == text, cell.metadata.nbgrader["grade_id"]

        def scores(answers: dict, variant=variant, parts=data.PARTS if number == 0 else data.VARIANT_ANSWERS) -> dict:
            # Every part at the first salt; at the others only the varied parts (the rest do not change).
            cells = []
            for cell, text in zip(source.cells, variant):
                meta = cell.metadata.get("nbgrader", {})
                if cell.cell_type != "code":
                    continue
                grade_id = meta.get("grade_id", "")
                if grade_id.removesuffix("-tests") not in parts and not grade_id.endswith("-setup"):
                    continue
                if meta.get("grade"):
                    cells.append(Cell("test", text, meta["grade_id"]))
                elif meta.get("solution"):
                    cells.append(Cell("answer", answers.get(meta["grade_id"], cell.source), meta["grade_id"]))
                else:
                    cells.append(Cell("setup", text, meta["grade_id"]))
            outcomes, _ = grade_cells(cells, library=ccb_helpers, require_sandbox=False)
            return {c.grade_id[:-6]: o.score for c, o in zip(cells, outcomes) if c.kind == "test"}

        public = scores({})
        answers = {k: v.replace("{{", "\0").replace("}}", "\1") for k, v in data.VARIANT_ANSWERS.items()}
        for name, value in chosen.items():
            answers = {k: v.replace("{" + name + "}", value) for k, v in answers.items()}
        adapted = scores({k: v.replace("\0", "{").replace("\1", "}") for k, v in answers.items()})
        for part, points in data.PARTS.items():
            if part not in public:
                continue
            if part in data.VARIANT_ANSWERS:
                # The public key loses the part (all of it unless VARIANT_PUBLIC_POINTS names the points it keeps).
                kept = getattr(data, "VARIANT_PUBLIC_POINTS", {}).get(part, 0)
                assert public[part] == kept < points and adapted[part] == points, (
                    salt,
                    part,
                    public[part],
                    adapted[part],
                )
            else:
                assert public[part] == points, (salt, part, public[part])


def test_readme_lists_every_course_variant_constant():
    """assignments/README.md's table of the course variant is the notebooks' (not a second list typed by hand)."""
    _nbgrader()
    import ast

    in_notebooks = set()
    for ps in SETS:
        nb = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
        kept = getattr(_submissions(ps), "VARIANT_PUBLIC_POINTS", {})
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            for match in plugins.VARIANT_CODE.finditer(cell.source):
                part = meta["grade_id"].removesuffix("-tests")
                values = ", ".join(repr(v) for v in ast.literal_eval(match.group("choices")))
                in_notebooks.add(
                    (
                        ps,
                        f"`{part}` ({meta['points']:g})",
                        f"`{match.group('head').split('=')[0].strip()}` (`{match.group('name')}`)",
                        match.group("value").strip(),
                        values,
                        str(kept.get(part, 0)),
                    )
                )
    readme = (ASSIGNMENTS / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^ *\| (ps\d) \| ([^|]+) \| ([^|]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", readme, re.M)
    in_readme = {tuple(cell.strip() for cell in row) for row in rows}
    assert len(in_notebooks) >= 8 and {row[0] for row in in_notebooks} == set(SETS)
    assert in_readme == in_notebooks, (in_readme - in_notebooks, in_notebooks - in_readme)


def test_a_grade_cell_without_a_numeric_result_scores_zero():
    """nbgrader gives full points to a grade cell that ran without output; the course's config does not."""
    _nbgrader()
    from nbgrader import utils

    def grade_cell(outputs):
        cell = nbformat.v4.new_code_cell("part.score()", outputs=outputs)
        cell.metadata["nbgrader"] = {
            "grade": True,
            "grade_id": "x-tests",
            "locked": True,
            "points": 3,
            "schema_version": 3,
            "solution": False,
            "task": False,
        }
        return cell

    number = nbformat.v4.new_output("execute_result", data={"text/plain": "2.0"})
    cases = [
        ([], 0),
        ([nbformat.v4.new_output("stream", name="stdout", text="report")], 0),
        ([nbformat.v4.new_output("execute_result", data={"text/plain": "'full marks'"})], 0),
        ([nbformat.v4.new_output("execute_result", data={"text/plain": "99"})], 0),
        ([number], 2.0),
    ]
    assert utils.determine_grade(grade_cell([]))[0] == 3  # nbgrader alone: full points for nothing
    for outputs, want in cases:
        cell, _ = plugins.RequireNumericScore().preprocess_cell(grade_cell(outputs), {}, 0)
        assert utils.determine_grade(cell)[0] == want, (outputs, cell.outputs)


def test_feedback_preprocessors_take_the_html_exporters_config_without_a_warning(caplog):
    """``generate_feedback`` configures ``NbConvertBase.display_data_priority`` (nbconvert's HTML
    exporter); the course's preprocessors accept it, so the feedback run prints no warning that is no
    one's edit (it printed "not recognized by `HideTestCode`" in a teacher's run, #29)."""
    _nbgrader()
    import logging

    from nbconvert.exporters import HTMLExporter
    from nbgrader.preprocessors import NbGraderPreprocessor

    config = HTMLExporter().default_config
    assert "display_data_priority" in config.NbConvertBase
    with caplog.at_level(logging.WARNING):
        NbGraderPreprocessor(config=config)  # nbgrader's own base class does warn
    assert "not recognized" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        for cls in (
            plugins.HideTestCode,
            plugins.IsolatedGrading,
            plugins.RequireNumericScore,
            plugins.CoursePackage,
            plugins.CourseVariant,
        ):
            assert cls(config=config).display_data_priority == config.NbConvertBase.display_data_priority
    assert "not recognized" not in caplog.text, caplog.text


@pytest.mark.parametrize("ps", SETS)
def test_released_test_cells_report_the_visible_group_in_the_students_kernel(ps, monkeypatch):
    """A student runs the released notebook (hidden tests removed) in IPython with correct answers:
    every test cell reports its visible group and returns its point. The released cell raised
    ``RuntimeError: … the groups are worth 1 points, the part 3`` on every part (#29, a teacher's run)."""
    _nbgrader()
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.delenv("CCB_GRADING_SALT", raising=False)  # the default variant, which source/ answers
    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    reports = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            result = shell.run_cell(plugins.released_source(cell.source), store_history=False)
        assert result.error_before_exec is None and result.error_in_exec is None, (
            ps,
            meta.get("grade_id"),
            result.error_before_exec or result.error_in_exec,
        )
        if meta.get("grade"):
            assert "HIDDEN TESTS" not in plugins.released_source(cell.source)
            reports[meta["grade_id"]] = (result.result, out.getvalue())
    assert len(reports) == len(_submissions(ps).PARTS), ps  # every autograded part (ps4 has six)
    for grade_id, (points, report) in reports.items():
        assert points == 1, (grade_id, points, report)  # the intro: the visible tests are one group of 1 point
        assert "可见测试 1 / 1 分" in report and "隐藏测试" in report and "✗" not in report, (grade_id, report)


def test_export_flags_a_student_who_handed_in_nothing(tmp_path):
    """nbgrader exports every student of the gradebook under every set, 0.0 for one with no submission;
    ``needs_attention`` says ``no submission`` there, and stays empty for a graded notebook (#29: a
    teacher's export showed a missing ps6 exactly like a blank one)."""
    _nbgrader()
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(root=str(tmp_path))
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_assignment("ps1")
        gradebook.add_student("handed-in")
        gradebook.add_student("absent")
        gradebook.add_submission("ps1", "handed-in")
        (tmp_path / "submitted" / "handed-in" / "ps1").mkdir(parents=True)
        attention = plugins.FlaggedCsvExport._attention
        assert attention(coursedir, gradebook, "ps1", "absent") == "no submission"
        assert attention(coursedir, gradebook, "ps1", "handed-in") == ""


MUTANTS = [(ps, *mutant) for ps in SETS for mutant in getattr(_submissions(ps), "MUTANTS", [])]


# "s28": a salt under which ps9-steps' old "Bruck 的步长不够的 N" group drew only N = 13, 14, 15, where
# Bruck's steps meet the bound (1 salt in 22: teacher review of #40).
SALTS = ("", "course-2027", "a", "x1", "s28")


@pytest.mark.parametrize("ps, part, group, answer", MUTANTS, ids=[f"{m[1]}-{i}" for i, m in enumerate(MUTANTS)])
def test_a_group_fails_the_mistake_it_names(ps, part, group, answer, monkeypatch):
    """A hidden group named after a mistake contains cases on which that mistake is wrong (#29) —
    for every salt (#40: a group drawn at random held such cases under one salt and not another)."""
    import ccb_helpers
    from ccb_helpers.grading.isolation import Cell, grade_cells

    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    for salt in SALTS:
        monkeypatch.setenv("CCB_GRADING_SALT", salt)
        cells = [
            Cell("setup", source.cells[1].source),
            Cell("answer", answer),
            Cell("test", _cell(source, _tests_id(part)).source),
        ]
        outcomes, _ = grade_cells(cells, library=ccb_helpers, require_sandbox=False)
        report = outcomes[2].stdout
        line = next((row for row in report.splitlines() if f"✗ {group}（" in row), None)
        assert line is not None, (salt, report)
        assert "有" in line and "抛出了" not in line, (salt, line)  # a wrong value, not a crash of the mutant


@pytest.mark.parametrize("ps", SETS)
def test_partial_credit_does_not_depend_on_the_salt(ps, monkeypatch):
    """#40: the same weak answer earned 3/2/2 (ps7-cut), 4/3/4 (ps7-ruled), 2/0/2 (ps6-eager) points
    under three salts. Every group now contains the cases its name and hint promise whatever the
    salt: the weak student earns the same points, and the reference full marks, under each salt.
    The salt is set without ``generate_assignment``, so the model constants stay the default ones
    (the course variant is tested in test_course_variant…)."""
    data = _submissions(ps)
    for salt in SALTS:
        monkeypatch.setenv("CCB_GRADING_SALT", salt)
        weak = _scores_of(ps, data.WEAK)
        reference = _scores_of(ps, {})
        assert weak == {part: float(points) for part, points in data.WEAK_POINTS.items()}, (salt, weak)
        assert reference == {part: float(points) for part, points in data.PARTS.items()}, (salt, reference)


def _letters(text: str) -> str:
    """Letters, digits and CJK only: how Markdown and math are rendered does not matter."""
    return "".join(ch for ch in text if ch.isalnum())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_formgrader(course: pathlib.Path):
    """The Jupyter server of ``course`` (the Formgrader is its nbgrader extension): ``(server, port, token)``."""
    token, port = "ccb-test-token", _free_port()
    # Its log goes to a file beside the course: an unread pipe could fill while other commands run.
    with open(course.parent / "jupyter-server.log", "w", encoding="utf-8") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "server",
                "--no-browser",
                f"--port={port}",
                "--ip=127.0.0.1",
                f"--IdentityProvider.token={token}",
                "--ServerApp.open_browser=False",
                "--ServerApp.allow_root=True",
            ],
            cwd=course,
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    return server, port, token


def _stop(server) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _open_in_chromium(base: str, token: str, path: str) -> dict:
    """Open ``base + path`` in Debian's Chromium (the book's launch flags, tools/browser.py) as a teacher
    does — logged in to the Jupyter server through its login page, so that the page's own requests
    carry the session and XSRF cookies — and wait for whatever the page would run. What ran and
    what the page shows."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import browser
        from playwright.sync_api import sync_playwright
    finally:
        sys.path.remove(str(ROOT / "tools"))
    # In a thread of its own: a worker that ran the site's checks keeps their Chromium (tests/
    # conftest.py: page_pool) and with it playwright's event loop running in this thread, and a
    # second sync_playwright() here refused to start ("Sync API inside the asyncio loop").
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_formgrader_page, browser, sync_playwright, base, token, path).result()


def _formgrader_page(browser, sync_playwright, base: str, token: str, path: str) -> dict:
    with sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            page = chromium.new_page()
            page.goto(f"{base}/login?next=%2Fformgrader", wait_until="load", timeout=60000)
            page.fill("input[name=password]", token)
            page.click("button[type=submit], input[type=submit]")
            page.wait_for_load_state("load")
            page.goto(base + path, wait_until="load", timeout=60000)
            page.wait_for_timeout(3000)  # onerror, onload, async fetches: time to run and finish
            return page.evaluate(
                """() => ({
                    xss: window.__ccb_xss || 0,
                    text: document.body.innerText,
                    marker: (document.body.innerText.match(/XSS-MARKER-TEXT/g) || []).length,
                    unsafe: [...document.querySelectorAll('#notebook-container *')].flatMap(e =>
                        [...e.attributes].filter(a => /^on/i.test(a.name) ||
                            /^\\s*javascript:/i.test(a.value)).map(a => e.tagName + ' ' + a.name + '=' + a.value)
                    ).concat([...document.querySelectorAll('#notebook-container script, #notebook-container svg')]
                        .map(e => e.tagName)),
                })"""
            )
        finally:
            chromium.close()


def _check_formgrader(run, problems) -> None:
    """Manual grading as the README describes it: the Formgrader inside the Jupyter server
    (started by ``_grade`` once the grades were in the gradebook)."""
    ps = SETS[0]
    course, data = run["course"], run["data"]
    server, port, token = run["formgrader"]
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"token {token}"}

    def call(path, method="GET", body=None):
        request = urllib.request.Request(
            base + path,
            method=method,
            headers=dict(headers, **({"Content-Type": "application/json"} if body else {})),
            data=json.dumps(body).encode() if body is not None else None,
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.read().decode("utf-8")

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call("/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log = (course.parent / "jupyter-server.log").read_text(encoding="utf-8")
                    problems.append("jupyter server did not start: " + log[-2000:])
                    return
                time.sleep(0.05)
        submissions = json.loads(call(f"/formgrader/api/submitted_notebooks/{ps}/{ps}"))
        weak = next(s for s in submissions if s["student"] == "weak")
        page = _letters(_visible_text(call(f"/formgrader/submissions/{weak['id']}/")))
        rubric = [_letters(line) for line in _hidden_lines(run["source"]) if line.startswith("- **")]
        if not (len(rubric) >= 3 and all(line[:30] in page for line in rubric) and "评分细则" in page):
            problems.append("the Formgrader does not show the rubric")
        grades = json.loads(call(f"/formgrader/api/grades?submission_id={weak['id']}"))
        written = next(g for g in grades if g["name"] == data.WRITTEN[0])
        call(f"/formgrader/api/grade/{written['id']}", "PUT", {"manual_score": 2})
        xss = next(s for s in submissions if s["student"] == "xss")
        before = json.loads(call(f"/formgrader/api/grades?submission_id={xss['id']}"))
        shown = _open_in_chromium(base, token, f"/formgrader/submissions/{xss['id']}/")
        after = json.loads(call(f"/formgrader/api/grades?submission_id={xss['id']}"))
        if shown["xss"] or (course / "pwned.txt").exists() or after != before:
            problems.append(
                f"the student's Markdown ran in the teacher's Formgrader: script ran {shown['xss']} times, "
                f"pwned.txt {(course / 'pwned.txt').exists()}, grades changed {after != before}"
            )
        if shown["marker"] < 4 or "onerror" not in shown["text"]:
            problems.append(f"the Formgrader does not show the student's text as text: {shown['text'][:300]!r}")
        if shown["unsafe"]:
            problems.append(f"the Formgrader page has script the student wrote: {shown['unsafe'][:3]}")
    finally:
        _stop(server)
    _run(_nbgrader() + ["export", "--to", str(course / "grades_after_manual.csv")], course)
    with open(course / "grades_after_manual.csv", newline="", encoding="utf-8") as handle:
        after = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    if after["weak"] != run["totals"]["weak"][0] + 2:
        problems.append(f"the manual score did not reach the export: {after['weak']} vs {run['totals']['weak'][0]} + 2")


def test_a_students_markdown_reaches_the_teacher_as_inert_html():
    """Every way Markdown carries script (#40) comes out as text; formulas, formatting and the cell's
    own images stay; the block passes through the Formgrader's renderer unchanged. The browser test
    is ``test_problem_set_grades_a_class_with_cheaters[ps1]`` (the Formgrader in Chromium)."""
    _nbgrader()
    import base64
    from html.parser import HTMLParser

    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from ccb_helpers.grading.markup import inert_markdown, inert_text

    class Elements(HTMLParser):
        def __init__(self):
            super().__init__()
            self.found, self.text = [], []

        def handle_starttag(self, tag, attrs):
            self.found.append((tag, dict(attrs)))

        def handle_data(self, data):
            self.text.append(data)

    png = base64.b64encode(b"\x89PNG\r\n").decode()
    vectors = [
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        '<svg onload="alert(1)"></svg>',
        "<iframe src=javascript:alert(1)></iframe>",
        '<a href="javascript:alert(1)">x</a>',
        "[x](javascript:alert(1)) [y](&#106;avascript:alert(1)) [z](data:text/html,<script>1</script>)",
        "```mermaid\n<img src=x onerror=alert(1)>\n```",
        '<div style="background:url(javascript:alert(1))" onclick=alert(1)>x</div>',
        "![t](http://tracker.example/p.png)",
        "<style>body{display:none}</style>",
        "<!-- <script>alert(1)</script> -->",
        "<details open ontoggle=alert(1)>",
        "# <img src=x onerror=alert(1)>",
        "| <img src=x onerror=alert(1)> |\n|---|\n| x |",
    ]
    source = "\n\n".join(
        [
            "证明：$a < b$，且 $$\\frac{1}{2} \\href{javascript:alert(1)}{x}$$ **粗体**",
            *vectors,
            "![mine](attachment:m.png)",
        ]
    )
    for block in (inert_markdown(source, {"m.png": {"image/png": png}}), inert_text(source)):
        assert "\n" not in block and block.startswith('<div class="ccb-student-text">')
        assert markdown2html_mistune(block).strip() == block  # the Formgrader's renderer leaves it as it is
        parsed = Elements()
        parsed.feed(block)
        for tag, attrs in parsed.found:
            assert tag not in ("script", "svg", "iframe", "style", "details", "object", "embed"), (tag, attrs)
            for name, value in attrs.items():
                assert not name.startswith("on") and name not in ("style", "id"), (tag, name, value)
                if name in ("href", "src"):
                    assert value.startswith(("https://", "http://", "mailto:", "#", "data:image/png;base64,")), value
                    assert not (tag == "img" and value.startswith("http")), value  # no request leaves the browser
        text = "".join(parsed.text)
        assert "onerror=alert(1)" in text and "<script>alert(1)</script>" in text  # shown, not dropped
        assert "\\href" not in text and "\\\u200bhref" in text  # MathJax's link command broken
    inert = inert_markdown(source, {"m.png": {"image/png": png}})
    assert "<strong>粗体</strong>" in inert and "$a &lt; b$" in inert and "\\frac{1}{2}" in inert
    assert f'src="data:image/png;base64,{png}"' in inert


def test_a_notebook_of_huge_markdown_cells_is_made_inert_within_a_total(monkeypatch):
    """Teacher review of #40: making a Markdown cell inert costs the grader ~20 µs a character
    (200 000 ``<`` took 7 s), outside every time budget, and a notebook may hold any number of
    cells: 50 added cells of 200 000 ``<`` held autograde for minutes. The cells are made inert
    within ``MAX_NOTEBOOK_CHARS`` in all, the written answer first; the rest say where to read them."""
    _nbgrader()
    from ccb_helpers.grading import markup

    rendered = []
    real_markdown, real_text = markup.inert_markdown, markup.inert_text
    monkeypatch.setattr(markup, "inert_markdown", lambda text, *a: rendered.append(len(text)) or real_markdown("x"))
    monkeypatch.setattr(markup, "inert_text", lambda text: rendered.append(len(text)) or real_text("x"))
    monkeypatch.setattr(plugins.InertStudentText, "_locked_sources", staticmethod(lambda resources: {}))
    huge = "<" * markup.MAX_MARKDOWN_CHARS
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(huge) for _ in range(30)] + [nbformat.v4.new_raw_cell(huge)]
    written = nbformat.v4.new_markdown_cell("我的证明", metadata={"nbgrader": {"solution": True, "grade_id": "x"}})
    nb.cells.append(written)
    nb, _ = plugins.InertStudentText().preprocess(nb, {})
    assert sum(rendered) <= markup.MAX_NOTEBOOK_CHARS and rendered[0] == len("我的证明"), rendered
    assert nb.cells[-1].source == real_markdown("x")  # the written answer, rendered although it comes last
    skipped = [c.source for c in nb.cells if "没有显示" in c.source]
    assert len(skipped) == len(nb.cells) - len(rendered) and all(c.cell_type == "markdown" for c in nb.cells)
    assert skipped[0] == markup.not_shown(len(huge))


_PERTURB = r"""
import numpy as _np
def _perturbed(value, how):
    if type(value) is float or isinstance(value, _np.floating):
        return how(float(value))
    if isinstance(value, _np.ndarray) and value.dtype.kind == "f":
        return _np.array([how(float(x)) for x in value.ravel()]).reshape(value.shape)
    if type(value) in (list, tuple, set, frozenset):
        return type(value)(_perturbed(item, how) for item in value)
    if type(value) is dict:
        return {key: _perturbed(item, how) for key, item in value.items()}
    return value
"""


def _scores_of(ps: str, answers: dict) -> dict:
    """Each part's score with ``answers`` (``{grade_id: source}``; the reference for the others)."""
    import ccb_helpers
    from ccb_helpers.grading.isolation import Cell, grade_cells

    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    cells = []
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        if meta.get("grade"):
            cells.append(Cell("test", cell.source, meta["grade_id"]))
        elif meta.get("solution"):
            cells.append(Cell("answer", answers.get(meta["grade_id"], cell.source), meta["grade_id"]))
        else:
            cells.append(Cell("setup", cell.source, meta.get("grade_id")))
    outcomes, _ = grade_cells(cells, library=ccb_helpers, require_sandbox=False)
    return {c.grade_id.removesuffix("-tests"): o.score for c, o in zip(cells, outcomes) if c.kind == "test"}


def _scores_with_floats(ps: str, how: str) -> dict:
    """Each part's score when every float the reference solution returns is replaced by ``how``."""
    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    answers = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            name = re.search(r"^def (\w+)\(", cell.source, re.M).group(1)
            answers[meta["grade_id"]] = (
                f"{_PERTURB}\n{cell.source}\n_real_{name} = {name}\n"
                f"def {name}(*args, **kwargs):\n    return _perturbed(_real_{name}(*args, **kwargs), lambda x: {how})\n"
            )
    return _scores_of(ps, answers)


@pytest.mark.parametrize("ps", SETS)
def test_nan_fails_every_float_comparison_of_every_part(ps, monkeypatch):
    """#40: ``abs(x - y) > tol`` is False for NaN, so NaN passed hidden checks (ps6-shared 3/3,
    ps8-intervals 4/4). Every float each reference answer returns is replaced by NaN, and — the
    oracle — by a wrong finite number: NaN must never score more than the wrong number, and a part
    whose answers carry floats must lose points. Runs over every set present (a new set or part
    is covered without a change here)."""
    monkeypatch.delenv("CCB_GRADING_SALT", raising=False)
    data = _submissions(ps)
    nan = _scores_with_floats(ps, 'float("nan")')
    wrong = _scores_with_floats(ps, "x * 1.001 + 1e-3")
    infinite = _scores_with_floats(ps, 'float("inf")')
    assert set(nan) == set(data.PARTS), (ps, nan)
    for part, points in data.PARTS.items():
        assert nan[part] <= wrong[part] and infinite[part] <= wrong[part], (
            part,
            nan[part],
            infinite[part],
            wrong[part],
        )
        if wrong[part] < points:  # the part's answers carry floats that matter
            assert nan[part] < points and infinite[part] < points, (part, nan[part], points)


def test_test_cells_compare_floats_through_the_shared_helper():
    """One float comparison for every set (``grading.close``, NaN-safe): no test cell compares an
    ``abs(…)`` or calls ``math.isclose`` itself (``abs(x - y) > tol`` passed NaN, #40)."""
    import ast

    found = []
    for ps in SETS:
        for cell in nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            for node in ast.walk(ast.parse(cell.source)):
                calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)] if isinstance(node, ast.Compare) else []
                if any(isinstance(c.func, ast.Name) and c.func.id == "abs" for c in calls):
                    found.append((meta["grade_id"], node.lineno, ast.unparse(node)))
                if isinstance(node, ast.Attribute) and node.attr == "isclose":
                    found.append((meta["grade_id"], node.lineno, ast.unparse(node)))
    assert not found, found


@pytest.mark.parametrize("ps, part", [("ps6", "ps6-shared"), ("ps6", "ps6-relfit"), ("ps8", "ps8-fit")])
def test_pair_answers_are_graded_item_by_item(ps, part, monkeypatch):
    """#40: a pair answer was all-or-nothing. The reference with one item of its pair wrong keeps
    the other item's points (and loses its own)."""
    monkeypatch.delenv("CCB_GRADING_SALT", raising=False)
    source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
    answer = _cell(source, part).source
    name = re.search(r"^def (\w+)\(", answer, re.M).group(1)
    points = _submissions(ps).PARTS[part]
    for wrong in (0, 1):
        broken = (
            f"{answer}\n_real_{name} = {name}\ndef {name}(*args, **kwargs):\n"
            f"    pair = list(_real_{name}(*args, **kwargs))\n    pair[{wrong}] = pair[{wrong}] * 1.5 + 1.0\n"
            "    return tuple(pair)\n"
        )
        score = _scores_of(ps, {part: broken})[part]
        assert 0 < score < points, (part, wrong, score)


def test_a_released_test_cell_warns_when_the_answer_relies_on_a_cell_grading_does_not_run(monkeypatch):
    """#40: a helper defined in a cell the student added showed ✓ in the student's kernel and scored 0
    when graded. The released setup cell names the answer cells (MarkAnswerCells); the test cell
    warns — with cell ids from the front end, and without them."""
    _nbgrader()
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell

    from ccb_helpers.grading import tracking

    monkeypatch.delenv("CCB_GRADING_SALT", raising=False)
    source = nbformat.read(ASSIGNMENTS / "source" / "ps1" / "ps1.ipynb", as_version=4)
    released, _ = plugins.MarkAnswerCells().preprocess(copy.deepcopy(source), {})
    setup = next(c for c in released.cells if "answer_cells" in c.source)
    answer, test = _cell(released, "ps1-replicas"), _cell(released, "ps1-replicas-tests")
    reference = answer.source
    helper = "def _rounds(n, s, k):\n" + "\n".join(reference.split("\n")[1:]).replace("### BEGIN SOLUTION", "")
    calling = "def replica_rounds(n, s, k):\n    return _rounds(n, s, k)\n"

    def run(cells, ids=True) -> str:
        shell = InteractiveShell.instance()
        shell.reset(new_session=False)
        monkeypatch.setattr(tracking, "_TRACKER", None)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for cell_id, text in cells:
                result = shell.run_cell(
                    plugins.released_source(text), store_history=False, cell_id=cell_id if ids else None
                )
                assert result.error_in_exec is None, (cell_id, result.error_in_exec)
        for event in ("pre_run_cell", "post_run_cell"):
            with contextlib.suppress(ValueError):
                shell.events.unregister(event, getattr(tracking._TRACKER, event))
        return out.getvalue()

    for ids in (True, False):
        added = run(
            [("ps1-setup", setup.source), ("added-1", helper), ("ps1-replicas", calling), ("t", test.source)], ids
        )
        assert "⚠ replica_rounds 用到的 _rounds 不是在答题单元格里定义的" in added, (ids, added)
        copied = run(
            [
                ("ps1-setup", setup.source),
                ("ps1-replicas", calling + helper),
                ("pasted-7", reference),
                ("t", test.source),
            ],
            ids,
        )
        assert ("⚠ replica_rounds 本身不是在答题单元格里定义的" in copied) is ids, (
            ids,
            copied,
        )  # no ids: a copy looks like the answer
        own = run([("ps1-setup", setup.source), ("ps1-replicas", helper + "\n" + calling), ("t", test.source)], ids)
        assert "⚠" not in own and "可见测试 1 / 1 分" in own, (ids, own)


def test_zip_collect_records_upload_times_and_late_penalties_apply(scratch):
    """#40: ``grades.csv`` had no timestamps, so late penalties never applied. With the times the
    LMS's files carry (``timestamp_from_file_time``), a due date and a penalty, the README's
    commands give the late student the penalty in the export; a second, older file of the same
    student is skipped, not a stop for the class."""
    nbgrader = _nbgrader()
    ps = SETS[0]
    course = scratch / "course"
    shutil.copytree(ASSIGNMENTS / "source" / ps, course / "source" / ps)
    for name in ("nbgrader_config.py", "ccb_nbgrader.py", "ccb_release.py", "ccb_collect.py"):
        shutil.copy(ASSIGNMENTS / name, course)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(
            '\nc.CourseFileNameCollector.timestamp_from_file_time = True\nc.LateSubmissionPlugin.penalty_method = "zero"\n'
        )
    _run(nbgrader + ["generate_assignment", ps, "--force"], course)
    _run(nbgrader + ["db", "assignment", "add", ps, "--duedate=2027-03-15 23:59:00 UTC"], course)
    release = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ps / f"{ps}.ipynb", as_version=4)
    answered = copy.deepcopy(release)
    for cell in source.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            _cell(answered, cell.metadata.nbgrader["grade_id"]).source = cell.source
    archive = course / "downloaded" / ps / "archive"
    (archive / "attempt-1").mkdir(parents=True)

    def upload(path, nb, when):
        path.write_text(nbformat.writes(nb), encoding="utf-8")
        stamp = time.mktime(time.strptime(when, "%Y-%m-%d %H:%M")) - time.timezone
        os.utime(path, (stamp, stamp))

    upload(archive / f"ontime_{ps}.ipynb", answered, "2027-03-14 10:00")
    upload(archive / f"late_{ps}.ipynb", answered, "2027-03-16 09:00")
    upload(archive / "attempt-1" / f"late_{ps}.ipynb", release, "2027-03-13 08:00")  # an older attempt
    collected = _run(nbgrader + ["zip_collect", ps], course)
    assert "Student late has 2 files for ps1: collected the newest" in collected, collected[-3000:]
    _run(nbgrader + ["autograde", ps, "--create", "--force"], course)
    _run(nbgrader + ["export", "--to", str(course / "grades.csv")], course)
    with open(course / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    full = _submissions(ps).AUTOGRADED_POINTS
    assert rows["ontime"]["timestamp"].startswith("2027-03-14 10:00"), rows["ontime"]
    assert float(rows["ontime"]["raw_score"]) == full and float(rows["ontime"]["late_submission_penalty"]) == 0
    assert rows["late"]["timestamp"].startswith("2027-03-16 09:00"), rows["late"]
    assert float(rows["late"]["raw_score"]) == full and float(rows["late"]["score"]) == 0  # penalty "zero"


@pytest.mark.parametrize("requirement", ["", "ccb_helpers @ https://example.edu/ccb_helpers-0.1.0-py3-none-any.whl"])
def test_the_released_setup_cell_has_no_unreachable_line(requirement, monkeypatch):
    """#40: with no package source configured, the released setup cell raised ImportError and kept an
    ``import ccb_helpers as ccb`` after it that could never run. Every set's released setup cell:
    no statement after a ``raise`` in the same block; with a source, the install line and the import."""
    _nbgrader()
    import ast

    monkeypatch.delenv("CCB_PACKAGE_SOURCE", raising=False)
    for ps in SETS:
        source = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
        setup = next(c for c in source.cells if plugins.INSTALL_LINE.search(c.source))
        cell, _ = plugins.CoursePackage(source=requirement).preprocess_cell(copy.deepcopy(setup), {}, 0)
        assert "ccb-package-source" not in cell.source and REPOSITORY not in cell.source
        if requirement:
            assert (
                f"%pip install -q {json.dumps(requirement)}" in cell.source
                and cell.source.count("import ccb_helpers as ccb") == 2
            )
            continue
        for node in ast.walk(ast.parse(cell.source)):
            for body in (getattr(node, "body", None), getattr(node, "orelse", None), getattr(node, "finalbody", None)):
                if isinstance(body, list):
                    raises = [i for i, statement in enumerate(body) if isinstance(statement, ast.Raise)]
                    assert not raises or raises[0] == len(body) - 1, (ps, ast.unparse(node))
        assert "raise ImportError(" in cell.source, ps
