"""A submitted notebook's nbgrader metadata put right before nbgrader reads it (``autograde``).

Copying a cell in JupyterLab copies its metadata, nbgrader's included. nbgrader's
``DeduplicateIds`` then leaves ``nbgrader: {}`` on all but the last copy, ``CheckCellMetadata``
takes the empty dict for metadata of schema version 0 and raises "old version of the metadata
format … run ``nbgrader update``", and ``autograde`` stops for every student after that one
(jupyter/nbgrader#1083, open since 2019). A removed or edited ``schema_version`` (too old or too
new) does the same; a missing ``points`` key, a flag that is not a boolean or a key nbgrader does
not know make that student's notebook fail.

:func:`repair_cells` runs first (``ccb_nbgrader.RepairCellMetadata``) with what the gradebook
knows of the notebook's cells:

* a grade id that appears more than once (a copied cell): the copy the student was handed (its
  notebook cell ``id`` is the released one; else the first in the notebook) keeps the metadata,
  every other copy loses it and is graded as a cell the student added (not run, not graded);
* a grade id the gradebook does not know, or nbgrader metadata without one: the metadata goes
  (a cell the student added or made up) — unless the cell's ``id`` is a handed-out cell's whose
  grade id no other cell has: then it is that cell, its metadata cleared or broken, and gets it back;
* the kept cells' metadata is made valid for schema version 3: ``schema_version`` 3, flags that are
  booleans, ``points`` of a grade cell from the gradebook when missing or not a number, no unknown
  keys. Whether a flag, the points or the source changed is then nbgrader's to see and put back
  (``RestoreReleasedCells``), with its "has changed" warning.

Every change is returned as a log line for the teacher.
"""

from __future__ import annotations

import numbers

__all__ = ["CellRecord", "repair_cells"]

#: Keys of nbgrader's cell metadata, schema version 3.
_KEYS = ("schema_version", "grade", "locked", "solution", "task", "grade_id", "points", "checksum", "cell_type")
_FLAGS = ("grade", "locked", "solution", "task")


class CellRecord:
    """What the gradebook knows of a cell: its flags and points (``points`` None: not graded).

    >>> CellRecord(grade=True, solution=False, locked=True, task=False, points=3).flags()
    {'grade': True, 'locked': True, 'solution': False, 'task': False}
    """

    def __init__(self, *, grade: bool, solution: bool, locked: bool, task: bool, points: float | None):
        self.grade, self.solution, self.locked, self.task, self.points = grade, solution, locked, task, points

    def flags(self) -> dict:
        return {"grade": self.grade, "locked": self.locked, "solution": self.solution, "task": self.task}


def _grade_id(cell) -> str | None:
    meta = cell.get("metadata", {}).get("nbgrader")
    if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
        return meta["grade_id"]
    return None


