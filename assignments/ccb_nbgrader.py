"""nbgrader plug-ins of the book's problem sets (loaded by ``nbgrader_config.py``; teachers only).

* :class:`IsolatedGrading` replaces nbgrader's ``Execute`` in ``autograde``: the notebook is not
  run in a kernel the student's code controls. Its answer cells run in a sandboxed process and
  its test cells (the gradebook's sources, hidden tests included) in the grader
  (:mod:`ccb_helpers.grading.isolation`); each test cell gets the grader's report as its output
  and its score as its one ``execute_result``. A cell the student added is not run (its output
  says so); a test cell the student deleted is put back.
* :class:`RequireNumericScore` runs before ``SaveAutoGrades``: an autograded cell whose output
  has no numeric result gets an error, i.e. zero points (nbgrader itself gives *full* points to
  a cell that ran without output).
* :class:`RestoreReleasedCells` (sanitizing): warn only when a student really edited a locked
  cell. ``generate_assignment`` stores each locked cell in the gradebook — checksum included —
  *before* it removes the hidden tests and the mark scheme, so the released cell a student hands
  back never matches the stored checksum, and nbgrader 0.9.6 warned "Attribute 'checksum' for
  cell … has changed!" for every untouched test cell (jupyter/nbgrader#1961).
* :class:`HideTestCode` (``generate_feedback``): every cell goes back to its released source
  (hidden tests and mark schemes removed) and a test cell's traceback is cut to its last line,
  so the feedback shows results, not test code (jupyter/nbgrader#917).
* :class:`RepairCellMetadata` (sanitizing, first): a copied cell or broken nbgrader metadata does
  not stop ``autograde`` for the class (jupyter/nbgrader#1083); :class:`InertStudentText` (after
  ``SaveAutoGrades``): what the student wrote reaches the Formgrader as inert text.
* ``generate_assignment``'s plug-ins — :class:`CoursePackage`, :class:`CourseVariant`,
  :class:`MarkAnswerCells` — live in ``ccb_release.py`` and are re-exported here; ``zip_collect``'s
  in ``ccb_collect.py``.
* :class:`FlaggedCsvExport` (``export``): nbgrader's CSV plus a ``needs_attention`` column naming
  every student whose notebook could not be graded (or was graded with a problem), including
  students with a submission and no gradebook entry — nbgrader writes 0.0 for them silently —
  and (``no submission``) a student of the gradebook who handed in nothing for that set.
"""

from __future__ import annotations

import json
import os
import sys

import nbformat

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # ccb_release.py beside this file
from ccb_release import (  # noqa: E402, F401 - the generate_assignment plug-ins, re-exported for the config
    INSTALL_LINE,
    SETUP_LINE,
    VARIANT_CODE,
    VARIANT_TEXT,
    CoursePackage,
    CoursePreprocessor,
    CourseVariant,
    MarkAnswerCells,
    apply_variant,
    variant_values,
)
from nbformat.notebooknode import NotebookNode  # noqa: E402
from nbgrader import utils  # noqa: E402
from nbgrader.api import Gradebook, MissingEntry  # noqa: E402
from nbgrader.plugins.export import CsvExportPlugin  # noqa: E402
from nbgrader.preprocessors import OverwriteCells  # noqa: E402

BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
BEGIN_SCHEME, END_SCHEME = "BEGIN MARK SCHEME", "END MARK SCHEME"
NOT_RUN = "（这个单元格不是答题单元格：评分时不运行。答案与它用到的定义都要写在答题单元格里。）\n"


def released_source(source: str) -> str:
    """``source`` as the student sees it: hidden-test and mark-scheme regions removed.

    The same line rule as nbgrader's ``ClearHiddenTests`` and ``ClearMarkScheme``: a line
    containing a BEGIN marker starts a region, a line containing the END marker ends it, and both
    marker lines go with the region.

    >>> released_source("a\\n### BEGIN HIDDEN TESTS\\nb\\n### END HIDDEN TESTS\\nc")
    'a\\nc'
    """
    lines, inside = [], None
    for line in source.split("\n"):
        if inside is None and BEGIN_HIDDEN in line:
            inside = END_HIDDEN
        elif inside is None and BEGIN_SCHEME in line:
            inside = END_SCHEME
        elif inside is not None and inside in line:
            inside = None
        elif inside is None:
            lines.append(line)
    return "\n".join(lines)


