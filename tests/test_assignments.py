"""The problem sets: execute, release, autograde and export, exactly as a teacher would.

For each problem set a scratch copy of ``assignments/`` gets four submissions: the source notebook
(full marks), the blank student version (zero on every autograded part), one wrong in a single
hidden case (loses exactly that part), and the same wrong one with its test cell edited (nbgrader
restores the test, so it scores the same). Scores are read from ``nbgrader export``'s CSV; the
submitted files must come out of grading byte for byte unchanged.

Needs nbgrader (``pip install -r requirements-teacher.txt``): skipped without it, failed under CI.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "assignments"

# problem set -> (autograded points, grade_id of the part the wrong submission gets wrong, its points,
#                 the wrong solution cell's source)
CASES = {
    "ps1": (11, "ps1-ring-tests", 2, "ps1-ring", "def ring_broadcast_rounds(n):\n    return n // 2  # the diameter: wrong for odd n\n"),
    "ps2": (11, "ps2-dispatch-tests", 3, "ps2-dispatch",
            "import numpy as np\n\ndef dispatch_bound(matrix, beta):\n    r = np.array(matrix, dtype=float)\n"
            "    np.fill_diagonal(r, 0.0)\n    return r.sum(axis=0).max() / beta  # receive side only\n"),
    "ps3": (10, "ps3-schedule-tests", 4, "ps3-schedule",
            "T = ccb.Transfer\n# 0<->3 and 1<->2 first: right answer, but those are not hypercube links\n"
            "rounds = [[T(i, 3 - i, 16 * i, 16) for i in range(4)],\n"
            "          [t for i in range(4) for t in (T(i, i ^ 1, 16 * i, 16), T(i, i ^ 1, 16 * (3 - i), 16))]]\n"
            "my_schedule = ccb.Schedule.from_transfers(\"all_gather\", 4, 64, rounds)\n"),
}


def _nbgrader() -> list[str]:
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("nbgrader is required under CI: pip install -r requirements-teacher.txt")
        pytest.skip("nbgrader not installed: pip install -r requirements-teacher.txt to test the problem sets")
    return [sys.executable, "-m", "nbgrader"]


def _run(args, cwd):
    env = dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _grade_problem_set(ps: str, nbgrader: list[str], workdir: pathlib.Path):
    """Release ``ps``, submit four notebooks, autograde and export: (course, scores, digests before, after)."""
    course = workdir / ps / "course"
    shutil.copytree(ASSIGNMENTS / "source", course / "source")
    shutil.copy(ASSIGNMENTS / "nbgrader_config.py", course)
    _run(nbgrader + ["generate_assignment", ps, "--force"], course)
    release = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ps / f"{ps}.ipynb", as_version=4)

    _, test_id, _, solution_id, wrong_source = CASES[ps]
    wrong = copy.deepcopy(source)
    _cell(wrong, solution_id).source = wrong_source
    tampered = copy.deepcopy(wrong)
    _cell(tampered, test_id).source = "assert True  # the student 'fixed' the test"

    submissions = {"perfect": source, "blank": release, "wrong": wrong, "tampered": tampered}
    digests = {}
    for student, nb in submissions.items():
        path = course / "submitted" / student / ps / f"{ps}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        digests[student] = _digest(path)
    _run(nbgrader + ["autograde", ps, "--create", "--force"], course)
    _run(nbgrader + ["export", "--to", str(course / "grades.csv")], course)
    with open(course / "grades.csv", newline="") as handle:
        scores = {row["student_id"]: (float(row["raw_score"]), float(row["max_score"])) for row in csv.DictReader(handle)}
    after = {s: _digest(course / "submitted" / s / ps / f"{ps}.ipynb") for s in submissions}
    return course, scores, digests, after


@pytest.fixture(scope="module")
def all_graded(tmp_path_factory):
    # The three problem sets are graded concurrently: most of the time is nbgrader start-up and
    # kernel launches, which overlap well on two cores.
    from concurrent.futures import ThreadPoolExecutor

    nbgrader = _nbgrader()
    workdir = tmp_path_factory.mktemp("assignments")
    with ThreadPoolExecutor(max_workers=len(CASES)) as pool:
        futures = {ps: pool.submit(_grade_problem_set, ps, nbgrader, workdir) for ps in CASES}
        return {ps: future.result() for ps, future in futures.items()}


@pytest.fixture(params=sorted(CASES))
def graded(request, all_graded):
    return (request.param, *all_graded[request.param])


def test_source_notebook_executes_cleanly(graded):
    ps, course, *_ = graded
    from nbclient import NotebookClient

    nb = nbformat.read(course / "source" / ps / f"{ps}.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()  # raises on any error


def test_student_version_hides_solutions(graded):
    ps, course, *_ = graded
    release = (course / "release" / ps / f"{ps}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in release and "HIDDEN TESTS" not in release
    assert "raise NotImplementedError()" in release
    nb = nbformat.read(course / "release" / ps / f"{ps}.ipynb", as_version=4)
    # Students need only Jupyter and ccb_helpers: no cell imports nbgrader.
    assert not any("nbgrader" in cell.source for cell in nb.cells if cell.cell_type == "code")


def test_scores(graded):
    ps, _course, scores, *_ = graded
    total, _test_id, part_points, *_ = CASES[ps]
    assert scores["perfect"][0] == total
    assert scores["blank"][0] == 0
    assert scores["wrong"][0] == total - part_points
    assert scores["tampered"][0] == total - part_points  # edited tests were restored before grading
    assert scores["perfect"][1] > total  # the manually graded answer counts towards the maximum


def test_grading_leaves_submissions_untouched(graded):
    *_, digests, after = graded
    assert after == digests


def test_problem_sets_have_enough_parts():
    for ps in CASES:
        nb = nbformat.read(ASSIGNMENTS / "source" / ps / f"{ps}.ipynb", as_version=4)
        graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        manual = [c for c in graded if c.cell_type == "markdown"]
        hidden = [c for c in graded if "BEGIN HIDDEN TESTS" in c.source]
        assert 5 <= len(graded) <= 10 and len(manual) == 1 and len(hidden) == len(graded) - 1
        assert all(c.metadata["nbgrader"]["points"] > 0 for c in graded)