def repair_cells(cells: list, known: dict, released_ids: dict | None = None) -> list[str]:
    """Make the nbgrader metadata of ``cells`` (notebook cells, changed in place) valid and unique.

    Parameters
    ----------
    cells : list
        The notebook's cells (``nbformat`` nodes or dicts with ``metadata`` and an optional ``id``).
    known : dict
        ``{grade_id: CellRecord}`` of the notebook's cells in the gradebook.
    released_ids : dict, optional
        ``{grade_id: cell id}`` of the handed-out notebook (default: the grade id, which is the cell
        id of every cell of the book's problem sets).

    Returns
    -------
    list of str
        One line per change, naming the cell (module docstring).

    Examples
    --------
    >>> record = CellRecord(grade=False, solution=True, locked=False, task=False, points=None)
    >>> answer = {"id": "a", "metadata": {"nbgrader": {"grade_id": "a", "solution": True, "schema_version": 3}}}
    >>> copy = {"id": "x1", "metadata": {"nbgrader": {"grade_id": "a", "solution": True, "schema_version": 3}}}
    >>> repair_cells([copy, answer], {"a": record})
    ["Cell 'a' appears 2 times (copied): the handed-out one (cell 2) is graded, cell 1 is graded as a cell the student added"]
    >>> answer["metadata"]["nbgrader"]["locked"], "nbgrader" in copy["metadata"]
    (False, False)
    """
    if not isinstance(known, dict) or not all(isinstance(r, CellRecord) for r in known.values()):
        raise TypeError("known must map grade ids to CellRecord")
    released_ids = dict(released_ids or {})
    log: list[str] = []
    positions: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        meta = cell.get("metadata", {}).get("nbgrader")
        if meta is None:
            continue
        grade_id = _grade_id(cell)
        if grade_id is None or grade_id not in known:
            del cell["metadata"]["nbgrader"]
            if grade_id is not None:
                log.append(f"Cell '{grade_id}' does not exist in the database: graded as a cell the student added")
            elif isinstance(meta, dict) and any(meta.get(flag) is True for flag in _FLAGS):
                log.append(
                    f"Cell {index + 1} has nbgrader metadata without a grade id: graded as a cell the student added"
                )
            continue
        positions.setdefault(grade_id, []).append(index)
    # A handed-out cell whose metadata is gone or broken (cleared, or an empty dict): its cell id
    # says which cell it is, when no other cell has that grade id.
    by_id = {released_ids.get(grade_id, grade_id): grade_id for grade_id in known}
    for index, cell in enumerate(cells):
        grade_id = by_id.get(cell.get("id"))
        if grade_id is not None and grade_id not in positions and _grade_id(cell) is None:
            cell.setdefault("metadata", {})["nbgrader"] = {"grade_id": grade_id}
            positions[grade_id] = [index]
            log.append(
                f"Cell '{grade_id}' had lost its nbgrader metadata: restored (its cell id is the handed-out one)"
            )
    for grade_id, where in positions.items():
        if len(where) > 1:
            wanted = released_ids.get(grade_id, grade_id)
            handed_out = [i for i in where if cells[i].get("id") == wanted]
            keep = handed_out[0] if handed_out else where[0]
            copies = [i for i in where if i != keep]
            for i in copies:
                del cells[i]["metadata"]["nbgrader"]
            log.append(
                f"Cell '{grade_id}' appears {len(where)} times (copied): the "
                + ("handed-out one" if handed_out else "first one")
                + f" (cell {keep + 1}) is graded, "
                + ", ".join(f"cell {i + 1}" for i in copies)
                + f" {'is' if len(copies) == 1 else 'are'} graded as a cell the student added"
            )
            where[:] = [keep]
        cell = cells[where[0]]
        log.extend(_valid_metadata(cell["metadata"]["nbgrader"], grade_id, known[grade_id]))
    return log


def _valid_metadata(meta: dict, grade_id: str, record: CellRecord) -> list[str]:
    """``meta`` valid for schema version 3 (in place); what was put right."""
    log = []
    if meta.get("schema_version") != 3:
        log.append(
            f"Cell '{grade_id}': nbgrader metadata schema_version {meta.get('schema_version', 'missing')} "
            "(edited, or from another nbgrader): read as version 3"
        )
        meta["schema_version"] = 3
    for key in [k for k in meta if k not in _KEYS]:
        del meta[key]
        log.append(f"Cell '{grade_id}': unknown nbgrader metadata key {key!r} removed")
    for flag, value in record.flags().items():
        if type(meta.get(flag)) is not bool:
            meta[flag] = value
    if meta["grade"] or meta["task"]:
        points = meta.get("points")
        if not isinstance(points, numbers.Real) or isinstance(points, bool) or not points >= 0:
            meta["points"] = float(record.points) if record.points is not None else 0.0
    elif "points" in meta and not (isinstance(meta["points"], numbers.Real) and meta["points"] >= 0):
        del meta["points"]
    if "checksum" in meta and not (isinstance(meta["checksum"], str) and len(meta["checksum"]) == 32):
        del meta["checksum"]
    if meta.get("cell_type") not in (None, "raw", "code", "markdown"):
        del meta["cell_type"]
    return log
