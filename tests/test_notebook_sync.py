"""What a reader meets outside the site: notebooks in step with _config.yml, short code lines, one Python.

- The install cell (Colab / Binder) and the TeX macro cell (JupyterLab) are generated from
  ``_config.yml`` by ``tools/sync_notebooks.py``: the repository URL and the macros have one source.
- Code a reader sees stays within 88 characters a line (the page column shows about that many).
- ``pyproject.toml``, ``runtime.txt`` (Binder) and the pins agree on the Python version.
"""

from __future__ import annotations

import pathlib
import re
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import sync_notebooks  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
HIDDEN = {"remove-cell", "remove_cell", "remove-input", "remove_input"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_generated_cells_match_config(path):
    nb = nbformat.read(path, as_version=4)
    assert not sync_notebooks.sync(nb), f"{path.name} is out of step with _config.yml: run `python tools/sync_notebooks.py`"


def test_install_cell_installs_the_configured_repository():
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    source = sync_notebooks.install_source(cfg)
    assert f'BOOK = "git+{cfg["repository"]["url"]}@{cfg["repository"]["branch"]}"' in source
    assert "%pip install" in source and '"ccb_helpers @ {BOOK}"' in source


def test_macro_cell_defines_every_site_macro_and_is_hidden_from_the_site():
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    front = yaml.safe_load(sync_notebooks.macro_source(cfg).strip("-\n"))
    site = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    assert set(front["math"]) == {"\\" + name for name in site}
    assert front["math"]["\\ceil"] == "\\left\\lceil #1 \\right\\rceil"
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    assert nb.cells[0].metadata["tags"] == ["remove-cell"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_visible_code_lines_fit_the_page(path):
    nb = nbformat.read(path, as_version=4)
    long = [(i, len(line)) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            and not HIDDEN & set(cell.metadata.get("tags", []))
            for line in cell.source.splitlines() if len(line) > 88]
    assert long == [], f"code lines over 88 characters (cell, length): {long}"


def test_one_python_version_everywhere():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'requires-python = ">=(3\.\d+)"', pyproject).group(1)
    assert (ROOT / "runtime.txt").read_text(encoding="utf-8").strip() == f"python-{minimum}"
    # numpy 2.3+ (pinned in requirements.txt) needs Python 3.11; the package must not claim 3.10.
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M))
    numpy = tuple(map(int, pins["numpy"].split(".")[:2]))
    assert numpy < (2, 3) or tuple(map(int, minimum.split("."))) >= (3, 11)
