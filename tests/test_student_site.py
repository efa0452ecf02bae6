"""The student edition: built from _config.student.yml, and no solution reachable from it.

``tools/build_student_site.py`` is run into ``_build/test-cache/`` (the chapters' committed outputs
are used, nothing is executed; one build per state of the sources, see ``student_site`` in
conftest.py). The built site is then searched — every page's visible text, the downloadable
notebooks in ``_sources/`` and the search index — for the text of every exercise's solution, and
every link is checked: none may lead to the repository, Binder, Colab or a notebook that still
has its solutions. The same search finds every exercise's statement, so it can find
text when it is there.
"""

from __future__ import annotations

import html
import importlib.util
import pathlib
import re

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build_student_site", ROOT / "tools" / "build_student_site.py")
build_student_site = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_student_site)

CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOLUTION = re.compile(r"```\{solution-start\}[^\n]*\n(?::[^\n]*\n)*```\n(.*?)```\{solution-end\}", re.S)
EXERCISE = re.compile(r"```\{exercise-start\}[^\n]*\n(?::[^\n]*\n)*```\n(.*?)```\{exercise-end\}", re.S)
ROLE = re.compile(r"\{[a-z:]+\}`[^`]*`|\[[^\]]*\]\([^)]*\)|`[^`]*`")


def normalise(text: str) -> str:
    """Letters, digits and CJK only: markup, spacing and highlighting do not matter."""
    return "".join(ch for ch in text if ch.isalnum())


def fragments(text: str) -> list[str]:
    """Pieces of ``text`` that a rendered page shows verbatim (roles and links removed), normalised."""
    pieces = []
    for line in text.splitlines():
        for piece in ROLE.split(line):
            piece = normalise(piece)
            if len(piece) >= 12:
                pieces.append(piece)
    return pieces


def _joined(path: pathlib.Path) -> str:
    nb = nbformat.read(path, as_version=4)
    # Code cells inside a solution are part of it: they sit between the fences in the joined text.
    return "\n".join(c.source if c.cell_type == "markdown" else "```\n" + c.source + "\n```" for c in nb.cells)


def _outside_solutions() -> str:
    """Everything the book shows outside the solutions (all chapters and pages), normalised."""
    pages = [SOLUTION.sub("", _joined(path)) for path in CHAPTERS]
    pages += [p.read_text(encoding="utf-8") for p in ROOT.glob("*.md") if p.name != "README.md"]
    return normalise("\n".join(pages))


def chapter_parts(path: pathlib.Path, outside: str) -> tuple[list[str], list[str]]:
    """(fragments only a solution contains, exercise fragments) of a chapter."""
    joined = _joined(path)
    solutions = "\n".join(m.group(1) for m in SOLUTION.finditer(joined))
    exercises = "\n".join(m.group(1) for m in EXERCISE.finditer(joined))
    return [f for f in fragments(solutions) if f not in outside], fragments(exercises)


