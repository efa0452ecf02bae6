"""The chapters read in a real JupyterLab as on the site, with JupyterLab's default settings: #31, #43.

A JupyterLab started by the test (a free port, a random token, default settings: notebook windowing
and autosave on) serves a copy of the book's chapters and is driven by headless Chromium, with the
book's reader requirements (jupyterlab-myst, and ccb-reader, the book's extension in
``jupyterlab-ccb/``). For each chapter it checks what readers found:

- opening it does not make it "modified" (autosave rewrote the file: the kernel's display name);
- no orange "not found" marker, no role shown as source, no space between two Chinese characters;
- every citation and every link to an anchor -- of this chapter, of another chapter, of intro.md --
  clicked: the target is on screen (with windowing, a citation missed its entry by up to 6,000 px
  and a link to another chapter's equation opened that chapter at the top);
- no "No target for internal reference" in the console, no console error, nothing fetched from
  another host (jupyterlab-myst's GitHub previews fetched api.github.com);
- headings have distinct anchors (every Chinese heading had the id ``id``) and the labels read
  定理 / 练习 / 解答 as on the site (Theorem, Exercise, Start of Solution to ...);
- every solution cell is folded, showing a note and no line of its code or output;
- Run All (chapter 3, or every chapter with ``CCB_JUPYTERLAB_RUN_ALL=1``): the solutions stay folded,
  and the file saved after it keeps them folded (Run All unfolded every solution, saving dropped the
  folding).

Chapters 3, 4 and 8 by default (between them every kind of link); ``CCB_JUPYTERLAB_ALL=1``: all of
them; ``CCB_JUPYTERLAB_CHAPTERS=05,06``: those.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest
from _site import require

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("jupyterlab")]

ALL_CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
_CHOSEN = os.environ.get("CCB_JUPYTERLAB_CHAPTERS", "")
CHAPTERS = (
    ALL_CHAPTERS
    if os.environ.get("CCB_JUPYTERLAB_ALL")
    else [
        p
        for p in ALL_CHAPTERS
        if p.name[:2] in ({c.strip().zfill(2) for c in _CHOSEN.split(",")} if _CHOSEN else {"03", "04", "08"})
    ]
)
RUN_ALL = {p.name for p in CHAPTERS} if os.environ.get("CCB_JUPYTERLAB_RUN_ALL") else {"03_bandwidth.ipynb"}
# Chinese characters and punctuation, as tests/test_site.py counts stray spaces between them.
CJK_CHARS = (
    "\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uff01-\\uff0f\\uff1a-\\uff20\\uff3b-\\uff40\\uff5b-\\uff65“”‘’"
)
LOCAL = ("http://127.0.0.1", "data:", "blob:", "ws://127.0.0.1")
NOT_LOCAL = re.compile("^(?!" + "|".join(re.escape(prefix) for prefix in LOCAL) + ")")
# JupyterLab 4.5's own messages, not the chapters' (the reader pin keeps 4.5, see README).
IGNORED_CONSOLE = ("Unsatisfied version", "No satisfying version", "Failed to load resource")
# ipywidgets' log for a saved explorer output before the chapter runs (its model lives in a kernel);
# the extension shows the saved PNG in its place, which the test checks (EXPLORERS_JS).
IGNORED_CONSOLE += ("Error: widget model not found",)
# What the book's extension shows on a folded solution cell (jupyterlab-ccb: INPUT_NOTE, OUTPUT_NOTE).
FOLD_NOTES = ("解答（已折叠）", "解答的输出（已折叠）")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab():
    """``(base URL, token, folder)`` of a JupyterLab with its default settings serving a copy of
    the chapters (Run All saves into it); stopped after the module."""
    for module in ("jupyterlab", "jupyterlab_myst"):
        try:
            __import__(module)
        except ImportError:
            require(False, f"{module} not installed: pip install -r requirements-reader.txt")
    extension = pathlib.Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "ccb-reader" / "package.json"
    require(extension.is_file(), "the book's JupyterLab extension is not installed: pip install ./jupyterlab-ccb")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="ccb-lab-test-"))
    served = folder / "book"
    served.mkdir()
    shutil.copytree(ROOT / "notebooks", served / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for name in ("intro.md", "bibliography.md", "references.bib"):
        shutil.copy(ROOT / name, served / name)
    settings = folder / "settings"  # empty: JupyterLab's defaults (windowing, autosave on)
    settings.mkdir()
    token, port = secrets.token_hex(16), _free_port()
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(folder / "ws"))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={served}",
            "--allow-root",
            "--LabApp.expose_app_in_browser=True",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(folder / "lab.log").open("w"),
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.time() > end or process.poll() is not None:
                    pytest.fail(f"JupyterLab did not start: {(folder / 'lab.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield base, token, served
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def lab_page(browser, lab):
    """One JupyterLab app in Chromium for every chapter: ``(page, errors, external)``, on a workspace
    of its own (the default one reopened every chapter checked before)."""
    base, token, _ = lab
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    external: list[str] = []

    def refuse(route):
        external.append(route.request.url)
        route.abort()

    page.route(NOT_LOCAL, refuse)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc} {getattr(exc, 'stack', '')[:600]}"))
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if (m.type == "error" or m.text.startswith("ccb-reader")) and not m.text.startswith(IGNORED_CONSOLE)
            else None
        ),
    )
    page.goto(f"{base}/lab/workspaces/ccb-test-{secrets.token_hex(4)}?token={token}", wait_until="domcontentloaded")
    page.wait_for_function("window.jupyterapp", timeout=60000)
    page.evaluate("async () => { await jupyterapp.started; await jupyterapp.restored; }")
    page.wait_for_function("window.ccbReader", timeout=30000)  # the book's extension is active
    try:
        yield page, errors, external
    finally:
        page.close()


_CLOSE_ALL_JS = "() => { for (const widget of Array.from(jupyterapp.shell.widgets('main'))) widget.dispose(); }"


def _shut_down_kernels(lab) -> None:
    base, token, _ = lab
    headers = {"Authorization": f"token {token}"}
    with urllib.request.urlopen(urllib.request.Request(f"{base}/api/sessions", headers=headers), timeout=10) as r:
        sessions = json.load(r)
    for session in sessions:
        request = urllib.request.Request(f"{base}/api/sessions/{session['id']}", headers=headers, method="DELETE")
        urllib.request.urlopen(request, timeout=30).close()


# Every cell rendered, as a reader scrolling through it renders them (JupyterLab renders a Markdown
# cell when it comes into view), then back to the top; and the kernel up and idle.
RENDER_ALL_JS = r"""async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const panel = jupyterapp.shell.currentWidget, nb = panel.content;
  await panel.context.ready;
  for (let i = 0; i < nb.widgets.length; i++) { await nb.scrollToItem(i, 'start'); await frame(); }
  const start = performance.now();
  const pending = c => c.placeholder || (c.model.type === 'markdown' && !(c.rendered || c.inputHidden));
  while (performance.now() - start < 30000) {
    if (!nb.widgets.some(pending)) break;
    for (const c of nb.widgets.filter(pending)) { await nb.scrollToItem(nb.widgets.indexOf(c), 'start'); await frame(); }
    await frame();
  }
  await nb.scrollToItem(0, 'start');
  await Promise.race([panel.sessionContext.ready, new Promise(r => setTimeout(r, 60000))]);
}"""


def _open(lab_page, rel: str):
    page, errors, external = lab_page
    page.bring_to_front()  # animation frames run in the page in front only (the checks wait for them)
    page.evaluate("() => history.replaceState(null, '', location.pathname + location.search)")
    page.evaluate("async path => { await jupyterapp.commands.execute('docmanager:open', {path}); }", rel)
    page.wait_for_function(
        "name => { const l = document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current');"
        " return l && l.textContent.includes(name) && document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .myst'); }",
        arg=pathlib.Path(rel).name,
        timeout=90000,
    )
    page.evaluate(RENDER_ALL_JS)
    _wait_idle(page)
    return page


def _wait_idle(page, timeout: float = 300) -> None:
    page.wait_for_function(
        """() => { const w = jupyterapp.shell.currentWidget; const k = w && w.sessionContext && w.sessionContext.session
                   && w.sessionContext.session.kernel; return !k || (k.status === 'idle'); }""",
        timeout=timeout * 1000,
    )


# The links of the current notebook to an anchor: [[index among the rendered links, href, kind]].
LINKS_JS = r"""() => {
  const panel = jupyterapp.shell.currentWidget, here = panel.context.path;
  const out = [];
  Array.from(panel.content.node.querySelectorAll('.jp-MarkdownCell a[href]')).forEach((a, i) => {
    if (a.closest('.jp-InputArea-editor') || a.closest('[title^="链接到本"], [title^="Link to this"]')) return;
    const href = a.getAttribute('href'); let url;
    try { url = new URL(href, location.href); } catch (e) { return; }
    if (url.origin !== location.origin || !url.hash) return;
    const file = /\/files\/(.+\.(?:ipynb|md))$/.exec(decodeURIComponent(url.pathname));
    if (!file && !href.startsWith('#')) return;
    const path = file ? file[1] : here;
    out.push([i, href, path === here ? (url.hash.startsWith('#ref-') ? 'citation' : 'here') : 'other', path,
              decodeURIComponent(url.hash.slice(1)), a.textContent]);
  });
  return out;
}"""

# Click the i-th link of the current notebook (its DOM's click: the handlers a reader's click runs).
CLICK_JS = """i => { const a = Array.from(jupyterapp.shell.currentWidget.content.node.querySelectorAll('.jp-MarkdownCell a[href]'))[i]; a.click(); }"""

# Whether the element with anchor id is shown on screen in the current main-area widget.
SHOWN_JS = r"""id => { const w = jupyterapp.shell.currentWidget; if (!w) return false;
  const e = w.node.querySelector(`[id="${CSS.escape(id)}"]`); if (!e) return false;
  const r = e.getBoundingClientRect(), box = w.node.getBoundingClientRect();
  return r.height > 0 && r.top >= box.top - 2 && r.top < Math.min(innerHeight, box.bottom) - 10; }"""


def _click_and_see(page, link, home: str) -> str | None:
    """Click the link; the target shown on screen (in this notebook or the one it opens)? A problem or None."""
    i, href, kind, path, fragment, text = link
    page.evaluate(CLICK_JS, i)
    try:
        # The anchor as the site spells it, or as jupyterlab-myst does (lower case, "-" for "_").
        ids = [fragment, re.sub(r"[^a-z0-9-]+", "-", fragment.lower()).strip("-")]
        page.wait_for_function(
            "([path, ids, shown]) => { const w = jupyterapp.shell.currentWidget;"
            " return w && w.context && w.context.path === path && ids.some(id => eval(shown)(id)); }",
            arg=[path, ids, SHOWN_JS],
            timeout=30000,
            polling=100,
        )
    except Exception:
        where = page.evaluate(
            "() => { const w = jupyterapp.shell.currentWidget; return w && w.context && w.context.path; }"
        )
        return f"{kind} link {text!r} ({href.split('?')[0].split('/')[-1]}#{fragment}): target not on screen in {where}"
    finally:
        if page.evaluate("() => jupyterapp.shell.currentWidget.context.path") != home:
            page.evaluate(
                "path => { const w = Array.from(jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);"
                " jupyterapp.shell.activateById(w.id); }",
                home,
            )
            page.wait_for_function("path => jupyterapp.shell.currentWidget.context.path === path", arg=home)
    return None


FOLDED_JS = r"""() => {
  const nb = jupyterapp.shell.currentWidget.content, out = [];
  let inside = false;
  nb.widgets.forEach((cell, i) => {
    const src = cell.model.sharedModel.getSource(), md = cell.model.type === 'markdown';
    const starts = md && /```\{solution-start\}/.test(src), ends = md && /```\{solution-end\}/.test(src);
    if (inside && !starts) {
      const input = cell.node.querySelector('.jp-InputPlaceholder'), output = cell.node.querySelector('.jp-OutputPlaceholder');
      out.push({i, type: cell.model.type, inputHidden: cell.inputHidden, outputHidden: cell.model.type === 'code' ? cell.outputHidden : null,
                input: input ? input.textContent : null, output: output && output.offsetParent ? output.textContent : null,
                first: src.split('\n')[0],
                outputs: cell.model.type === 'code' ? cell.model.outputs.length : 0,
                shownOutputs: cell.model.type === 'code' ? !!(cell.node.querySelector('.jp-OutputArea') || {}).offsetParent : false});
    }
    if (starts && !ends) inside = true; else if (ends) inside = false;
  });
  return out;
}"""


def _folding_problems(cells: list[dict]) -> list[str]:
    problems = []
    for c in cells:
        if not c["inputHidden"]:
            problems.append(f"cell {c['i']}: the solution's source is unfolded")
        elif not (c["input"] or "").startswith(FOLD_NOTES[0]) or (
            c["first"].strip() and c["first"].strip() in c["input"]
        ):
            problems.append(f"cell {c['i']}: the folded source shows {c['input']!r}, not the note")
        if c["type"] == "code":
            if not c["outputHidden"] or c["shownOutputs"]:
                problems.append(f"cell {c['i']}: the solution's outputs are unfolded")
            if c["output"] is not None and not c["output"].startswith(FOLD_NOTES[1]):
                problems.append(f"cell {c['i']}: the folded outputs show {c['output']!r}")
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_reads_in_jupyterlab(lab_page, lab, path):
    base, token, served = lab
    rel = f"notebooks/{path.name}"
    before = (served / rel).read_bytes()
    page = _open(lab_page, rel)
    _, errors, external = lab_page
    errors.clear()
    try:
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        # Opened, its kernel started: not modified (autosave would write it).
        assert page.evaluate("() => jupyterapp.shell.currentWidget.context.model.dirty") is False

        # The first cell shows the chapter's place in the book.
        assert re.search(r"第 \d 章", panel.locator(".jp-Cell").first.inner_text())

        # Nothing unresolved, no role shown as source.
        unresolved = panel.locator(".jp-MarkdownCell .text-yellow-600")
        assert unresolved.count() == 0, [unresolved.nth(i).get_attribute("title") for i in range(unresolved.count())]
        text = panel.inner_text()
        for raw in ("{cite", "{eq}`", "{prf:ref}`", "{doc}`"):
            assert raw not in text, raw

        # Block labels as on the site; headings with anchors of their own (the extension relabels a
        # cell a frame after jupyterlab-myst renders it, and jupyterlab-myst renders some cells twice).
        with contextlib.suppress(Exception):
            page.wait_for_function(
                "() => !Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) :is(.myst-proof-title, .myst-exercise-title, a.hover-link)'))"
                ".some(e => /^\\s*(Start of |End of )?(Theorem|Definition|Lemma|Exercise|Solution|Proof|Corollary)/.test(e.textContent))",
                timeout=15000,
                polling=100,
            )
        labels = page.evaluate(
            "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) :is(.myst-proof-title, .myst-exercise-title, a.hover-link)'))"
            ".map(e => e.textContent)"
        )
        english = [
            t
            for t in labels
            if re.match(r"\s*(Start of |End of )?(Theorem|Definition|Lemma|Exercise|Solution|Proof|Corollary)", t)
        ]
        assert labels and english == [], (english[:5], errors[:3])
        heading_ids = (
            "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell :is(h1,h2,h3,h4)'))"
            ".map(h => [h.id, h.textContent.slice(0, 20)])"
        )
        with contextlib.suppress(Exception):
            page.wait_for_function(
                f"() => {{ const ids = ({heading_ids})().map(h => h[0]); return !ids.includes('id') && new Set(ids).size === ids.length; }}",
                timeout=10000,
                polling=100,
            )
        ids = [h[0] for h in page.evaluate(heading_ids)]
        assert ids and len(set(ids)) == len(ids) and "id" not in ids, page.evaluate(heading_ids)

        # No space between two Chinese characters.
        stray = page.evaluate(
            """cjk => {
                const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
                const pair = new RegExp(`([${cjk}])[ \\t\\n\\r]+([${cjk}])`, 'g');
                const blocks = panel.querySelectorAll('.jp-MarkdownCell :is(p, li, td, th, h1, h2, h3, h4, dt, dd)');
                const found = new Set();
                for (const block of blocks) {
                    let text = '';
                    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
                    for (let n = walker.nextNode(); n; n = walker.nextNode())
                        text += n.parentElement.closest('code, pre, .katex, .math, mjx-container') ? '\\u0000' : n.data;
                    for (const m of text.matchAll(pair))
                        found.add(text.slice(Math.max(0, m.index - 8), m.index + m[0].length + 8));
                }
                return {blocks: blocks.length, found: [...found]};
            }""",
            CJK_CHARS,
        )
        assert stray["blocks"] > 20 and stray["found"] == [], stray["found"]

        # An explorer not run yet: its saved figure, not ipywidgets' "model not found".
        failed_widgets = (
            "() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output'))"
            ".filter(o => /Error displaying widget/.test(o.textContent)).length"
        )
        with contextlib.suppress(Exception):
            page.wait_for_function(f"() => ({failed_widgets})() === 0", timeout=10000, polling=100)
        shown = page.evaluate(failed_widgets)
        assert shown == 0, f"{shown} explorer output(s) show 'Error displaying widget'"

        # Every solution folded, showing a note (not its first line of code or output).
        folded = page.evaluate(FOLDED_JS)
        assert folded and _folding_problems(folded) == [], _folding_problems(folded)[:5]

        # Every citation and every link to an anchor, clicked: the target on screen.
        links = page.evaluate(LINKS_JS)
        kinds = {k for _, _, k, *_ in links}
        markdown = "\n".join("".join(c["source"]) for c in json.loads(before)["cells"] if c["cell_type"] == "markdown")
        assert "citation" in kinds or "{cite" not in markdown, kinds
        problems = [p for link in links if (p := _click_and_see(page, link, rel))]
        assert len(links) >= 5 and problems == [], problems[:8]

        # Run All: the solutions stay folded; saved, the file keeps them folded.
        if path.name in RUN_ALL:
            page.evaluate("async () => { await jupyterapp.commands.execute('notebook:run-all-cells'); }")
            _wait_idle(page)
            page.evaluate(RENDER_ALL_JS)
            problems = _folding_problems(page.evaluate(FOLDED_JS))
            assert problems == [], f"after Run All: {problems[:5]}"
            page.evaluate("async () => { await jupyterapp.commands.execute('docmanager:save'); }")
            saved = json.loads((served / rel).read_text(encoding="utf-8"))
            original = json.loads(before)
            for i, cell in enumerate(original["cells"]):
                want = cell["metadata"].get("jupyter", {})
                got = saved["cells"][i]["metadata"].get("jupyter", {})
                for key in ("source_hidden", "outputs_hidden"):
                    assert got.get(key) == want.get(key), (i, key, got, want)
                assert bool(saved["cells"][i]["metadata"].get("collapsed")) == bool(
                    cell["metadata"].get("collapsed")
                ), i
        else:
            # Opened, read, clicked through: not modified, not rewritten (autosave is on).
            assert page.evaluate("() => jupyterapp.shell.currentWidget.context.model.dirty") is False
            assert (served / rel).read_bytes() == before, f"{rel} was rewritten"

        assert external == [], f"requests that left the machine: {external[:5]}"
        assert not errors, "\n".join(errors[:3])
    finally:
        try:
            # Every other chapter a link opened: read, not modified.
            dirty = page.evaluate(
                "() => Array.from(jupyterapp.shell.widgets('main')).filter(w => w.context && w.context.model.dirty"
                " && w.context.path !== " + json.dumps(rel) + ").map(w => w.context.path)"
            )
            page.evaluate(_CLOSE_ALL_JS)
        finally:
            _shut_down_kernels(lab)
        assert dirty == [], f"opened by a link, modified: {dirty}"


def test_a_hover_on_a_github_link_fetches_nothing(lab_page, lab):
    """jupyterlab-myst previews a GitHub issue or file link on hover by fetching api.github.com /
    raw.githubusercontent.com: the book's extension refuses those requests (the link still opens)."""
    page, errors, external = lab_page
    refused = page.evaluate(
        """async () => { const out = [];
          for (const url of ['https://api.github.com/repos/NVIDIA/nccl/issues/1264',
                             'https://raw.githubusercontent.com/NVIDIA/nccl/master/README.md']) {
            try { await fetch(url); out.push('fetched ' + url); } catch (e) { out.push('refused'); } }
          return out; }"""
    )
    assert refused == ["refused", "refused"]
    assert not any("github" in url for url in external), external
    with contextlib.suppress(Exception):
        errors.clear()
