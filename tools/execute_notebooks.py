"""Execute chapter notebooks in place (outputs are committed: nbval compares them).

Usage: python tools/execute_notebooks.py [notebooks/NAME.ipynb ...]   (default: all of notebooks/)

Runs each notebook top to bottom in a fresh kernel from the repository root, then drops the
per-cell execution timestamps so that re-running an unchanged notebook leaves no diff.
"""

from __future__ import annotations

import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]


def execute(path: pathlib.Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)  # widget state: the static site shows the explorer's PNG instead
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> None:
    paths = [pathlib.Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"{path.name}: executed in {execute(path.resolve()):.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