class RepairCellMetadata(CoursePreprocessor):
    """``autograde`` (sanitizing, first): nbgrader metadata a copied or edited cell broke, put right.

    A cell copied in JupyterLab keeps its nbgrader metadata; nbgrader then stopped ``autograde``
    for the rest of the class ("old version of the metadata format", jupyter/nbgrader#1083), and
    so did a removed or edited ``schema_version``. :func:`ccb_helpers.grading.cellmeta.repair_cells`
    keeps the handed-out copy of each cell (by its cell id in ``release/``), grades the other
    copies as cells the student added, and makes the metadata valid; each change is a warning
    naming the student's cell.
    """

    def preprocess(self, nb, resources):
        from ccb_helpers.grading.cellmeta import CellRecord, repair_cells

        notebook_id = resources["nbgrader"]["notebook"]
        assignment_id = resources["nbgrader"]["assignment"]
        try:
            with Gradebook(resources["nbgrader"]["db_url"]) as gradebook:
                record = gradebook.find_notebook(notebook_id, assignment_id)
                grade = {c.name: c.max_score for c in record.grade_cells}
                task = {c.name: c.max_score for c in record.task_cells}
                solution = {c.name for c in record.solution_cells}
                known = {
                    c.name: CellRecord(
                        grade=c.name in grade,
                        solution=c.name in solution,
                        locked=bool(c.locked),
                        task=c.name in task,
                        points=grade.get(c.name, task.get(c.name)),
                    )
                    for c in record.source_cells
                }
        except MissingEntry:
            return nb, resources
        student = resources["nbgrader"].get("student")
        for line in repair_cells(nb.cells, known, self._released_ids(notebook_id, assignment_id)):
            self.log.warning("Student %s: %s", student, line)
        return nb, resources

    def _released_ids(self, notebook_id: str, assignment_id: str) -> dict:
        """``{grade_id: cell id}`` of the handed-out notebook in ``release/`` (empty if it is not there)."""
        from nbgrader.coursedir import CourseDirectory

        coursedir = CourseDirectory(config=self.config)
        path = os.path.join(
            coursedir.format_path(coursedir.release_directory, ".", assignment_id), f"{notebook_id}.ipynb"
        )
        try:
            released = nbformat.read(path, as_version=4)
        except (OSError, ValueError):
            return {}
        return {
            c.metadata["nbgrader"]["grade_id"]: c.get("id")
            for c in released.cells
            if isinstance(c.metadata.get("nbgrader"), dict) and "grade_id" in c.metadata["nbgrader"]
        }


class RestoreReleasedCells(OverwriteCells):
    """:class:`OverwriteCells` that warns only when a student really edited a locked cell.

    It also puts back a cell's ``grade``/``solution``/``task`` flags: nbgrader 0.9.6 restores a
    locked cell's source but not these flags, so a student who marked a test cell as a solution
    cell made ``autograde`` fail for the whole notebook ("Inconsistent checksums"); and a cell
    with a grade id the gradebook does not know (a forged grade cell) loses its nbgrader metadata
    altogether (nbgrader removed only the id, and the notebook then failed validation).
    """

    def preprocess(self, nb, resources):
        self._known = None
        self._student = resources.get("nbgrader", {}).get("student")
        try:
            return super().preprocess(nb, resources)
        finally:
            self._known = None

    def report_change(self, name, attr, old, new) -> None:
        # nbgrader's warning, with the student it is about (a class's log interleaves them all).
        self.log.warning(
            "Student %s: Attribute '%s' for cell %s has changed! (should be: %s, got: %s)",
            self._student,
            attr,
            name,
            old,
            new,
        )

    def _notebook_cells(self) -> tuple[dict, dict]:
        """The gradebook's cells of this notebook: ``{grade_id: source cell}`` and the ids of its grade,
        solution and task cells, read once per notebook (four queries per cell were a tenth of autograde)."""
        if self._known is None:
            try:
                record = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            except MissingEntry:
                self._known = {}, {"grade": set(), "solution": set(), "task": set()}
            else:
                self._known = (
                    {c.name: c for c in record.source_cells},
                    {
                        "grade": {c.name for c in record.grade_cells},
                        "solution": {c.name for c in record.solution_cells},
                        "task": {c.name for c in record.task_cells},
                    },
                )
        return self._known

    def _restore_flags(self, cell, grade_id) -> None:
        flagged = self._notebook_cells()[1]
        for flag in ("grade", "solution", "task"):
            wanted = grade_id in flagged[flag]
            if bool(cell.metadata.nbgrader.get(flag, False)) != wanted:
                self.report_change(grade_id, flag, wanted, cell.metadata.nbgrader.get(flag, False))
                cell.metadata.nbgrader[flag] = wanted

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None:
            source_cell = self._notebook_cells()[0].get(grade_id)
            if source_cell is None:
                # A grade id the gradebook does not know: a cell the student made up (nbgrader
                # would drop only its id, and the notebook would then fail validation).
                self.log.warning(
                    "Student %s: Cell '%s' does not exist in the database: graded as a cell the student added",
                    self._student,
                    grade_id,
                )
                del cell.metadata["nbgrader"]
                return cell, resources
            self._restore_flags(cell, grade_id)
            if source_cell.locked and cell.cell_type == source_cell.cell_type:
                released = released_source(source_cell.source)
                if released != source_cell.source and cell.source == released:
                    # The cell as it was handed out: put the hidden tests / mark scheme back.
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)


