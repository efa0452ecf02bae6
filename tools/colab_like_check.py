"""Run one chapter the way Colab would: alone in an empty folder, installing the book from its install cell.

Usage (inside a fresh venv holding Colab's preinstalled packages, e.g.
``pip install ipywidgets==7.7.1 matplotlib==3.10.0 numpy==2.0.2 networkx==3.5 ipykernel==6.17.1 nbclient``
and no CJK font on the machine):

    python tools/colab_like_check.py notebooks/01_information_propagation.ipynb SOURCE [WORKDIR]

SOURCE replaces the repository in the install cell (a local path or a ``file://`` URL of a clone), so
the check runs offline. The notebook is copied into WORKDIR (default: a new temporary folder), run
top to bottom, and the script fails if a cell errors, if matplotlib warns about missing glyphs (the
Chinese labels would be boxes) or if no figure was drawn. It prints the versions it ran with.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import sys
import tempfile

import nbformat
from nbclient import NotebookClient


def main(argv: list[str]) -> int:
    notebook, source = pathlib.Path(argv[0]).resolve(), argv[1]
    work = pathlib.Path(argv[2]) if len(argv) > 2 else pathlib.Path(tempfile.mkdtemp(prefix="colab-like-"))
    work.mkdir(parents=True, exist_ok=True)
    target = work / notebook.name
    shutil.copy(notebook, target)
    nb = nbformat.read(target, as_version=4)
    url = source if "://" in source else pathlib.Path(source).resolve().as_uri()
    replaced = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and "BOOK = " in cell.source:
            cell.source, replaced = re.subn(r'BOOK = "[^"]*"', f'BOOK = "{url}"', cell.source)
    assert replaced == 1, "no install cell with BOOK = ... found"
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import ipywidgets, matplotlib, numpy, networkx\n"
            "print('versions', ipywidgets.__version__, matplotlib.__version__, numpy.__version__, networkx.__version__)\n"
            "from ccb_helpers.plotting import cjk_font_name\n"
            "print('font', cjk_font_name(), matplotlib.rcParams['font.sans-serif'][:2])"
        )
    )
    NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=False, resources={"metadata": {"path": str(work)}}
    ).execute()
    nbformat.write(nb, target)
    stderr = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("name") == "stderr"
    )
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    print("".join(o.get("text", "") for o in nb.cells[-1].outputs).strip())
    glyphs = [line for line in stderr.splitlines() if "Glyph" in line or "missing from font" in line]
    print(f"ran {notebook.name} in {work}: {images} figures, {len(glyphs)} glyph warnings")
    for line in stderr.splitlines()[:20]:
        print("  stderr:", line)
    return 1 if glyphs or images == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
