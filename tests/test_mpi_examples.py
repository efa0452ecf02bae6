"""Chapter 6's example results ship with the package (issue #43: the chapter failed on Colab without them)."""

from __future__ import annotations

import fnmatch
import json
import pathlib
import re
import tomllib

import nbformat
import pytest

import ccb_helpers as ccb

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_examples_load_through_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty folder, as on Colab: nothing to find next to the notebook
    sweep = ccb.load_mpi_result("mpi_sweep_example")
    assert sweep["command"] == "sweep" and sweep["n"] == 4 and sweep["runs"]
    text = (ROOT / "ccb_helpers" / "data" / "mpi" / "mpi_sweep_example.json").read_text(encoding="utf-8")
    assert ccb.mpi_example("mpi_sweep_example") == json.loads(text)
    record = ccb.mpi_example("pingpong_vs_mpi4py")
    assert {"book", "bench", "bench_written"} <= set(record)
    assert ccb.mpi.pingpong_agreement_table(record).rows
    explorer = ccb.MPIResultExplorer("mpi_sweep_example")
    try:
        assert explorer.n == 4
    finally:
        explorer.close()


def test_a_file_of_the_same_name_wins_and_unknown_names_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own = {"command": "run", "algorithm": "ring", "primitive": "all_reduce", "n": 3, "m": 8, "correct": True}
    (tmp_path / "mpi_sweep_example").write_text(json.dumps({**own, "times_s": [1e-5], "median_s": 1e-5}))
    assert ccb.load_mpi_result("mpi_sweep_example")["n"] == 3  # the reader's own file, not the example
    with pytest.raises(ValueError, match="no such result file"):
        ccb.load_mpi_result("mpi_sweep_exampel")
    with pytest.raises(ValueError, match="unknown name .cluster.; allowed: .mpi_sweep_example."):
        ccb.mpi_example("cluster")


def test_package_data_declares_every_shipped_file():
    # A file under ccb_helpers/data that no package-data glob names is missing from the wheel
    # (and from a pip install on Colab), as chapter 6's examples were.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["ccb_helpers"]
    package = ROOT / "ccb_helpers"
    shipped = [p.relative_to(package).as_posix() for p in (package / "data").rglob("*") if p.is_file()]
    missing = [f for f in shipped if "__pycache__" not in f and not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert shipped and not missing, missing


def test_no_chapter_reads_a_file_next_to_the_notebook():
    # Colab runs a chapter alone: a path like "data/..." relative to the notebook is not there.
    relative = re.compile(r"""["'](?:\./)?data/""")
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        found += [(path.name, i) for i, c in enumerate(nb.cells) if c.cell_type == "code" and relative.search(c.source)]
    assert not found, found
