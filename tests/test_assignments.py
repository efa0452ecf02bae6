"""The problem sets, graded the way assignments/README.md tells a teacher to grade them.

For every problem set, a scratch course gets the README's commands, in order: ``generate_assignment``,
``zip_collect`` of uploaded notebooks (some loose, some in a zip), ``autograde``,
``generate_feedback`` and ``export`` (collect and export on the first set only: each nbgrader command
costs seconds of start-up, the other sets put the notebooks in place and read the gradebook).
Five generated submissions per set:

* ``perfect`` — the source notebook: full marks on every part;
* ``blank`` — the student version as handed out: zero on every part;
* ``weak`` — a realistic weak student (floating ``log``, off-by-one, a forgotten case…) who also
  "fixed" the first test cell: the cell is restored (the only one autograde warns about) and
  every part earns the points listed in ``tests/assignment_submissions/<set>.py``, partial overall;
* ``library`` — every answer calls the library's implementation: zero on every part;
* ``hardcoded`` — every answer returns the visible cases from a lookup table: zero on every part.

Per-part scores come from the gradebook; the feedback pages must not contain a line of hidden test
code or of a rubric. The Formgrader (the nbgrader extension of the Jupyter server) is exercised on
one set: its grading page shows the rubric and a manual score entered through its API reaches
the exported grades.

Needs nbgrader (``pip install -r requirements-teacher.txt``): skipped without it, failed under CI.
"""

from __future__ import annotations

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
import time
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments"
SETS = sorted(p.name for p in (ASSIGNMENTS / "source").iterdir() if p.is_dir())
STUDENTS = ("perfect", "blank", "weak", "library", "hardcoded")


def _submissions(ps: str):
    spec = importlib.util.spec_from_file_location(f"submissions_{ps}", ROOT / "tests" / "assignment_submissions" / f"{ps}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _plugins():
    spec = importlib.util.spec_from_file_location("ccb_nbgrader", ASSIGNMENTS / "ccb_nbgrader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nbgrader() -> list[str]:
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("nbgrader is required under CI: pip install -r requirements-teacher.txt")
        pytest.skip("nbgrader not installed: pip install -r requirements-teacher.txt to test the problem sets")
    return [sys.executable, "-m", "nbgrader"]


def _env():
    return dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


# A kernel that dies while starting (a TCP port taken between jupyter_client choosing it and the
# kernel binding it: many kernels start at once on a busy machine) says nothing about the problem set.
KERNEL_START_FAILURE = "Kernel died before replying to kernel_info"


def _run(args, cwd, attempts=2):
    for _attempt in range(attempts):
        done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True)
        output = done.stdout + done.stderr
        if done.returncode == 0 or KERNEL_START_FAILURE not in output:
            break
    assert done.returncode == 0, output[-6000:]
    return output


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _make_submissions(ps: str, source, release) -> dict:
    data = _submissions(ps)
    weak = copy.deepcopy(source)
    for grade_id, text in data.WEAK.items():
        _cell(weak, grade_id).source = text
    _cell(weak, data.WRITTEN[0]).source = data.WEAK_ANSWER
    library, hardcoded = copy.deepcopy(source), copy.deepcopy(source)
    for grade_id in data.PARTS:
        _cell(library, grade_id).source = data.LIBRARY[grade_id]
        _cell(hardcoded, grade_id).source = data.HARDCODED[grade_id]
    first_test = f"{next(iter(data.PARTS))}-tests"
    _cell(weak, first_test).source = "assert True  # the student 'fixed' the test"
    return {"perfect": source, "blank": release, "weak": weak, "library": library, "hardcoded": hardcoded}


def _grade_problem_set(ps: str, nbgrader: list[str], workdir: pathlib.Path) -> dict:
    """Run the README's teacher workflow on one problem set; return everything the tests check."""
    course = workdir / ps
    shutil.copytree(ASSIGNMENTS / "source" / ps, course / "source" / ps)
    for name in ("nbgrader_config.py", "ccb_nbgrader.py"):
        shutil.copy(ASSIGNMENTS / name, course)
    log = {"generate": _run(nbgrader + ["generate_assignment", ps, "--force"], course)}
    release = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ps / f"{ps}.ipynb", as_version=4)
    submissions = _make_submissions(ps, source, release)

    if ps == SETS[0]:
        # The README's collect step: uploads as an LMS hands them over, <student>_<assignment>.ipynb,
        # two of them zipped. (The other sets put the notebooks in place directly: every nbgrader
        # command costs seconds of start-up, and one set is enough to test zip_collect and export.)
        archive = course / "downloaded" / ps / "archive"
        archive.mkdir(parents=True)
        with zipfile.ZipFile(archive / "batch.zip", "w") as bundle:
            for student, nb in submissions.items():
                text = nbformat.writes(nb)
                if student in ("library", "hardcoded"):
                    bundle.writestr(f"{student}_{ps}.ipynb", text)
                else:
                    (archive / f"{student}_{ps}.ipynb").write_text(text, encoding="utf-8")
        log["collect"] = _run(nbgrader + ["zip_collect", ps], course)
    else:
        for student, nb in submissions.items():
            path = course / "submitted" / student / ps / f"{ps}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(nb, path)
    collected = sorted(p.parent.parent.name for p in (course / "submitted").glob(f"*/{ps}/{ps}.ipynb"))
    digests = {s: _digest(course / "submitted" / s / ps / f"{ps}.ipynb") for s in collected}

    log["autograde"] = _run(nbgrader + ["autograde", ps, "--create", "--force"], course)
    log["feedback"] = _run(nbgrader + ["generate_feedback", ps, "--force"], course)

    from nbgrader.api import Gradebook

    parts, totals = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in collected:
            notebook = gradebook.find_submission_notebook(ps, ps, student)
            parts[student] = {grade.name: (grade.score, grade.max_score, grade.needs_manual_grade) for grade in notebook.grades}
            totals[student] = (float(notebook.score), float(notebook.max_score))
    if ps == SETS[0]:
        _run(nbgrader + ["export", "--to", str(course / "grades.csv")], course)
        with open(course / "grades.csv", newline="") as handle:
            exported = {row["student_id"]: (float(row["raw_score"]), float(row["max_score"])) for row in csv.DictReader(handle)}
        assert exported == totals, (exported, totals)
    after = {s: _digest(course / "submitted" / s / ps / f"{ps}.ipynb") for s in collected}
    feedback = {s: (course / "feedback" / s / ps / f"{ps}.html").read_text(encoding="utf-8") for s in collected}
    return dict(course=course, log=log, collected=collected, totals=totals, parts=parts, digests=digests,
                after=after, feedback=feedback, source=source, release=release, data=_submissions(ps))