def test_strip_solutions_on_every_chapter():
    for path in CHAPTERS:
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
        nbformat.v4.new_markdown_cell(
            "intro\n```{exercise-start}\n:label: a\n```\nQ\n```{exercise-end}\n```\n\n```{solution-start} a\n:class: dropdown\n```\nhint"
        ),
        nbformat.v4.new_code_cell("answer = 42"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```\n\nafter"),
    ]
    out = build_student_site.strip_solutions(nb)
    assert [c.source for c in out.cells] == [
        "intro\n```{exercise-start}\n:label: a\n```\nQ\n```{exercise-end}\n```\n\n",
        "after",
    ]


def test_student_sources_never_point_at_the_repository(tmp_path, monkeypatch):
    """The chapters install the course's package, not the repository that holds the solutions (#29)."""
    repository = build_student_site.yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"][
        "url"
    ]
    host = repository.split("://")[-1]
    assert any(host in path.read_text(encoding="utf-8") for path in CHAPTERS)  # the reader's edition names it
    monkeypatch.delenv("CCB_PACKAGE_SOURCE", raising=False)
    for requirement, expected in (
        ("", "请按课程的说明安装"),
        ("ccb_helpers @ https://course.example/ccb.whl", "course.example/ccb.whl"),
    ):
        src = build_student_site.prepare(tmp_path / (requirement and "given" or "empty"), requirement or None)
        texts = [
            p.read_text(encoding="utf-8")
            for p in src.rglob("*")
            if p.is_file() and p.suffix in (".ipynb", ".md", ".yml")
        ]
        assert not any(host in text for text in texts)
        assert all(expected in p.read_text(encoding="utf-8") for p in (src / "notebooks").glob("*.ipynb"))


def test_student_config_overrides_the_readers_config():
    config = build_student_site.student_config()
    assert config["title"].endswith("（学生版）")
    assert config["execute"]["execute_notebooks"] == "off"
    assert config["repository"]["url"] == "" and not config["html"]["use_repository_button"]
    assert not config["launch_buttons"]["colab_url"] and not config["launch_buttons"]["binderhub_url"]
    # Everything else is the reader's configuration, merged key by key.
    assert config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]["Bbis"]
    assert (
        config["parse"]
        == build_student_site.yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["parse"]
    )


@pytest.fixture(scope="module")
def site(student_site):  # built once per state of the sources (conftest.py), shared with the phone test
    return student_site


def _visible(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _site_text(site: pathlib.Path) -> str:
    texts = [_visible(p.read_text(encoding="utf-8")) for p in site.rglob("*.html")]
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in (site / "_sources").rglob("*") if p.is_file()]
    texts += [html.unescape((site / "searchindex.js").read_text(encoding="utf-8"))]
    return normalise("\n".join(texts))


def test_student_site_has_its_own_title(site):
    title = build_student_site.student_config()["title"]
    pages = sorted(site.rglob("*.html"))
    chapter_pages = [site / "notebooks" / f"{path.stem}.html" for path in CHAPTERS]
    assert all(page.exists() for page in chapter_pages)
    for page in pages:
        head = page.read_text(encoding="utf-8")
        match = re.search(r"<title>(.*?)</title>", head, re.S)
        if match and page.name not in ("genindex.html", "search.html"):
            assert title in html.unescape(match.group(1)), page


def test_student_site_contains_no_solution_text(site):
    text, outside = _site_text(site), _outside_solutions()
    checked = 0
    for path in CHAPTERS:
        solutions, exercises = chapter_parts(path, outside)
        assert exercises and solutions, path.name
        missing = [f for f in exercises if f not in text]
        assert not missing, (path.name, "the search cannot find exercise text", missing[:3])
        leaked = [f for f in solutions if f in text]
        assert not leaked, (path.name, leaked[:3])
        checked += len(solutions)
    assert checked > 50


def test_student_site_links_lead_to_no_solutions(site):
    repository = build_student_site.yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"][
        "url"
    ]
    forbidden = re.compile(
        "|".join(re.escape(u) for u in (repository.split("://")[-1], "colab.research.google.com", "mybinder.org"))
    )
    owner = repository.split("://")[-1].split("/")[1]  # the organisation: its name leads to the repository
    for page in site.rglob("*.html"):
        source = page.read_text(encoding="utf-8")
        assert owner not in source, (page.name, owner)  # the footer's author named it (#29)
        for target in re.findall(r'(?:href|src|action)="([^"]+)"', source):
            assert not forbidden.search(target), (page.name, target)
            if target.split("#")[0].endswith(".ipynb"):
                notebook = (page.parent / target.split("#")[0]).resolve()
                assert notebook.is_file() and site in notebook.parents, (page.name, target)
                assert "solution-start" not in notebook.read_text(encoding="utf-8"), (page.name, target)
        for button in (
            "dropdown-launch-buttons",
            "btn-source-repository-button",
            "btn-issues-button",
            "btn-edit-button",
        ):
            assert button not in source, (page.name, button)
    downloads = sorted((site / "_sources" / "notebooks").glob("*.ipynb"))
    assert len(downloads) == len(CHAPTERS)
    for notebook in downloads:
        assert "solution-start" not in notebook.read_text(encoding="utf-8"), notebook.name
