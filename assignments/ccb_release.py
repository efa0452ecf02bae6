"""``generate_assignment`` plug-ins of the book's problem sets (loaded by ``nbgrader_config.py``
through ``ccb_nbgrader``; teachers only): what the released notebook is.

* :class:`CoursePackage`: the setup cell installs ``ccb_helpers`` from the source the course
  configures (``c.CoursePackage.source``), never from the repository that holds the solutions;
  with no source configured, the released cell says to ask the teacher (and ends there).
* :class:`CourseVariant`: with ``CCB_GRADING_SALT`` set, the marked model constants of some
  questions take a course value other than the default (question, visible and hidden tests
  alike), so the public answer key does not answer the course's variant of those parts.
* :class:`MarkAnswerCells`: the setup cell names the answer cells, so that the student's kernel
  can warn about an answer that relies on a cell grading does not run.
* :class:`CoursePreprocessor`: the base of the course's preprocessors.
"""

from __future__ import annotations

import json
import os
import re

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List, Unicode


class CoursePreprocessor(NbGraderPreprocessor):
    """Base of the course's preprocessors: configurable ``display_data_priority``, as nbgrader's ``GetGrades``.

    nbgrader's base class redeclares the trait without ``config=True``; the HTML exporter of
    ``generate_feedback`` configures ``NbConvertBase.display_data_priority``, so every feedback
    run warned "Config option `display_data_priority` not recognized by `HideTestCode`", a warning
    that is no edit of anyone's.
    """

    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)


#: The line of a setup cell that installs the helpers (its requirement is the course's source).
INSTALL_LINE = re.compile(r'^(?P<indent>\s*)%pip install -q "(?P<spec>[^"]*)"\s*#\s*ccb-package-source\s*$', re.M)


class CoursePackage(CoursePreprocessor):
    """``generate_assignment``: the setup cell installs ``ccb_helpers`` from the course's source.

    ``c.CoursePackage.source`` is a pip requirement (e.g. ``"ccb_helpers @ https://…/ccb_helpers-0.1.0-py3-none-any.whl"``
    on the course's own server, or a name on a private index). Without it the released line
    raises an ``ImportError`` telling the student to install the course's package; either way
    the released notebook never names the repository that holds the solutions.
    """

    source = Unicode("", help="pip requirement of the course's ccb_helpers (default: $CCB_PACKAGE_SOURCE)").tag(
        config=True
    )

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code" and INSTALL_LINE.search(cell.source):
            requirement = self.source or os.environ.get("CCB_PACKAGE_SOURCE", "")

            def replace(match):
                indent = match.group("indent")
                if requirement:
                    return f"{indent}%pip install -q {json.dumps(requirement, ensure_ascii=False)}"
                return f'{indent}raise ImportError("ccb_helpers 没有安装：请按课程的说明安装（老师提供安装源）")'

            cell.source = INSTALL_LINE.sub(replace, cell.source)
            if not requirement:
                cell.source = _without_code_after_raise(cell.source)
        return cell, resources