class InertStudentText(CoursePreprocessor):
    """``autograde`` (after ``SaveAutoGrades``): whatever the student wrote reaches the teacher's browser as inert text.

    The Formgrader renders the autograded notebook's Markdown with raw HTML in the teacher's
    logged-in session (and ``c.HTMLExporter.sanitize_html`` does not reach its template): a
    student's ``<img src=x onerror=…>`` wrote files through ``/api/contents`` and changed grades
    through ``/formgrader/api/grade`` (#40). Every Markdown cell that is not one of the teacher's
    locked cells (restored from the gradebook by :class:`RestoreReleasedCells` when sanitizing)
    becomes :func:`ccb_helpers.grading.markup.inert_markdown` — the same text, formulas and
    formatting, no element, attribute or URL of the student's choosing; a raw cell (rendered as raw
    HTML by nbconvert) becomes a Markdown cell showing its text. Cell and notebook metadata keep
    only what nbgrader and the kernel need. The submitted notebook is not changed.
    """

    #: Notebook and cell metadata that stay (everything else a student could have put there goes).
    NOTEBOOK_KEYS = ("kernelspec", "language_info", "ccb_grading")
    CELL_KEYS = ("nbgrader", "deletable", "editable")

    def preprocess(self, nb, resources):
        from ccb_helpers.grading import markup

        teacher = self._locked_sources(resources)
        for key in [k for k in nb.metadata if k not in self.NOTEBOOK_KEYS]:
            del nb.metadata[key]
        # The written answers first, then any cell the student added, within the notebook's total
        # (markup.MAX_NOTEBOOK_CHARS: a notebook of many huge Markdown cells held autograde).
        order = sorted(range(len(nb.cells)), key=lambda i: not nb.cells[i].metadata.get("nbgrader", {}).get("solution"))
        left = markup.MAX_NOTEBOOK_CHARS
        for index in order:
            cell = nb.cells[index]
            for key in [k for k in cell.metadata if k not in self.CELL_KEYS]:
                del cell.metadata[key]
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type == "markdown" and grade_id in teacher and cell.source == teacher[grade_id]:
                continue  # the teacher's cell, as the gradebook holds it
            if cell.cell_type not in ("markdown", "raw"):
                continue
            size = min(len(cell.source), markup.MAX_MARKDOWN_CHARS)
            shown, left = (markup.not_shown(len(cell.source)), left) if size > left else (None, left - size)
            if cell.cell_type == "markdown":
                cell.source = shown or markup.inert_markdown(cell.source, cell.get("attachments") or {})
                cell.pop("attachments", None)
            else:
                shown = nbformat.v4.new_markdown_cell(shown or markup.inert_text(cell.source), metadata=cell.metadata)
                shown.pop("id", None)
                shown.update({"id": cell["id"]} if "id" in cell else {})
                nb.cells[index] = shown
        return nb, resources

    @staticmethod
    def _locked_sources(resources) -> dict:
        """``{grade_id: source}`` of the notebook's locked cells in the gradebook."""
        try:
            with Gradebook(resources["nbgrader"]["db_url"]) as gradebook:
                record = gradebook.find_notebook(resources["nbgrader"]["notebook"], resources["nbgrader"]["assignment"])
                return {c.name: c.source for c in record.source_cells if c.locked}
        except MissingEntry:
            return {}


