"""The student edition: cutting the gated solutions out of every chapter keeps the exercises intact."""

import importlib.util
import pathlib

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build_student_site", ROOT / "tools" / "build_student_site.py")
build_student_site = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_student_site)


def test_strip_solutions_on_every_chapter():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        original = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in original.cells)
        stripped = build_student_site.strip_solutions(nbformat.read(path, as_version=4))
        after = "\n".join(c.source for c in stripped.cells)
        assert "solution-start" not in after and "solution-end" not in after
        assert after.count("{exercise-start}") == text.count("{exercise-start}") >= 4
        assert after.count("{exercise-end}") == text.count("{exercise-end}")
        assert len(stripped.cells) < len(original.cells)  # the solutions' code cells are gone


def test_strip_solutions_small_case():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("intro\n```{exercise-start}\n:label: a\n```\nQ\n```{exercise-end}\n```\n\n```{solution-start} a\n:class: dropdown\n```\nhint"),
        nbformat.v4.new_code_cell("answer = 42"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```\n\nafter"),
    ]
    out = build_student_site.strip_solutions(nb)
    assert [c.source for c in out.cells] == ["intro\n```{exercise-start}\n:label: a\n```\nQ\n```{exercise-end}\n```\n\n", "after"]