def _without_code_after_raise(source: str) -> str:
    r"""``source`` without the lines after a ``raise ImportError`` in its block (they could not run).

    >>> _without_code_after_raise("try:\n    import x\nexcept ImportError:\n    raise ImportError('no')\n    import x\ny = 1")
    "try:\n    import x\nexcept ImportError:\n    raise ImportError('no')\ny = 1"
    """
    lines, out, dropping = source.split("\n"), [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if dropping is not None and line.strip() and indent >= dropping:
            continue
        dropping = None
        out.append(line)
        if line.lstrip().startswith("raise ImportError("):
            dropping = indent
    return "\n".join(out)


class MarkAnswerCells(CoursePreprocessor):
    """``generate_assignment``: the setup cell tells the student's kernel which cells are answer cells.

    Grading runs the answer cells only, so a helper in a cell the student added scores 0 although
    every visible check passes in the student's kernel (#40). The released setup cell ends with
    ``grading.answer_cells({cell id: answer function, …})``; from then on a test cell warns when
    the answer reads a name another cell defined (:mod:`ccb_helpers.grading.tracking`). Under
    grading the call does nothing.
    """

    def preprocess(self, nb, resources):
        answers = {}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("solution") and "id" in cell:
                match = re.search(r"^def (\w+)\(", cell.source, re.M)
                if match:
                    answers[cell["id"]] = match.group(1)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if (
                cell.cell_type == "code"
                and meta.get("locked")
                and not meta.get("grade")
                and SETUP_LINE.search(cell.source)
            ):
                call = f"grading.answer_cells({answers!r})  # 答题单元格：评分时只运行它们"
                cell.source = cell.source.rstrip("\n") + "\n" + call
                break
        return nb, resources


#: The setup cell's import of the grading helpers (the cell MarkAnswerCells completes).
SETUP_LINE = re.compile(r"^from ccb_helpers import grading\s*$", re.M)


VARIANT_CODE = re.compile(
    r"^(?P<head>[ \t]*[A-Z][A-Z0-9_]* = )(?P<value>[^#\n]+?)(?P<tail>[ \t]*# course variant (?P<name>[\w-]+): one of (?P<choices>\([^)\n]*\)))",
    re.M,
)
VARIANT_TEXT = re.compile(r"(?P<value>\d+(?:\.\d+)?)(?P<tail>\$?<!-- course variant (?P<name>[\w-]+) -->)")


def variant_values(sources, salt: str) -> dict:
    """``{name: value}`` of the course variant constants in ``sources`` for ``salt`` (defaults if empty).

    A constant is a code line ``NAME = default  # course variant <name>: one of (a, b, c)``; with a
    salt its value is drawn by the salt from the choices other than the default (every salted course
    gets a variant: the public answer key answers the default only), the same in every cell.

    >>> variant_values(["PORTS = 1  # course variant p: one of (1, 2, 4)"], "")
    {'p': '1'}
    >>> variant_values(["PORTS = 1  # course variant p: one of (1, 2, 4)"], "2027")["p"] in ("2", "4")
    True
    """
    import ast
    import zlib

    chosen = {}
    for source in sources:
        for match in VARIANT_CODE.finditer(source):
            name = match.group("name")
            if name in chosen:
                continue
            default = match.group("value").strip()
            choices = [repr(v) for v in ast.literal_eval(match.group("choices")) if repr(v) != default]
            if not choices:
                raise ValueError(f"course variant {name}: its choices need a value other than the default {default}")
            chosen[name] = choices[zlib.crc32(f"{name}|{salt}".encode()) % len(choices)] if salt else default
    return chosen


def apply_variant(source: str, chosen: dict) -> str:
    """``source`` with every marked constant (code and text) set to its course value."""
    source = VARIANT_CODE.sub(
        lambda m: m.group("head") + chosen.get(m.group("name"), m.group("value")) + m.group("tail"), source
    )
    return VARIANT_TEXT.sub(lambda m: chosen.get(m.group("name"), m.group("value")) + m.group("tail"), source)


class CourseVariant(CoursePreprocessor):
    """``generate_assignment``: the course's variant of the questions (``CCB_GRADING_SALT``).

    Marked constants of the model (e.g. the ports per node of ps3's AllGatherv and MoE parts) are
    set from the salt in the question, the visible tests and the hidden tests alike, before the
    gradebook stores the cells: a public answer key written for the default constants gives wrong
    answers on the course's variant. Without a salt the notebooks are released as written.
    """

    def preprocess(self, nb, resources):
        chosen = variant_values([cell.source for cell in nb.cells], os.environ.get("CCB_GRADING_SALT", ""))
        for cell in nb.cells:
            cell.source = apply_variant(cell.source, chosen)
        if chosen:
            self.log.info("Course variant of %s: %s", resources.get("nbgrader", {}).get("notebook"), chosen)
        return nb, resources