def _stream(text: str) -> NotebookNode:
    return NotebookNode(output_type="stream", name="stdout", text=text)


def _error(name: str, message: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=name, evalue=message, traceback=[f"{name}: {message}"])


class IsolatedGrading(CoursePreprocessor):
    """Grade the notebook without running it in a kernel (see the module docstring)."""

    def preprocess(self, nb, resources):
        import ccb_helpers
        from ccb_helpers.grading import isolation

        notebook_id = resources["nbgrader"]["notebook"]
        assignment_id = resources["nbgrader"]["assignment"]
        with Gradebook(resources["nbgrader"]["db_url"]) as gradebook:
            record = gradebook.find_notebook(notebook_id, assignment_id)
            sources = {c.name: (c.cell_type, c.locked, c.source) for c in record.source_cells}
            answers = {c.name for c in record.solution_cells}
            tests = [c.name for c in record.grade_cells if c.cell_type == "code" and c.name not in answers]
            points = {c.name: c.max_score for c in record.grade_cells}
        self._student = resources["nbgrader"].get("student")
        self._restore_missing(nb, sources, tests, points)
        for cell in nb.cells:
            # A cell claiming a grade id the gradebook does not know (a forged grade cell) is a
            # cell the student added: it is not graded and not run.
            if cell.metadata.get("nbgrader", {}).get("grade_id") not in sources and "nbgrader" in cell.metadata:
                del cell.metadata["nbgrader"]

        cells, where = [], []
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in tests:
                kind, source = "test", sources[grade_id][2]
            elif grade_id in answers and grade_id in sources:
                kind, source = "answer", cell.source
            elif grade_id in sources and sources[grade_id][1]:
                kind, source = "setup", sources[grade_id][2]
            else:
                kind, source = "ignored", cell.source
            cells.append(isolation.Cell(kind, source, grade_id))
            where.append(index)
        require = not os.environ.get("CCB_GRADING_UNSANDBOXED")
        outcomes, report = isolation.grade_cells(cells, library=ccb_helpers, require_sandbox=require)

        for index, cell, outcome in zip(where, cells, outcomes):
            target = nb.cells[index]
            target.execution_count = None
            if cell.kind == "ignored":
                target.outputs = [_stream(NOT_RUN)]
                continue
            outputs = [_stream(outcome.stdout)] if outcome.stdout else []
            if cell.kind == "test" and outcome.score is not None:
                outputs.append(
                    NotebookNode(
                        output_type="execute_result",
                        execution_count=None,
                        metadata={},
                        data={"text/plain": repr(outcome.score)},
                    )
                )
            elif outcome.error is not None:
                outputs.append(_error(*outcome.error))
            target.outputs = outputs
        nb.metadata["ccb_grading"] = {
            "landlock": report.landlock,
            "seccomp": report.seccomp,
            "network_namespace": report.netns,
            "restarts": report.restarts,
            "ignored_cells": report.ignored_cells,
            "problems": report.problems,
        }
        layers = [f"Landlock ABI {report.landlock}" if report.landlock else "no Landlock"]
        layers += ["seccomp" if report.seccomp else "no seccomp"]
        layers += ["network namespace" if report.netns else "no network namespace"]
        self.log.info(
            "Isolated grading of %s: sandbox %s, %s restarts, %s added cells not run%s",
            resources["nbgrader"]["student"],
            ", ".join(layers),
            report.restarts,
            report.ignored_cells,
            f"; problems: {report.problems}" if report.problems else "",
        )
        return nb, resources

    def _restore_missing(self, nb, sources, tests, points) -> None:
        """Put back a setup or test cell the student deleted (from the gradebook), with a warning."""
        present = {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells}
        for grade_id, (cell_type, locked, source) in sources.items():
            if grade_id in present or cell_type != "code" or not locked:
                continue
            is_test = grade_id in tests
            meta = {
                "grade": is_test,
                "grade_id": grade_id,
                "locked": True,
                "schema_version": 3,
                "solution": False,
                "task": False,
            }
            if is_test:
                meta["points"] = points[grade_id]
            cell = nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})
            answer = grade_id[: -len("-tests")] if grade_id.endswith("-tests") else None
            positions = [i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == answer]
            position = positions[0] + 1 if positions else (len(nb.cells) if is_test else 0)
            nb.cells.insert(position, cell)
            self.log.warning(
                "Student %s: Cell '%s' was deleted by the student: put back from the gradebook", self._student, grade_id
            )