@pytest.fixture(scope="module")
def all_graded(tmp_path_factory):
    # The sets are graded four at a time: most of the time is nbgrader start-up and kernel
    # launches, which overlap well on two cores (more at once only adds kernel-start races).
    nbgrader = _nbgrader()
    workdir = tmp_path_factory.mktemp("assignments")
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {ps: pool.submit(_grade_problem_set, ps, nbgrader, workdir) for ps in SETS}
        return {ps: future.result() for ps, future in futures.items()}


@pytest.fixture(params=SETS)
def graded(request, all_graded):
    return request.param, all_graded[request.param]


def _tests_id(part: str) -> str:
    return f"{part}-tests"


def test_every_submission_is_collected(graded):
    _, run = graded
    assert run["collected"] == sorted(STUDENTS)  # the first set: by zip_collect from loose files and a zip


def test_reference_gets_full_marks_and_blank_gets_zero(graded):
    _, run = graded
    data, parts = run["data"], run["parts"]
    for part, points in data.PARTS.items():
        assert parts["perfect"][_tests_id(part)][:2] == (points, points), part
        assert parts["blank"][_tests_id(part)][0] == 0, part
    written, written_points = data.WRITTEN
    assert parts["blank"][written] == (0, written_points, False)  # an untouched answer scores 0 by itself
    assert parts["perfect"][written][2] is True  # a real answer waits for the grader
    auto = data.AUTOGRADED_POINTS
    assert run["totals"]["perfect"] == (auto, auto + written_points)
    assert run["totals"]["blank"] == (0, auto + written_points)


def test_weak_student_gets_partial_credit(graded):
    _, run = graded
    data, parts = run["data"], run["parts"]
    for part, points in data.WEAK_POINTS.items():
        assert parts["weak"][_tests_id(part)][0] == points, part
    assert 0 < run["totals"]["weak"][0] < data.AUTOGRADED_POINTS
    assert any(0 < data.WEAK_POINTS[p] < data.PARTS[p] for p in data.PARTS)  # credit within a part


@pytest.mark.parametrize("student", ["library", "hardcoded"])
def test_shortcuts_score_zero_on_every_part(graded, student):
    _, run = graded
    for part in run["data"].PARTS:
        assert run["parts"][student][_tests_id(part)][0] == 0, part


def test_only_the_edited_test_cell_is_reported(graded):
    """Untouched cells get their hidden tests back silently; the weak student's edit is reported."""
    _, run = graded
    data = run["data"]
    changed = [line for line in run["log"]["autograde"].splitlines() if "has changed" in line]
    assert len(changed) == 1 and _tests_id(next(iter(data.PARTS))) in changed[0], changed


def test_grading_leaves_submissions_untouched(graded):
    _, run = graded
    assert run["after"] == run["digests"]


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


