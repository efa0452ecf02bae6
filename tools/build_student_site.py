"""Build the student edition of the book (every exercise solution removed): ``_build/student/_build/html``.

Usage (from the repository root, after ``pip install -r requirements.txt``):

    python tools/build_student_site.py [--output DIR]

1. copies the book's sources to ``DIR/src`` (``DIR`` defaults to ``_build/student``);
2. cuts every gated solution (```{solution-start}`` … ```{solution-end}``, including its code
   cells and their outputs) out of the chapter notebooks;
3. points every chapter's install line at the course's package instead of the repository that
   holds the solutions: ``--package-source`` (default ``$CCB_PACKAGE_SOURCE``, else
   ``student_edition.package_source`` in ``_config.student.yml``), a pip requirement such as
   ``"ccb_helpers @ https://course.example.edu/ccb_helpers-0.1.0-py3-none-any.whl"``; without one
   the line tells the reader to install the course's package;
4. writes ``_config.yml`` there: the reader's ``_config.yml`` with ``_config.student.yml`` merged
   over it (the student title, no execution, no repository/issues/Binder/Colab buttons);
5. runs the README's build command on that copy: ``jupyter-book build DIR/src -W -n --keep-going``,
   output in ``DIR/_build/html``.

sphinx-exercise's own ``hide_solutions`` option is not used: with gated solutions it crashes the
HTML writer (sphinx-exercise 1.2.1: "unknown node type: solution_end_node"), and it would leave the
solutions in the downloadable notebooks anyway.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
START = re.compile(r"```\{solution-start\}")
END = re.compile(r"```\{solution-end\}\s*\n```\s*\n?")
# What the student edition does not need from the repository.
SKIP = (
    "_build",
    ".git",
    ".github",
    ".ci",
    "assignments",
    "benchmarks",
    "tests",
    "tools",
    "screenshots",
    "*.egg-info",
    ".venv*",
    "venv",
    "env",
    ".ipynb_checkpoints",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
)


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
            source = source[end.end() :]
        start = START.search(source) if cell.cell_type == "markdown" else None
        while start is not None:
            end = END.search(source, start.end())
            if end is None:
                source, inside = source[: start.start()], True
                break
            source = source[: start.start()] + source[end.end() :]
            start = START.search(source)
        if source.strip() or cell.cell_type == "code":
            cell.source = source
            cells.append(cell)
    nb.cells = cells
    return nb


# The chapters' setup cell installs the helpers from the repository (the reader's edition).
BOOK_LINE = re.compile(
    r'^(?P<indent>[ \t]*)BOOK = "git\+https://github\.com/[^"]*"[ \t]*\n(?P=indent)%pip install -q "ccb_helpers @ \{BOOK\}"[ \t]*$',
    re.M,
)


def point_install_at(nb, requirement: str):
    """``nb`` with its install line using ``requirement`` (or, if empty, asking for the course's package).

    >>> cell = nbformat.v4.new_code_cell('try:\\n    import x\\nexcept ImportError:\\n    BOOK = "git+https://github.com/a/b@main"\\n    %pip install -q "ccb_helpers @ {BOOK}"\\n')
    >>> print(point_install_at(nbformat.v4.new_notebook(cells=[cell]), "").cells[0].source)
    try:
        import x
    except ImportError:
        raise ImportError("ccb_helpers 没有安装：请按课程的说明安装（老师提供安装源）")
    <BLANKLINE>
    """
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue

        def replace(match):
            indent = match.group("indent")
            if requirement:
                return f"{indent}%pip install -q {json.dumps(requirement, ensure_ascii=False)}"
            return f'{indent}raise ImportError("ccb_helpers 没有安装：请按课程的说明安装（老师提供安装源）")'

        cell.source = BOOK_LINE.sub(replace, cell.source)
    return nb


def merged(base: dict, override: dict) -> dict:
    """``base`` with ``override`` merged in, nested mappings key by key.

    >>> merged({"a": {"x": 1, "y": 2}, "b": 1}, {"a": {"y": 3}})
    {'a': {'x': 1, 'y': 3}, 'b': 1}
    """
    result = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def student_config() -> dict:
    """The reader's ``_config.yml`` with ``_config.student.yml`` merged over it."""
    base = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    override = yaml.safe_load((ROOT / "_config.student.yml").read_text(encoding="utf-8"))
    return merged(base, override)


def prepare(output: pathlib.Path, package_source: str | None = None) -> pathlib.Path:
    """Write the student edition's sources into ``output/src`` and return that folder."""
    src = output / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*SKIP))
    config = student_config()
    edition = config.pop("student_edition", None) or {}
    if package_source is None:
        package_source = os.environ.get("CCB_PACKAGE_SOURCE") or edition.get("package_source") or ""
    for path in sorted((src / "notebooks").glob("*.ipynb")):
        nbformat.write(point_install_at(strip_solutions(nbformat.read(path, as_version=4)), package_source), path)
    (src / "_config.yml").write_text(
        "# Generated by tools/build_student_site.py from _config.yml and _config.student.yml.\n"
        + yaml.safe_dump(config, allow_unicode=True, sort_keys=False),
        encoding="utf-8",
    )
    (src / "_config.student.yml").unlink(missing_ok=True)
    return src


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--output",
        type=pathlib.Path,
        default=ROOT / "_build" / "student",
        help="folder of the student edition (default: _build/student)",
    )
    parser.add_argument(
        "--package-source",
        default=None,
        help="pip requirement the chapters install ccb_helpers from (default: $CCB_PACKAGE_SOURCE, "
        "else student_edition.package_source in _config.student.yml)",
    )
    args = parser.parse_args(argv)
    output = args.output.resolve()
    src = prepare(output, args.package_source)
    shutil.rmtree(output / "_build", ignore_errors=True)
    executable = shutil.which("jupyter-book", path=str(pathlib.Path(sys.executable).parent)) or "jupyter-book"
    command = [executable, "build", str(src), "-W", "-n", "--keep-going", "--path-output", str(output)]
    done = subprocess.call(command, cwd=src)
    if done == 0:
        print(f"student edition: {output / '_build' / 'html' / 'index.html'}")
    return done


if __name__ == "__main__":
    sys.exit(main())
