"""Build the book with every exercise solution removed (a student edition): ``_build/student/_build/html``.

Usage (from the repository root, after ``pip install -r requirements.txt``):

    python tools/build_student_site.py

It copies the book's sources to ``_build/student_src``, cuts every gated solution
(```{solution-start}`` … ```{solution-end}``, including its code cells) out of the chapter
notebooks, and runs the README's build command on that copy. sphinx-exercise's own
``hide_solutions`` option is not used: with gated solutions it crashes the HTML writer
(sphinx-exercise 1.2.1: "unknown node type: solution_end_node").
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
START = re.compile(r"```\{solution-start\}")
END = re.compile(r"```\{solution-end\}\s*\n```\s*\n?")


def strip_solutions(nb):
    """Return ``nb`` without its gated solutions (cells and the text around the fences)."""
    cells, inside = [], False
    for cell in nb.cells:
        source = cell.source
        if inside:
            end = END.search(source) if cell.cell_type == "markdown" else None
            if end is None:
                continue  # a cell of the solution
            inside = False
            source = source[end.end():]
        start = START.search(source) if cell.cell_type == "markdown" else None
        while start is not None:
            end = END.search(source, start.end())
            if end is None:
                source, inside = source[: start.start()], True
                break
            source = source[: start.start()] + source[end.end():]
            start = START.search(source)
        if source.strip() or cell.cell_type == "code":
            cell.source = source
            cells.append(cell)
    nb.cells = cells
    return nb


def main() -> int:
    src = ROOT / "_build" / "student_src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("_build", ".git", "assignments", "benchmarks", "tests", "*.egg-info"))
    for path in (src / "notebooks").glob("*.ipynb"):
        nb = strip_solutions(nbformat.read(path, as_version=4))
        nbformat.write(nb, path)
    command = ["jupyter-book", "build", str(src), "-W", "-n", "--keep-going", "--path-output", str(ROOT / "_build" / "student")]
    return subprocess.call(command, cwd=src)


if __name__ == "__main__":
    sys.exit(main())
