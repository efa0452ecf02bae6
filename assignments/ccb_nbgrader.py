"""nbgrader plug-ins of the book's problem sets (loaded by ``nbgrader_config.py``; teachers only).

Two of nbgrader 0.9.6's behaviours get in a teacher's way; both are fixed here, in the course's
configuration rather than in the notebooks:

* **Every autograde warned "Attribute 'checksum' for cell … has changed!" for every test cell**
  (jupyter/nbgrader#1961). ``generate_assignment`` stores each locked cell in the gradebook —
  checksum included — *before* it removes the hidden tests and the mark scheme, so the released
  cell a student hands back never matches the stored checksum, and the warning that should
  reveal an edited test fires for every untouched one. :class:`RestoreReleasedCells` compares a
  submitted cell with the *released* version of its source cell: an untouched cell gets its
  hidden tests back silently; an edited one is still reported and restored by nbgrader's own
  :class:`~nbgrader.preprocessors.OverwriteCells`.
* **Feedback shows the hidden tests** (jupyter/nbgrader#917, by design). :class:`HideTestCode`
  runs in ``generate_feedback``: every cell goes back to its released source (hidden tests and
  mark schemes removed) and a test cell's traceback is cut to its last line, so the feedback
  shows the results — points, the grader's report, the error message — and not the test code.
"""

from __future__ import annotations

from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells

BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
BEGIN_SCHEME, END_SCHEME = "BEGIN MARK SCHEME", "END MARK SCHEME"


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


class RestoreReleasedCells(OverwriteCells):
    """:class:`OverwriteCells` that warns only when a student really edited a locked cell."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None:
            try:
                source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source_cell = None
            if source_cell is not None and source_cell.locked and cell.cell_type == source_cell.cell_type:
                released = released_source(source_cell.source)
                if released != source_cell.source and cell.source == released:
                    # The cell as it was handed out: put the hidden tests / mark scheme back.
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)


class HideTestCode(NbGraderPreprocessor):
    """Feedback without test code: released sources, tracebacks of test cells cut to one line."""

    def preprocess_cell(self, cell, resources, cell_index):
        cell.source = released_source(cell.source)
        if cell.cell_type == "code" and utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


__all__ = ["RestoreReleasedCells", "HideTestCode", "released_source"]