class RequireNumericScore(CoursePreprocessor):
    """An autograded cell scores only through a numeric result: no result (or no number) is 0."""

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell):
            results = [o for o in cell.get("outputs", []) if o.get("output_type") == "execute_result"]
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            text = results[0].get("data", {}).get("text/plain", "") if len(results) == 1 else ""
            try:
                value = float(text)
                numeric = 0 <= value <= float(cell.metadata["nbgrader"]["points"])
            except (TypeError, ValueError):
                numeric = False
            if not numeric and not errors:
                cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "execute_result"]
                cell.outputs.append(_error("NoScore", "这个评分单元格没有给出分数：0 分"))
        return cell, resources


class HideTestCode(CoursePreprocessor):
    """Feedback without test code: released sources, tracebacks of test cells cut to one line."""

    def preprocess_cell(self, cell, resources, cell_index):
        cell.source = released_source(cell.source)
        if cell.cell_type == "code" and utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


class FlaggedCsvExport(CsvExportPlugin):
    """nbgrader's CSV export with a ``needs_attention`` column (see the module docstring)."""

    def export(self, gradebook):
        destination = self.to or "grades.csv"
        super().export(gradebook)
        coursedir = self.parent.coursedir
        with open(destination, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        header, rows = lines[0], lines[1:]
        known = {(row.split(",")[0], row.split(",")[3]) for row in rows}
        out = [header + ",needs_attention"]
        for row in rows:
            fields = row.split(",")
            out.append(row + "," + self._attention(coursedir, gradebook, fields[0], fields[3]))
        # A submission nbgrader never recorded (its autograde failed before the gradebook knew
        # the student): the CSV would not list it at all.
        assignments = [a.name for a in gradebook.assignments if not self.assignment or a.name in self.assignment]
        for assignment in assignments:
            root = coursedir.format_path(coursedir.submitted_directory, ".", assignment)
            parent = os.path.dirname(os.path.dirname(root))
            for student in sorted(os.listdir(parent)) if os.path.isdir(parent) else []:
                if (assignment, student) in known or not os.path.isdir(os.path.join(parent, student, assignment)):
                    continue
                if self.student and student not in self.student:
                    continue
                max_score = gradebook.find_assignment(assignment).max_score
                out.append(f"{assignment},,,{student},,,,0.0,0.0,0.0,{max_score},not graded: no gradebook entry")
        with open(destination, "w", encoding="utf-8") as handle:
            handle.write("\n".join(out) + "\n")

    @staticmethod
    def _attention(coursedir, gradebook, assignment: str, student: str) -> str:
        submitted = coursedir.format_path(coursedir.submitted_directory, student, assignment)
        if not os.path.isdir(submitted):
            # nbgrader lists every student of the gradebook under every set, with 0.0 for one who
            # handed in nothing: without a word that row reads like a graded blank notebook.
            return "no submission"
        reasons = []
        try:
            notebooks = gradebook.find_submission(assignment, student).notebooks
        except MissingEntry:
            return "not graded: no gradebook entry"
        for notebook in notebooks:
            path = os.path.join(
                coursedir.format_path(coursedir.autograded_directory, student, assignment),
                f"{notebook.notebook.name}.ipynb",
            )
            if not os.path.exists(path):
                reasons.append(f"not graded: {notebook.notebook.name} (autograde failed)")
                continue
            with open(path, encoding="utf-8") as handle:
                meta = json.load(handle).get("metadata", {}).get("ccb_grading")
            if meta is None:
                reasons.append(f"not graded in isolation: {notebook.notebook.name}")
            elif meta.get("problems"):
                reasons.append(f"grading problems in {notebook.notebook.name}: " + " | ".join(meta["problems"]))
        return "; ".join(reasons).replace(",", " ")


__all__ = [
    "IsolatedGrading",
    "RequireNumericScore",
    "RestoreReleasedCells",
    "RepairCellMetadata",
    "InertStudentText",
    "HideTestCode",
    "CoursePackage",
    "CourseVariant",
    "MarkAnswerCells",
    "FlaggedCsvExport",
    "released_source",
]
