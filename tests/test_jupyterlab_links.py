"""Links between chapters work in JupyterLab as on the site.

jupyterlab-myst turns ``{doc}`03_bandwidth``` into a link to ``/files/notebooks/03_bandwidth`` (no
``.ipynb``: a 404), so the chapters link to each other with Markdown links to the file itself,
``[带宽下界](03_bandwidth.ipynb)``, which JupyterLab opens and MyST resolves to the page on the
site (the ``-W -n`` build fails on a target that does not exist).
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LINK = re.compile(r"\]\(([^)#\s]+\.(?:ipynb|md))(?:#[^)]*)?\)")


def _markdown(path: pathlib.Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_links_are_files_jupyterlab_can_open(path):
    text = _markdown(path)
    assert "{doc}`" not in text, "a {doc} link: a 404 in JupyterLab; link the .ipynb file instead"
    for target in LINK.findall(text):
        if "://" not in target:
            assert (path.parent / target).resolve().is_file(), f"{path.name}: link to a missing file {target}"


def test_chapters_link_to_each_other():
    links = sum(len(LINK.findall(_markdown(p))) for p in CHAPTERS)
    assert links >= 27  # the 27 {doc} links a reader found dead in JupyterLab