def test_feedback_shows_results_not_test_code(graded):
    ps, run = graded
    hidden = _hidden_lines(run["source"])
    assert len(hidden) > 20  # the check below has something to find
    course = run["course"]
    for student, page in run["feedback"].items():
        text = _visible_text(page)
        # A hidden line may also be a line the student wrote (the reference solution repeats
        # itself) or a line of the handed-out notebook: those are not leaks.
        own = _shown_lines(nbformat.read(course / "submitted" / student / ps / f"{ps}.ipynb", as_version=4))
        own += "\n" + _shown_lines(run["release"])
        leaked = [line for line in hidden if line in text and line not in own]
        assert not leaked, (student, leaked[:3])
        assert "BEGIN HIDDEN TESTS" not in page and "MARK SCHEME" not in page and "评分细则" not in page
    weak = _visible_text(run["feedback"]["weak"])
    assert f"{next(iter(run['data'].PARTS))}：" in weak and "✗" in weak  # the graders' report is there
    # The same check finds the hidden lines in the autograded notebook, where they belong.
    autograded = _shown_lines(nbformat.read(course / "autograded" / "weak" / ps / f"{ps}.ipynb", as_version=4))
    own = _shown_lines(nbformat.read(course / "submitted" / "weak" / ps / f"{ps}.ipynb", as_version=4)) + _shown_lines(run["release"])
    exclusive = [line for line in hidden if line not in own]
    assert len(exclusive) > 5 and all(line in autograded for line in exclusive)


def test_student_version_hides_solutions_tests_and_rubric(graded):
    ps, run = graded
    text = nbformat.writes(run["release"])
    for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "MARK SCHEME", "评分细则"):
        assert marker not in text
    assert "raise NotImplementedError()" in text
    assert not any("nbgrader" in c.source for c in run["release"].cells if c.cell_type == "code")


def test_problem_set_structure():
    """≥ 5 autograded parts and one written part; the text states the counts and return types."""
    for ps in SETS:
        nb = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
        graded_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        auto = [c for c in graded_cells if c.cell_type == "code"]
        manual = [c for c in graded_cells if c.cell_type == "markdown"]
        assert len(auto) >= 5 and len(manual) == 1, ps
        assert all("BEGIN HIDDEN TESTS" in c.source and c.source.rstrip().endswith("### END HIDDEN TESTS") for c in auto), ps
        points = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in graded_cells}
        auto_points = sum(c.metadata["nbgrader"]["points"] for c in auto)
        intro = nb.cells[0].source
        assert f"共 {len(graded_cells)} 题：{len(auto)} 道自动评分题（{auto_points:g} 分）" in intro, ps
        questions = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## ")]
        assert len(questions) == len(graded_cells), ps
        for number, (question, cell) in enumerate(zip(questions, graded_cells), 1):
            assert question.startswith(f"## {number}.（{points[cell.metadata['nbgrader']['grade_id']]:g} 分"), (ps, number)
            if cell.cell_type == "code":
                assert re.search(r"返回.*\*\*`(int|float|str|bool|list|set|tuple|dict|ccb\.Schedule|fractions\.Fraction)`", question, re.S), (ps, number)
            else:
                assert "<!-- BEGIN MARK SCHEME -->" in question and re.search(r"\*\*\d+(\.\d+)? 分\*\*", question), (ps, number)
        data = _submissions(ps)
        assert set(data.PARTS) == {c.metadata["nbgrader"]["grade_id"][: -len("-tests")] for c in auto}, ps


def _letters(text: str) -> str:
    """Letters, digits and CJK only: how Markdown and math are rendered does not matter."""
    return "".join(ch for ch in text if ch.isalnum())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_formgrader_shows_rubric_and_records_manual_points(all_graded):
    """Manual grading as the README describes it: the Formgrader inside the Jupyter server."""
    ps = SETS[0]
    run = all_graded[ps]
    course, data = run["course"], run["data"]
    token, port = "ccb-test-token", _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False", "--ServerApp.allow_root=True"],
        cwd=course, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"token {token}"}

    def call(path, method="GET", body=None):
        request = urllib.request.Request(base + path, method=method, headers=dict(headers, **({"Content-Type": "application/json"} if body else {})),
                                         data=json.dumps(body).encode() if body is not None else None)
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.read().decode("utf-8")

    try:
        for _ in range(120):
            try:
                call("/api/status")
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("jupyter server did not start: " + server.stderr.read()[-2000:])
        submissions = json.loads(call(f"/formgrader/api/submitted_notebooks/{ps}/{ps}"))
        weak = next(s for s in submissions if s["student"] == "weak")
        page = _letters(_visible_text(call(f"/formgrader/submissions/{weak['id']}/")))
        rubric = [_letters(line) for line in _hidden_lines(run["source"]) if line.startswith("- **")]
        assert len(rubric) >= 3 and all(line[:30] in page for line in rubric)
        assert "评分细则" in page
        grades = json.loads(call(f"/formgrader/api/grades?submission_id={weak['id']}"))
        written = next(g for g in grades if g["name"] == data.WRITTEN[0])
        call(f"/formgrader/api/grade/{written['id']}", "PUT", {"manual_score": 2})
    finally:
        server.terminate()
        server.wait(timeout=30)
    _run(_nbgrader() + ["export", "--to", str(course / "grades_after_manual.csv")], course)
    with open(course / "grades_after_manual.csv", newline="") as handle:
        after = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    assert after["weak"] == run["totals"]["weak"][0] + 2
